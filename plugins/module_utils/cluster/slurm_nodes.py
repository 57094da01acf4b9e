# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Slurm part of the cluster description: the compute nodes' layouts and the lines made of them.

:func:`node_list` and :func:`gres_entries` read each compute host's ``slurm_node_*`` and ``slurm_gpu_*`` variables
(its own value, else the role's) as roles/slurm/tasks/preflight.yml did per host; :func:`slurm_part` adds the
NodeName=, PartitionName=, gres.conf and topology.conf lines, made by the collection's Slurm code
(:mod:`...slurm.conf.nodes`, :mod:`...slurm.topology`), which also refuses what Slurm would.
"""
from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping

from ansible_collections.gpufleet.cluster.plugins.module_utils.cluster.inputs import (
    ClusterDescriptionError, HostVars, jinja_int, lookup, names)
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import (
    list_of, mapping_of, unknown_keys)
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.conf.nodes import (
    gres_conf_lines, node_lines, partition_lines)
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.topology import topology_conf_lines

#: The host variables a compute node's layout is read from (each falls back to the role's value in ``defaults``).
LAYOUT_VARS = ("slurm_gpu_count", "slurm_node_cpus", "slurm_node_sockets", "slurm_node_cores_per_socket",
               "slurm_node_threads_per_core", "slurm_node_real_memory_mib", "slurm_node_features", "slurm_gpu_type",
               "slurm_gpu_numa", "slurm_gres_autodetect", "slurm_numa_cores")
#: gres.conf's GPU indexes are 0..65535 (slurm/conf/nodes.py): a node's explicit GPU list is no longer.
MAX_GPUS = 0x10000
_KEYS = ("controllers", "computes", "dbd", "defaults", "partitions", "release", "topology")


def node_list(hosts: HostVars, computes: List[str], defaults: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """slurm_node_lines' input: one node per compute host, in the group's order."""
    out = []
    for host in computes:
        variables = hosts[host]
        gpus = jinja_int(lookup(variables, "slurm_gpu_count", defaults))
        out.append({
            "name": host,
            "cpus": jinja_int(lookup(variables, "slurm_node_cpus", defaults)),
            "sockets": jinja_int(lookup(variables, "slurm_node_sockets", defaults)),
            "cores_per_socket": jinja_int(lookup(variables, "slurm_node_cores_per_socket", defaults)),
            "threads_per_core": jinja_int(lookup(variables, "slurm_node_threads_per_core", defaults)),
            "real_memory": jinja_int(lookup(variables, "slurm_node_real_memory_mib", defaults)),
            "features": lookup(variables, "slurm_node_features", defaults),
            "gres": ([{"type": "gpu", "model": lookup(variables, "slurm_gpu_type", defaults), "count": gpus}]
                     if gpus > 0 else []),
        })
    return out


def _numa_node(numa: Any, index: int) -> Any:
    """``numa[index] | default(numa[index | string] | default(none))``: a list by position, a mapping by either key."""
    if isinstance(numa, Mapping):
        return numa[index] if index in numa else numa.get(str(index))
    if isinstance(numa, (list, tuple)) and index < len(numa):
        return numa[index]
    return None


def _layout(host: str, variables: Mapping[str, Any], defaults: Mapping[str, Any], gpus: int) -> Dict[str, Any]:
    entry: Dict[str, Any] = {"type": lookup(variables, "slurm_gpu_type", defaults)}
    auto = lookup(variables, "slurm_gres_autodetect", defaults)
    if auto:
        entry.update({"autodetect": auto, "count": gpus})
        return entry
    if gpus > MAX_GPUS:
        raise ClusterDescriptionError("slurm_gpu_count of %s is %d: gres.conf numbers a node's GPUs 0..%d"
                                      % (host, gpus, MAX_GPUS - 1))
    numa = lookup(variables, "slurm_gpu_numa", defaults)
    entry["gpus"] = [{"index": index, "numa_node": _numa_node(numa, index)} for index in range(gpus)]
    cores = lookup(variables, "slurm_numa_cores", defaults)
    if cores:
        entry["numa_cores"] = cores
    return entry


def gres_entries(hosts: HostVars, computes: List[str], defaults: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """slurm_gres_lines' input: one entry per distinct GPU layout, with the nodes that share it (group order), in
    the order of the layouts' JSON text (case-insensitive), as the role's template sorted them."""
    layouts: Dict[str, List[str]] = {}
    for host in computes:
        variables = hosts[host]
        gpus = jinja_int(lookup(variables, "slurm_gpu_count", defaults))
        if gpus > 0:
            layouts.setdefault(json.dumps(_layout(host, variables, defaults, gpus), default=repr), []).append(host)
    return [dict(json.loads(key), nodes=layouts[key]) for key in sorted(layouts, key=str.lower)]


def slurm_part(hosts: HostVars, slurm: Mapping[str, Any]) -> Dict[str, Any]:
    """The Slurm part of the description: the inputs it was made for (``release``, ``partitions``, ``topology``),
    the node list and gres entries, the cluster's size, and the lines of nodes.conf, gres.conf and topology.conf."""
    unknown_keys("slurm", slurm, _KEYS, ClusterDescriptionError)
    controllers = names("slurm controllers", slurm.get("controllers", []), hosts)
    computes = names("slurm computes", slurm.get("computes", []), hosts)
    # The accounting host(s) (slurm_dbd_group): slurm.conf's AccountingStorageHost on every host, which a slice of
    # the node job cannot take from its own inventory's groups.
    dbd = names("slurm dbd", slurm.get("dbd", []), hosts)
    defaults = mapping_of("slurm defaults", slurm.get("defaults", {}), ClusterDescriptionError,
                          "a mapping of the role's values of %s" % ", ".join(LAYOUT_VARS))
    partitions = list_of("slurm partitions", slurm.get("partitions", []), ClusterDescriptionError,
                         "a list of partitions (slurm_partitions)")
    release, topology = slurm.get("release"), slurm.get("topology")
    if not isinstance(release, str):
        raise ClusterDescriptionError("slurm release must be the Slurm version the lines are for, got %r"
                                      % (release,))
    nodes = node_list(hosts, computes, defaults)
    gres = gres_entries(hosts, computes, defaults)
    out: Dict[str, Any] = {
        "release": release, "partitions": list(partitions), "topology": topology,
        "controllers": controllers, "computes": computes, "dbd": dbd, "nodes": nodes, "gres": gres,
        "size": {"nodes": len(nodes), "cpus": sum(node["cpus"] for node in nodes),
                 "gpus": sum(item["count"] for node in nodes for item in node["gres"])},
        "node_conf": None, "gres_lines": [], "topology_lines": [],
    }
    if not computes:
        return out
    node_text = node_lines(nodes, release)
    partition_text = partition_lines(partitions, nodes, release)
    out["node_conf"] = {"node_lines": node_text, "partition_lines": partition_text, "lines": node_text + partition_text}
    out["gres_lines"] = gres_conf_lines(gres, nodes, release)
    if topology is not None:
        out["topology_lines"] = topology_conf_lines(topology, release, computes)
    return out
