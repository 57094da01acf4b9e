# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A node's network interfaces and their addresses, from ``ip -j addr show`` (iproute2's JSON): read live on every
run, where setup's cached ``ansible_facts[<interface>]`` may predate the last reboot or address change.
"""
from __future__ import annotations

import ipaddress
import json
from typing import Any, Dict, List

__all__ = ["AddressError", "parse_ip_addr_json"]


class AddressError(ValueError):
    """Output that is not what ``ip -j addr show`` prints."""


def _address(entry: Any, where: str) -> Dict[str, Any]:
    if not isinstance(entry, dict) or not isinstance(entry.get("local"), str) \
            or isinstance(entry.get("prefixlen"), bool) or not isinstance(entry.get("prefixlen"), int):
        raise AddressError("%s is no address with a prefix length: %r" % (where, entry))
    try:
        address = ipaddress.ip_address(entry["local"])
    except ValueError:
        raise AddressError("%s: %r is no IP address" % (where, entry["local"])) from None
    if not 0 <= entry["prefixlen"] <= address.max_prefixlen:
        raise AddressError("%s: prefix length %r is outside 0..%d" % (where, entry["prefixlen"], address.max_prefixlen))
    return {"address": str(address), "prefix": entry["prefixlen"], "scope": str(entry.get("scope", ""))}


def parse_ip_addr_json(text: str) -> Dict[str, Dict[str, Any]]:
    """Each interface by name: its state (operstate: UP, DOWN, UNKNOWN ...), MTU, link-layer address and its IPv4
    and IPv6 addresses (each address, prefix length and scope, in the order ip prints them)."""
    try:
        data = json.loads(text)
    except ValueError as err:
        raise AddressError("ip -j addr show printed no JSON (%s): %r" % (err, text[:200])) from None
    if not isinstance(data, list):
        raise AddressError("ip -j addr show printed %s, not a list of interfaces" % type(data).__name__)
    interfaces: Dict[str, Dict[str, Any]] = {}
    for index, link in enumerate(data):
        if not isinstance(link, dict) or not isinstance(link.get("ifname"), str) or not link["ifname"]:
            raise AddressError("interface %d of ip -j addr show has no name: %r" % (index, link))
        name = link["ifname"]
        ipv4: List[Dict[str, Any]] = []
        ipv6: List[Dict[str, Any]] = []
        infos = link.get("addr_info", [])
        if not isinstance(infos, list):
            raise AddressError("%s's addr_info is %r, not a list" % (name, infos))
        for number, info in enumerate(infos):
            family = info.get("family") if isinstance(info, dict) else None
            if family not in ("inet", "inet6"):
                continue  # ip prints only these two with `addr`; anything else is not an IP address
            (ipv4 if family == "inet" else ipv6).append(_address(info, "%s address %d" % (name, number)))
        interfaces[name] = {"state": str(link.get("operstate", "")), "mtu": link.get("mtu"),
                            "mac": str(link.get("address", "")), "ipv4": ipv4, "ipv6": ipv6}
    return interfaces
