# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A DGX H100-class rack for the power tests: nodes of 10.2 kW with six 3.3 kW PSUs, a 400 V wye PDU per feed with
twelve 32 A breakers (tests/unit/plugins/module_utils/power/test_layout.py and test_scenarios.py)."""

from __future__ import annotations

CIRCUITS = [{"name": "cb%02d" % i, "rating_a": 32, "phase": ("L1", "L2", "L3")[i % 3]} for i in range(12)]


def hgx_power(feeds, max_power_w=10200, nodes=2):
    """pdu_layout / pdu_check input: `nodes` such nodes in rack r01 and one PDU per feed."""
    return {
        "nodes": [{"name": "compute%02d" % (i + 1), "rack": "r01", "max_power_w": max_power_w, "psus": 6,
                   "psus_required": 3, "psu_rating_w": 3300, "node_type": "hgx-h100"} for i in range(nodes)],
        "pdus": [{"name": "r01-pdu-%s" % f.lower(), "rack": "r01", "feed": f, "voltage": 400, "phases": 3,
                  "wiring": "wye", "circuits": CIRCUITS} for f in feeds],
    }
