# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Rack power budgets (rack_power_fit): does a rack's worst-case draw fit its budget, and if not, the way out.

Per rack, with N nodes of one type (node maximum W, G GPUs of P watts each, lowest settable GPU limit P_min) and
loads L (switches, head node, storage: their maximum input power):

* ``draw_w = N x W + L``; it fits when ``draw_w <= budget_w``; ``over_w = draw_w - budget_w`` when it does not.
* ``max_nodes = min(N, floor((budget_w - L) / W))`` (0 when the loads alone exceed the budget).
* ``gpu_power_cap_w = floor((budget_w - L - sum(W - G x P)) / sum(G))``: with every GPU limited to the cap a node
  draws at most ``W - G x (P - cap)``. None when the rack fits uncapped, when it has no GPUs, and when the cap would
  be below P_min (then only fewer nodes per rack will do).

Arithmetic is exact (fractions of the given numbers), so "at the cap the rack fits, one watt more it does not" holds
to the watt.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Dict, List, Mapping, Optional, Sequence

from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import (
    list_of, mapping_of, must_be, unknown_keys)
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist import compress_hostlist

_TOP_KEYS = ("racks",)
_RACK_KEYS = ("name", "budget_w", "nodes", "loads")
_NODE_KEYS = ("name", "max_power_w", "gpus", "gpu_power_w", "gpu_min_power_w")
_LOAD_KEYS = ("name", "max_power_w")
_MAX_W = 1e9  # a gigawatt: anything above is a typo, not a rack


class PowerFitError(ValueError):
    """Invalid rack_power_fit input; the message names the field, the value and what is allowed."""


def _keys(item: Any, allowed: Sequence[str], where: str) -> Mapping[str, Any]:
    item = mapping_of(where, item, PowerFitError)
    unknown_keys(where, item, allowed, PowerFitError)
    return item


