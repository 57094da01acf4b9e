# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""pdu_layout planner: exact layouts, missing-capacity errors, phase balance, 2,048-node scale."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.power.scenarios import check_assignment
from ansible_collections.gpufleet.cluster.plugins.module_utils.power.layout import PowerLayoutError, plan_layout

SQRT3 = math.sqrt(3.0)


def _nodes(count, rack="r01", watts=5600, psus=4, required=2, prefix="gpu", **extra):
    return [dict({"name": "%s%02d" % (prefix, i), "rack": rack, "max_power_w": watts, "psus": psus, "psus_required": required},
                 **extra) for i in range(1, count + 1)]


def _single(name, feed, circuits, rack="r01", rating=32):
    return {"name": name, "rack": rack, "feed": feed, "voltage": 230, "phases": 1,
            "circuits": [{"name": "cb%d" % i, "rating_a": rating} for i in range(1, circuits + 1)]}


def _wye(name, feed, circuits, rack="r01", rating=32):
    return {"name": name, "rack": rack, "feed": feed, "voltage": 400, "phases": 3, "wiring": "wye",
            "circuits": [{"name": "cb%d" % i, "rating_a": rating, "phase": "L%d" % ((i - 1) % 3 + 1)}
                         for i in range(1, circuits + 1)]}


def _used(result, feed):
    return [c for c in result["circuits"] if c["used"] and c["feed"] == feed]


def _verified(data, result):
    """The independent pdu_check path must accept every layout the planner returns."""
    check = check_assignment(data, result["placements"])
    assert check["ok"], check["violations"][:3]
    return result


