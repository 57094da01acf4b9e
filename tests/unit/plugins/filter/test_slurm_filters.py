# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The four Slurm filters: registration, results, input checks and error wrapping with the FQCN."""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import slurm_conf_check as conf_plugin
from ansible_collections.gpufleet.cluster.plugins.filter import slurm_gres_lines as gres_plugin
from ansible_collections.gpufleet.cluster.plugins.filter import slurm_node_lines as node_plugin
from ansible_collections.gpufleet.cluster.plugins.filter import slurm_topology_conf as topo_plugin
from ansible_collections.gpufleet.cluster.plugins.filter.slurm_conf_check import slurm_conf_check
from ansible_collections.gpufleet.cluster.plugins.filter.slurm_gres_lines import slurm_gres_lines
from ansible_collections.gpufleet.cluster.plugins.filter.slurm_node_lines import slurm_node_lines
from ansible_collections.gpufleet.cluster.plugins.filter.slurm_topology_conf import slurm_topology_conf

NODES = [{"name": "compute%02d" % i, "sockets": 2, "cores_per_socket": 52, "threads_per_core": 1,
          "real_memory": 2063937, "gres": [{"type": "gpu", "model": "h100", "count": 8}]} for i in range(1, 9)]


def test_filters_are_registered_under_their_names():
    assert conf_plugin.FilterModule().filters() == {"slurm_conf_check": slurm_conf_check}
    assert node_plugin.FilterModule().filters() == {"slurm_node_lines": slurm_node_lines}
    assert gres_plugin.FilterModule().filters() == {"slurm_gres_lines": slurm_gres_lines}
    assert topo_plugin.FilterModule().filters() == {"slurm_topology_conf": slurm_topology_conf}


def test_conf_check_result():
    result = slurm_conf_check({"ControlMachine": "head1", "ClusterName": "gpufleet", "UsePAM": False}, "slurm.conf", "22.05.8")
    assert result["lines"] == ["ClusterName=gpufleet", "UsePAM=NO", "SlurmctldHost=head1"]
    assert result["translated"][0]["from"] == "ControlMachine"
    assert result["warnings"] == []


def test_conf_check_cgroup_defaults_overlay():
    result = slurm_conf_check({"constrainramspace": False, "ConstrainSwapSpace": True}, "cgroup.conf", "23.11.4", defaults=True)
    assert result["lines"] == ["CgroupPlugin=autodetect", "ConstrainCores=YES", "ConstrainDevices=YES",
                               "ConstrainRAMSpace=NO", "ConstrainSwapSpace=YES"]


def test_node_lines_result():
    result = slurm_node_lines(NODES, [{"name": "gpu", "nodes": "ALL", "default": True}], "22.05.8")
    assert result["node_lines"] == ["NodeName=compute[01-08] CPUs=104 Sockets=2 CoresPerSocket=52 ThreadsPerCore=1 "
                                    "RealMemory=2063937 Gres=gpu:h100:8"]
    assert result["partition_lines"] == ["PartitionName=gpu Nodes=compute[01-08] Default=YES"]
    assert result["lines"] == result["node_lines"] + result["partition_lines"]
    assert slurm_node_lines(NODES)["partition_lines"] == []


