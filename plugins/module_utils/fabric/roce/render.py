# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Render a checked :class:`roce_qos.LosslessClass` for a switch.

* :func:`render_sonic` -- config_db tables as sonic-cfggen writes them (AZURE map names, string
  values, ``port|queue`` keys), plus CABLE_LENGTH, BUFFER_PROFILE/BUFFER_PG from the headroom and
  PFC_WD. Shapes follow sonic-buildimage's sample_output for the Mellanox SN4600C.
* :func:`render_nvue` -- an ``nv config patch`` document (``- set:``) in NVUE's object model:
  ``qos roce``, named mapping / pfc / congestion-control / egress-scheduler profiles bound to each
  RoCE port, ``egress-queue-mapping default-global`` and the global ``pfc-watchdog``.
* :func:`render_eos` -- Arista EOS CLI: ``qos map`` lines, the global PFC watchdog, and per
  interface ``qos trust dscp``, PFC no-drop on the lossless priority and ECN on its tx-queue.

:func:`render` checks the platform's limits (:func:`roce_qos.check_platform`) and dispatches.
"""
from __future__ import annotations

import re
from typing import Any, Dict, List, Tuple, Union

from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce.qos import (
    LosslessClass,
    RoceQosError,
    check_platform,
    dscp_to_priority,
    priority_to_queue,
)

SONIC_MAP = "AZURE"                      # the name sonic-cfggen gives every QoS map
SONIC_WRED = "AZURE_LOSSLESS"
SONIC_SCHED_LOSSY, SONIC_SCHED_LOSSLESS = "scheduler.0", "scheduler.1"
SONIC_LOSSLESS_POOL = "ingress_lossless_pool"
SONIC_PG_DYNAMIC_TH = "0"                # Mellanox pg_profile_lookup.ini threshold column
NVUE_MAPPING, NVUE_ECN, NVUE_ETS = "roce-dscp", "roce-ecn", "roce-ets"


# ---------------------------------------------------------------- SONiC config_db
def sonic_poll_interval(cls: LosslessClass) -> int:
    """PFC_WD GLOBAL POLL_INTERVAL (ms): half the shorter timer, inside SONiC's 100..1000 and never
    above detection_time or restoration_time (sonic-pfcwd.yang's must statements)."""
    wd = cls.pfc_watchdog
    return min(1000, max(100, min(wd.detection_ms, wd.restoration_ms) // 2))


def sonic_profile_name(speed_gbps: int, cable_m: int) -> str:
    # buffermgrd's own naming: pg_lossless_<speed in Mb/s>_<cable>_profile
    return "pg_lossless_%d_%dm_profile" % (speed_gbps * 1000, cable_m)


def render_sonic(cls: LosslessClass) -> Dict[str, Dict[str, Dict[str, str]]]:
    """config_db.json fragments (every value a string, as in config_db)."""
    prio, queue = cls.priority, cls.queue
    dscp_map = dscp_to_priority(cls)
    to_queue = priority_to_queue(cls)
    names = [p.name for p in cls.ports]
    ecn, wd = cls.ecn, cls.pfc_watchdog
    profiles: Dict[str, Dict[str, str]] = {}
    buffer_pg: Dict[str, Dict[str, str]] = {}
    for port in cls.ports:
        head = cls.headroom[port.name]  # check_platform made sure it is there
        name = sonic_profile_name(port.speed_gbps, port.cable_m)
        entry = {"pool": SONIC_LOSSLESS_POOL, "xon": str(head.xon), "xoff": str(head.xoff),
                 "size": str(head.size), "dynamic_th": SONIC_PG_DYNAMIC_TH}
        if name in profiles and profiles[name] != entry:
            raise RoceQosError(
                "sonic: ports at %d Gb/s with %d m cable share BUFFER_PROFILE %s but their headroom differs "
                "(%s); give them the same headroom" % (port.speed_gbps, port.cable_m, name, port.name))
        profiles[name] = entry
        buffer_pg["%s|%d" % (port.name, prio)] = {"profile": name}
    bw = cls.lossless_bandwidth_percent
    per_port = {"dscp_to_tc_map": SONIC_MAP, "tc_to_queue_map": SONIC_MAP, "tc_to_pg_map": SONIC_MAP,
                "pfc_to_queue_map": SONIC_MAP, "pfc_enable": str(prio), "pfcwd_sw_enable": str(prio)}
    wred = {"wred_green_enable": "true", "wred_yellow_enable": "true", "wred_red_enable": "true",
            "ecn": "ecn_all"}
    for colour in ("green", "yellow", "red"):
        wred[colour + "_max_threshold"] = str(ecn.max_threshold_bytes)
        wred[colour + "_min_threshold"] = str(ecn.min_threshold_bytes)
    for colour in ("green", "yellow", "red"):
        wred[colour + "_drop_probability"] = str(ecn.probability_percent)
    queues: Dict[str, Dict[str, str]] = {}
    for port in names:
        for q in range(8):
            queues["%s|%d" % (port, q)] = (
                {"scheduler": SONIC_SCHED_LOSSLESS, "wred_profile": SONIC_WRED} if q == queue
                else {"scheduler": SONIC_SCHED_LOSSY})
    pfc_wd: Dict[str, Dict[str, str]] = {"GLOBAL": {"POLL_INTERVAL": str(sonic_poll_interval(cls))}}
    for port in names:
        pfc_wd[port] = {"action": wd.action, "detection_time": str(wd.detection_ms),
                        "restoration_time": str(wd.restoration_ms)}
    return {
        # ingress PG: only the lossless priority gets its own PG (and headroom)
        "TC_TO_PRIORITY_GROUP_MAP": {SONIC_MAP: {str(t): str(t if t == prio else 0) for t in range(8)}},
        "MAP_PFC_PRIORITY_TO_QUEUE": {SONIC_MAP: {str(t): str(to_queue[t]) for t in range(8)}},
        "TC_TO_QUEUE_MAP": {SONIC_MAP: {str(t): str(to_queue[t]) for t in range(8)}},
        "DSCP_TO_TC_MAP": {SONIC_MAP: {str(d): str(dscp_map[d]) for d in range(64)}},
        "SCHEDULER": {SONIC_SCHED_LOSSY: {"type": "DWRR", "weight": str(100 - bw)},
                      SONIC_SCHED_LOSSLESS: {"type": "DWRR", "weight": str(bw)}},
        "PORT_QOS_MAP": dict([("global", {"dscp_to_tc_map": SONIC_MAP})] + [(p, dict(per_port)) for p in names]),
        "WRED_PROFILE": {SONIC_WRED: wred},
        "QUEUE": queues,
        "CABLE_LENGTH": {SONIC_MAP: {p.name: "%dm" % p.cable_m for p in cls.ports}},
        "BUFFER_PROFILE": profiles,
        "BUFFER_PG": buffer_pg,
        "PFC_WD": pfc_wd,
    }


# ---------------------------------------------------------------- NVUE
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]*")   # fullmatch
# YAML 1.1 resolves these to booleans/null; NVUE's own dumps quote 'on' and 'off'.
_YAML_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"}


def _scalar(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        raise RoceQosError("nvue: internal error, %r has no NVUE spelling" % (value,))
    if isinstance(value, int):
        return str(value)
    text = str(value)
    if _PLAIN.fullmatch(text) and text.lower() not in _YAML_WORDS:
        return text
    return "'%s'" % text.replace("'", "''")


def _yaml_lines(node: Dict[str, Any], indent: int) -> List[str]:
    lines = []
    for key, value in node.items():
        head = " " * indent + _scalar(key) + ":"
        if isinstance(value, dict):
            if value:
                lines.append(head)
                lines.extend(_yaml_lines(value, indent + 2))
            else:
                lines.append(head + " {}")
        else:
            lines.append(head + " " + _scalar(value))
    return lines


def nvue_watchdog(cls: LosslessClass) -> Tuple[int, int]:
    """(polling-interval ms, robustness) with polling x robustness == detection_ms exactly.

    NVUE detects a storm after ``robustness`` polling intervals. Prefer the 100 ms default interval;
    otherwise the largest robustness whose interval is a whole number of ms inside 100..5000.
    """
    detect = cls.pfc_watchdog.detection_ms
    for robustness in range(detect // 100, 0, -1):
        if detect % robustness == 0:
            return detect // robustness, robustness
    return detect, 1  # unreachable: detection_ms >= 100 makes robustness 1 work


def nvue_pfc_profile(cable_m: int) -> str:
    return "roce-pfc-%dm" % cable_m


def render_nvue(cls: LosslessClass) -> str:
    """``nv config patch`` YAML: one ``- set:`` document."""
    prio, queue = cls.priority, cls.queue
    dscp_map = dscp_to_priority(cls)
    to_queue = priority_to_queue(cls)
    polling, robustness = nvue_watchdog(cls)
    interfaces: Dict[str, Any] = {}
    pfc: Dict[str, Any] = {}
    for port in cls.ports:
        profile = nvue_pfc_profile(port.cable_m)
        # Cumulus derives port-buffer / xoff / xon from speed and cable length (NVIDIA advises not to
        # set them), so one profile per cable length is all a port needs.
        pfc[profile] = {"cable-length": port.cable_m, "rx": "enable",
                        "switch-priority": {str(prio): {}}, "tx": "enable"}
        interfaces[port.name] = {"qos": {
            "congestion-control": {"profile": NVUE_ECN},
            "egress-scheduler": {"profile": NVUE_ETS},
            "mapping": {"profile": NVUE_MAPPING},
            "pfc": {"profile": profile},
            "pfc-watchdog": {"state": "enable"},
        }, "type": "swp"}
    bw = cls.lossless_bandwidth_percent
    lossy = to_queue[cls.default_priority]
    qos = {
        "congestion-control": {NVUE_ECN: {"traffic-class": {str(queue): {
            "ecn": "enable", "max-threshold": cls.ecn.max_threshold_bytes,
            "min-threshold": cls.ecn.min_threshold_bytes, "probability": cls.ecn.probability_percent,
            "red": "disable"}}}},
        "egress-queue-mapping": {"default-global": {"switch-priority": {
            str(sp): {"traffic-class": to_queue[sp]} for sp in range(8)}}},
        "egress-scheduler": {NVUE_ETS: {"traffic-class": {
            str(lossy): {"bw-percent": 100 - bw, "mode": "dwrr"},
            str(queue): {"bw-percent": bw, "mode": "dwrr"}}}},
        "mapping": {NVUE_MAPPING: {"dscp": {str(d): {"switch-priority": dscp_map[d]} for d in range(64)},
                                   "trust": "l3"}},
        "pfc": dict(sorted(pfc.items())),
        "pfc-watchdog": {"polling-interval": polling, "robustness": robustness},
        "roce": {"enable": "on", "mode": "lossless"},
    }
    wd = cls.pfc_watchdog
    notes = [
        "# gpufleet.cluster.roce_switch_config (nvue): lossless priority %d, DSCP %s -> traffic class %d"
        % (prio, ",".join(str(d) for d in cls.dscp), queue),
        "# apply: nv config patch <this file> && nv config apply",
        "# pfc-watchdog: detection %d ms = polling-interval %d ms x robustness %d"
        % (wd.detection_ms, polling, robustness),
        "# restoration_ms %d not rendered: NVUE has no restoration timer, it restores PFC after a polling "
        "interval without pause frames" % wd.restoration_ms,
    ]
    if cls.headroom is not None:
        notes.append("# headroom not rendered: Cumulus computes port-buffer/xoff/xon from speed and cable-length")
    body = _yaml_lines({"interface": interfaces, "qos": qos}, 4)
    return "\n".join(notes + ["- set:"] + body) + "\n"


# ---------------------------------------------------------------- Arista EOS
def _seconds(ms: int) -> str:
    whole, frac = divmod(ms, 1000)
    text = "%d.%03d" % (whole, frac)
    return text.rstrip("0").rstrip(".")


def eos_polling_ms(cls: LosslessClass) -> int:
    """Half the shorter of timeout and recovery-time (EOS: polling <= min(timeout, recovery) / 2)."""
    wd = cls.pfc_watchdog
    return min(wd.detection_ms, wd.restoration_ms) // 2


EOS_ACTION = {"drop": "drop", "forward": "no-drop"}


def render_eos(cls: LosslessClass) -> str:
    """EOS running-config lines (3-space indent per level, ``!`` between blocks)."""
    prio, queue = cls.priority, cls.queue
    dscp_map = dscp_to_priority(cls)
    to_queue = priority_to_queue(cls)
    wd, ecn, bw = cls.pfc_watchdog, cls.ecn, cls.lossless_bandwidth_percent
    others = [d for d in range(64) if dscp_map[d] != prio]
    lines = [
        "! gpufleet.cluster.roce_switch_config (eos): lossless priority %d, DSCP %s -> traffic-class %d, "
        "tx-queue %d" % (prio, ",".join(str(d) for d in cls.dscp), prio, queue),
        "qos map dscp %s to traffic-class %d" % (" ".join(str(d) for d in cls.dscp), prio),
        "qos map dscp %s to traffic-class %d" % (" ".join(str(d) for d in others), cls.default_priority),
    ]
    for tc in sorted({prio, queue}):
        lines.append("qos map traffic-class %d to tx-queue %d" % (tc, to_queue[tc]))
    lines += [
        "priority-flow-control pause watchdog default timeout %s" % _seconds(wd.detection_ms),
        "priority-flow-control pause watchdog default recovery-time %s" % _seconds(wd.restoration_ms),
        "priority-flow-control pause watchdog default polling-interval %s" % _seconds(eos_polling_ms(cls)),
        "priority-flow-control pause watchdog action %s" % EOS_ACTION[wd.action],
    ]
    if cls.headroom is not None:
        lines.append("! headroom not rendered: PFC headroom is left to the platform's own sizing on EOS")
    lossy_queue = to_queue[cls.default_priority]  # where every other DSCP ends up
    for port in cls.ports:
        lines += [
            "!",
            "interface %s" % port.name,
            "   qos trust dscp",
            "   priority-flow-control on",
            "   priority-flow-control priority %d no-drop" % prio,
            "   tx-queue %d" % lossy_queue,
            "      no priority",
            "      bandwidth percent %d" % (100 - bw),
            "   tx-queue %d" % queue,
            "      no priority",
            "      bandwidth percent %d" % bw,
            "      random-detect ecn minimum-threshold %d bytes maximum-threshold %d bytes "
            "max-mark-probability %d" % (ecn.min_threshold_bytes, ecn.max_threshold_bytes, ecn.probability_percent),
        ]
    lines.append("!")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- dispatch
def render(cls: LosslessClass, platform: str) -> Union[Dict[str, Any], str]:
    """SONiC: dict of config_db tables; NVUE and EOS: configuration text."""
    check_platform(cls, platform)
    if platform == "sonic":
        return render_sonic(cls)
    if platform == "nvue":
        return render_nvue(cls)
    return render_eos(cls)
