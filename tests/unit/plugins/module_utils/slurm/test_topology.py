# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""slurm_topology: tree/block topology.conf rendering, validation and parsing of real files."""
from __future__ import annotations

import glob
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist import expand_hostlist
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.conf.settings import SlurmConfError
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.topology import (
    parse_topology_conf,
    topology_conf_lines,
    topology_plugin,
    with_topology_plugin,
)
from reference import outputs

_SLURM = outputs("slurm")


def _reference_files():
    files = sorted(glob.glob(os.path.join(_SLURM, "topology.conf.*.conf")))
    assert len(files) == 2  # tree-3level and linkspeed (README: doc/html/topology.shtml examples)
    return files


def _semantic(description):
    """Switch name -> (node set, child switch set, link speed): what Slurm builds from the file."""
    return {sw["name"]: (frozenset(sw.get("nodes", ())), frozenset(sw.get("switches", ())), sw.get("link_speed"))
            for sw in description["switches"]}


def test_every_reference_file_parses_and_round_trips():
    for path in _reference_files():
        with open(path) as handle:
            parsed = parse_topology_conf(handle.read())
        lines = topology_conf_lines(parsed, "22.05.8")
        again = parse_topology_conf("\n".join(lines))
        assert _semantic(again) == _semantic(parsed), path


def test_tree_3level_reference_exact():
    with open(_reference_files()[1]) as handle:
        parsed = parse_topology_conf(handle.read())
    # s0..s3 hold tux0-7 two by two, s4 = s[0-1], s5 = s[2-3], s6 = s[4-5]
    assert topology_conf_lines(parsed, "23.11") == [
        "SwitchName=s0 Nodes=tux[0-1]", "SwitchName=s1 Nodes=tux[2-3]", "SwitchName=s2 Nodes=tux[4-5]",
        "SwitchName=s3 Nodes=tux[6-7]", "SwitchName=s4 Switches=s[0-1]", "SwitchName=s5 Switches=s[2-3]",
        "SwitchName=s6 Switches=s[4-5]"]


def test_linkspeed_reference_values():
    with open(_reference_files()[0]) as handle:
        parsed = parse_topology_conf(handle.read())
    speeds = {sw["name"]: sw["link_speed"] for sw in parsed["switches"]}
    assert speeds == {"s0": 900, "s1": 900, "s2": 900, "s3": 1800, "s4": 1800, "s5": 1800, "s6": 1800, "s7": 1800}
    assert parsed["switches"][3]["nodes"] == ["tux12", "tux13", "tux14", "tux15"]
    assert topology_conf_lines(parsed, "22.05", nodes=["tux[0-15]"])[3] == "SwitchName=s3 Nodes=tux[12-15] LinkSpeed=1800"


def test_reference_design_leaves_and_spines():
    fabric = {"kind": "tree",
              "leaves": [{"name": "leaf1", "nodes": "compute[01-04]", "link_speed": 400},
                         {"name": "leaf2", "nodes": ["compute05", "compute06", "compute07", "compute08"]}],
              "spines": [{"name": "spine1", "leaves": ["leaf1", "leaf2"]}, {"name": "spine2", "leaves": "leaf[1-2]"}]}
    assert topology_conf_lines(fabric, "22.05.8", nodes=["compute[01-08]"]) == [
        "SwitchName=leaf1 Nodes=compute[01-04] LinkSpeed=400", "SwitchName=leaf2 Nodes=compute[05-08]",
        "SwitchName=spine1 Switches=leaf[1-2]", "SwitchName=spine2 Switches=leaf[1-2]"]


