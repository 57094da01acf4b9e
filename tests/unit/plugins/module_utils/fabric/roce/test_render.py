# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""fabric/roce/render.py: NVUE YAML, EOS lines, SONiC config_db, and all three platforms over random descriptions.

Everything rendered is parsed back (json / yaml.safe_load / an EOS line grammar) by roce_readback,
which does not share code with the renderers, and checked against the host side. SONiC's output is also checked
against its schema, the reference values, the real sonic-cfggen samples and pg_profile_lookup: it is read back by
roce_readback (through its map names, not the renderer's code) and merged over the real samples to compare shapes.
"""
from __future__ import annotations

import copy
import json
import os
import re

import jsonschema
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce import render as roce_render
from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce.qos import (
    RoceQosError,
    dscp_to_priority,
    parse_lossless_class,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce.render import render

from roce_readback import assert_lossless, load_nvue, parse_eos, read_eos, read_nvue, read_sonic  # noqa: I100
from roce_sonic_schema import SONIC_SCHEMA  # noqa: I100
from reference import REPO, outputs


def _ports(names, speed=400, cable=5):
    return [{"name": n, "speed_gbps": speed, "cable_m": cable} for n in names]


# The reference design: 8 x 400G, 5 m, priority 3, DSCP 26 (everything but the ports is the default).
SONIC_PORTS = _ports(["Ethernet%d" % (8 * i) for i in range(8)])
NVUE_PORTS = _ports(["swp%d" % (i + 1) for i in range(8)])
EOS_PORTS = _ports(["Ethernet%d/1" % (i + 1) for i in range(8)])
HEADROOM = {p["name"]: {"xoff": 139785, "xon": 16885, "size": 156670} for p in SONIC_PORTS}


# ---------------------------------------------------------------- NVUE
def _nvue(**over):
    return render(parse_lossless_class(dict({"ports": NVUE_PORTS}, **over)), "nvue")


def test_nvue_reference_design_model():
    text = _nvue()
    config = load_nvue(text)
    assert sorted(config) == ["interface", "qos"]
    qos = config["qos"]
    assert qos["roce"] == {"enable": "on", "mode": "lossless"}  # 'on' stays a string (quoted)
    assert sorted(qos) == ["congestion-control", "egress-queue-mapping", "egress-scheduler", "mapping", "pfc",
                           "pfc-watchdog", "roce"]
    assert qos["pfc"] == {"roce-pfc-5m": {"cable-length": 5, "rx": "enable", "switch-priority": {"3": {}},
                                          "tx": "enable"}}
    assert qos["congestion-control"] == {"roce-ecn": {"traffic-class": {"3": {
        "ecn": "enable", "max-threshold": 1500000, "min-threshold": 150000, "probability": 100, "red": "disable"}}}}
    assert qos["egress-scheduler"] == {"roce-ets": {"traffic-class": {"0": {"bw-percent": 50, "mode": "dwrr"},
                                                                      "3": {"bw-percent": 50, "mode": "dwrr"}}}}
    assert qos["egress-queue-mapping"]["default-global"]["switch-priority"] == {
        str(sp): {"traffic-class": sp} for sp in range(8)}
    assert qos["mapping"]["roce-dscp"]["trust"] == "l3"
    assert qos["mapping"]["roce-dscp"]["dscp"]["26"] == {"switch-priority": 3}
    assert len(qos["mapping"]["roce-dscp"]["dscp"]) == 64
    # detection 200 ms = 100 ms x 2 (NVUE default polling interval kept)
    assert qos["pfc-watchdog"] == {"polling-interval": 100, "robustness": 2}
    assert config["interface"]["swp8"] == {"qos": {
        "congestion-control": {"profile": "roce-ecn"}, "egress-scheduler": {"profile": "roce-ets"},
        "mapping": {"profile": "roce-dscp"}, "pfc": {"profile": "roce-pfc-5m"},
        "pfc-watchdog": {"state": "enable"}}, "type": "swp"}
    assert text.splitlines()[4] == "- set:" and "    qos:" in text.splitlines()
    assert "restoration_ms 200 not rendered" in text


def test_nvue_one_pfc_profile_per_cable_length():
    ports = _ports(["swp1", "swp2"], cable=3) + _ports(["swp3"], cable=30)
    config = load_nvue(render(parse_lossless_class({"ports": ports}), "nvue"))
    assert sorted(config["qos"]["pfc"]) == ["roce-pfc-30m", "roce-pfc-3m"]
    assert config["interface"]["swp3"]["qos"]["pfc"] == {"profile": "roce-pfc-30m"}
    assert config["qos"]["pfc"]["roce-pfc-30m"]["cable-length"] == 30


def test_nvue_priority_moved_off_three_follows_nvidias_recipe():
    # NVIDIA: "nv set qos egress-queue-mapping default-global switch-priority 2 traffic-class 3" and
    # "... switch-priority 3 traffic-class 0"; PFC on switch priority 2, ECN stays on traffic class 3.
    config = load_nvue(_nvue(priority=2, queue=3))
    table = config["qos"]["egress-queue-mapping"]["default-global"]["switch-priority"]
    assert table["2"] == {"traffic-class": 3} and table["3"] == {"traffic-class": 0}
    assert config["qos"]["pfc"]["roce-pfc-5m"]["switch-priority"] == {"2": {}}
    assert list(config["qos"]["congestion-control"]["roce-ecn"]["traffic-class"]) == ["3"]


@pytest.mark.parametrize("detection, split", [(200, (100, 2)), (250, (125, 2)), (150, (150, 1)), (100, (100, 1)),
                                              (3700, (100, 37)), (5000, (100, 50)), (130, (130, 1))])
def test_nvue_watchdog_split(detection, split):
    cls = parse_lossless_class({"ports": NVUE_PORTS, "pfc_watchdog": {"detection_ms": detection}})
    polling, robustness = roce_render.nvue_watchdog(cls)
    assert (polling, robustness) == split and polling * robustness == detection and 100 <= polling <= 5000


def test_nvue_readback_reference_design():
    assert_lossless(read_nvue(_nvue()), [p["name"] for p in NVUE_PORTS], 3, [26],
                    {d: (3 if d == 26 else 0) for d in range(64)})


_KEY = st.one_of(st.sampled_from(["on", "off", "yes", "3", "0", "26", "swp1", "default-global", "a b", "x:y", "#c"]),
                 st.text("abc-_.019", min_size=1, max_size=6))
_TREE = st.recursive(st.one_of(st.integers(0, 10 ** 7), _KEY),
                     lambda inner: st.dictionaries(_KEY, inner, max_size=4), max_leaves=12)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(_KEY, _TREE, min_size=1, max_size=4))
def test_yaml_emitter_round_trips_through_safe_load(tree):
    text = "\n".join(["- set:"] + roce_render._yaml_lines(tree, 4)) + "\n"
    assert yaml.safe_load(text) == [{"set": tree}]


# ---------------------------------------------------------------- EOS
EOS_ONE_PORT = """\
! gpufleet.cluster.roce_switch_config (eos): lossless priority 3, DSCP 26 -> traffic-class 3, tx-queue 3
qos map dscp 26 to traffic-class 3
qos map dscp %s to traffic-class 0
qos map traffic-class 3 to tx-queue 3
priority-flow-control pause watchdog default timeout 0.2
priority-flow-control pause watchdog default recovery-time 0.2
priority-flow-control pause watchdog default polling-interval 0.1
priority-flow-control pause watchdog action drop
!
interface Ethernet1/1
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   tx-queue 0
      no priority
      bandwidth percent 50
   tx-queue 3
      no priority
      bandwidth percent 50
      random-detect ecn minimum-threshold 150000 bytes maximum-threshold 1500000 bytes max-mark-probability 100
!
""" % " ".join(str(d) for d in range(64) if d != 26)


def test_eos_one_port_exact_text():
    assert render(parse_lossless_class({"ports": EOS_PORTS[:1]}), "eos") == EOS_ONE_PORT


def test_eos_reference_design_parses_line_by_line():
    text = render(parse_lossless_class({"ports": EOS_PORTS}), "eos")
    glob, interfaces = parse_eos(text)  # every line belongs to the grammar
    assert sorted(glob["dscp_map"]) == list(range(64))
    assert glob["wd"] == {"timeout": "0.2", "recovery-time": "0.2", "polling-interval": "0.1"}
    assert glob["wd_action"] == "drop"
    assert list(interfaces) == ["Ethernet%d/1" % (i + 1) for i in range(8)]
    assert interfaces["Ethernet8/1"]["txq"][3]["ecn"] == [("150000", "1500000", "100")]
    assert_lossless(read_eos(text), list(interfaces), 3, [26], {d: (3 if d == 26 else 0) for d in range(64)})


def test_eos_timers_action_and_moved_queue():
    cls = parse_lossless_class({"ports": EOS_PORTS[:1], "priority": 2, "queue": 3, "dscp": [24, 26],
                                "pfc_watchdog": {"detection_ms": 150, "restoration_ms": 1230, "action": "forward"}})
    lines = render(cls, "eos").splitlines()
    assert "qos map dscp 24 26 to traffic-class 2" in lines
    assert "qos map traffic-class 2 to tx-queue 3" in lines and "qos map traffic-class 3 to tx-queue 0" in lines
    assert "priority-flow-control pause watchdog default timeout 0.15" in lines
    assert "priority-flow-control pause watchdog default recovery-time 1.23" in lines
    assert "priority-flow-control pause watchdog default polling-interval 0.075" in lines  # min(150, 1230) / 2 ms
    assert "priority-flow-control pause watchdog action no-drop" in lines
    assert_lossless(read_eos("\n".join(lines)), ["Ethernet1/1"], 2, [24, 26], dscp_to_priority(cls))


def test_eos_seconds_format():
    expected = ["0.2", "1", "1.23", "60", "0.075", "0.005"]
    assert [roce_render._seconds(ms) for ms in (200, 1000, 1230, 60000, 75, 5)] == expected


# ---------------------------------------------------------------- all three, random descriptions
@st.composite
def lossless(draw, platform):
    priority = draw(st.integers({"sonic": 1, "nvue": 0, "eos": 2}[platform], 7))
    default = draw(st.sampled_from([p for p in range(8) if p != priority]))
    queue = 3 if platform == "nvue" else draw(st.integers(1, 7))
    if platform == "eos" and queue != priority and 7 in (queue, priority):
        queue = priority
    dscp = draw(st.lists(st.integers(0, 63), min_size=1, max_size=8, unique=True))
    step = 10 if platform == "eos" else 1
    detection = draw(st.integers(10, 500)) * step if step == 10 else draw(st.integers(100, 5000))
    restoration = draw(st.integers(10, 6000)) * step if step == 10 else draw(st.integers(100, 60000))
    low = draw(st.integers(1, 5 * 10 ** 6))
    count = draw(st.integers(1, 6))
    names = {"sonic": "Ethernet%d", "nvue": "swp%d", "eos": "Ethernet%d/1"}[platform]
    ports = [{"name": names % (i + 1), "speed_gbps": draw(st.sampled_from([100, 200, 400, 800])),
              "cable_m": draw(st.sampled_from([1, 3, 5, 30]))} for i in range(count)]
    data = {"ports": ports, "priority": priority, "default_priority": default, "queue": queue, "dscp": dscp,
            "lossless_bandwidth_percent": draw(st.integers(1, 99)),
            "ecn": {"min_threshold_bytes": low, "max_threshold_bytes": draw(st.integers(low, 10 ** 7)),
                    "probability_percent": draw(st.integers(1, 100))},
            "pfc_watchdog": {"detection_ms": detection, "restoration_ms": restoration,
                             "action": "drop" if platform == "nvue" else draw(st.sampled_from(["drop", "forward"]))}}
    headroom = {}
    for port in ports:  # one headroom per speed/cable, as a headroom model gives
        xoff = 1000 * port["speed_gbps"] + port["cable_m"]
        headroom[port["name"]] = {"xoff": xoff, "xon": 16885, "size": xoff + 16885}
    host = {"priority": priority, "dscp": draw(st.lists(st.sampled_from(dscp), min_size=1, unique=True))}
    return data, headroom, host


_READ = {"sonic": read_sonic, "nvue": read_nvue, "eos": read_eos}


@pytest.mark.parametrize("platform", ["sonic", "nvue", "eos"])
def test_every_platform_makes_the_host_priority_lossless_on_every_port(platform):
    @settings(max_examples=100, deadline=None)
    @given(lossless(platform))
    def check(case):
        data, headroom, host = case
        cls = parse_lossless_class(data, host=host, headroom=headroom)
        rendered = render(cls, platform)
        if platform == "sonic":
            rendered = json.loads(json.dumps(rendered))
            jsonschema.validate(rendered, SONIC_SCHEMA)
        assert_lossless(_READ[platform](rendered), [p["name"] for p in data["ports"]], host["priority"],
                        host["dscp"], dscp_to_priority(cls))
    check()


def test_render_refuses_what_the_platform_cannot_express():
    with pytest.raises(RoceQosError, match=r"not eos port names"):
        render(parse_lossless_class({"ports": NVUE_PORTS}), "eos")


def test_the_docs_show_what_is_rendered():
    with open(os.path.join(REPO, "docs", "roce-switch.md")) as handle:
        doc = handle.read()
    eos = render(parse_lossless_class({"ports": EOS_PORTS}), "eos").splitlines()
    assert "\n".join(eos[:21]) in doc  # globals and the whole Ethernet1/1 block
    nvue = _nvue().splitlines()
    assert "\n".join(nvue[:19]) in doc  # comments, "- set:" and swp1
    sonic = render(parse_lossless_class({"ports": SONIC_PORTS}, headroom=HEADROOM), "sonic")
    for table in ("SCHEDULER", "BUFFER_PG", "PFC_WD", "TC_TO_PRIORITY_GROUP_MAP"):
        for key, entry in sonic[table].items():
            assert "%s: %s" % (json.dumps(key), json.dumps(entry)) in doc, (table, key)
    assert json.dumps(sonic["BUFFER_PROFILE"]["pg_lossless_400000_5m_profile"]) in doc


# ---------------------------------------------------------------- SONiC: schema, the real sonic-cfggen samples
_SONIC = outputs("sonic")


def _reference(name):
    with open(os.path.join(_SONIC, name)) as handle:
        return handle.read()


# The reference design: 8 x 400G, 5 m, priority 3, DSCP 26. Headroom as gpufleet.cluster.pfc_headroom
# documents it for 400G / 5 m / MTU 9216 / 144 B cells: xoff 139785 + xon 16885 = 156670.
def _sonic(**over):
    data = dict({"ports": SONIC_PORTS}, **over)
    headroom = {p["name"]: {"xoff": 139785, "xon": 16885, "size": 156670} for p in data["ports"]}
    return render(parse_lossless_class(data, headroom=headroom), "sonic")


def test_sonic_output_is_json_and_matches_the_schema():
    cfg = json.loads(json.dumps(_sonic()))  # what config_db.json would hold
    jsonschema.Draft7Validator.check_schema(SONIC_SCHEMA)
    jsonschema.validate(cfg, SONIC_SCHEMA)


@pytest.mark.parametrize("break_it", [
    lambda c: c["PORT_QOS_MAP"]["Ethernet0"].update(pfc_enable=3),            # a number, not a string
    lambda c: c["QUEUE"].update({"Ethernet0:3": {"scheduler": "scheduler.1"}}),  # ':' instead of '|'
    lambda c: c["DSCP_TO_TC_MAP"]["AZURE"].pop("63"),                         # map not complete
    lambda c: c["WRED_PROFILE"]["AZURE_LOSSLESS"].pop("ecn"),
    lambda c: c["PFC_WD"]["Ethernet0"].update(action="stop"),
])
def test_the_schema_is_not_vacuous(break_it):
    cfg = copy.deepcopy(_sonic())
    break_it(cfg)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(cfg, SONIC_SCHEMA)


def test_sonic_reference_design_values():
    cfg = _sonic()
    assert cfg["DSCP_TO_TC_MAP"]["AZURE"]["26"] == "3"
    assert sorted(int(d) for d, tc in cfg["DSCP_TO_TC_MAP"]["AZURE"].items() if tc == "0") == \
        [d for d in range(64) if d != 26]
    assert cfg["TC_TO_PRIORITY_GROUP_MAP"]["AZURE"] == {"0": "0", "1": "0", "2": "0", "3": "3", "4": "0", "5": "0",
                                                        "6": "0", "7": "0"}
    assert cfg["TC_TO_QUEUE_MAP"]["AZURE"] == {str(t): str(t) for t in range(8)}
    assert cfg["PORT_QOS_MAP"]["global"] == {"dscp_to_tc_map": "AZURE"}
    assert cfg["PORT_QOS_MAP"]["Ethernet56"] == {
        "dscp_to_tc_map": "AZURE", "tc_to_queue_map": "AZURE", "tc_to_pg_map": "AZURE", "pfc_to_queue_map": "AZURE",
        "pfc_enable": "3", "pfcwd_sw_enable": "3"}
    assert cfg["SCHEDULER"] == {"scheduler.0": {"type": "DWRR", "weight": "50"},
                                "scheduler.1": {"type": "DWRR", "weight": "50"}}
    assert cfg["WRED_PROFILE"]["AZURE_LOSSLESS"]["green_min_threshold"] == "150000"
    assert cfg["WRED_PROFILE"]["AZURE_LOSSLESS"]["red_max_threshold"] == "1500000"
    assert cfg["WRED_PROFILE"]["AZURE_LOSSLESS"]["yellow_drop_probability"] == "100"
    assert cfg["QUEUE"]["Ethernet8|3"] == {"scheduler": "scheduler.1", "wred_profile": "AZURE_LOSSLESS"}
    assert cfg["QUEUE"]["Ethernet8|0"] == {"scheduler": "scheduler.0"}
    assert len(cfg["QUEUE"]) == 64  # 8 ports x 8 queues, as the sample lists every queue of a port
    assert cfg["BUFFER_PROFILE"] == {"pg_lossless_400000_5m_profile": {
        "pool": "ingress_lossless_pool", "xon": "16885", "xoff": "139785", "size": "156670", "dynamic_th": "0"}}
    assert sorted(cfg["BUFFER_PG"]) == sorted("Ethernet%d|3" % (8 * i) for i in range(8))
    assert cfg["CABLE_LENGTH"]["AZURE"]["Ethernet16"] == "5m"
    # POLL_INTERVAL = min(1000, max(100, min(200, 200) // 2)) = 100
    assert cfg["PFC_WD"]["GLOBAL"] == {"POLL_INTERVAL": "100"}
    assert cfg["PFC_WD"]["Ethernet0"] == {"action": "drop", "detection_time": "200", "restoration_time": "200"}


def test_sonic_poll_interval_stays_inside_the_yang_limits():
    # 5000/60000 -> min(1000, 2500) = 1000; 100/100 -> max(100, 50) = 100 (never above detection_time)
    long = parse_lossless_class({"ports": SONIC_PORTS, "pfc_watchdog": {"detection_ms": 5000, "restoration_ms": 60000}})
    short = parse_lossless_class({"ports": SONIC_PORTS, "pfc_watchdog": {"detection_ms": 100, "restoration_ms": 100}})
    assert (roce_render.sonic_poll_interval(long), roce_render.sonic_poll_interval(short)) == (1000, 100)


def test_sonic_lossless_queue_other_than_priority():
    cfg = _sonic(priority=2, queue=3, lossless_bandwidth_percent=60)
    assert cfg["TC_TO_QUEUE_MAP"]["AZURE"] == {"0": "0", "1": "1", "2": "3", "3": "0", "4": "4", "5": "5", "6": "6",
                                               "7": "7"}
    assert cfg["MAP_PFC_PRIORITY_TO_QUEUE"]["AZURE"]["2"] == "3"
    assert cfg["QUEUE"]["Ethernet0|3"]["wred_profile"] == "AZURE_LOSSLESS"
    assert "wred_profile" not in cfg["QUEUE"]["Ethernet0|2"]
    assert cfg["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] == "2" and "Ethernet0|2" in cfg["BUFFER_PG"]
    assert cfg["SCHEDULER"]["scheduler.1"]["weight"] == "60" and cfg["SCHEDULER"]["scheduler.0"]["weight"] == "40"
    assert_lossless(read_sonic(cfg), [p["name"] for p in SONIC_PORTS], 2, [26], dscp_to_priority(
        parse_lossless_class({"ports": SONIC_PORTS, "priority": 2, "queue": 3})))


def test_sonic_profile_name_conflict_is_refused():
    headroom = dict(HEADROOM, Ethernet8={"xoff": 1, "xon": 1, "size": 2})
    cls = parse_lossless_class({"ports": SONIC_PORTS}, headroom=headroom)
    with pytest.raises(RoceQosError, match=r"sonic: ports at 400 Gb/s with 5 m cable share BUFFER_PROFILE "
                                           r"pg_lossless_400000_5m_profile but their headroom differs \(Ethernet8\)"):
        render(cls, "sonic")


def test_sonic_readback_reference_design():
    assert_lossless(read_sonic(_sonic()), [p["name"] for p in SONIC_PORTS], 3, [26],
                    {d: (3 if d == 26 else 0) for d in range(64)})


# ---------------------------------------------------------------- SONiC against the real sonic-cfggen samples
def _samples():
    merged = json.loads(_reference("config_db.qos.mellanox-sn4600c-d48c40-t0.sonic-cfggen-sample.json"))
    buffers = json.loads(_reference("config_db.buffers.mellanox-sn4600c-t0.sonic-cfggen-sample.json"))
    assert not set(merged) & set(buffers)
    merged.update(buffers)
    return merged


def _fields(table):
    return {f for entry in table.values() for f in entry}


def test_sonic_merged_over_the_real_sample_keeps_its_shapes():
    sample = _samples()
    ours = _sonic()
    merged = copy.deepcopy(sample)
    for table, entries in ours.items():
        merged.setdefault(table, {}).update(copy.deepcopy(entries))
    # only PFC_WD is new; every other table we write is one sonic-cfggen writes for this platform
    assert set(ours) - set(sample) == {"PFC_WD"}
    for table in set(ours) & set(sample):
        for key, entry in merged[table].items():
            assert isinstance(entry, dict), (table, key)
            assert all(isinstance(v, str) for v in entry.values()), (table, key)  # config_db: strings only
        extra = _fields(ours[table]) - _fields(sample[table])
        # the SN4600C sample uses the dynamic buffer model (no lossless PG profiles); xon/xoff are the
        # traditional model's lossless profile fields (Configuration.md, "Buffer profile")
        assert extra == ({"xon", "xoff"} if table == "BUFFER_PROFILE" else set()), (table, extra)
    # key formats exactly as the sample spells them
    queue_key = re.compile(r"^Ethernet\d+\|\d$")
    assert all(queue_key.match(k) for k in sample["QUEUE"]) and all(queue_key.match(k) for k in ours["QUEUE"])
    pg_key = re.compile(r"^Ethernet\d+\|\d(-\d)?$")
    assert all(pg_key.match(k) for k in merged["BUFFER_PG"])
    assert set(sample["CABLE_LENGTH"]) == set(ours["CABLE_LENGTH"]) == {"AZURE"}
    assert set(ours["WRED_PROFILE"]) == set(sample["WRED_PROFILE"]) == {"AZURE_LOSSLESS"}
    assert _fields(ours["WRED_PROFILE"]) == _fields(sample["WRED_PROFILE"])
    assert set(ours["SCHEDULER"]) == set(sample["SCHEDULER"]) == {"scheduler.0", "scheduler.1"}
    assert set(ours["PORT_QOS_MAP"]["Ethernet0"]) == set(sample["PORT_QOS_MAP"]["Ethernet2"])
    assert re.match(r"^\d(,\d)*$", sample["PORT_QOS_MAP"]["Ethernet2"]["pfc_enable"])  # "3,4", same grammar as "3"
    # every name the merged config refers to exists in it
    for port, entry in merged["PORT_QOS_MAP"].items():
        for field, table in (("dscp_to_tc_map", "DSCP_TO_TC_MAP"), ("tc_to_queue_map", "TC_TO_QUEUE_MAP"),
                             ("tc_to_pg_map", "TC_TO_PRIORITY_GROUP_MAP"),
                             ("pfc_to_queue_map", "MAP_PFC_PRIORITY_TO_QUEUE")):
            if field in entry:
                assert entry[field] in merged[table], (port, field)
    for key, queue in merged["QUEUE"].items():
        assert queue["scheduler"] in merged["SCHEDULER"], key
        assert queue.get("wred_profile", "AZURE_LOSSLESS") in merged["WRED_PROFILE"], key
    for key, pg in merged["BUFFER_PG"].items():
        assert pg["profile"] in merged["BUFFER_PROFILE"], key
    for name, profile in merged["BUFFER_PROFILE"].items():
        assert profile["pool"] in merged["BUFFER_POOL"], name
    # and the merged config still makes priority 3 lossless on our ports only
    summary = read_sonic(merged)
    assert_lossless({p: summary[p] for p in HEADROOM}, list(HEADROOM), 3, [26],
                    {d: (3 if d == 26 else 0) for d in range(64)})


def _lookup_rows():
    rows = []
    for line in _reference("pg_profile_lookup.ACS-MSN2700.ini").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            speed, cable, size, xon, xoff, _threshold = line.split()
            rows.append((int(speed), cable, int(size), int(xon), int(xoff)))
    return rows


def test_sonic_headroom_from_the_real_pg_profile_lookup():
    rows = {(speed, cable): (size, xon, xoff) for speed, cable, size, xon, xoff in _lookup_rows()}
    assert len(rows) == 15
    ports = [{"name": "Ethernet0", "speed_gbps": 100, "cable_m": "5m"},
             {"name": "Ethernet4", "speed_gbps": 100, "cable_m": "40m"},
             {"name": "Ethernet8", "speed_gbps": 25, "cable_m": "300m"}]
    headroom = {}
    for port in ports:
        size, xon, xoff = rows[(port["speed_gbps"] * 1000, port["cable_m"])]
        headroom[port["name"]] = {"xoff": xoff, "xon": xon, "size": size}
    cfg = render(parse_lossless_class({"ports": ports}, headroom=headroom), "sonic")
    # buffermgrd names a profile pg_lossless_<speed column>_<cable column>_profile: the same names
    assert cfg["BUFFER_PROFILE"] == {
        "pg_lossless_100000_5m_profile": {"pool": "ingress_lossless_pool", "xon": "19456", "xoff": "30720",
                                          "size": "50176", "dynamic_th": "0"},
        "pg_lossless_100000_40m_profile": {"pool": "ingress_lossless_pool", "xon": "19456", "xoff": "38912",
                                           "size": "58368", "dynamic_th": "0"},
        "pg_lossless_25000_300m_profile": {"pool": "ingress_lossless_pool", "xon": "19456", "xoff": "48128",
                                           "size": "67584", "dynamic_th": "0"}}
    assert cfg["BUFFER_PG"] == {"Ethernet0|3": {"profile": "pg_lossless_100000_5m_profile"},
                                "Ethernet4|3": {"profile": "pg_lossless_100000_40m_profile"},
                                "Ethernet8|3": {"profile": "pg_lossless_25000_300m_profile"}}
    assert cfg["CABLE_LENGTH"] == {"AZURE": {"Ethernet0": "5m", "Ethernet4": "40m", "Ethernet8": "300m"}}
    # the lookup's own rule, size = xon + xoff, holds for every row and so for what we wrote
    assert all(size == xon + xoff for size, xon, xoff in rows.values())