class TestSinglePhase:
    def test_reference_nodes_with_enough_breakers(self):
        # After feed B is lost each feed-A PSU carries 5600 / 2 = 2800 W = 12.815 A at 230 V, PF 0.95.
        # Two on one 32 A breaker would be 25.629 A > 25.6 A, so the optimum is one PSU per breaker:
        # 8 nodes x 2 PSUs = 16 breakers per feed, each at 12.815 / 25.6 = 50.06 %.
        data = {"nodes": _nodes(8), "pdus": [_single("pdu-a", "A", 16), _single("pdu-b", "B", 16)]}
        result = _verified(data, plan_layout(data))
        assert len(result["placements"]) == 32
        assert result["racks"] == [{"rack": "r01", "circuits_used": {"A": 16, "B": 16}, "circuits_available": {"A": 16, "B": 16}}]
        for c in result["circuits"]:
            assert len(c["psus"]) == 1
            assert (c["normal_a"], c["normal_w"], c["worst_a"], c["worst_w"]) == (6.407, 1400.0, 12.815, 2800.0)
            assert c["worst_scenario"] == "feed %s lost" % ("B" if c["feed"] == "A" else "A")
            assert c["utilisation"] == 0.5006
        # Round-robin feed split: PSUs 1 and 3 on feed A, 2 and 4 on feed B.
        gpu01 = [(p["psu"], p["pdu"]) for p in result["placements"] if p["node"] == "gpu01"]
        assert gpu01 == [(1, "pdu-a"), (2, "pdu-b"), (3, "pdu-a"), (4, "pdu-b")]

    def test_power_factor_one_packs_two_per_breaker(self):
        # PF 1.0: 2800 W / 230 V = 12.174 A per PSU after a feed loss; two = 24.348 A <= 25.6 A, three = 36.5 A.
        # 16 PSUs per feed / 2 = 8 breakers per feed (the optimum), each at 24.348 / 25.6 = 95.11 %.
        data = {"nodes": _nodes(8, power_factor=1.0), "pdus": [_single("pdu-a", "A", 16), _single("pdu-b", "B", 16)]}
        result = _verified(data, plan_layout(data))
        assert result["summary"]["circuits_used"] == 16
        for c in _used(result, "A"):
            assert c["worst_a"] == 24.348 and c["utilisation"] == 0.9511 and len(c["psus"]) == 2

    def test_reference_rack_is_out_of_circuits(self):
        # The reference PDUs have 4 breakers per feed: 4 PSUs fit (one each), 12 per feed do not.
        # Missing: 12 x 2800 W = 33600 W worst case = 33600 / (230 x 0.95) = 153.78 A; 12 more breakers.
        data = {"nodes": _nodes(8), "pdus": [_single("pdu-a", "A", 4), _single("pdu-b", "B", 4)]}
        with pytest.raises(PowerLayoutError) as info:
            plan_layout(data)
        message = str(info.value)
        for feed in ("A", "B"):
            assert ("rack 'r01' is out of circuits on feed %s: 12 PSU(s) of gpu03, gpu04, gpu05, gpu06, gpu07 and 1 more "
                    "could not be placed; missing 33600.0 W worst case (153.78 A at 230.0 V) beyond the 4 circuit(s) on feed %s; "
                    "fix: add about 12 more 32 A circuit(s) on feed %s in rack 'r01' (each takes 1 such PSU(s))" % (feed, feed, feed)
                    ) in message

    def test_node_bigger_than_any_circuit(self):
        # 12 kW, 2 PSUs (one per feed): after a feed loss one PSU carries 12000 W = 54.92 A at 230 V, PF 0.95.
        # The largest circuit carries 25.6 A = 230 x 25.6 x 0.95 = 5593.6 W: missing 6406.4 W (29.32 A).
        data = {"nodes": _nodes(1, watts=12000, psus=2, required=1, prefix="big"),
                "pdus": [_single("pa", "A", 2), _single("pb", "B", 2)]}
        with pytest.raises(PowerLayoutError) as info:
            plan_layout(data)
        message = str(info.value)
        assert "node 'big01' (12000 W, 2 PSUs) is bigger than any circuit of rack 'r01' can carry" in message
        assert "must carry 12000.0 W (54.92 A at 230.0 V, PF 0.95) after 'feed B lost'" in message
        assert "(pa/cb1, 32 A x 0.8 = 25.60 A) carries 5593.6 W; missing 6406.4 W (29.32 A) per PSU" in message

    def test_largest_circuit_opened_first(self):
        # 2 kW nodes, 2 PSUs: 2000 W = 9.153 A per PSU after a feed loss. A 16 A breaker (12.8 A) takes one,
        # a 32 A breaker (25.6 A) two: both nodes share the 32 A breaker, the 16 A stays free.
        pdus = [dict(_single("pa", "A", 0), circuits=[{"name": "small", "rating_a": 16}, {"name": "big", "rating_a": 32}]),
                dict(_single("pb", "B", 0), circuits=[{"name": "small", "rating_a": 16}, {"name": "big", "rating_a": 32}])]
        data = {"nodes": _nodes(2, watts=2000, psus=2, required=1), "pdus": pdus}
        result = _verified(data, plan_layout(data))
        assert {p["circuit"] for p in result["placements"]} == {"big"}
        big = _used(result, "A")[0]
        assert (big["worst_a"], big["utilisation"]) == (18.307, 0.7151)

    def test_deterministic(self):
        data = {"nodes": _nodes(5, watts=3000), "pdus": [_single("pa", "A", 8), _single("pb", "B", 8)]}
        assert plan_layout(data) == plan_layout(data)


