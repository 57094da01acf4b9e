# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Tests that kill mutants `make mutation MODULES=power/layout` found alive (docs/testing.md).

The planner's bookkeeping worked by hand: a PSU's sizes per scenario (_Psu), a circuit filling up (_Slot), the
out-of-circuits refusal word for word, and the per-rack circuit counts of the report; then whole layouts worked by hand
that pin the choices the planner makes: which of two fitting circuits takes a PSU, how many PSUs of one node share a
circuit, circuits loaded exactly to their limit, the phase-first retry, and the too-big refusal for every node.
"""
from __future__ import annotations

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.power.scenarios import check_assignment
from ansible_collections.gpufleet.cluster.plugins.module_utils.power.layout import (
    PowerLayoutError,
    _Psu,
    _Slot,
    plan_layout,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.power.model import Node, parse_power_input


def _node(watts, psus, pf, name="n1"):
    return Node(index=0, name=name, rack="r1", max_power_w=watts, psus=psus, psus_required=1, power_factor=pf)


def test_psu_sizes_two_feeds():
    # 2400 W, 2 PSUs, PF 0.8: normal 2400 / 2 / 0.8 = 1500 VA; feed B lost: 2400 / 1 / 0.8 = 3000 VA;
    # another PSU lost: 2400 x (1/1 - 1/2) / 0.8 = 1500 VA more = 3000 VA, a tie that goes to the feed loss
    size = _Psu(_node(2400.0, 2, 0.8), "A", {"A": 1, "B": 1})
    assert (size.normal, size.lost, size.delta) == (1500.0, {"B": 3000.0}, 1500.0)
    assert (size.worst, size.worst_scenario) == (3000.0, "feed B lost")


def test_psu_sizes_three_feeds_tie_goes_to_the_first_feed():
    # 3000 W, 3 PSUs on A, B, C, PF 1: normal 1000; B or C lost: 3000 / 2 = 1500 each (B first); another PSU lost:
    # 1000 + 3000 x (1/2 - 1/3) = 1500: no more than the feed loss
    size = _Psu(_node(3000.0, 3, 1.0), "A", {"A": 1, "B": 1, "C": 1})
    assert (size.normal, size.lost) == (1000.0, {"B": 1500.0, "C": 1500.0})
    assert size.delta == pytest.approx(500.0)
    assert (size.worst, size.worst_scenario) == (1500.0, "feed B lost")


def test_psu_sizes_when_another_psu_is_the_worst():
    # 4 PSUs on 2 feeds (2 each) and a third feed with none: normal 4000 / 4 = 1000; B lost: 4000 / 2 = 2000;
    # C lost (no PSU there): 1000; another PSU lost: 1000 + 4000 x (1/3 - 1/4) = 1333.3 < 2000
    size = _Psu(_node(4000.0, 4, 1.0, name="big"), "A", {"A": 2, "B": 2, "C": 0})
    assert size.lost == {"B": 2000.0, "C": 1000.0}
    assert (size.worst, size.worst_scenario) == (2000.0, "feed B lost")
    # 3 PSUs on 3 feeds at PF 0.5: another PSU lost = (1000 + 500) / 0.5 = 3000 VA, feed loss 1500 / 0.5 = 3000: tie
    size = _Psu(_node(3000.0, 3, 0.5, name="half"), "A", {"A": 1, "B": 1, "C": 1})
    assert (size.normal, size.delta) == (2000.0, pytest.approx(1000.0))
    assert (size.worst, size.worst_scenario) == (3000.0, "feed B lost")


def _circuit(rating_a=32, voltage=230):
    data = {"nodes": [{"name": "n1", "rack": "r1", "max_power_w": 1, "psus": 2, "psus_required": 1}],
            "pdus": [{"name": "pa", "rack": "r1", "feed": "A", "voltage": voltage, "phases": 1,
                      "circuits": [{"name": "c1", "rating_a": rating_a}]}]}
    return parse_power_input(data).circuits[0]


def test_slot_fills_with_two_psus_of_one_node_then_another():
    # 4600 W, 4 PSUs on A and B (2 each), PF 1, at 230 V: per PSU normal 1150 VA = 5 A, feed B lost 2300 VA = 10 A,
    # another PSU lost 4600 x (1/3 - 1/4) = 383.3 VA = 1.667 A more. Circuit 32 A x 0.8 = 25.6 A.
    size = _Psu(_node(4600.0, 4, 1.0), "A", {"A": 2, "B": 2})
    slot = _Slot(_circuit(), 0, ["A", "B"], "A", 1150.0)
    assert slot.fits(0, size)
    slot.add(0, size)
    assert (slot.normal, slot.lost, slot.cur_node, slot.cur_count) == (pytest.approx(5.0), {"B": pytest.approx(10.0)}, 0, 1)
    assert slot.dmax == pytest.approx(5.0 / 3.0)
    slot.add(0, size)  # its second PSU on A: both are lost with another of its PSUs
    assert (slot.normal, slot.lost["B"], slot.cur_count) == (pytest.approx(10.0), pytest.approx(20.0), 2)
    assert slot.dmax == pytest.approx(10.0 / 3.0)
    assert not slot.full()  # 25.6 - 20 = 5.6 A left, above one PSU's 1150 / 230 = 5 A
    other = _Psu(_node(1150.0, 2, 1.0, name="n2"), "A", {"A": 1, "B": 1})  # 2.5 A, 5 A if B is lost
    assert slot.fits(1, other)  # B lost: 20 + 5 = 25 <= 25.6
    slot.add(1, other)
    assert (slot.cur_node, slot.cur_count, slot.dmax) == (1, 1, pytest.approx(10.0 / 3.0))
    assert slot.full()  # 0.6 A left, below the smallest PSU (5 A)
    assert not slot.fits(2, other)  # B lost: 25 + 5 > 25.6


def test_slot_refuses_by_normal_load_and_by_any_lost_feed():
    size = _Psu(_node(4600.0, 2, 1.0), "A", {"A": 1, "B": 1})  # 10 A normal, 20 A with B lost
    slot = _Slot(_circuit(16), 0, ["A", "B"], "A", 2300.0)  # 12.8 A
    assert not slot.fits(0, size)  # 20 A > 12.8 A with B lost
    small = _Psu(_node(2300.0, 2, 1.0), "A", {"A": 1, "B": 1})  # 5 A, 10 A with B lost
    assert slot.fits(0, small)
    slot.add(0, small)
    assert not slot.fits(1, small)  # B lost: 20 A


def _rack(nodes, feeds):
    return {"nodes": [{"name": "n%d" % i, "rack": "r1", "max_power_w": 1472, "psus": 2, "psus_required": 1,
                       "power_factor": 1.0} for i in range(1, nodes + 1)],
            "pdus": [{"name": "p" + feed.lower(), "rack": "r1", "feed": feed, "voltage": 230, "phases": 1,
                      "circuits": [{"name": "c%d" % i, "rating_a": a} for i, a in enumerate(ratings, start=1)]}
                     for feed, ratings in feeds]}


def test_out_of_circuits_word_for_word():
    # each PSU: 736 VA normally, 1472 VA = 6.4 A when the other feed is lost; a 16 A circuit (12.8 A) takes 2,
    # a 10 A one (8 A) takes 1. Feed A (16 A + 10 A) places n1, n2 and n3; feed B (16 A) places n1 and n2.
    with pytest.raises(PowerLayoutError) as caught:
        plan_layout(_rack(7, [("A", [16, 10]), ("B", [16])]))
    assert str(caught.value) == (
        "no layout exists: "
        "rack 'r1' is out of circuits on feed A: 4 PSU(s) of n4, n5, n6, n7 could not be placed; missing 5888.0 W worst "
        "case (25.60 A at 230.0 V) beyond the 2 circuit(s) on feed A; fix: add about 2 more 16 A circuit(s) on feed A "
        "in rack 'r1' (each takes 2 such PSU(s)), or move nodes to another rack | "
        "rack 'r1' is out of circuits on feed B: 5 PSU(s) of n3, n4, n5, n6, n7 could not be placed; missing 7360.0 W "
        "worst case (32.00 A at 230.0 V) beyond the 1 circuit(s) on feed B; fix: add about 3 more 16 A circuit(s) on "
        "feed B in rack 'r1' (each takes 2 such PSU(s)), or move nodes to another rack")


def test_out_of_circuits_names_five_nodes_then_a_count():
    with pytest.raises(PowerLayoutError) as caught:
        plan_layout(_rack(9, [("A", [16]), ("B", [16])]))
    assert "7 PSU(s) of n3, n4, n5, n6, n7 and 2 more could not be placed" in str(caught.value)


def test_report_counts_circuits_per_rack():
    data = _rack(2, [("A", [16, 16]), ("B", [16])])
    data["nodes"].append({"name": "m1", "rack": "r2", "max_power_w": 1472, "psus": 2, "psus_required": 1,
                          "power_factor": 1.0})
    data["pdus"] += [{"name": "qa", "rack": "r2", "feed": "A", "voltage": 230, "phases": 1,
                      "circuits": [{"name": "c1", "rating_a": 16}]},
                     {"name": "qb", "rack": "r2", "feed": "B", "voltage": 230, "phases": 1,
                      "circuits": [{"name": "c1", "rating_a": 16}, {"name": "c2", "rating_a": 16}]}]
    assert plan_layout(data)["racks"] == [
        {"rack": "r1", "circuits_used": {"A": 1, "B": 1}, "circuits_available": {"A": 2, "B": 1}},
        {"rack": "r2", "circuits_used": {"A": 1, "B": 1}, "circuits_available": {"A": 1, "B": 2}}]


def test_feed_loss_refusal_word_for_word():
    data = _rack(1, [("A", [16]), ("B", [16])])
    data["nodes"][0].update(psus=3, psus_required=2)
    with pytest.raises(PowerLayoutError) as caught:
        plan_layout(data)
    assert str(caught.value) == (
        "node 'n1' cannot survive the loss of one feed: rack 'r1' has feed(s) A, B, so its 3 PSUs put "
        "at least 2 on one feed and only 1 remain after that feed is lost, fewer than psus_required 2; fix: add a feed "
        "to the rack, add PSUs, or lower psus_required")


def test_psu_overload_of_every_node_is_reported():
    # 3000 W, 3 PSUs on feeds A, B, C, PF 0.5, PSUs rated 1000 W: with a feed lost 2 PSUs carry 1500 W each
    data = _rack(2, [("A", [32]), ("B", [32]), ("C", [32])])
    for node in data["nodes"]:
        node.update(max_power_w=3000, psus=3, power_factor=0.5, psu_rating_w=1000)
    with pytest.raises(PowerLayoutError) as caught:
        plan_layout(data)
    one = ("PSU overload: node '%s' in scenario 'feed B lost': its 2 live PSU(s) must carry 3000 W, 1500.0 W each, above "
           "their 1000 W rating (2 x 1000 W = 2000 W < 3000 W); the node runs throttled (or shuts down) until the feed "
           "returns; fix: a third feed, so that a feed loss leaves more PSUs, or a node power cap of at most 2000 W "
           "(gpufleet_power_cap)")
    assert str(caught.value) == "no layout exists: " + one % "n1" + " | " + one % "n2"


def _n(name, watts, psus):
    return {"name": name, "rack": "r1", "max_power_w": watts, "psus": psus, "psus_required": 1, "power_factor": 1.0}


def _pdu(name, feed, ratings, voltage=230):
    return {"name": name, "rack": "r1", "feed": feed, "voltage": voltage, "phases": 1,
            "circuits": [{"name": "c%d" % i, "rating_a": a} for i, a in enumerate(ratings, start=1)]}


def _placed(data):
    """plan_layout's placements as (node, psu, 'pdu/circuit'), after pdu_check accepted them."""
    result = plan_layout(data)
    check = check_assignment(data, result["placements"])
    assert check["ok"], check["violations"][:3]
    return [(p["node"], p["psu"], "%s/%s" % (p["pdu"], p["circuit"])) for p in result["placements"]], result