@pytest.mark.parametrize("fabric, message", [
    ({"leaves": [{"name": "l1", "nodes": "n[1-2]"}, {"name": "l2", "nodes": "n[2-3]"}]}, r"node n2 is in leaf switches l1 and l2"),
    ({"leaves": [{"name": "l1", "nodes": "n1"}, {"name": "l2", "nodes": "n2"}], "spines": [{"name": "s", "leaves": ["l1"]}]},
     r"leaf switch\(es\) l2 have no parent"),
    ({"leaves": [{"name": "l1", "nodes": "n1"}], "spines": [{"name": "s", "leaves": ["l9"]}]}, r"child switch l9, which is not defined"),
    ({"switches": [{"name": "a", "switches": ["b"]}, {"name": "b", "switches": ["a"]}]}, r"cycle a -> b -> a"),
    ({"switches": [{"name": "a", "switches": ["a"]}]}, r"lists itself"),
    ({"switches": [{"name": "a", "nodes": "n1"}, {"name": "a", "nodes": "n2"}]}, r"SwitchName a is defined twice"),
    ({"switches": [{"name": "a", "nodes": "n1", "switches": ["b"]}]}, r"has both child switches and nodes"),
    ({"switches": [{"name": "a"}]}, r"has neither child switches nor nodes"),
    ({"switches": [{"name": "leaf[1-2]", "nodes": "n1"}]}, r"SwitchName name: 'leaf\[1-2\]' is not allowed; expected a letter or digit"),
    ({"switches": [{"name": "a", "nodes": "n1", "link_speed": 0}]},
     r"switch a link_speed must be a whole number 1\.\.4294967295 \(Slurm only compares these numbers with each "
     r"other\), got 0 of type int$"),
    ({"switches": [{"name": "a", "nodes": "n[1-3"}]}, r"switch a nodes: hostlist 'n\[1-3'"),
    ({"switches": [], "leaves": []}, r"either switches or leaves/spines"),
    ({"kind": "ring", "switches": []}, r"kind 'ring' is not tree or block"),
])
def test_tree_refusals(fabric, message):
    with pytest.raises(SlurmConfError, match=message):
        topology_conf_lines(fabric, "22.05")


LEAF = {"name": "l1", "nodes": "n1"}


@pytest.mark.parametrize("fabric, message", [
    ({"switches": "s1"}, "tree fabric switches must be a non-empty list, got 's1' of type str"),
    ({"switches": []}, "tree fabric switches must not be empty"),
    ({"switches": ["s1"]},
     "tree fabric switches[0] must be a mapping {name, nodes or switches, link_speed?}, got 's1' of type str"),
    ({"spines": []}, "tree fabric needs leaves: [{name, nodes}] (or switches: [...])"),
    ({"leaves": "l1"}, "tree fabric leaves must be a list of {name, nodes}, got 'l1' of type str"),
    ({"leaves": []}, "tree fabric leaves must not be empty"),
    ({"leaves": [LEAF], "spines": "s1"}, "tree fabric spines must be a list of {name, leaves}, got 's1' of type str"),
    ({"leaves": [dict(LEAF, switches=["x"])]},
     "tree fabric leaves[0] must be a mapping {name, nodes, link_speed?}, got {'name': 'l1', 'nodes': 'n1', "
     "'switches': ['x']} of type dict"),
    ({"leaves": [LEAF], "spines": [{"name": "s1", "leaves": ["l1"], "nodes": "n2"}]},
     "tree fabric spines[0] must be a mapping {name, leaves, link_speed?} without nodes, got {'name': 's1', "
     "'leaves': ['l1'], 'nodes': 'n2'} of type dict"),
    ({"switches": [{"name": "a", "nodes": "n1", "speed": 1}]},
     "switch 'a' has unknown key(s) 'speed'; allowed: link_speed, name, nodes, switches"),
    ({"switches": [{"name": "a", "nodes": 5}]},
     "switch a nodes must be a hostlist string or a non-empty list of names, got 5 of type int"),
    ({"switches": [{"name": "a", "nodes": []}]},
     "switch a nodes must be a hostlist string or a non-empty list of names, got [] of type list"),
    ({"kind": "tree", "leaves": [LEAF], "colour": "red"},
     "tree fabric has unknown key(s) 'colour'; allowed: kind, leaves, spines, switches"),
    ({"kind": "block"}, "block fabric needs blocks: [{name, nodes}]"),
    ({"kind": "block", "blocks": "b1"}, "block fabric blocks must be a list of {name, nodes}, got 'b1' of type str"),
    ({"kind": "block", "blocks": []}, "block fabric blocks must not be empty"),
    ({"kind": "block", "blocks": [LEAF], "block_sizes": 4},
     "block_sizes must be a list of node counts, got 4 of type int"),
    ({"kind": "block", "blocks": ["b1"]}, "block 0 must be a mapping {name, nodes}, got 'b1' of type str"),
    ({"kind": "block", "blocks": [dict(LEAF, size=1)]}, "block 0 has unknown key(s) 'size'; allowed: name, nodes"),
    ({"kind": "block", "blocks": [LEAF], "levels": [1]},
     "block fabric has unknown key(s) 'levels'; allowed: block_sizes, blocks, kind"),
    ("tree", "fabric must be a mapping with kind: tree or kind: block, got 'tree' of type str"),
])
def test_wrong_shapes_are_refused_in_full(fabric, message):
    with pytest.raises(SlurmConfError) as error:
        topology_conf_lines(fabric, "24.11")
    assert str(error.value) == message


