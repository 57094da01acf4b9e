# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A node's own entry in a rendered cluster description, checked against the node's own variables.

A slice of a sliced job (AWX job slicing) holds only its own hosts, so it cannot recompute the description of the
whole cluster; what each node can check cheaply is that what the description says about *it* is what its own
variables say: its address, whether it is in the /etc/hosts group, a Slurm compute node (and its NodeName layout and
gres), a RoCE host (and its side). :func:`entry_problems` returns what differs, as sentences naming the host and the
variable; an empty list means the entry agrees. Its cost does not grow with the cluster (docs/cluster-description.md,
"The rendered file").
"""
from __future__ import annotations

from typing import Any, List, Mapping

from ansible_collections.gpufleet.cluster.plugins.module_utils.cluster.addresses import address
from ansible_collections.gpufleet.cluster.plugins.module_utils.cluster.description import VERSION
from ansible_collections.gpufleet.cluster.plugins.module_utils.cluster.inputs import ClusterDescriptionError
from ansible_collections.gpufleet.cluster.plugins.module_utils.cluster.roce_sides import roce_part
from ansible_collections.gpufleet.cluster.plugins.module_utils.cluster.slurm_nodes import gres_entries, node_list
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import list_of, mapping_of, unknown_keys

#: The own input's keys: the variables the node sets, the slurm role's layout values, and the groups it is in.
OWN_KEYS = ("variables", "defaults", "member")
#: The groups an entry says the node is in: the /etc/hosts group, the Slurm compute group, the RoCE host group.
MEMBER_KEYS = ("hosts", "compute", "roce")
#: What the problems end with: how a stale description is made fresh.
REMEDY = "Run playbooks/describe.yml on the whole inventory and commit the file it writes."


#: The parts of a description this check reads, and what each of their keys must be (a list of names, a list of
#: mappings, a mapping), so that a hand-edited or damaged file is refused with its part named, not read wrongly.
_SHAPE = {"hosts": {"group": "names"},
          "slurm": {"computes": "names", "nodes": "mappings", "gres": "mappings"},
          "roce": {"group": "names", "sides": "mappings", "vars": "mapping"}}


def _check_shape(description: Mapping[str, Any]) -> None:
    """Refuse a description whose parts this check reads are not what describe.yml writes."""
    where = "gpufleet_cluster_description"
    if "addresses" in description:
        mapping_of(where + ".addresses", description["addresses"], ClusterDescriptionError, "a mapping host: address")
    for part, keys in _SHAPE.items():
        if description.get(part) is None:
            continue
        value = mapping_of("%s.%s" % (where, part), description[part], ClusterDescriptionError)
        for key, kind in keys.items():
            item, name = value.get(key), "%s.%s.%s" % (where, part, key)
            if item is None:
                continue
            if kind == "mapping":
                mapping_of(name, item, ClusterDescriptionError)
                continue
            list_of(name, item, ClusterDescriptionError)
            for index, element in enumerate(item):
                if kind == "names" and not isinstance(element, str):
                    raise ClusterDescriptionError("%s[%d] must be a host name, got %r" % (name, index, element))
                if kind == "mappings":
                    mapping_of("%s[%d]" % (name, index), element, ClusterDescriptionError)
                    if key == "gres":
                        list_of("%s[%d].nodes" % (name, index), element.get("nodes") or [], ClusterDescriptionError)


def _member(description: Mapping[str, Any], part: str, key: str, host: str) -> Any:
    """Whether the description's ``part`` lists ``host`` under ``key``; None when the description has no such part."""
    value = description.get(part)
    if not isinstance(value, Mapping):
        return None
    return host in (value.get(key) or [])


def _said(flag: bool) -> str:
    return "is" if flag else "is not"


def _membership(description: Mapping[str, Any], host: str, member: Mapping[str, Any]) -> List[str]:
    out = []
    for what, part, key, group in (("hosts", "hosts", "group", "in the /etc/hosts group (common_hosts_group)"),
                                   ("compute", "slurm", "computes", "a Slurm compute node (slurm_compute_group)"),
                                   ("roce", "roce", "group", "a RoCE host (roce_switch_host_group)")):
        if what not in member:
            continue
        listed = _member(description, part, key, host)
        if listed is None:
            out.append("the description has no %s part" % part)
        elif listed != bool(member[what]):
            out.append("the inventory says %s %s %s, the description says it %s"
                       % (host, _said(bool(member[what])), group, _said(listed)))
    return out


