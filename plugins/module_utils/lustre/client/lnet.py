# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""LNet for a Lustre client: the networks, /etc/lnet.conf for ``lnetctl import``, ko2iblnd and lnet options.

One description of the client's LNet networks (``[{net: o2ib0, interfaces: [ib0]}, ...]``) gives:

* ``/etc/lnet.conf`` in the YAML that ``lnetctl export --backup`` writes and ``lnetctl import`` reads
  (lustre-release ``lustre/conf/lnet.conf``; keys from ``lnet/utils/lnetconfig/liblnetconfig_lnd.c``): the
  lnet.service that lustre-client-utils ships runs ``modprobe lnet``, ``lnetctl lnet configure`` and
  ``lnetctl import /etc/lnet.conf``. One NI per interface (several interfaces in one net are Multi-Rail).
* ``/etc/modprobe.d/`` lines: ``options ko2iblnd ...`` (defaults for every o2ib NI, and ``peer_credits_hiw``,
  which ``lnetctl import`` does not read) and ``options lnet ...``. Never ``lnet networks=``: the networks are
  said once, in lnet.conf.

The o2ib tunables are checked against what ``kiblnd_tunables_setup()`` (``o2iblnd_modparams.c``) would
silently change: a value the kernel would clamp is refused here with the value it would become.
docs/lustre-client.md has the rules and a worked example.
"""
from __future__ import annotations

import ipaddress
import re
from typing import Any, Dict, List, Mapping, Optional, Sequence

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import must_be, unknown_keys
from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.client.checks import (
    LustreClientError,
    need_int,
    need_kind,
    need_list,
    need_mapping,
    need_str,
)

#: ``o2ib``/``tcp`` then an optional number; ``o2ib`` and ``o2ib0`` are the same network (applied with fullmatch).
NET_RE = re.compile(r"(o2ib|tcp)([0-9]{0,4})")
#: A module parameter is a C int: larger values are refused rather than wrapped by the kernel.
INT_MAX = 2 ** 31 - 1
#: ibm_credits is a __u8: IBLND_CREDITS_MAX = 255 (o2iblnd.h).
IBLND_CREDITS_MAX = 255
#: IBLND_MAX_RDMA_FRAGS with 4 KiB pages (LNET_MAX_IOV = 256): map_on_demand above it disables mapping.
IBLND_MAX_RDMA_FRAGS = 256
#: ARPHRD_ETHER and ARPHRD_INFINIBAND (/sys/class/net/<if>/type).
ARPHRD_ETHER, ARPHRD_INFINIBAND = 1, 32

#: ko2iblnd module parameters this role writes, and where lnetctl's YAML carries each one ("tunables" is
#: the NI's common block, "lnd tunables" the o2iblnd block, None: only the module option exists).
O2IB_TUNABLES = {
    "peer_credits": "tunables",
    "peer_credits_hiw": None,   # lnetctl exports it as peercredits_hiw but import does not read it
    "credits": "tunables",
    "peer_timeout": "tunables",
    "peer_buffer_credits": "tunables",
    "concurrent_sends": "lnd tunables",
    "map_on_demand": "lnd tunables",
    "ntx": "lnd tunables",
    "fmr_pool_size": "lnd tunables",
    "fmr_flush_trigger": "lnd tunables",
    "fmr_cache": "lnd tunables",
    "conns_per_peer": "lnd tunables",
}
#: lnet module options that would describe the networks a second time.
LNET_NETWORK_OPTIONS = ("networks", "ip2nets", "routes")
MODPROBE_VALUE_RE = re.compile(r"[A-Za-z0-9_.,:@/+-]{1,255}")
MODPROBE_KEY_RE = re.compile(r"[a-z][a-z0-9_]{0,63}")


def canonical_net(name: str, where: str = "LNet network") -> str:
    """``o2ib`` -> ``o2ib0``, ``tcp1`` -> ``tcp1``: LNet's own spelling of a network with its number."""
    match = NET_RE.fullmatch(name) if isinstance(name, str) else None
    if not match:
        raise LustreClientError(
            "%s: %r is not allowed; expected an LNet network o2ib<N> or tcp<N> (N up to 4 digits): o2ib0 for "
            "InfiniBand or RoCE, tcp0 for the Ethernet fallback" % (where, name))
    return "%s%d" % (match.group(1), int(match.group(2) or "0"))


def lnd_of(net: str) -> str:
    """The LND a network uses: o2ib (ko2iblnd) or tcp (ksocklnd)."""
    return canonical_net(net).rstrip("0123456789")


