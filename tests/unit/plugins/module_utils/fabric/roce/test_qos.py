# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""fabric/roce/qos.py: the lossless-class description, its checks, the host-side match and the derived maps; then
every refusal in full, as an operator reads it when a role's preflight stops (the field, the value, the allowed
range and the fix), the tests `make mutation` asked for (docs/testing.md)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce.qos import (
    Ecn,
    Headroom,
    Port,
    RoceQosError,
    Watchdog,
    check_host,
    check_platform,
    dscp_to_priority,
    parse_lossless_class,
    priority_to_queue,
)

PORTS = [{"name": "Ethernet%d" % (8 * i), "speed_gbps": 400, "cable_m": 5} for i in range(8)]
HEADROOM = {p["name"]: {"xoff": 122880, "xon": 19456, "size": 142336} for p in PORTS}


def _cls(**over):
    data = {"ports": PORTS}
    data.update(over)
    return parse_lossless_class(data)


def _error(data, match, **kwargs):
    with pytest.raises(RoceQosError, match=match):
        parse_lossless_class(data, **kwargs)


# ---------------------------------------------------------------- defaults
def test_defaults_are_the_reference_design():
    cls = _cls()
    assert (cls.priority, cls.dscp, cls.queue, cls.default_priority) == (3, (26,), 3, 0)
    assert cls.lossless_bandwidth_percent == 50
    assert cls.ecn == Ecn(150000, 1500000, 100)
    assert cls.pfc_watchdog == Watchdog(200, 200, "drop")
    assert cls.ports[0] == Port("Ethernet0", 400, 5) and len(cls.ports) == 8
    assert cls.headroom is None


def test_partial_ecn_and_watchdog_keep_the_other_defaults():
    cls = _cls(ecn={"min_threshold_bytes": 100000}, pfc_watchdog={"action": "forward"})
    assert cls.ecn == Ecn(100000, 1500000, 100)
    assert cls.pfc_watchdog == Watchdog(200, 200, "forward")


def test_queue_defaults_to_priority_and_dscp_is_sorted():
    cls = _cls(priority=4, dscp=[34, 26, 24])
    assert cls.queue == 4 and cls.dscp == (24, 26, 34)
    assert _cls(dscp=26).dscp == (26,)  # a single value is a one-item list


def test_as_dict_round_trips():
    cls = parse_lossless_class({"ports": PORTS, "headroom": HEADROOM})
    data = cls.as_dict()
    assert data["headroom"]["Ethernet8"] == {"xoff": 122880, "xon": 19456, "size": 142336}
    assert parse_lossless_class(data) == cls


# ---------------------------------------------------------------- field checks
@pytest.mark.parametrize("data, match", [
    ({"priority": 8}, r"priority 8 is outside 0\.\.7; the 802\.1p priority PFC pauses; RoCE convention is 3"),
    ({"priority": True}, r"priority must be an integer in 0\.\.7, got True of type bool"),
    ({"priority": 0}, r"priority 0 equals default_priority 0: every non-RoCE DSCP would land in the lossless"),
    ({"queue": 0}, r"queue 0 is outside 1\.\.7; .*best-effort queue"),
    ({"priority": 0, "default_priority": 1}, r"priority 0 needs an explicit queue in 1\.\.7"),
    ({"dscp": [26, 64]}, r"dscp\[1\] 64 is outside 0\.\.63"),
    ({"dscp": [26, 24, 26]}, r"dscp lists DSCP 26 twice \(positions 0 and 2\); list each value once"),
    ({"dscp": []}, r"dscp must not be empty; RoCE uses \[26\]"),
    ({"ecn": {"min_threshold_bytes": 2000000}},
     r"ecn\.min_threshold_bytes 2000000 is above ecn\.max_threshold_bytes 1500000; .* swap them"),
    ({"ecn": {"probability_percent": 0}}, r"ecn\.probability_percent 0 is outside 1\.\.100"),
    ({"ecn": {"max_threshold_bytes": 300000000}}, r"ecn\.max_threshold_bytes 300000000 is outside 1\.\.256000000"),
    ({"ecn": {"min": 1}}, r"ecn has unknown key\(s\) 'min'; allowed: max_threshold_bytes, min_threshold_bytes, "
                          r"probability_percent; the lossless class is described in docs/roce-switch\.md"),
    ({"pfc_watchdog": {"detection_ms": 50}}, r"pfc_watchdog\.detection_ms 50 is outside 100\.\.5000"),
    ({"pfc_watchdog": {"restoration_ms": 60001}}, r"pfc_watchdog\.restoration_ms 60001 is outside 100\.\.60000"),
    ({"pfc_watchdog": {"action": "alert"}}, r"pfc_watchdog\.action 'alert' is not one of drop, forward"),
    ({"lossless_bandwidth_percent": 100}, r"lossless_bandwidth_percent 100 is outside 1\.\.99"),
    ({"prio": 3}, r"lossless class has unknown key\(s\) 'prio'; allowed: default_priority, dscp, ecn, headroom"),
])
def test_field_errors_name_field_value_range_and_fix(data, match):
    _error(dict({"ports": PORTS}, **data), match)


