# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Greedy PSU -> circuit layout that survives the loss of any one feed or any one PSU.

Per rack, independently:

1. Feed split. A node's PSUs go round-robin over the rack's feeds, so each feed gets
   floor or ceil(psus / feeds) of them. Minimising the largest per-feed count maximises the PSUs
   left after the worst feed loss, so if this split leaves fewer than psus_required, none does.
2. Sizes. A PSU on feed F of a node (W watts, p PSUs, k_G of them on feed G) carries, in VA
   (W / PF, divide by the circuit voltage for amps): normally W/p; after feed G is lost
   W/(p - k_G); after one of the node's other PSUs is lost W/(p - 1).
3. First-fit decreasing. Nodes are taken in decreasing worst-case per-PSU VA; each PSU goes to an
   already-opened circuit of its feed that still fits in EVERY scenario, choosing among those the
   one that leaves the PDU's largest line current smallest (phase balance). A new circuit is
   opened only when no opened one fits (largest capacity first, then best phase balance). So no
   circuit is opened while an opened one could take the PSU ("any-fit"): with two feeds and equal
   circuits at most one circuit per rack and feed ends up at or below half its limit.

Incremental state per circuit (all in amps): normal load, load after each feed loss, and the
largest single-PSU-loss increase max_n(a_n x W_n (1/(p_n-1) - 1/p_n) / (V PF_n)) where a_n is
the number of node n's PSUs on the circuit (losing one of n's PSUs elsewhere raises each of its
a_n PSUs here by that much; only one PSU is lost at a time, so only the largest term counts).
A fit test is O(feeds); circuits whose headroom is below the smallest PSU of the rack are closed.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Tuple

from ansible_collections.gpufleet.cluster.plugins.module_utils.power.scenarios import evaluate
from ansible_collections.gpufleet.cluster.plugins.module_utils.power.model import (
    TOLERANCE,
    Circuit,
    Node,
    PowerLayoutError,
    PowerModel,
    nema_imbalance,
    parse_power_input,
    psu_overload_message,
    within,
)

__all__ = ["PowerLayoutError", "plan_layout"]


class _Psu:
    """Worst-case sizes (VA = W / PF) of one PSU of a node on a given feed."""

    __slots__ = ("normal", "lost", "delta", "worst", "worst_scenario")

    def __init__(self, node: Node, feed: str, per_feed: Dict[str, int]) -> None:
        w, p, pf = node.max_power_w, node.psus, node.power_factor
        self.normal = w / p / pf
        self.lost = {g: w / (p - k) / pf for g, k in per_feed.items() if g != feed}
        self.delta = w * (1.0 / (p - 1) - 1.0 / p) / pf
        # Ties go to the feed loss, as in the checker (which evaluates feed losses before PSU losses).
        self.worst, self.worst_scenario = self.normal, "normal"
        for g, va in sorted(self.lost.items()):
            if va > self.worst * (1.0 + TOLERANCE):
                self.worst, self.worst_scenario = va, "feed %s lost" % g
        if self.normal + self.delta > self.worst * (1.0 + TOLERANCE):
            self.worst, self.worst_scenario = self.normal + self.delta, "another PSU of %s lost" % node.name


class _Slot:
    """A circuit being filled: loads in amps per scenario family."""

    __slots__ = ("circuit", "order", "volt", "limit", "normal", "lost", "dmax", "cur_node", "cur_count", "close_below",
                 "opened")

    def __init__(self, circuit: Circuit, order: int, feeds: List[str], own_feed: str, smallest_va: float) -> None:
        self.circuit = circuit
        self.order = order
        self.volt = circuit.voltage
        self.limit = circuit.limit_a * (1.0 + TOLERANCE)
        self.normal = 0.0
        self.lost = {g: 0.0 for g in feeds if g != own_feed}
        self.dmax = 0.0
        self.cur_node = -1
        self.cur_count = 0
        self.close_below = smallest_va / self.volt  # every scenario grows by at least this per PSU
        self.opened = False

    def fits(self, node: int, size: _Psu) -> bool:
        inv = 1.0 / self.volt
        normal = self.normal + size.normal * inv
        if normal > self.limit:
            return False
        lost = self.lost
        for g, va in size.lost.items():
            if lost[g] + va * inv > self.limit:
                return False
        count = self.cur_count + 1 if self.cur_node == node else 1
        return normal + max(self.dmax, count * size.delta * inv) <= self.limit

    def add(self, node: int, size: _Psu) -> None:
        inv = 1.0 / self.volt
        self.normal += size.normal * inv
        for g, va in size.lost.items():
            self.lost[g] += va * inv
        if self.cur_node != node:
            self.cur_node, self.cur_count = node, 0
        self.cur_count += 1
        self.dmax = max(self.dmax, self.cur_count * size.delta * inv)

    def full(self) -> bool:
        worst = max([self.normal + self.dmax] + list(self.lost.values()))
        return self.limit - worst < self.close_below