def _tie_rack(scale=1.0):
    # pb (feed B) is listed first: its circuits are the rack's circuits 0 and 1, pa's c1 (16 A) and c2 (32 A) 2 and 3
    return {"nodes": [_n("n1", 2300 * scale, 2), _n("n2", 2300 * scale, 2), _n("n3", 2300 * scale, 2), _n("n4", 575 * scale, 2)],
            "pdus": [_pdu("pb", "B", [32 * scale, 16 * scale]), _pdu("pa", "A", [16 * scale, 32 * scale])]}


TIE_LAYOUT = [("n1", 1, "pa/c2"), ("n1", 2, "pb/c1"), ("n2", 1, "pa/c2"), ("n2", 2, "pb/c1"),
              ("n3", 1, "pa/c1"), ("n3", 2, "pb/c2"), ("n4", 1, "pa/c1"), ("n4", 2, "pb/c1")]


def test_two_open_circuits_that_both_fit_tie_goes_to_the_first_listed():
    # n1-n3: 2300 W / 2 PSUs = 1150 VA = 5 A per PSU at 230 V, 10 A when the other feed is lost; n4: 575 W, 1.25 A / 2.5 A.
    # Feed A opens its largest circuit first, pa/c2 (32 A x 0.8 = 25.6 A): n1 and n2 (20 A), n3 would make 30 A, so
    # pa/c1 (12.8 A) opens for n3 (10 A). n4 fits both (22.5 A / 12.5 A); both are on pa's one line, so the line current
    # after it is the same, and the tie goes to the circuit listed first, pa/c1, although pa/c2 was opened first.
    # Feed B: pb/c1 takes n1, n2, pb/c2 n3, and n4 fits both: pb/c1, listed first.
    assert _placed(_tie_rack())[0] == TIE_LAYOUT