@pytest.mark.parametrize("ports, match", [
    ([], r"ports must not be empty; list every switch port that carries RoCE"),
    ([{"name": "Ethernet0", "speed_gbps": 400}], r"ports\[0\] lacks cable_m"),
    ([{"name": "Ethernet0", "speed_gbps": 300, "cable_m": 5}],
     r"ports\[0\]\.speed_gbps 300 is not an Ethernet speed; use one of 10, 25, 40, 50, 100, 200, 400, 800"),
    ([{"name": "Ethernet0", "speed_gbps": 400, "cable_m": 0}], r"ports\[0\]\.cable_m 0 is outside 1\.\.100000"),
    ([{"name": "Ethernet0", "speed_gbps": 400, "cable_m": 2.5}], r"ports\[0\]\.cable_m must be an integer in 1\.\.100000, "
                                                                 r"got 2\.5 of type float; whole metres of cable"),
    ([{"name": "Ethernet0", "speed_gbps": 400, "cable_m": 5, "fec": "rs"}], r"ports\[0\] has unknown key\(s\) 'fec'"),
    ([PORTS[0], dict(PORTS[0])], r"ports\[1\]\.name Ethernet0 is listed twice"),
    ([{"name": " Ethernet0", "speed_gbps": 400, "cable_m": 5}], r"ports\[0\]\.name: ' Ethernet0' is not allowed; expected a switch port name"),
])
def test_port_errors(ports, match):
    _error({"ports": ports}, match)


def test_port_list_of_pfc_headroom_feeds_this_filter_too():
    # cable as SONiC writes it ("40m"), and pfc_headroom's own port keys are accepted and ignored
    cls = parse_lossless_class({"ports": [{"name": "Ethernet0", "speed_gbps": 100, "cable_m": "40m", "mtu": 9216,
                                           "lossless_mtu": 4200}]})
    assert cls.ports == (Port("Ethernet0", 100, 40),)


def test_headroom_as_the_pfc_headroom_list():
    # pfc_headroom's documented 400G / 5 m / MTU 9216 / 144 B-cell result: xoff 139785, xon 16885,
    # headroom_bytes 156670 (= 139785 + 16885) is SONiC's profile size.
    result = [{"name": p["name"], "xoff_bytes": 139785, "xon_bytes": 16885, "headroom_bytes": 156670,
               "size_bytes": 156672, "cells": 1089, "terms": []} for p in PORTS]
    cls = parse_lossless_class({"ports": PORTS}, headroom=result)
    assert cls.headroom["Ethernet56"] == Headroom(139785, 16885, 156670)
    # the same headroom once as a list and once as a mapping is not a conflict
    same = {p["name"]: {"xoff": 139785, "xon": 16885, "size": 156670} for p in PORTS}
    assert parse_lossless_class({"ports": PORTS, "headroom": same}, headroom=result) == cls
    _error({"ports": PORTS}, r"headroom\[0\] has no port name", headroom=[dict(result[0], name=None)])
    _error({"ports": PORTS}, r"headroom\[1\]: port Ethernet0 appears twice", headroom=[result[0], result[0]])
    _error({"ports": PORTS}, r"headroom\[0\] is not a pfc_headroom result", headroom=[{"name": "Ethernet0"}])


def test_missing_ports_is_refused():
    _error({"priority": 3}, r"lossless class lacks ports")


@pytest.mark.parametrize("headroom, match", [
    ({"Ethernet0": HEADROOM["Ethernet0"]}, r"headroom lacks port\(s\) Ethernet8, Ethernet16"),
    (dict(HEADROOM, Ethernet1=HEADROOM["Ethernet0"]), r"headroom names port\(s\) Ethernet1 that are not in ports"),
    (dict(HEADROOM, Ethernet0={"xoff": 0, "xon": 1, "size": 1}), r"headroom\[Ethernet0\]\.xoff 0 is outside 1\.\.16777216"),
    (dict(HEADROOM, Ethernet0={"xoff": 1, "xon": 1}), r"headroom\[Ethernet0\] lacks size"),
    (dict(HEADROOM, Ethernet0={"xoff": 1, "xon": 1, "size": 1, "threshold": 0}),
     r"headroom\[Ethernet0\] has unknown key\(s\) 'threshold'; allowed: size, xoff, xon; the lossless class is "
     r"described in docs/roce-switch\.md"),
])
def test_headroom_errors(headroom, match):
    _error({"ports": PORTS}, match, headroom=headroom)


def test_headroom_given_twice_must_agree():
    same = parse_lossless_class({"ports": PORTS, "headroom": HEADROOM}, headroom=HEADROOM)
    assert same.headroom["Ethernet0"] == Headroom(122880, 19456, 142336)
    other = dict(HEADROOM, Ethernet0={"xoff": 1, "xon": 1, "size": 2})
    _error({"ports": PORTS, "headroom": HEADROOM}, r"given both in the description and as an argument", headroom=other)


