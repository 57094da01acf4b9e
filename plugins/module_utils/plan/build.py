# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What playbooks/plan.yml computes, as plain data: the inventory's planning variables in, the plan out.

Two stages, with the power checks of the playbook between them (docs/plan.md):

1. :func:`plan_inputs` reads the inventory (the ``gpufleet_plan_*`` variables, ``gpufleet_lustre``,
   ``gpufleet_power``, the groups and each node type's ``gpufleet_hardware``) and assembles the rack report,
   the rack placement check, the ``pdu_layout`` input and the as-built ``pdu_check`` input and assignment.
2. :func:`build_plan` takes those inputs and the ``pdu_layout`` / ``pdu_check`` results, plans every
   Lustre directory and renders every NCCL topology and hostlist, and returns every file the playbook
   writes, by relative path.

The math is the other module_utils' (power, lustre_striping, nccl_topology, hostlist); this module only
assembles their inputs and writes their results as markdown and JSON.
"""

from __future__ import annotations

import json
import shlex
from collections import Counter
from fractions import Fraction
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence

from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist import (
    HostlistError,
    compress_hostlist,
    expand_hostlist,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.striping import (
    DEFAULT_STRIPE_SIZE,
    StripingError,
    pfl_layout,
    stripe_plan,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.topology import NcclTopologyError, render_xml
from ansible_collections.gpufleet.cluster.plugins.module_utils.power.fit import (
    PowerFitError, cap_cost, capped_node_w, fit_rack, parse_fit_input, psu_rows, way_out)

PDU_KINDS = ("planned", "as_built")
APPLY_CHOICES = ("stripe_plan", "pfl")
DEFAULT_DERATING = 0.8
DEFAULT_POWER_FACTOR = 0.95  # pdu_layout's default, quoted in power.md
CAP_CHOICES = ("none", "rack_budget")  # gpufleet_power_cap
# What a node type's `power` may hold: the pdu_layout node's figures, and those rack_power_fit and the checks use.
POWER_KEYS = ("max_power_w", "psus", "psus_required", "power_factor", "psu_rating_w", "components", "gpu_min_power_w")
LAYOUT_KEYS = ("max_power_w", "psus", "psus_required", "power_factor", "psu_rating_w")
LOAD_KEYS = ("name", "max_power_w", "psus", "psus_required", "psu_rating_w", "power_factor")


class ClusterPlanError(ValueError):
    """The inventory cannot be assembled into a plan; the message names the variable and the fix."""


# ---------------------------------------------------------------- helpers


def _need(mapping: Any, key: str, where: str) -> Any:
    if not isinstance(mapping, Mapping):
        raise ClusterPlanError("%s must be a mapping, got %s %r" % (where, type(mapping).__name__, mapping))
    if mapping.get(key) is None:
        raise ClusterPlanError("%s.%s is missing; set it in the inventory (docs/plan.md, 'What it reads')" % (where, key))
    return mapping[key]


def _list(value: Any, where: str) -> List[Any]:
    if not isinstance(value, (list, tuple)):
        raise ClusterPlanError("%s must be a list, got %s %r" % (where, type(value).__name__, value))
    return list(value)


def _expand(expr: Any, where: str) -> List[str]:
    """Hostlist expansion in expression order, duplicates kept (what hostlist_expand returns)."""
    try:
        return expand_hostlist(expr)
    except (HostlistError, TypeError) as exc:
        raise ClusterPlanError("%s: %s" % (where, exc))


def _compress(names: Sequence[str]) -> str:
    return compress_hostlist(list(names)) if names else ""


def _unique(items: Iterable[str]) -> List[str]:
    """First occurrences, compared case-insensitively: Ansible's `unique` filter, which the reports used."""
    seen, out = set(), []
    for item in items:
        if item.lower() not in seen:
            seen.add(item.lower())
            out.append(item)
    return out


def _group(groups: Mapping[str, Sequence[str]], name: str, where: str) -> List[str]:
    if name not in groups:
        raise ClusterPlanError("%s: group %r is not an inventory group (groups: %s); add it to the inventory"
                               % (where, name, ", ".join(sorted(groups))))
    return list(groups[name])


def pdu_name(rack: str, feed: str) -> str:
    """PDUs, planned and as built, are named <rack>-pdu-<feed in lower case>."""
    return "%s-pdu-%s" % (rack, str(feed).lower())


def plain(value: Any) -> Any:
    """Mappings, sequences and scalars of any (sub)type as plain dict, list, str, int, float, bool and None, so that
    the filters hand this module, and get back, nothing but JSON-able data."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    for kind in (str, int, float):
        if isinstance(value, kind):
            return kind(value)
    return value


def to_json(data: Any) -> str:
    """JSON as the playbook always wrote it: to_nice_json(indent=2), sorted keys, one trailing newline."""
    return json.dumps(data, indent=2, sort_keys=True, separators=(",", ": ")) + "\n"


# ---------------------------------------------------------------- stage 1: inputs of the power checks


def rack_placement(typed: Sequence[str], racked: Sequence[str]) -> Dict[str, List[str]]:
    """The hosts of the node types' groups (`typed`) against those of the racks' hostlists (`racked`): every list
    is empty when each GPU node sits in exactly one rack and every rack node is of exactly one node type."""
    typed_count, racked_count = Counter(typed), Counter(racked)
    return {
        "not_in_a_rack": _unique(h for h in typed if h not in racked_count),
        "in_no_node_type": _unique(h for h in racked if h not in typed_count),
        "in_two_racks": _unique(h for h in racked if racked_count[h] > 1),
        "in_two_node_types": _unique(h for h in typed if typed_count[h] > 1),
    }


def power_nodes(node_types: Sequence[Mapping[str, Any]], groups: Mapping[str, Sequence[str]],
                rack_of: Mapping[str, str]) -> List[Dict[str, Any]]:
    """One pdu_layout node per host of each node type: name, rack ('' when in none) and the type's power."""
    nodes = []
    for index, node_type in enumerate(node_types):
        where = "gpufleet_plan_node_types[%d]" % index
        power = _need(node_type, "power", where)
        for host in _group(groups, _need(node_type, "group", where), where):
            node = {"name": host, "rack": rack_of.get(host, "")}
            node.update((k, v) for k, v in power.items() if k in LAYOUT_KEYS)
            node["node_type"] = str(node_type.get("name"))
            nodes.append(node)
    return nodes


def rack_loads(racks: Sequence[Mapping[str, Any]]) -> List[Dict[str, Any]]:
    """gpufleet_plan_power.racks[].loads (switches, head node, storage) as pdu_layout nodes of their rack."""
    loads = []
    for index, rack in enumerate(racks):
        for number, load in enumerate(_list(rack.get("loads") or [], "gpufleet_plan_power.racks[%d].loads" % index)):
            where = "gpufleet_plan_power.racks[%d].loads[%d]" % (index, number)
            input_rules.mapping(where, load, ClusterPlanError, required=("name", "max_power_w", "psus", "psus_required"),
                                optional=LOAD_KEYS)
            input_rules.check("hostname", where + ".name", load["name"], ClusterPlanError)
            loads.append(dict(load, rack=rack["name"], node_type="load"))
    return loads


def power_pdus(racks: Sequence[Mapping[str, Any]], feeds: Sequence[str], spec: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """One pdu_layout PDU per rack and feed, all of the same model `spec`."""
    pdus = []
    for rack in racks:
        for feed in feeds:
            pdu = {"name": pdu_name(rack["name"], feed), "rack": rack["name"], "feed": feed}
            pdu.update(spec)
            pdus.append(pdu)
    return pdus


def as_built_assignment(breakers: Sequence[Mapping[str, Any]]) -> List[Dict[str, Any]]:
    """The as-built breakers (`psus` of every node of the hostlist `nodes` on `pdu`/`circuit`) as one
    {node, psu, pdu, circuit} row per PSU, the form pdu_check takes."""
    rows = []
    for index, breaker in enumerate(breakers):
        where = "gpufleet_plan_power.as_built.breakers[%d]" % index
        for host in _expand(_need(breaker, "nodes", where), where + ".nodes"):
            for psu in _list(_need(breaker, "psus", where), where + ".psus"):
                rows.append({"node": host, "psu": psu, "pdu": _need(breaker, "pdu", where), "circuit": _need(breaker, "circuit", where)})
    return rows


def rack_budget(racks: Sequence[Mapping[str, Any]], name: str) -> Any:
    """budget_w of rack `name` in gpufleet_power.racks, None when it is not there."""
    return next((b.get("budget_w") for b in racks if isinstance(b, Mapping) and b.get("name") == name), None)


def rack_report(racks: Sequence[Mapping[str, Any]], rack_hosts: Sequence[Sequence[str]], nodes: Sequence[Mapping[str, Any]],
                budgets: Sequence[Mapping[str, Any]]) -> List[Dict[str, Any]]:
    """Per rack: its hostlist, node count, the loads beside the nodes, the summed worst-case draw of nodes and loads as
    planned (`max_power_w`, after any GPU cap) and budget_w (None when the rack is not in gpufleet_power.racks)."""
    report = []
    for rack, hosts in zip(racks, rack_hosts):
        members = set(hosts)
        loads = [n for n in nodes if n.get("node_type") == "load" and n["rack"] == rack["name"]]
        report.append({"name": rack["name"], "nodes": _compress(hosts), "count": len(hosts),
                       "loads": [n["name"] for n in loads], "loads_w": sum(n["max_power_w"] for n in loads),
                       "max_power_w": sum(n["max_power_w"] for n in nodes if n["name"] in members) + sum(n["max_power_w"] for n in loads),
                       "budget_w": rack_budget(budgets, rack["name"])})
    return report


def _gpu_figures(node_type: Mapping[str, Any], hardware: Mapping[str, Any], where: str) -> Dict[str, Any]:
    """GPUs per node and watts per GPU (components.gpus, else gpufleet_hardware gpus and gpu_tdp_w), and the GPUs'
    lowest settable limit (power.gpu_min_power_w, else none: no cap below the GPUs' full power)."""
    power = node_type["power"]
    gpus = (power.get("components") or {}).get("gpus") if isinstance(power.get("components"), Mapping) else None
    count = gpus.get("count") if isinstance(gpus, Mapping) else hardware.get("gpus")
    watts = gpus.get("power_w") if isinstance(gpus, Mapping) else hardware.get("gpu_tdp_w")
    count = input_rules.integer(where + ".components.gpus.count (or gpufleet_hardware.gpus)", count or 0, ClusterPlanError,
                                minimum=0, maximum=1024)
    if not count or watts is None:  # GPU watts unknown: the rack can be checked, but no cap computed
        return {"gpus": 0, "gpu_power_w": 0, "gpu_min_power_w": 0}
    watts = input_rules.number(where + ".components.gpus.power_w (or gpufleet_hardware.gpu_tdp_w)", watts, ClusterPlanError,
                               minimum=0, exclusive_minimum=True, maximum=100000)
    low = power.get("gpu_min_power_w", watts)
    low = input_rules.number(where + ".power.gpu_min_power_w", low, ClusterPlanError, minimum=0, maximum=watts)
    return {"gpus": count, "gpu_power_w": watts, "gpu_min_power_w": low}


def check_node_power(node_type: Mapping[str, Any], figures: Mapping[str, Any], where: str) -> List[str]:
    """Refuse a max_power_w below the listed components; return the warning when it equals the GPUs' power alone."""
    power = node_type["power"]
    input_rules.mapping(where + ".power", power, ClusterPlanError, required=("max_power_w", "psus", "psus_required"),
                        optional=POWER_KEYS)
    top = input_rules.number(where + ".power.max_power_w", power["max_power_w"], ClusterPlanError, minimum=0,
                             exclusive_minimum=True, maximum=1e6)
    components = power.get("components")
    if components is not None:
        input_rules.mapping(where + ".power.components", components, ClusterPlanError)
        parts, total = [], 0.0
        for name, part in components.items():
            if name == "other_w":
                watts = input_rules.number(where + ".power.components.other_w", part, ClusterPlanError, minimum=0, maximum=1e6)
                parts.append("other %g W" % watts)
                total += watts
                continue
            pwhere = "%s.power.components.%s" % (where, name)
            input_rules.mapping(pwhere, part, ClusterPlanError, required=("count", "power_w"))
            count = input_rules.integer(pwhere + ".count", part["count"], ClusterPlanError, minimum=0, maximum=1024)
            watts = input_rules.number(pwhere + ".power_w", part["power_w"], ClusterPlanError, minimum=0, maximum=1e6)
            parts.append("%d x %g W %s" % (count, watts, name))
            total += count * watts
        if top < total:
            raise ClusterPlanError("%s.power.max_power_w %g W is below the sum of its components, %g W (%s); max_power_w is the "
                                   "whole node's maximum input power: use the nameplate or the vendor's maximum"
                                   % (where, top, total, " + ".join(parts)))
    gpus_w = figures["gpus"] * figures["gpu_power_w"]
    if figures["gpus"] and abs(top - gpus_w) < 0.5:
        return ["node type %s: max_power_w %g W is its %d GPUs x %g W alone; a whole node also feeds its CPUs, memory, NICs, "
                "NVSwitches, drives and fans (an 8-GPU H100 SXM5 server: up to 10.2 kW), so the racks' draw is understated"
                % (node_type["name"], top, figures["gpus"], figures["gpu_power_w"])]
    return []


def power_budget(node_types: Sequence[Mapping[str, Any]], figures: Sequence[Mapping[str, Any]], nodes: List[Dict[str, Any]],
                 racks: Sequence[Mapping[str, Any]], budgets: Sequence[Mapping[str, Any]], choice: str,
                 pinned: Any) -> Dict[str, Any]:
    """rack_power_fit of every rack with a budget at the nodes' full power; with gpufleet_power_cap: rack_budget and a
    rack over budget, the cap (the lowest over-budget rack's) applied to every GPU node's max_power_w in `nodes`.
    Returns {choice, fit, gpu_power_cap_w, errors}; errors name each rack over budget and both ways out."""
    kinds = {t["name"]: f for t, f in zip(node_types, figures)}
    fit_racks, counts = [], {}
    for rack in racks:
        budget = rack_budget(budgets, rack["name"])
        members = [n for n in nodes if n["rack"] == rack["name"]]
        counts[rack["name"]] = sum(1 for n in members if n["node_type"] != "load")
        if budget is None:
            continue
        fit_racks.append({"name": rack["name"], "budget_w": budget,
                          "nodes": [dict(kinds[n["node_type"]], name=n["name"], max_power_w=n["max_power_w"])
                                    for n in members if n["node_type"] != "load"],
                          "loads": [{"name": n["name"], "max_power_w": n["max_power_w"]} for n in members if n["node_type"] == "load"]})
    try:
        parsed = parse_fit_input({"racks": fit_racks}) if fit_racks else []
    except PowerFitError as exc:
        raise ClusterPlanError("rack budgets: %s" % exc)
    fit = [fit_rack(r) for r in parsed]
    over = [f for f in fit if not f["fits"]]
    cap = None
    if choice == "rack_budget" and over and all(f["gpu_power_cap_w"] is not None for f in over):
        cap = min(f["gpu_power_cap_w"] for f in over)
    errors = [m for m in (way_out(f, counts[f["name"]], choice == "rack_budget") for f in fit) if m]
    if pinned is not None and pinned != cap:
        errors.append("gpufleet_gpu_power_cap_w is %r in the inventory, but the plan computes %s; set it to %s (it is the "
                      "power limit gpu_tuning applies and validate.yml checks)" % (pinned, "no cap" if cap is None else "%d W" % cap,
                                                                                   "null" if cap is None else cap))
    if cap is not None:
        for node in nodes:
            figure = kinds.get(node["node_type"])
            if figure and figure["gpus"]:
                full = dict(figure, max_power_w=node["max_power_w"])
                node["max_power_w"] = float(capped_node_w(_fractions(full), cap))
                node["max_power_w"] = int(node["max_power_w"]) if node["max_power_w"].is_integer() else node["max_power_w"]
    gpu_w = max((f["gpu_power_w"] for f in figures), default=0) or None
    return {"choice": choice, "fit": fit, "gpu_power_cap_w": cap, "gpu_power_w": gpu_w, "errors": errors}


def _fractions(node: Mapping[str, Any]) -> Dict[str, Any]:
    return {"max_power_w": Fraction(node["max_power_w"]), "gpus": node["gpus"], "gpu_power_w": Fraction(node["gpu_power_w"])}


def spread_hosts(hosts: Sequence[str], count: int) -> List[List[str]]:
    """`hosts` in order over `count` racks, as evenly as possible (the first racks get one more)."""
    base, extra = divmod(len(hosts), count)
    out, start = [], 0
    for index in range(count):
        size = base + (1 if index < extra else 0)
        out.append(list(hosts[start:start + size]))
        start += size
    return out


def plan_inputs(inventory: Mapping[str, Any], groups: Mapping[str, Sequence[str]],
                hardware: Optional[Mapping[str, Mapping[str, Any]]] = None, pdus: str = "planned") -> Dict[str, Any]:
    """Stage 1. `inventory` holds the variables gpufleet_cluster_name (optional), gpufleet_plan_node_types,
    gpufleet_plan_power, gpufleet_plan_lustre, gpufleet_lustre and gpufleet_power; `groups` maps each inventory
    group to its hosts; `hardware` maps a group to the gpufleet_hardware of its hosts; `pdus` is the PDU model
    the layout is planned on (planned: gpufleet_plan_power.pdu, as_built: gpufleet_plan_power.as_built.pdu)."""
    node_types = _list(_need(inventory, "gpufleet_plan_node_types", "inventory"), "gpufleet_plan_node_types")
    hardware = hardware or {}
    for index, node_type in enumerate(node_types):
        where = "gpufleet_plan_node_types[%d]" % index
        for key in ("name", "group"):
            _need(node_type, key, where)
        # The name becomes a file name (nccl/<name>.xml): a plain name, never a path.
        input_rules.plain_name(where + ".name", node_type["name"], ClusterPlanError)
        _group(groups, node_type["group"], where)
    power = _need(inventory, "gpufleet_plan_power", "inventory")
    racks = _list(_need(power, "racks", "gpufleet_plan_power"), "gpufleet_plan_power.racks")
    for index, rack in enumerate(racks):
        _need(rack, "name", "gpufleet_plan_power.racks[%d]" % index)
    listed = [rack.get("nodes") is not None for rack in racks]
    if racks and not any(listed):
        # More racks as the way out: the plan lays the node types' hosts out over the racks it is given.
        typed_hosts = [h for t in node_types for h in groups[t["group"]]]
        rack_hosts = spread_hosts(typed_hosts, len(racks))
    elif not all(listed):
        raise ClusterPlanError("gpufleet_plan_power.racks: give every rack its `nodes` (a hostlist), or none of them (then the plan "
                               "spreads the nodes over the racks); racks without nodes: %s"
                               % ", ".join(str(r["name"]) for r, has in zip(racks, listed) if not has))
    else:
        rack_hosts = [_expand(rack["nodes"], "gpufleet_plan_power.racks[%d].nodes" % index) for index, rack in enumerate(racks)]
    feeds = _list(_need(power, "feeds", "gpufleet_plan_power"), "gpufleet_plan_power.feeds")
    as_built = power.get("as_built")
    if pdus not in PDU_KINDS:
        raise ClusterPlanError("pdus must be planned or as_built, got %r" % (pdus,))
    if pdus == "as_built" and as_built is None:
        raise ClusterPlanError("pdus as_built lays the racks out on gpufleet_plan_power.as_built.pdu, which is not set; "
                               "describe the as-built PDUs or use planned")
    model = _need(power, "pdu", "gpufleet_plan_power") if pdus == "planned" else _need(as_built, "pdu", "gpufleet_plan_power.as_built")
    derating = power.get("derating", DEFAULT_DERATING)
    figures, warnings = [], []
    for index, node_type in enumerate(node_types):
        where = "gpufleet_plan_node_types[%d]" % index
        _need(node_type, "power", where)
        figures.append(_gpu_figures(node_type, hardware.get(node_type["group"]) or {}, where))
        warnings.extend(check_node_power(node_type, figures[-1], where))
    choice = inventory.get("gpufleet_power_cap")
    choice = "none" if choice is None else choice
    if choice not in CAP_CHOICES:
        raise ClusterPlanError("gpufleet_power_cap must be one of %s (or unset), got %r" % (", ".join(CAP_CHOICES), choice))
    budgets = _list((inventory.get("gpufleet_power") or {}).get("racks") or [], "gpufleet_power.racks")
    # A host listed in two racks gets the last one here; the placement check reports it.
    rack_of = {h: r["name"] for r, hosts in zip(racks, rack_hosts) for h in hosts}
    nodes = power_nodes(node_types, groups, rack_of) + rack_loads(racks)
    budget = power_budget(node_types, figures, nodes, racks, budgets, choice, inventory.get("gpufleet_gpu_power_cap_w"))
    budget["warnings"] = warnings
    as_built_inputs = None
    if as_built is not None:
        as_built_pdu = _need(as_built, "pdu", "gpufleet_plan_power.as_built")
        as_built_inputs = {
            "pdu_model": as_built_pdu.get("model", ""),
            # The design's cabling covers its GPU nodes only: the loads are not in it.
            "input": {"nodes": [n for n in nodes if n["node_type"] != "load"], "derating": derating,
                      "pdus": power_pdus(racks, feeds, _need(as_built_pdu, "spec", "gpufleet_plan_power.as_built.pdu"))},
            "assignment": as_built_assignment(_list(as_built.get("breakers", []), "gpufleet_plan_power.as_built.breakers")),
        }
    lustre, lustre_plan = _need(inventory, "gpufleet_lustre", "inventory"), _need(inventory, "gpufleet_plan_lustre", "inventory")
    return {
        "name": inventory.get("gpufleet_cluster_name") or "cluster",
        "pdus": pdus,
        "derating": derating,
        "pdu_model": {"model": model.get("model"), "input_rating_a": model.get("input_rating_a")},
        "placement": rack_placement([h for t in node_types for h in groups[t["group"]]], [h for hosts in rack_hosts for h in hosts]),
        "racks": rack_report(racks, rack_hosts, nodes, budgets),
        "power_budget": budget,
        "layout_input": {"nodes": nodes, "derating": derating, "imbalance_limit": power.get("imbalance_limit"),
                         "pdus": power_pdus(racks, feeds, _need(model, "spec", "the PDU model (%s)" % pdus))},
        "as_built": as_built_inputs,
        "lustre": {"fsname": _need(lustre, "fsname", "gpufleet_lustre"), "mountpoint": _need(lustre, "mountpoint", "gpufleet_lustre"),
                   "osts": _need(lustre, "osts", "gpufleet_lustre"), "ost_bw_gbs": _need(lustre_plan, "ost_bw_gbs", "gpufleet_plan_lustre"),
                   "directories": _list(lustre_plan.get("directories", []), "gpufleet_plan_lustre.directories")},
        "node_types": [{"name": t["name"], "group": t["group"], "hosts": list(groups[t["group"]]),
                        "nccl_layout": t.get("nccl_layout"), "hardware": dict(hardware.get(t["group"]) or {})}
                       for t in node_types],
        "groups": {name: list(hosts) for name, hosts in groups.items()},
    }


# ---------------------------------------------------------------- stage 2: Lustre, NCCL, hostlists


def lustre_plans(lustre: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """Both plans for every directory: lustre_stripe_plan (with its lfs setstripe `command`) and lustre_pfl_layout;
    `apply` (default pfl) picks the `command` to run."""
    plans = []
    for index, d in enumerate(lustre["directories"]):
        where = "gpufleet_plan_lustre.directories[%d]" % index
        # The name becomes a directory under the mount point and a word of the lfs command: a plain name, never a path.
        path = "%s/%s" % (lustre["mountpoint"], input_rules.plain_name(where + ".name", _need(d, "name", where), ClusterPlanError))
        size = d.get("stripe_size", DEFAULT_STRIPE_SIZE)
        try:
            stripes = stripe_plan(lustre["osts"], lustre["ost_bw_gbs"], _need(d, "clients", where), _need(d, "client_bw_gbs", where),
                                  pattern=_need(d, "pattern", where), stripe_size=size, files=d.get("files"))
            sizes = _need(d, "sizes", where)
            pfl = pfl_layout(dict(sizes) if isinstance(sizes, Mapping) else sizes, lustre["osts"], stripe_size=size, path=path)
        except StripingError as exc:
            raise ClusterPlanError("%s (%s): %s" % (where, path, exc))
        stripes["command"] = "lfs setstripe %s %s" % (" ".join(stripes["lfs_setstripe_args"]), shlex.quote(path))
        apply = d.get("apply", "pfl")
        plans.append({"path": path, "description": d.get("description", ""), "pattern": d["pattern"],
                      "clients": d["clients"], "client_bw_gbs": d["client_bw_gbs"], "sizes": sizes, "stripe_plan": stripes,
                      "pfl": pfl, "apply": apply, "command": stripes["command"] if apply == "stripe_plan" else pfl["command"]})
    return plans


def nccl_plans(node_types: Sequence[Mapping[str, Any]]) -> List[Dict[str, Any]]:
    """NCCL_TOPO_FILE of every node type that has an nccl_layout and hosts, with the GPUs (class 0x03...) and
    RDMA ports (<net>) it declares next to what gpufleet_hardware says (None when it says nothing)."""
    plans = []
    for t in node_types:
        if t.get("nccl_layout") is None or not t["hosts"]:
            continue
        input_rules.plain_name("gpufleet_plan_node_types %r name" % (t["name"],), t["name"], ClusterPlanError)
        try:
            xml = str(render_xml(t["nccl_layout"]))
        except NcclTopologyError as exc:
            raise ClusterPlanError("gpufleet_plan_node_types %s: nccl_layout: %s" % (t["name"], exc))
        plans.append({"name": t["name"], "group": t["group"], "file": "nccl/%s.xml" % t["name"], "hosts": _compress(t["hosts"]),
                      "gpus": xml.count('class="0x03'), "nets": xml.count("<net "),
                      "hardware_gpus": t["hardware"].get("gpus"), "hardware_hcas": t["hardware"].get("rdma_hcas"), "xml": xml})
    return plans


def hostlists(groups: Mapping[str, Sequence[str]]) -> List[Dict[str, Any]]:
    """Every group's Slurm hostlist ('' when empty) and its expansion (sorted, unique)."""
    out = []
    for group, hosts in groups.items():
        hostlist = _compress(hosts)
        out.append({"group": group, "count": len(hosts), "hostlist": hostlist, "hosts": expand_hostlist(hostlist) if hostlist else []})
    return out


def build_plan(inputs: Mapping[str, Any], layout: Mapping[str, Any], as_built: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """Stage 2: every file plan.yml writes ({relative path: content}), the Lustre and NCCL rows its checks loop
    over, and a summary. `layout` is pdu_layout of inputs.layout_input, `as_built` pdu_check of inputs.as_built."""
    for key in ("name", "pdus", "derating", "pdu_model", "racks", "power_budget", "layout_input", "lustre", "node_types", "groups"):
        _need(inputs, key, "cluster_plan input (the result of cluster_plan_inputs)")
    for key in ("summary", "circuits", "pdus", "racks", "placements"):
        _need(layout, key, "cluster_plan layout (the result of pdu_layout)")
    if inputs.get("as_built") is not None and as_built is None:
        raise ClusterPlanError("the inventory describes as-built cabling: pass the pdu_check result of inputs.as_built")
    lustre, nccl, lists = lustre_plans(inputs["lustre"]), nccl_plans(inputs["node_types"]), hostlists(inputs["groups"])
    model = inputs["pdu_model"]
    power_json = {
        "racks": inputs["racks"],
        "budget": inputs["power_budget"],
        "layout": {"pdu_model": model["model"] or "", "input_rating_a": model["input_rating_a"], "input": inputs["layout_input"],
                   "result": layout},
        "as_built": None if inputs.get("as_built") is None else {
            "pdu_model": inputs["as_built"]["pdu_model"], "assignment": inputs["as_built"]["assignment"], "check": as_built},
    }
    files = {
        "power.json": to_json(power_json),
        "power.md": render_power_md(inputs, layout, as_built),
        "lustre.json": to_json(dict({k: inputs["lustre"][k] for k in ("fsname", "mountpoint", "osts", "ost_bw_gbs")}, directories=lustre)),
        "lustre.md": render_lustre_md(inputs["lustre"], lustre),
    }
    files.update((t["file"], t["xml"]) for t in nccl)
    files["hostlists.json"] = to_json({g["group"]: g for g in lists})
    files["hostlists.md"] = render_hostlists_md(inputs["name"], lists)
    files["README.md"] = render_readme(inputs["name"], layout, as_built, lustre, nccl, lists, inputs["power_budget"])
    return {
        "files": files,
        "lustre": [{k: d[k] for k in ("path", "apply", "command")} for d in lustre],
        "nccl": [{k: v for k, v in t.items() if k != "xml"} for t in nccl],
        "summary": {"circuits_used": layout["summary"]["circuits_used"],
                    "gpu_power_cap_w": inputs["power_budget"]["gpu_power_cap_w"], "warnings": inputs["power_budget"]["warnings"],
                    "as_built_violations": None if as_built is None else as_built["summary"]["violations"],
                    "lustre_directories": len(lustre), "nccl_files": [t["file"] for t in nccl],
                    "hostlists": {g["group"]: g["hostlist"] for g in lists}},
    }


# ---------------------------------------------------------------- reports (markdown)
# The text is what the playbook's Jinja templates wrote, byte for byte, so a plan re-written by this code changes
# nothing. Numbers are printed with str() (as Jinja does), percentages with %.1f, amps with %.2f.


def _pct(value: float) -> str:
    return "%.1f" % (100 * value)


def _power_as_built(inputs: Mapping[str, Any], check: Mapping[str, Any], node_w: Any) -> List[str]:
    """power.md: why the design's cabling (pdu_check of it) does or does not hold."""
    derating = inputs["derating"]
    worst = sorted(check["circuits"], key=lambda c: c["utilisation"], reverse=True)[0]
    worst_nodes = _unique(p.split("/")[0] for p in worst["psus"])
    overloaded = [v for v in check["violations"] if v["type"] == "overload"]
    others = [v["message"] for v in check["violations"] if v["type"] != "overload"]
    feed_breakers = _unique("%s/%s" % (v["pdu"], v["circuit"]) for v in overloaded if v["scenario"].startswith("feed "))
    rows = [v for v in overloaded if (v["pdu"], v["circuit"]) == (worst["pdu"], worst["circuit"])]
    out = ["As built: %s, cabled as `gpufleet_plan_power.as_built.breakers` says.\n" % inputs["as_built"]["pdu_model"],
           "`pdu_check` finds **%s violation(s)**" % check["summary"]["violations"]]
    if overloaded:
        out.append(", %d of them overloads on %d of\n%s breakers" % (
            len(overloaded), len(_unique("%s/%s" % (v["pdu"], v["circuit"]) for v in overloaded)), check["summary"]["circuits_available"]))
    out.append(".\n")
    if others:
        out.append("Other violations: %s.\n" % "; ".join(others))
    out.append("\nBusiest breaker: `%s/%s` (%s A x %s = %.2f A\nat %s V), holding %d PSUs of %d node(s): %s.\n\n" % (
        worst["pdu"], worst["circuit"], worst["rating_a"], derating, worst["limit_a"], worst["voltage"], len(worst["psus"]),
        len(worst_nodes), ", ".join(worst["psus"])))
    if rows:
        out.append("| scenario | watts | amps | %% of the %.2f A limit |\n| --- | --- | --- | --- |\n" % worst["limit_a"])
        out.extend("| %s | %s | %.2f | %s %% |\n" % (r["scenario"], r["watts"], r["amps"], _pct(r["utilisation"])) for r in rows)
        out.append("\n")
    out.append("* Normal operation: %s W = %.2f A,\n  %s %% of the continuous limit%s.\n" % (
        worst["normal_w"], worst["normal_a"], _pct(worst["normal_a"] / worst["limit_a"]),
        ", over it before anything fails" if worst["normal_a"] > worst["limit_a"] else ""))
    out.append('* Worst case, "%s": %s W\n  (%.2g x a %s W node)\n  = %.2f A, %s %% of the limit.\n' % (
        worst["worst_scenario"], worst["worst_w"], worst["worst_w"] / node_w, node_w, worst["worst_a"], _pct(worst["utilisation"])))
    if worst["utilisation"] > 1:
        out.append("  The breaker trips and takes %s down with it.\n" % " and ".join(worst_nodes))
    if feed_breakers:
        out.append("* %d breaker(s) overload when a feed is lost, so nodes go down on exactly the failure the\n"
                   "  feeds are there to survive.\n" % len(feed_breakers))
    if rows:
        out.append("* pdu_check's fix for the first row: %s.\n" % rows[0]["fix"])
    if inputs["pdus"] == "planned":
        out.append("* Whether other cabling of the same PDUs would do: `-e plan_pdus=as_built` lays the racks out on them; when that\n"
                   "  is impossible the play fails with the breakers missing (for the reference design: docs/plan.md).\n")
    return out


def _power_budget_md(inputs: Mapping[str, Any], layout: Mapping[str, Any]) -> List[str]:
    """power.md: each rack's draw at full power against its budget, the way out taken, warnings, PSU loads."""
    budget = inputs["power_budget"]
    out = ["\n## Rack budgets\n\n`gpufleet.cluster.rack_power_fit` at full power (every node at its `max_power_w`, every load at its\n"
           "maximum), `gpufleet_power_cap: %s`.\n\n" % budget["choice"],
           "| rack | draw at full power | budget | fits | over | nodes that fit at full power | GPU cap that would fit |\n"
           "| --- | --- | --- | --- | --- | --- | --- |\n"]
    counts = {r["name"]: r["count"] for r in inputs["racks"]}
    out.extend("| %s | %s W | %s W | %s | %s W | %s of %s | %s |\n" % (
        f["name"], f["draw_w"], f["budget_w"], "yes" if f["fits"] else "**no**", f["over_w"], f["max_nodes"], counts.get(f["name"]),
        "%s W per GPU" % f["gpu_power_cap_w"] if f["gpu_power_cap_w"] is not None else "none needed" if f["fits"] else
        "none (below the GPUs' lowest limit)") for f in budget["fit"])
    cap = budget["gpu_power_cap_w"]
    if cap is not None:
        gpu_w = budget.get("gpu_power_w")
        out.append("\n**GPU power cap applied: %s W per GPU.** The rack does not fit at full power, and the inventory chose\n"
                   "`gpufleet_power_cap: rack_budget`: %s\nThe layout below is planned on the capped nodes (`max_power_w` less "
                   "each GPU's watts above the cap).\n" % (cap, cap_cost(cap, gpu_w) if gpu_w else "see docs/power.md"))
    elif all(f["fits"] for f in budget["fit"]):
        out.append("\nEvery rack fits its budget at full power: no GPU power cap.\n")
    for warning in budget["warnings"]:
        out.append("\n**Warning:** %s.\n" % warning)
    rows = psu_rows(layout.get("psu_loads") or [])
    if rows:
        out.append("\n### PSU load in the worst scenario\n\n| node type | nodes | PSUs left | watts per PSU | scenario | PSU rating | % of rating |\n"
                   "| --- | --- | --- | --- | --- | --- | --- |\n")
        out.extend("| %s | %s | %s | %s W | %s | %s | %s |\n" % (
            r["what"], r["nodes"], r["live_psus"], r["worst_w"], r["worst_scenario"],
            "%g W" % r["rating_w"] if r["rating_w"] is not None else "not given",
            _pct(r["worst_w"] / r["rating_w"]) + " %" if r["rating_w"] else "n/a") for r in rows)
    return out


def render_power_md(inputs: Mapping[str, Any], layout: Mapping[str, Any], check: Optional[Mapping[str, Any]]) -> str:
    """power.md: rack budgets, the as-built check, the computed layout, per-PDU currents, breakers, cabling per node."""
    derating, model, nodes = inputs["derating"], inputs["pdu_model"], inputs["layout_input"]["nodes"]
    node_w, pf = nodes[0]["max_power_w"], nodes[0].get("power_factor", DEFAULT_POWER_FACTOR)
    out = ["# Power plan: %s\n\n" % inputs["name"],
           "Written by `playbooks/plan.yml` with `gpufleet.cluster.pdu_layout` and `gpufleet.cluster.pdu_check`\n"
           "(formulas in docs/power.md). A breaker may carry `rating x %s` continuously; a node's\n"
           "load is shared by its live PSUs; every layout is checked in normal operation, after the loss of each\n"
           "feed and after the loss of each PSU. Numbers: `power.json`.\n\n" % derating,
           "| rack | nodes | worst-case draw | budget |\n| --- | --- | --- | --- |\n"]
    out.extend("| %s | `%s` (%s)%s | %s W | %s W (%.1f %% used) |\n" % (
        r["name"], r["nodes"], r["count"], " and %s" % ", ".join(r["loads"]) if r.get("loads") else "", r["max_power_w"], r["budget_w"],
        100 * r["max_power_w"] / r["budget_w"]) for r in inputs["racks"])
    out.extend(_power_budget_md(inputs, layout))
    out.append("\n## The design's as-built breaker plan\n\n")
    if check is not None:
        out.extend(_power_as_built(inputs, check, node_w))
    else:
        out.append("The inventory describes no as-built cabling (`gpufleet_plan_power.as_built`), so there is nothing to check.\n")
    used = [c for c in layout["circuits"] if c["used"]]
    top = sorted(layout["circuits"], key=lambda c: c["utilisation"], reverse=True)[0]
    out.append("\n## What the computed layout does instead\n\nPDUs (%s): %s, one per rack and feed.\n" % (
        inputs["pdus"], model["model"] if model["model"] is not None else "as described in the inventory"))
    for rack in layout["racks"]:
        feeds = list(rack["circuits_used"].items())
        out.append("Rack %s uses%s\n" % (rack["rack"], "".join(" %s of %s breakers on feed %s%s" % (
            count, rack["circuits_available"][feed], feed, "," if i < len(feeds) - 1 else ".") for i, (feed, count) in enumerate(feeds))))
    doubled = ["%s/%s" % (c["pdu"], c["circuit"]) for c in used if len(_unique(p.split("/")[0] for p in c["psus"])) < len(c["psus"])]
    out.append("No breaker holds more than %s PSUs%s,\nand the layout passes all %s scenarios.\n" % (
        max(len(c["psus"]) for c in used),
        " (two PSUs of one node on %s)" % ", ".join(doubled) if doubled else ", none holds two of one node", layout["summary"]["scenarios"]))
    out.append('The busiest breaker, `%s/%s` at %s V, carries\n%s W = %.2f A normally and\n%s W = %.2f A after "%s":\n'
               "%s %% of its %.2f A limit,\n%.1f W to spare at PF %s.\n" % (
                   top["pdu"], top["circuit"], top["voltage"], top["normal_w"], top["normal_a"], top["worst_w"], top["worst_a"],
                   top["worst_scenario"], _pct(top["utilisation"]), top["limit_a"], top["limit_a"] * top["voltage"] * pf - top["worst_w"], pf))
    if check is not None:
        worst = sorted(check["circuits"], key=lambda c: c["utilisation"], reverse=True)[0]
        out.append("After a feed loss the design's breaker carries %s W\n(%.2g x a %s W node),\nthe layout's busiest %s W (%.2g x).\n" % (
            worst["worst_w"], worst["worst_w"] / node_w, node_w, top["worst_w"], top["worst_w"] / node_w))
    limit = model["input_rating_a"] * derating if model["input_rating_a"] is not None else "n/a"
    out.append("\n| PDU | normal line currents (A) | neutral (A) | imbalance | worst line (A) | worst line scenario | input limit (A) |\n"
               "| --- | --- | --- | --- | --- | --- | --- |\n")
    out.extend("| %s |\n" % " | ".join(str(v) for v in (
        p["pdu"], " / ".join(str(a) for a in p["line_currents_a"].values()), p["neutral_a"], p["imbalance"], p["worst_line_a"],
        p["worst_line_scenario"], limit)) for p in layout["pdus"])
    out.append("\n### Breakers in use\n\n| PDU | breaker | phase | V | PSUs | normal A | worst A | worst scenario | % of limit |\n"
               "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
    out.extend("| %s |\n" % " | ".join(str(v) for v in (
        c["pdu"], c["circuit"], c["phase"], c["voltage"], ", ".join(c["psus"]), c["normal_a"], c["worst_a"], c["worst_scenario"],
        _pct(c["utilisation"]))) for c in used)
    psu_max = max(n["psus"] for n in nodes)
    out.append("\n### Cabling, per node\n\n| node | rack | %s |\n| --- | --- |%s\n" % (
        " | ".join("PSU %d" % i for i in range(1, psu_max + 1)), " --- |" * psu_max))
    for node in nodes:
        cords = ["%s/%s" % (p["pdu"], p["circuit"]) for p in layout["placements"] if p["node"] == node["name"]]
        out.append("| %s | %s | %s |\n" % (node["name"], node["rack"], " | ".join(cords)))
    return "".join(out)


def render_lustre_md(lustre: Mapping[str, Any], plans: Sequence[Mapping[str, Any]]) -> str:
    """lustre.md: summary table, the commands to run, then both plans of every directory with their reasoning."""
    out = ["# Lustre plan: %s at %s\n\n" % (lustre["fsname"], lustre["mountpoint"]),
           "%s OSTs x %s GB/s. Written by `playbooks/plan.yml` with\n"
           "`gpufleet.cluster.lustre_stripe_plan` and `gpufleet.cluster.lustre_pfl_layout` (docs/lustre-striping.md).\n"
           "Each directory gets both plans; `apply` (from the inventory) says which one to set on the directory.\n\n"
           % (lustre["osts"], lustre["ost_bw_gbs"]),
           "| directory | pattern | clients x GB/s | stripe plan | aggregate GB/s | PFL stripes at p50 / p90 / max | apply |\n"
           "| --- | --- | --- | --- | --- | --- | --- |\n"]
    for d in plans:
        s, at = d["stripe_plan"], d["pfl"]["stripes_at"]
        out.append("| `%s` | %s | %s x %s | %s x %s | %s (%s) | %s / %s / %s | %s |\n" % (
            d["path"], d["pattern"], d["clients"], d["client_bw_gbs"], s["stripe_count"], s["stripe_size_lfs"], s["aggregate_gbs"],
            s["limiting_factor"].replace("_", " "), at["p50"], at["p90"], at["max"], d["apply"]))
    out.append("\nTo apply (as root on a client, on an empty directory):\n\n```sh\n")
    out.extend("%s\n" % d["command"] for d in plans)
    out.append("```\n")
    for d in plans:
        s, pfl, pct = d["stripe_plan"], d["pfl"], d["pfl"]["percentiles"]
        args = pfl["lfs_setstripe_args"]  # -E end -c count -S size per component
        out.append("\n## %s\n\n%s%s\n" % (d["path"], d["description"], "." if d["description"] else ""))
        out.append("Pattern %s, %s clients at %s GB/s each; file sizes p50 %s,\np90 %s, max %s bytes. Applied: **%s**.\n\n" % (
            d["pattern"], d["clients"], d["client_bw_gbs"], pct["p50"], pct["p90"], pct["max"], d["apply"]))
        out.append("Stripe plan (`lustre_stripe_plan`): %s stripe(s) of %s.\n\n" % (s["stripe_count"], s["stripe_size_lfs"]))
        out.extend("* %s\n" % line for line in s["reasoning"])
        out.append("\n```sh\n%s\n```\n\nProgressive file layout (`lustre_pfl_layout`):\n\n" % s["command"])
        out.append("| component | extent end | stripes | stripe size |\n| --- | --- | --- | --- |\n")
        out.extend("| %d | %s | %s | %s |\n" % (i + 1, args[6 * i + 1], c["stripe_count"], args[6 * i + 5])
                   for i, c in enumerate(pfl["components"]))
        out.append("\n")
        out.extend("* %s\n" % line for line in pfl["reasoning"])
        out.append("\n```sh\n%s\n```\n" % pfl["command"])
    return "".join(out)


def render_hostlists_md(name: str, lists: Sequence[Mapping[str, Any]]) -> str:
    """hostlists.md: every group's hostlist, then its expansion."""
    out = ["# Hostlists: %s\n\n" % name,
           "Slurm hostlist of every inventory group (`gpufleet.cluster.hostlist_compress`: sorted, deduplicated, ranges\n"
           "merged, as Slurm writes them). Empty groups have no hostlist.\n\n| group | hosts | hostlist |\n| --- | --- | --- |\n"]
    out.extend("| `%s` | %s | %s |\n" % (g["group"], g["count"], "`%s`" % g["hostlist"] if g["hostlist"] else "(empty)") for g in lists)
    out.append("\n## Expansions\n\n")
    out.extend("* `%s`: %s\n" % (g["group"], ", ".join(g["hosts"]) if g["hosts"] else "(empty)") for g in lists)
    return "".join(out)


def _row_end(items: Sequence[str]) -> str:
    """' a, b, c |' (or '' for no items): the README's inline lists, closing the table row."""
    return "".join(" %s%s" % (item, "," if i < len(items) - 1 else " |") for i, item in enumerate(items))


def render_readme(name: str, layout: Mapping[str, Any], check: Optional[Mapping[str, Any]], lustre: Sequence[Mapping[str, Any]],
                  nccl: Sequence[Mapping[str, Any]], lists: Sequence[Mapping[str, Any]], budget: Optional[Mapping[str, Any]] = None) -> str:
    """README.md: the index, with the headline numbers of every file."""
    summary = layout["summary"]
    power = ""
    if budget is not None:
        power = "Racks at full power: %s. " % "; ".join("%s %s W of %s W%s" % (
            f["name"], f["draw_w"], f["budget_w"], "" if f["fits"] else " (does not fit)") for f in budget["fit"])
        if budget["gpu_power_cap_w"] is not None:
            power += "GPU power cap %s W per GPU (gpufleet_power_cap: rack_budget). " % budget["gpu_power_cap_w"]
        power += "".join("Warning: %s. " % w for w in budget["warnings"])
    power += "PDU breaker layout: %s breakers, worst %s %% of a limit (%s)." % (
        summary["circuits_used"], _pct(summary["worst_utilisation"]), summary["worst_circuit"])
    if check is not None:
        power += " The design's as-built plan: %s" % ("passes" if check["ok"] else "%s violations, worst %s %%" % (
            check["summary"]["violations"], _pct(check["summary"]["worst_utilisation"])))
    out = ["# Plan: %s\n\n" % name,
           "Written by `ansible-playbook playbooks/plan.yml -i <inventory>` from the inventory alone (docs/plan.md).\n"
           "Re-running it on an unchanged inventory changes nothing.\n\n| file | what |\n| --- | --- |\n",
           "| [power.md](power.md), [power.json](power.json) | %s |\n" % power,
           "| [lustre.md](lustre.md), [lustre.json](lustre.json) |%s\n" % _row_end(["`%s`: %s" % (d["path"], d["apply"]) for d in lustre])]
    out.extend("| [%s](%s) | NCCL_TOPO_FILE for `%s` (%s): %s GPUs, %s RDMA ports |\n" % (
        t["file"], t["file"], t["hosts"], t["group"], t["gpus"], t["nets"]) for t in nccl)
    out.append("| [hostlists.md](hostlists.md), [hostlists.json](hostlists.json) |%s\n" % _row_end(
        ["`%s` = `%s`" % (g["group"], g["hostlist"]) for g in lists if g["hostlist"]]))
    return "".join(out)
