# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Tests that kill mutants `make mutation MODULES=power_model` found alive (docs/testing.md).

The per-phase phasor coefficients (computed once at import, so only a direct call sees a changed function), the
neutral current of a wye PDU, NEMA imbalance below 1 A, the tolerance's inclusive edge and the PSU overload
message word for word in each kind of scenario.
"""
from __future__ import annotations

import cmath
import math

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.power.model import (
    TOLERANCE,
    PowerLayoutError,
    Node,
    _phase_coefficients,
    nema_imbalance,
    parse_power_input,
    pdu_line_phasors,
    psu_overload_message,
    within,
)

S3 = math.sqrt(3.0) / 2.0  # sin 60 = cos 30


def _close(a, b):
    return cmath.isclose(a, b, abs_tol=1e-12)


# phase -> (line coefficients, neutral coefficient on a three-phase PDU); ABC sequence, V_L1N at 0 degrees:
# L2 at -120 = -1/2 - j sqrt3/2, L3 at +120, L1-L2 at +30, L2-L3 at -90 = -j, L3-L1 at 150; a line-to-line circuit
# leaves its second line (coefficient negated) and puts nothing on the neutral.
EXPECTED = {
    "L1": (((0, 1 + 0j),), 1 + 0j),
    "L2": (((1, complex(-0.5, -S3)),), complex(-0.5, -S3)),
    "L3": (((2, complex(-0.5, S3)),), complex(-0.5, S3)),
    "L1-L2": (((0, complex(S3, 0.5)), (1, complex(-S3, -0.5))), 0j),
    "L2-L3": (((1, -1j), (2, 1j)), 0j),
    "L3-L1": (((2, complex(-S3, 0.5)), (0, complex(S3, -0.5))), 0j),
}


@pytest.mark.parametrize("phase", sorted(EXPECTED))
@pytest.mark.parametrize("three_phase", [True, False])
def test_phase_coefficients_hand_worked(phase, three_phase):
    lines, neutral = _phase_coefficients(phase, three_phase)
    want_lines, want_neutral = EXPECTED[phase]
    assert [line for line, _coef in lines] == [line for line, _coef in want_lines]
    assert all(_close(got, want) for (_l, got), (_w, want) in zip(lines, want_lines))
    # a single-phase PDU's L1 circuit returns on its own neutral wire: no three-phase neutral sum
    assert _close(neutral, want_neutral if three_phase else 0j)


def _wye(amps_by_phase):
    """One 400 V wye PDU with one 32 A circuit per phase given, one node per circuit."""
    phases = list(amps_by_phase)
    data = {
        "nodes": [{"name": "n%d" % i, "rack": "r1", "max_power_w": 2000, "psus": 1, "psus_required": 1}
                  for i in range(len(phases))],
        "pdus": [{"name": "pa", "rack": "r1", "feed": "A", "voltage": 400, "phases": 3, "wiring": "wye",
                  "circuits": [{"name": "c%d" % i, "rating_a": 32, "phase": ph} for i, ph in enumerate(phases)]}],
    }
    model = parse_power_input(data)
    return pdu_line_phasors(model, [amps_by_phase[ph] for ph in phases])


def test_neutral_of_one_line_to_neutral_load_is_its_current():
    lines, neutral = _wye({"L1": 10.0, "L2": 0.0})
    assert [[_close(a, b) for a, b in zip(lines[0], [10, 0, 0])]] == [[True] * 3]
    assert _close(neutral[0], 10 + 0j)


def test_neutral_of_two_phases_is_their_phasor_sum():
    # 10 A at 0 degrees + 10 A at -120 degrees = 10 A at -60 degrees = 5 - j 8.66
    _lines, neutral = _wye({"L1": 10.0, "L2": 10.0})
    assert _close(neutral[0], complex(5.0, -10.0 * S3))
    # balanced: no neutral current
    _lines, neutral = _wye({"L1": 10.0, "L2": 10.0, "L3": 10.0})
    assert _close(neutral[0], 0j)


def test_nema_imbalance_below_one_amp():
    # average 0.5 A, largest deviation 0.25 A: 50 %
    assert nema_imbalance([0.25, 0.5, 0.75]) == 0.5
    assert nema_imbalance([]) == 0.0
    assert nema_imbalance([0.0, 0.0, 0.0]) == 0.0


def test_within_includes_the_tolerance_edge():
    limit = 25.6
    assert within(limit * (1.0 + TOLERANCE), limit)
    assert within(limit, limit)
    assert not within(limit * (1.0 + 10 * TOLERANCE), limit)


NODE = Node(index=0, name="gpu01", rack="r1", max_power_w=2400.0, psus=3, psus_required=2, power_factor=0.95,
            psu_rating_w=1000.0, node_type="dgx-h100")
HEAD = ("node 'gpu01' (dgx-h100) in scenario '%s': its 2 live PSU(s) must carry 2400 W, 1200.0 W each, above their "
        "1000 W rating (2 x 1000 W = 2000 W < 2400 W)")


@pytest.mark.parametrize("scenario,tail", [
    ("feed A lost", "; the node runs throttled (or shuts down) until the feed returns; fix: a third feed, so that a feed "
                    "loss leaves more PSUs, or a node power cap of at most 2000 W (gpufleet_power_cap)"),
    ("normal", "; fix: PSUs of a higher rating, or more PSUs"),
    ("PSU gpu01/3 lost", "; fix: a node power cap of at most 2000 W, or PSUs of a higher rating"),
])
def test_psu_overload_message_word_for_word(scenario, tail):
    assert psu_overload_message(NODE, scenario, 2) == HEAD % scenario + tail


def _input(**changes):
    data = {
        "nodes": [{"name": "n1", "rack": "r1", "max_power_w": 2400, "psus": 2, "psus_required": 1}],
        "pdus": [{"name": "pa", "rack": "r1", "feed": "A", "voltage": 230, "phases": 1,
                  "circuits": [{"name": "c1", "rating_a": 16}]}],
    }
    for path, value in changes.items():
        target, keys = data, path.split("__")
        for key in keys[:-1]:
            target = target[int(key)] if key.isdigit() else target[key]
        target[keys[-1]] = value
    return data


@pytest.mark.parametrize("data,message", [
    ([], "power input must be a mapping, got [] of type list"),
    (_input(feeds=1), "power input has unknown key(s) 'feeds'; allowed: assignment, derating, imbalance_limit, nodes, "
                      "pdus; check the spelling"),
    (_input(derating=1.5), "power input: 'derating'=1.5 is out of range; it must be > 0 and <= 1"),
    (_input(derating="x"), "power input: 'derating' must be a number, got 'x' of type str"),
    (_input(imbalance_limit=-0.1), "power input: 'imbalance_limit' must be a fraction >= 0 (e.g. 0.2 for 20 %), got -0.1 of type float"),
    (_input(imbalance_limit=True), "power input: 'imbalance_limit' must be a fraction >= 0 (e.g. 0.2 for 20 %), got True of type bool"),
    (_input(nodes=[]), "power input: 'nodes' must be a non-empty list, got [] of type list"),
    (_input(pdus={}), "power input: 'pdus' must be a non-empty list, got {} of type dict"),
    (_input(nodes__0__name=""), "node #1: 'name' must be a non-empty string, got '' of type str"),
    (_input(nodes__0__psus=0), "node 'n1': 'psus' must be an integer >= 1, got 0 of type int"),
    (_input(nodes__0__psus_required=3), "node 'n1': psus_required=3 is more than psus=2; set psus_required <= psus "
                                        "(a node cannot need more PSUs than it has)"),
    (_input(nodes__0__max_power_w=None), "node 'n1': 'max_power_w' is required (a number > 0)"),
    (_input(nodes__0__power_factor=0), "node 'n1': 'power_factor'=0 is out of range; it must be > 0 and <= 1"),
    (_input(nodes=[{"name": "n1", "rack": "r1", "max_power_w": 1, "psus": 1, "psus_required": 1}] * 2),
     "node 'n1' is listed twice (entries 1 and 2); node names must be unique"),
    (_input(pdus__0__phases=2), "pdu 'pa': 'phases' must be 1 or 3, got 2 of type int"),
    (_input(pdus__0__phases=True), "pdu 'pa': 'phases' must be 1 or 3, got True of type bool"),
    (_input(pdus__0__phases=3), "pdu 'pa': three-phase PDUs need 'wiring' set to wye or delta, got None"),
    (_input(pdus__0__wiring="wye"), "pdu 'pa': 'wiring'='wye' only applies to three-phase PDUs; drop it or set phases: 3"),
    (_input(pdus__0__circuits=[]), "pdu 'pa': 'circuits' must be a non-empty list of branch breakers (describe a PDU "
                                   "without branch breakers by its input breaker as one circuit), got [] of type list"),
    (_input(pdus__0__circuits=[{"name": "c1", "rating_a": 16}] * 2),
     "pdu 'pa' circuit 'c1': duplicate circuit name 'c1' on this PDU; circuit names must be unique per PDU"),
    (_input(pdus__0__circuits=["c1"]), "pdu 'pa' circuit #1 must be a mapping, got 'c1' of type str"),
    (_input(pdus__0__circuits__0__phase="L2"), "pdu 'pa' circuit 'c1': phase 'L2' is not valid on a single-phase PDU; "
                                               "use one of L1"),
    (_input(pdus__0__phases=3, pdus__0__wiring="delta"),
     "pdu 'pa' circuit 'c1': phase None is not valid on a delta three-phase PDU; use one of L1-L2, L2-L3, L3-L1"),
    (_input(pdus=[{"name": "pa", "rack": "r1", "feed": "A", "voltage": 230, "phases": 1,
                   "circuits": [{"name": "c1", "rating_a": 16}]}] * 2), "pdu 'pa' is listed twice; PDU names must be unique"),
    (_input(nodes__0__rack="r9"), "node 'n1' is in rack 'r9', which has no PDUs (racks with PDUs: r1); add that rack's "
                                  "PDUs or fix the rack name"),
    (_input(feeds=1, racks=2), "power input has unknown key(s) 'feeds', 'racks'; allowed: assignment, derating, "
                               "imbalance_limit, nodes, pdus; check the spelling"),
    (_input(nodes=["n1"]), "node #1 must be a mapping, got 'n1' of type str"),
    (_input(nodes__0__max_power_w=-5), "node 'n1': 'max_power_w'=-5 is out of range; it must be > 0"),
    (_input(nodes__0__psu_rating_w="big"), "node 'n1': 'psu_rating_w' must be a number, got 'big' of type str"),
    (_input(nodes__0__node_type=""), "node 'n1': 'node_type' must be a non-empty string, got '' of type str"),
    (_input(nodes__0__psus_required=0), "node 'n1': 'psus_required' must be an integer >= 1, got 0 of type int"),
    (_input(nodes__0__rack=None), "node 'n1': 'rack' must be a non-empty string, got None of type NoneType"),
    (_input(pdus__0__feed=""), "pdu 'pa': 'feed' must be a non-empty string, got '' of type str"),
    (_input(pdus__0__circuits__0__name=5), "pdu 'pa' circuit #1: 'name' must be a non-empty string, got 5 of type int"),
    (_input(pdus__0__circuits__0__rating_a=0), "pdu 'pa' circuit 'c1': 'rating_a'=0 is out of range; it must be > 0"),
])
def test_each_refusal_word_for_word(data, message):
    with pytest.raises(PowerLayoutError) as caught:
        parse_power_input(data)
    assert str(caught.value) == message


def test_parsed_circuits_carry_voltage_limit_and_numbering():
    # two PDUs: circuit indexes run on across PDUs; 400 V wye: an L-N circuit sees 400/sqrt3 = 230.94 V, an L-L 400 V
    data = _input(derating=0.8, pdus=[
        {"name": "pa", "rack": "r1", "feed": "A", "voltage": 230, "phases": 1, "circuits": [{"name": "c1", "rating_a": 16}]},
        {"name": "pb", "rack": "r1", "feed": "B", "voltage": 400, "phases": 3, "wiring": "wye",
         "circuits": [{"name": "c1", "rating_a": 32, "phase": "L2"}, {"name": "c2", "rating_a": 20, "phase": "L3-L1"}]}])
    model = parse_power_input(data)
    assert [(c.index, c.pdu_index, c.name, c.phase, round(c.voltage, 2), c.limit_a) for c in model.circuits] == [
        (0, 0, "c1", "L1", 230.0, 12.8), (1, 1, "c1", "L2", 230.94, 25.6), (2, 1, "c2", "L3-L1", 400.0, 16.0)]
    assert (model.feeds, sorted(model.rack_pdus), model.imbalance_limit) == (["A", "B"], ["r1"], None)
    assert model.pdu_by_name["pb"].wiring == "wye" and model.pdu_by_name["pa"].wiring is None


def test_rack_without_pdus_lists_every_rack_that_has_some():
    data = _input(nodes__0__rack="r9", pdus=[
        {"name": "pa", "rack": "r1", "feed": "A", "voltage": 230, "phases": 1, "circuits": [{"name": "c1", "rating_a": 16}]},
        {"name": "pb", "rack": "r2", "feed": "A", "voltage": 230, "phases": 1, "circuits": [{"name": "c1", "rating_a": 16}]}])
    with pytest.raises(PowerLayoutError) as caught:
        parse_power_input(data)
    assert str(caught.value) == ("node 'n1' is in rack 'r9', which has no PDUs (racks with PDUs: r1, r2); add that rack's "
                                 "PDUs or fix the rack name")


def test_imbalance_limit_zero_is_accepted():
    # 0 asks for perfectly balanced phases: strict, but a fraction >= 0
    assert parse_power_input(_input(imbalance_limit=0)).imbalance_limit == 0.0
