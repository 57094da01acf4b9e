# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node.addresses: the interfaces and their addresses from `ip -j addr show`."""
import json
import os

import pytest
from ansible_collections.gpufleet.cluster.plugins.module_utils.node.addresses import AddressError, parse_ip_addr_json
from hypothesis import given
from hypothesis import strategies as st

from reference import FIXTURES

with open(os.path.join(FIXTURES, "node", "ip-j-addr.debian12.json"), encoding="utf-8") as _handle:
    RECORDED = _handle.read()


def test_the_recorded_host_every_interface_with_its_addresses_in_order():
    interfaces = parse_ip_addr_json(RECORDED)
    assert len(interfaces) == len(json.loads(RECORDED))
    assert interfaces["lo"] == {"state": "UNKNOWN", "mtu": 65536, "mac": "00:00:00:00:00:00",
                                "ipv4": [{"address": "127.0.0.1", "prefix": 8, "scope": "host"}],
                                "ipv6": [{"address": "::1", "prefix": 128, "scope": "host"}]}
    eth0 = interfaces["eth0"]
    assert eth0["state"] == "UP" and eth0["ipv4"] == [{"address": "192.0.2.2", "prefix": 24, "scope": "global"}]
    assert [entry["address"] for entry in eth0["ipv6"]] == ["fd00::2", "fe80::fc:ff:fe00:1"]
    assert interfaces["ifb0"]["ipv4"] == [] and interfaces["ifb0"]["state"] == "DOWN"


def test_an_interface_without_addr_info_has_no_addresses():
    assert parse_ip_addr_json('[{"ifname": "ib0", "operstate": "DOWN", "mtu": 2044}]') == {
        "ib0": {"state": "DOWN", "mtu": 2044, "mac": "", "ipv4": [], "ipv6": []}}


@pytest.mark.parametrize("text, said", [
    ("ip: command failed", "printed no JSON"),
    ('{"ifname": "lo"}', "printed dict, not a list"),
    ('[{"operstate": "UP"}]', "interface 0 of ip -j addr show has no name"),
    ('[{"ifname": "e", "addr_info": {}}]', "e's addr_info is"),
    ('[{"ifname": "e", "addr_info": [{"family": "inet", "local": "10.0.0.300", "prefixlen": 24}]}]',
     "'10.0.0.300' is no IP address"),
    ('[{"ifname": "e", "addr_info": [{"family": "inet", "local": "10.0.0.1", "prefixlen": 33}]}]',
     "prefix length 33 is outside 0..32"),
    ('[{"ifname": "e", "addr_info": [{"family": "inet6", "local": "::1"}]}]', "no address with a prefix length"),
    ('[{"ifname": "e", "addr_info": [{"family": "inet", "local": "10.0.0.1", "prefixlen": true}]}]',
     "no address with a prefix length"),
])
def test_output_that_is_not_ips_is_refused_saying_what(text, said):
    with pytest.raises(AddressError, match=said):
        parse_ip_addr_json(text)


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                    max_leaves=12))
def test_any_json_parses_or_is_refused_never_another_error(value):
    try:
        parse_ip_addr_json(json.dumps(value))
    except AddressError:
        pass
