# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Tests that kill mutants `make mutation MODULES=power_layout` found alive (docs/testing.md).

The planner's bookkeeping worked by hand: a PSU's sizes per scenario (_Psu), a circuit filling up (_Slot), the
out-of-circuits refusal word for word, and the per-rack circuit counts of the report.
"""
from __future__ import annotations

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.power_layout import (
    PowerLayoutError,
    _Psu,
    _Slot,
    plan_layout,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.power_model import Node, parse_power_input


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
