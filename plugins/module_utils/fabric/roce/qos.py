# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""One description of the RoCE lossless class, checked once, rendered for any switch.

* :func:`parse_lossless_class` -- the description (priority, DSCP list, ECN thresholds, PFC
  watchdog, ports with speed and cable length, per-port PFC headroom) with defaults filled in and
  every field range-checked; refuses a host side (``host: {priority, dscp}``) that disagrees.
* :func:`dscp_to_priority`, :func:`priority_to_queue` -- the two maps every platform renders:
  the lossless DSCPs go to the lossless priority, every other DSCP to ``default_priority``; the
  lossless priority goes to the lossless queue, which no other priority may share.
* :func:`check_platform` -- what one platform cannot express (NVUE's RoCE pool is fixed on
  traffic class 3, EOS timers have 10 ms steps, port naming), refused before rendering.

The renderers live in :mod:`.render` (SONiC config_db, NVUE, EOS).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Tuple

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import (
    integer_in, list_of, mapping_of, unknown_keys,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce.pfc_headroom import check_port_name


class RoceQosError(ValueError):
    """A lossless-class description, host side or headroom that would not give a lossless fabric."""


#: Where a refusal of an unknown key points to: the description's keys, explained.
DOCS = "the lossless class is described in docs/roce-switch.md"


PLATFORMS = ("sonic", "nvue", "eos")
SPEEDS_GBPS = (10, 25, 40, 50, 100, 200, 400, 800)
ACTIONS = ("drop", "forward")
DEFAULTS: Dict[str, Any] = {
    "priority": 3,                      # the RoCE convention (NVIDIA, Arista, SONiC AZURE maps)
    "dscp": [26],                       # AF31, what NVIDIA NICs mark RoCE with by default
    "default_priority": 0,              # where every other DSCP goes
    "lossless_bandwidth_percent": 50,   # ETS share of the lossless queue; the best-effort queue gets the rest
    # Cumulus Linux RoCE defaults (nv show qos roce: 146.48 KB / 1.43 MB / 100)
    "ecn": {"min_threshold_bytes": 150000, "max_threshold_bytes": 1500000, "probability_percent": 100},
    # SONiC pfcwd defaults (pfcwd start_default: 200 ms / 200 ms / drop)
    "pfc_watchdog": {"detection_ms": 200, "restoration_ms": 200, "action": "drop"},
}
# Bounds shared by all three platforms (the intersection of what each accepts), with the source.
ECN_MAX_BYTES = 256000000        # EOS random-detect ecn threshold upper bound (AVD schema 1..256000000)
DETECTION_MS = (100, 5000)       # SONiC PFC_WD detection_time (sonic-pfcwd.yang) = NVUE polling range
RESTORATION_MS = (100, 60000)    # SONiC PFC_WD restoration_time (sonic-pfcwd.yang); EOS tops out at 60 s
CABLE_M = (1, 100000)            # NVUE qos pfc <profile> cable-length
HEADROOM_MAX_BYTES = 1 << 24     # 16 MiB: more than any ASIC reserves for one PG; a unit slip
NVUE_ROCE_QUEUE = 3              # Cumulus RoCE pools and ECN sit on traffic class 3
PORT_NAMES = {   # applied with fullmatch
    "sonic": (re.compile(r"Ethernet\d+"), "Ethernet0, Ethernet8 (config_db PORT names)"),
    "nvue": (re.compile(r"swp\d+(s\d+)?"), "swp1, swp49s0 (Cumulus switch ports)"),
    "eos": (re.compile(r"Ethernet\d+(/\d+){0,2}"), "Ethernet1, Ethernet1/1 (EOS interface names)"),
}
_KEYS = ("priority", "dscp", "queue", "default_priority", "lossless_bandwidth_percent", "ecn",
         "pfc_watchdog", "ports", "headroom")
_PORT_KEYS = ("name", "speed_gbps", "cable_m")
# Port keys of gpufleet.cluster.pfc_headroom, so one port list feeds both filters; not used here.
_HEADROOM_PORT_KEYS = ("mtu", "lossless_mtu", "ns_per_m", "phy_delay_ns", "peer_response_bits", "xon_bytes")
_CABLE_RE = re.compile(r" *(\d+) *m *")   # fullmatch: no newline or tab
_HEADROOM_KEYS = ("xoff", "xon", "size")


@dataclass(frozen=True)
class Port:
    name: str
    speed_gbps: int
    cable_m: int


@dataclass(frozen=True)
class Ecn:
    min_threshold_bytes: int
    max_threshold_bytes: int
    probability_percent: int


@dataclass(frozen=True)
class Watchdog:
    detection_ms: int
    restoration_ms: int
    action: str


@dataclass(frozen=True)
class Headroom:
    xoff: int
    xon: int
    size: int


@dataclass(frozen=True)
class LosslessClass:
    priority: int
    dscp: Tuple[int, ...]
    queue: int
    default_priority: int
    lossless_bandwidth_percent: int
    ecn: Ecn
    pfc_watchdog: Watchdog
    ports: Tuple[Port, ...]
    headroom: Optional[Dict[str, Headroom]] = field(default=None)

    def as_dict(self) -> Dict[str, Any]:
        """The checked description as plain data, defaults filled in."""
        return {
            "priority": self.priority, "dscp": list(self.dscp), "queue": self.queue,
            "default_priority": self.default_priority,
            "lossless_bandwidth_percent": self.lossless_bandwidth_percent,
            "ecn": {"min_threshold_bytes": self.ecn.min_threshold_bytes,
                    "max_threshold_bytes": self.ecn.max_threshold_bytes,
                    "probability_percent": self.ecn.probability_percent},
            "pfc_watchdog": {"detection_ms": self.pfc_watchdog.detection_ms,
                             "restoration_ms": self.pfc_watchdog.restoration_ms,
                             "action": self.pfc_watchdog.action},
            "ports": [{"name": p.name, "speed_gbps": p.speed_gbps, "cable_m": p.cable_m}
                      for p in self.ports],
            "headroom": None if self.headroom is None else {
                name: {"xoff": h.xoff, "xon": h.xon, "size": h.size} for name, h in self.headroom.items()},
        }


# ---------------------------------------------------------------- field checks
def _int(where: str, value: Any, low: int, high: int, fix: str) -> int:
    # bool is an int in Python; 'true' for a priority is always a mistake.
    return integer_in(where, value, low, high, RoceQosError, fix)


def _mapping(where: str, value: Any, keys: Tuple[str, ...]) -> Mapping[str, Any]:
    mapping_of(where, value, RoceQosError, "a mapping with keys %s" % ", ".join(keys))
    unknown_keys(where, value, keys, RoceQosError, hint=DOCS)
    return value


def _dscp_list(where: str, value: Any) -> Tuple[int, ...]:
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    list_of(where, value, RoceQosError, "a non-empty list of DSCP values 0..63", allow_empty=False,
            hint="RoCE uses [26]")
    seen: List[int] = []
    for i, item in enumerate(value):
        dscp = _int("%s[%d]" % (where, i), item, 0, 63, "DSCP is the 6-bit field of the IP TOS byte")
        if dscp in seen:
            raise RoceQosError("%s lists DSCP %d twice (positions %d and %d); list each value once"
                               % (where, dscp, seen.index(dscp), i))
        seen.append(dscp)
    return tuple(sorted(seen))


def _ecn(value: Any) -> Ecn:
    data = dict(DEFAULTS["ecn"])
    data.update(_mapping("ecn", value, tuple(DEFAULTS["ecn"])))
    low = _int("ecn.min_threshold_bytes", data["min_threshold_bytes"], 1, ECN_MAX_BYTES,
               "queue depth in bytes where marking starts (Cumulus RoCE default 150000)")
    high = _int("ecn.max_threshold_bytes", data["max_threshold_bytes"], 1, ECN_MAX_BYTES,
                "queue depth in bytes where every packet is marked (Cumulus RoCE default 1500000)")
    if low > high:
        raise RoceQosError(
            "ecn.min_threshold_bytes %d is above ecn.max_threshold_bytes %d; marking starts at the minimum "
            "and reaches its full probability at the maximum, so min <= max (equal gives step marking); "
            "swap them" % (low, high))
    prob = _int("ecn.probability_percent", data["probability_percent"], 1, 100,
                "marking probability at the maximum threshold in percent (SONiC/EOS/NVUE all take 1..100)")
    return Ecn(low, high, prob)


def _watchdog(value: Any) -> Watchdog:
    data = dict(DEFAULTS["pfc_watchdog"])
    data.update(_mapping("pfc_watchdog", value, tuple(DEFAULTS["pfc_watchdog"])))
    detect = _int("pfc_watchdog.detection_ms", data["detection_ms"], DETECTION_MS[0], DETECTION_MS[1],
                  "milliseconds a queue may stay paused before the watchdog acts (SONiC PFC_WD "
                  "detection_time range; default 200)")
    restore = _int("pfc_watchdog.restoration_ms", data["restoration_ms"], RESTORATION_MS[0], RESTORATION_MS[1],
                   "milliseconds before PFC is restored on the queue (SONiC PFC_WD restoration_time "
                   "range; default 200)")
    action = data["action"]
    if action not in ACTIONS:
        raise RoceQosError("pfc_watchdog.action %r is not one of %s; drop discards the stuck queue's packets, "
                           "forward ignores the storming pause frames" % (action, ", ".join(ACTIONS)))
    return Watchdog(detect, restore, action)


def _ports(value: Any) -> Tuple[Port, ...]:
    list_of("ports", value, RoceQosError, "a non-empty list of {name, speed_gbps, cable_m}", allow_empty=False,
            hint="list every switch port that carries RoCE")
    ports: List[Port] = []
    for i, item in enumerate(value):
        where = "ports[%d]" % i
        data = _mapping(where, item, _PORT_KEYS + _HEADROOM_PORT_KEYS)
        missing = [k for k in _PORT_KEYS if k not in data]
        if missing:
            raise RoceQosError("%s lacks %s; each port needs name, speed_gbps and cable_m"
                               % (where, ", ".join(missing)))
        name = check_port_name(where + ".name", data["name"], RoceQosError)
        if any(p.name == name for p in ports):
            raise RoceQosError("%s.name %s is listed twice; list each port once" % (where, name))
        speed = data["speed_gbps"]
        if isinstance(speed, bool) or not isinstance(speed, int) or speed not in SPEEDS_GBPS:
            raise RoceQosError("%s.speed_gbps %r is not an Ethernet speed; use one of %s (Gb/s)"
                               % (where, speed, ", ".join(str(s) for s in SPEEDS_GBPS)))
        cable = data["cable_m"]
        if isinstance(cable, str) and _CABLE_RE.fullmatch(cable):
            cable = int(_CABLE_RE.fullmatch(cable).group(1))  # SONiC CABLE_LENGTH spelling, "5m"
        cable = _int(where + ".cable_m", cable, CABLE_M[0], CABLE_M[1],
                     "whole metres of cable to the peer, as 5 or '5m' (NVUE and SONiC CABLE_LENGTH take "
                     "whole metres)")
        ports.append(Port(name, speed, cable))
    return tuple(ports)


def _from_pfc_headroom(value: List[Any]) -> Dict[str, Any]:
    """gpufleet.cluster.pfc_headroom's list (name, xoff_bytes, xon_bytes, headroom_bytes, ...) as
    port -> {xoff, xon, size}; its headroom_bytes (xoff + xon) is SONiC's profile size."""
    out: Dict[str, Any] = {}
    for i, item in enumerate(value):
        where = "headroom[%d]" % i
        required = ("name", "xoff_bytes", "xon_bytes", "headroom_bytes")
        if not isinstance(item, Mapping) or not all(k in item for k in required):
            raise RoceQosError("%s is not a pfc_headroom result (name, xoff_bytes, xon_bytes, headroom_bytes); "
                               "pass the pfc_headroom filter's list or a mapping port -> {xoff, xon, size}" % where)
        name = item["name"]
        if name is None:
            raise RoceQosError("%s has no port name; give each port a name before pfc_headroom" % where)
        check_port_name(where + ".name", name, RoceQosError)
        if name in out:
            raise RoceQosError("%s: port %s appears twice in the headroom list" % (where, name))
        out[name] = {"xoff": item["xoff_bytes"], "xon": item["xon_bytes"], "size": item["headroom_bytes"]}
    return out


def _headroom(value: Any, ports: Tuple[Port, ...]) -> Optional[Dict[str, Headroom]]:
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        value = _from_pfc_headroom(list(value))
    mapping_of("headroom", value, RoceQosError, "a mapping port -> {xoff, xon, size} in bytes")
    names = [p.name for p in ports]
    stray = sorted(str(k) for k in value if k not in names)
    if stray:
        raise RoceQosError("headroom names port(s) %s that are not in ports (%s); fix the port name or add "
                           "the port" % (", ".join(stray), ", ".join(names)))
    missing = [n for n in names if n not in value]
    if missing:
        raise RoceQosError("headroom lacks port(s) %s; every lossless port needs its PFC headroom "
                           "(run gpufleet.cluster.pfc_headroom over the same ports)" % ", ".join(missing))
    out: Dict[str, Headroom] = {}
    for name in names:
        where = "headroom[%s]" % name
        data = _mapping(where, value[name], _HEADROOM_KEYS)
        absent = [k for k in _HEADROOM_KEYS if k not in data]
        if absent:
            raise RoceQosError("%s lacks %s; give xoff, xon and size in bytes" % (where, ", ".join(absent)))
        xoff = _int(where + ".xoff", data["xoff"], 1, HEADROOM_MAX_BYTES,
                    "bytes kept for data in flight after the pause frame leaves; 0 would drop them")
        xon = _int(where + ".xon", data["xon"], 0, HEADROOM_MAX_BYTES, "bytes, the resume threshold")
        size = _int(where + ".size", data["size"], 0, HEADROOM_MAX_BYTES, "bytes reserved for the PG")
        if size < xoff + xon:
            raise RoceQosError(
                "%s.size %d is below xoff + xon = %d + %d = %d bytes: the PG's buffer must hold the XON reserve and "
                "the XOFF headroom, or frames in flight after the pause are dropped; use size >= %d (pfc_headroom's "
                "headroom_bytes)" % (where, size, xoff, xon, xoff + xon, xoff + xon))
        out[name] = Headroom(xoff, xon, size)
    return out


# ---------------------------------------------------------------- the description
def parse_lossless_class(data: Any, host: Any = None, headroom: Any = None) -> LosslessClass:
    """Check a lossless-class description and fill in the defaults.

    ``headroom`` (port -> {xoff, xon, size}, or gpufleet.cluster.pfc_headroom's list) may come as
    an argument or as the description's own ``headroom`` key; given both, they must agree. ``host`` ({priority, dscp}) is the NIC side; a mismatch is refused.
    """
    data = _mapping("lossless class", data, _KEYS)
    if "ports" not in data:
        raise RoceQosError("lossless class lacks ports; list the RoCE ports as {name, speed_gbps, cable_m}")

    def get(key: str) -> Any:
        return data.get(key, DEFAULTS.get(key))
    priority = _int("priority", get("priority"), 0, 7,
                    "the 802.1p priority PFC pauses; RoCE convention is 3")
    default_priority = _int("default_priority", get("default_priority"), 0, 7,
                            "the priority every other DSCP goes to; normally 0")
    if default_priority == priority:
        raise RoceQosError(
            "priority %d equals default_priority %d: every non-RoCE DSCP would land in the lossless class, "
            "so PFC would pause all traffic and ECN would mark it; pick a lossless priority other than %d "
            "(RoCE convention 3)" % (priority, default_priority, default_priority))
    if "queue" not in data and priority == 0:
        raise RoceQosError("priority 0 needs an explicit queue in 1..7: the queue defaults to the priority, and "
                           "queue 0 is the best-effort queue")
    queue = _int("queue", data.get("queue", priority), 1, 7,
                 "egress queue (traffic class) of the lossless priority, defaults to the priority; "
                 "queue 0 is the best-effort queue that priorities displaced from the lossless queue use")
    bandwidth = _int("lossless_bandwidth_percent", get("lossless_bandwidth_percent"), 1, 99,
                     "ETS share of the lossless queue; the best-effort queue gets the rest (default 50)")
    dscp = _dscp_list("dscp", get("dscp"))
    ports = _ports(data["ports"])
    checked = _headroom(headroom, ports)
    own = _headroom(data.get("headroom"), ports)
    if checked is not None and own is not None and checked != own:
        raise RoceQosError("headroom is given both in the description and as an argument, and they differ; "
                           "give it once")
    result = LosslessClass(
        priority=priority, dscp=dscp, queue=queue, default_priority=default_priority,
        lossless_bandwidth_percent=bandwidth, ecn=_ecn(data.get("ecn", {})),
        pfc_watchdog=_watchdog(data.get("pfc_watchdog", {})), ports=ports,
        headroom=checked if checked is not None else own)
    if host is not None:
        check_host(result, host)
    return result


def check_host(cls: LosslessClass, host: Any) -> None:
    """Refuse a host side whose PFC priority or RoCE DSCP the switch would not treat as lossless."""
    data = _mapping("host", host, ("priority", "dscp"))
    if "priority" not in data or "dscp" not in data:
        raise RoceQosError("host needs priority and dscp (the NIC's PFC priority and the DSCP it marks RoCE with)")
    priority = _int("host.priority", data["priority"], 0, 7, "the NIC's PFC priority")
    dscp = _dscp_list("host.dscp", data["dscp"])
    if priority != cls.priority:
        raise RoceQosError(
            "host priority %d / switch priority %d: the NICs pause and send RoCE on priority %d but the switch "
            "makes priority %d lossless, so RoCE would be dropped under congestion; set the same priority on "
            "both sides" % (priority, cls.priority, priority, cls.priority))
    outside = [d for d in dscp if d not in cls.dscp]
    if outside:
        raise RoceQosError(
            "host DSCP %s / switch DSCP %s: the switch maps DSCP %s to priority %d, not to the lossless "
            "priority %d; add it to the switch's dscp list or mark RoCE with %s on the hosts"
            % (_list(dscp), _list(cls.dscp), _list(outside), cls.default_priority, cls.priority,
               _list(cls.dscp)))


def _list(values) -> str:
    return "[%s]" % ", ".join(str(v) for v in values)


# ---------------------------------------------------------------- derived maps
def dscp_to_priority(cls: LosslessClass) -> Dict[int, int]:
    """All 64 DSCPs: the lossless ones to ``priority``, the rest to ``default_priority``."""
    return {d: (cls.priority if d in cls.dscp else cls.default_priority) for d in range(64)}


def priority_to_queue(cls: LosslessClass) -> Dict[int, int]:
    """Priority (traffic class) -> egress queue for 0..7.

    The lossless priority goes to the lossless queue; if that queue is another priority's own
    queue, that priority moves to queue 0 (as NVIDIA does when it moves RoCE off priority 3), so
    nothing lossy shares the lossless queue. Every other priority keeps its own queue.
    """
    out = {}
    for prio in range(8):
        if prio == cls.priority:
            out[prio] = cls.queue
        elif prio == cls.queue:
            out[prio] = 0
        else:
            out[prio] = prio
    return out


def check_platform(cls: LosslessClass, platform: str) -> None:
    """Refuse what ``platform`` cannot express before anything is rendered."""
    if platform not in PLATFORMS:
        raise RoceQosError("platform %r is not one of %s" % (platform, ", ".join(PLATFORMS)))
    pattern, example = PORT_NAMES[platform]
    bad = [p.name for p in cls.ports if not pattern.fullmatch(p.name)]
    if bad:
        raise RoceQosError("ports %s are not %s port names; use names such as %s"
                           % (", ".join(bad), platform, example))
    wd = cls.pfc_watchdog
    if platform == "sonic" and cls.headroom is None:
        raise RoceQosError("sonic: headroom is required for BUFFER_PG/BUFFER_PROFILE; give headroom=port -> "
                           "{xoff, xon, size} (the headroom filter's result)")
    if platform == "sonic" and cls.priority == 0:
        raise RoceQosError("sonic: priority 0 would be PG 0, which SONiC's buffer templates give the lossy "
                           "profile (BUFFER_PG Ethernet*|0 ingress_lossy_profile) and every other TC; use 1..7")
    if platform == "nvue":
        if cls.queue != NVUE_ROCE_QUEUE:
            raise RoceQosError(
                "nvue: queue %d cannot be the lossless queue; Cumulus RoCE mode keeps its lossless pool "
                "(roce-reserved-egress) and ECN on traffic class 3, and NVIDIA moves RoCE to another priority by "
                "mapping that switch priority to traffic class 3; set queue: 3" % cls.queue)
        if wd.action != "drop":
            raise RoceQosError("nvue: pfc_watchdog.action %s is not available; the Cumulus watchdog always drops "
                               "on the stuck queue; set action: drop" % wd.action)
    if platform == "eos":
        if cls.priority in (0, 1):
            raise RoceQosError(
                "eos: priority %d is not rendered: EOS's default CoS/traffic-class maps swap 0 and 1 (CoS 0 is "
                "traffic class 1), so PFC priority %d would not pause traffic class %d; use 2..7"
                % (cls.priority, cls.priority, cls.priority))
        for name, value in (("detection_ms", wd.detection_ms), ("restoration_ms", wd.restoration_ms)):
            if value % 10:
                raise RoceQosError(
                    "eos: pfc_watchdog.%s %d is not a multiple of 10; EOS takes the watchdog timers in seconds "
                    "with two decimals (0.01 s steps); use %d or %d"
                    % (name, value, value - value % 10, value - value % 10 + 10))
        if cls.queue != cls.priority and 7 in (cls.queue, cls.priority):
            raise RoceQosError("eos: traffic class 7 and tx-queue 7 are tied together on EOS (control traffic); "
                               "priority %d / queue %d would remap them; keep queue equal to priority"
                               % (cls.priority, cls.queue))