def test_a_rack_scaled_down_1000_times_gets_the_same_layout():
    # Watts and amps scale together (2.3 W PSUs on 32 mA circuits): the layout is the same, so no term of the fit test
    # mixes units (a PSU-loss increase of 0.575 VA, below 1 VA here, is still a load, not its inverse).
    assert _placed(_tie_rack(0.001))[0] == TIE_LAYOUT


def test_fewest_circuits_opens_the_largest_capacity_before_the_lowest_line_current():
    # Wye PDU pa (400 V): c1 16 A on L1-L2 (400 V x 12.8 A = 5120 VA), c2 32 A on L1 (230.9 V x 25.6 A = 5912 VA).
    # n1: 2000 W / 2 PSUs = 1000 VA per PSU (2000 VA with feed B lost). c1 would draw less line current
    # (1000 / 400 = 2.5 A against 1000 / 230.9 = 4.33 A), but without imbalance_limit the largest circuit opens first.
    wye = {"name": "pa", "rack": "r1", "feed": "A", "voltage": 400, "phases": 3, "wiring": "wye",
           "circuits": [{"name": "c1", "rating_a": 16, "phase": "L1-L2"}, {"name": "c2", "rating_a": 32, "phase": "L1"}]}
    placed, _result = _placed({"nodes": [_n("n1", 2000, 2)], "pdus": [wye, _pdu("pb", "B", [16])]})
    assert placed == [("n1", 1, "pa/c2"), ("n1", 2, "pb/c1")]


