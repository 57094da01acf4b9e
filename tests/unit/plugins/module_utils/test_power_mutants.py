# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Tests that kill mutants `make mutation MODULES=power` found alive (docs/testing.md).

Each kind of pdu_check violation as a whole dict (keys, rounding, message and fix), worked by hand.
"""
from __future__ import annotations

from ansible_collections.gpufleet.cluster.plugins.module_utils.power import _down, _imbalance, _overload, _structural
from ansible_collections.gpufleet.cluster.plugins.module_utils.power_model import parse_power_input


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
