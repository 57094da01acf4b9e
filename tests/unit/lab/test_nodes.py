# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""lab/nodes.py: the nodes of a lab, their addresses and the podman arguments of their containers."""
from __future__ import annotations

import nodes


def test_plan_nodes_and_addresses():
    planned = nodes.plan_nodes("gpufleet-lab", computes=16, logins=1)
    names = [n.hostname for n in planned]
    assert names[:2] == ["head", "login01"] and names[-1] == "gpu16" and len(names) == 18
    ips = [n.ip for n in planned]
    assert len(set(ips)) == len(ips)
    net = ips[0].rsplit(".", 1)[0]
    assert all(ip.startswith(net + ".") for ip in ips)
    assert planned[0].groups == ["slurm_controller", "slurm_dbd"]
    # Labs of different names get different /24s, stable across runs, never podman's 10.123.0.0/24.
    assert nodes.lab_subnet("gpufleet-lab") != nodes.lab_subnet("gpufleet-e2e")
    assert nodes.lab_subnet("gpufleet-lab") == nodes.lab_subnet("gpufleet-lab")
    assert 1 <= nodes.lab_subnet("x") <= 250


def test_run_args_and_spec_follow_the_nodes_role():
    head, head2, gpu = nodes.plan_nodes("t", computes=1, logins=0, controllers=2)
    assert head2.hostname == "head2" and head2.groups == ["slurm_controller"]
    assert head.run_args("t", 1) == ["--restart", "always"]
    assert head.run_args("t", 2) == ["--restart", "always", "-v", "t-slurmctld-state:/srv/slurmctld-state"]
    args = gpu.run_args("t", 2)
    assert [args[i + 1] for i, arg in enumerate(args) if arg == "--device"] == [
        "/dev/null:/dev/nvidia%d" % i for i in range(8)]
    assert "type=tmpfs,destination=/sys/module" in args and "-v" not in args
    # The spec label changes with what the container is made from, and only then.
    assert head.spec("img:a", "t", 1) == head.spec("img:a", "t", 1)
    assert len({head.spec("img:a", "t", 1), head.spec("img:b", "t", 1), head.spec("img:a", "t", 2)}) == 3
