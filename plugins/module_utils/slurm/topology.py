# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""topology.conf for Slurm's topology/tree (IB / RoCE fat trees) and topology/block (NVLink domains).

Rules follow Slurm's parsers (24.11.5 ``src/plugins/topology/tree/switch_record.c`` and
``src/plugins/topology/block/block_record.c``; 22.05.8 ``topology_tree.c`` has the same tree rules):

* tree: a switch has ``Nodes=`` or ``Switches=``, never both and never neither; names are unique
  and shorter than HOST_NAME_MAX (64); children must be defined switches; the switch graph must be
  a tree ("Switch configuration is not a tree"). Stricter here: every node sits in exactly one leaf
  and, once there are upper-level switches, every leaf has a parent.
* block (Slurm >= 23.11): ``BlockName=... Nodes=...`` lines; block names unique, nodes in one
  block only; the planning base block size is the first ``BlockSizes`` value (or the node count of
  the first block) and every block holds at least that many nodes; each further size is the base
  times a power of two (2^1 .. 2^15), listed in increasing order. ``BlockSizes`` exists from 24.05
  on; 23.11 spelled it ``BlockLevels`` (NEWS 24.05.0rc1), which is not written here.
"""
from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping, Optional, Sequence

from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import (
    list_of, mapping_of, must_be, unknown_keys)
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist import (
    compress_hostlist, host_sort_key, hostlist_names)
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.conf.settings import (
    SlurmConfError, slurm_release)

_BLOCK_MIN_RELEASE = "23.11"
_BLOCK_SIZES_MIN_RELEASE = "24.05"


def _release_tuple(release: str) -> tuple:
    return tuple(int(part) for part in release.split("."))


def _hosts(where: str, value: Any) -> List[str]:
    return hostlist_names(where, value, SlurmConfError)


def _check_name(kind: str, name: Any) -> str:
    input_rules.check("slurm_name", "%s name" % kind, name, SlurmConfError)
    if len(name) > 63:
        raise SlurmConfError("%s name %r has %d characters; Slurm takes names shorter than HOST_NAME_MAX (64)"
                             % (kind, name, len(name)))
    if compress_hostlist([name]) != name:
        raise SlurmConfError("%s name %r does not survive hostlist compression; rename it" % (kind, name))
    return name


def _switches_of(fabric: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """Generic ``switches`` list from either input form."""
    if "switches" in fabric:
        if "leaves" in fabric or "spines" in fabric:
            raise SlurmConfError("tree fabric: give either switches or leaves/spines, not both")
        raw = list_of("tree fabric switches", fabric["switches"], SlurmConfError, "a non-empty list", allow_empty=False)
        for index, sw in enumerate(raw):
            mapping_of("tree fabric switches[%d]" % index, sw, SlurmConfError,
                       "a mapping {name, nodes or switches, link_speed?}")
        return [dict(sw) for sw in raw]
    leaves, spines = fabric.get("leaves"), fabric.get("spines") or []
    if leaves is None:
        raise SlurmConfError("tree fabric needs leaves: [{name, nodes}] (or switches: [...])")
    list_of("tree fabric leaves", leaves, SlurmConfError, "a list of {name, nodes}", allow_empty=False)
    list_of("tree fabric spines", spines, SlurmConfError, "a list of {name, leaves}")
    out = []
    for index, leaf in enumerate(leaves):
        if not isinstance(leaf, Mapping) or "switches" in leaf or "leaves" in leaf:
            raise must_be("tree fabric leaves[%d]" % index, leaf, "a mapping {name, nodes, link_speed?}",
                          SlurmConfError)
        out.append(dict(leaf))
    for index, spine in enumerate(spines):
        if not isinstance(spine, Mapping) or "nodes" in spine:
            raise must_be("tree fabric spines[%d]" % index, spine,
                          "a mapping {name, leaves, link_speed?} without nodes", SlurmConfError)
        item = {k: v for k, v in spine.items() if k != "leaves"}
        item["switches"] = spine.get("leaves")
        out.append(item)
    return out


def _check_tree(switches: List[Dict[str, Any]], nodes: Optional[Sequence[str]]) -> List[Dict[str, Any]]:
    seen: Dict[str, int] = {}
    normal = []
    for index, sw in enumerate(switches):
        unknown_keys("switch %r" % (sw.get("name"),), sw, ("name", "nodes", "switches", "link_speed"), SlurmConfError)
        name = _check_name("SwitchName", sw.get("name"))
        if name in seen:
            raise SlurmConfError("SwitchName %s is defined twice (items %d and %d); Slurm stops with "
                                 "'Switch (%s) has already been defined'" % (name, seen[name], index, name))
        seen[name] = index
        has_nodes, has_switches = sw.get("nodes") is not None, sw.get("switches") is not None
        if has_nodes == has_switches:
            raise SlurmConfError("switch %s has %s; Slurm needs exactly one of Nodes= and Switches=" % (
                name, "both child switches and nodes" if has_nodes else "neither child switches nor nodes"))
        speed = sw.get("link_speed")
        if speed is not None and (isinstance(speed, bool) or not isinstance(speed, int) or not 0 < speed <= 0xFFFFFFFF):
            raise must_be("switch %s link_speed" % name, speed, "a whole number 1..4294967295 (Slurm only compares "
                          "these numbers with each other)", SlurmConfError)
        normal.append({"name": name,
                       "nodes": _hosts("switch %s nodes" % name, sw["nodes"]) if has_nodes else [],
                       "switches": _hosts("switch %s switches" % name, sw["switches"]) if has_switches else [],
                       "link_speed": speed})
    by_name = {sw["name"]: sw for sw in normal}
    parents: Dict[str, List[str]] = {}
    for sw in normal:
        for child in sw["switches"]:
            if child not in by_name:
                raise SlurmConfError("switch %s lists child switch %s, which is not defined; Slurm stops with "
                                     "'Switch configuration %s has invalid child (%s)'"
                                     % (sw["name"], child, sw["name"], child))
            if child == sw["name"]:
                raise SlurmConfError("switch %s lists itself as a child" % child)
            parents.setdefault(child, []).append(sw["name"])
    _check_acyclic(by_name)
    owner: Dict[str, str] = {}
    for sw in normal:
        for node in sw["nodes"]:
            if node in owner:
                raise SlurmConfError("node %s is in leaf switches %s and %s; put every node in exactly one leaf"
                                     % (node, owner[node], sw["name"]))
            owner[node] = sw["name"]
    if any(sw["switches"] for sw in normal):
        orphans = [sw["name"] for sw in normal if sw["nodes"] and sw["name"] not in parents]
        if orphans:
            raise SlurmConfError("leaf switch(es) %s have no parent switch although upper-level switches "
                                 "exist; jobs could not span them. List them under a spine"
                                 % ", ".join(orphans))
    if nodes is not None:
        known = set(nodes)
        stray = sorted(set(owner) - known, key=host_sort_key)
        if stray:
            raise SlurmConfError("topology names node(s) %s that are not in the node list (no NodeName "
                                 "line); Slurm would stop with 'Invalid node name'" % compress_hostlist(stray))
        lost = sorted(known - set(owner), key=host_sort_key)
        if lost:
            raise SlurmConfError("node(s) %s are in no leaf switch; with topology/tree every node must be "
                                 "connected to a switch" % compress_hostlist(lost))
    return normal


def _check_acyclic(by_name: Mapping[str, Dict[str, Any]]) -> None:
    state: Dict[str, int] = {}

    def visit(name: str, path: List[str]) -> None:
        if state.get(name) == 2:
            return
        if state.get(name) == 1:
            cycle = path[path.index(name):] + [name]
            raise SlurmConfError("switches form a cycle %s; Slurm stops with 'Switch configuration is not a "
                                 "tree'" % " -> ".join(cycle))
        state[name] = 1
        for child in by_name[name]["switches"]:
            visit(child, path + [name])
        state[name] = 2

    for name in by_name:
        visit(name, [])


def _tree_lines(switches: List[Dict[str, Any]]) -> List[str]:
    leaves = [sw for sw in switches if sw["nodes"]]
    uppers = [sw for sw in switches if sw["switches"]]
    lines = []
    for sw in leaves + uppers:
        key = "Nodes" if sw["nodes"] else "Switches"
        line = "SwitchName=%s %s=%s" % (sw["name"], key, compress_hostlist(sw["nodes"] or sw["switches"]))
        if sw["link_speed"] is not None:
            line += " LinkSpeed=%d" % sw["link_speed"]
        lines.append(line)
    return lines


def _need_block_release(release: str) -> None:
    if _release_tuple(release) < _release_tuple(_BLOCK_MIN_RELEASE):
        raise SlurmConfError("topology/block needs Slurm >= %s; Slurm %s has only topology/tree (use kind: "
                             "tree or upgrade)" % (_BLOCK_MIN_RELEASE, release))


def _check_blocks(fabric: Mapping[str, Any], release: str, nodes: Optional[Sequence[str]]) -> List[str]:
    _need_block_release(release)
    blocks, sizes = fabric.get("blocks"), fabric.get("block_sizes") or []
    if blocks is None:
        raise SlurmConfError("block fabric needs blocks: [{name, nodes}]")
    list_of("block fabric blocks", blocks, SlurmConfError, "a list of {name, nodes}", allow_empty=False)
    list_of("block_sizes", sizes, SlurmConfError, "a list of node counts")
    if sizes and _release_tuple(release) < _release_tuple(_BLOCK_SIZES_MIN_RELEASE):
        raise SlurmConfError("block_sizes %r: BlockSizes exists from Slurm %s on; Slurm %s used BlockLevels "
                             "instead (NEWS 24.05.0rc1), which this collection does not write. Leave "
                             "block_sizes empty to get Slurm's default levels"
                             % (list(sizes), _BLOCK_SIZES_MIN_RELEASE, release))
    names, owner, lines, counts = set(), {}, [], []
    for index, block in enumerate(blocks):
        mapping_of("block %d" % index, block, SlurmConfError, "a mapping {name, nodes}")
        unknown_keys("block %d" % index, block, ("name", "nodes"), SlurmConfError)
        name = _check_name("BlockName", block.get("name"))
        if name in names:
            raise SlurmConfError("BlockName %s is defined twice; Slurm stops with 'Block (%s) has already "
                                 "been defined'" % (name, name))
        names.add(name)
        members = _hosts("block %s nodes" % name, block.get("nodes"))
        for node in members:
            if node in owner:
                raise SlurmConfError("node %s is in blocks %s and %s; a node belongs to one block"
                                     % (node, owner[node], name))
            owner[node] = name
        counts.append((name, len(set(members))))
        lines.append("BlockName=%s Nodes=%s" % (name, compress_hostlist(members)))
    base = counts[0][1]
    if sizes:
        for size in sizes:
            if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
                raise SlurmConfError("block_sizes %r: %r is not a positive node count; Slurm stops with "
                                     "'Invalid BlockSizes value'" % (list(sizes), size))
        base = sizes[0]
        for prior, size in zip(sizes, sizes[1:]):
            if size <= prior:
                raise SlurmConfError("block_sizes %r must increase (%d after %d)" % (list(sizes), size, prior))
        for size in sizes[1:]:
            ratio = size // base
            if size % base or ratio & (ratio - 1) or ratio > 1 << 15:
                raise SlurmConfError(
                    "block_sizes %r: %d is not the base size %d times a power of two up to 2^15 (%s); "
                    "Slurm stops with 'Invalid BlockSizes value'. Use e.g. %s"
                    % (list(sizes), size, base, "%d/%d is not whole" % (size, base) if size % base else
                       "%d/%d = %d" % (size, base, ratio), ",".join(str(base << i) for i in range(3))))
        lines.append("BlockSizes=%s" % ",".join(str(s) for s in sizes))
    small = [(name, count) for name, count in counts if count < base]
    if small:
        raise SlurmConfError("block(s) %s hold fewer nodes than the base block size %d; Slurm stops with "
                             "'Block configuration (...) children count lower than bblock_node_cnt'"
                             % (", ".join("%s (%d)" % item for item in small), base))
    if nodes is not None:
        stray = sorted(set(owner) - set(nodes), key=host_sort_key)
        if stray:
            raise SlurmConfError("blocks name node(s) %s that are not in the node list" % compress_hostlist(stray))
    return lines


# The plugin that reads each kind's topology.conf lines (SwitchName= for tree, BlockName= for block).
TOPOLOGY_PLUGINS = {"tree": "topology/tree", "block": "topology/block"}


def _kind(fabric: Any) -> str:
    mapping_of("fabric", fabric, SlurmConfError, "a mapping with kind: tree or kind: block")
    kind = fabric.get("kind", "tree")
    if not isinstance(kind, str) or kind not in TOPOLOGY_PLUGINS:
        raise SlurmConfError("fabric kind %r is not tree or block" % (kind,))
    return kind


def topology_conf_lines(fabric: Any, version: Any = "22.05", nodes: Optional[Sequence[str]] = None) -> List[str]:
    """topology.conf lines for a tree or block fabric description, validated for ``version``."""
    release = slurm_release(version)
    kind = _kind(fabric)
    if nodes is not None:
        nodes = _hosts("nodes", nodes)
    if kind == "tree":
        unknown_keys("tree fabric", fabric, ("kind", "leaves", "spines", "switches"), SlurmConfError)
        return _tree_lines(_check_tree(_switches_of(fabric), nodes))
    unknown_keys("block fabric", fabric, ("kind", "blocks", "block_sizes"), SlurmConfError)
    return _check_blocks(fabric, release, nodes)


def topology_plugin(fabric: Any, version: Any = "22.05") -> str:
    """slurm.conf's TopologyPlugin for the fabric: the plugin that reads its topology.conf lines.

    topology/tree reads only SwitchName= lines and topology/block only BlockName= / BlockSizes= lines, so the
    plugin follows the fabric's kind; topology/block needs Slurm 23.11 or later.
    """
    release = slurm_release(version)
    kind = _kind(fabric)
    if kind == "block":
        _need_block_release(release)
    return TOPOLOGY_PLUGINS[kind]


def with_topology_plugin(settings: Mapping[str, Any], fabric: Any, version: Any = "22.05",
                         where: str = "gpufleet_fabric.topology") -> Dict[str, Any]:
    """slurm.conf ``settings`` with the TopologyPlugin of ``fabric`` (:func:`topology_plugin`) added.

    A TopologyPlugin already among the settings (any spelling of the key) must be that plugin: another one would
    read topology.conf lines it does not know (BlockName= under topology/tree).
    """
    mapping_of("slurm.conf settings", settings, SlurmConfError, "a mapping of Key: value")
    plugin = topology_plugin(fabric, version)
    out: Dict[str, Any] = {}
    for key, value in settings.items():
        if isinstance(key, str) and key.lower() == "topologyplugin":
            if str(value).strip().lower() != plugin:
                kind = fabric.get("kind", "tree")
                raise SlurmConfError(
                    "slurm.conf: %s=%s contradicts %s (kind %s), whose topology.conf only %s reads; drop %s from "
                    "the settings (the topology sets it)" % (key, value, where, kind, plugin, key))
            continue
        out[key] = value
    out["TopologyPlugin"] = plugin
    return out


_TOKEN_RE = re.compile(r'([A-Za-z]+)=("[^"]*"|\S+)')


def parse_topology_conf(text: str) -> Dict[str, Any]:
    """Read topology.conf back into a fabric description (nodes and switches expanded to lists)."""
    if not isinstance(text, str):
        raise must_be("topology.conf text", text, "a string", SlurmConfError)
    switches, blocks, sizes = [], [], None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        tokens = _TOKEN_RE.findall(line)
        if "".join("%s=%s" % t for t in tokens).replace(" ", "") != re.sub(r"\s+", "", line):
            raise SlurmConfError("topology.conf line %d %r is not a list of Key=Value pairs" % (number, raw))
        fields = {}
        for key, value in tokens:
            low = key.lower()
            if low in fields:
                raise SlurmConfError("topology.conf line %d repeats %s" % (number, key))
            fields[low] = value.strip('"')
        where = "topology.conf line %d" % number
        if "switchname" in fields:
            unknown_keys("%s (a SwitchName line)" % where, fields, ("switchname", "nodes", "switches", "linkspeed"),
                         SlurmConfError)
            speed = fields.get("linkspeed")
            if speed is not None and not speed.isdigit():
                raise SlurmConfError("%s: LinkSpeed=%s is not a whole number" % (where, speed))
            switches.append({"name": fields["switchname"],
                             "nodes": _hosts(where, fields["nodes"]) if "nodes" in fields else None,
                             "switches": _hosts(where, fields["switches"]) if "switches" in fields else None,
                             "link_speed": int(speed) if speed is not None else None})
        elif "blockname" in fields:
            unknown_keys("%s (a BlockName line)" % where, fields, ("blockname", "nodes"), SlurmConfError)
            blocks.append({"name": fields["blockname"], "nodes": _hosts(where, fields.get("nodes", ""))})
        elif set(fields) == {"blocksizes"}:
            try:
                sizes = [int(s) for s in fields["blocksizes"].split(",")]
            except ValueError:
                raise SlurmConfError("%s: BlockSizes=%s is not a list of numbers" % (where, fields["blocksizes"]))
        else:
            raise SlurmConfError("%s: expected SwitchName=, BlockName= or BlockSizes=, got %r" % (where, raw))
    if switches and (blocks or sizes):
        raise SlurmConfError("topology.conf mixes SwitchName and BlockName lines; one plugin reads one kind")
    if blocks:
        out: Dict[str, Any] = {"kind": "block", "blocks": blocks}
        if sizes:
            out["block_sizes"] = sizes
        return out
    if not switches:
        raise SlurmConfError("topology.conf has no SwitchName or BlockName line")
    for sw in switches:
        for key in ("nodes", "switches", "link_speed"):
            if sw[key] is None:
                del sw[key]
    return {"kind": "tree", "switches": switches}
