# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""pdu_check path: the reference design's rack plan, structural violations, PSU-loss scenarios."""

from __future__ import annotations

import copy

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.power.scenarios import check_assignment
from ansible_collections.gpufleet.cluster.plugins.module_utils.power.model import PowerLayoutError

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