# ---------------------------------------------------------------- host side
def test_host_match_passes_and_a_subset_of_the_dscps_is_enough():
    assert parse_lossless_class({"ports": PORTS, "dscp": [24, 26]}, host={"priority": 3, "dscp": 26}).priority == 3


def test_host_priority_mismatch_names_both_sides():
    with pytest.raises(RoceQosError, match=r"^host priority 3 / switch priority 4: the NICs pause and send RoCE on "
                                           r"priority 3 but the switch makes priority 4 lossless"):
        parse_lossless_class({"ports": PORTS, "priority": 4}, host={"priority": 3, "dscp": [26]})


def test_host_dscp_mismatch_names_both_sides():
    with pytest.raises(RoceQosError, match=r"^host DSCP \[24, 26\] / switch DSCP \[26\]: the switch maps DSCP \[24\] "
                                           r"to priority 0, not to the lossless priority 3"):
        check_host(_cls(), {"priority": 3, "dscp": [26, 24]})


def test_host_needs_both_keys():
    with pytest.raises(RoceQosError, match=r"host needs priority and dscp"):
        check_host(_cls(), {"priority": 3})


# ---------------------------------------------------------------- maps
def test_dscp_map_reference_design():
    table = dscp_to_priority(_cls())
    # 64 entries, only 26 -> 3, the other 63 -> 0
    assert len(table) == 64 and table[26] == 3
    assert sorted(d for d, p in table.items() if p == 0) == [d for d in range(64) if d != 26]


def test_priority_to_queue_identity_when_queue_is_priority():
    assert priority_to_queue(_cls()) == {p: p for p in range(8)}


def test_priority_to_queue_moves_the_displaced_priority_to_queue_zero():
    # NVIDIA's "priority 3 -> 2" recipe: switch priority 2 -> traffic class 3, 3 -> 0.
    table = priority_to_queue(_cls(priority=2, queue=3))
    assert table == {0: 0, 1: 1, 2: 3, 3: 0, 4: 4, 5: 5, 6: 6, 7: 7}


# ---------------------------------------------------------------- platform limits
def test_platform_port_names():
    with pytest.raises(RoceQosError, match=r"ports Ethernet0, Ethernet8, .* are not nvue port names; use names such as swp1"):
        check_platform(_cls(), "nvue")
    with pytest.raises(RoceQosError, match=r"platform 'junos' is not one of sonic, nvue, eos"):
        check_platform(_cls(), "junos")


def test_sonic_needs_headroom():
    with pytest.raises(RoceQosError, match=r"sonic: headroom is required for BUFFER_PG/BUFFER_PROFILE"):
        check_platform(_cls(), "sonic")
    check_platform(parse_lossless_class({"ports": PORTS}, headroom=HEADROOM), "sonic")


def test_priority_zero_and_one_where_a_platform_cannot_take_them():
    low = parse_lossless_class({"ports": PORTS, "priority": 0, "default_priority": 1, "queue": 3}, headroom=HEADROOM)
    with pytest.raises(RoceQosError, match=r"sonic: priority 0 would be PG 0, which SONiC's buffer templates give"):
        check_platform(low, "sonic")
    eth = [{"name": "Ethernet1/1", "speed_gbps": 400, "cable_m": 5}]
    with pytest.raises(RoceQosError, match=r"eos: priority 1 is not rendered: EOS's default CoS/traffic-class maps"):
        check_platform(parse_lossless_class({"ports": eth, "priority": 1}), "eos")
    swp = [{"name": "swp1", "speed_gbps": 400, "cable_m": 5}]
    check_platform(parse_lossless_class({"ports": swp, "priority": 0, "default_priority": 1, "queue": 3}), "nvue")


def test_nvue_limits():
    swp = [{"name": "swp%d" % i, "speed_gbps": 400, "cable_m": 5} for i in (1, 2)]
    check_platform(parse_lossless_class({"ports": swp, "priority": 2, "queue": 3}), "nvue")
    with pytest.raises(RoceQosError, match=r"nvue: queue 4 cannot be the lossless queue; .*set queue: 3"):
        check_platform(parse_lossless_class({"ports": swp, "priority": 4}), "nvue")
    with pytest.raises(RoceQosError, match=r"nvue: pfc_watchdog.action forward is not available"):
        check_platform(parse_lossless_class({"ports": swp, "pfc_watchdog": {"action": "forward"}}), "nvue")


def test_eos_limits():
    eth = [{"name": "Ethernet1/1", "speed_gbps": 400, "cable_m": 5}]
    with pytest.raises(RoceQosError, match=r"eos: pfc_watchdog.detection_ms 205 is not a multiple of 10; .*use 200 or 210"):
        check_platform(parse_lossless_class({"ports": eth, "pfc_watchdog": {"detection_ms": 205}}), "eos")
    with pytest.raises(RoceQosError, match=r"eos: traffic class 7 and tx-queue 7 are tied together"):
        check_platform(parse_lossless_class({"ports": eth, "priority": 3, "queue": 7}), "eos")
    check_platform(parse_lossless_class({"ports": eth, "priority": 7}), "eos")