def _feed_split(node: Node, feeds: List[str], rotation: int) -> List[str]:
    """Feed of each PSU (index 0 = PSU 1), round-robin starting at feeds[rotation]."""
    m = len(feeds)
    worst_left = node.psus - math.ceil(node.psus / m)
    if m < 2 or worst_left < node.psus_required:
        raise PowerLayoutError(
            "node '%s' cannot survive the loss of one feed: rack '%s' has feed(s) %s, so its %d PSUs put at least %d on one "
            "feed and only %d remain after that feed is lost, fewer than psus_required %d; fix: add a feed to the rack, "
            "add PSUs, or lower psus_required"
            % (node.name, node.rack, ", ".join(feeds), node.psus, math.ceil(node.psus / m), worst_left, node.psus_required)
        )
    return [feeds[(rotation + i) % m] for i in range(node.psus)]


def _layout_rack(model: PowerModel, rack: str, nodes: List[Node], balanced: bool) -> Tuple[Dict[Tuple[int, int], int], List[str], float]:
    """Place one rack; return placements, errors and the worst three-phase NEMA imbalance."""
    pdus = model.rack_pdus[rack]
    feeds = sorted({p.feed for p in pdus})
    plans = []
    rotation = 0
    for node in sorted(nodes, key=lambda n: n.index):
        split = _feed_split(node, feeds, rotation)
        rotation = (rotation + node.psus) % len(feeds)  # spread the odd PSUs over the feeds
        per_feed = {g: split.count(g) for g in feeds}
        sizes = {g: _Psu(node, g, per_feed) for g in feeds if per_feed[g]}
        plans.append((max(s.worst for s in sizes.values()), node, split, sizes))
    plans.sort(key=lambda t: (-t[0], t[1].name))  # first-fit DECREASING
    smallest = min(min(s.normal for s in t[3].values()) for t in plans)

    # Unopened circuits of one PDU with the same phase and limit are interchangeable: keep them in
    # groups (reversed, so pop() gives the first) and test one per group, not every circuit.
    unopened: Dict[str, Dict[Tuple[int, str, float], List[_Slot]]] = {g: {} for g in feeds}
    order = 0
    for pdu in pdus:
        for circuit in pdu.circuits:
            group = unopened[pdu.feed].setdefault((pdu.index, circuit.phase, circuit.limit_a), [])
            group.append(_Slot(circuit, order, feeds, pdu.feed, smallest))
            order += 1
    for groups in unopened.values():
        for group in groups.values():
            group.reverse()
    biggest = {g: max((grp[-1] for grp in unopened[g].values()), key=lambda s: s.volt * s.circuit.limit_a) for g in feeds}
    opened: Dict[str, List[_Slot]] = {g: [] for g in feeds}
    lines = {pdu.index: [0j, 0j, 0j] for pdu in pdus}

    def balance_after(slot: _Slot, amps: float) -> float:
        row = list(lines[slot.circuit.pdu_index])
        for line, coef in slot.circuit.lines:
            row[line] += amps * coef
        return round(max(abs(x) for x in row), 6)  # rounded: phasor noise must not break ties

    def choose(node: Node, size: _Psu, g: str) -> Any:
        best, best_key = None, None
        for slot in opened[g]:
            if slot.fits(node.index, size):
                key = (balance_after(slot, size.normal / slot.volt), 0, 0.0, slot.order)
                if best_key is None or key < best_key:
                    best, best_key = slot, key
        if best is not None and not balanced:
            return best  # any-fit: never open a circuit while an opened one fits
        for group in unopened[g].values():
            slot = group[-1] if group else None
            if slot is not None and slot.fits(node.index, size):
                capacity = -slot.volt * slot.circuit.limit_a
                balance = balance_after(slot, size.normal / slot.volt)
                # min-circuit mode: biggest circuit first; balanced mode: best phase balance first.
                key = (balance, 1, capacity, slot.order) if balanced else (capacity, 1, balance, slot.order)
                if best_key is None or key < best_key:
                    best, best_key = slot, key
        return best

    placed: Dict[Tuple[int, int], int] = {}
    errors: List[str] = []
    unplaced: Dict[str, List[Tuple[Node, int, _Psu]]] = {g: [] for g in feeds}
    for _worst, node, split, sizes in plans:
        if node.psu_rating_w is not None:
            # The PSU split decides how many PSUs carry the node in each scenario: refuse when one would be overloaded.
            bad = [size for size in sizes.values() if not within(size.worst * node.power_factor, node.psu_rating_w)]
            if bad:
                size = max(bad, key=lambda s: s.worst)
                live = int(round(node.max_power_w / (size.worst * node.power_factor)))
                scenario = size.worst_scenario if not size.worst_scenario.startswith("another PSU") else "any one of its PSUs lost"
                errors.append("PSU overload: " + psu_overload_message(node, scenario, live))
                continue
        oversize = [g for g, size in sizes.items()
                    if size.worst > biggest[g].volt * biggest[g].circuit.limit_a * (1.0 + TOLERANCE)]
        if oversize:
            errors.extend(_too_big_message(model, rack, node, g, sizes[g], biggest[g]) for g in oversize)
            continue
        for psu, g in enumerate(split, start=1):
            size = sizes[g]
            best = choose(node, size, g)
            if best is None:
                unplaced[g].append((node, psu, size))
                continue
            if not best.opened:
                unopened[g][(best.circuit.pdu_index, best.circuit.phase, best.circuit.limit_a)].pop()
                best.opened = True
                opened[g].append(best)
            best.add(node.index, size)
            for line, coef in best.circuit.lines:
                lines[best.circuit.pdu_index][line] += size.normal / best.volt * coef
            placed[(node.index, psu)] = best.circuit.index
            if best.full():
                opened[g].remove(best)
    for g in feeds:
        if unplaced[g]:
            errors.append(_out_of_circuits_message(model, rack, g, unplaced[g], pdus))
    imbalance = max([nema_imbalance([abs(x) for x in lines[p.index]]) for p in pdus if p.phases == 3] + [0.0])
    return placed, errors, imbalance


