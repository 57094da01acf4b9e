# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The RoCE part of the cluster description: each RoCE host's side (the PFC priority and DSCP its NICs use), which
every switch of roles/roce_switch checks against its lossless class.

A host of the group whose ``roce_host_enabled`` is not false has a side: the variables named in ``vars``
(``roce_host_priority``, ``roce_host_dscp`` by default), else its ``gpufleet_roce_class``'s, else priority 3 and
DSCP [26]. ``distinct`` holds each different side once (first seen first), so that a switch checks a handful of
sides, not every host.
"""
from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping

from ansible_collections.gpufleet.cluster.plugins.module_utils.cluster.inputs import (
    ClusterDescriptionError, HostVars, ansible_bool, names)
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import mapping_of, unknown_keys

_KEYS = ("hosts", "vars")
_VAR_KEYS = ("priority", "dscp")


def _side(host: str, variables: Mapping[str, Any], priority_var: str, dscp_var: str) -> Dict[str, Any]:
    cls = variables.get("gpufleet_roce_class", {})
    cls = cls if isinstance(cls, Mapping) else {}
    return {"source": host,
            "priority": variables[priority_var] if priority_var in variables else cls.get("priority", 3),
            "dscp": variables[dscp_var] if dscp_var in variables else cls.get("dscp", [26])}


def roce_part(hosts: HostVars, roce: Mapping[str, Any]) -> Dict[str, Any]:
    """``{group, vars, sides, distinct}``: the hosts' sides in the group's order, and each different one once."""
    unknown_keys("roce", roce, _KEYS, ClusterDescriptionError)
    members = names("roce hosts", roce.get("hosts", []), hosts)
    variables = mapping_of("roce vars", roce.get("vars"), ClusterDescriptionError,
                           "a mapping {priority, dscp} of host variable names (roce_switch_host_vars)")
    unknown_keys("roce vars", variables, _VAR_KEYS, ClusterDescriptionError)
    if not all(isinstance(variables.get(key), str) for key in _VAR_KEYS):
        raise ClusterDescriptionError("roce vars must name the host variables of priority and dscp, got %r"
                                      % (dict(variables),))
    sides: List[Dict[str, Any]] = [
        _side(host, hosts[host], variables["priority"], variables["dscp"]) for host in members
        if ansible_bool(hosts[host].get("roce_host_enabled", True))]
    distinct: Dict[str, Dict[str, Any]] = {}
    for side in sides:
        key = json.dumps([side["priority"], side["dscp"]], sort_keys=True, default=repr)
        distinct.setdefault(key, {"priority": side["priority"], "dscp": side["dscp"], "sources": []})
        distinct[key]["sources"].append(side["source"])
    return {"group": members, "vars": dict(variables), "sides": sides, "distinct": list(distinct.values())}
