# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""module_utils/power/model.py: input validation (each refusal word for word) and the electrical helpers (phasors and
their per-phase coefficients, voltages, the neutral current of a wye PDU, NEMA imbalance, the tolerance's inclusive
edge, the PSU overload message in each kind of scenario), with the tests that kill the mutants `make mutation` found
alive (docs/testing.md)."""

from __future__ import annotations

import cmath
import copy
import math

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.power.model import (
    DEFAULT_POWER_FACTOR,
    Node,
    PowerLayoutError,
    TOLERANCE,
    _phase_coefficients,
    circuit_voltage,
    nema_imbalance,
    parse_power_input,
    pdu_line_phasors,
    psu_overload_message,
    within,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.power.scenarios import check_assignment


SQRT3 = math.sqrt(3.0)


def _base():
    return {
        "nodes": [{"name": "n1", "rack": "r1", "max_power_w": 2400, "psus": 2, "psus_required": 1}],
        "pdus": [
            {"name": "pa", "rack": "r1", "feed": "A", "voltage": 230, "phases": 1, "circuits": [{"name": "c1", "rating_a": 16}]},
            {"name": "pb", "rack": "r1", "feed": "B", "voltage": 230, "phases": 1, "circuits": [{"name": "c1", "rating_a": 16}]},
        ],
    }


def _three_phase(wiring, voltage, phases_of_circuits):
    """One node per circuit on feed A (PF 1.0, 2 PSUs: 1 on A, 1 on B) so each A circuit carries W/2 normally."""
    circuits = [{"name": "c%d" % i, "rating_a": 32, "phase": ph} for i, ph in enumerate(phases_of_circuits)]
    nodes = [{"name": "n%d" % i, "rack": "r1", "max_power_w": 2400, "psus": 2, "psus_required": 1, "power_factor": 1.0}
             for i in range(len(circuits))]
    data = {
        "nodes": nodes,
        "pdus": [
            {"name": "pa", "rack": "r1", "feed": "A", "voltage": voltage, "phases": 3, "wiring": wiring, "circuits": circuits},
            {"name": "pb", "rack": "r1", "feed": "B", "voltage": 230, "phases": 1,
             "circuits": [{"name": "c%d" % i, "rating_a": 32} for i in range(len(circuits))]},
        ],
    }
    assignment = []
    for i in range(len(circuits)):
        assignment.append({"node": "n%d" % i, "psu": 1, "pdu": "pa", "circuit": "c%d" % i})
        assignment.append({"node": "n%d" % i, "psu": 2, "pdu": "pb", "circuit": "c%d" % i})
    return data, assignment


def _pdu(result, name):
    return next(p for p in result["pdus"] if p["pdu"] == name)


class TestElectrical:
    def test_circuit_voltage(self):
        # Wye 400 V: line-to-neutral 400 / sqrt(3) = 230.94 V; line-to-line circuits and delta see 400 / 208 V.
        assert circuit_voltage(400, 3, "L2") == pytest.approx(230.9401, abs=1e-4)
        assert circuit_voltage(400, 3, "L1-L2") == 400
        assert circuit_voltage(208, 3, "L3-L1") == 208
        assert circuit_voltage(230, 1, "L1") == 230

    def test_nema_imbalance(self):
        # (30, 30, 24): average 28, largest deviation 4 -> 4 / 28 = 0.142857.
        assert nema_imbalance([30, 30, 24]) == pytest.approx(4 / 28)
        # One loaded line (I, 0, 0): average I/3, deviation 2I/3 -> 2.0.
        assert nema_imbalance([9, 0, 0]) == pytest.approx(2.0)
        assert nema_imbalance([0, 0, 0]) == 0.0
        assert nema_imbalance([5, 5, 5]) == 0.0

    def test_balanced_delta_is_sqrt3_not_2(self):
        # Each branch carries 1200 W / 208 V = 5.7692 A; each line the phasor difference of two branches
        # 120 degrees apart: sqrt(3) x 5.7692 = 9.9926 A (NOT 2 x 5.7692 = 11.54 A).
        data, assignment = _three_phase("delta", 208, ["L1-L2", "L2-L3", "L3-L1"])
        pdu = _pdu(check_assignment(data, assignment), "pa")
        for line in ("L1", "L2", "L3"):
            assert pdu["line_currents_a"][line] == pytest.approx(SQRT3 * 1200 / 208, abs=1e-3)
            assert pdu["line_currents_a"][line] == pytest.approx(9.993, abs=1e-3)
        assert pdu["imbalance"] == 0.0
        assert pdu["neutral_a"] is None  # delta has no neutral

    def test_unbalanced_delta_exact_phasors(self):
        # Branches L1-L2 and L2-L3 at I = 5.7692 A: I_L1 = I_12 = I, I_L3 = -I_23 -> I,
        # I_L2 = I_23 - I_12 = I at -90 deg minus I at 30 deg -> sqrt(3) I = 9.9926 A.
        data, assignment = _three_phase("delta", 208, ["L1-L2", "L2-L3"])
        pdu = _pdu(check_assignment(data, assignment), "pa")
        i = 1200 / 208
        assert pdu["line_currents_a"] == {"L1": pytest.approx(i, abs=1e-3), "L2": pytest.approx(SQRT3 * i, abs=1e-3),
                                          "L3": pytest.approx(i, abs=1e-3)}
        # NEMA: average (2 + sqrt 3) I / 3 = 7.1785 A, largest deviation sqrt(3) I - avg = 2.8141 A -> 0.3920.
        avg = (2 + SQRT3) * i / 3
        assert pdu["imbalance"] == pytest.approx((SQRT3 * i - avg) / avg, abs=1e-4)

    def test_wye_neutral_is_phasor_sum(self):
        # 400 V wye, L-N circuits at 230.94 V: 1200 W / 230.94 V = 5.1962 A per loaded line.
        i = 1200 / (400 / SQRT3)
        data, assignment = _three_phase("wye", 400, ["L1", "L2", "L3"])
        pdu = _pdu(check_assignment(data, assignment), "pa")
        assert pdu["line_currents_a"]["L1"] == pytest.approx(i, abs=1e-3)
        assert pdu["neutral_a"] == pytest.approx(0.0, abs=1e-3)  # balanced: neutral cancels
        data, assignment = _three_phase("wye", 400, ["L1", "L2"])
        pdu = _pdu(check_assignment(data, assignment), "pa")
        # Two equal currents 120 degrees apart: the neutral carries the same magnitude I.
        assert pdu["neutral_a"] == pytest.approx(i, abs=1e-3)
        assert pdu["line_currents_a"]["L3"] == 0.0

    def test_wye_line_to_line_circuit(self):
        # An L1-L2 circuit on a 400 V wye PDU sees 400 V: 1200 W / 400 V = 3 A on L1 and L2, no neutral current.
        data, assignment = _three_phase("wye", 400, ["L1-L2"])
        result = check_assignment(data, assignment)
        pdu = _pdu(result, "pa")
        assert pdu["line_currents_a"] == {"L1": 3.0, "L2": 3.0, "L3": 0.0}
        assert pdu["neutral_a"] == 0.0
        circuit = next(c for c in result["circuits"] if c["pdu"] == "pa")
        assert circuit["voltage"] == 400.0 and circuit["normal_a"] == 3.0


class TestValidation:
    def test_defaults(self):
        model = parse_power_input(_base())
        assert model.derating == 0.8
        assert model.nodes[0].power_factor == DEFAULT_POWER_FACTOR == 0.95
        assert model.circuits[0].phase == "L1" and model.circuits[0].limit_a == pytest.approx(12.8)
        assert model.feeds == ["A", "B"] and model.imbalance_limit is None

    @pytest.mark.parametrize("mutate, words", [
        (lambda d: d["pdus"][0].update(phases=3, wiring="wye", voltage=400) or d["pdus"][0]["circuits"][0].update(phase="L4"),
         ["phase 'L4'", "wye three-phase", "L1, L2, L3, L1-L2"]),
        (lambda d: d["pdus"][0].update(phases=3, wiring="delta", voltage=208) or d["pdus"][0]["circuits"][0].update(phase="L1"),
         ["phase 'L1'", "delta three-phase", "L1-L2, L2-L3, L3-L1"]),
        (lambda d: d["pdus"][0].update(phases=3, wiring="delta") or d["pdus"][0]["circuits"][0].pop("phase", None),
         ["phase None", "delta"]),
        (lambda d: d["pdus"][0]["circuits"][0].update(phase="L1-L2"), ["phase 'L1-L2'", "single-phase PDU", "use one of L1"]),
        (lambda d: d["pdus"][0]["circuits"][0].update(phase="L2-L1"), ["phase 'L2-L1'"]),
        (lambda d: d["pdus"][0]["circuits"][0].update(rating_a=0), ["'rating_a'=0", "must be > 0"]),
        (lambda d: d["pdus"][0]["circuits"][0].update(rating_a=-16), ["'rating_a'=-16"]),
        (lambda d: d["pdus"][0].update(voltage=0), ["pdu 'pa'", "'voltage'=0"]),
        (lambda d: d["pdus"][0].update(voltage="230"), ["'voltage' must be a number"]),
        (lambda d: d.update(derating=0), ["'derating'=0", "> 0 and <= 1"]),
        (lambda d: d.update(derating=1.25), ["'derating'=1.25"]),
        (lambda d: d["nodes"][0].update(psus_required=3), ["psus_required=3 is more than psus=2"]),
        (lambda d: d["nodes"][0].update(psus=True), ["'psus' must be an integer"]),
        (lambda d: d["nodes"][0].update(power_factor=1.1), ["'power_factor'=1.1"]),
        (lambda d: d["nodes"][0].update(max_power_w=-1), ["'max_power_w'=-1"]),
        (lambda d: d["nodes"][0].update(rack="r9"), ["rack 'r9', which has no PDUs", "racks with PDUs: r1"]),
        (lambda d: d["nodes"].append(dict(d["nodes"][0])), ["node 'n1' is listed twice"]),
        (lambda d: d["pdus"].append(dict(d["pdus"][0])), ["pdu 'pa' is listed twice"]),
        (lambda d: d["pdus"][0]["circuits"].append({"name": "c1", "rating_a": 16}), ["duplicate circuit name 'c1'"]),
        (lambda d: d["nodes"][0].update(max_power=5), ["unknown key(s) 'max_power'", "max_power_w"]),
        (lambda d: d["pdus"][0].update(phases=2), ["'phases' must be 1 or 3, got 2"]),
        (lambda d: d["pdus"][0].update(phases=3), ["need 'wiring' set to wye or delta"]),
        (lambda d: d["pdus"][0].update(wiring="wye"), ["only applies to three-phase"]),
        (lambda d: d["pdus"][0].update(circuits=[]), ["'circuits' must be a non-empty list"]),
        (lambda d: d["pdus"][0].update(feed=""), ["'feed' must be a non-empty string"]),
        (lambda d: d.update(imbalance_limit=-0.1), ["'imbalance_limit' must be a fraction >= 0"]),
        (lambda d: d.update(nodes=[]), ["'nodes' must be a non-empty list"]),
        (lambda d: d.update(pdus="pa"), ["'pdus' must be a non-empty list"]),
        (lambda d: d.update(extra=1), ["power input has unknown key(s) 'extra'"]),
    ])
    def test_invalid_input_names_the_problem(self, mutate, words):
        data = copy.deepcopy(_base())
        mutate(data)
        with pytest.raises(PowerLayoutError) as info:
            parse_power_input(data)
        for word in words:
            assert word in str(info.value)

    def test_not_a_dict(self):
        with pytest.raises(PowerLayoutError, match=r"^power input must be a mapping, got \[\] of type list$"):
            parse_power_input([])

    def test_error_is_value_error(self):
        assert issubclass(PowerLayoutError, ValueError)


# ---------------------------------------------------------------- refusals word for word, phasors and edges

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
