# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""PDU layout inputs for the pdu_layout and pdu_check filters' tests."""
from __future__ import annotations


def power(circuits=3):
    """Two 5.6 kW nodes (4 PSUs, 2 required) on 400 V wye PDUs, feed A and B."""
    pdu = {"rack": "r01", "voltage": 400, "phases": 3, "wiring": "wye",
           "circuits": [{"name": "cb%d" % i, "rating_a": 32, "phase": "L%d" % (i % 3 + 1)} for i in range(circuits)]}
    return {
        "nodes": [{"name": "gpu%02d" % i, "rack": "r01", "max_power_w": 5600, "psus": 4, "psus_required": 2}
                  for i in (1, 2)],
        "pdus": [dict(pdu, name="pa", feed="A"), dict(pdu, name="pb", feed="B")],
    }
