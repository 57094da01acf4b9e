# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Failure-scenario evaluation of a PSU -> circuit assignment (the pdu_check path).

This is deliberately a separate, brute-force-per-scenario implementation: the layout planner
(power/layout) uses closed-form incremental bounds, and its result is verified here.

Scenarios: ``normal``; ``feed X lost`` for every feed (every PSU on a PDU of that feed is
dead); ``PSU node/n lost`` for every plugged-in PSU. In each scenario a node's load is shared
equally by its live PSUs: per-PSU watts = max_power_w / live PSUs. A node with fewer live PSUs
than psus_required is DOWN (a violation); its remaining PSUs are still charged the whole load,
which is the conservative reading (the PSUs keep drawing until the node or a breaker trips).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Dict, List, Mapping, Optional, Tuple

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import must_be
from ansible_collections.gpufleet.cluster.plugins.module_utils.power.model import (
    LINES,
    PowerLayoutError,
    PowerModel,
    TOLERANCE,
    nema_imbalance,
    parse_power_input,
    pdu_line_phasors,
    psu_overload_message,
    within,
)

__all__ = ["PowerLayoutError", "check_assignment", "evaluate", "index_assignment", "parse_power_input"]

NORMAL = "normal"
_PLACEMENT_KEYS = ("node", "psu", "pdu", "circuit")


def feed_scenario(feed: str) -> str:
    return "feed %s lost" % feed


def psu_scenario(node: str, psu: int) -> str:
    return "PSU %s/%d lost" % (node, psu)


def _r(value: float, digits: int = 3) -> float:
    return round(float(value), digits)


def _watts(value: Any) -> Any:
    """Watts for reports: an int when whole (3300, not 3300.0), else rounded to 0.1 W."""
    if value is None:
        return None
    value = round(float(value), 1)
    return int(value) if value.is_integer() else value


def index_assignment(model: PowerModel, assignment: Any) -> Tuple[Dict[Tuple[int, int], int], List[Dict[str, Any]]]:
    """Map (node index, psu number) -> circuit index; structural problems become violations."""
    if isinstance(assignment, Mapping) and "placements" in assignment:
        assignment = assignment["placements"]  # accept pdu_layout's whole result
    if not isinstance(assignment, list):
        raise must_be("assignment", assignment, "a list of {node, psu, pdu, circuit} dicts", PowerLayoutError)
    placed: Dict[Tuple[int, int], int] = {}
    first_entry: Dict[Tuple[int, int], int] = {}
    violations: List[Dict[str, Any]] = []
    for number, entry in enumerate(assignment, start=1):
        if not isinstance(entry, Mapping) or any(k not in entry for k in _PLACEMENT_KEYS):
            raise must_be("assignment entry #%d" % number, entry, "a dict with keys node, psu, pdu, circuit",
                          PowerLayoutError)
        node = model.node_by_name.get(str(entry["node"]))
        pdu = model.pdu_by_name.get(str(entry["pdu"]))
        psu = entry["psu"]
        label = "assignment entry #%d (%s/%s -> %s/%s)" % (number, entry["node"], psu, entry["pdu"], entry["circuit"])
        if node is None:
            violations.append(_structural("unknown_node", label, "node '%s' is not in the input" % entry["node"],
                                          "fix the node name or add the node to 'nodes'"))
            continue
        if isinstance(psu, bool) or not isinstance(psu, int) or not 1 <= psu <= node.psus:
            violations.append(_structural("unknown_psu", label, "node '%s' has PSUs 1..%d, got %r" % (node.name, node.psus, psu),
                                          "number PSUs from 1 to psus"))
            continue
        if pdu is None:
            violations.append(_structural("unknown_pdu", label, "PDU '%s' is not in the input" % entry["pdu"], "fix the PDU name"))
            continue
        circuit = pdu.circuit_by_name.get(str(entry["circuit"]))
        if circuit is None:
            violations.append(_structural("unknown_circuit", label, "PDU '%s' has no circuit '%s' (it has %s)"
                                          % (pdu.name, entry["circuit"], ", ".join(pdu.circuit_by_name)), "fix the circuit name"))
            continue
        key = (node.index, psu)
        if key in placed:
            violations.append(_structural("duplicate_psu", label, "PSU %s/%d is already assigned by entry #%d; only the first counts"
                                          % (node.name, psu, first_entry[key]), "keep one assignment per PSU"))
            continue
        if pdu.rack != node.rack:
            # Still counted electrically: the cord exists, it is just in the wrong rack.
            violations.append(_structural("wrong_rack", label, "node '%s' is in rack '%s' but PDU '%s' is in rack '%s'"
                                          % (node.name, node.rack, pdu.name, pdu.rack), "plug it into a PDU of rack '%s'" % node.rack))
        placed[key] = circuit.index
        first_entry[key] = number
    for node in model.nodes:
        for psu in range(1, node.psus + 1):
            if (node.index, psu) not in placed:
                violations.append(_structural("unassigned_psu", "PSU %s/%d" % (node.name, psu), "not assigned to any circuit",
                                              "assign it to a circuit of rack '%s'" % node.rack, node=node.name, psu=psu))
    return placed, violations