def _slurm(description: Mapping[str, Any], host: str, variables: Mapping[str, Any],
           defaults: Mapping[str, Any]) -> List[str]:
    slurm = description["slurm"]
    hosts = {host: variables}
    want_node = node_list(hosts, [host], defaults)[0]
    have_node = next((node for node in slurm.get("nodes") or [] if node.get("name") == host), None)
    out = []
    if have_node != want_node:
        out.append("its Slurm node layout is %r in the description, %r from its own variables (slurm_node_*, "
                   "slurm_gpu_count, slurm_gpu_type)" % (have_node, want_node))
    want = [{key: value for key, value in entry.items() if key != "nodes"}
            for entry in gres_entries(hosts, [host], defaults)]
    have = [{key: value for key, value in entry.items() if key != "nodes"}
            for entry in slurm.get("gres") or [] if host in (entry.get("nodes") or [])]
    if have != want:
        out.append("its gres.conf entry is %r in the description, %r from its own variables (slurm_gpu_count, "
                   "slurm_gpu_numa, slurm_numa_cores, slurm_gres_autodetect)" % (have, want))
    return out


def _roce(description: Mapping[str, Any], host: str, variables: Mapping[str, Any]) -> List[str]:
    roce = description["roce"]
    want = roce_part({host: variables}, {"hosts": [host], "vars": roce.get("vars")})["sides"]
    have = [side for side in roce.get("sides") or [] if side.get("source") == host]
    if have != want:
        return ["its RoCE side is %r in the description, %r from its own variables (%s)"
                % (have, want, ", ".join(sorted((roce.get("vars") or {}).values())))]
    return []


def entry_problems(description: Any, host: Any, own: Any) -> List[str]:
    """What the description says about ``host`` that its own variables do not (empty: the entry agrees).

    ``own`` is ``{variables: {name: value}, defaults: {layout variable: value}, member: {hosts?, compute?, roce?}}``:
    the variables the node sets (``gpufleet_ip``, ``ansible_host``, the Slurm layout variables, the RoCE ones), the
    slurm role's values of the layout variables, and whether the node's inventory groups hold it.
    """
    if not isinstance(host, str) or not host:
        raise ClusterDescriptionError("the host must be the node's inventory name, got %r" % (host,))
    if not isinstance(description, Mapping):
        return ["%s: gpufleet_cluster_description is %s, not a cluster description. %s"
                % (host, "not defined" if description is None else type(description).__name__, REMEDY)]
    mapping_of("own", own, ClusterDescriptionError, "a mapping {variables, defaults, member}")
    unknown_keys("own", own, OWN_KEYS, ClusterDescriptionError)
    variables = mapping_of("own variables", own.get("variables", {}), ClusterDescriptionError,
                           "a mapping of the variables the node sets")
    defaults = mapping_of("own defaults", own.get("defaults", {}), ClusterDescriptionError,
                          "a mapping of the slurm role's layout values")
    member = mapping_of("own member", own.get("member", {}), ClusterDescriptionError,
                        "a mapping {hosts, compute, roce} of booleans")
    unknown_keys("own member", member, MEMBER_KEYS, ClusterDescriptionError)
    _check_shape(description)
    if description.get("version") != VERSION:
        return ["%s: the cluster description's format is %r, this collection reads %d. %s"
                % (host, description.get("version"), VERSION, REMEDY)]
    problems = _membership(description, host, member)
    have_address = (description.get("addresses") or {}).get(host)
    if ("gpufleet_ip" in variables or "ansible_host" in variables) and have_address != address(variables):
        problems.append("its address is %r in the description, %r from its own variables (gpufleet_ip, else "
                        "ansible_host)" % (have_address, address(variables)))
    if member.get("compute") and isinstance(description.get("slurm"), Mapping):
        problems.extend(_slurm(description, host, variables, defaults))
    if member.get("roce") and isinstance(description.get("roce"), Mapping):
        problems.extend(_roce(description, host, variables))
    if not problems:
        return []
    return ["%s: the cluster description (gpufleet_cluster_description) is stale for this node: %s. %s"
            % (host, "; ".join(problems), REMEDY)]
