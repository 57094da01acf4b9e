# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The slurm_topology_conf filter: topology.conf lines for a tree or block fabric, errors under the filter's
name, switch and node names a line cannot hold (issue 13), the property that lines parse back, wrong types."""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError
from hypothesis import event, given, settings, strategies as st

from ansible_collections.gpufleet.cluster.plugins.filter import slurm_topology_conf as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.slurm_topology_conf import slurm_topology_conf
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.topology import parse_topology_conf
from filter_docs import assert_documented
from filter_refusals import refused
from slurm_lines import FABRIC, NAME, SLURM_NAME, clean, hosts, slurm_name
from wrong_types import assert_only_refusals

FAST = settings(max_examples=200, deadline=None)


def test_registered_and_documented():
    assert_documented(plugin, "slurm_topology_conf")


def test_topology_result():
    fabric = {"kind": "tree",
              "leaves": [{"name": "leaf1", "nodes": "compute[01-04]"}, {"name": "leaf2", "nodes": "compute[05-08]"}],
              "spines": [{"name": "spine1", "leaves": ["leaf1", "leaf2"]}]}
    assert slurm_topology_conf(fabric, "22.05.8", ["compute[01-08]"]) == [
        "SwitchName=leaf1 Nodes=compute[01-04]", "SwitchName=leaf2 Nodes=compute[05-08]", "SwitchName=spine1 "
                                                                                          "Switches=leaf[1-2]"]


@pytest.mark.parametrize("call, message", [
    (lambda: slurm_topology_conf([]), r"^gpufleet\.cluster\.slurm_topology_conf: input must be a fabric mapping"),
    (lambda: slurm_topology_conf({"kind": "block", "blocks": [{"name": "b", "nodes": "n1"}]}, "22.05.8"),
     r"^gpufleet\.cluster\.slurm_topology_conf: topology/block needs Slurm >= 23.11; Slurm 22.05"),
    (lambda: slurm_topology_conf({"leaves": [{"name": "l", "nodes": "n1"}]}, "22.05", "n1"), r"nodes must be a list of "
                                                                                             r"host names"),
    (lambda: slurm_topology_conf({"leaves": [{"name": "l", "nodes": "n1"}]}, 22), r"version must be a string"),
])
def test_errors_name_the_filter(call, message):
    with pytest.raises(AnsibleFilterError, match=message):
        call()


# ------------------------------------------------------------------ issue 13: switch and node names
@pytest.mark.parametrize("nodes", [["n1 NodeAddr=10.0.0.9"], "n1#x", "n[1-2],n=3", ["gpu01\n"]])
def test_topology_without_nodes_refuses_such_names(nodes):
    fabric = {"kind": "tree", "leaves": [{"name": "leaf1", "nodes": nodes}]}
    refused(r"^gpufleet\.cluster\.slurm_topology_conf: switch leaf1 nodes: hostlist .* is not allowed",
            slurm_topology_conf, fabric)
    refused(r"slurm_topology_conf: nodes: hostlist .* is not allowed", slurm_topology_conf, FABRIC, "22.05",
            nodes if isinstance(nodes, list) else [nodes])


@pytest.mark.parametrize("name, shown", [("leaf 1", r"'leaf 1'"), ("leaf1\n", r"'leaf1\\n'"), ("leaf#1", r"'leaf#1'")])
def test_topology_switch_names(name, shown):
    fabric = {"kind": "tree", "leaves": [{"name": name, "nodes": "n1"}]}
    refused(r"SwitchName name: %s is not allowed; %s" % (shown, SLURM_NAME), slurm_topology_conf, fabric)


def test_topology_block_names():
    fabric = {"kind": "block", "blocks": [{"name": "b1\n", "nodes": "n[1-2]"}]}
    refused(r"BlockName name: 'b1\\n' is not allowed", slurm_topology_conf, fabric, "24.11.5")


# ------------------------------------------------------------------ property: refused, or lines that parse back
@FAST
@given(leaves=st.lists(st.tuples(NAME, st.lists(NAME, min_size=1, max_size=3)), min_size=1, max_size=3), spine=NAME)
def test_topology_is_refused_or_parses_back(leaves, spine):
    fabric = {"kind": "tree", "leaves": [{"name": name, "nodes": nodes} for name, nodes in leaves],
              "spines": [{"name": spine, "leaves": [name for name, _nodes in leaves]}]}
    switch_names = [name for name, _nodes in leaves] + [spine]
    all_nodes = [node for _name, nodes in leaves for node in nodes]
    valid = (all(slurm_name(n) and len(n) < 64 for n in switch_names) and len(set(switch_names)) == len(switch_names)
             and all(slurm_name(n) for n in all_nodes) and len(set(all_nodes)) == len(all_nodes))
    try:
        lines = slurm_topology_conf(fabric, "22.05.8")
    except AnsibleFilterError as error:
        event("refused")
        # a valid-looking switch name may still be refused when it does not survive hostlist compression
        assert not valid or "does not survive hostlist compression" in str(error), error
        return
    assert valid and len(lines) == len(leaves) + 1 and all(clean(line) for line in lines)
    back = parse_topology_conf("\n".join(lines) + "\n")
    assert back == {"kind": "tree", "switches": [
        {"name": name, "nodes": hosts(nodes)} for name, nodes in leaves] + [
        {"name": spine, "switches": hosts(name for name, _nodes in leaves)}]}


# ------------------------------------------------------------------ wrong types: refused by a check, nothing else
VALID = {
    "tree": [FABRIC, "22.05.8", ["gpu01", "gpu02", "gpu03", "gpu04"]],
    "block": [{"kind": "block", "blocks": [{"name": "b1", "nodes": "gpu[01-02]"}], "block_sizes": [2, 4]}, "24.11.5",
              ["gpu01", "gpu02"]],
}


@pytest.mark.parametrize("kind", sorted(VALID))
def test_valid_call_works(kind):
    assert slurm_topology_conf(*VALID[kind]) is not None


@pytest.mark.parametrize("kind", sorted(VALID))
def test_wrong_types_and_missing_keys_are_refused(kind):
    assert_only_refusals("slurm_topology_conf", slurm_topology_conf, VALID[kind])
