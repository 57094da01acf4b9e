# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Read rendered switch configuration back, independently of the renderers.

Each reader parses what a switch would load (config_db JSON, an NVUE YAML patch, EOS lines) and
returns, per port: the PFC priorities, the queues with ECN marking, the DSCP -> priority map and
the priority -> queue map. The tests compare that with the host side.
"""
from __future__ import annotations

import re

import yaml


def read_sonic(cfg):
    out = {}
    for port, entry in cfg["PORT_QOS_MAP"].items():
        if port == "global":
            continue
        dscp = cfg["DSCP_TO_TC_MAP"][entry["dscp_to_tc_map"]]
        to_queue = cfg["TC_TO_QUEUE_MAP"][entry["tc_to_queue_map"]]
        pfc_queue = cfg["MAP_PFC_PRIORITY_TO_QUEUE"][entry["pfc_to_queue_map"]]
        ecn = set()
        for key, queue in cfg["QUEUE"].items():
            name, index = key.split("|")
            profile = queue.get("wred_profile")
            if name == port and profile and cfg["WRED_PROFILE"][profile]["ecn"] != "ecn_none":
                ecn.add(int(index))
        out[port] = {
            "pfc": {int(p) for p in entry["pfc_enable"].split(",")} if entry.get("pfc_enable") else set(),
            "ecn_queues": ecn,
            "dscp": {int(d): int(t) for d, t in dscp.items()},
            "queue_of": {int(t): int(q) for t, q in to_queue.items()},
            "pfc_queue_of": {int(t): int(q) for t, q in pfc_queue.items()},
            "watchdog": port in cfg.get("PFC_WD", {}),
            "headroom_pgs": {int(k.split("|")[1]) for k in cfg.get("BUFFER_PG", {}) if k.split("|")[0] == port},
        }
    return out


def load_nvue(text):
    docs = yaml.safe_load(text)
    assert isinstance(docs, list) and len(docs) == 1 and list(docs[0]) == ["set"], docs
    return docs[0]["set"]


def read_nvue(text):
    config = load_nvue(text)
    qos = config["qos"]
    queue_of = {int(sp): v["traffic-class"]
                for sp, v in qos["egress-queue-mapping"]["default-global"]["switch-priority"].items()}
    out = {}
    for port, iface in config["interface"].items():
        bound = iface["qos"]
        pfc = qos["pfc"][bound["pfc"]["profile"]]
        ecn = qos["congestion-control"][bound["congestion-control"]["profile"]]["traffic-class"]
        mapping = qos["mapping"][bound["mapping"]["profile"]]
        assert mapping["trust"] == "l3"
        out[port] = {
            "pfc": ({int(sp) for sp in pfc["switch-priority"]}
                    if pfc["tx"] == "enable" and pfc["rx"] == "enable" else set()),
            "ecn_queues": {int(tc) for tc, v in ecn.items() if v["ecn"] == "enable"},
            "dscp": {int(d): v["switch-priority"] for d, v in mapping["dscp"].items()},
            "queue_of": queue_of,
            "watchdog": bound["pfc-watchdog"]["state"] == "enable",
        }
    return out


_EOS_GLOBAL = [
    ("dscp_map", re.compile(r"^qos map dscp (\d+(?: \d+)*) to traffic-class ([0-7])$")),
    ("tc_map", re.compile(r"^qos map traffic-class ([0-7]) to tx-queue ([0-7])$")),
    ("wd_timer", re.compile(r"^priority-flow-control pause watchdog default "
                            r"(timeout|recovery-time|polling-interval) (\d+(?:\.\d{1,3})?)$")),
    ("wd_action", re.compile(r"^priority-flow-control pause watchdog action (drop|no-drop)$")),
    ("interface", re.compile(r"^interface (Ethernet\d+(?:/\d+)*)$")),
]
_EOS_IF = [
    ("trust", re.compile(r"^   qos trust (dscp|cos)$")),
    ("pfc_on", re.compile(r"^   priority-flow-control on$")),
    ("pfc_prio", re.compile(r"^   priority-flow-control priority ([0-7]) (no-drop|drop)$")),
    ("txq", re.compile(r"^   tx-queue ([0-7])$")),
]
_EOS_TXQ = [
    ("no_priority", re.compile(r"^      no priority$")),
    ("bandwidth", re.compile(r"^      bandwidth percent (\d+)$")),
    ("ecn", re.compile(r"^      random-detect ecn minimum-threshold (\d+) bytes maximum-threshold (\d+) bytes "
                       r"max-mark-probability (\d+)$")),
]


def _match(table, line):
    for name, pattern in table:
        found = pattern.match(line)
        if found:
            return name, found.groups()
    return None, None


def parse_eos(text):
    """Every line must be a comment or a command of the grammar above; returns globals and interfaces."""
    glob = {"dscp_map": {}, "tc_map": {}, "wd": {}, "wd_action": None}
    interfaces = {}
    iface = txq = None
    for number, line in enumerate(text.splitlines(), 1):
        if line == "!":  # closes the interface block
            iface = txq = None
            continue
        if line.startswith("!"):  # comment
            continue
        if iface is not None and line.startswith("      ") and txq is not None:
            kind, groups = _match(_EOS_TXQ, line)
            assert kind, "line %d not EOS tx-queue syntax: %r" % (number, line)
            txq.setdefault(kind, []).append(groups)
            continue
        if iface is not None and line.startswith("   "):
            kind, groups = _match(_EOS_IF, line)
            assert kind, "line %d not EOS interface syntax: %r" % (number, line)
            if kind == "txq":
                txq = iface["txq"].setdefault(int(groups[0]), {})
            elif kind == "pfc_prio":
                iface["pfc_prio"][int(groups[0])] = groups[1]
            else:
                iface[kind] = groups[0] if groups else True
            continue
        kind, groups = _match(_EOS_GLOBAL, line)
        assert kind, "line %d not EOS global syntax: %r" % (number, line)
        if kind == "dscp_map":
            for dscp in groups[0].split():
                assert int(dscp) not in glob["dscp_map"], "DSCP %s mapped twice" % dscp
                glob["dscp_map"][int(dscp)] = int(groups[1])
        elif kind == "tc_map":
            glob["tc_map"][int(groups[0])] = int(groups[1])
        elif kind == "wd_timer":
            glob["wd"][groups[0]] = groups[1]
        elif kind == "wd_action":
            glob["wd_action"] = groups[0]
        else:
            assert groups[0] not in interfaces, "interface %s twice" % groups[0]
            iface = interfaces[groups[0]] = {"pfc_prio": {}, "txq": {}}
            txq = None
    return glob, interfaces


def read_eos(text):
    glob, interfaces = parse_eos(text)
    queue_of = {tc: glob["tc_map"].get(tc, tc) for tc in range(8)}  # EOS default: tc N -> tx-queue N
    out = {}
    for port, iface in interfaces.items():
        out[port] = {
            "pfc": ({p for p, mode in iface["pfc_prio"].items() if mode == "no-drop"}
                    if iface.get("pfc_on") else set()),
            "ecn_queues": {q for q, sub in iface["txq"].items() if sub.get("ecn")},
            "dscp": dict(glob["dscp_map"]) if iface.get("trust") == "dscp" else {},
            "queue_of": queue_of,
            "watchdog": "timeout" in glob["wd"],
        }
    return out


def assert_lossless(summary, ports, host_priority, host_dscp, dscp_map):
    """Every RoCE port: PFC on the host's priority only, ECN on that priority's queue only, and the
    host's DSCPs (and every other DSCP) mapped as the description says."""
    assert sorted(summary) == sorted(ports)
    for port in ports:
        got = summary[port]
        assert got["pfc"] == {host_priority}, (port, got["pfc"])
        assert got["ecn_queues"] == {got["queue_of"][host_priority]}, (port, got["ecn_queues"])
        assert all(got["dscp"].get(d) == host_priority for d in host_dscp), port
        assert got["dscp"] == dscp_map, port
        assert got["watchdog"], port
        # nothing but the lossless priority reaches the lossless queue
        lossless_queue = got["queue_of"][host_priority]
        assert [p for p in range(8) if got["queue_of"][p] == lossless_queue] == [host_priority]
