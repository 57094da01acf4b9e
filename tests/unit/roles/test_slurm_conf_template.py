# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""roles/slurm/templates/slurm.conf.j2 rendered by Ansible's own templar, with the settings the role's preflight
computes (gpufleet.cluster.slurm_conf_check with the fabric's topology, as tasks/preflight.yml calls it).

Issue 28: a `kind: block` topology got TopologyPlugin=topology/tree, so topology.conf's BlockName= lines were read
by a plugin that knows only SwitchName= lines.
"""
from __future__ import annotations

import os

import pytest
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.gpufleet.cluster.plugins.filter.slurm_conf_check import slurm_conf_check
from ansible_collections.gpufleet.cluster.plugins.filter.slurm_topology_conf import slurm_topology_conf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
TEMPLATE = os.path.join(ROOT, "roles", "slurm", "templates", "slurm.conf.j2")
NODES = ["gpu%02d" % n for n in range(1, 19)]
BLOCK = {"kind": "block", "blocks": [{"name": "nvl1", "nodes": "gpu[01-18]"}]}
TREE = {"kind": "tree", "leaves": [{"name": "leaf1", "nodes": "gpu[01-09]"}, {"name": "leaf2", "nodes": "gpu[10-18]"}],
        "spines": [{"name": "spine1", "leaves": ["leaf1", "leaf2"]}]}


def render(topology, version="24.11"):
    """slurm.conf as the role writes it for this topology (None: no topology in the inventory)."""
    settings = {"SelectType": "select/cons_tres", "GresTypes": "gpu"}
    variables = {
        "ansible_managed": "Ansible managed",
        "slurm_cluster_name": "h100",
        "__slurm_release": version,
        "__slurm_controllers": ["head"],
        "__slurm_description": {"addresses": {"head": "10.0.1.1"}},  # the cluster description (issue 29)
        "slurm_state_save_location": "/var/lib/slurm/slurmctld",
        "__slurm_spool_dir": "/var/lib/slurm/slurmd",
        "__slurm_log_dir": "/var/log/slurm",
        "slurm_gpu_health_check": False,
        "__slurm_conf_dir": "/etc/slurm",
        "__slurm_conf": slurm_conf_check(settings, "slurm.conf", version, topology=topology),
        "__slurm_topology": slurm_topology_conf(topology, version, NODES) if topology is not None else [],
    }
    with open(TEMPLATE, encoding="utf-8") as handle:
        text = handle.read()
    return Templar(loader=DataLoader(), variables=variables).template(trust_as_template(text)).splitlines()


@pytest.mark.parametrize("topology, plugin", [(BLOCK, "topology/block"), (TREE, "topology/tree")])
def test_the_topology_plugin_is_the_one_that_reads_topology_conf(topology, plugin):
    lines = render(topology)
    assert [line for line in lines if line.lower().startswith("topologyplugin")] == ["TopologyPlugin=" + plugin]
    first = slurm_topology_conf(topology, "24.11", NODES)[0]
    assert first.startswith("BlockName=" if plugin == "topology/block" else "SwitchName=")


def test_no_topology_no_plugin():
    lines = render(None)
    assert not [line for line in lines if line.lower().startswith("topologyplugin")]
    assert "SelectType=select/cons_tres" in lines and lines[-1] == "Include /etc/slurm/nodes.conf"
    assert "SlurmctldHost=head(10.0.1.1)" in lines