# ---------------------------------------------------------------- properties
@st.composite
def classes(draw):
    priority = draw(st.integers(1, 7))
    default = draw(st.sampled_from([p for p in range(8) if p != priority]))
    queue = draw(st.integers(1, 7))
    dscp = draw(st.lists(st.integers(0, 63), min_size=1, max_size=6, unique=True))
    low = draw(st.integers(1, 10 ** 6))
    high = draw(st.integers(low, 2 * 10 ** 6))
    return {"ports": PORTS[:2], "priority": priority, "default_priority": default, "queue": queue, "dscp": dscp,
            "ecn": {"min_threshold_bytes": low, "max_threshold_bytes": high}}


@settings(max_examples=200, deadline=None)
@given(classes())
def test_maps_keep_the_lossless_queue_for_the_lossless_priority_only(data):
    cls = parse_lossless_class(data)
    queues = priority_to_queue(cls)
    assert [p for p in range(8) if queues[p] == cls.queue] == [cls.priority]
    dscps = dscp_to_priority(cls)
    assert sorted(d for d in range(64) if dscps[d] == cls.priority) == sorted(data["dscp"])
    assert set(dscps.values()) == {cls.priority, cls.default_priority} or len(data["dscp"]) == 64
    # the checked class is its own fixed point, and the host that matches it passes
    assert parse_lossless_class(cls.as_dict(), host={"priority": cls.priority, "dscp": data["dscp"][:1]}) == cls


@settings(max_examples=200, deadline=None)
@given(classes(), st.integers(0, 7))
def test_any_other_host_priority_is_refused(data, host_priority):
    cls = parse_lossless_class(data)
    if host_priority == cls.priority:
        check_host(cls, {"priority": host_priority, "dscp": list(cls.dscp)})
    else:
        with pytest.raises(RoceQosError, match=r"^host priority %d / switch priority %d" % (host_priority, cls.priority)):
            check_host(cls, {"priority": host_priority, "dscp": list(cls.dscp)})


# ---------------------------------------------------------------- every refusal in full (from make mutation)
# Two ports and their headroom, so that a message listing ports stays short.
TWO_PORTS = [{"name": "Ethernet0", "speed_gbps": 400, "cable_m": 5},
             {"name": "Ethernet8", "speed_gbps": 400, "cable_m": 5}]
SWP = [{"name": "swp1", "speed_gbps": 400, "cable_m": 5}]
TWO_HEADROOM = {p["name"]: {"xoff": 122880, "xon": 19456, "size": 142336} for p in TWO_PORTS}


def _message(function, *args, **kwargs):
    with pytest.raises(RoceQosError) as caught:
        function(*args, **kwargs)
    return str(caught.value)


def _two_port_cls(**over):
    data = {"ports": TWO_PORTS}
    data.update(over)
    return parse_lossless_class(data)


def _headroom_item(name="Ethernet0"):
    return {"name": name, "xoff_bytes": 122880, "xon_bytes": 19456, "headroom_bytes": 142336}


# ---------------------------------------------------------------- headroom given as pfc_headroom's list
def test_headroom_list_refusals_in_full():
    assert _message(parse_lossless_class, {"ports": TWO_PORTS}, headroom=[{"name": "Ethernet0"}]) == (
        "headroom[0] is not a pfc_headroom result (name, xoff_bytes, xon_bytes, headroom_bytes); pass the "
        "pfc_headroom filter's list or a mapping port -> {xoff, xon, size}")
    assert _message(parse_lossless_class, {"ports": TWO_PORTS}, headroom=[_headroom_item(None)]) == (
        "headroom[0] has no port name; give each port a name before pfc_headroom")
    assert _message(parse_lossless_class, {"ports": TWO_PORTS}, headroom=[_headroom_item(), _headroom_item()]) == (
        "headroom[1]: port Ethernet0 appears twice in the headroom list")


def test_headroom_list_port_name_is_checked_as_a_roce_qos_error_naming_the_field():
    message = _message(parse_lossless_class, {"ports": TWO_PORTS}, headroom=[_headroom_item("Ether net0")])
    assert message.startswith("headroom[0].name: 'Ether net0' is not allowed; expected a switch port name such as ")
    # The second item is the one named in the message.
    message = _message(parse_lossless_class, {"ports": TWO_PORTS}, headroom=[_headroom_item(), _headroom_item("a\nb")])
    assert message.startswith("headroom[1].name: 'a\\nb' is not allowed; ")


# ---------------------------------------------------------------- pfc_watchdog
def test_watchdog_refusals_in_full():
    assert _message(_two_port_cls, pfc_watchdog=[]) == (
        "pfc_watchdog must be a mapping with keys detection_ms, restoration_ms, action, got [] of type list")
    assert _message(_two_port_cls, pfc_watchdog={"detection_ms": 99}) == (
        "pfc_watchdog.detection_ms 99 is outside 100..5000; milliseconds a queue may stay paused before the "
        "watchdog acts (SONiC PFC_WD detection_time range; default 200)")
    assert _message(_two_port_cls, pfc_watchdog={"restoration_ms": 60001}) == (
        "pfc_watchdog.restoration_ms 60001 is outside 100..60000; milliseconds before PFC is restored on the queue "
        "(SONiC PFC_WD restoration_time range; default 200)")
    assert _message(_two_port_cls, pfc_watchdog={"action": "pause"}) == (
        "pfc_watchdog.action 'pause' is not one of drop, forward; drop discards the stuck queue's packets, forward "
        "ignores the storming pause frames")


