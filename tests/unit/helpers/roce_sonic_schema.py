# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""JSON schema of every config_db table roce_render writes for SONiC (draft 7).

Field names and value formats are those of sonic-buildimage's sonic-cfggen samples (strings only,
``port|queue`` keys), sonic-pfcwd.yang (PFC_WD) and Configuration.md (lossless BUFFER_PROFILE).
"""
from __future__ import annotations

_DIGITS = {"type": "string", "pattern": r"^[0-9]+$"}
_PRIO = {"type": "string", "pattern": r"^[0-7]$"}


def _map_table(key_pattern, count):
    return {"type": "object", "minProperties": 1, "additionalProperties": {
        "type": "object", "minProperties": count, "maxProperties": count,
        "propertyNames": {"pattern": key_pattern}, "additionalProperties": _PRIO}}


def _entries(key_pattern, fields, required=None):
    return {"type": "object", "minProperties": 1, "propertyNames": {"pattern": key_pattern},
            "additionalProperties": {"type": "object", "properties": fields, "additionalProperties": False,
                                     "required": list(fields) if required is None else required}}


_PORT_KEY = r"^Ethernet[0-9]+$"
SONIC_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object", "additionalProperties": False,
    "required": ["TC_TO_PRIORITY_GROUP_MAP", "MAP_PFC_PRIORITY_TO_QUEUE", "TC_TO_QUEUE_MAP", "DSCP_TO_TC_MAP",
                 "SCHEDULER", "PORT_QOS_MAP", "WRED_PROFILE", "QUEUE", "CABLE_LENGTH", "BUFFER_PROFILE",
                 "BUFFER_PG", "PFC_WD"],
    "properties": {
        "TC_TO_PRIORITY_GROUP_MAP": _map_table(r"^[0-7]$", 8),
        "MAP_PFC_PRIORITY_TO_QUEUE": _map_table(r"^[0-7]$", 8),
        "TC_TO_QUEUE_MAP": _map_table(r"^[0-7]$", 8),
        "DSCP_TO_TC_MAP": _map_table(r"^([0-9]|[1-5][0-9]|6[0-3])$", 64),
        "SCHEDULER": _entries(r"^scheduler\.[0-9]+$", {"type": {"enum": ["DWRR", "WRR", "STRICT"]}, "weight": _DIGITS}),
        "PORT_QOS_MAP": {"type": "object", "required": ["global"], "properties": {
            "global": {"type": "object", "properties": {"dscp_to_tc_map": {"type": "string"}},
                       "required": ["dscp_to_tc_map"], "additionalProperties": False}},
            "patternProperties": {_PORT_KEY: {
                "type": "object", "additionalProperties": False,
                "required": ["dscp_to_tc_map", "tc_to_queue_map", "tc_to_pg_map", "pfc_to_queue_map", "pfc_enable",
                             "pfcwd_sw_enable"],
                "properties": {"dscp_to_tc_map": {"type": "string"}, "tc_to_queue_map": {"type": "string"},
                               "tc_to_pg_map": {"type": "string"}, "pfc_to_queue_map": {"type": "string"},
                               "pfc_enable": {"type": "string", "pattern": r"^[0-7](,[0-7])*$"},
                               "pfcwd_sw_enable": {"type": "string", "pattern": r"^[0-7](,[0-7])*$"}}}},
            "additionalProperties": False},
        "WRED_PROFILE": _entries(r"^[A-Z_]+$", dict(
            {"wred_%s_enable" % c: {"enum": ["true", "false"]} for c in ("green", "yellow", "red")},
            ecn={"enum": ["ecn_none", "ecn_green", "ecn_yellow", "ecn_red", "ecn_green_yellow", "ecn_all"]},
            **{"%s_%s_threshold" % (c, m): _DIGITS for c in ("green", "yellow", "red") for m in ("min", "max")},
            **{"%s_drop_probability" % c: {"type": "string", "pattern": r"^([0-9]|[1-9][0-9]|100)$"}
               for c in ("green", "yellow", "red")})),
        "QUEUE": _entries(r"^Ethernet[0-9]+\|[0-7]$",
                          {"scheduler": {"type": "string"}, "wred_profile": {"type": "string"}}, ["scheduler"]),
        "CABLE_LENGTH": {"type": "object", "additionalProperties": {
            "type": "object", "propertyNames": {"pattern": _PORT_KEY},
            "additionalProperties": {"type": "string", "pattern": r"^[0-9]+m$"}}},
        "BUFFER_PROFILE": _entries(r"^pg_lossless_[0-9]+_[0-9]+m_profile$", {
            "pool": {"type": "string"}, "xon": _DIGITS, "xoff": _DIGITS, "size": _DIGITS,
            "dynamic_th": {"type": "string", "pattern": r"^-?[0-9]+$"}}),
        "BUFFER_PG": _entries(r"^Ethernet[0-9]+\|[0-7](-[0-7])?$", {"profile": {"type": "string"}}),
        "PFC_WD": {
            "type": "object",
            "required": ["GLOBAL"],
            "properties": {"GLOBAL": {
                "type": "object", "properties": {"POLL_INTERVAL": _DIGITS}, "required": ["POLL_INTERVAL"],
                "additionalProperties": False}},
            "patternProperties": {_PORT_KEY: {
                "type": "object", "additionalProperties": False,
                "required": ["action", "detection_time", "restoration_time"],
                "properties": {"action": {"enum": ["drop", "forward", "alert"]}, "detection_time": _DIGITS,
                               "restoration_time": _DIGITS}}},
            "additionalProperties": False},
    },
}