def check_networks(networks: Any, where: str = "lustre_client_lnet_networks") -> List[Dict[str, Any]]:
    """Validate ``[{net, interfaces}]``; returns ``[{net (canonical), lnd, interfaces}]`` in the given order.

    Refused: an empty list, a network given twice (o2ib and o2ib0 are one), a network without interfaces, an
    interface name Linux would not accept, and an interface in two networks (one NI per interface).
    """
    items = need_list(networks, where)
    if not items:
        raise LustreClientError("%s is empty; list at least one network, e.g. [{net: o2ib0, interfaces: [ib0]}]" % where)
    seen_nets: Dict[str, str] = {}
    seen_ifs: Dict[str, str] = {}
    result = []
    for index, item in enumerate(items):
        here = "%s[%d]" % (where, index)
        entry = need_mapping(item, here)
        unknown_keys(here, entry, ("net", "interfaces"), LustreClientError)
        net = canonical_net(need_str(entry.get("net"), here + ".net"), here + ".net")
        if net in seen_nets:
            raise LustreClientError("%s: network %s is already %s (o2ib and o2ib0 are the same); list each network once "
                                    "with all its interfaces" % (here, net, seen_nets[net]))
        seen_nets[net] = here
        interfaces = need_list(entry.get("interfaces"), here + ".interfaces")
        if not interfaces:
            raise LustreClientError("%s (%s) has no interfaces; name the IPoIB, RoCE or Ethernet interface(s), e.g. [ib0]"
                                    % (here, net))
        names = []
        for position, value in enumerate(interfaces):
            name = need_kind("ifname", value, "%s.interfaces[%d]" % (here, position))
            if name in seen_ifs:
                raise LustreClientError("%s: interface %s is already in %s; an interface belongs to one LNet network"
                                        % (here, name, seen_ifs[name]))
            seen_ifs[name] = net
            names.append(name)
        result.append({"net": net, "lnd": lnd_of(net), "interfaces": names})
    return result


