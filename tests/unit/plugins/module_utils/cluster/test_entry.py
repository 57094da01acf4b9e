# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""cluster/entry.py: a node's own entry in a rendered description, checked against its own variables only."""
from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings, strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.cluster.description import describe
from ansible_collections.gpufleet.cluster.plugins.module_utils.cluster.entry import REMEDY, entry_problems
from ansible_collections.gpufleet.cluster.plugins.module_utils.cluster.inputs import ClusterDescriptionError

DEFAULTS = {"slurm_gpu_count": 8, "slurm_node_cpus": 4, "slurm_node_sockets": 1, "slurm_node_cores_per_socket": 4,
            "slurm_node_threads_per_core": 1, "slurm_node_real_memory_mib": 2048, "slurm_node_features": [],
            "slurm_gpu_type": "h100", "slurm_gpu_numa": {}, "slurm_gres_autodetect": "", "slurm_numa_cores": {}}
HOSTS = {"head": {"gpufleet_ip": "10.0.0.1"},
         "gpu01": {"gpufleet_ip": "10.0.0.11", "roce_host_priority": 3},
         "gpu02": {"ansible_host": "10.0.0.12", "slurm_gpu_count": 4, "roce_host_priority": 4},
         "login01": {"gpufleet_ip": "10.0.0.21"}}
INPUT = {"hosts": HOSTS, "hosts_group": ["head", "login01", "gpu01", "gpu02"], "domain": "",
         "slurm": {"controllers": ["head"], "computes": ["gpu01", "gpu02"], "defaults": DEFAULTS,
                   "partitions": [{"name": "gpu", "nodes": "ALL", "default": True}], "release": "23.11",
                   "topology": None},
         "roce": {"hosts": ["gpu01", "gpu02"], "vars": {"priority": "roce_host_priority", "dscp": "roce_host_dscp"}}}
DESCRIPTION = describe(INPUT)
GPU = {"hosts": True, "compute": True, "roce": True}
LOGIN = {"hosts": True, "compute": False, "roce": False}


def own(host, member, **changed):
    return {"variables": dict(HOSTS[host], **changed), "defaults": DEFAULTS, "member": member}


@pytest.mark.parametrize("host, member", [("gpu01", GPU), ("gpu02", GPU), ("login01", LOGIN), ("head", {})])
def test_a_fresh_entry_agrees(host, member):
    assert entry_problems(DESCRIPTION, host, own(host, member)) == []


@pytest.mark.parametrize("host, member, changed, words", [
    ("gpu01", GPU, {"gpufleet_ip": "10.0.0.99"}, "its address is '10.0.0.11' in the description, '10.0.0.99'"),
    ("gpu02", GPU, {"slurm_gpu_count": 8}, "its Slurm node layout is"),
    ("gpu02", GPU, {"slurm_gpu_count": 8}, "its gres.conf entry is"),
    ("gpu01", GPU, {"slurm_node_cpus": 8}, "'cpus': 4"),
    ("gpu01", GPU, {"roce_host_priority": 5}, "its RoCE side is"),
    ("login01", dict(LOGIN, compute=True), {}, "the inventory says login01 is a Slurm compute node (slurm_compute_group), "
                                               "the description says it is not"),
    ("gpu01", dict(GPU, hosts=False), {}, "the inventory says gpu01 is not in the /etc/hosts group"),
    ("gpu01", dict(GPU, roce=False), {}, "gpu01 is not a RoCE host (roce_switch_host_group), the description says it is"),
])
def test_a_stale_entry_is_named(host, member, changed, words):
    problems = entry_problems(DESCRIPTION, host, own(host, member, **changed))
    assert len(problems) == 1
    assert problems[0].startswith("%s: the cluster description (gpufleet_cluster_description) is stale" % host)
    assert words in problems[0]
    assert problems[0].endswith(REMEDY)


