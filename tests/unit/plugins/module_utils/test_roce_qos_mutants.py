# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Tests that kill mutants `make mutation MODULES=roce_qos` found alive (docs/testing.md).

Every refusal of roce_qos is what an operator reads when a role's preflight stops: the field, the value, the
allowed range and the fix. test_roce_qos.py matches their beginnings; these compare them in full.
"""
from __future__ import annotations

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.roce_qos import (
    RoceQosError,
    check_host,
    check_platform,
    parse_lossless_class,
)

PORTS = [{"name": "Ethernet0", "speed_gbps": 400, "cable_m": 5}, {"name": "Ethernet8", "speed_gbps": 400, "cable_m": 5}]
SWP = [{"name": "swp1", "speed_gbps": 400, "cable_m": 5}]
HEADROOM = {p["name"]: {"xoff": 122880, "xon": 19456, "size": 142336} for p in PORTS}


def _message(function, *args, **kwargs):
    with pytest.raises(RoceQosError) as caught:
        function(*args, **kwargs)
    return str(caught.value)


def _cls(**over):
    data = {"ports": PORTS}
    data.update(over)
    return parse_lossless_class(data)


def _headroom_item(name="Ethernet0"):
    return {"name": name, "xoff_bytes": 122880, "xon_bytes": 19456, "headroom_bytes": 142336}


# ---------------------------------------------------------------- headroom given as pfc_headroom's list
def test_headroom_list_refusals_in_full():
    assert _message(parse_lossless_class, {"ports": PORTS}, headroom=[{"name": "Ethernet0"}]) == (
        "headroom[0] is not a pfc_headroom result (name, xoff_bytes, xon_bytes, headroom_bytes); pass the "
        "pfc_headroom filter's list or a mapping port -> {xoff, xon, size}")
    assert _message(parse_lossless_class, {"ports": PORTS}, headroom=[_headroom_item(None)]) == (
        "headroom[0] has no port name; give each port a name before pfc_headroom")
    assert _message(parse_lossless_class, {"ports": PORTS}, headroom=[_headroom_item(), _headroom_item()]) == (
        "headroom[1]: port Ethernet0 appears twice in the headroom list")


def test_headroom_list_port_name_is_checked_as_a_roce_qos_error_naming_the_field():
    message = _message(parse_lossless_class, {"ports": PORTS}, headroom=[_headroom_item("Ether net0")])
    assert message.startswith("headroom[0].name: 'Ether net0' is not allowed; expected a switch port name such as ")
    # The second item is the one named in the message.
    message = _message(parse_lossless_class, {"ports": PORTS}, headroom=[_headroom_item(), _headroom_item("a\nb")])
    assert message.startswith("headroom[1].name: 'a\\nb' is not allowed; ")


# ---------------------------------------------------------------- pfc_watchdog
def test_watchdog_refusals_in_full():
    assert _message(_cls, pfc_watchdog=[]) == (
        "pfc_watchdog must be a mapping with keys detection_ms, restoration_ms, action, got list")
    assert _message(_cls, pfc_watchdog={"detection_ms": 99}) == (
        "pfc_watchdog.detection_ms 99 is outside 100..5000; milliseconds a queue may stay paused before the "
        "watchdog acts (SONiC PFC_WD detection_time range; default 200)")
    assert _message(_cls, pfc_watchdog={"restoration_ms": 60001}) == (
        "pfc_watchdog.restoration_ms 60001 is outside 100..60000; milliseconds before PFC is restored on the queue "
        "(SONiC PFC_WD restoration_time range; default 200)")
    assert _message(_cls, pfc_watchdog={"action": "pause"}) == (
        "pfc_watchdog.action 'pause' is not one of drop, forward; drop discards the stuck queue's packets, forward "
        "ignores the storming pause frames")


# ---------------------------------------------------------------- host side
def test_host_refusals_in_full():
    cls = _cls()
    assert _message(check_host, cls, []) == "host must be a mapping with keys priority, dscp, got list"
    assert _message(check_host, cls, {"priority": 3}) == (
        "host needs priority and dscp (the NIC's PFC priority and the DSCP it marks RoCE with)")
    assert _message(check_host, cls, {"priority": 8, "dscp": [26]}) == (
        "host.priority 8 is outside 0..7; the NIC's PFC priority")
    assert _message(check_host, cls, {"priority": 4, "dscp": [26]}) == (
        "host priority 4 / switch priority 3: the NICs pause and send RoCE on priority 4 but the switch makes "
        "priority 3 lossless, so RoCE would be dropped under congestion; set the same priority on both sides")
    assert _message(check_host, cls, {"priority": 3, "dscp": [26, 24]}) == (
        "host DSCP [24, 26] / switch DSCP [26]: the switch maps DSCP [24] to priority 0, not to the lossless "
        "priority 3; add it to the switch's dscp list or mark RoCE with [26] on the hosts")


# ---------------------------------------------------------------- platforms
def test_platform_refusals_in_full():
    assert _message(check_platform, _cls(), "junos") == "platform 'junos' is not one of sonic, nvue, eos"
    assert _message(check_platform, _cls(), "sonic") == (
        "sonic: headroom is required for BUFFER_PG/BUFFER_PROFILE; give headroom=port -> {xoff, xon, size} "
        "(the headroom filter's result)")
    low = parse_lossless_class({"ports": PORTS, "priority": 0, "default_priority": 1, "queue": 3}, headroom=HEADROOM)
    assert _message(check_platform, low, "sonic") == (
        "sonic: priority 0 would be PG 0, which SONiC's buffer templates give the lossy profile "
        "(BUFFER_PG Ethernet*|0 ingress_lossy_profile) and every other TC; use 1..7")
    assert _message(check_platform, parse_lossless_class({"ports": SWP, "priority": 4}), "nvue") == (
        "nvue: queue 4 cannot be the lossless queue; Cumulus RoCE mode keeps its lossless pool "
        "(roce-reserved-egress) and ECN on traffic class 3, and NVIDIA moves RoCE to another priority by mapping "
        "that switch priority to traffic class 3; set queue: 3")
    forward = parse_lossless_class({"ports": SWP, "pfc_watchdog": {"action": "forward"}})
    assert _message(check_platform, forward, "nvue") == (
        "nvue: pfc_watchdog.action forward is not available; the Cumulus watchdog always drops on the stuck "
        "queue; set action: drop")


@pytest.mark.parametrize("priority, over", [(0, {"default_priority": 1, "queue": 3}), (1, {})])
def test_eos_refuses_priorities_0_and_1_in_full(priority, over):
    data = {"ports": PORTS, "priority": priority}
    data.update(over)
    assert _message(check_platform, parse_lossless_class(data), "eos") == (
        "eos: priority %d is not rendered: EOS's default CoS/traffic-class maps swap 0 and 1 (CoS 0 is traffic "
        "class 1), so PFC priority %d would not pause traffic class %d; use 2..7" % (priority, priority, priority))


@pytest.mark.parametrize("field, value, fixes", [("detection_ms", 205, "200 or 210"),
                                                 ("restoration_ms", 1234, "1230 or 1240")])
def test_eos_watchdog_steps_in_full(field, value, fixes):
    cls = _cls(pfc_watchdog={field: value})
    assert _message(check_platform, cls, "eos") == (
        "eos: pfc_watchdog.%s %d is not a multiple of 10; EOS takes the watchdog timers in seconds with two "
        "decimals (0.01 s steps); use %s" % (field, value, fixes))


def test_eos_queue_7_in_full():
    assert _message(check_platform, _cls(priority=7, queue=3), "eos") == (
        "eos: traffic class 7 and tx-queue 7 are tied together on EOS (control traffic); priority 7 / queue 3 "
        "would remap them; keep queue equal to priority")
