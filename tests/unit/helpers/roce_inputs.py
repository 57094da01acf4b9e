# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Lossless classes for the roce_switch_config and roce_qos_check filters' tests, and the values both refuse."""
from __future__ import annotations


def lossless_class(names):
    """A lossless class of 400G ports, 5 m cables, named ``names``."""
    return {"ports": [{"name": n, "speed_gbps": 400, "cable_m": 5} for n in names]}


SONIC = lossless_class(["Ethernet%d" % (8 * i) for i in range(8)])
HEADROOM = {"Ethernet%d" % (8 * i): {"xoff": 139785, "xon": 16885, "size": 156670} for i in range(8)}
HOST = {"priority": 3, "dscp": [26]}
# A class with every field, and the headroom of its port.
ROCE_CLASS = {"priority": 3, "dscp": [26], "ports": [{"name": "Ethernet0", "speed_gbps": 400, "cable_m": 5}],
              "ecn": {"min_threshold_bytes": 150000}, "pfc_watchdog": {"detection_ms": 200}}
ROCE_HEADROOM = {"Ethernet0": {"xoff": 139785, "xon": 16885, "size": 156670}}

# Issue 13: values of a class both filters refuse, and the words of the refusal.
PORTS = [{"name": "Ethernet0", "speed_gbps": 400, "cable_m": 5}]
REFUSED = [
    ({"ports": PORTS, "dscp": [64]}, ("dscp[0] 64 is outside 0..63",)),
    ({"ports": PORTS, "dscp": ["26"]}, ("dscp[0] must be an integer in 0..63, got '26'",)),
    ({"ports": PORTS, "priority": 8}, ("priority 8 is outside 0..7",)),
    ({"ports": PORTS, "default_priority": -1}, ("default_priority -1 is outside 0..7",)),
    ({"ports": [dict(PORTS[0], name="Ethernet0\n")]},
     ("ports[0].name: 'Ethernet0\\n' is not allowed; expected a switch port name",)),
    ({"ports": [dict(PORTS[0], name="Ethernet0|3")]}, ("ports[0].name: 'Ethernet0|3' is not allowed",)),
    ({"ports": [dict(PORTS[0], cable_m="5m\n")]}, ("ports[0].cable_m must be an integer in 1..100000, got '5m\\n'",)),
    ({"ports": [dict(PORTS[0], speed_gbps=400.0)]}, ("ports[0].speed_gbps 400.0 is not an Ethernet speed",)),
]
