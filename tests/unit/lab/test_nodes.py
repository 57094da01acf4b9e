# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""lab/nodes.py: the nodes of a lab, their addresses and the podman arguments of their containers."""
from __future__ import annotations

import base64

import pytest

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


def test_a_bare_gpu_node_has_no_stand_in_devices_and_is_made_anew():
    # Issue 28: a node nothing has converged has no /dev/nvidia* (no driver yet).
    gpu01, gpu02 = [n for n in nodes.plan_nodes("t", computes=2, logins=0, bare=["gpu02"]) if "gpu_nodes" in n.groups]
    assert not gpu01.bare and gpu02.bare
    args = gpu02.run_args("t", 1)
    assert "--device" not in args and "type=tmpfs,destination=/sys/module" in args
    assert args[args.index("--label") + 1] == "gpufleet.bare=true" and "--label" not in gpu01.run_args("t", 1)
    # The same node bare or not is another container: `up` re-creates it.
    assert gpu01.spec("img", "t", 1) != nodes.Node(gpu01.hostname, gpu01.ip, gpu01.groups, True).spec("img", "t", 1)


def test_a_bare_node_gets_a_default_memlock_below_the_labs_inventory_once(monkeypatch):
    # ... and a memlock below the inventory's: 4 MiB, under common_memlock_kib 8192, in a drop-in that sorts before
    # the common role's 90-gpufleet-limits.conf (which then wins). Written once, systemd re-executed to read it.
    assert nodes.BARE_MEMLOCK_KIB < 8192 and nodes.BARE_MEMLOCK_DROP_IN < "/etc/systemd/system.conf.d/90-gpufleet-limits.conf"
    assert nodes.bare_memlock_drop_in().splitlines()[-2:] == ["[Manager]", "DefaultLimitMEMLOCK=4096K"]
    calls = []
    monkeypatch.setattr(nodes.common, "podman", lambda *args, **kw: calls.append(args))
    nodes.make_bare("t-gpu03")
    ((_exec, cname, _sh, _c, script),) = calls
    encoded = script.split("echo ", 1)[1].split()[0]
    assert cname == "t-gpu03" and base64.b64decode(encoded).decode() == nodes.bare_memlock_drop_in()
    assert script.startswith("[ -e /etc/systemd/system.conf.d/10-lab-bare-memlock.conf ] || { mkdir -p ")
    assert script.endswith("> /etc/systemd/system.conf.d/10-lab-bare-memlock.conf && systemctl daemon-reexec; }")


def test_bare_names_only_gpu_nodes(capsys):
    with pytest.raises(SystemExit):
        nodes.plan_nodes("t", computes=2, logins=1, bare=["gpu03", "login01"])
    assert "--bare gpu03, login01: not a GPU node of this lab (gpu01..gpu02)" in capsys.readouterr().err


def test_gpu_stand_ins_unit_links_every_device_before_slurmd(monkeypatch):
    unit = nodes.gpu_stand_ins_unit()
    assert "Before=slurmd.service" in unit and "WantedBy=multi-user.target" in unit
    assert "ExecStart=/bin/sh -c 'for i in 0 1 2 3 4 5 6 7; do ln -sfn /dev/null /dev/nvidia$i; done'" in unit
    calls = []
    monkeypatch.setattr(nodes.common, "podman", lambda *args, **kw: calls.append(args))
    nodes.install_gpu_stand_ins("t-gpu03")
    (call,) = calls
    assert call[:4] == ("exec", "t-gpu03", "sh", "-c")
    encoded = call[4].split()[1]
    assert base64.b64decode(encoded).decode() == unit
    assert call[4].endswith("systemctl daemon-reload && systemctl enable --now lab-gpu-stand-ins.service")