def test_wrong_shapes_of_the_node_list_and_the_text_are_refused_in_full():
    with pytest.raises(SlurmConfError) as error:
        topology_conf_lines({"leaves": [LEAF]}, "24.11", nodes=7)
    assert str(error.value) == "nodes must be a hostlist string or a non-empty list of names, got 7 of type int"
    with pytest.raises(SlurmConfError) as error:
        parse_topology_conf(5)
    assert str(error.value) == "topology.conf text must be a string, got 5 of type int"
    with pytest.raises(SlurmConfError) as error:
        parse_topology_conf("BlockName=b1 Nodes=n1 Size=4")
    assert str(error.value) == ("topology.conf line 1 (a BlockName line) has unknown key(s) 'size'; allowed: "
                                "blockname, nodes")


def test_node_list_cross_check():
    fabric = {"leaves": [{"name": "l1", "nodes": "n[1-4]"}]}
    with pytest.raises(SlurmConfError, match=r"names node\(s\) n4 that are not in the node list"):
        topology_conf_lines(fabric, "22.05", nodes=["n[1-3]"])
    with pytest.raises(SlurmConfError, match=r"node\(s\) n5 are in no leaf switch"):
        topology_conf_lines(fabric, "22.05", nodes=["n[1-5]"])


# ---------------------------------------------------------------- block
NVL = {"kind": "block", "blocks": [{"name": "nvl1", "nodes": "gb[001-018]"}, {"name": "nvl2", "nodes": "gb[019-036]"},
                                   {"name": "nvl3", "nodes": "gb[037-054]"}, {"name": "nvl4", "nodes": "gb[055-072]"}]}


def test_block_lines_24_11():
    # GB200 NVL72 racks: 18 trays per NVLink domain; 36 = 18*2, 72 = 18*4 are power-of-two multiples
    assert topology_conf_lines(dict(NVL, block_sizes=[18, 36, 72]), "24.11.5") == [
        "BlockName=nvl1 Nodes=gb[001-018]", "BlockName=nvl2 Nodes=gb[019-036]", "BlockName=nvl3 Nodes=gb[037-054]",
        "BlockName=nvl4 Nodes=gb[055-072]", "BlockSizes=18,36,72"]


def test_block_on_23_11_without_sizes():
    assert topology_conf_lines(NVL, "23.11.4")[0] == "BlockName=nvl1 Nodes=gb[001-018]"
    with pytest.raises(SlurmConfError, match=r"BlockSizes exists from Slurm 24.05 on; Slurm 23.11 used BlockLevels"):
        topology_conf_lines(dict(NVL, block_sizes=[18, 36]), "23.11")


@pytest.mark.parametrize("fabric, version, message", [
    (NVL, "22.05.8", r"topology/block needs Slurm >= 23.11; Slurm 22.05 has only topology/tree"),
    (dict(NVL, block_sizes=[18, 54]), "24.11", r"54 is not the base size 18 times a power of two .*54/18 = 3.*Use e.g. 18,36,72"),
    (dict(NVL, block_sizes=[18, 45]), "24.11", r"45/18 is not whole"),
    (dict(NVL, block_sizes=[36, 18]), "24.11", r"must increase \(18 after 36\)"),
    (dict(NVL, block_sizes=[0]), "24.11", r"0 is not a positive node count"),
    (dict(NVL, block_sizes=[20]), "24.11", r"nvl1 \(18\), .* fewer nodes than the base block size 20"),
    ({"kind": "block", "blocks": [{"name": "a", "nodes": "n[1-4]"}, {"name": "b", "nodes": "n[1-2]"}]}, "24.11",
     r"node n1 is in blocks a and b"),
    ({"kind": "block", "blocks": [{"name": "a", "nodes": "n[1-4]"}, {"name": "b", "nodes": "n[5-6]"}]}, "24.11",
     r"b \(2\) hold fewer nodes than the base block size 4"),
    ({"kind": "block", "blocks": [{"name": "a", "nodes": "n1"}, {"name": "a", "nodes": "n2"}]}, "24.11", r"BlockName a is defined twice"),
])
def test_block_refusals(fabric, version, message):
    with pytest.raises(SlurmConfError, match=message):
        topology_conf_lines(fabric, version)


def test_block_parse_round_trip():
    text = "\n".join(topology_conf_lines(dict(NVL, block_sizes=[18, 72]), "24.11"))
    parsed = parse_topology_conf(text)
    assert parsed["block_sizes"] == [18, 72]
    assert [len(b["nodes"]) for b in parsed["blocks"]] == [18, 18, 18, 18]
    assert topology_conf_lines(parsed, "24.11") == text.splitlines()