def _too_big_message(model: PowerModel, rack: str, node: Node, feed: str, size: _Psu, big: _Slot) -> str:
    pf = node.power_factor
    need_w, cap_w = size.worst * pf, big.volt * big.circuit.limit_a * pf
    return (
        "node '%s' (%g W, %d PSUs) is bigger than any circuit of rack '%s' can carry: one of its PSUs on feed %s must carry "
        "%.1f W (%.2f A at %.1f V, PF %g) after '%s', but the largest circuit on feed %s (%s/%s, %g A x %g = %.2f A) carries "
        "%.1f W; missing %.1f W (%.2f A) per PSU; fix: larger breakers, more PSUs or feeds per node, or lower max_power_w"
        % (node.name, node.max_power_w, node.psus, rack, feed, need_w, size.worst / big.volt, big.volt, pf, size.worst_scenario,
           feed, model.pdus[big.circuit.pdu_index].name, big.circuit.name, big.circuit.rating_a, model.derating,
           big.circuit.limit_a, cap_w, need_w - cap_w, (size.worst - big.volt * big.circuit.limit_a) / big.volt)
    )


def _out_of_circuits_message(model: PowerModel, rack: str, feed: str, items: List[Tuple[Node, int, _Psu]], pdus: List[Any]) -> str:
    circuits = [c for p in pdus if p.feed == feed for c in p.circuits]
    big = max(circuits, key=lambda c: c.voltage * c.limit_a)
    need_va = sum(size.worst for _node, _psu, size in items)
    need_w = sum(size.worst * node.power_factor for node, _psu, size in items)
    per_circuit = max(1, int(big.voltage * big.limit_a * (1.0 + TOLERANCE) // max(size.worst for _node, _psu, size in items)))
    names = sorted({node.name for node, _psu, _size in items})
    shown = ", ".join(names[:5]) + (" and %d more" % (len(names) - 5) if len(names) > 5 else "")
    return (
        "rack '%s' is out of circuits on feed %s: %d PSU(s) of %s could not be placed; missing %.1f W worst case "
        "(%.2f A at %.1f V) beyond the %d circuit(s) on feed %s; fix: add about %d more %g A circuit(s) on feed %s "
        "in rack '%s' (each takes %d such PSU(s)), or move nodes to another rack"
        % (rack, feed, len(items), shown, need_w, need_va / big.voltage, big.voltage, len(circuits), feed,
           math.ceil(len(items) / per_circuit), big.rating_a, feed, rack, per_circuit)
    )


def plan_layout(data: Any) -> Dict[str, Any]:
    """pdu_layout: place every PSU; raise PowerLayoutError naming the missing capacity if impossible."""
    model = parse_power_input(data)
    placed: Dict[Tuple[int, int], int] = {}
    errors: List[str] = []
    by_rack: Dict[str, List[Node]] = {}
    for node in model.nodes:
        by_rack.setdefault(node.rack, []).append(node)
    limit = model.imbalance_limit
    for rack in sorted(by_rack):
        rack_placed, rack_errors, imbalance = _layout_rack(model, rack, by_rack[rack], balanced=False)
        if not rack_errors and limit is not None and not within(imbalance, limit):
            # Fewest circuits left a PDU too unbalanced: retry phase-first (may open more circuits).
            retry = _layout_rack(model, rack, by_rack[rack], balanced=True)
            if not retry[1] and retry[2] < imbalance:
                rack_placed, rack_errors = retry[0], retry[1]
        placed.update(rack_placed)
        errors.extend(rack_errors)
    if errors:
        raise PowerLayoutError("no layout exists: " + " | ".join(errors))
    result = evaluate(model, placed)
    if result["violations"]:
        first = result["violations"][0]
        if first["type"] != "imbalance":  # the planner's own bounds disagree with the checker: a bug
            raise AssertionError("pdu_layout produced a layout that fails pdu_check: %s" % first["message"])
        raise PowerLayoutError("no layout meets imbalance_limit: %s; fix: %s" % (first["message"], first["fix"]))
    return _report(model, placed, result)


def _report(model: PowerModel, placed: Dict[Tuple[int, int], int], result: Dict[str, Any]) -> Dict[str, Any]:
    placements = []
    for (node_index, psu), c in sorted(placed.items()):
        circuit = model.circuits[c]
        placements.append({"node": model.nodes[node_index].name, "psu": psu,
                           "pdu": model.pdus[circuit.pdu_index].name, "circuit": circuit.name})
    racks: Dict[str, Dict[str, Any]] = {}
    for row in result["circuits"]:
        entry = racks.setdefault(row["rack"], {"rack": row["rack"], "circuits_used": {}, "circuits_available": {}})
        entry["circuits_available"][row["feed"]] = entry["circuits_available"].get(row["feed"], 0) + 1
        entry["circuits_used"][row["feed"]] = entry["circuits_used"].get(row["feed"], 0) + int(row["used"])
    worst = max(result["circuits"], key=lambda r: r["utilisation"])
    return {
        "placements": placements,
        "circuits": result["circuits"],
        "pdus": result["pdus"],
        "psu_loads": result["psu_loads"],
        "racks": [racks[r] for r in sorted(racks)],
        "summary": {
            "nodes": len(model.nodes), "psus": len(placed), "scenarios": result["scenarios"],
            "circuits_used": sum(1 for r in result["circuits"] if r["used"]), "circuits_available": len(result["circuits"]),
            "worst_circuit": "%s/%s" % (worst["pdu"], worst["circuit"]), "worst_utilisation": worst["utilisation"],
        },
    }
