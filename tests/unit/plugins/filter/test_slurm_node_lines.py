# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The slurm_node_lines filter: NodeName and PartitionName lines, errors under the filter's name, names and
values a line cannot hold (issue 13), the property that lines parse back, wrong types."""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError
from hypothesis import event, given, settings, strategies as st

from ansible_collections.gpufleet.cluster.plugins.filter import slurm_node_lines as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.slurm_node_lines import slurm_node_lines
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist import expand_hostlist
from filter_docs import assert_documented
from filter_refusals import refused
from slurm_lines import NAME, NO_CONTROL, NODE, NODES, SLURM_NAME, clean, hosts, key_values, slurm_name
from wrong_types import assert_only_refusals

FAST = settings(max_examples=200, deadline=None)


def test_registered_and_documented():
    assert_documented(plugin, "slurm_node_lines")


def test_node_lines_result():
    result = slurm_node_lines(NODES, [{"name": "gpu", "nodes": "ALL", "default": True}], "22.05.8")
    assert result["node_lines"] == ["NodeName=compute[01-08] CPUs=104 Sockets=2 CoresPerSocket=52 ThreadsPerCore=1 "
                                    "RealMemory=2063937 Gres=gpu:h100:8"]
    assert result["partition_lines"] == ["PartitionName=gpu Nodes=compute[01-08] Default=YES"]
    assert result["lines"] == result["node_lines"] + result["partition_lines"]
    assert slurm_node_lines(NODES)["partition_lines"] == []


@pytest.mark.parametrize("call, message", [
    (lambda: slurm_node_lines("compute01"), r"^gpufleet\.cluster\.slurm_node_lines: input must be a list"),
    (lambda: slurm_node_lines(NODES, {"name": "p"}),
     r"^gpufleet\.cluster\.slurm_node_lines: partitions must be a list"),
    (lambda: slurm_node_lines([dict(NODES[0], cpus=208)]), r"^gpufleet\.cluster\.slurm_node_lines: node compute01: "
                                                           r"cpus=208"),
    (lambda: slurm_node_lines(NODES, [{"name": "p", "nodes": "compute[01-07]"}]),
     r"^gpufleet\.cluster\.slurm_node_lines: node\(s\) compute08 are in no partition"),
    (lambda: slurm_node_lines(NODES, None, 2205), r"^gpufleet\.cluster\.slurm_node_lines: version must be a string"),
])
def test_errors_name_the_filter(call, message):
    with pytest.raises(AnsibleFilterError, match=message):
        call()


# ------------------------------------------------------------------ issue 13: names and values a line cannot hold
def test_partition_name_with_a_trailing_newline():
    refused(r"^gpufleet\.cluster\.slurm_node_lines: partition 0 name: 'batch\\n' is not allowed; %s %s"
            % (SLURM_NAME, NO_CONTROL),
            slurm_node_lines, [NODE], [{"name": "batch\n", "nodes": "ALL"}])


def test_a_node_given_twice_once_with_a_trailing_newline():
    # before: two NodeName=gpu01 lines with different CPUs
    refused(r"^gpufleet\.cluster\.slurm_node_lines: node 1 name: 'gpu01\\n' is not allowed; %s" % SLURM_NAME,
            slurm_node_lines, [NODE, dict(NODE, name="gpu01\n", sockets=1)])


@pytest.mark.parametrize("gres, field", [
    ({"type": "gpu", "model": "h100\n", "count": 8}, r"gres\[0\] model \(e\.g\. h100\): 'h100\\n'"),
    ({"type": "gpu\n", "model": "h100", "count": 8}, r"gres\[0\] type: 'gpu\\n'"),
    ({"type": "gpu", "model": "h100:8", "count": 8}, r"gres\[0\] model \(e\.g\. h100\): 'h100:8'"),
])
def test_gres_type_and_model_with_a_newline(gres, field):
    # before: Gres=gpu:h100\n:8
    refused(r"node gpu01 %s is not allowed; expected" % field, slurm_node_lines, [dict(NODE, gres=[gres])])


@pytest.mark.parametrize("feature", ["h100\n", "a b", "ib#x", "a=b", "a,b"])
def test_features_are_slurm_names(feature):
    refused(r"node gpu01 features\[1\]: %r is not allowed; %s" % (feature, SLURM_NAME) if "\n" not in feature
            else r"features\[1\]: 'h100\\n' is not allowed",
            slurm_node_lines, [dict(NODE, features=["h100", feature])])


@pytest.mark.parametrize("port, message", [
    (0, r"NodeName Port: 0 is not allowed; expected a port 1-65535"),
    ("6818\n", r"NodeName Port: '6818\\n' is not allowed"),
    ("[17001-17004", r"NodeName Port: '\[17001-17004' is not allowed"),
])
def test_node_port_is_a_port(port, message):
    refused(message, slurm_node_lines, [dict(NODE, extra={"Port": port})])


def test_node_port_ranges_as_slurm_takes_them():
    lines = slurm_node_lines([dict(NODE, extra={"Port": "[17001-17004]"})])["node_lines"]
    assert lines[0].endswith(" Port=[17001-17004]")


def test_partition_extra_that_is_no_mapping():
    refused(r"partition batch extra must be a mapping of Slurm options \(Key: value\), got \['MaxNodes'\] of type list",
            slurm_node_lines, [NODE], [{"name": "batch", "nodes": "ALL", "extra": ["MaxNodes"]}])


def test_names_with_underscores_are_slurm_names():
    # slurm_name, not hostname: an inventory name such as gpu_01 stays usable
    out = slurm_node_lines([dict(NODE, name="gpu_01")], [{"name": "gpu_batch", "nodes": "ALL"}])
    assert out["lines"][1] == "PartitionName=gpu_batch Nodes=gpu_01"


# ------------------------------------------------------------------ property: refused, or lines that parse back
@FAST
@given(names=st.lists(NAME, min_size=1, max_size=3), partition=NAME, model=NAME, feature=NAME,
       sockets=st.integers(1, 4), cores=st.integers(1, 64), threads=st.integers(1, 2),
       memory=st.integers(1, 2 ** 40), count=st.integers(1, 16))
def test_node_lines_are_refused_or_parse_back(names, partition, model, feature, sockets, cores, threads, memory, count):
    nodes = [{"name": name, "sockets": sockets, "cores_per_socket": cores, "threads_per_core": threads,
              "real_memory": memory, "gres": [{"type": "gpu", "model": model, "count": count}],
              "features": [feature]} for name in names]
    valid = (all(slurm_name(n) for n in names) and len(set(names)) == len(names) and slurm_name(partition)
             and partition.upper() != "DEFAULT" and slurm_name(model) and slurm_name(feature))
    try:
        out = slurm_node_lines(nodes, [{"name": partition, "nodes": names}], "22.05.8")
    except AnsibleFilterError as error:
        event("refused")
        assert not valid, error
        assert str(error).startswith("gpufleet.cluster.slurm_node_lines: ")
        return
    assert valid
    assert out["lines"] == out["node_lines"] + out["partition_lines"]
    assert len(out["node_lines"]) == 1 and len(out["partition_lines"]) == 1
    assert all(clean(line) for line in out["lines"])
    node = key_values(out["node_lines"][0])
    assert expand_hostlist(node["NodeName"]) == hosts(names)
    assert node == {"NodeName": node["NodeName"], "CPUs": str(sockets * cores * threads), "Sockets": str(sockets),
                    "CoresPerSocket": str(cores), "ThreadsPerCore": str(threads), "RealMemory": str(memory),
                    "Gres": "gpu:%s:%d" % (model, count), "Feature": feature}
    part = key_values(out["partition_lines"][0])
    assert part["PartitionName"] == partition and expand_hostlist(part["Nodes"]) == hosts(names)


# ------------------------------------------------------------------ wrong types: refused by a check, nothing else
VALID = [[dict(NODE, weight=1, extra={"Port": 6818})],
         [{"name": "batch", "nodes": "gpu01", "default": True, "max_time": "1-00:00:00", "state": "UP",
           "extra": {"MaxNodes": 2}}],
         "22.05.8"]


def test_valid_call_works():
    assert slurm_node_lines(*VALID) is not None


def test_wrong_types_and_missing_keys_are_refused():
    assert_only_refusals('slurm_node_lines', slurm_node_lines, VALID)
