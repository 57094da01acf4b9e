# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Input validation and electrical helpers of power_model (phasors, voltages, NEMA imbalance)."""

from __future__ import annotations

import copy
import math

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.power.scenarios import check_assignment
from ansible_collections.gpufleet.cluster.plugins.module_utils.power.model import (
    DEFAULT_POWER_FACTOR,
    PowerLayoutError,
    circuit_voltage,
    nema_imbalance,
    parse_power_input,
)

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
