# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""cluster/slurm_nodes.py: the compute nodes' layouts equal to what the slurm preflight's per-host templates rendered
(cluster_reference, by Ansible's templar), and the lines equal to the Slurm filters' on them."""
from __future__ import annotations

import pytest
from hypothesis import example, given, settings, strategies as st

from ansible_collections.gpufleet.cluster.plugins.filter.slurm_gres_lines import slurm_gres_lines
from ansible_collections.gpufleet.cluster.plugins.filter.slurm_node_lines import slurm_node_lines
from ansible_collections.gpufleet.cluster.plugins.filter.slurm_topology_conf import slurm_topology_conf
from ansible_collections.gpufleet.cluster.plugins.module_utils.cluster.inputs import ClusterDescriptionError
from ansible_collections.gpufleet.cluster.plugins.module_utils.cluster.slurm_nodes import (
    LAYOUT_VARS, gres_entries, node_list, slurm_part)
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.conf.settings import SlurmConfError
from cluster_reference import GRES_ENTRIES, NODE_LIST, render

DEFAULTS = {"slurm_gpu_count": 8, "slurm_node_cpus": 4, "slurm_node_sockets": 1, "slurm_node_cores_per_socket": 4,
            "slurm_node_threads_per_core": 1, "slurm_node_real_memory_mib": 2048, "slurm_node_features": [],
            "slurm_gpu_type": "h100", "slurm_gpu_numa": {}, "slurm_gres_autodetect": "", "slurm_numa_cores": {}}
PARTITIONS = [{"name": "gpu", "nodes": "ALL", "default": True}]
VALUES = {
    "slurm_gpu_count": st.sampled_from([0, 2, 4, "4", "8", "x"]),
    "slurm_node_cpus": st.sampled_from([4, "4", 8]),
    "slurm_node_sockets": st.sampled_from([1, 2]),
    "slurm_node_cores_per_socket": st.sampled_from([2, 4]),
    "slurm_node_threads_per_core": st.sampled_from([1, "1"]),
    "slurm_node_real_memory_mib": st.sampled_from([1024, "2048"]),
    "slurm_node_features": st.sampled_from([[], ["h100"], ["h100", "ib"]]),
    "slurm_gpu_type": st.sampled_from(["h100", "a100", "H100"]),
    "slurm_gpu_numa": st.sampled_from([{}, [0, 0, 1, 1], {0: 0, "1": 1}, {"0": 1}]),
    "slurm_gres_autodetect": st.sampled_from(["", "nvml"]),
    "slurm_numa_cores": st.sampled_from([{}, {0: "0-1", 1: "2-3"}]),
}
HOST = st.fixed_dictionaries({}, optional=VALUES)
COMPUTES = st.dictionaries(st.sampled_from(["gpu%02d" % n for n in range(1, 9)] + ["Gpu09"]), HOST, max_size=6)


def reference(template, hosts, computes, defaults):
    return render(template, dict(defaults, hostvars=hosts, __slurm_computes=computes))


@settings(max_examples=80)
@given(COMPUTES, st.fixed_dictionaries(VALUES))
@example({"gpu02": {"slurm_gpu_count": 2}, "gpu01": {}}, DEFAULTS)
@example({"gpu01": {"slurm_gpu_type": "a100"}, "gpu02": {"slurm_gpu_type": "H100"}}, DEFAULTS)
def test_layouts_are_what_the_templates_rendered(hosts, defaults):
    computes = list(hosts)
    assert node_list(hosts, computes, defaults) == reference(NODE_LIST, hosts, computes, defaults)
    assert gres_entries(hosts, computes, defaults) == reference(GRES_ENTRIES, hosts, computes, defaults)


def test_gres_entries_group_identical_layouts():
    hosts = {"gpu01": {}, "gpu02": {}, "gpu03": {"slurm_gpu_count": 4}, "gpu04": {"slurm_gpu_count": 0}}
    entries = gres_entries(hosts, list(hosts), dict(DEFAULTS, slurm_gpu_numa=[0, 0, 0, 0, 1, 1, 1, 1]))
    # In the order of the layouts' JSON text: the 8-GPU list goes on (", {") where the 4-GPU one ends ("]").
    assert [entry["nodes"] for entry in entries] == [["gpu01", "gpu02"], ["gpu03"]]
    assert [gpu["numa_node"] for gpu in entries[0]["gpus"]] == [0, 0, 0, 0, 1, 1, 1, 1]


def _slurm(computes, **extra):
    return dict({"controllers": ["head"], "computes": computes, "defaults": DEFAULTS, "partitions": PARTITIONS,
                 "release": "23.11", "topology": None}, **extra)


def test_slurm_part_lines_are_the_filters_lines():
    hosts = {"head": {"gpufleet_ip": "10.0.0.1"}, "gpu01": {}, "gpu02": {}, "gpu03": {"slurm_gpu_count": 4}}
    topology = {"kind": "tree", "leaves": [{"name": "leaf1", "nodes": "gpu[01-03]"}]}
    part = slurm_part(hosts, _slurm(["gpu01", "gpu02", "gpu03"], topology=topology))
    assert part["node_conf"] == slurm_node_lines(part["nodes"], PARTITIONS, "23.11")
    assert part["node_conf"]["node_lines"] == [
        "NodeName=gpu[01-02] CPUs=4 Sockets=1 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=2048 Gres=gpu:h100:8",
        "NodeName=gpu03 CPUs=4 Sockets=1 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=2048 Gres=gpu:h100:4"]
    assert part["gres_lines"] == slurm_gres_lines(part["gres"], part["nodes"], "23.11")
    assert part["topology_lines"] == slurm_topology_conf(topology, "23.11", ["gpu01", "gpu02", "gpu03"])
    assert part["size"] == {"nodes": 3, "cpus": 12, "gpus": 20}
    assert (part["release"], part["partitions"], part["topology"]) == ("23.11", PARTITIONS, topology)
    assert part["controllers"] == ["head"] and part["computes"] == ["gpu01", "gpu02", "gpu03"]


def test_slurm_part_keeps_the_accounting_host_for_every_slice():
    # A slice of the node job has no slurm_dbd group of its own: slurm.conf's AccountingStorageHost comes from here.
    hosts = {"head": {}, "dbd": {}, "gpu01": {}}
    assert slurm_part(hosts, _slurm(["gpu01"], dbd=["dbd"]))["dbd"] == ["dbd"]
    assert slurm_part(hosts, _slurm(["gpu01"]))["dbd"] == []
    with pytest.raises(ClusterDescriptionError, match=r"^slurm dbd names 'db9', which hosts does not hold"):
        slurm_part(hosts, _slurm(["gpu01"], dbd=["db9"]))


def test_no_computes_no_lines():
    part = slurm_part({"head": {}}, _slurm([]))
    assert part["node_conf"] is None and part["gres_lines"] == [] and part["size"] == {"nodes": 0, "cpus": 0, "gpus": 0}


def test_layout_vars_are_the_defaults_keys():
    assert set(LAYOUT_VARS) == set(DEFAULTS)


@pytest.mark.parametrize("slurm, error, message", [
    (_slurm(["gpu01"], partitions=[{"name": "gpu", "nodes": "gpu[01-09]"}]), SlurmConfError,
     r"^partition gpu references node\(s\) gpu\[02-09\] that have no NodeName line"),
    (_slurm(["gpu01"], release=23.11), ClusterDescriptionError, r"^slurm release must be the Slurm version"),
    (_slurm(["gpu01"], defaults=[]), ClusterDescriptionError, r"^slurm defaults must be a mapping"),
    (_slurm(["gpu01"], partitions={}), ClusterDescriptionError, r"^slurm partitions must be a list"),
    (_slurm(["gpu01"], extra=1), ClusterDescriptionError, r"^slurm has unknown key\(s\) 'extra'"),
    (_slurm(["gpu01"], defaults=dict(DEFAULTS, slurm_node_cpus=5)), SlurmConfError, r"^node gpu01: cpus=5"),
])
def test_refusals(slurm, error, message):
    with pytest.raises(error, match=message):
        slurm_part({"head": {}, "gpu01": {}}, slurm)