def test_gres_lines_result():
    gres = [{"nodes": "compute[01-08]", "type": "h100", "gpus": [{"index": i, "numa_node": i // 4} for i in range(8)],
             "numa_cores": {"0": "0-51", "1": "52-103"}}]
    assert slurm_gres_lines(gres, NODES, "22.05") == [
        "NodeName=compute[01-08] Name=gpu Type=h100 File=/dev/nvidia[0-3] Cores=0-51",
        "NodeName=compute[01-08] Name=gpu Type=h100 File=/dev/nvidia[4-7] Cores=52-103"]


def test_topology_result():
    fabric = {"kind": "tree", "leaves": [{"name": "leaf1", "nodes": "compute[01-04]"}, {"name": "leaf2", "nodes": "compute[05-08]"}],
              "spines": [{"name": "spine1", "leaves": ["leaf1", "leaf2"]}]}
    assert slurm_topology_conf(fabric, "22.05.8", ["compute[01-08]"]) == [
        "SwitchName=leaf1 Nodes=compute[01-04]", "SwitchName=leaf2 Nodes=compute[05-08]", "SwitchName=spine1 Switches=leaf[1-2]"]


@pytest.mark.parametrize("call, message", [
    (lambda: slurm_conf_check({"PriorityDecayType": "x"}, "slurm.conf", "22.05.8"),
     r"^gpufleet\.cluster\.slurm_conf_check: slurm.conf key 'PriorityDecayType' is not accepted by Slurm 22.05"),
    (lambda: slurm_conf_check({"MaxConcurrentJobs": 1}, "slurm.conf", "23.11.4"),
     r"^gpufleet\.cluster\.slurm_conf_check: .*'MaxConcurrentJobs' is not accepted by Slurm 23.11"),
    (lambda: slurm_conf_check([], "slurm.conf", "22.05"), r"^gpufleet\.cluster\.slurm_conf_check: input must be a mapping"),
    (lambda: slurm_conf_check({}, "slurm.cfg", "22.05"), r"^gpufleet\.cluster\.slurm_conf_check: conf must be one of"),
    (lambda: slurm_conf_check({}, "slurm.conf", 22.05), r"^gpufleet\.cluster\.slurm_conf_check: version must be a string"),
    (lambda: slurm_conf_check({}, "slurm.conf", "21.08"), r"^gpufleet\.cluster\.slurm_conf_check: .*known releases: 22.05, 23.11, 24.11"),
    (lambda: slurm_conf_check({}, "slurm.conf", "22.05", defaults=True), r"defaults=true exists for cgroup.conf only"),
    (lambda: slurm_conf_check({}, "slurm.conf", "22.05", defaults="yes"), r"defaults must be true or false"),
    (lambda: slurm_node_lines("compute01"), r"^gpufleet\.cluster\.slurm_node_lines: input must be a list"),
    (lambda: slurm_node_lines(NODES, {"name": "p"}), r"^gpufleet\.cluster\.slurm_node_lines: partitions must be a list"),
    (lambda: slurm_node_lines([dict(NODES[0], cpus=208)]), r"^gpufleet\.cluster\.slurm_node_lines: node compute01: cpus=208"),
    (lambda: slurm_node_lines(NODES, [{"name": "p", "nodes": "compute[01-07]"}]),
     r"^gpufleet\.cluster\.slurm_node_lines: node\(s\) compute08 are in no partition"),
    (lambda: slurm_node_lines(NODES, None, 2205), r"^gpufleet\.cluster\.slurm_node_lines: version must be a string"),
    (lambda: slurm_gres_lines({"nodes": "n1"}), r"^gpufleet\.cluster\.slurm_gres_lines: input must be a list"),
    (lambda: slurm_gres_lines([{"nodes": "compute[01-08]", "autodetect": "nvml", "count": 4}], NODES),
     r"^gpufleet\.cluster\.slurm_gres_lines: node compute01: slurm.conf Gres=gpu:h100:8 declares 8 gpu but gres.conf has 4"),
    (lambda: slurm_gres_lines([], "n1"), r"^gpufleet\.cluster\.slurm_gres_lines: nodes must be a list"),
    (lambda: slurm_gres_lines([{"nodes": "n1", "autodetect": "nvml"}], None, None), r"^gpufleet\.cluster\.slurm_gres_lines: version must be a string"),
    (lambda: slurm_topology_conf([]), r"^gpufleet\.cluster\.slurm_topology_conf: input must be a fabric mapping"),
    (lambda: slurm_topology_conf({"kind": "block", "blocks": [{"name": "b", "nodes": "n1"}]}, "22.05.8"),
     r"^gpufleet\.cluster\.slurm_topology_conf: topology/block needs Slurm >= 23.11; Slurm 22.05"),
    (lambda: slurm_topology_conf({"leaves": [{"name": "l", "nodes": "n1"}]}, "22.05", "n1"), r"nodes must be a list of host names"),
    (lambda: slurm_topology_conf({"leaves": [{"name": "l", "nodes": "n1"}]}, 22), r"version must be a string"),
])
def test_errors_name_the_filter(call, message):
    with pytest.raises(AnsibleFilterError, match=message):
        call()
