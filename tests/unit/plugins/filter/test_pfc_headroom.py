# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The pfc_headroom filter: the worked example, lists of ports, a vendor table, errors under the filter's name,
port names refused (issue 13), the molecule/fabric values, wrong types."""
from __future__ import annotations

import copy
import inspect
import json
import os

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import pfc_headroom as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.pfc_headroom import pfc_headroom
from filter_refusals import refused_with
from group_vars import variables
from reference import outputs
from wrong_types import assert_only_refusals


_SONIC = outputs("sonic")


def test_filter_is_registered_and_documented():
    assert plugin.FilterModule().filters() == {"pfc_headroom": pfc_headroom}
    doc = yaml.safe_load(plugin.DOCUMENTATION)
    assert doc["name"] == "pfc_headroom" and doc["positional"] == "_input"
    params = list(inspect.signature(pfc_headroom).parameters)
    assert sorted(doc["options"]) == sorted(["_input"] + params[1:])
    assert yaml.safe_load(plugin.RETURN)["_value"]["contains"]["cells"]["type"] == "int"
    assert yaml.safe_load(plugin.EXAMPLES)


def test_doc_example_400g_5m():
    # docs/pfc-headroom.md worked example: 74805 wire bytes in flight x 96/55 + 64 cells = 139784.73 B
    result = pfc_headroom({"name": "Ethernet0", "speed_gbps": 400, "cable_m": 5, "mtu": 9216}, cell_bytes=144)
    assert isinstance(result, dict)
    assert {k: result[k] for k in ("name", "xoff_bytes", "xoff_cells", "xon_bytes", "xon_cells",
                                   "headroom_bytes", "cells", "size_bytes")} == {
        "name": "Ethernet0", "xoff_bytes": 139785, "xoff_cells": 971, "xon_bytes": 16885, "xon_cells": 118,
        "headroom_bytes": 156670, "cells": 1089, "size_bytes": 156816}
    assert result["cell_factor"] == 1.745455       # 96/55
    assert [(t["name"], t["bytes"], t["cells"]) for t in result["terms"]] == [
        ("local_frame", 9236, 65), ("pfc_frame", 84, 1), ("mac_phy", 5000, 35), ("cable", 2565, 18),
        ("peer_response", 57920, 403), ("cell_fill", 55764, 388), ("peer_frame", 9216, 64),
        ("xon_resume", 16885, 118)]
    json.dumps(result)   # plain data only


def test_list_of_ports_with_sonic_lengths_and_overrides():
    ports = [
        {"name": "Ethernet0", "speed_gbps": 100, "cable_m": "5m"},
        {"speed_gbps": 100, "cable_m": "40m", "lossless_mtu": 4200},
        {"name": "Ethernet8", "speed_gbps": 100, "cable_m": 5, "peer_response_bits": 0, "xon_bytes": 19456},
    ]
    result = pfc_headroom(ports, cell_bytes=144, mtu=9100)
    assert [r["name"] for r in result] == ["Ethernet0", None, "Ethernet8"]
    # Ethernet0 = the SN4600C 5 m port of the module_utils tests: 72595.64 B, 505 cells
    assert (result[0]["xoff_bytes"], result[0]["xoff_cells"]) == (72596, 505)
    # 40 m, RoCE frames <= 4200: 40800 wire bytes x 96/55 = 71214.55 + ceil(4200/144) = 30 cells = 4320 -> 75534.55
    assert (result[1]["xoff_bytes"], result[1]["lossless_mtu"]) == (75535, 4200)
    # no peer reaction: (36311.25 - 25216) x 96/55 + 9216 = 11095.25 x 96/55 + 9216 = 28582.25
    assert result[2]["xoff_bytes"] == 28583 and result[2]["xon_bytes"] == 19456
    assert result[2]["terms"][-1]["name"] == "xon_fixed"
    assert pfc_headroom([], cell_bytes=144) == []


def test_vendor_table_with_float_options_as_a_playbook_gives_them():
    path = os.path.join(_SONIC, "pg_profile_lookup.ACS-MSN2700.ini")
    ports, vendor = [], []
    with open(path) as handle:
        for line in handle:
            if line.strip() and not line.lstrip().startswith("#"):
                speed, cable, _size, _xon, xoff, _th = line.split()
                ports.append({"name": "%s/%s" % (speed, cable), "speed_gbps": int(speed) // 1000, "cable_m": cable})
                vendor.append(int(xoff))
    # vendor parameters (module_utils tests): 5.0505 ns/m instead of 500/99 changes nothing after KiB rounding
    result = pfc_headroom(ports, cell_bytes=96, mtu=9100, lossless_mtu=1500, ns_per_m=5.0505, phy_delay_ns=0,
                          peer_response_bits=36288, wire_overhead_bytes=0)
    assert [-(-r["xoff_bytes"] // 1024) * 1024 for r in result] == vendor
    assert len(vendor) == 15


@pytest.mark.parametrize("ports, options, message", [
    ("Ethernet0", {"cell_bytes": 144},
     "input must be a port dict or a list of port dicts, got 'Ethernet0' of type str"),
    (None, {"cell_bytes": 144}, "got None of type NoneType"),
    ({"speed_gbps": 100, "cable_m": 5, "mtu": 9216}, {}, "cell_bytes is missing"),
    ([{"speed_gbps": 100, "cable_m": 5}, {"speed_gbps": 100, "cable_m": 20000}], {"cell_bytes": 144, "mtu": 9216},
     "ports[1]: cable_m 20000 m is outside 0.5..10000 m"),
    ([{"name": "Ethernet4", "speed_gbps": 100000, "cable_m": 5}], {"cell_bytes": 144, "mtu": 9216},
     "port 'Ethernet4': speed_gbps 100000 Gb/s is not an Ethernet speed"),
    ({"speed_gbps": 100, "cable_m": 5, "mtu": 9216}, {"cell_bytes": 1024}, "cell_bytes 1024 bytes is outside 64..512"),
    ({"speed_gbps": 100, "cable_m": 5, "mtu": 9216}, {"cell_bytes": 144, "ns_per_m": "5"}, "ns_per_m must be a number"),
    ({"speed_gbps": 100, "cable_m": 5, "mtu": 65536}, {"cell_bytes": 144}, "mtu 65536 bytes is outside 1500..9216"),
    ({"speed_gbps": 100, "length": 5}, {"cell_bytes": 144, "mtu": 9216}, "port has unknown key(s) 'length'"),
])
def test_errors_are_filter_errors_with_the_fqcn(ports, options, message):
    with pytest.raises(AnsibleFilterError) as info:
        pfc_headroom(ports, **options)
    text = str(info.value)
    assert text.startswith("gpufleet.cluster.pfc_headroom: ")
    assert message in text


# ---------------------------------------------------------------- issue 13: refused naming field, value and rule
def test_pfc_headroom_port_name_refused():
    refused_with(lambda: pfc_headroom({"name": "Ethernet0\n", "speed_gbps": 400, "cable_m": 5}, cell_bytes=144,
                                      mtu=9216),
                 "gpufleet.cluster.pfc_headroom", "port.name: 'Ethernet0\\n' is not allowed; expected a switch port "
                                                  "name")
    refused_with(lambda: pfc_headroom({"name": "Ethernet0", "speed_gbps": 400, "cable_m": "5m\n"}, cell_bytes=144,
                                      mtu=9216), "is not a length")


# ---------------------------------------------------------------- the reference, lab and molecule/fabric values
def test_molecule_values_render():
    ports = variables("molecule/fabric")["gpufleet_roce_class"]["ports"]
    assert [port["name"] for port in pfc_headroom(ports, cell_bytes=144, mtu=9216)] == [port["name"] for port in ports]


# ------------------------------------------------------------------ wrong types: refused by a check, nothing else
VALID = [[{"name": "Ethernet0", "speed_gbps": 400, "cable_m": 5, "mtu": 9216}]]
VALID_KWARGS = {"cell_bytes": 144, "lossless_mtu": 4200, "ns_per_m": 5.13, "phy_delay_ns": 100,
                "wire_overhead_bytes": 20, "small_packet_percent": 100}


def test_valid_call_works():
    assert pfc_headroom(*copy.deepcopy(VALID), **copy.deepcopy(VALID_KWARGS)) is not None


def test_wrong_types_and_missing_keys_are_refused():
    assert_only_refusals('pfc_headroom', pfc_headroom, VALID, VALID_KWARGS)