# ---------------------------------------------------------------- host side
def test_host_refusals_in_full():
    cls = _two_port_cls()
    assert _message(check_host, cls, []) == "host must be a mapping with keys priority, dscp, got [] of type list"
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
    assert _message(check_platform, _two_port_cls(), "junos") == "platform 'junos' is not one of sonic, nvue, eos"
    assert _message(check_platform, _two_port_cls(), "sonic") == (
        "sonic: headroom is required for BUFFER_PG/BUFFER_PROFILE; give headroom=port -> {xoff, xon, size} "
        "(the headroom filter's result)")
    low = parse_lossless_class({"ports": TWO_PORTS, "priority": 0, "default_priority": 1, "queue": 3},
                               headroom=TWO_HEADROOM)
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
    data = {"ports": TWO_PORTS, "priority": priority}
    data.update(over)
    assert _message(check_platform, parse_lossless_class(data), "eos") == (
        "eos: priority %d is not rendered: EOS's default CoS/traffic-class maps swap 0 and 1 (CoS 0 is traffic "
        "class 1), so PFC priority %d would not pause traffic class %d; use 2..7" % (priority, priority, priority))


@pytest.mark.parametrize("field, value, fixes", [("detection_ms", 205, "200 or 210"),
                                                 ("restoration_ms", 1234, "1230 or 1240")])
def test_eos_watchdog_steps_in_full(field, value, fixes):
    cls = _two_port_cls(pfc_watchdog={field: value})
    assert _message(check_platform, cls, "eos") == (
        "eos: pfc_watchdog.%s %d is not a multiple of 10; EOS takes the watchdog timers in seconds with two "
        "decimals (0.01 s steps); use %s" % (field, value, fixes))


def test_eos_queue_7_in_full():
    assert _message(check_platform, _two_port_cls(priority=7, queue=3), "eos") == (
        "eos: traffic class 7 and tx-queue 7 are tied together on EOS (control traffic); priority 7 / queue 3 "
        "would remap them; keep queue equal to priority")


# ---------------------------------------------------------------- the description, field by field
_HR8 = {"Ethernet0": TWO_HEADROOM["Ethernet0"]}
_KEYS = "priority, dscp, queue, default_priority, lossless_bandwidth_percent, ecn, pfc_watchdog, ports, headroom"
_PORT_KEYS = "name, speed_gbps, cable_m, mtu, lossless_mtu, ns_per_m, phy_delay_ns, peer_response_bits, xon_bytes"
# Unknown keys are refused with the allowed ones sorted, and where the lossless class is described.
_SORTED_KEYS = ", ".join(sorted(_KEYS.split(", ")))
_SORTED_PORT_KEYS = ", ".join(sorted(_PORT_KEYS.split(", ")))
_DOCS = "the lossless class is described in docs/roce-switch.md"
_QUEUE_FIX = ("egress queue (traffic class) of the lossless priority, defaults to the priority; queue 0 is the "
              "best-effort queue that priorities displaced from the lossless queue use")
_CABLE_FIX = "whole metres of cable to the peer, as 5 or '5m' (NVUE and SONiC CABLE_LENGTH take whole metres)"


def _port(**over):
    port = {"name": "Ethernet0", "speed_gbps": 400, "cable_m": 5}
    port.update(over)
    return port


