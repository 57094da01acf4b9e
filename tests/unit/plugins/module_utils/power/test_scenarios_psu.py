# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""PSU ratings in pdu_layout and pdu_check, hand-worked on a DGX H100-class node (10.2 kW, six 3.3 kW PSUs)."""

from __future__ import annotations

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.power.scenarios import check_assignment
from ansible_collections.gpufleet.cluster.plugins.module_utils.power.layout import PowerLayoutError, plan_layout

CIRCUITS = [{"name": "cb%02d" % i, "rating_a": 32, "phase": ("L1", "L2", "L3")[i % 3]} for i in range(12)]


def power(feeds, max_power_w=10200, nodes=2):
    return {
        "nodes": [{"name": "compute%02d" % (i + 1), "rack": "r01", "max_power_w": max_power_w, "psus": 6, "psus_required": 3,
                   "psu_rating_w": 3300, "node_type": "hgx-h100"} for i in range(nodes)],
        "pdus": [{"name": "r01-pdu-%s" % f.lower(), "rack": "r01", "feed": f, "voltage": 400, "phases": 3, "wiring": "wye",
                  "circuits": CIRCUITS} for f in feeds],
    }


def test_two_feeds_leave_three_psus_that_cannot_carry_a_full_node():
    # 3 + 3 over feeds A and B: after a feed loss 3 PSUs carry 10200 W, 3400 W each > 3300 W (3 x 3300 = 9900 W).
    with pytest.raises(PowerLayoutError) as err:
        plan_layout(power(["A", "B"]))
    text = str(err.value)
    assert "node 'compute01' (hgx-h100)" in text and "'feed B lost'" in text
    assert "3 live PSU(s) must carry 10200 W, 3400.0 W each, above their 3300 W rating (3 x 3300 W = 9900 W < 10200 W)" in text
    assert "runs throttled" in text and "a third feed" in text and "node power cap of at most 9900 W" in text


def test_two_feeds_carry_a_capped_node():
    # Capped at 319 W per GPU the node draws 10200 - 8 x 381 = 7152 W: 2384 W per PSU after a feed loss.
    result = plan_layout(power(["A", "B"], max_power_w=7152))
    row = result["psu_loads"][0]
    assert row == {"node": "compute01", "node_type": "hgx-h100", "rating_w": 3300, "normal_w": 1192, "worst_w": 2384,
                   "worst_scenario": "feed A lost", "live_psus": 3}


def test_three_feeds_carry_a_full_node():
    # 2 + 2 + 2: a feed loss leaves 4 PSUs, 2550 W each (one PSU lost: 5 x 2040 W); worst 2550 W <= 3300 W.
    result = plan_layout(power(["A", "B", "C"]))
    assert [(r["worst_w"], r["worst_scenario"], r["live_psus"]) for r in result["psu_loads"]] == [
        (2550, "feed A lost", 4), (2550, "feed A lost", 4)]
    assert check_assignment(power(["A", "B", "C"]), result["placements"])["ok"]


def test_pdu_check_names_the_psu_overload():
    data = power(["A", "B"])
    assignment = [{"node": n, "psu": p, "pdu": "r01-pdu-a" if p <= 3 else "r01-pdu-b", "circuit": "cb%02d" % p}
                  for n in ("compute01", "compute02") for p in range(1, 7)]
    check = check_assignment(data, assignment)
    psu = [v for v in check["violations"] if v["type"] == "psu_overload"]
    assert {(v["node"], v["scenario"], v["watts"], v["rating_w"]) for v in psu} == {
        (n, "feed %s lost" % f, 3400, 3300) for n in ("compute01", "compute02") for f in "AB"}
    assert all("third feed" in v["fix"] for v in psu)


def test_one_of_two_psus_left_overload_is_named():
    # 2 PSUs of 3000 W, one per feed, carrying 4000 W: normally 2000 W each, after a feed loss 4000 W on the survivor.
    data = {"nodes": [{"name": "n1", "rack": "r", "max_power_w": 4000, "psus": 2, "psus_required": 1, "psu_rating_w": 3000}],
            "pdus": [{"name": "pa", "rack": "r", "feed": "A", "voltage": 230, "phases": 1, "circuits": [{"name": "c", "rating_a": 32}]},
                     {"name": "pb", "rack": "r", "feed": "B", "voltage": 230, "phases": 1, "circuits": [{"name": "c", "rating_a": 32}]}]}
    with pytest.raises(PowerLayoutError, match=r"node 'n1' in scenario 'feed B lost'.*4000 W, 4000.0 W each.*\(1 x 3000 W = 3000 W < 4000 W\)"):
        plan_layout(data)
