# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Input model, validation and electrical helpers for PDU breaker layouts (stdlib only).

Shared by the layout planner (power/layout) and the independent checker (power/scenarios). Conventions:

* ``P = V x I x PF`` on every circuit: a PSU drawing ``W`` watts on a circuit at ``V`` volts
  draws ``W / (V x PF)`` amps. Currents of PSUs on one circuit add arithmetically (same PF
  angle assumed, which over-estimates slightly when PFs differ: the safe side).
* A three-phase PDU's ``voltage`` is line-to-line; a wye line-to-neutral circuit sees
  ``voltage / sqrt(3)``, a line-to-line circuit (delta, or wye L-L) sees ``voltage``.
* Phasors use ABC sequence with V_L1N at 0 degrees; each circuit current is in phase with its
  own circuit voltage, so line currents are exact vector sums (delta: I_L1 = I_12 - I_31).
"""

from __future__ import annotations

import cmath
import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import mapping_of, must_be, unknown_keys

DEFAULT_POWER_FACTOR = 0.95
DEFAULT_DERATING = 0.8
# Relative slack so that a load computed exactly at a limit (float rounding) still fits.
TOLERANCE = 1e-9

LINES = ("L1", "L2", "L3")
LN_PHASES = ("L1", "L2", "L3")
LL_PHASES = ("L1-L2", "L2-L3", "L3-L1")
ALLOWED_PHASES = {
    "single": ("L1",),
    "wye": LN_PHASES + LL_PHASES,
    "delta": LL_PHASES,
}
# Angle (degrees) of each circuit's voltage phasor, ABC sequence, V_L1N = 0 degrees.
PHASE_ANGLE_DEG = {"L1": 0.0, "L2": -120.0, "L3": 120.0, "L1-L2": 30.0, "L2-L3": -90.0, "L3-L1": 150.0}
# Line currents a branch current enters (+1) or leaves (-1): I_L1 = I_1N + I_12 - I_31 and so on.
LINE_INCIDENCE = {
    "L1": ((0, 1.0),),
    "L2": ((1, 1.0),),
    "L3": ((2, 1.0),),
    "L1-L2": ((0, 1.0), (1, -1.0)),
    "L2-L3": ((1, 1.0), (2, -1.0)),
    "L3-L1": ((2, 1.0), (0, -1.0)),
}


def _phase_coefficients(phase: str, three_phase: bool) -> Tuple[Tuple[Tuple[int, complex], ...], complex]:
    angle = cmath.rect(1.0, math.radians(PHASE_ANGLE_DEG[phase]))
    lines = tuple((line, sign * angle) for line, sign in LINE_INCIDENCE[phase])
    return lines, (angle if (three_phase and phase in LN_PHASES) else 0j)


# (line coefficients, neutral coefficient) per (phase, is three-phase), computed once.
_COEFFICIENTS = {(ph, three): _phase_coefficients(ph, three) for ph in PHASE_ANGLE_DEG for three in (False, True)}

_NODE_KEYS = ("name", "rack", "max_power_w", "psus", "psus_required", "power_factor", "psu_rating_w", "node_type")
_PDU_KEYS = ("name", "rack", "feed", "voltage", "phases", "wiring", "circuits")
_CIRCUIT_KEYS = ("name", "rating_a", "phase")
_TOP_KEYS = ("nodes", "pdus", "derating", "imbalance_limit", "assignment")


class PowerLayoutError(ValueError):
    """Invalid power input, or no breaker layout satisfies the constraints."""


@dataclass
class Node:
    index: int
    name: str
    rack: str
    max_power_w: float
    psus: int
    psus_required: int
    power_factor: float
    psu_rating_w: Optional[float] = None  # each PSU's rated output; None: not checked
    node_type: str = ""  # what the node is (a node type or a load such as a switch), for messages

    @property
    def label(self) -> str:
        return "node '%s'%s" % (self.name, " (%s)" % self.node_type if self.node_type else "")


@dataclass
class Circuit:
    index: int  # position in PowerModel.circuits
    name: str
    pdu_index: int
    rating_a: float
    phase: str
    voltage: float  # voltage across this branch circuit
    limit_a: float  # rating_a x derating
    # (line index, complex coefficient): what 1 A on this circuit adds to each line current phasor.
    lines: Tuple[Tuple[int, complex], ...]
    neutral: complex  # what 1 A adds to the neutral phasor (0 for line-to-line circuits)


@dataclass
class Pdu:
    index: int
    name: str
    rack: str
    feed: str
    voltage: float
    phases: int
    wiring: Optional[str]
    circuits: List[Circuit] = field(default_factory=list)
    circuit_by_name: Dict[str, Circuit] = field(default_factory=dict)


@dataclass
class PowerModel:
    nodes: List[Node]
    pdus: List[Pdu]
    circuits: List[Circuit]
    derating: float
    imbalance_limit: Optional[float]
    feeds: List[str]
    node_by_name: Dict[str, Node]
    pdu_by_name: Dict[str, Pdu]
    rack_pdus: Dict[str, List[Pdu]]


def circuit_voltage(pdu_voltage: float, phases: int, phase: str) -> float:
    """Voltage across one branch circuit: L-N circuits of a three-phase PDU see V_LL / sqrt(3)."""
    if phases == 3 and phase in LN_PHASES:
        return pdu_voltage / math.sqrt(3.0)
    return pdu_voltage


def nema_imbalance(currents: Sequence[float]) -> float:
    """NEMA MG-1 style unbalance: largest deviation from the average, divided by the average."""
    if not currents:
        return 0.0
    avg = sum(currents) / len(currents)
    if avg <= 0.0:
        return 0.0
    return max(abs(c - avg) for c in currents) / avg


def within(value: float, limit: float) -> bool:
    return value <= limit * (1.0 + TOLERANCE)


def _where(kind: str, name: Any, index: int) -> str:
    return "%s '%s'" % (kind, name) if isinstance(name, str) and name else "%s #%d" % (kind, index + 1)


def _check_keys(item: Any, allowed: Sequence[str], where: str) -> Mapping[str, Any]:
    item = mapping_of(where, item, PowerLayoutError)
    unknown_keys(where, item, allowed, PowerLayoutError, hint="check the spelling")
    return item


def _name(item: Mapping[str, Any], key: str, where: str) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value.strip():
        raise must_be("%s: '%s'" % (where, key), value, "a non-empty string", PowerLayoutError)
    return str(value)


def _number(item: Mapping[str, Any], key: str, where: str, default: Any = None, low: float = 0.0, high: Optional[float] = None) -> float:
    """A number in (low, high]; the message names the key, the value and the allowed range."""
    value = item.get(key, default)
    if value is None:
        raise PowerLayoutError("%s: '%s' is required (a number > %g)" % (where, key, low))
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise must_be("%s: '%s'" % (where, key), value, "a number", PowerLayoutError)
    if value <= low or (high is not None and value > high):
        upper = " and <= %g" % high if high is not None else ""
        raise PowerLayoutError("%s: '%s'=%r is out of range; it must be > %g%s" % (where, key, value, low, upper))
    return float(value)


def _integer(item: Mapping[str, Any], key: str, where: str) -> int:
    value = item.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise must_be("%s: '%s'" % (where, key), value, "an integer >= 1", PowerLayoutError)
    return int(value)


def _parse_node(item: Any, index: int) -> Node:
    where = _where("node", item.get("name") if isinstance(item, Mapping) else None, index)
    item = _check_keys(item, _NODE_KEYS, where)
    name = _name(item, "name", where)
    psus = _integer(item, "psus", where)
    required = _integer(item, "psus_required", where)
    if required > psus:
        raise PowerLayoutError(
            "%s: psus_required=%d is more than psus=%d; set psus_required <= psus (a node cannot need more PSUs than it has)"
            % (where, required, psus)
        )
    return Node(
        index=index,
        name=name,
        rack=_name(item, "rack", where),
        max_power_w=_number(item, "max_power_w", where),
        psus=psus,
        psus_required=required,
        power_factor=_number(item, "power_factor", where, default=DEFAULT_POWER_FACTOR, high=1.0),
        psu_rating_w=_number(item, "psu_rating_w", where) if item.get("psu_rating_w") is not None else None,
        node_type=_name(item, "node_type", where) if item.get("node_type") is not None else "",
    )


def _parse_pdu(item: Any, index: int, derating: float, first_circuit: int) -> Pdu:
    where = _where("pdu", item.get("name") if isinstance(item, Mapping) else None, index)
    item = _check_keys(item, _PDU_KEYS, where)
    phases = item.get("phases")
    if phases not in (1, 3) or isinstance(phases, bool):
        raise must_be("%s: 'phases'" % where, phases, "1 or 3", PowerLayoutError)
    wiring = item.get("wiring")
    if phases == 3 and wiring not in ("wye", "delta"):
        raise PowerLayoutError("%s: three-phase PDUs need 'wiring' set to wye or delta, got %r" % (where, wiring))
    if phases == 1 and wiring is not None:
        raise PowerLayoutError("%s: 'wiring'=%r only applies to three-phase PDUs; drop it or set phases: 3" % (where, wiring))
    pdu = Pdu(
        index=index,
        name=_name(item, "name", where),
        rack=_name(item, "rack", where),
        feed=_name(item, "feed", where),
        voltage=_number(item, "voltage", where),
        phases=int(phases),
        wiring=str(wiring) if wiring is not None else None,
    )
    circuits = item.get("circuits")
    if not isinstance(circuits, list) or not circuits:
        raise must_be("%s: 'circuits'" % where, circuits, "a non-empty list of branch breakers (describe a PDU "
                      "without branch breakers by its input breaker as one circuit)", PowerLayoutError)
    allowed = ALLOWED_PHASES[pdu.wiring or "single"]
    for offset, raw in enumerate(circuits):
        cwhere = "%s %s" % (where, _where("circuit", raw.get("name") if isinstance(raw, Mapping) else None, offset))
        raw = _check_keys(raw, _CIRCUIT_KEYS, cwhere)
        cname = _name(raw, "name", cwhere)
        if cname in pdu.circuit_by_name:
            raise PowerLayoutError("%s: duplicate circuit name '%s' on this PDU; circuit names must be unique per PDU" % (cwhere, cname))
        phase = raw.get("phase", "L1" if phases == 1 else None)
        if phase not in allowed:
            kind = "single-phase" if phases == 1 else "%s three-phase" % pdu.wiring
            raise PowerLayoutError(
                "%s: phase %r is not valid on a %s PDU; use one of %s" % (cwhere, phase, kind, ", ".join(allowed))
            )
        rating = _number(raw, "rating_a", cwhere)
        lines, neutral = _COEFFICIENTS[(phase, phases == 3)]
        circuit = Circuit(
            index=first_circuit + offset,
            name=cname,
            pdu_index=index,
            rating_a=rating,
            phase=str(phase),
            voltage=circuit_voltage(pdu.voltage, phases, phase),
            limit_a=rating * derating,
            lines=lines,
            neutral=neutral,
        )
        pdu.circuits.append(circuit)
        pdu.circuit_by_name[cname] = circuit
    return pdu


def parse_power_input(data: Any) -> PowerModel:
    """Validate the filter input and build the model; raise PowerLayoutError naming what is wrong."""
    data = _check_keys(data, _TOP_KEYS, "power input")
    derating = _number(data, "derating", "power input", default=DEFAULT_DERATING, high=1.0)
    limit = data.get("imbalance_limit")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, (int, float)) or not 0 <= limit):
        raise must_be("power input: 'imbalance_limit'", limit, "a fraction >= 0 (e.g. 0.2 for 20 %)", PowerLayoutError)
    raw_nodes, raw_pdus = data.get("nodes"), data.get("pdus")
    if not isinstance(raw_nodes, list) or not raw_nodes:
        raise must_be("power input: 'nodes'", raw_nodes, "a non-empty list", PowerLayoutError)
    if not isinstance(raw_pdus, list) or not raw_pdus:
        raise must_be("power input: 'pdus'", raw_pdus, "a non-empty list", PowerLayoutError)
    nodes: List[Node] = []
    node_by_name: Dict[str, Node] = {}
    for index, raw in enumerate(raw_nodes):
        node = _parse_node(raw, index)
        if node.name in node_by_name:
            raise PowerLayoutError("node '%s' is listed twice (entries %d and %d); node names must be unique"
                                   % (node.name, node_by_name[node.name].index + 1, index + 1))
        node_by_name[node.name] = node
        nodes.append(node)
    pdus: List[Pdu] = []
    circuits: List[Circuit] = []
    pdu_by_name: Dict[str, Pdu] = {}
    rack_pdus: Dict[str, List[Pdu]] = {}
    for index, raw in enumerate(raw_pdus):
        pdu = _parse_pdu(raw, index, derating, len(circuits))
        if pdu.name in pdu_by_name:
            raise PowerLayoutError("pdu '%s' is listed twice; PDU names must be unique" % pdu.name)
        pdu_by_name[pdu.name] = pdu
        pdus.append(pdu)
        circuits.extend(pdu.circuits)
        rack_pdus.setdefault(pdu.rack, []).append(pdu)
    for node in nodes:
        if node.rack not in rack_pdus:
            raise PowerLayoutError(
                "node '%s' is in rack '%s', which has no PDUs (racks with PDUs: %s); add that rack's PDUs or fix the rack name"
                % (node.name, node.rack, ", ".join(sorted(rack_pdus)))
            )
    return PowerModel(
        nodes=nodes,
        pdus=pdus,
        circuits=circuits,
        derating=derating,
        imbalance_limit=float(limit) if limit is not None else None,
        feeds=sorted({p.feed for p in pdus}),
        node_by_name=node_by_name,
        pdu_by_name=pdu_by_name,
        rack_pdus=rack_pdus,
    )


def psu_overload_message(node: Node, scenario: str, live: int) -> str:
    """What it means when `live` PSUs of `node` must carry it in `scenario` and each would exceed its rating."""
    rating = node.psu_rating_w or 0.0
    out = ("%s in scenario '%s': its %d live PSU(s) must carry %g W, %.1f W each, above their %g W rating "
           "(%d x %g W = %g W < %g W)" % (node.label, scenario, live, node.max_power_w, node.max_power_w / live, rating,
                                          live, rating, live * rating, node.max_power_w))
    if scenario.startswith("feed "):
        out += ("; the node runs throttled (or shuts down) until the feed returns; fix: a third feed, so that a feed "
                "loss leaves more PSUs, or a node power cap of at most %g W (gpufleet_power_cap)" % (live * rating))
    elif scenario == "normal":
        out += "; fix: PSUs of a higher rating, or more PSUs"
    else:
        out += "; fix: a node power cap of at most %g W, or PSUs of a higher rating" % (live * rating)
    return out


def pdu_line_phasors(model: PowerModel, amps: Sequence[float]) -> Tuple[List[List[complex]], List[complex]]:
    """Line current phasors (3 per PDU; single-phase PDUs use only L1) and neutral phasors."""
    lines = [[0j, 0j, 0j] for _pdu in model.pdus]
    neutral = [0j for _pdu in model.pdus]
    for circuit in model.circuits:
        current = amps[circuit.index]
        if not current:
            continue
        row = lines[circuit.pdu_index]
        for line, coef in circuit.lines:
            row[line] += current * coef
        neutral[circuit.pdu_index] += current * circuit.neutral
    return lines, neutral