def check_o2ib_tunables(tunables: Any, where: str = "lustre_client_o2ib_tunables") -> Dict[str, int]:
    """Check ko2iblnd tunables against the kernel's own rules (kiblnd_tunables_setup, o2iblnd_modparams.c).

    Every value the kernel would silently change is refused, naming what it would become:
    ``1 <= peer_credits <= 255`` and ``<= credits``; ``peer_credits/2 <= peer_credits_hiw <= peer_credits-1``;
    ``peer_credits/2 <= concurrent_sends <= 2*peer_credits``; ``0 <= map_on_demand <= 256``;
    ``fmr_pool_size >= ntx/4`` (the module's own description); ``conns_per_peer`` 1..127; the rest >= 0.
    Only the keys given are checked against each other where both are given; peer_credits is required
    when any of its dependants is set.
    """
    values = {}
    for key, value in need_mapping(tunables, where).items():
        if key not in O2IB_TUNABLES:
            raise LustreClientError("%s.%s is not a ko2iblnd tunable this role writes; use one of %s"
                                    % (where, key, ", ".join(sorted(O2IB_TUNABLES))))
        values[key] = need_int(value, "%s.%s" % (where, key), minimum=0, maximum=INT_MAX)
    credits = values.get("peer_credits")
    dependants = [k for k in ("peer_credits_hiw", "concurrent_sends") if k in values]
    if dependants and credits is None:
        raise LustreClientError("%s sets %s but not peer_credits, which bounds them; set peer_credits too"
                                % (where, ", ".join(dependants)))
    if credits is not None:
        if not 1 <= credits <= IBLND_CREDITS_MAX:
            raise LustreClientError("%s.peer_credits is %d; ko2iblnd takes 1-%d (the credit field is one byte); "
                                    "32 to 128 is usual" % (where, credits, IBLND_CREDITS_MAX))
        total = values.get("credits")
        if total is not None and credits > total:
            raise LustreClientError("%s.peer_credits %d is above credits %d; the kernel would lower it to %d. "
                                    "Raise credits to at least %d" % (where, credits, total, total, credits))
        hiw = values.get("peer_credits_hiw")
        if hiw is not None and not credits // 2 <= hiw <= credits - 1:
            fixed = max(credits // 2, min(hiw, credits - 1))
            raise LustreClientError("%s.peer_credits_hiw %d is outside %d-%d (peer_credits/2 to peer_credits-1); the "
                                    "kernel would make it %d. Use %d" % (where, hiw, credits // 2, credits - 1, fixed, credits // 2))
        sends = values.get("concurrent_sends")
        if sends is not None and not credits // 2 <= sends <= 2 * credits:
            fixed = max(credits // 2, min(sends, 2 * credits))
            raise LustreClientError("%s.concurrent_sends %d is outside %d-%d (peer_credits/2 to 2*peer_credits); the "
                                    "kernel would make it %d. Use %d" % (where, sends, credits // 2, 2 * credits, fixed, fixed))
    mod = values.get("map_on_demand")
    if mod is not None and mod > IBLND_MAX_RDMA_FRAGS:
        raise LustreClientError("%s.map_on_demand %d is above %d (IBLND_MAX_RDMA_FRAGS); the kernel would turn mapping "
                                "off (0). Use 0-%d" % (where, mod, IBLND_MAX_RDMA_FRAGS, IBLND_MAX_RDMA_FRAGS))
    if "ntx" in values and "fmr_pool_size" in values and values["fmr_pool_size"] * 4 < values["ntx"]:
        need = -(-values["ntx"] // 4)
        raise LustreClientError("%s.fmr_pool_size %d is below ntx/4 (ntx %d); ko2iblnd wants fmr_pool_size >= ntx/4. "
                                "Use at least %d" % (where, values["fmr_pool_size"], values["ntx"], need))
    cpp = values.get("conns_per_peer")
    if cpp is not None and not 1 <= cpp <= 127:
        raise LustreClientError("%s.conns_per_peer is %d; use 1-127 (1 on IB, more only for OPA or RoCE with "
                                "several QPs per peer)" % (where, cpp))
    return values


def check_lnet_options(options: Any, where: str = "lustre_client_lnet_options") -> Dict[str, str]:
    """Module options for ``lnet`` (``lnet_transaction_timeout``, ``lnet_retry_count``...), as text.

    ``networks``, ``ip2nets`` and ``routes`` are refused: lnet.conf is the one place the networks are said.
    """
    result = {}
    for key, value in need_mapping(options, where).items():
        if not isinstance(key, str) or not MODPROBE_KEY_RE.fullmatch(key):
            raise LustreClientError("%s: key %r is not allowed; expected a module parameter name (a lower-case "
                                    "letter, then up to 63 lower-case letters, digits or '_')" % (where, key))
        if key in LNET_NETWORK_OPTIONS:
            raise LustreClientError("%s.%s would describe LNet's networks a second time; they come from /etc/lnet.conf "
                                    "(lustre_client_lnet_networks). Remove %s" % (where, key, key))
        if isinstance(value, bool):
            text = "1" if value else "0"
        elif isinstance(value, int):
            text = str(need_int(value, "%s.%s" % (where, key), -INT_MAX - 1, INT_MAX))
        elif isinstance(value, str):
            text = value
        else:
            raise must_be("%s.%s" % (where, key), value, "a whole number or a word", LustreClientError)
        if not MODPROBE_VALUE_RE.fullmatch(text):
            raise LustreClientError("%s.%s: %r is not allowed; expected 1-255 letters, digits, '_', '.', ',', ':', '@', "
                                    "'/', '+' or '-' (modprobe splits on blanks; no quotes or control characters)"
                                    % (where, key, text))
        result[key] = text
    return result


def check_observed(observed: Any, where: str = "observed") -> Dict[str, Dict[str, Any]]:
    """``{ifname: {exists: bool, type: ARPHRD number or None, rdma: bool, addresses: [str]}}`` checked, every key
    optional. ``addresses``: the IP addresses the interface holds, or is given in this run (with or without a prefix
    length); absent or None, the address check does not run."""
    result: Dict[str, Dict[str, Any]] = {}
    for name, seen in need_mapping(observed, where).items():
        here = "%s[%r]" % (where, name)
        if not isinstance(name, str):
            raise must_be("%s: the key" % here, name, "an interface name (a string)", LustreClientError)
        seen = need_mapping(seen, here)
        unknown_keys(here, seen, ("exists", "type", "rdma", "addresses"), LustreClientError)
        for key in ("exists", "rdma"):
            if seen.get(key) is not None and not isinstance(seen[key], bool):
                raise must_be("%s.%s" % (here, key), seen[key], "true or false", LustreClientError)
        kind = seen.get("type")
        if kind is not None:
            need_int(kind, here + ".type", 0, 65535)
        result[name] = dict(seen)
        if seen.get("addresses") is not None:
            result[name]["addresses"] = [_address(item, "%s.addresses[%d]" % (here, index))
                                         for index, item in enumerate(need_list(seen["addresses"],
                                                                                here + ".addresses"))]
    return result


def _address(value: Any, where: str) -> Any:
    """An IP address with or without its prefix length, as ipaddress reads it."""
    try:
        if not isinstance(value, str):
            raise ValueError
        return ipaddress.ip_interface(value).ip
    except ValueError:
        raise must_be(where, value, "an IP address (10.10.1.11 or 10.10.1.11/16)", LustreClientError) from None


def interface_problems(networks: Sequence[Mapping[str, Any]], observed: Mapping[str, Mapping[str, Any]]) -> List[str]:
    """What is wrong with the node's interfaces for these networks (empty: nothing).

    ``observed[ifname]`` = ``{exists, type (ARPHRD number or None), rdma (an RDMA device behind it)}``, read from
    /sys/class/net/<if>/type and /sys/class/net/<if>/device/infiniband, and ``addresses`` (the IP addresses it holds
    or is given in this run). o2ib needs IPoIB (type 32) or RoCE (Ethernet, type 1, with an RDMA device) holding an
    IPv4 address (its NID is <IPv4>@o2ibN; checked when ``addresses`` is given); tcp needs the interface to exist.
    """
    problems = []
    for network in networks:
        for name in network["interfaces"]:
            seen = observed.get(name) or {}
            if not seen.get("exists"):
                problems.append("%s: interface %s does not exist on this node; fix the name or the network configuration"
                                % (network["net"], name))
            elif network["lnd"] == "o2ib":
                kind = seen.get("type")
                if kind == ARPHRD_INFINIBAND or (kind == ARPHRD_ETHER and seen.get("rdma")):
                    if seen.get("addresses") is not None and not any(a.version == 4 for a in seen["addresses"]):
                        problems.append(_no_ipv4(network["net"], name, seen["addresses"]))
                    continue
                problems.append(
                    "%s: interface %s is %s, but o2ib needs an IPoIB interface (type 32) or a RoCE one (Ethernet with an "
                    "RDMA device); use the IPoIB/RoCE interface, or tcp%s as the fallback"
                    % (network["net"], name,
                       "Ethernet without an RDMA device" if kind == ARPHRD_ETHER else "link type %s" % kind,
                       network["net"][4:]))
    return problems


def _no_ipv4(net: str, name: str, addresses: Sequence[Any]) -> str:
    return ("%s: interface %s has no IPv4 address%s, and none is given to it in this run; o2ib names this node by "
            "that address (<address>@%s) and cannot start without one, so the mount fails. Give %s an IPv4 address: "
            "rdma_ipoib_interfaces [{name: %s, address: <IPv4>/<prefix>}] in the node's inventory (the rdma role "
            "writes it; docs/lustre-client.md shows a per-node scheme), or the site's own network configuration"
            % (net, name, " (only %s)" % ", ".join(str(a) for a in addresses) if addresses else "", net, name, name))


def lnet_conf(networks: Sequence[Mapping[str, Any]], o2ib_tunables: Optional[Mapping[str, int]] = None) -> Dict[str, Any]:
    """The data of /etc/lnet.conf: ``{net: [{net type, local NI(s): [{interfaces: {0: if}, tunables, lnd tunables}]}]}``.

    o2ib NIs carry the tunables lnetctl import reads (see O2IB_TUNABLES); tcp NIs take ksocklnd's defaults.
    """
    tunables = dict(o2ib_tunables or {})
    # In O2IB_TUNABLES' order, whatever order the inventory used: the file changes only when a value does.
    common = {k: tunables[k] for k, block in O2IB_TUNABLES.items() if block == "tunables" and k in tunables}
    lnd = {k: tunables[k] for k, block in O2IB_TUNABLES.items() if block == "lnd tunables" and k in tunables}
    nets = []
    for network in networks:
        nis = []
        for name in network["interfaces"]:
            ni: Dict[str, Any] = {"interfaces": {0: name}}
            if network["lnd"] == "o2ib":
                if common:
                    ni["tunables"] = dict(common)
                if lnd:
                    ni["lnd tunables"] = dict(lnd)
            nis.append(ni)
        nets.append({"net type": network["net"], "local NI(s)": nis})
    return {"net": nets}


def modprobe_lines(o2ib_tunables: Mapping[str, int], lnet_options: Mapping[str, str]) -> List[str]:
    """``options ko2iblnd k=v ...`` and ``options lnet k=v ...`` (sorted keys; none when empty)."""
    lines = []
    for module, options in (("ko2iblnd", o2ib_tunables), ("lnet", lnet_options)):
        if options:
            lines.append("options %s %s" % (module, " ".join("%s=%s" % (k, options[k]) for k in sorted(options))))
    return lines


def lnet_plan(networks: Any, o2ib_tunables: Any = None, lnet_options: Any = None,
              observed: Optional[Mapping[str, Mapping[str, Any]]] = None) -> Dict[str, Any]:
    """Everything the role writes for LNet, checked: networks, lnet.conf data, modprobe lines, nets, problems."""
    nets = check_networks(networks)
    tunables = check_o2ib_tunables(o2ib_tunables if o2ib_tunables is not None else {})
    options = check_lnet_options(lnet_options if lnet_options is not None else {})
    return {
        "networks": nets,
        "nets": [n["net"] for n in nets],
        "o2ib": any(n["lnd"] == "o2ib" for n in nets),
        "interfaces": [i for n in nets for i in n["interfaces"]],
        "lnet_conf": lnet_conf(nets, tunables),
        "o2ib_tunables": tunables,
        "modprobe_lines": modprobe_lines(tunables if any(n["lnd"] == "o2ib" for n in nets) else {}, options),
        "problems": interface_problems(nets, check_observed(observed)) if observed is not None else [],
    }