def test_small_circuit_takes_a_psu_up_to_its_feed_loss():
    # 322 W / 2 PSUs: 161 VA = 0.7 A per PSU, 1.4 A with the other feed lost (= 0.7 A + 0.7 A for its other PSU lost).
    # A 2 A circuit (1.6 A derated) carries that: nothing but the PSU's own loads counts against it.
    placed, result = _placed({"nodes": [_n("n1", 322, 2)], "pdus": [_pdu("pa", "A", [2]), _pdu("pb", "B", [2])]})
    assert placed == [("n1", 1, "pa/c1"), ("n1", 2, "pb/c1")]
    assert result["summary"]["worst_utilisation"] == 0.875  # 1.4 / 1.6


def test_psu_loading_the_largest_circuit_exactly_to_its_limit_is_placed():
    # 2944 W / 2 PSUs: with the other feed lost one PSU carries 2944 VA = 12.8 A at 230 V, exactly 16 A x 0.8.
    placed, result = _placed({"nodes": [_n("n1", 2944, 2)], "pdus": [_pdu("pa", "A", [16]), _pdu("pb", "B", [16])]})
    assert placed == [("n1", 1, "pa/c1"), ("n1", 2, "pb/c1")]
    assert result["summary"]["worst_utilisation"] == 1.0