def _structural(kind: str, where: str, what: str, fix: str, **extra: Any) -> Dict[str, Any]:
    out: Dict[str, Any] = {"type": kind, "message": "%s: %s" % (where, what), "fix": fix}
    out.update(extra)
    return out


class _Worst:
    """Largest current seen per circuit (or per PDU line) and the scenario that caused it."""

    def __init__(self, amps: List[float], watts: List[float], scenario: str) -> None:
        self.amps = list(amps)
        self.watts = list(watts)
        self.scenario = [scenario] * len(amps)

    def offer(self, index: int, amps: float, watts: float, scenario: str) -> None:
        # Strictly larger (beyond float noise) so ties keep the earlier, simpler scenario.
        if amps > self.amps[index] * (1.0 + TOLERANCE) + 1e-12:
            self.amps[index] = amps
            self.watts[index] = watts
            self.scenario[index] = scenario


def evaluate(model: PowerModel, placed: Dict[Tuple[int, int], int]) -> Dict[str, Any]:
    """Evaluate every scenario; return per-circuit and per-PDU reports plus violations."""
    circuits = model.circuits
    count = len(circuits)
    feed_of = [model.pdus[c.pdu_index].feed for c in circuits]
    live: List[List[Tuple[int, int]]] = [[] for _node in model.nodes]
    for (node_index, psu), circuit_index in sorted(placed.items()):
        live[node_index].append((psu, circuit_index))
    violations: List[Dict[str, Any]] = []
    psu_loads: List[Dict[str, Any]] = []
    for node in model.nodes:
        if live[node.index]:
            share = node.max_power_w / len(live[node.index])
            psu_loads.append({"node": node.name, "node_type": node.node_type, "rating_w": _watts(node.psu_rating_w),
                              "normal_w": _watts(share), "worst_w": _watts(share), "worst_scenario": NORMAL,
                              "live_psus": len(live[node.index])})
    psu_row = {row["node"]: row for row in psu_loads}

    def psu_load(node: Any, scenario: str, alive: int) -> None:
        share = node.max_power_w / alive
        row = psu_row[node.name]
        if share > row["worst_w"] * (1.0 + TOLERANCE) + 1e-6:
            row.update(worst_w=_watts(share), worst_scenario=scenario, live_psus=alive)
        if node.psu_rating_w is not None and not within(share, node.psu_rating_w):
            violations.append({"type": "psu_overload", "node": node.name, "node_type": node.node_type, "rack": node.rack,
                               "scenario": scenario, "live_psus": alive, "watts": _watts(share), "rating_w": _watts(node.psu_rating_w),
                               "message": psu_overload_message(node, scenario, alive),
                               "fix": psu_overload_message(node, scenario, alive).split("; fix: ", 1)[-1]})

    def load(lost_feed: Optional[str]) -> Tuple[List[float], List[float]]:
        amps, watts = [0.0] * count, [0.0] * count
        for node in model.nodes:
            alive = [c for _psu, c in live[node.index] if feed_of[c] != lost_feed]
            up_normally = len(live[node.index]) >= node.psus_required
            if len(alive) < node.psus_required and (lost_feed is None or up_normally):
                violations.append(_down(model, node, feed_scenario(lost_feed) if lost_feed else NORMAL, len(alive)))
            if not alive:
                continue
            psu_load(node, feed_scenario(lost_feed) if lost_feed else NORMAL, len(alive))
            share = node.max_power_w / len(alive)
            for c in alive:
                watts[c] += share
                amps[c] += share / (circuits[c].voltage * node.power_factor)
        return amps, watts

    normal_a, normal_w = load(None)
    worst = _Worst(normal_a, normal_w, NORMAL)
    normal_lines, neutral = pdu_line_phasors(model, normal_a)
    line_worst = _Worst([max(abs(x) for x in row) for row in normal_lines], [0.0] * len(model.pdus), NORMAL)
    overloads: List[Tuple[int, str, float, float]] = [(i, NORMAL, normal_a[i], normal_w[i]) for i in range(count)]
    for feed in model.feeds:
        scenario = feed_scenario(feed)
        amps, watts = load(feed)
        for i in range(count):
            worst.offer(i, amps[i], watts[i], scenario)
            overloads.append((i, scenario, amps[i], watts[i]))
        lines, _neutral = pdu_line_phasors(model, amps)
        for p, row in enumerate(lines):
            line_worst.offer(p, max(abs(x) for x in row), 0.0, scenario)

    # Single-PSU losses touch only the circuits holding that node's PSUs: evaluate them incrementally.
    psu_worst = _Worst([0.0] * count, [0.0] * count, NORMAL)
    for node in model.nodes:
        plugged = live[node.index]
        if not plugged:
            continue
        before = node.max_power_w / len(plugged)
        after = node.max_power_w / (len(plugged) - 1) if len(plugged) > 1 else 0.0
        per_circuit = Counter(c for _psu, c in plugged)
        if len(plugged) - 1 < node.psus_required <= len(plugged):
            violations.append(_down(model, node, "any one of its PSUs lost", len(plugged) - 1))
        if len(plugged) > 1:
            psu_load(node, "any one of its PSUs lost", len(plugged) - 1)
        seen = set()
        for psu, lost_circuit in plugged:
            if lost_circuit in seen:
                continue  # losing another PSU on the same circuit gives identical loads
            seen.add(lost_circuit)
            scenario = psu_scenario(node.name, psu)
            delta_lines: Dict[int, List[complex]] = {}
            for c, k in per_circuit.items():
                dw = (k - (c == lost_circuit)) * after - k * before
                da = dw / (circuits[c].voltage * node.power_factor)
                worst.offer(c, normal_a[c] + da, normal_w[c] + dw, scenario)
                psu_worst.offer(c, normal_a[c] + da, normal_w[c] + dw, scenario)
                row = delta_lines.setdefault(circuits[c].pdu_index, list(normal_lines[circuits[c].pdu_index]))
                for line, coef in circuits[c].lines:
                    row[line] += da * coef
            for p, row in delta_lines.items():
                line_worst.offer(p, max(abs(x) for x in row), 0.0, scenario)
    for i in range(count):
        if psu_worst.scenario[i] != NORMAL:
            overloads.append((i, psu_worst.scenario[i], psu_worst.amps[i], psu_worst.watts[i]))
    for i, scenario, amps, watts in overloads:
        if not within(amps, circuits[i].limit_a):
            violations.append(_overload(model, i, scenario, amps, watts))

    pdu_reports = []
    for pdu in model.pdus:
        magnitudes = [abs(x) for x in normal_lines[pdu.index]]
        imbalance = nema_imbalance(magnitudes) if pdu.phases == 3 else None
        pdu_reports.append({
            "pdu": pdu.name, "rack": pdu.rack, "feed": pdu.feed, "voltage": pdu.voltage, "phases": pdu.phases,
            "wiring": pdu.wiring,
            "line_currents_a": {LINES[k]: _r(magnitudes[k]) for k in range(pdu.phases)},
            "neutral_a": _r(abs(neutral[pdu.index])) if pdu.wiring == "wye" else None,
            "imbalance": _r(imbalance, 4) if imbalance is not None else None,
            "worst_line_a": _r(line_worst.amps[pdu.index]),
            "worst_line_scenario": line_worst.scenario[pdu.index],
        })
        limit = model.imbalance_limit
        if imbalance is not None and limit is not None and not within(imbalance, limit):
            violations.append(_imbalance(pdu.name, pdu.rack, magnitudes, imbalance, limit))

    users: Dict[int, List[str]] = {}
    for (node_index, psu), c in sorted(placed.items()):
        users.setdefault(c, []).append("%s/%d" % (model.nodes[node_index].name, psu))
    circuit_reports = []
    for c in circuits:
        pdu = model.pdus[c.pdu_index]
        circuit_reports.append({
            "pdu": pdu.name, "circuit": c.name, "rack": pdu.rack, "feed": pdu.feed, "phase": c.phase,
            "voltage": _r(c.voltage, 2), "rating_a": c.rating_a, "limit_a": _r(c.limit_a),
            "psus": users.get(c.index, []), "used": c.index in users,
            "normal_a": _r(normal_a[c.index]), "normal_w": _r(normal_w[c.index], 1),
            "worst_a": _r(worst.amps[c.index]), "worst_w": _r(worst.watts[c.index], 1),
            "worst_scenario": worst.scenario[c.index],
            "utilisation": _r(worst.amps[c.index] / c.limit_a, 4),
        })
    return {"circuits": circuit_reports, "pdus": pdu_reports, "violations": violations, "psu_loads": psu_loads,
            "worst_amps": worst.amps, "scenarios": 1 + len(model.feeds) + len(placed)}


