# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""roce_render for SONiC: schema, reference values, the real sonic-cfggen samples and pg_profile_lookup.

The config_db output is read back by roce_readback (through its map names, not the renderer's
code) and merged over the real samples to compare shapes.
"""
from __future__ import annotations

import copy
import json
import os
import re

import jsonschema
import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce import render as roce_render
from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce.qos import (
    RoceQosError,
    dscp_to_priority,
    parse_lossless_class,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce.render import render

from roce_readback import assert_lossless, read_sonic  # noqa: I100
from roce_sonic_schema import SONIC_SCHEMA  # noqa: I100
from reference import outputs

_SONIC = outputs("sonic")


def _reference(name):
    with open(os.path.join(_SONIC, name)) as handle:
        return handle.read()


def _ports(names, speed=400, cable=5):
    return [{"name": n, "speed_gbps": speed, "cable_m": cable} for n in names]


# The reference design: 8 x 400G, 5 m, priority 3, DSCP 26. Headroom as gpufleet.cluster.pfc_headroom
# documents it for 400G / 5 m / MTU 9216 / 144 B cells: xoff 139785 + xon 16885 = 156670.
SONIC_PORTS = _ports(["Ethernet%d" % (8 * i) for i in range(8)])
HEADROOM = {p["name"]: {"xoff": 139785, "xon": 16885, "size": 156670} for p in SONIC_PORTS}


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
    assert cfg["QUEUE"]["Ethernet0|3"]["wred_profile"] == "AZURE_LOSSLESS" and "wred_profile" not in cfg["QUEUE"]["Ethernet0|2"]
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
                             ("tc_to_pg_map", "TC_TO_PRIORITY_GROUP_MAP"), ("pfc_to_queue_map", "MAP_PFC_PRIORITY_TO_QUEUE")):
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