def test_planner_accepts_what_pdu_check_accepts_at_the_tolerance_edge():
    # pdu_check accepts a load up to limit x (1 + 1e-9). At 256 V with derating 1.0 every value below is exact in binary:
    # a 4096 x (1 + 1e-9) W node with 2 PSUs puts 16 x (1 + 1e-9) A on a 16 A circuit when the other feed is lost
    # (normal 8 x (1 + 1e-9) A plus as much again when its other PSU is lost): the edge itself, which is accepted.
    watts = 4096 * (1 + 1e-9)
    data = {"nodes": [_n("n1", watts, 2)], "derating": 1.0,
            "pdus": [_pdu("pa", "A", [16], voltage=256), _pdu("pb", "B", [16], voltage=256)]}
    placed, _result = _placed(data)
    assert placed == [("n1", 1, "pa/c1"), ("n1", 2, "pb/c1")]


def test_circuit_with_exactly_the_smallest_psu_left_stays_open():
    # 256 V, derating 1.0, 16 A circuits: limit 16 x (1 + 1e-9) A; feeds A, B, C. n1: 3072 W, 2 PSUs on A and B: 6 A
    # per PSU, 12 A with B lost. n2 starts on C (2 mod 3): C and A, and is sized so that its PSU carries exactly
    # d = 16 x (1 + 1e-9) - 12 = 4.000000016 A (2048.0000082 W / 2 PSUs / 256 V): the smallest PSU of the rack.
    # pa/c1 after n1 has d left, not less, so it stays open, and n2's PSU on A fits it: B lost 12 + d = the limit
    # (n2 has no PSU on B), C lost 6 + 2d, n1's other PSU lost 6 + d + 6. pa/c2 is not needed.
    limit = 16 * (1 + 1e-9)
    data = {"nodes": [_n("n1", 3072, 2), _n("n2", (limit - 12) * 2 * 256, 2)], "derating": 1.0,
            "pdus": [_pdu("pa", "A", [16, 16], voltage=256), _pdu("pb", "B", [16], voltage=256), _pdu("pc", "C", [16], voltage=256)]}
    placed, _result = _placed(data)
    assert placed == [("n1", 1, "pa/c1"), ("n1", 2, "pb/c1"), ("n2", 1, "pc/c1"), ("n2", 2, "pa/c1")]


def test_two_psus_of_one_node_share_a_circuit_when_both_losses_fit():
    # 4140 W, 4 PSUs over feeds A, B, C: A, B, C, A. A PSU on A: 1035 VA = 4.5 A; 4140 / 3 = 1380 VA = 6 A with B or C
    # lost; 4140 x (1/3 - 1/4) = 345 VA = 1.5 A more when another of its PSUs is lost. PSUs 1 and 4 on pa/c1 (12.8 A):
    # B lost 12 A, C lost 12 A, PSU 2 or 3 lost 9 + 2 x 1.5 = 12 A (both of them rise): they fit together.
    data = {"nodes": [_n("n1", 4140, 4)], "pdus": [_pdu("pa", "A", [16, 16]), _pdu("pb", "B", [16]), _pdu("pc", "C", [16])]}
    placed, result = _placed(data)
    assert placed == [("n1", 1, "pa/c1"), ("n1", 2, "pb/c1"), ("n1", 3, "pc/c1"), ("n1", 4, "pa/c1")]
    assert result["summary"]["worst_utilisation"] == 0.9375  # 12 / 12.8