DESCRIPTION_REFUSALS = [
    ("unknown keys", {"colour": 1, "bogus": 2},
     "lossless class has unknown key(s) 'bogus', 'colour'; allowed: %s; %s" % (_SORTED_KEYS, _DOCS)),
    ("priority text", {"priority": "3"},
     "priority must be an integer in 0..7, got '3' of type str; the 802.1p priority PFC pauses; RoCE convention is 3"),
    ("priority bool", {"priority": True},
     "priority must be an integer in 0..7, got True of type bool; the 802.1p priority PFC pauses; RoCE convention "
     "is 3"),
    ("priority 8", {"priority": 8}, "priority 8 is outside 0..7; the 802.1p priority PFC pauses; RoCE convention is 3"),
    ("default_priority 9", {"default_priority": 9},
     "default_priority 9 is outside 0..7; the priority every other DSCP goes to; normally 0"),
    ("equal priorities", {"priority": 0, "default_priority": 0},
     "priority 0 equals default_priority 0: every non-RoCE DSCP would land in the lossless class, so PFC would "
     "pause all traffic and ECN would mark it; pick a lossless priority other than 0 (RoCE convention 3)"),
    ("priority 0 without queue", {"priority": 0, "default_priority": 1},
     "priority 0 needs an explicit queue in 1..7: the queue defaults to the priority, and queue 0 is the "
     "best-effort queue"),
    ("queue 0", {"queue": 0}, "queue 0 is outside 1..7; " + _QUEUE_FIX),
    ("queue 8", {"queue": 8}, "queue 8 is outside 1..7; " + _QUEUE_FIX),
    ("bandwidth 100", {"lossless_bandwidth_percent": 100},
     "lossless_bandwidth_percent 100 is outside 1..99; ETS share of the lossless queue; the best-effort queue gets "
     "the rest (default 50)"),
    ("dscp empty", {"dscp": []}, "dscp must not be empty; RoCE uses [26]"),
    ("dscp text", {"dscp": "26"},
     "dscp must be a non-empty list of DSCP values 0..63, got '26' of type str; RoCE uses [26]"),
    ("dscp 64", {"dscp": [26, 64]}, "dscp[1] 64 is outside 0..63; DSCP is the 6-bit field of the IP TOS byte"),
    ("dscp twice", {"dscp": [26, 24, 26]}, "dscp lists DSCP 26 twice (positions 0 and 2); list each value once"),
    ("ecn not a mapping", {"ecn": 1},
     "ecn must be a mapping with keys min_threshold_bytes, max_threshold_bytes, probability_percent, got 1 of type "
     "int"),
    ("ecn min 0", {"ecn": {"min_threshold_bytes": 0}},
     "ecn.min_threshold_bytes 0 is outside 1..256000000; queue depth in bytes where marking starts (Cumulus RoCE "
     "default 150000)"),
    ("ecn max too large", {"ecn": {"max_threshold_bytes": 256000001}},
     "ecn.max_threshold_bytes 256000001 is outside 1..256000000; queue depth in bytes where every packet is marked "
     "(Cumulus RoCE default 1500000)"),
    ("ecn min above max", {"ecn": {"min_threshold_bytes": 2000000}},
     "ecn.min_threshold_bytes 2000000 is above ecn.max_threshold_bytes 1500000; marking starts at the minimum and "
     "reaches its full probability at the maximum, so min <= max (equal gives step marking); swap them"),
    ("ecn probability 0", {"ecn": {"probability_percent": 0}},
     "ecn.probability_percent 0 is outside 1..100; marking probability at the maximum threshold in percent "
     "(SONiC/EOS/NVUE all take 1..100)"),
    ("ports empty", {"ports": []}, "ports must not be empty; list every switch port that carries RoCE"),
    ("ports text", {"ports": "Ethernet0"},
     "ports must be a non-empty list of {name, speed_gbps, cable_m}, got 'Ethernet0' of type str; list every switch "
     "port that carries RoCE"),
    ("port not a mapping", {"ports": ["Ethernet0"]},
     "ports[0] must be a mapping with keys %s, got 'Ethernet0' of type str" % _PORT_KEYS),
    ("port unknown key", {"ports": [_port(colour=1)]},
     "ports[0] has unknown key(s) 'colour'; allowed: %s; %s" % (_SORTED_PORT_KEYS, _DOCS)),
    ("port lacks keys", {"ports": [{"name": "Ethernet0"}]},
     "ports[0] lacks speed_gbps, cable_m; each port needs name, speed_gbps and cable_m"),
    ("port twice", {"ports": [TWO_PORTS[0], TWO_PORTS[1], TWO_PORTS[0]]},
     "ports[2].name Ethernet0 is listed twice; list each port once"),
    ("port speed 300", {"ports": [_port(speed_gbps=300)]},
     "ports[0].speed_gbps 300 is not an Ethernet speed; use one of 10, 25, 40, 50, 100, 200, 400, 800 (Gb/s)"),
    ("port speed float", {"ports": [_port(speed_gbps=400.0)]},  # equal to 400, but not a whole number
     "ports[0].speed_gbps 400.0 is not an Ethernet speed; use one of 10, 25, 40, 50, 100, 200, 400, 800 (Gb/s)"),
    ("port speed bool", {"ports": [_port(speed_gbps=True)]},
     "ports[0].speed_gbps True is not an Ethernet speed; use one of 10, 25, 40, 50, 100, 200, 400, 800 (Gb/s)"),
    ("port cable 0", {"ports": [_port(cable_m=0)]}, "ports[0].cable_m 0 is outside 1..100000; " + _CABLE_FIX),
    ("port cable km", {"ports": [_port(cable_m="5 km")]},
     "ports[0].cable_m must be an integer in 1..100000, got '5 km' of type str; " + _CABLE_FIX),
]


@pytest.mark.parametrize("over, message", [c[1:] for c in DESCRIPTION_REFUSALS],
                         ids=[c[0] for c in DESCRIPTION_REFUSALS])
def test_description_refusals_in_full(over, message):
    data = {"ports": TWO_PORTS}
    data.update(over)
    assert _message(parse_lossless_class, data) == message


def test_description_shape_refusals_in_full():
    assert _message(parse_lossless_class, []) == (
        "lossless class must be a mapping with keys %s, got [] of type list" % _KEYS)
    assert _message(parse_lossless_class, {"priority": 3}) == (
        "lossless class lacks ports; list the RoCE ports as {name, speed_gbps, cable_m}")