def _down(model: PowerModel, node: Any, scenario: str, alive: int) -> Dict[str, Any]:
    return {
        "type": "node_down", "node": node.name, "rack": node.rack, "scenario": scenario,
        "live_psus": alive, "psus_required": node.psus_required,
        "message": "node '%s' goes down in scenario '%s': %d live PSU(s) < psus_required %d"
                   % (node.name, scenario, alive, node.psus_required),
        "fix": "spread its %d PSUs over the feeds of rack '%s' so every feed carries at most %d"
               % (node.psus, node.rack, node.psus - node.psus_required),
    }


def _overload(model: PowerModel, index: int, scenario: str, amps: float, watts: float) -> Dict[str, Any]:
    c = model.circuits[index]
    pdu = model.pdus[c.pdu_index]
    excess_a = amps - c.limit_a
    excess_w = watts * excess_a / amps if amps else 0.0
    needed = amps / model.derating
    return {
        "type": "overload", "pdu": pdu.name, "circuit": c.name, "rack": pdu.rack, "feed": pdu.feed,
        "scenario": scenario, "amps": _r(amps), "watts": _r(watts, 1), "limit_a": _r(c.limit_a),
        "utilisation": _r(amps / c.limit_a, 4),
        "message": "circuit %s/%s (%g A x %g = %.2f A limit at %.1f V) carries %.2f A (%.1f W) in scenario '%s': %.1f %% of the limit"
                   % (pdu.name, c.name, c.rating_a, model.derating, c.limit_a, c.voltage, amps, watts, scenario,
                      100.0 * amps / c.limit_a),
        "fix": "move at least %.1f W (%.2f A) off %s/%s, or use a breaker rated >= %.2f A at derating %g"
               % (excess_w, excess_a, pdu.name, c.name, needed, model.derating),
    }