def test_a_psu_loss_raises_only_that_nodes_psus():
    # 230 V, 32 A circuits (25.6 A), feeds A, B, C. n1: 5796 W, 4 PSUs on A, B, C, A; n2: 3864 W, 3 PSUs, which start
    # on B (4 mod 3 = 1): B, C, A. n1 on A: 1449 VA = 6.3 A, 1932 VA = 8.4 A with B or C lost, +483 VA = 2.1 A per
    # PSU when another of its PSUs is lost; n2 on A: 1288 VA = 5.6 A, 8.4 A with B or C lost, +644 VA = 2.8 A.
    # pa/c1 with n1's PSUs 1 and 4 and n2's PSU 3: B lost 25.2 A, C lost 25.2 A, normal 18.2 A plus the larger PSU-loss
    # term, n1's 2 x 2.1 = 4.2 A (n2's is 2.8 A; n1's PSUs do not rise when n2 loses one): 22.4 A. All fit in 25.6 A.
    data = {"nodes": [_n("n1", 5796, 4), _n("n2", 3864, 3)],
            "pdus": [_pdu("pa", "A", [32, 32]), _pdu("pb", "B", [32]), _pdu("pc", "C", [32])]}
    placed, result = _placed(data)
    assert placed == [("n1", 1, "pa/c1"), ("n1", 2, "pb/c1"), ("n1", 3, "pc/c1"), ("n1", 4, "pa/c1"),
                      ("n2", 1, "pb/c1"), ("n2", 2, "pc/c1"), ("n2", 3, "pa/c1")]
    assert result["summary"]["worst_utilisation"] == 0.9844  # 25.2 / 25.6


def test_four_nodes_share_a_circuit_when_one_psu_loss_at_a_time_fits():
    # Five 920 W nodes with 2 PSUs over feeds A, B, C round robin: n1 A B, n2 C A, n3 B C, n4 A B, n5 C A. A PSU:
    # 460 VA = 2 A, 4 A when its node's other feed is lost (or its other PSU), 2 A when a third feed is lost.
    # pa/c1 (12.8 A) takes n1, n2, n4, n5: B lost 4 + 2 + 4 + 2 = 12 A, C lost 2 + 4 + 2 + 4 = 12 A, one PSU lost
    # 8 + 2 = 10 A (one node's PSU at a time, not 8 + 4 x 2). pb/c1 and pc/c1 take three PSUs each (10 A).
    nodes = [_n("n%d" % i, 920, 2) for i in range(1, 6)]
    placed, result = _placed({"nodes": nodes, "pdus": [_pdu("pa", "A", [16, 16]), _pdu("pb", "B", [16]), _pdu("pc", "C", [16])]})
    assert placed == [("n1", 1, "pa/c1"), ("n1", 2, "pb/c1"), ("n2", 1, "pc/c1"), ("n2", 2, "pa/c1"),
                      ("n3", 1, "pb/c1"), ("n3", 2, "pc/c1"), ("n4", 1, "pa/c1"), ("n4", 2, "pb/c1"),
                      ("n5", 1, "pc/c1"), ("n5", 2, "pa/c1")]
    assert result["racks"] == [{"rack": "r1", "circuits_used": {"A": 1, "B": 1, "C": 1},
                                "circuits_available": {"A": 2, "B": 1, "C": 1}}]


IMBALANCE = ("no layout meets imbalance_limit: PDU '%s' phase imbalance 100.0 %% exceeds 20.0 %% (L1 %s A, L2 %s A, "
             "L3 0.00 A; NEMA: max deviation from average / average); fix: move PSUs from circuits loading L1 to "
             "circuits loading L3, or raise imbalance_limit")


