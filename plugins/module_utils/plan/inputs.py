# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Stage 1 of playbooks/plan.yml: the inventory's planning variables read, checked and assembled (docs/plan.md).

:func:`plan_inputs` reads the inventory (the ``gpufleet_plan_*`` variables, ``gpufleet_lustre``, ``gpufleet_power``,
the groups and each node type's ``gpufleet_hardware``) and assembles the rack report, the rack placement check, the
rack budgets (``rack_power_fit``, with the GPU power cap when the inventory chose it), the ``pdu_layout`` input and
the as-built ``pdu_check`` input and assignment. The power checks of the playbook run on those; then
:mod:`.build` (stage 2) plans the rest and writes every file.

Also here: the helpers both stages use to read the inventory (:func:`need`, :func:`as_list`, :func:`expand`,
:func:`compress`, :func:`unique`) and :func:`plain`, which the filters apply to what they hand in and get back.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence

from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import list_of, mapping_of
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist import (
    HostlistError,
    compress_hostlist,
    expand_hostlist,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.power.fit import (
    PowerFitError, capped_node_w, fit_rack, parse_fit_input, way_out)

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


def need(mapping: Any, key: str, where: str) -> Any:
    """``mapping[key]``, refused when ``mapping`` is no mapping or the key is missing (or null)."""
    mapping_of(where, mapping, ClusterPlanError)
    if mapping.get(key) is None:
        raise ClusterPlanError("%s.%s is missing; set it in the inventory (docs/plan.md, 'What it reads')"
                               % (where, key))
    return mapping[key]


def as_list(value: Any, where: str) -> List[Any]:
    """``value`` (a list or tuple) as a list, refused otherwise."""
    return list(list_of(where, value, ClusterPlanError))


def expand(expr: Any, where: str) -> List[str]:
    """Hostlist expansion in expression order, duplicates kept (what hostlist_expand returns)."""
    try:
        return expand_hostlist(expr)
    except (HostlistError, TypeError) as exc:
        raise ClusterPlanError("%s: %s" % (where, exc))


def compress(names: Sequence[str]) -> str:
    """The Slurm hostlist of ``names`` ('' for none)."""
    return compress_hostlist(list(names)) if names else ""


def unique(items: Iterable[str]) -> List[str]:
    """First occurrences, compared case-insensitively: Ansible's `unique` filter, which the reports used."""
    seen, out = set(), []
    for item in items:
        if item.lower() not in seen:
            seen.add(item.lower())
            out.append(item)
    return out


def group_hosts(groups: Mapping[str, Sequence[str]], name: str, where: str) -> List[str]:
    """The hosts of inventory group ``name``, refused when the inventory has no such group."""
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


# ---------------------------------------------------------------- stage 1: inputs of the power checks


def rack_placement(typed: Sequence[str], racked: Sequence[str]) -> Dict[str, List[str]]:
    """The hosts of the node types' groups (`typed`) against those of the racks' hostlists (`racked`): every list
    is empty when each GPU node sits in exactly one rack and every rack node is of exactly one node type."""
    typed_count, racked_count = Counter(typed), Counter(racked)
    return {
        "not_in_a_rack": unique(h for h in typed if h not in racked_count),
        "in_no_node_type": unique(h for h in racked if h not in typed_count),
        "in_two_racks": unique(h for h in racked if racked_count[h] > 1),
        "in_two_node_types": unique(h for h in typed if typed_count[h] > 1),
    }


def power_nodes(node_types: Sequence[Mapping[str, Any]], groups: Mapping[str, Sequence[str]],
                rack_of: Mapping[str, str]) -> List[Dict[str, Any]]:
    """One pdu_layout node per host of each node type: name, rack ('' when in none) and the type's power."""
    nodes = []
    for index, node_type in enumerate(node_types):
        where = "gpufleet_plan_node_types[%d]" % index
        power = need(node_type, "power", where)
        for host in group_hosts(groups, need(node_type, "group", where), where):
            node = {"name": host, "rack": rack_of.get(host, "")}
            node.update((k, v) for k, v in power.items() if k in LAYOUT_KEYS)
            node["node_type"] = str(node_type.get("name"))
            nodes.append(node)
    return nodes


def rack_loads(racks: Sequence[Mapping[str, Any]]) -> List[Dict[str, Any]]:
    """gpufleet_plan_power.racks[].loads (switches, head node, storage) as pdu_layout nodes of their rack."""
    loads = []
    for index, rack in enumerate(racks):
        for number, load in enumerate(as_list(rack.get("loads") or [], "gpufleet_plan_power.racks[%d].loads" % index)):
            where = "gpufleet_plan_power.racks[%d].loads[%d]" % (index, number)
            input_rules.mapping(where, load, ClusterPlanError,
                                required=("name", "max_power_w", "psus", "psus_required"), optional=LOAD_KEYS)
            input_rules.check("hostname", where + ".name", load["name"], ClusterPlanError)
            loads.append(dict(load, rack=rack["name"], node_type="load"))
    return loads


def power_pdus(racks: Sequence[Mapping[str, Any]], feeds: Sequence[str],
               spec: Mapping[str, Any]) -> List[Dict[str, Any]]:
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
        for host in expand(need(breaker, "nodes", where), where + ".nodes"):
            for psu in as_list(need(breaker, "psus", where), where + ".psus"):
                rows.append({"node": host, "psu": psu, "pdu": need(breaker, "pdu", where),
                             "circuit": need(breaker, "circuit", where)})
    return rows


def rack_budget(racks: Sequence[Mapping[str, Any]], name: str) -> Any:
    """budget_w of rack `name` in gpufleet_power.racks, None when it is not there."""
    return next((b.get("budget_w") for b in racks if isinstance(b, Mapping) and b.get("name") == name), None)


def rack_report(racks: Sequence[Mapping[str, Any]], rack_hosts: Sequence[Sequence[str]],
                nodes: Sequence[Mapping[str, Any]], budgets: Sequence[Mapping[str, Any]]) -> List[Dict[str, Any]]:
    """Per rack: its hostlist, node count, the loads beside the nodes, the summed worst-case draw of nodes and loads as
    planned (`max_power_w`, after any GPU cap) and budget_w (None when the rack is not in gpufleet_power.racks)."""
    report = []
    for rack, hosts in zip(racks, rack_hosts):
        members = set(hosts)
        loads = [n for n in nodes if n.get("node_type") == "load" and n["rack"] == rack["name"]]
        loads_w = sum(n["max_power_w"] for n in loads)
        report.append({"name": rack["name"], "nodes": compress(hosts), "count": len(hosts),
                       "loads": [n["name"] for n in loads], "loads_w": loads_w,
                       "max_power_w": sum(n["max_power_w"] for n in nodes if n["name"] in members) + loads_w,
                       "budget_w": rack_budget(budgets, rack["name"])})
    return report


def _gpu_figures(node_type: Mapping[str, Any], hardware: Mapping[str, Any], where: str) -> Dict[str, Any]:
    """GPUs per node and watts per GPU (components.gpus, else gpufleet_hardware gpus and gpu_tdp_w), and the GPUs'
    lowest settable limit (power.gpu_min_power_w, else none: no cap below the GPUs' full power)."""
    power = node_type["power"]
    gpus = (power.get("components") or {}).get("gpus") if isinstance(power.get("components"), Mapping) else None
    count = gpus.get("count") if isinstance(gpus, Mapping) else hardware.get("gpus")
    watts = gpus.get("power_w") if isinstance(gpus, Mapping) else hardware.get("gpu_tdp_w")
    count = input_rules.integer(where + ".components.gpus.count (or gpufleet_hardware.gpus)", count or 0,
                                ClusterPlanError, minimum=0, maximum=1024)
    if not count or watts is None:  # GPU watts unknown: the rack can be checked, but no cap computed
        return {"gpus": 0, "gpu_power_w": 0, "gpu_min_power_w": 0}
    watts = input_rules.number(where + ".components.gpus.power_w (or gpufleet_hardware.gpu_tdp_w)", watts,
                               ClusterPlanError, minimum=0, exclusive_minimum=True, maximum=100000)
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
                watts = input_rules.number(where + ".power.components.other_w", part, ClusterPlanError,
                                           minimum=0, maximum=1e6)
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
            raise ClusterPlanError("%s.power.max_power_w %g W is below the sum of its components, %g W (%s); "
                                   "max_power_w is the whole node's maximum input power: use the nameplate or the "
                                   "vendor's maximum"
                                   % (where, top, total, " + ".join(parts)))
    gpus_w = figures["gpus"] * figures["gpu_power_w"]
    if figures["gpus"] and abs(top - gpus_w) < 0.5:
        return ["node type %s: max_power_w %g W is its %d GPUs x %g W alone; a whole node also feeds its CPUs, "
                "memory, NICs, NVSwitches, drives and fans (an 8-GPU H100 SXM5 server: up to 10.2 kW), so the racks' "
                "draw is understated"
                % (node_type["name"], top, figures["gpus"], figures["gpu_power_w"])]
    return []


def power_budget(node_types: Sequence[Mapping[str, Any]], figures: Sequence[Mapping[str, Any]],
                 nodes: List[Dict[str, Any]], racks: Sequence[Mapping[str, Any]],
                 budgets: Sequence[Mapping[str, Any]], choice: str, pinned: Any) -> Dict[str, Any]:
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
                          "loads": [{"name": n["name"], "max_power_w": n["max_power_w"]}
                                    for n in members if n["node_type"] == "load"]})
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
        errors.append("gpufleet_gpu_power_cap_w is %r in the inventory, but the plan computes %s; set it to %s (it is "
                      "the power limit gpu_tuning applies and validate.yml checks)"
                      % (pinned, "no cap" if cap is None else "%d W" % cap, "null" if cap is None else cap))
    if cap is not None:
        for node in nodes:
            figure = kinds.get(node["node_type"])
            if figure and figure["gpus"]:
                full = dict(figure, max_power_w=node["max_power_w"])
                capped = float(capped_node_w(_fractions(full), cap))
                node["max_power_w"] = int(capped) if capped.is_integer() else capped
    gpu_w = max((f["gpu_power_w"] for f in figures), default=0) or None
    return {"choice": choice, "fit": fit, "gpu_power_cap_w": cap, "gpu_power_w": gpu_w, "errors": errors}