def test_port_name_refusal_names_the_port_field():
    message = _message(parse_lossless_class, {"ports": [TWO_PORTS[0], _port(name="Ether net")]})
    assert message.startswith("ports[1].name: 'Ether net' is not allowed; expected a switch port name such as ")


def _with(name, value):
    out = dict(TWO_HEADROOM)
    out[name] = value
    return out


HEADROOM_REFUSALS = [
    ("not a mapping", 5, "headroom must be a mapping port -> {xoff, xon, size} in bytes, got 5 of type int"),
    ("stray port", _with("Ethernet16", TWO_HEADROOM["Ethernet0"]),
     "headroom names port(s) Ethernet16 that are not in ports (Ethernet0, Ethernet8); fix the port name or add the "
     "port"),
    ("missing port", _HR8,
     "headroom lacks port(s) Ethernet8; every lossless port needs its PFC headroom (run gpufleet.cluster.pfc_headroom "
     "over the same ports)"),
    ("two stray ports", dict(TWO_HEADROOM, Ethernet24={}, Ethernet16={}),
     "headroom names port(s) Ethernet16, Ethernet24 that are not in ports (Ethernet0, Ethernet8); fix the port name or "
     "add the port"),
    ("two missing ports", {},
     "headroom lacks port(s) Ethernet0, Ethernet8; every lossless port needs its PFC headroom (run "
     "gpufleet.cluster.pfc_headroom over the same ports)"),
    ("entry not a mapping", _with("Ethernet8", [1]),
     "headroom[Ethernet8] must be a mapping with keys xoff, xon, size, got [1] of type list"),
    ("entry lacks keys", _with("Ethernet8", {"xoff": 1}),
     "headroom[Ethernet8] lacks xon, size; give xoff, xon and size in bytes"),
    ("xoff 0", _with("Ethernet8", {"xoff": 0, "xon": 0, "size": 0}),
     "headroom[Ethernet8].xoff 0 is outside 1..16777216; bytes kept for data in flight after the pause frame leaves; "
     "0 would drop them"),
    ("xon -1", _with("Ethernet8", {"xoff": 1, "xon": -1, "size": 0}),
     "headroom[Ethernet8].xon -1 is outside 0..16777216; bytes, the resume threshold"),
    ("size above 16 MiB", _with("Ethernet8", {"xoff": 1, "xon": 0, "size": 16777217}),
     "headroom[Ethernet8].size 16777217 is outside 0..16777216; bytes reserved for the PG"),
    ("size below xoff + xon", _with("Ethernet8", {"xoff": 100, "xon": 20, "size": 119}),
     "headroom[Ethernet8].size 119 is below xoff + xon = 100 + 20 = 120 bytes: the PG's buffer must hold the XON "
     "reserve and the XOFF headroom, or frames in flight after the pause are dropped; use size >= 120 (pfc_headroom's "
     "headroom_bytes)"),
]


@pytest.mark.parametrize("headroom, message", [c[1:] for c in HEADROOM_REFUSALS],
                         ids=[c[0] for c in HEADROOM_REFUSALS])
def test_headroom_refusals_in_full(headroom, message):
    assert _message(parse_lossless_class, {"ports": TWO_PORTS}, headroom=headroom) == message
    # The description's own headroom key goes through the same checks.
    assert _message(parse_lossless_class, {"ports": TWO_PORTS, "headroom": headroom}) == message


def test_headroom_given_twice_and_different_in_full():
    other = _with("Ethernet8", {"xoff": 100, "xon": 20, "size": 120})
    assert _message(parse_lossless_class, {"ports": TWO_PORTS, "headroom": TWO_HEADROOM}, headroom=other) == (
        "headroom is given both in the description and as an argument, and they differ; give it once")


# ---------------------------------------------------------------- the edges of every range are accepted
def test_the_edges_of_every_range_are_accepted():
    low = _two_port_cls(priority=0, default_priority=7, queue=1, lossless_bandwidth_percent=1, dscp=[0, 63],
                        ecn={"min_threshold_bytes": 1, "max_threshold_bytes": 1, "probability_percent": 1},
                        pfc_watchdog={"detection_ms": 100, "restoration_ms": 100})
    assert (low.priority, low.default_priority, low.queue, low.lossless_bandwidth_percent, low.dscp) == (
        0, 7, 1, 1, (0, 63))
    assert (low.ecn.min_threshold_bytes, low.ecn.max_threshold_bytes, low.ecn.probability_percent) == (1, 1, 1)
    assert (low.pfc_watchdog.detection_ms, low.pfc_watchdog.restoration_ms) == (100, 100)
    high = _two_port_cls(priority=7, queue=7, lossless_bandwidth_percent=99,
                         ecn={"min_threshold_bytes": 256000000, "max_threshold_bytes": 256000000,
                              "probability_percent": 100},
                         pfc_watchdog={"detection_ms": 5000, "restoration_ms": 60000, "action": "forward"})
    assert (high.priority, high.queue, high.lossless_bandwidth_percent) == (7, 7, 99)
    assert (high.ecn.min_threshold_bytes, high.ecn.max_threshold_bytes, high.ecn.probability_percent) == (
        256000000, 256000000, 100)
    assert (high.pfc_watchdog.detection_ms, high.pfc_watchdog.restoration_ms, high.pfc_watchdog.action) == (
        5000, 60000, "forward")