def test_phase_first_retry_no_better_keeps_the_fewest_circuits_layout():
    # Feed B: pb0, wye 400 V, one 32 A circuit on L1-L2 (10240 VA), and pb1, 230 V, one 16 A circuit (2944 VA).
    # Two 2300 W nodes: 1150 VA per PSU. Fewest circuits: both B PSUs on pb0/c1, 1150 / 400 = 2.875 A each on L1 and L2:
    # L1 = L2 = 5.75 A, L3 = 0, imbalance 100 %. The phase-first retry moves n2's to pb1 (5 A on its line < 5.75 A), but
    # pb0's L3 stays empty (100 % again): no better, so the refusal shows the first layout's currents.
    wye = {"name": "pb0", "rack": "r1", "feed": "B", "voltage": 400, "phases": 3, "wiring": "wye",
           "circuits": [{"name": "c1", "rating_a": 32, "phase": "L1-L2"}]}
    data = {"nodes": [_n("n1", 2300, 2), _n("n2", 2300, 2)], "imbalance_limit": 0.2,
            "pdus": [_pdu("pa", "A", [32]), wye, _pdu("pb1", "B", [16])]}
    with pytest.raises(PowerLayoutError) as caught:
        plan_layout(data)
    assert str(caught.value) == IMBALANCE % ("pb0", "5.75", "5.75")


def test_phase_first_retry_compares_line_currents_in_amps():
    # Feed A: pa, wye 400 V with c1 32 A on L1 and c2 32 A on L2 (230.9 V each), and pa0, 230 V, one 16 A circuit.
    # n1: 460 W, 4 PSUs (A, B, A, B), 115 VA each. Fewest circuits: PSUs 1 and 3 on pa/c1, L1 = 2 x 0.498 = 0.996 A,
    # imbalance 200 %. Phase first: PSU 1 on pa/c1 (0.498 A, before pa0's 0.500 A); PSU 3 on pa/c2 (the largest line
    # stays 0.498 A; pa/c1 would make 0.996 A and pa0 0.500 A). 100 % < 200 %: that layout is kept, still above 20 %.
    wye = {"name": "pa", "rack": "r1", "feed": "A", "voltage": 400, "phases": 3, "wiring": "wye",
           "circuits": [{"name": "c1", "rating_a": 32, "phase": "L1"}, {"name": "c2", "rating_a": 32, "phase": "L2"}]}
    data = {"nodes": [_n("n1", 460, 4)], "imbalance_limit": 0.2, "pdus": [wye, _pdu("pa0", "A", [16]), _pdu("pb", "B", [16])]}
    with pytest.raises(PowerLayoutError) as caught:
        plan_layout(data)
    assert str(caught.value) == IMBALANCE % ("pa", "0.50", "0.50")


def test_every_node_too_big_for_every_feed_is_reported():
    # 4416 W / 2 PSUs: with the other feed lost a PSU carries 4416 VA = 19.2 A at 230 V; the largest circuit is
    # 16 A x 0.8 = 12.8 A = 2944 W: 1472 W (6.4 A) missing, on both feeds, for n1 and n2 (n3, 1000 W, would fit).
    data = {"nodes": [_n("n1", 4416, 2), _n("n2", 4416, 2), _n("n3", 1000, 2)],
            "pdus": [_pdu("pa", "A", [16]), _pdu("pb", "B", [16])]}
    with pytest.raises(PowerLayoutError) as caught:
        plan_layout(data)
    one = ("node '%s' (4416 W, 2 PSUs) is bigger than any circuit of rack 'r1' can carry: one of its PSUs on feed %s must "
           "carry 4416.0 W (19.20 A at 230.0 V, PF 1) after 'feed %s lost', but the largest circuit on feed %s (%s/c1, 16 A x "
           "0.8 = 12.80 A) carries 2944.0 W; missing 1472.0 W (6.40 A) per PSU; fix: larger breakers, more PSUs or feeds "
           "per node, or lower max_power_w")
    assert str(caught.value) == "no layout exists: " + " | ".join(
        one % (node, feed, other, feed, pdu) for node in ("n1", "n2") for feed, other, pdu in (("A", "B", "pa"), ("B", "A", "pb")))