def _imbalance(pdu: str, rack: str, currents: List[float], imbalance: float, limit: float) -> Dict[str, Any]:
    high = max(range(3), key=lambda k: currents[k])
    low = min(range(3), key=lambda k: currents[k])
    shown = ", ".join("%s %.2f A" % (LINES[k], currents[k]) for k in range(3))
    return {
        "type": "imbalance", "pdu": pdu, "rack": rack, "scenario": NORMAL, "imbalance": _r(imbalance, 4), "limit": limit,
        "line_currents_a": {LINES[k]: _r(currents[k]) for k in range(3)},
        "message": "PDU '%s' phase imbalance %.1f %% exceeds %.1f %% (%s; NEMA: max deviation from average / average)"
                   % (pdu, 100 * imbalance, 100 * limit, shown),
        "fix": "move PSUs from circuits loading %s to circuits loading %s, or raise imbalance_limit" % (LINES[high], LINES[low]),
    }


def check_assignment(data: Any, assignment: Any = None) -> Dict[str, Any]:
    """pdu_check: evaluate an existing assignment (or data['assignment']) under every scenario."""
    model = parse_power_input(data)
    if assignment is None:
        assignment = data.get("assignment")
        if assignment is None:
            raise PowerLayoutError("no assignment given: pass a list of {node, psu, pdu, circuit} or set 'assignment' in the input")
    placed, violations = index_assignment(model, assignment)
    result = evaluate(model, placed)
    violations.extend(result["violations"])
    worst = max(result["circuits"], key=lambda r: r["utilisation"])
    return {
        "ok": not violations,
        "violations": violations,
        "circuits": result["circuits"],
        "pdus": result["pdus"],
        "psu_loads": result["psu_loads"],
        "summary": {
            "violations": len(violations), "scenarios": result["scenarios"],
            "circuits_used": sum(1 for r in result["circuits"] if r["used"]), "circuits_available": len(result["circuits"]),
            "worst_circuit": "%s/%s" % (worst["pdu"], worst["circuit"]), "worst_utilisation": worst["utilisation"],
        },
    }