def _fractions(node: Mapping[str, Any]) -> Dict[str, Any]:
    return {"max_power_w": Fraction(node["max_power_w"]), "gpus": node["gpus"],
            "gpu_power_w": Fraction(node["gpu_power_w"])}


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
    node_types = as_list(need(inventory, "gpufleet_plan_node_types", "inventory"), "gpufleet_plan_node_types")
    hardware = hardware or {}
    for index, node_type in enumerate(node_types):
        where = "gpufleet_plan_node_types[%d]" % index
        for key in ("name", "group"):
            need(node_type, key, where)
        # The name becomes a file name (nccl/<name>.xml): a plain name, never a path.
        input_rules.plain_name(where + ".name", node_type["name"], ClusterPlanError)
        group_hosts(groups, node_type["group"], where)
    power = need(inventory, "gpufleet_plan_power", "inventory")
    racks = as_list(need(power, "racks", "gpufleet_plan_power"), "gpufleet_plan_power.racks")
    for index, rack in enumerate(racks):
        need(rack, "name", "gpufleet_plan_power.racks[%d]" % index)
    listed = [rack.get("nodes") is not None for rack in racks]
    if racks and not any(listed):
        # More racks as the way out: the plan lays the node types' hosts out over the racks it is given.
        typed_hosts = [h for t in node_types for h in groups[t["group"]]]
        rack_hosts = spread_hosts(typed_hosts, len(racks))
    elif not all(listed):
        raise ClusterPlanError("gpufleet_plan_power.racks: give every rack its `nodes` (a hostlist), or none of them "
                               "(then the plan spreads the nodes over the racks); racks without nodes: %s"
                               % ", ".join(str(r["name"]) for r, has in zip(racks, listed) if not has))
    else:
        rack_hosts = [expand(rack["nodes"], "gpufleet_plan_power.racks[%d].nodes" % index)
                      for index, rack in enumerate(racks)]
    feeds = as_list(need(power, "feeds", "gpufleet_plan_power"), "gpufleet_plan_power.feeds")
    as_built = power.get("as_built")
    if pdus not in PDU_KINDS:
        raise ClusterPlanError("pdus must be planned or as_built, got %r" % (pdus,))
    if pdus == "as_built" and as_built is None:
        raise ClusterPlanError("pdus as_built lays the racks out on gpufleet_plan_power.as_built.pdu, which is not "
                               "set; describe the as-built PDUs or use planned")
    if pdus == "planned":
        model = need(power, "pdu", "gpufleet_plan_power")
    else:
        model = need(as_built, "pdu", "gpufleet_plan_power.as_built")
    derating = power.get("derating", DEFAULT_DERATING)
    figures, warnings = [], []
    for index, node_type in enumerate(node_types):
        where = "gpufleet_plan_node_types[%d]" % index
        need(node_type, "power", where)
        figures.append(_gpu_figures(node_type, hardware.get(node_type["group"]) or {}, where))
        warnings.extend(check_node_power(node_type, figures[-1], where))
    choice = inventory.get("gpufleet_power_cap")
    choice = "none" if choice is None else choice
    if choice not in CAP_CHOICES:
        raise ClusterPlanError("gpufleet_power_cap must be one of %s (or unset), got %r"
                               % (", ".join(CAP_CHOICES), choice))
    budgets = as_list((inventory.get("gpufleet_power") or {}).get("racks") or [], "gpufleet_power.racks")
    # A host listed in two racks gets the last one here; the placement check reports it.
    rack_of = {h: r["name"] for r, hosts in zip(racks, rack_hosts) for h in hosts}
    nodes = power_nodes(node_types, groups, rack_of) + rack_loads(racks)
    budget = power_budget(node_types, figures, nodes, racks, budgets, choice, inventory.get("gpufleet_gpu_power_cap_w"))
    budget["warnings"] = warnings
    as_built_inputs = None
    if as_built is not None:
        as_built_pdu = need(as_built, "pdu", "gpufleet_plan_power.as_built")
        as_built_inputs = {
            "pdu_model": as_built_pdu.get("model", ""),
            # The design's cabling covers its GPU nodes only: the loads are not in it.
            "input": {"nodes": [n for n in nodes if n["node_type"] != "load"], "derating": derating,
                      "pdus": power_pdus(racks, feeds, need(as_built_pdu, "spec", "gpufleet_plan_power.as_built.pdu"))},
            "assignment": as_built_assignment(as_list(as_built.get("breakers", []),
                                                      "gpufleet_plan_power.as_built.breakers")),
        }
    lustre = need(inventory, "gpufleet_lustre", "inventory")
    lustre_plan = need(inventory, "gpufleet_plan_lustre", "inventory")
    return {
        "name": inventory.get("gpufleet_cluster_name") or "cluster",
        "pdus": pdus,
        "derating": derating,
        "pdu_model": {"model": model.get("model"), "input_rating_a": model.get("input_rating_a")},
        "placement": rack_placement([h for t in node_types for h in groups[t["group"]]],
                                    [h for hosts in rack_hosts for h in hosts]),
        "racks": rack_report(racks, rack_hosts, nodes, budgets),
        "power_budget": budget,
        "layout_input": {"nodes": nodes, "derating": derating, "imbalance_limit": power.get("imbalance_limit"),
                         "pdus": power_pdus(racks, feeds, need(model, "spec", "the PDU model (%s)" % pdus))},
        "as_built": as_built_inputs,
        "lustre": {"fsname": need(lustre, "fsname", "gpufleet_lustre"),
                   "mountpoint": need(lustre, "mountpoint", "gpufleet_lustre"),
                   "osts": need(lustre, "osts", "gpufleet_lustre"),
                   "ost_bw_gbs": need(lustre_plan, "ost_bw_gbs", "gpufleet_plan_lustre"),
                   "directories": as_list(lustre_plan.get("directories", []), "gpufleet_plan_lustre.directories")},
        "node_types": [{"name": t["name"], "group": t["group"], "hosts": list(groups[t["group"]]),
                        "nccl_layout": t.get("nccl_layout"), "hardware": dict(hardware.get(t["group"]) or {})}
                       for t in node_types],
        "groups": {name: list(hosts) for name, hosts in groups.items()},
    }
