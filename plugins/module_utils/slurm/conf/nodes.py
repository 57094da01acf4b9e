# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Slurm's nodes, partitions and gres for one Slurm release: NodeName=, PartitionName= and gres.conf lines.

* :func:`node_lines`, :func:`partition_lines` -- NodeName=/PartitionName= lines, identical nodes
  grouped under one compressed hostlist, checked with Slurm's own rules; their ``extra`` keys are
  checked against the key catalogue as :mod:`.settings` checks a setting.
* :func:`gres_conf_lines`, :func:`check_gres_counts` -- gres.conf lines (AutoDetect or explicit
  File=/Cores= per NUMA node) and the node-line/gres.conf count check.
"""
from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import (
    list_of, mapping_of, must_be, unknown_keys)
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.conf.settings import (
    SlurmConfError, check_value, key_table, slurm_release, unknown_key)
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist import (
    compress_hostlist, host_sort_key, hostlist_names)

# All applied with fullmatch. Node, partition, feature and gres model names are input_rules' slurm_name.
_GRES_NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")
_GRES_NAME_ALLOWED = "a letter, then up to 63 letters, digits or '_' (e.g. gpu)"
# Slurm time: MINUTES, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS (parse_time.c time_str2mins).
_TIME_RE = re.compile(r"[0-9]+|[0-9]+:[0-9]{1,2}|[0-9]+:[0-9]{1,2}:[0-9]{1,2}|[0-9]+-[0-9]+|[0-9]+-[0-9]+:[0-9]{1,2}"
                      r"|[0-9]+-[0-9]+:[0-9]{1,2}:[0-9]{1,2}")
_NODE_FIELDS = ("name", "cpus", "boards", "sockets", "cores_per_socket", "threads_per_core",
                "real_memory", "gres", "features", "weight", "extra")
_NODE_OWN_KEYS = ("nodename", "cpus", "procs", "boards", "sockets", "socketsperboard", "corespersocket",
                  "threadspercore", "realmemory", "gres", "feature", "features", "weight")
_PART_FIELDS = ("name", "nodes", "default", "max_time", "state", "extra")
_PART_STATES = ("UP", "DOWN", "DRAIN", "INACTIVE")
_GRES_FIELDS = ("autodetect", "count", "device", "gpus", "name", "nodes", "numa_cores", "type")


def _positive_int(where: str, value: Any, minimum: int = 1, maximum: int = 0xFFFF) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise must_be(where, value, "a whole number", SlurmConfError)
    if not minimum <= value <= maximum:
        raise SlurmConfError("%s=%d is outside %d..%d" % (where, value, minimum, maximum))
    return value


def _slurm_name(where: str, value: Any) -> str:
    return input_rules.check("slurm_name", where, value, SlurmConfError)


def _mapping(where: str, value: Any) -> Mapping[str, Any]:
    if value is None:
        return {}
    return mapping_of(where, value, SlurmConfError, "a mapping of Slurm options (Key: value)")


def _gres_items(where: str, gres: Any) -> Tuple[Tuple[str, str, int], ...]:
    if gres is None:
        return ()
    list_of("%s gres" % where, gres, SlurmConfError, "a list of {type, model, count}")
    items, seen = [], set()
    for index, item in enumerate(gres):
        spot = "%s gres[%d]" % (where, index)
        mapping_of(spot, item, SlurmConfError, "a mapping with type, optional model and count")
        input_rules.mapping(spot, item, SlurmConfError, required=("type",), optional=("model", "count"))
        name, model = item["type"], item.get("model")
        if not isinstance(name, str) or not _GRES_NAME_RE.fullmatch(name):
            raise SlurmConfError("%s type: %r is not allowed; expected %s" % (spot, name, _GRES_NAME_ALLOWED))
        if model is not None:
            _slurm_name("%s model (e.g. h100)" % spot, model)
        count = _positive_int("%s count" % spot, item.get("count"), 1, 0xFFFFFFFF)
        if (name, model) in seen:
            raise SlurmConfError("%s repeats %s:%s; give each type/model once with its total count"
                                 % (spot, name, model))
        seen.add((name, model))
        items.append((name, model or "", count))
    return tuple(items)


def _gres_text(items: Sequence[Tuple[str, str, int]]) -> str:
    return ",".join(":".join([n, m, str(c)]) if m else "%s:%d" % (n, c) for n, m, c in items)


def _node_spec(node: Any, index: int, table: Mapping[str, Tuple[str, str]], release: str) -> Tuple[str, tuple]:
    mapping_of("node %d" % index, node, SlurmConfError, "a mapping with name, cpus, sockets, ...")
    unknown_keys("node %d (%s)" % (index, node.get("name")), node, _NODE_FIELDS, SlurmConfError)
    name = _slurm_name("node %d name" % index, node.get("name"))
    where = "node %s" % name
    sockets = _positive_int(where + " sockets", node.get("sockets"))
    cores = _positive_int(where + " cores_per_socket", node.get("cores_per_socket"))
    threads = _positive_int(where + " threads_per_core", node.get("threads_per_core"))
    boards = _positive_int(where + " boards", node.get("boards", 1))
    if sockets % boards:
        raise SlurmConfError("%s: sockets=%d is not a multiple of boards=%d; Slurm's Sockets is the node "
                             "total, spread evenly over the boards" % (where, sockets, boards))
    total = sockets * cores * threads
    cpus = _positive_int(where + " cpus", node.get("cpus", total))
    if cpus != total:
        raise SlurmConfError(
            "%s: cpus=%d but sockets*cores_per_socket*threads_per_core = %d*%d*%d = %d; slurmd would "
            "reset CPUs (read_config.c _parse_nodename). Fix the numbers from 'slurmd -C'; to schedule "
            "whole cores set threads_per_core=1" % (where, cpus, sockets, cores, threads, total))
    memory = _positive_int(where + " real_memory (MiB)", node.get("real_memory"), 1, 0xFFFFFFFFFFFFFFFF)
    features = node.get("features") or []
    list_of(where + " features", features, SlurmConfError, "a list of names")
    for number, feature in enumerate(features):
        _slurm_name("%s features[%d]" % (where, number), feature)
    if len(set(features)) != len(features):
        raise SlurmConfError("%s features %r repeat a feature" % (where, features))
    weight = node.get("weight")
    if weight is not None:
        _positive_int(where + " weight", weight, 0, 0xFFFFFFFE)
    extra = _mapping(where + " extra", node.get("extra"))
    rendered_extra = []
    for key, value in sorted(extra.items(), key=lambda kv: str(kv[0]).lower()):
        low = str(key).lower()
        if low in _NODE_OWN_KEYS:
            raise SlurmConfError("%s extra sets %s, which this function writes from its own fields; use "
                                 "the field instead" % (where, key))
        if low not in table:
            raise unknown_key("slurm.conf NodeName", str(key), release, table)
        canonical, typ = table[low]
        rendered_extra.append("%s=%s" % (canonical, ",".join(check_value("NodeName", canonical, value, typ))))
    spec = (cpus, boards, sockets, cores, threads, memory, _gres_items(where, node.get("gres")),
            tuple(features), weight, tuple(rendered_extra))
    return name, spec


def _spec_line(hosts: str, spec: tuple) -> str:
    cpus, boards, sockets, cores, threads, memory, gres, features, weight, extra = spec
    parts = ["NodeName=%s" % hosts, "CPUs=%d" % cpus]
    if boards > 1:
        parts.append("Boards=%d" % boards)
    parts += ["Sockets=%d" % sockets, "CoresPerSocket=%d" % cores, "ThreadsPerCore=%d" % threads,
              "RealMemory=%d" % memory]
    if gres:
        parts.append("Gres=%s" % _gres_text(gres))
    if features:
        parts.append("Feature=%s" % ",".join(features))
    if weight is not None:
        parts.append("Weight=%d" % weight)
    return " ".join(parts + list(extra))


def _node_groups(nodes: Any, version: Any) -> List[Tuple[List[str], tuple]]:
    list_of("nodes", nodes, SlurmConfError, "a non-empty list of node mappings", allow_empty=False)
    release = slurm_release(version)
    table = key_table("slurm.conf:NodeName", release)
    groups: Dict[tuple, List[str]] = {}
    seen: Dict[str, int] = {}
    for index, node in enumerate(nodes):
        name, spec = _node_spec(node, index, table, release)
        if name in seen:
            raise SlurmConfError("node %s is listed twice (items %d and %d); give each node once"
                                 % (name, seen[name], index))
        seen[name] = index
        groups.setdefault(spec, []).append(name)
    ordered = [(sorted(names, key=host_sort_key), spec) for spec, names in groups.items()]
    return sorted(ordered, key=lambda item: host_sort_key(item[0][0]))


def node_lines(nodes: Any, version: Any = "22.05") -> List[str]:
    """NodeName= lines, nodes with identical hardware grouped under one compressed hostlist."""
    return [_spec_line(compress_hostlist(names), spec) for names, spec in _node_groups(nodes, version)]


# The PartitionName= keys partition_lines writes from a partition's own fields: Slurm's key (lower case) -> the field.
_PART_OWN_KEYS = {"partitionname": "name", "nodes": "nodes", "default": "default", "maxtime": "max_time",
                  "state": "state"}


def partition_lines(partitions: Any, nodes: Any, version: Any = "22.05") -> List[str]:
    """PartitionName= lines; every partition node must exist and every node be in a partition."""
    list_of("partitions", partitions, SlurmConfError, "a non-empty list of partition mappings", allow_empty=False)
    known = [name for names, _spec in _node_groups(nodes, version) for name in names]
    table = key_table("slurm.conf:PartitionName", version)
    used, names, lines, default = set(), set(), [], None
    for index, part in enumerate(partitions):
        mapping_of("partition %d" % index, part, SlurmConfError, "a mapping with fields %s" % ", ".join(_PART_FIELDS))
        unknown_keys("partition %d" % index, part, _PART_FIELDS, SlurmConfError)
        name = _slurm_name("partition %d name" % index, part.get("name"))
        if name.upper() == "DEFAULT":
            raise SlurmConfError("partition %d name %r is Slurm's keyword for defaults; choose another name"
                                 % (index, name))
        if name in names:
            raise SlurmConfError("partition %s is defined twice; Slurm would merge or reject it" % name)
        names.add(name)
        where = "partition %s" % name
        if part.get("nodes") in ("ALL", "all"):
            members = list(known)
        else:
            members = hostlist_names(where + " nodes", part.get("nodes"), SlurmConfError)
            missing = sorted(set(members) - set(known), key=host_sort_key)
            if missing:
                raise SlurmConfError("%s references node(s) %s that have no NodeName line; add them to the "
                                     "node list or remove them" % (where, compress_hostlist(missing)))
        used.update(members)
        parts = ["PartitionName=%s" % name, "Nodes=%s" % compress_hostlist(members)]
        if part.get("default") not in (None, False):
            if part["default"] is not True:
                raise must_be(where + " default", part["default"], "true or false", SlurmConfError)
            if default:
                raise SlurmConfError("partitions %s and %s are both default; Slurm takes one default "
                                     "partition" % (default, name))
            default = name
            parts.append("Default=YES")
        max_time = part.get("max_time")
        if max_time is not None:
            text = str(max_time) if not isinstance(max_time, bool) else ""
            if not (_TIME_RE.fullmatch(text) or text.upper() in ("UNLIMITED", "INFINITE")):
                raise SlurmConfError("%s max_time %r is not a Slurm time (minutes, [D-]HH:MM:SS or "
                                     "UNLIMITED)" % (where, max_time))
            parts.append("MaxTime=%s" % (text if text[0].isdigit() else text.upper()))
        state = part.get("state")
        if state is not None:
            if not isinstance(state, str) or state.upper() not in _PART_STATES:
                raise SlurmConfError("%s state %r is not one of %s" % (where, state, ", ".join(_PART_STATES)))
            parts.append("State=%s" % state.upper())
        extra = _mapping(where + " extra", part.get("extra"))
        for key, value in sorted(extra.items(), key=lambda kv: str(kv[0]).lower()):
            low = str(key).lower()
            if low in _PART_OWN_KEYS:
                raise SlurmConfError("%s extra sets %s; use the %s field" % (where, key, _PART_OWN_KEYS[low]))
            if low not in table:
                raise unknown_key("slurm.conf PartitionName", str(key), slurm_release(version), table)
            canonical, typ = table[low]
            parts.append("%s=%s" % (canonical, ",".join(check_value("PartitionName", canonical, value, typ))))
        lines.append(" ".join(parts))
    idle = sorted(set(known) - used, key=host_sort_key)
    if idle:
        raise SlurmConfError("node(s) %s are in no partition, so no job could ever use them; add them to a "
                             "partition or drop their NodeName line" % compress_hostlist(idle))
    return lines


def _core_ranges(cores: Sequence[int]) -> str:
    out, ordered = [], sorted(set(cores))
    start = prev = ordered[0]
    for core in ordered[1:] + [None]:
        if core is not None and core == prev + 1:
            prev = core
            continue
        out.append(str(start) if start == prev else "%d-%d" % (start, prev))
        if core is not None:
            start = prev = core
    return ",".join(out)


def _core_list(where: str, value: Any) -> List[int]:
    if isinstance(value, str):
        cores = []
        for part in value.split(","):
            match = re.fullmatch(r"([0-9]+)(?:-([0-9]+))?", part)
            if not match or (match.group(2) and int(match.group(2)) < int(match.group(1))):
                raise SlurmConfError("%s %r is not a core list such as '0-51' or '0-25,52-77'" % (where, value))
            cores.extend(range(int(match.group(1)), int(match.group(2) or match.group(1)) + 1))
        return cores
    if isinstance(value, (list, tuple)) and value and all(
            isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= 0xFFFF for c in value):
        return list(value)
    raise must_be(where, value, "a core list string or a list of core numbers", SlurmConfError)


def _gres_entry(index: int, entry: Any) -> Tuple[List[str], List[str], Optional[int], str, str]:
    """(nodes, lines, device count or None for AutoDetect, name, type)."""
    mapping_of("gres entry %d" % index, entry, SlurmConfError, "a mapping with fields %s" % ", ".join(_GRES_FIELDS))
    unknown_keys("gres entry %d" % index, entry, _GRES_FIELDS, SlurmConfError)
    names = hostlist_names("gres entry %d nodes" % index, entry.get("nodes"), SlurmConfError)
    hosts = compress_hostlist(names)
    where = "gres.conf NodeName=%s" % hosts
    name, model = entry.get("name", "gpu"), entry.get("type")
    if not isinstance(name, str) or not _GRES_NAME_RE.fullmatch(name):
        raise SlurmConfError("%s name: %r is not allowed; expected %s" % (where, name, _GRES_NAME_ALLOWED))
    if model is not None:
        _slurm_name("%s type (e.g. h100)" % where, model)
    if entry.get("autodetect") is not None:
        mode = entry["autodetect"]
        if mode not in ("nvml", "rsmi", "oneapi", "nrt", "off"):
            raise SlurmConfError("%s autodetect %r is not nvml, rsmi, oneapi, nrt or off" % (where, mode))
        if entry.get("gpus"):
            raise SlurmConfError("%s has both autodetect and gpus; AutoDetect finds the devices itself, "
                                 "give one or the other" % where)
        count = entry.get("count")
        if count is not None:
            _positive_int(where + " count", count, 1, 0xFFFFFFFF)
        return names, ["NodeName=%s AutoDetect=%s" % (hosts, mode)], count, name, model or ""
    gpus = entry.get("gpus")
    if gpus is None:
        raise SlurmConfError("%s needs gpus: [{index, numa_node}] (or autodetect: nvml)" % where)
    list_of(where + " gpus", gpus, SlurmConfError, "a list [{index, numa_node}]", allow_empty=False)
    numa_cores = entry.get("numa_cores")
    if numa_cores is not None:
        mapping_of(where + " numa_cores", numa_cores, SlurmConfError, "a mapping of NUMA node to cores")
    by_numa: Dict[Any, List[int]] = {}
    seen = set()
    for number, gpu in enumerate(gpus):
        spot = "%s gpus[%d]" % (where, number)
        if not isinstance(gpu, Mapping) or "index" not in gpu:
            raise must_be(spot, gpu, "a mapping {index, numa_node}", SlurmConfError)
        gpu_index = _positive_int(spot + " index", gpu["index"], 0, 0xFFFF)
        if gpu_index in seen:
            raise SlurmConfError("%s: GPU index %d is listed twice" % (spot, gpu_index))
        seen.add(gpu_index)
        numa = gpu.get("numa_node")
        if numa is not None:
            _positive_int(spot + " numa_node", numa, 0, 0xFFFF)
            if numa_cores is not None and numa not in numa_cores and str(numa) not in numa_cores:
                raise SlurmConfError("%s: numa_node %d has no entry in numa_cores (%s)"
                                     % (spot, numa, ", ".join(map(str, numa_cores))))
        by_numa.setdefault(numa, []).append(gpu_index)
    device = input_rules.check("device_path", "%s device" % where, entry.get("device", "/dev/nvidia"), SlurmConfError)
    if device[-1].isdigit():
        raise SlurmConfError("%s device: %r ends in a digit; it is the prefix the GPU index is appended to "
                             "(/dev/nvidia gives /dev/nvidia0), so %r would read as another device"
                             % (where, device, device + "0"))
    lines = []
    for numa in sorted(by_numa, key=lambda n: (n is None, n)):
        parts = ["NodeName=%s" % hosts, "Name=%s" % name]
        if model:
            parts.append("Type=%s" % model)
        parts.append("File=%s" % compress_hostlist(["%s%d" % (device, i) for i in by_numa[numa]], "device_path"))
        if numa is not None and numa_cores is not None:
            cores = numa_cores.get(numa, numa_cores.get(str(numa)))
            parts.append("Cores=%s" % _core_ranges(_core_list("%s numa_cores[%s]" % (where, numa), cores)))
        lines.append(" ".join(parts))
    return names, lines, len(seen), name, model or ""


def gres_conf_lines(gres: Any, nodes: Any = None, version: Any = "22.05") -> List[str]:
    """gres.conf lines; with ``nodes``, also :func:`check_gres_counts` and core ranges."""
    slurm_release(version)
    list_of("gres", gres, SlurmConfError, "a non-empty list of gres.conf entries", allow_empty=False)
    lines, owner = [], {}
    for index, entry in enumerate(gres):
        names, entry_lines, _count, name, _model = _gres_entry(index, entry)
        for host in names:
            if (host, name) in owner:
                raise SlurmConfError("node %s gets %s from gres entries %d and %d; describe each node's "
                                     "%s once" % (host, name, owner[(host, name)], index, name))
            owner[(host, name)] = index
        lines.extend(entry_lines)
    if nodes is not None:
        check_gres_counts(nodes, gres, version)
    return lines


def check_gres_counts(nodes: Any, gres: Any, version: Any = "22.05") -> Dict[str, int]:
    """Refuse a NodeName Gres= count that differs from the gres.conf device count; ``{node: count}``."""
    groups = _node_groups(nodes, version)
    node_spec = {name: spec for names, spec in groups for name in names}
    checked = {}
    for index, entry in enumerate(gres):
        names, _lines, count, name, model = _gres_entry(index, entry)
        for host in names:
            spec = node_spec.get(host)
            if spec is None:
                raise SlurmConfError("gres.conf entry %d names node %s, which has no NodeName line" % (index, host))
            declared = sum(c for n, m, c in spec[6] if n == name and (not model or not m or m == model))
            if count is not None and declared != count:
                raise SlurmConfError(
                    "node %s: slurm.conf Gres=%s declares %d %s but gres.conf has %d device(s); slurmd "
                    "would drain the node ('gres/%s count too low' or an inconsistent count). Make them "
                    "equal" % (host, _gres_text(spec[6]) or "(none)", declared, name, count, name))
            if entry.get("numa_cores") is not None:
                total = spec[2] * spec[3]  # Cores= are Slurm's logical core indexes, 0..sockets*cores-1
                for numa, cores in entry["numa_cores"].items():
                    top = max(_core_list("gres entry %d numa_cores[%s]" % (index, numa), cores))
                    if top >= total:
                        raise SlurmConfError(
                            "gres.conf entry %d: Cores up to %d for NUMA node %s, but node %s has only "
                            "%d cores (%d sockets x %d); Cores= counts cores, not hardware threads"
                            % (index, top, numa, host, total, spec[2], spec[3]))
            checked[host] = declared
    return checked