def test_a_new_node_the_description_lacks():
    problems = entry_problems(DESCRIPTION, "gpu03", {"variables": {"gpufleet_ip": "10.0.0.13"}, "defaults": DEFAULTS,
                                                     "member": GPU})
    assert len(problems) == 1
    for words in ("the inventory says gpu03 is in the /etc/hosts group", "is a Slurm compute node",
                  "its address is None in the description, '10.0.0.13'", "its Slurm node layout is None"):
        assert words in problems[0]


def test_no_description_or_another_format():
    assert entry_problems(None, "gpu01", own("gpu01", GPU)) == [
        "gpu01: gpufleet_cluster_description is not defined, not a cluster description. " + REMEDY]
    assert "is str, not a cluster" in entry_problems("x", "gpu01", own("gpu01", GPU))[0]
    other = dict(DESCRIPTION, version=2)
    assert entry_problems(other, "gpu01", own("gpu01", GPU)) == [
        "gpu01: the cluster description's format is 2, this collection reads 1. " + REMEDY]


def test_a_missing_part_is_named():
    partial = {key: value for key, value in DESCRIPTION.items() if key != "roce"}
    assert "the description has no roce part" in entry_problems(partial, "gpu01", own("gpu01", GPU))[0]


@pytest.mark.parametrize("host, value, message", [
    ("", {}, "the host must be the node's inventory name, got ''"),
    ("gpu01", [], "own must be a mapping"),
    ("gpu01", {"variables": {}, "extra": 1}, "own has unknown key"),
    ("gpu01", {"member": {"login": True}}, "own member has unknown key"),
    ("gpu01", {"variables": []}, "own variables must be a mapping"),
])
def test_refusals(host, value, message):
    with pytest.raises(ClusterDescriptionError, match="^" + message):
        entry_problems(DESCRIPTION, host, value)


@pytest.mark.parametrize("damage, message", [
    ({"addresses": ["10.0.0.1"]}, r"gpufleet_cluster_description\.addresses must be a mapping host: address"),
    ({"hosts": "x"}, r"gpufleet_cluster_description\.hosts must be a mapping"),
    ({"slurm": dict(DESCRIPTION["slurm"], computes="gpu01")}, r"gpufleet_cluster_description\.slurm\.computes must be a list"),
    ({"slurm": dict(DESCRIPTION["slurm"], nodes=[1])}, r"gpufleet_cluster_description\.slurm\.nodes\[0\] must be a mapping"),
    ({"slurm": dict(DESCRIPTION["slurm"], gres=[{"nodes": 3}])},
     r"gpufleet_cluster_description\.slurm\.gres\[0\]\.nodes must be a list"),
    ({"roce": dict(DESCRIPTION["roce"], group=[1])}, r"gpufleet_cluster_description\.roce\.group\[0\] must be a host name"),
    ({"roce": dict(DESCRIPTION["roce"], vars=[])}, r"gpufleet_cluster_description\.roce\.vars must be a mapping"),
])
def test_a_damaged_description_is_refused(damage, message):
    with pytest.raises(ClusterDescriptionError, match="^" + message):
        entry_problems(dict(DESCRIPTION, **damage), "gpu01", own("gpu01", GPU))


@settings(max_examples=25)
@given(st.sampled_from(["gpu01", "gpu02"]), st.integers(min_value=0, max_value=16), st.integers(min_value=1, max_value=256))
def test_only_a_change_of_its_own_is_a_problem(host, gpus, cpus):
    # Whatever the node's layout, the description made from it agrees; it disagrees exactly when the layout differs.
    hosts = copy.deepcopy(HOSTS)
    hosts[host].update(slurm_gpu_count=gpus, slurm_node_cpus=cpus, slurm_node_cores_per_socket=cpus)
    fresh = describe(dict(INPUT, hosts=hosts))
    mine = {"variables": hosts[host], "defaults": DEFAULTS, "member": GPU}
    assert entry_problems(fresh, host, mine) == []
    assert (entry_problems(DESCRIPTION, host, mine) == []) == (
        fresh["slurm"]["nodes"] == DESCRIPTION["slurm"]["nodes"] and fresh["slurm"]["gres"] == DESCRIPTION["slurm"]["gres"])
