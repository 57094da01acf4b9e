# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""module_utils/power/scenarios.py, the pdu_check path: the reference design's rack plan, structural violations,
PSU-loss scenarios, and each kind of violation as a whole dict (keys, rounding, message and fix) worked by hand (tests
that kill the mutants `make mutation` found alive, docs/testing.md)."""

from __future__ import annotations

import copy

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.power.model import PowerLayoutError, parse_power_input
from ansible_collections.gpufleet.cluster.plugins.module_utils.power.scenarios import (
    _Worst,
    _down,
    _imbalance,
    _overload,
    _structural,
    _watts,
    check_assignment,
)

from hgx_power import hgx_power


# --- Reference design fixture -----------------------------------------------------------------
# One 60 kW rack, 8 nodes of 5.6 kW max (8 x H100 SXM5 at 700 W = 5.6 kW of GPUs plus the host,
# rated by the design at 5.6 kW). 4 PSUs per node, psus_required 2: PSUs 1-2 on feed A, 3-4 on B.
# Two single-phase 230 V PDUs (feed A, feed B), each with four 32 A breakers.
#
# Reading implemented: "two 5.6 kW nodes on each 32 A breaker" = breaker PAIR k (pdu-a cbk and
# pdu-b cbk) serves nodes 2k-1 and 2k; each breaker carries the PSUs of both nodes on its feed.
#   Limit per breaker: 32 A x 0.8 = 25.6 A (230 x 32 = 7.36 kVA, 80 % = 5.888 kVA continuous).
#   Normal: each PSU carries 5600 / 4 = 1400 W; 4 PSUs per breaker = 5600 W
#           -> 5600 / (230 x 0.95) = 25.629 A > 25.6 A (100.1 %): already (just) overloaded.
#   Feed B lost: each node's 2 feed-A PSUs carry 5600 / 2 = 2800 W each; 4 PSUs = 11200 W, the
#           "11.2 kW per breaker" of the design text -> 11200 / 218.5 = 51.259 A = 200.2 % of 25.6 A.
#           In power terms 11.2 kW / 5.888 kVA = 1.90 x the continuous limit (PF ignored, as the
#           design text does); with PF 0.95 the real-power limit is 5.594 kW, so 2.00 x.
#   PSU gpu01/3 (feed B) lost: gpu01's 3 live PSUs carry 5600 / 3 = 1866.7 W; breaker pdu-a/cb1
#           then carries 2 x 1866.7 + 2 x 1400 = 6533.3 W -> 29.901 A.
NODES = [{"name": "gpu%02d" % i, "rack": "r01", "max_power_w": 5600, "psus": 4, "psus_required": 2} for i in range(1, 9)]
PDUS = [
    {"name": "pdu-a", "rack": "r01", "feed": "A", "voltage": 230, "phases": 1,
     "circuits": [{"name": "cb%d" % i, "rating_a": 32} for i in range(1, 5)]},
    {"name": "pdu-b", "rack": "r01", "feed": "B", "voltage": 230, "phases": 1,
     "circuits": [{"name": "cb%d" % i, "rating_a": 32} for i in range(1, 5)]},
]
REFERENCE = {"nodes": NODES, "pdus": PDUS}
REFERENCE_ASSIGNMENT = [
    {"node": "gpu%02d" % n, "psu": psu, "pdu": "pdu-a" if psu <= 2 else "pdu-b", "circuit": "cb%d" % ((n + 1) // 2)}
    for n in range(1, 9) for psu in range(1, 5)
]


def _violations(result, kind):
    return [v for v in result["violations"] if v["type"] == kind]


class TestReferenceDesign:
    def setup_method(self):
        self.result = check_assignment(copy.deepcopy(REFERENCE), REFERENCE_ASSIGNMENT)

    def test_not_ok(self):
        assert self.result["ok"] is False
        # 8 breakers x (normal, the other feed lost, worst PSU loss) = 24 overloads; nothing structural.
        assert len(self.result["violations"]) == 24
        assert {v["type"] for v in self.result["violations"]} == {"overload"}

    def test_every_breaker_overloaded_in_normal_operation(self):
        normal = [v for v in _violations(self.result, "overload") if v["scenario"] == "normal"]
        assert sorted((v["pdu"], v["circuit"]) for v in normal) == [(p, "cb%d" % i) for p in ("pdu-a", "pdu-b") for i in range(1, 5)]
        for v in normal:
            assert v["amps"] == pytest.approx(25.629, abs=1e-3)  # 5600 / (230 x 0.95)
            assert v["watts"] == 5600.0
            assert v["limit_a"] == 25.6
            assert v["utilisation"] == pytest.approx(1.0011, abs=1e-4)
            assert "25.63 A (5600.0 W) in scenario 'normal'" in v["message"]
            # Breaker needed at 80 %: 25.629 / 0.8 = 32.04 A; 0.029 A over = 6.4 W to move.
            assert v["fix"] == "move at least 6.4 W (0.03 A) off %s/%s, or use a breaker rated >= 32.04 A at derating 0.8" % (
                v["pdu"], v["circuit"])

    def test_every_breaker_about_twice_over_after_feed_loss(self):
        lost = [v for v in _violations(self.result, "overload") if v["scenario"].startswith("feed")]
        assert len(lost) == 8
        for v in lost:
            other = "B" if v["feed"] == "A" else "A"
            assert v["scenario"] == "feed %s lost" % other
            assert v["watts"] == 11200.0  # both nodes' whole load on one breaker
            assert v["amps"] == pytest.approx(51.259, abs=1e-3)  # 11200 / 218.5
            assert v["utilisation"] == pytest.approx(2.0023, abs=1e-4)
            assert v["watts"] / (230 * 32 * 0.8) == pytest.approx(1.902, abs=1e-3)  # ~1.9 x 5.888 kVA

    def test_worst_psu_loss(self):
        psu = [v for v in _violations(self.result, "overload") if v["scenario"].startswith("PSU")]
        assert len(psu) == 8
        cb1 = next(v for v in psu if (v["pdu"], v["circuit"]) == ("pdu-a", "cb1"))
        # Losing a feed-B PSU of gpu01 (PSU 3 comes first) raises gpu01's feed-A PSUs to 1866.7 W.
        assert cb1["scenario"] == "PSU gpu01/3 lost"
        assert cb1["watts"] == pytest.approx(6533.3, abs=0.1)
        assert cb1["amps"] == pytest.approx(29.901, abs=1e-3)

    def test_circuit_report(self):
        cb1 = self.result["circuits"][0]
        assert cb1 == {
            "pdu": "pdu-a", "circuit": "cb1", "rack": "r01", "feed": "A", "phase": "L1", "voltage": 230.0,
            "rating_a": 32.0, "limit_a": 25.6, "psus": ["gpu01/1", "gpu01/2", "gpu02/1", "gpu02/2"], "used": True,
            "normal_a": 25.629, "normal_w": 5600.0, "worst_a": 51.259, "worst_w": 11200.0,
            "worst_scenario": "feed B lost", "utilisation": 2.0023,
        }
        pdu_a = self.result["pdus"][0]
        # Single-phase PDU: the line carries all four breakers, 4 x 25.629 = 102.517 A; twice that after feed B is lost.
        assert pdu_a["line_currents_a"] == {"L1": 102.517}
        assert pdu_a["worst_line_a"] == pytest.approx(205.034, abs=1e-3)
        assert pdu_a["worst_line_scenario"] == "feed B lost"
        assert pdu_a["imbalance"] is None and pdu_a["neutral_a"] is None
        assert self.result["summary"]["scenarios"] == 1 + 2 + 32


def _small():
    """Two nodes (4 kW, 2 PSUs, psus_required 1), feeds A and B, two 32 A circuits per PDU, PF 0.95."""
    return {
        "nodes": [{"name": "n%d" % i, "rack": "r1", "max_power_w": 4000, "psus": 2, "psus_required": 1} for i in (1, 2)],
        "pdus": [
            {"name": "pa", "rack": "r1", "feed": "A", "voltage": 230, "phases": 1,
             "circuits": [{"name": "c1", "rating_a": 32}, {"name": "c2", "rating_a": 32}]},
            {"name": "pb", "rack": "r1", "feed": "B", "voltage": 230, "phases": 1,
             "circuits": [{"name": "c1", "rating_a": 32}, {"name": "c2", "rating_a": 32}]},
            {"name": "px", "rack": "r2", "feed": "A", "voltage": 230, "phases": 1, "circuits": [{"name": "c1", "rating_a": 32}]},
        ],
    }


def _good():
    return [
        {"node": "n1", "psu": 1, "pdu": "pa", "circuit": "c1"}, {"node": "n1", "psu": 2, "pdu": "pb", "circuit": "c1"},
        {"node": "n2", "psu": 1, "pdu": "pa", "circuit": "c2"}, {"node": "n2", "psu": 2, "pdu": "pb", "circuit": "c2"},
    ]


class TestChecks:
    def test_good_assignment(self):
        # Normal 2000 W -> 9.153 A; after the other feed is lost 4000 W -> 18.307 A <= 25.6 A (71.5 %).
        result = check_assignment(_small(), _good())
        assert result["ok"] is True and result["violations"] == []
        c1 = result["circuits"][0]
        assert (c1["normal_a"], c1["worst_a"], c1["worst_scenario"]) == (9.153, 18.307, "feed B lost")
        assert c1["utilisation"] == pytest.approx(0.7151, abs=1e-4)
        assert result["summary"]["circuits_used"] == 4 and result["summary"]["circuits_available"] == 5

    def test_both_psus_on_one_feed(self):
        # n1 has both PSUs on feed A: feed A lost takes it down, and losing PSU 1 puts 4000 W (18.307 A) on pa/c2.
        assignment = _good()
        assignment[1] = {"node": "n1", "psu": 2, "pdu": "pa", "circuit": "c2"}
        result = check_assignment(_small(), assignment)
        down = _violations(result, "node_down")
        assert [(v["node"], v["scenario"], v["live_psus"], v["psus_required"]) for v in down] == [("n1", "feed A lost", 0, 1)]
        assert "spread its 2 PSUs over the feeds of rack 'r1' so every feed carries at most 1" in down[0]["fix"]
        c2 = next(c for c in result["circuits"] if (c["pdu"], c["circuit"]) == ("pa", "c2"))
        # Normal: n1 2000 W + n2 2000 W = 18.307 A. PSU n1/1 lost: n1 4000 W + n2 2000 W = 6000 W = 27.460 A;
        # feed B lost gives the same 6000 W (n2 4000 W + n1 2000 W). Ties keep the earlier scenario (feeds first).
        assert c2["normal_a"] == pytest.approx(18.307, abs=1e-3)
        assert (c2["worst_a"], c2["worst_w"], c2["worst_scenario"]) == (27.46, 6000.0, "feed B lost")
        over = _violations(result, "overload")
        assert [(v["pdu"], v["circuit"], v["scenario"], v["amps"]) for v in over] == [
            ("pa", "c2", "feed B lost", 27.46), ("pa", "c2", "PSU n1/1 lost", 27.46)]
        # pa/c1 only sees n1/1: 2000 W normally, 4000 W (18.307 A) when n1/2 is lost; feed B does not touch it.
        c1 = next(c for c in result["circuits"] if (c["pdu"], c["circuit"]) == ("pa", "c1"))
        assert (c1["worst_a"], c1["worst_w"], c1["worst_scenario"]) == (18.307, 4000.0, "PSU n1/2 lost")

    def test_structural_violations(self):
        assignment = _good()[:3] + [
            {"node": "n1", "psu": 1, "pdu": "pb", "circuit": "c2"},      # duplicate of n1/1
            {"node": "n9", "psu": 1, "pdu": "pa", "circuit": "c1"},      # unknown node
            {"node": "n2", "psu": 3, "pdu": "pa", "circuit": "c1"},      # n2 has PSUs 1..2
            {"node": "n2", "psu": 2, "pdu": "pz", "circuit": "c1"},      # unknown PDU
            {"node": "n2", "psu": 2, "pdu": "pb", "circuit": "c9"},      # unknown circuit
            {"node": "n2", "psu": 2, "pdu": "px", "circuit": "c1"},      # PDU in rack r2
        ]
        result = check_assignment(_small(), assignment)
        kinds = [v["type"] for v in result["violations"]]
        assert kinds[:6] == ["duplicate_psu", "unknown_node", "unknown_psu", "unknown_pdu", "unknown_circuit", "wrong_rack"]
        messages = [v["message"] for v in result["violations"]]
        assert "PSU n1/1 is already assigned by entry #1" in messages[0]
        assert "node 'n2' has PSUs 1..2, got 3" in messages[2]
        assert "PDU 'pb' has no circuit 'c9' (it has c1, c2)" in messages[4]
        assert "node 'n2' is in rack 'r1' but PDU 'px' is in rack 'r2'" in messages[5]
        # n2/2 sits on feed A (px) next to n2/1 (pa): feed A lost takes n2 down.
        assert ("node_down", "n2", "feed A lost") in [(v["type"], v.get("node"), v.get("scenario")) for v in result["violations"]]

    def test_unassigned_psu_counts_as_dead(self):
        # n2/2 is not plugged in: n2 runs on one PSU, so losing it (or feed A) takes n2 down, and
        # pa/c2 carries the whole 4000 W normally: 18.307 A.
        result = check_assignment(_small(), _good()[:3])
        unassigned = _violations(result, "unassigned_psu")
        assert [(v["node"], v["psu"]) for v in unassigned] == [("n2", 2)]
        down = [(v["node"], v["scenario"]) for v in _violations(result, "node_down")]
        assert down == [("n2", "feed A lost"), ("n2", "any one of its PSUs lost")]
        c2 = next(c for c in result["circuits"] if (c["pdu"], c["circuit"]) == ("pa", "c2"))
        assert c2["normal_a"] == pytest.approx(18.307, abs=1e-3)

    def test_imbalance_violation(self):
        data = _small()
        data["imbalance_limit"] = 0.2
        data["pdus"][0].update(voltage=400, phases=3, wiring="wye")
        data["pdus"][0]["circuits"] = [{"name": "c1", "rating_a": 32, "phase": "L1"}, {"name": "c2", "rating_a": 32, "phase": "L1"}]
        result = check_assignment(data, _good())
        (v,) = _violations(result, "imbalance")
        # Both PSUs on L1 at 230.94 V: 2 x 2000 / (230.94 x 0.95) = 18.232 A, L2 = L3 = 0 -> NEMA 2.0.
        assert v["pdu"] == "pa" and v["imbalance"] == 2.0 and v["limit"] == 0.2
        assert v["line_currents_a"] == {"L1": pytest.approx(18.232, abs=1e-3), "L2": 0.0, "L3": 0.0}
        assert "move PSUs from circuits loading L1 to circuits loading L2" in v["fix"]
        pa = result["pdus"][0]
        assert pa["neutral_a"] == pytest.approx(18.232, abs=1e-3)

    def test_assignment_sources(self):
        data = _small()
        data["assignment"] = _good()
        assert check_assignment(data)["ok"] is True
        assert check_assignment(_small(), {"placements": _good()})["ok"] is True
        with pytest.raises(PowerLayoutError, match="no assignment given"):
            check_assignment(_small())
        with pytest.raises(PowerLayoutError, match="assignment must be a list"):
            check_assignment(_small(), "n1:pa:c1")
        with pytest.raises(PowerLayoutError, match="entry #1 must be a dict with keys node, psu, pdu, circuit"):
            check_assignment(_small(), [{"node": "n1"}])


# ---------------------------------------------------------------- each violation as a whole dict

def _model():
    return parse_power_input({
        "nodes": [{"name": "n1", "rack": "r1", "max_power_w": 3680, "psus": 2, "psus_required": 2}],
        "pdus": [{"name": "pa", "rack": "r1", "feed": "A", "voltage": 230, "phases": 1,
                  "circuits": [{"name": "c1", "rating_a": 16}]}]})


def test_overload_violation_in_full():
    # 16 A on a 16 A breaker derated to 12.8 A: 125 %; 3.2 A too many = 3680 x 3.2 / 16 = 736 W; 16 / 0.8 = 20 A needed
    assert _overload(_model(), 0, "feed B lost", 16.0, 3680.0) == {
        "type": "overload", "pdu": "pa", "circuit": "c1", "rack": "r1", "feed": "A", "scenario": "feed B lost",
        "amps": 16.0, "watts": 3680.0, "limit_a": 12.8, "utilisation": 1.25,
        "message": "circuit pa/c1 (16 A x 0.8 = 12.80 A limit at 230.0 V) carries 16.00 A (3680.0 W) in scenario "
                   "'feed B lost': 125.0 % of the limit",
        "fix": "move at least 736.0 W (3.20 A) off pa/c1, or use a breaker rated >= 20.00 A at derating 0.8"}


def test_overload_rounding():
    # amps to 3 decimals, watts to 1, utilisation (16.1234 / 12.8 = 1.259640625) to 4
    row = _overload(_model(), 0, "normal", 16.1234, 3680.4567)
    assert (row["amps"], row["watts"], row["utilisation"]) == (16.123, 3680.5, 1.2596)


def test_imbalance_violation_in_full():
    # 10, 5, 3 A: average 6 A, largest deviation 4 A: 66.67 %
    assert _imbalance("pa", "r1", [10.0, 5.0, 3.0], 4.0 / 6.0, 0.2) == {
        "type": "imbalance", "pdu": "pa", "rack": "r1", "scenario": "normal", "imbalance": 0.6667, "limit": 0.2,
        "line_currents_a": {"L1": 10.0, "L2": 5.0, "L3": 3.0},
        "message": "PDU 'pa' phase imbalance 66.7 % exceeds 20.0 % (L1 10.00 A, L2 5.00 A, L3 3.00 A; NEMA: max deviation "
                   "from average / average)",
        "fix": "move PSUs from circuits loading L1 to circuits loading L3, or raise imbalance_limit"}


def test_node_down_violation_in_full():
    node = _model().nodes[0]
    assert _down(_model(), node, "feed A lost", 1) == {
        "type": "node_down", "node": "n1", "rack": "r1", "scenario": "feed A lost", "live_psus": 1, "psus_required": 2,
        "message": "node 'n1' goes down in scenario 'feed A lost': 1 live PSU(s) < psus_required 2",
        "fix": "spread its 2 PSUs over the feeds of rack 'r1' so every feed carries at most 0"}


def test_structural_violation_in_full():
    assert _structural("unassigned_psu", "PSU n1/2", "not assigned to any circuit", "assign it to a circuit of rack 'r1'",
                       node="n1", psu=2) == {
        "type": "unassigned_psu", "message": "PSU n1/2: not assigned to any circuit",
        "fix": "assign it to a circuit of rack 'r1'", "node": "n1", "psu": 2}


def _two_racks():
    return {
        "nodes": [{"name": "n1", "rack": "r1", "max_power_w": 2300, "psus": 2, "psus_required": 1},
                  {"name": "n2", "rack": "r2", "max_power_w": 2300, "psus": 2, "psus_required": 1}],
        "pdus": [{"name": "pa", "rack": "r1", "feed": "A", "voltage": 230, "phases": 1,
                  "circuits": [{"name": "c1", "rating_a": 16}, {"name": "c2", "rating_a": 16}]},
                 {"name": "pb", "rack": "r2", "feed": "A", "voltage": 230, "phases": 1,
                  "circuits": [{"name": "c1", "rating_a": 16}]}]}


def _entry(node, psu, pdu="pa", circuit="c1"):
    return {"node": node, "psu": psu, "pdu": pdu, "circuit": circuit}


def test_every_structural_violation_of_an_assignment_in_full():
    assignment = [
        _entry("nx", 1),                  # 1: no such node
        _entry("n1", 3),                  # 2: n1 has PSUs 1..2
        _entry("n1", True),               # 3: a bool is no PSU number (True == 1 for int checks)
        _entry("n1", 1, pdu="px"),        # 4: no such PDU
        _entry("n1", 1, circuit="c9"),    # 5: pa has c1, c2
        _entry("n1", 1),                  # 6: placed
        _entry("n1", 1, circuit="c2"),    # 7: PSU n1/1 again: only entry 6 counts
        _entry("n1", 2, pdu="pb"),        # 8: placed, but pb is in rack r2 and n1 in r1
    ]                                     # n2 is not placed at all: PSU n2/1 and n2/2 unassigned
    result = check_assignment(_two_racks(), assignment)
    structural = ("unknown_node", "unknown_psu", "unknown_pdu", "unknown_circuit", "duplicate_psu", "wrong_rack",
                  "unassigned_psu")
    assert [v for v in result["violations"] if v["type"] in structural] == [
        {"type": "unknown_node", "message": "assignment entry #1 (nx/1 -> pa/c1): node 'nx' is not in the input",
         "fix": "fix the node name or add the node to 'nodes'"},
        {"type": "unknown_psu", "message": "assignment entry #2 (n1/3 -> pa/c1): node 'n1' has PSUs 1..2, got 3",
         "fix": "number PSUs from 1 to psus"},
        {"type": "unknown_psu", "message": "assignment entry #3 (n1/True -> pa/c1): node 'n1' has PSUs 1..2, got True",
         "fix": "number PSUs from 1 to psus"},
        {"type": "unknown_pdu", "message": "assignment entry #4 (n1/1 -> px/c1): PDU 'px' is not in the input",
         "fix": "fix the PDU name"},
        {"type": "unknown_circuit", "message": "assignment entry #5 (n1/1 -> pa/c9): PDU 'pa' has no circuit 'c9' "
                                               "(it has c1, c2)",
         "fix": "fix the circuit name"},
        {"type": "duplicate_psu", "message": "assignment entry #7 (n1/1 -> pa/c2): PSU n1/1 is already assigned by entry "
                                             "#6; only the first counts",
         "fix": "keep one assignment per PSU"},
        {"type": "wrong_rack", "message": "assignment entry #8 (n1/2 -> pb/c1): node 'n1' is in rack 'r1' but PDU 'pb' "
                                          "is in rack 'r2'",
         "fix": "plug it into a PDU of rack 'r1'"},
        {"type": "unassigned_psu", "message": "PSU n2/1: not assigned to any circuit",
         "fix": "assign it to a circuit of rack 'r2'", "node": "n2", "psu": 1},
        {"type": "unassigned_psu", "message": "PSU n2/2: not assigned to any circuit",
         "fix": "assign it to a circuit of rack 'r2'", "node": "n2", "psu": 2},
    ]


def test_a_psu_number_given_as_text_is_a_violation_not_a_crash():
    result = check_assignment(_two_racks(), [_entry("n1", "1")])
    assert result["violations"][0] == {
        "type": "unknown_psu", "message": "assignment entry #1 (n1/1 -> pa/c1): node 'n1' has PSUs 1..2, got '1'",
        "fix": "number PSUs from 1 to psus"}


@pytest.mark.parametrize("assignment, message", [
    ({"layout": []}, "assignment must be a list of {node, psu, pdu, circuit} dicts, got {'layout': []} of type dict"),
    ("n1/1", "assignment must be a list of {node, psu, pdu, circuit} dicts, got 'n1/1' of type str"),
    ([{"node": "n1", "psu": 1}], "assignment entry #1 must be a dict with keys node, psu, pdu, circuit, got "
                                 "{'node': 'n1', 'psu': 1} of type dict"),
])
def test_an_assignment_of_the_wrong_shape_is_refused_with_the_exact_message(assignment, message):
    with pytest.raises(PowerLayoutError) as err:
        check_assignment(_two_racks(), assignment)
    assert str(err.value) == message


def test_no_assignment_at_all_is_refused_with_the_exact_message():
    with pytest.raises(PowerLayoutError) as err:
        check_assignment(_two_racks())
    assert str(err.value) == "no assignment given: pass a list of {node, psu, pdu, circuit} or set 'assignment' in the input"


def test_check_assignment_summary_and_psu_loads():
    # Each node: 2300 W / (230 V x 0.95) = 10.526 A when one of its two PSUs is lost (half of it normally).
    # pa/c1 and pa/c2: 10.526 / 12.8 = 0.8224; pb/c1 rated 10 A (8 A limit) carries both n2 PSUs: 10.526 / 8 = 1.3158
    data = _two_racks()
    data["pdus"][1]["circuits"][0]["rating_a"] = 10
    result = check_assignment(data, [_entry("n1", 1), _entry("n1", 2, circuit="c2"),
                                     _entry("n2", 1, pdu="pb"), _entry("n2", 2, pdu="pb")])
    assert (result["summary"]["worst_circuit"], result["summary"]["worst_utilisation"]) == ("pb/c1", 1.3158)
    assert result["psu_loads"] == [
        {"node": name, "node_type": "", "rating_w": None, "normal_w": 1150, "worst_w": 2300,
         "worst_scenario": "any one of its PSUs lost", "live_psus": 1} for name in ("n1", "n2")]


def test_watts_are_rounded_to_a_tenth_and_whole_watts_are_ints():
    assert _watts(1234.56) == 1234.6
    assert _watts(1234.04) == 1234
    assert isinstance(_watts(3300.0), int)
    assert _watts(None) is None


def test_worst_keeps_the_earlier_scenario_on_an_exact_tie():
    # threshold = 0 x (1 + 1e-9) + 1e-12 = 1e-12: an offer of exactly that is not strictly larger
    worst = _Worst([0.0], [0.0], "normal")
    worst.offer(0, 1e-12, 5.0, "feed A lost")
    assert (worst.amps, worst.watts, worst.scenario) == ([0.0], [0.0], ["normal"])
    worst.offer(0, 2e-12, 5.0, "feed A lost")
    assert (worst.amps, worst.watts, worst.scenario) == ([2e-12], [5.0], ["feed A lost"])


def test_psu_overload_violations_and_psu_loads_in_full():
    # One node, 3000 W on two 2000 W PSUs, one on feed A and one on feed B: normally 1500 W each; the loss of either
    # feed, or of either PSU, leaves one PSU carrying all 3000 W, above its rating. The worst scenario of the PSU
    # table is the first that reaches 3000 W (feed A lost); feed B lost only ties it.
    data = {"nodes": [{"name": "n1", "rack": "r1", "max_power_w": 3000, "psus": 2, "psus_required": 1,
                       "psu_rating_w": 2000}],
            "pdus": [{"name": name, "rack": "r1", "feed": feed, "voltage": 230, "phases": 1,
                      "circuits": [{"name": "c1", "rating_a": 32}]} for name, feed in (("pa", "A"), ("pb", "B"))]}
    result = check_assignment(data, [_entry("n1", 1), _entry("n1", 2, pdu="pb")])
    head = ("node 'n1' in scenario '%s': its 1 live PSU(s) must carry 3000 W, 3000.0 W each, above their 2000 W rating "
            "(1 x 2000 W = 2000 W < 3000 W); ")
    feed_fix = ("a third feed, so that a feed loss leaves more PSUs, or a node power cap of at most 2000 W "
                "(gpufleet_power_cap)")
    feed_text = "the node runs throttled (or shuts down) until the feed returns; fix: " + feed_fix
    psu_fix = "a node power cap of at most 2000 W, or PSUs of a higher rating"
    common = {"type": "psu_overload", "node": "n1", "node_type": "", "rack": "r1", "live_psus": 1, "watts": 3000,
              "rating_w": 2000}
    assert result["violations"] == [
        dict(common, scenario="feed A lost", message=head % "feed A lost" + feed_text, fix=feed_fix),
        dict(common, scenario="feed B lost", message=head % "feed B lost" + feed_text, fix=feed_fix),
        dict(common, scenario="any one of its PSUs lost", message=head % "any one of its PSUs lost" + "fix: " + psu_fix,
             fix=psu_fix)]
    assert result["psu_loads"] == [{"node": "n1", "node_type": "", "rating_w": 2000, "normal_w": 1500, "worst_w": 3000,
                                    "worst_scenario": "feed A lost", "live_psus": 1}]


def test_node_down_in_every_kind_of_scenario_and_unloaded_circuits_stay_normal():
    # n1 (1 of 2 PSUs required) has both on feed A: down when A is lost, and then skipped in that scenario -- the
    # nodes after it are still evaluated (n2 goes down too). n2 needs both PSUs (A and B): down when either feed or
    # either PSU is lost. n3 has only one of its two required PSUs plugged: down normally, and that PSU carries all
    # 3000 W, above its 1000 W rating. Circuit pa/c2 and PDU pc carry nothing: their worst scenario stays normal.
    def pdu(name, feed, circuits=("c1",)):
        return {"name": name, "rack": "r1", "feed": feed, "voltage": 230, "phases": 1,
                "circuits": [{"name": c, "rating_a": 32} for c in circuits]}
    data = {"nodes": [{"name": "n1", "rack": "r1", "max_power_w": 1000, "psus": 2, "psus_required": 1},
                      {"name": "n2", "rack": "r1", "max_power_w": 1000, "psus": 2, "psus_required": 2},
                      {"name": "n3", "rack": "r1", "max_power_w": 3000, "psus": 2, "psus_required": 2,
                       "psu_rating_w": 1000}],
            "pdus": [pdu("pa", "A", ("c1", "c2")), pdu("pb", "B"), pdu("pc", "C")]}
    result = check_assignment(data, [_entry("n1", 1), _entry("n1", 2), _entry("n2", 1), _entry("n2", 2, pdu="pb"),
                                     _entry("n3", 1)])

    def down(node, scenario, live, required, most):
        return {"type": "node_down", "node": node, "rack": "r1", "scenario": scenario, "live_psus": live,
                "psus_required": required,
                "message": "node '%s' goes down in scenario '%s': %d live PSU(s) < psus_required %d"
                           % (node, scenario, live, required),
                "fix": "spread its 2 PSUs over the feeds of rack 'r1' so every feed carries at most %d" % most}
    assert [v for v in result["violations"] if v["type"] == "node_down"] == [
        down("n3", "normal", 1, 2, 0), down("n1", "feed A lost", 0, 1, 1), down("n2", "feed A lost", 1, 2, 0),
        down("n2", "feed B lost", 1, 2, 0), down("n2", "any one of its PSUs lost", 1, 2, 0)]
    normal = [v for v in result["violations"] if v["type"] == "psu_overload" and v["scenario"] == "normal"]
    assert normal == [{
        "type": "psu_overload", "node": "n3", "node_type": "", "rack": "r1", "scenario": "normal", "live_psus": 1,
        "watts": 3000, "rating_w": 1000,
        "message": "node 'n3' in scenario 'normal': its 1 live PSU(s) must carry 3000 W, 3000.0 W each, above their "
                   "1000 W rating (1 x 1000 W = 1000 W < 3000 W); fix: PSUs of a higher rating, or more PSUs",
        "fix": "PSUs of a higher rating, or more PSUs"}]
    assert [(c["pdu"], c["circuit"], c["worst_scenario"]) for c in result["circuits"]] == [
        ("pa", "c1", "feed B lost"), ("pa", "c2", "normal"), ("pb", "c1", "feed A lost"), ("pc", "c1", "normal")]
    assert [(p["pdu"], p["worst_line_scenario"]) for p in result["pdus"]] == [
        ("pa", "feed B lost"), ("pb", "feed A lost"), ("pc", "normal")]


def _one_rack(*pdus):
    return [{"name": name, "rack": "r1", "feed": feed, "voltage": 230, "phases": 1,
             "circuits": [{"name": c, "rating_a": 32} for c in circuits]} for name, feed, circuits in pdus]


def test_every_psu_loss_is_evaluated_after_two_psus_on_one_circuit():
    # 3000 W on three PSUs, 1 and 2 on c1 (2000 W), 3 on c2 (1000 W). Losing PSU 1 (or 2, the same loads) puts
    # 1500 W on each circuit; losing PSU 3 puts all 3000 W on c1: that is c1's worst, found after PSU 2 was skipped.
    # n0, listed first, has no PSU assigned: the nodes after it are still evaluated.
    data = {"nodes": [{"name": "n0", "rack": "r1", "max_power_w": 100, "psus": 1, "psus_required": 1},
                      {"name": "n1", "rack": "r1", "max_power_w": 3000, "psus": 3, "psus_required": 1}],
            "pdus": _one_rack(("pa", "A", ("c1", "c2")))}
    result = check_assignment(data, [_entry("n1", 1), _entry("n1", 2), _entry("n1", 3, circuit="c2")])
    assert [(c["circuit"], c["normal_w"], c["worst_w"], c["worst_scenario"]) for c in result["circuits"]] == [
        ("c1", 2000, 3000, "PSU n1/3 lost"), ("c2", 1000, 1500, "PSU n1/1 lost")]


def test_psu_table_keeps_the_first_worst_scenario_of_small_nodes():
    # 600 W and 1 W nodes, one PSU on feed A and one on feed B: feed A lost doubles the load of the other PSU (to
    # 600 W; to 1 W, a rise of only 0.5 W), and feed B lost only ties it.
    data = {"nodes": [{"name": "n1", "rack": "r1", "max_power_w": 600, "psus": 2, "psus_required": 1},
                      {"name": "n2", "rack": "r1", "max_power_w": 1, "psus": 2, "psus_required": 1}],
            "pdus": _one_rack(("pa", "A", ("c1",)), ("pb", "B", ("c1",)))}
    result = check_assignment(data, [_entry("n1", 1), _entry("n1", 2, pdu="pb"), _entry("n2", 1),
                                     _entry("n2", 2, pdu="pb")])
    assert result["psu_loads"] == [
        {"node": "n1", "node_type": "", "rating_w": None, "normal_w": 300, "worst_w": 600,
         "worst_scenario": "feed A lost", "live_psus": 1},
        {"node": "n2", "node_type": "", "rating_w": None, "normal_w": 0.5, "worst_w": 1,
         "worst_scenario": "feed A lost", "live_psus": 1}]


def test_circuit_and_pdu_reports_in_full_on_a_three_phase_pdu():
    # 401 V wye: 401 / sqrt(3) = 231.5174 V line to neutral (231.52). n1 (1001.1 W) on L1 and L2, n2 (333.33 W) on L1:
    # L1 carries 500.55 + 333.33 = 833.88 W, L2 500.55 W, L3 nothing; amps = W / (231.5174 V x 0.95). Losing n1's PSU
    # 2 puts its 1001.1 W on L1: 1334.43 W, 6.067 A. Imbalance: average 2.022 A, largest deviation L3's 2.022 A: 100 %.
    data = {"nodes": [{"name": "n1", "rack": "r1", "max_power_w": 1001.1, "psus": 2, "psus_required": 1},
                      {"name": "n2", "rack": "r1", "max_power_w": 333.33, "psus": 1, "psus_required": 1}],
            "imbalance_limit": 0.1,
            "pdus": [{"name": "p3", "rack": "r1", "feed": "A", "voltage": 401, "phases": 3, "wiring": "wye",
                      "circuits": [{"name": "c%d" % k, "rating_a": 16, "phase": "L%d" % k} for k in (1, 2, 3)]}]}
    result = check_assignment(data, [_entry("n1", 1, pdu="p3"), _entry("n1", 2, pdu="p3", circuit="c2"),
                                     _entry("n2", 1, pdu="p3")])
    common = {"pdu": "p3", "rack": "r1", "feed": "A", "voltage": 231.52, "rating_a": 16.0, "limit_a": 12.8}
    assert result["circuits"] == [
        dict(common, circuit="c1", phase="L1", psus=["n1/1", "n2/1"], used=True, normal_a=3.791, normal_w=833.9,
             worst_a=6.067, worst_w=1334.4, worst_scenario="PSU n1/2 lost", utilisation=0.474),
        dict(common, circuit="c2", phase="L2", psus=["n1/2"], used=True, normal_a=2.276, normal_w=500.6,
             worst_a=4.552, worst_w=1001.1, worst_scenario="PSU n1/1 lost", utilisation=0.3556),
        dict(common, circuit="c3", phase="L3", psus=[], used=False, normal_a=0.0, normal_w=0.0,
             worst_a=0.0, worst_w=0.0, worst_scenario="normal", utilisation=0.0)]
    lines = {"L1": 3.791, "L2": 2.276, "L3": 0.0}
    assert result["pdus"] == [{
        "pdu": "p3", "rack": "r1", "feed": "A", "voltage": 401.0, "phases": 3, "wiring": "wye",
        "line_currents_a": lines, "neutral_a": 3.305, "imbalance": 1.0, "worst_line_a": 6.067,
        "worst_line_scenario": "PSU n1/2 lost"}]
    assert [v for v in result["violations"] if v["type"] == "imbalance"] == [{
        "type": "imbalance", "pdu": "p3", "rack": "r1", "scenario": "normal", "imbalance": 1.0, "limit": 0.1,
        "line_currents_a": lines,
        "message": "PDU 'p3' phase imbalance 100.0 % exceeds 10.0 % (L1 3.79 A, L2 2.28 A, L3 0.00 A; NEMA: max "
                   "deviation from average / average)",
        "fix": "move PSUs from circuits loading L1 to circuits loading L3, or raise imbalance_limit"}]


def test_a_psu_loss_on_a_wye_pdu_moves_the_load_along_its_phase():
    # 400 V wye (230.94 V line to neutral), n1 (1000 W) with PSU 1 on L2 and PSU 2 on L3: 500 W, 2.279 A on each. Losing
    # either PSU puts the whole 1000 W, 4.558 A, on the other's line, at that line's angle: the line current doubles
    # (2.279 A at -120 degrees plus 2.279 A at -120 degrees), where turning the lost share the other way round would
    # give 2.279 A at -120 plus 2.279 A at +120 degrees, 2.279 A. A tie between the two losses keeps the first.
    data = {"nodes": [{"name": "n1", "rack": "r1", "max_power_w": 1000, "psus": 2, "psus_required": 1}],
            "pdus": [{"name": "p3", "rack": "r1", "feed": "A", "voltage": 400, "phases": 3, "wiring": "wye",
                      "circuits": [{"name": "c%d" % k, "rating_a": 16, "phase": "L%d" % k} for k in (1, 2, 3)]}]}
    result = check_assignment(data, [_entry("n1", 1, pdu="p3", circuit="c2"), _entry("n1", 2, pdu="p3", circuit="c3")])
    (pdu,) = result["pdus"]
    assert pdu["line_currents_a"] == {"L1": 0.0, "L2": 2.279, "L3": 2.279}
    assert (pdu["worst_line_a"], pdu["worst_line_scenario"]) == (4.558, "PSU n1/1 lost")


def test_a_psu_loss_overload_below_one_amp_is_found():
    # Two 1 A circuits (0.8 A allowed) at 230 V: n1 (200 W) draws 0.458 A on each; losing either PSU puts 0.915 A on
    # the other, an overload found only among the PSU losses (losing feed A takes both circuits).
    data = {"nodes": [{"name": "n1", "rack": "r1", "max_power_w": 200, "psus": 2, "psus_required": 1}],
            "pdus": [{"name": "pa", "rack": "r1", "feed": "A", "voltage": 230, "phases": 1,
                      "circuits": [{"name": "c1", "rating_a": 1}, {"name": "c2", "rating_a": 1}]}]}
    result = check_assignment(data, [_entry("n1", 1), _entry("n1", 2, circuit="c2")])
    assert [(v["circuit"], v["scenario"], v["amps"]) for v in result["violations"] if v["type"] == "overload"] == [
        ("c1", "PSU n1/2 lost", 0.915), ("c2", "PSU n1/1 lost", 0.915)]


# ---------------------------------------------------------------- PSU ratings (a DGX H100-class node)

def test_pdu_check_names_the_psu_overload():
    data = hgx_power(["A", "B"])
    assignment = [{"node": n, "psu": p, "pdu": "r01-pdu-a" if p <= 3 else "r01-pdu-b", "circuit": "cb%02d" % p}
                  for n in ("compute01", "compute02") for p in range(1, 7)]
    check = check_assignment(data, assignment)
    psu = [v for v in check["violations"] if v["type"] == "psu_overload"]
    assert {(v["node"], v["scenario"], v["watts"], v["rating_w"]) for v in psu} == {
        (n, "feed %s lost" % f, 3400, 3300) for n in ("compute01", "compute02") for f in "AB"}
    assert all("third feed" in v["fix"] for v in psu)
