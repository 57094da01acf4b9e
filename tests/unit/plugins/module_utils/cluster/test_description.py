# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""cluster/description.py: the parts asked for, each host's variables read once, the input's refusals."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.cluster.description import VERSION, describe
from ansible_collections.gpufleet.cluster.plugins.module_utils.cluster.inputs import ClusterDescriptionError

DEFAULTS = {"slurm_gpu_count": 8, "slurm_node_cpus": 4, "slurm_node_sockets": 1, "slurm_node_cores_per_socket": 4,
            "slurm_node_threads_per_core": 1, "slurm_node_real_memory_mib": 2048, "slurm_node_features": [],
            "slurm_gpu_type": "h100", "slurm_gpu_numa": {}, "slurm_gres_autodetect": "", "slurm_numa_cores": {}}


class CountingHost(dict):
    """A host's variables that count how often the description reads one."""

    reads = 0

    def __getitem__(self, key):
        CountingHost.reads += 1
        return dict.__getitem__(self, key)


def inventory(count):
    names = ["gpu%04d" % n for n in range(1, count + 1)]
    hosts = {name: CountingHost(gpufleet_ip="10.%d.%d.%d" % (n // 65536, n // 256 % 256, n % 256))
             for n, name in enumerate(names, 1)}
    hosts["head"] = CountingHost(gpufleet_ip="10.255.0.1")
    return {"hosts": hosts, "hosts_group": ["head"] + names, "domain": "",
            "slurm": {"controllers": ["head"], "computes": names, "defaults": DEFAULTS,
                      "partitions": [{"name": "gpu", "nodes": "ALL"}], "release": "23.11", "topology": None},
            "roce": {"hosts": names, "vars": {"priority": "roce_host_priority", "dscp": "roce_host_dscp"}}}


@settings(max_examples=8)
@given(st.integers(1, 64))
def test_each_host_is_read_a_bounded_number_of_times(count):
    # Linear: the reads per host do not grow with the cluster (the per-host templates read every host per host).
    CountingHost.reads = 0
    out = describe(inventory(count))
    assert CountingHost.reads <= 12 * (count + 1)
    assert out["slurm"]["node_conf"]["node_lines"][0].startswith(
        "NodeName=gpu[0001-%04d] CPUs=4" % count if count > 1 else "NodeName=gpu0001 CPUs=4")
    assert len(out["addresses"]) == count + 1 and len(out["roce"]["sides"]) == count
    assert len(out["hosts"]["block"].splitlines()) == count + 1


def test_parts():
    out = describe(inventory(2))
    assert set(out) == {"version", "addresses", "hosts", "slurm", "roce"} and out["version"] == VERSION
    small = describe({"hosts": {"a": {}}, "slurm": None, "roce": None})
    assert small == {"version": VERSION, "addresses": {}}


@pytest.mark.parametrize("value, message", [
    ([], r"^input must be a mapping with hosts and the parts to describe"),
    ({"hosts": {}, "extra": 1}, r"^input has unknown key\(s\) 'extra'"),
    ({"hosts": {}, "slurm": "yes"}, r"^slurm must be a mapping"),
    ({"hosts": {}, "hosts_group": ["a"]}, r"^hosts_group names 'a', which hosts does not hold"),
])
def test_refusals(value, message):
    with pytest.raises(ClusterDescriptionError, match=message):
        describe(value)