@pytest.mark.parametrize("text, message", [
    ("SwitchName=s0 Nodes=n1 Colour=red",
     r"^topology\.conf line 1 \(a SwitchName line\) has unknown key\(s\) 'colour'; allowed: linkspeed, nodes, "
     r"switches, switchname$"),
    ("SwitchName=s0 Nodes=n1\nBlockName=b Nodes=n2", r"mixes SwitchName and BlockName"),
    ("Nodes=n1", r"expected SwitchName=, BlockName= or BlockSizes="),
    ("SwitchName=s0 Nodes=n1 junk", r"is not a list of Key=Value pairs"),
    ("# only a comment\n", r"has no SwitchName or BlockName line"),
    ("SwitchName=s0 Nodes=n1 LinkSpeed=fast", r"LinkSpeed=fast is not a whole number"),
])
def test_parse_refusals(text, message):
    with pytest.raises(SlurmConfError, match=message):
        parse_topology_conf(text)


def test_parse_is_case_insensitive_and_skips_comments():
    parsed = parse_topology_conf("switchname=a nodes=n[1-2]  # leaf\n\nSWITCHNAME=b SWITCHES=a\n")
    assert parsed == {"kind": "tree", "switches": [{"name": "a", "nodes": ["n1", "n2"]}, {"name": "b", "switches": ["a"]}]}


# ---------------------------------------------------------------- property: each node in exactly one leaf
@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 12), min_size=1, max_size=12), st.integers(0, 3))
def test_every_node_in_exactly_one_leaf_line(leaf_sizes, spines):
    start, leaves, nodes = 1, [], []
    for number, size in enumerate(leaf_sizes, 1):
        names = ["gpu%03d" % n for n in range(start, start + size)]
        start += size
        nodes += names
        leaves.append({"name": "leaf%d" % number, "nodes": names})
    fabric = {"kind": "tree", "leaves": leaves,
              "spines": [{"name": "spine%d" % s, "leaves": [leaf["name"] for leaf in leaves]} for s in range(1, spines + 1)]}
    lines = topology_conf_lines(fabric, "22.05", nodes=nodes)
    placed = []
    for line in lines:
        fields = dict(item.split("=", 1) for item in line.split())
        if "Nodes" in fields:
            placed += expand_hostlist(fields["Nodes"])
        else:
            assert sorted(expand_hostlist(fields["Switches"])) == sorted(leaf["name"] for leaf in leaves)
    assert sorted(placed) == sorted(nodes) and len(placed) == len(set(placed))
    assert len(lines) == len(leaf_sizes) + spines


@pytest.mark.parametrize("fabric, version, plugin", [
    ({"kind": "tree", "switches": []}, "22.05", "topology/tree"),
    ({"leaves": []}, "24.11", "topology/tree"),
    ({"kind": "block", "blocks": []}, "23.11.4", "topology/block"),
])
def test_topology_plugin_follows_the_kind(fabric, version, plugin):
    assert topology_plugin(fabric, version) == plugin


@pytest.mark.parametrize("fabric, version, match", [
    ({"kind": "block"}, "22.05.8", r"topology/block needs Slurm >= 23\.11; Slurm 22\.05 has only topology/tree"),
    ({"kind": "flat"}, "24.11", r"fabric kind 'flat' is not tree or block"),
    ({"kind": 1}, "24.11", r"fabric kind 1 is not tree or block"),
    ("tree", "24.11", r"fabric must be a mapping with kind: tree or kind: block"),
])
def test_topology_plugin_refuses(fabric, version, match):
    with pytest.raises(SlurmConfError, match=match):
        topology_plugin(fabric, version)


def test_with_topology_plugin_adds_it_and_refuses_another():
    block = {"kind": "block", "blocks": [{"name": "b1", "nodes": "n[1-2]"}]}
    assert with_topology_plugin({"SelectType": "select/cons_tres"}, block, "24.11") == {
        "SelectType": "select/cons_tres", "TopologyPlugin": "topology/block"}
    assert with_topology_plugin({"topologyPlugin": " Topology/Block "}, block, "24.11") == {
        "TopologyPlugin": "topology/block"}
    with pytest.raises(SlurmConfError, match=r"^slurm\.conf: TopologyPlugin=topology/tree contradicts "
                                             r"gpufleet_fabric\.topology \(kind block\), whose topology\.conf only "
                                             r"topology/block reads; drop TopologyPlugin from the settings"):
        with_topology_plugin({"TopologyPlugin": "topology/tree"}, block, "24.11")
    with pytest.raises(SlurmConfError, match=r"slurm\.conf settings must be a mapping"):
        with_topology_plugin(["TopologyPlugin"], block, "24.11")
