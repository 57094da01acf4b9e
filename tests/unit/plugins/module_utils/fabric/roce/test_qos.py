# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""roce_qos: the lossless-class description, its checks, the host-side match and the derived maps."""
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