def test_ecn_and_watchdog_just_outside_their_ranges_are_refused():
    assert _message(_two_port_cls, ecn={"probability_percent": 101}).startswith(
        "ecn.probability_percent 101 is outside 1..100")
    assert _message(_two_port_cls, ecn={"max_threshold_bytes": 0}).startswith("ecn.max_threshold_bytes 0 is outside ")
    assert _message(_two_port_cls, pfc_watchdog={"detection_ms": 5001}).startswith(
        "pfc_watchdog.detection_ms 5001 is outside 100..5000")
    assert _message(_two_port_cls, pfc_watchdog={"restoration_ms": 99}).startswith(
        "pfc_watchdog.restoration_ms 99 is outside 100..60000")
    assert _message(_two_port_cls, lossless_bandwidth_percent=0).startswith(
        "lossless_bandwidth_percent 0 is outside 1..99")
    assert _message(_two_port_cls, priority=-1).startswith("priority -1 is outside 0..7")
    assert _message(_two_port_cls, default_priority=8).startswith("default_priority 8 is outside 0..7")
    assert _message(_two_port_cls, dscp=[-1]).startswith("dscp[0] -1 is outside 0..63")


def test_port_edges_and_cable_spellings():
    cls = _two_port_cls(ports=({"name": "Ethernet0", "speed_gbps": 10, "cable_m": 1},
                        {"name": "Ethernet8", "speed_gbps": 800, "cable_m": 100000},
                        {"name": "Ethernet16", "speed_gbps": 400, "cable_m": "5m"},
                        {"name": "Ethernet24", "speed_gbps": 400, "cable_m": " 300 m "},
                        {"name": "Ethernet32", "speed_gbps": 400, "cable_m": 5, "mtu": 9216, "xon_bytes": 0}))
    assert [(p.name, p.speed_gbps, p.cable_m) for p in cls.ports] == [
        ("Ethernet0", 10, 1), ("Ethernet8", 800, 100000), ("Ethernet16", 400, 5), ("Ethernet24", 400, 300),
        ("Ethernet32", 400, 5)]
    assert _message(_two_port_cls, ports=[_port(cable_m=100001)]).startswith(
        "ports[0].cable_m 100001 is outside 1..100000")
    assert _message(_two_port_cls, ports=[_port(cable_m="5m\n")]).startswith("ports[0].cable_m must be an integer")


def test_headroom_edges():
    edge = {"Ethernet0": {"xoff": 1, "xon": 0, "size": 1},
            "Ethernet8": {"xoff": 16777216, "xon": 0, "size": 16777216}}
    cls = parse_lossless_class({"ports": TWO_PORTS}, headroom=edge)
    assert {n: (h.xoff, h.xon, h.size) for n, h in cls.headroom.items()} == {
        "Ethernet0": (1, 0, 1), "Ethernet8": (16777216, 0, 16777216)}
    # size 0 is in range; it is refused for being below xoff + xon.
    empty = _with("Ethernet8", {"xoff": 1, "xon": 0, "size": 0})
    assert _message(parse_lossless_class, {"ports": TWO_PORTS}, headroom=empty) == (
        "headroom[Ethernet8].size 0 is below xoff + xon = 1 + 0 = 1 bytes: the PG's buffer must hold the XON reserve "
        "and the XOFF headroom, or frames in flight after the pause are dropped; use size >= 1 (pfc_headroom's "
        "headroom_bytes)")


def test_headroom_from_the_argument_the_description_or_both():
    from_argument = parse_lossless_class({"ports": TWO_PORTS}, headroom=TWO_HEADROOM)
    from_description = parse_lossless_class({"ports": TWO_PORTS, "headroom": TWO_HEADROOM})
    from_both = parse_lossless_class({"ports": TWO_PORTS, "headroom": TWO_HEADROOM}, headroom=dict(TWO_HEADROOM))
    for cls in (from_argument, from_description, from_both):
        assert {n: (h.xoff, h.xon, h.size) for n, h in cls.headroom.items()} == {
            "Ethernet0": (122880, 19456, 142336), "Ethernet8": (122880, 19456, 142336)}
    # pfc_headroom's list, as a list or a tuple, reads the same
    items = (_headroom_item("Ethernet0"), _headroom_item("Ethernet8"))
    assert parse_lossless_class({"ports": TWO_PORTS}, headroom=list(items)).headroom == from_argument.headroom
    assert parse_lossless_class({"ports": TWO_PORTS}, headroom=items).headroom == from_argument.headroom
    assert parse_lossless_class({"ports": TWO_PORTS}).headroom is None