class TestFeeds:
    def test_single_feed_rack_cannot_survive(self):
        data = {"nodes": _nodes(1), "pdus": [_single("pa", "A", 4), _single("pa2", "A", 4)]}
        with pytest.raises(PowerLayoutError, match="node 'gpu01' cannot survive the loss of one feed: rack 'r01' has feed"):
            plan_layout(data)

    def test_too_few_psus_for_required(self):
        # 3 PSUs on 2 feeds: one feed gets 2, leaving 1 < psus_required 2 after it is lost.
        data = {"nodes": _nodes(1, psus=3, required=2), "pdus": [_single("pa", "A", 4), _single("pb", "B", 4)]}
        with pytest.raises(PowerLayoutError) as info:
            plan_layout(data)
        assert "its 3 PSUs put at least 2 on one feed and only 1 remain after that feed is lost, fewer than psus_required 2" in str(
            info.value)

    def test_three_feeds_rotate(self):
        # 4 PSUs over feeds A, B, C: 2+1+1, so 2 survive any feed loss (psus_required 2). The extra PSU
        # rotates: gpu01 gets A twice, gpu02 B twice, gpu03 C twice.
        pdus = [_single("p" + f, f, 8) for f in "ABC"]
        data = {"nodes": _nodes(3, watts=3000), "pdus": pdus}
        result = _verified(data, plan_layout(data))
        feeds = {}
        for p in result["placements"]:
            feeds.setdefault(p["node"], []).append(p["pdu"][1])
        assert feeds == {"gpu01": ["A", "B", "C", "A"], "gpu02": ["B", "C", "A", "B"], "gpu03": ["C", "A", "B", "C"]}
        # Per-PSU watts: 3000 / 4 = 750 normally; losing the feed holding 2 of a node's PSUs leaves 2 live:
        # 1500 W each; losing a feed holding 1 leaves 3: 1000 W. All three nodes share one breaker per feed
        # (3 x 1500 W / 218.5 = 20.6 A <= 25.6 A). Breaker on A: gpu01 has 2 PSUs, gpu02 and gpu03 one each.
        # Feed B lost: gpu01 2 x 1000 + gpu02 1500 (its 2 feed-B PSUs died) + gpu03 1000 = 4500 W = 20.595 A.
        # Feed C lost: gpu01 2 x 1000 + gpu02 1000 + gpu03 1500 = 4500 W too; B comes first.
        a = _used(result, "A")
        assert len(a) == 1 and a[0]["psus"] == ["gpu01/1", "gpu01/4", "gpu02/3", "gpu03/2"]
        assert (a[0]["normal_w"], a[0]["worst_w"], a[0]["worst_a"], a[0]["worst_scenario"]) == (3000.0, 4500.0, 20.595, "feed B lost")


