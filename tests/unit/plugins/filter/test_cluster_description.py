# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The cluster_description filter: registered and documented, the description of a small cluster, errors under the
filter's name, wrong types refused by a check."""
from __future__ import annotations

import pytest

from ansible_collections.gpufleet.cluster.plugins.filter import cluster_description as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.cluster_description import cluster_description
from filter_docs import assert_documented
from filter_refusals import refused
from wrong_types import assert_only_refusals

DEFAULTS = {"slurm_gpu_count": 8, "slurm_node_cpus": 4, "slurm_node_sockets": 1, "slurm_node_cores_per_socket": 4,
            "slurm_node_threads_per_core": 1, "slurm_node_real_memory_mib": 2048, "slurm_node_features": [],
            "slurm_gpu_type": "h100", "slurm_gpu_numa": {}, "slurm_gres_autodetect": "", "slurm_numa_cores": {}}
INPUT = {
    "hosts": {"head": {"gpufleet_ip": "10.0.0.1"}, "gpu01": {"gpufleet_ip": "10.0.0.11"},
              "gpu02": {"ansible_host": "10.0.0.12", "roce_host_priority": 4}},
    "hosts_group": ["head", "gpu01", "gpu02"], "domain": "",
    "slurm": {"controllers": ["head"], "computes": ["gpu01", "gpu02"], "defaults": DEFAULTS,
              "partitions": [{"name": "gpu", "nodes": "ALL", "default": True}], "release": "23.11", "topology": None},
    "roce": {"hosts": ["gpu01", "gpu02"], "vars": {"priority": "roce_host_priority", "dscp": "roce_host_dscp"}},
}


def test_registered_and_documented():
    assert_documented(plugin, "cluster_description")


def test_description_of_a_small_cluster():
    out = cluster_description(INPUT)
    assert out["version"] == 1
    assert out["addresses"] == {"head": "10.0.0.1", "gpu01": "10.0.0.11", "gpu02": "10.0.0.12"}
    assert out["hosts"]["block"] == "10.0.0.11       gpu01\n10.0.0.12       gpu02\n10.0.0.1        head\n"
    assert out["hosts"]["missing"] == out["hosts"]["bad_addresses"] == out["hosts"]["bad_names"] == []
    assert out["slurm"]["node_conf"]["lines"] == [
        "NodeName=gpu[01-02] CPUs=4 Sockets=1 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=2048 Gres=gpu:h100:8",
        "PartitionName=gpu Nodes=gpu[01-02] Default=YES"]
    assert out["slurm"]["gres_lines"] == ["NodeName=gpu[01-02] Name=gpu Type=h100 File=/dev/nvidia[0-7]"]
    assert [kind["sources"] for kind in out["roce"]["distinct"]] == [["gpu01"], ["gpu02"]]


def test_parts_only_when_asked():
    out = cluster_description({"hosts": {"a": {"ansible_host": "10.0.0.1"}}})
    assert out == {"version": 1, "addresses": {"a": "10.0.0.1"}}
    assert cluster_description({"hosts": {}, "hosts_group": None})["hosts"]["group"] is None


@pytest.mark.parametrize("value, message", [
    ("hosts", r"^gpufleet\.cluster\.cluster_description: input must be a mapping with hosts and the parts"),
    ({"hosts": {}, "nodes": []}, r"^gpufleet\.cluster\.cluster_description: input has unknown key\(s\) 'nodes'"),
    (dict(INPUT, hosts_group=["head", "gpu09"]),
     r"^gpufleet\.cluster\.cluster_description: hosts_group names 'gpu09', which hosts does not hold"),
    (dict(INPUT, slurm=dict(INPUT["slurm"], partitions=[{"name": "gpu", "nodes": "gpu[01-03]"}])),
     r"^gpufleet\.cluster\.cluster_description: partition gpu references node\(s\) gpu03 that have no NodeName"),
])
def test_refusals_name_the_filter(value, message):
    refused(message, cluster_description, value)


def test_wrong_types_are_refused_by_a_check():
    assert_only_refusals("cluster_description", cluster_description, [INPUT])