def _watts(item: Mapping[str, Any], key: str, where: str, minimum: float = 0.0, exclusive: bool = True) -> Fraction:
    if key not in item or item[key] is None:
        raise PowerFitError("%s.%s is required (watts, a number > %g)" % (where, key, minimum))
    value = item[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise must_be("%s.%s" % (where, key), value, "a finite number of watts", PowerFitError)
    if (value <= minimum if exclusive else value < minimum) or value > _MAX_W:
        raise PowerFitError("%s.%s=%r is out of range; allowed: %s %g and <= %g W"
                            % (where, key, value, ">" if exclusive else ">=", minimum, _MAX_W))
    return Fraction(value)


def _count(item: Mapping[str, Any], key: str, where: str) -> int:
    value = item.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 1024:
        raise must_be("%s.%s" % (where, key), value, "a whole number of GPUs from 0 to 1024", PowerFitError)
    return int(value)


def _list(item: Mapping[str, Any], key: str, where: str) -> List[Any]:
    value = item.get(key, [])
    if value is None:
        return []
    return list(list_of("%s.%s" % (where, key), value, PowerFitError))


def _number(value: Fraction) -> Any:
    """An int when whole, else a float rounded to 3 decimals (watts, as the other plan outputs print them)."""
    return int(value) if value.denominator == 1 else round(float(value), 3)


def _node(raw: Any, where: str) -> Dict[str, Any]:
    raw = _keys(raw, _NODE_KEYS, where)
    node = {"name": input_rules.free_text(where + ".name", input_rules.require(where, raw, "name", PowerFitError), PowerFitError),
            "max_power_w": _watts(raw, "max_power_w", where), "gpus": _count(raw, "gpus", where)}
    node["gpu_power_w"] = _watts(raw, "gpu_power_w", where) if node["gpus"] else Fraction(raw.get("gpu_power_w") or 0)
    node["gpu_min_power_w"] = _watts(raw, "gpu_min_power_w", where, exclusive=False) if node["gpus"] else Fraction(0)
    if node["gpus"] and node["gpu_min_power_w"] > node["gpu_power_w"]:
        raise PowerFitError("%s: gpu_min_power_w %s W is above gpu_power_w %s W; the lowest limit a GPU accepts cannot "
                            "exceed its maximum" % (where, _number(node["gpu_min_power_w"]), _number(node["gpu_power_w"])))
    if node["gpus"] * node["gpu_power_w"] > node["max_power_w"]:
        raise PowerFitError("%s: %d GPUs x %s W = %s W is more than the node's max_power_w %s W; max_power_w is the whole "
                            "node's maximum input power" % (
                                where, node["gpus"], _number(node["gpu_power_w"]),
                                _number(node["gpus"] * node["gpu_power_w"]), _number(node["max_power_w"])))
    return node


def _rack(raw: Any, index: int) -> Dict[str, Any]:
    where = "rack_power_fit racks[%d]" % index
    raw = _keys(raw, _RACK_KEYS, where)
    name = input_rules.free_text(where + ".name", input_rules.require(where, raw, "name", PowerFitError), PowerFitError)
    where = "rack_power_fit rack %r" % name
    nodes = [_node(n, "%s nodes[%d]" % (where, i)) for i, n in enumerate(_list(raw, "nodes", where))]
    loads = []
    for i, load in enumerate(_list(raw, "loads", where)):
        lwhere = "%s loads[%d]" % (where, i)
        load = _keys(load, _LOAD_KEYS, lwhere)
        input_rules.free_text(lwhere + ".name", input_rules.require(lwhere, load, "name", PowerFitError), PowerFitError)
        loads.append(_watts(load, "max_power_w", lwhere))
    kinds = {(n["max_power_w"], n["gpus"], n["gpu_power_w"], n["gpu_min_power_w"]) for n in nodes}
    if len(kinds) > 1:
        raise PowerFitError("%s: its nodes are of %d different kinds (max_power_w, gpus, gpu_power_w, gpu_min_power_w differ); "
                            "all nodes of a rack must be of one node type" % (where, len(kinds)))
    return {"name": name, "budget_w": _watts(raw, "budget_w", where), "nodes": nodes, "loads": loads}


def capped_node_w(node: Mapping[str, Any], cap: Any) -> Fraction:
    """A node's maximum with every GPU limited to `cap` watts (never above its uncapped maximum)."""
    cap = min(Fraction(cap), node["gpu_power_w"])
    return node["max_power_w"] - node["gpus"] * (node["gpu_power_w"] - cap)


def fit_rack(rack: Mapping[str, Any]) -> Dict[str, Any]:
    """rack_power_fit of one parsed rack (see the module docstring for the formulas)."""
    nodes, budget, loads = rack["nodes"], rack["budget_w"], sum(rack["loads"], Fraction(0))
    draw = loads + sum((n["max_power_w"] for n in nodes), Fraction(0))
    fits = draw <= budget
    room = budget - loads
    if not nodes or room < 0:
        max_nodes = 0
    else:
        max_nodes = min(len(nodes), int(math.floor(room / nodes[0]["max_power_w"])))
    cap = None
    gpus = sum(n["gpus"] for n in nodes)
    if not fits and gpus:
        rest = sum((n["max_power_w"] - n["gpus"] * n["gpu_power_w"] for n in nodes), Fraction(0))
        value = int(math.floor((room - rest) / gpus))
        if value >= nodes[0]["gpu_min_power_w"]:
            cap = value
    return {"name": rack["name"], "draw_w": _number(draw), "budget_w": _number(budget), "fits": fits,
            "over_w": _number(draw - budget) if not fits else 0, "max_nodes": max_nodes, "gpu_power_cap_w": cap}


def parse_fit_input(data: Any) -> List[Dict[str, Any]]:
    data = _keys(data, _TOP_KEYS, "rack_power_fit input")
    racks = _list(data, "racks", "rack_power_fit input")
    if not racks:
        raise must_be("rack_power_fit input.racks", data.get("racks"), "a non-empty list of racks", PowerFitError)
    parsed = [_rack(r, i) for i, r in enumerate(racks)]
    seen = set()
    for rack in parsed:
        if rack["name"] in seen:
            raise PowerFitError("rack_power_fit: rack %r is listed twice; rack names must be unique" % rack["name"])
        seen.add(rack["name"])
    return parsed


def rack_power_fit(data: Any) -> List[Dict[str, Any]]:
    """Per rack {name, draw_w, budget_w, fits, over_w, max_nodes, gpu_power_cap_w}."""
    return [fit_rack(rack) for rack in parse_fit_input(data)]


def way_out(fit: Mapping[str, Any], nodes: int, cap_chosen: bool) -> Optional[str]:
    """None when the rack fits (or the chosen cap makes it fit); else the refusal naming both ways out."""
    if fit["fits"] or (cap_chosen and fit["gpu_power_cap_w"] is not None):
        return None
    per = fit["max_nodes"]
    racks = "%d racks of this budget (%d nodes each)" % (math.ceil(nodes / per), per) if per else \
        "no number of racks of this budget (its loads leave no room for one node)"
    cap = ("gpufleet_power_cap: rack_budget, which limits every GPU of the rack to %s W" % fit["gpu_power_cap_w"]
           if fit["gpu_power_cap_w"] is not None else
           "no GPU power cap (it would fall below the GPUs' lowest settable limit)")
    return ("rack %s draws up to %s W against its budget of %s W (%s W over); it holds %d of its %d nodes at full power. "
            "Ways out: more racks (%s; list them in gpufleet_power.racks and gpufleet_plan_power.racks), or %s%s"
            % (fit["name"], fit["draw_w"], fit["budget_w"], fit["over_w"], per, nodes, racks, cap,
               " (chosen, but unavailable)" if cap_chosen else ""))


def cap_cost(cap: Any, gpu_w: Any) -> str:
    """The performance cost of a GPU power cap, stated plainly (power.md, the plan report, docs/power.md)."""
    return ("every GPU is limited to %s W (%s %% of its %s W), by `nvidia-smi -pl` through gpu_tuning's `power_limit_w`. It is a "
            "power limit, not a clock setting: a GPU whose work draws less than %s W runs at full speed; work that would draw "
            "more (dense training at full tensor-core load does) is slowed by the GPU lowering its clocks until it draws %s W, "
            "so expect lower training throughput. A rack with room for every node at full power has no such cost."
            % (cap, "%.1f" % (100.0 * cap / gpu_w), gpu_w, cap, cap))


def psu_rows(psu_loads: Sequence[Mapping[str, Any]]) -> List[Dict[str, Any]]:
    """One row per node type (a load is its own row): the worst PSU load of its nodes."""
    groups: Dict[str, Dict[str, Any]] = {}
    for row in psu_loads:
        what = row["node"] if row.get("node_type") in ("load", "", None) else row["node_type"]
        entry = groups.setdefault(what, dict(row, what=what, hosts=[]))
        entry["hosts"].append(row["node"])
        if row["worst_w"] > entry["worst_w"]:
            entry.update((k, row[k]) for k in ("worst_w", "worst_scenario", "live_psus"))
    for entry in groups.values():
        entry["nodes"] = compress_hostlist(entry["hosts"])
    return list(groups.values())