class TestThreePhase:
    def test_fewest_circuits_without_limit(self):
        # 400 V wye: L-N circuits at 230.94 V. After a feed loss a PSU carries 2800 W = 12.762 A, two = 25.525 A
        # <= 25.6 A: 16 PSUs per feed fit 8 breakers (optimum). 8 breakers over 3 lines -> 3, 3, 2:
        # lines 3 x 12.762 = 38.287 A, 38.287 A, 25.525 A; NEMA (38.287 - 34.033) / 34.033 = 0.25.
        data = {"nodes": _nodes(8), "pdus": [_wye("pa", "A", 12), _wye("pb", "B", 12)]}
        result = _verified(data, plan_layout(data))
        assert result["racks"][0]["circuits_used"] == {"A": 8, "B": 8}
        pa = result["pdus"][0]
        assert sorted(pa["line_currents_a"].values()) == [25.525, 38.287, 38.287]
        assert pa["imbalance"] == 0.25
        assert pa["neutral_a"] == pytest.approx(12.762, abs=1e-3)  # phasor sum: one breaker's worth unbalanced
        assert pa["worst_line_a"] == pytest.approx(6 * 2800 / (400 / SQRT3 * 0.95), abs=1e-3)  # 76.575 A
        assert pa["worst_line_scenario"] == "feed B lost"

    def test_imbalance_limit_trades_a_circuit_for_balance(self):
        # With imbalance_limit 0.2 the 0.25 layout is rejected and the rack is redone phase-first:
        # 6, 5, 5 PSUs per line (9 breakers): 38.287, 31.906, 31.906 A -> NEMA 4.254 / 34.033 = 0.125.
        data = {"nodes": _nodes(8), "pdus": [_wye("pa", "A", 12), _wye("pb", "B", 12)], "imbalance_limit": 0.2}
        result = _verified(data, plan_layout(data))
        assert result["racks"][0]["circuits_used"] == {"A": 9, "B": 9}
        for pdu in result["pdus"]:
            assert sorted(pdu["line_currents_a"].values()) == [31.906, 31.906, 38.287]
            assert pdu["imbalance"] == 0.125
            assert pdu["neutral_a"] == pytest.approx(6.381, abs=1e-3)

    def test_imbalance_limit_unreachable(self):
        # 16 PSUs per feed cannot split better than 6/5/5 (0.125) over three lines.
        data = {"nodes": _nodes(8), "pdus": [_wye("pa", "A", 12), _wye("pb", "B", 12)], "imbalance_limit": 0.1}
        with pytest.raises(PowerLayoutError) as info:
            plan_layout(data)
        assert "no layout meets imbalance_limit: PDU 'pa' phase imbalance 12.5 % exceeds 10.0 %" in str(info.value)

    def test_delta_balanced(self):
        # 208 V delta, 30 A branches (24 A limit), PF 1.0, 2.4 kW nodes with 2 PSUs: 2400 W = 11.538 A per PSU
        # after a feed loss, two per branch = 23.077 A. 6 nodes -> 6 PSUs per feed -> 3 branches, one per
        # line pair; normally 2 x 1200 / 208 = 11.538 A per branch, line currents sqrt(3) x 11.538 = 19.985 A.
        pdu = {"voltage": 208, "phases": 3, "wiring": "delta", "rack": "r01",
               "circuits": [{"name": "b%d" % i, "rating_a": 30, "phase": ph}
                            for i, ph in enumerate(["L1-L2", "L2-L3", "L3-L1"] * 2)]}
        data = {"nodes": _nodes(6, watts=2400, psus=2, required=1, power_factor=1.0),
                "pdus": [dict(pdu, name="pa", feed="A"), dict(pdu, name="pb", feed="B")]}
        result = _verified(data, plan_layout(data))
        assert result["racks"][0]["circuits_used"] == {"A": 3, "B": 3}
        for p in result["pdus"]:
            assert p["line_currents_a"] == {"L1": 19.985, "L2": 19.985, "L3": 19.985}
            assert p["imbalance"] == 0.0
        assert {c["worst_a"] for c in result["circuits"] if c["used"]} == {23.077}


def fleet(racks, per_rack, circuits):
    nodes, pdus = [], []
    for r in range(racks):
        rack = "r%03d" % r
        nodes += _nodes(per_rack, rack=rack, prefix=rack + "-n")
        pdus += [_wye(rack + "-A", "A", circuits, rack=rack), _wye(rack + "-B", "B", circuits, rack=rack)]
    return {"nodes": nodes, "pdus": pdus}


def test_2048_node_layout_is_valid():
    # 64 racks x 32 nodes x 4 PSUs = 8,192 PSUs. Per rack and feed 64 PSUs, two per 400 V wye breaker
    # -> 32 breakers of 48: 4,096 in all; 32 over 3 lines = 11/11/10 -> NEMA |10 - 10.667| / 10.667 = 0.0625.
    data = fleet(64, 32, 48)
    result = plan_layout(data)
    assert result["summary"]["nodes"] == 2048 and result["summary"]["psus"] == 8192
    assert len(result["placements"]) == 8192
    assert len({(p["node"], p["psu"]) for p in result["placements"]}) == 8192
    assert result["summary"]["circuits_used"] == 4096
    assert result["summary"]["worst_utilisation"] == 0.9971  # 25.525 / 25.6
    assert {p["imbalance"] for p in result["pdus"]} == {0.0625}
    rack_of = {n["name"]: n["rack"] for n in data["nodes"]}
    pdu_rack = {p["name"]: p["rack"] for p in data["pdus"]}
    assert all(rack_of[p["node"]] == pdu_rack[p["pdu"]] for p in result["placements"])
    per_feed = Counter((p["node"], p["pdu"][-1]) for p in result["placements"])
    assert set(per_feed.values()) == {2}
    check = check_assignment(data, result)
    assert check["ok"] is True and check["summary"]["scenarios"] == 1 + 2 + 8192
