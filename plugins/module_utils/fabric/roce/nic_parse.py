# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Read what ``mlnx_qos -i <if>`` and iproute2's ``dcb pfc|ets|app show dev <if>`` print.

* ``mlnx_qos``: ``Priority trust state: dscp``, the ``dscp2prio mapping:`` block (``prio:3 dscp:31,30,...,24,``;
  mlnx_qos prints it only with trust dscp), ``PFC configuration:`` with its ``priority`` / ``enabled`` rows,
  ``Cable len``, ``DCBX mode`` and the ``tc: N ... tsa: X[, bw: Y%]`` blocks each followed by ``priority: P``.
* ``dcb pfc show``: ``prio-pfc 0:off ... 3:on ...`` (with ``pfc-cap``, ``macsec-bypass``, ``delay``).
* ``dcb ets show``: ``prio-tc 0:0 ...``, ``tc-tsa 0:ets ... 3:strict``, ``tc-bw 0:33 ...``.
* ``dcb app show dev X dscp-prio``: ``dscp-prio 24:3 26:3``; with ``-N`` DSCPs are numbers, without it
  iproute2 prints the names of /etc/iproute2/rt_dsfield (``AF31:3``), which are read too.
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce.nic import (
    PRIORITIES, TRUST_DSCP, QosState, RoceNicError,
)

_TRUST = re.compile(r"^\s*Priority trust (?:state|mode):\s*(\S+)", re.M)
_DCBX = re.compile(r"^\s*DCBX mode:\s*(.+?)\s*$", re.M)
_CABLE = re.compile(r"^\s*Cable len:\s*(\d+)", re.M)
_DSCP_ROW = re.compile(r"\s*prio:\s*(\d)\s+dscp:\s*([\d,\s]*)")   # fullmatch, one line
_TC = re.compile(r"^\s*tc:\s*(\d)\s+ratelimit:\s*([^,]+),\s*tsa:\s*(\w+)(?:,\s*bw:\s*(\d+)%)?")
_TC_PRIO = re.compile(r"\s*priority:\s*((?:\d\s*)+)")   # fullmatch, one line

# /etc/iproute2/rt_dsfield names (as ToS >> 2): CSn = 8n, AFxy = 8x + 2y, EF = 46.
DSCP_NAMES: Dict[str, int] = {"default": 0, "EF": 46, "VA": 44}
DSCP_NAMES.update({"CS%d" % n: 8 * n for n in range(8)})
DSCP_NAMES.update({"AF%d%d" % (x, y): 8 * x + 2 * y for x in range(1, 5) for y in range(1, 4)})


def _flags(where: str, values: List[str]) -> Tuple[int, ...]:
    if len(values) != 8 or any(v not in ("0", "1") for v in values):
        raise RoceNicError("%s: expected 8 flags 0/1 for priorities 0..7, got %s" % (where, " ".join(values)))
    return tuple(int(v) for v in values)


def parse_mlnx_qos(text: str) -> QosState:
    """mlnx_qos -i <if>: trust, PFC flags, DSCP map (None when not printed), extra = dcbx, cable_len, tcs."""
    state = QosState()
    match = _TRUST.search(text)
    if match:
        state.trust = match.group(1).lower()
    match = _DCBX.search(text)
    if match:
        state.extra["dcbx_mode"] = match.group(1)
    match = _CABLE.search(text)
    if match:
        state.extra["cable_len"] = int(match.group(1))
    lines = text.splitlines()
    dscp_map: Dict[int, int] = {}
    tcs: Dict[int, Dict[str, object]] = {}
    current_tc: Optional[int] = None
    for i, line in enumerate(lines):
        row = _DSCP_ROW.fullmatch(line)
        if row:
            for item in row.group(2).replace(" ", "").split(","):
                if item:
                    dscp_map[int(item)] = int(row.group(1))
            continue
        if line.strip().startswith("enabled") and i > 0 and lines[i - 1].strip().startswith("priority"):
            state.pfc = _flags("mlnx_qos PFC 'enabled' row", line.split()[1:])
            continue
        tc = _TC.match(line)
        if tc:
            current_tc = int(tc.group(1))
            tcs[current_tc] = {"ratelimit": tc.group(2).strip(), "tsa": tc.group(3),
                               "bw_percent": int(tc.group(4)) if tc.group(4) else None, "priorities": []}
            continue
        prio = _TC_PRIO.fullmatch(line)
        if prio and current_tc is not None:
            tcs[current_tc]["priorities"] = [int(p) for p in prio.group(1).split()]
    if dscp_map:
        if sorted(dscp_map) != list(range(64)):
            raise RoceNicError("mlnx_qos dscp2prio mapping lists %d DSCPs, not all 64 (0..63): output cut short?"
                               % len(dscp_map))
        state.dscp2prio = dscp_map
    if tcs:
        state.extra["tcs"] = tcs
        state.extra["prio_tc"] = {p: tc for tc, data in tcs.items() for p in data["priorities"]}
    if state.trust is None and state.pfc is None:
        raise RoceNicError("mlnx_qos output has neither 'Priority trust state' nor a PFC 'enabled' row: "
                           "not the output of mlnx_qos -i <interface>")
    return state


def _pairs(text: str, key: str) -> Optional[List[Tuple[str, str]]]:
    """The KEY:VALUE tokens after `key` up to the next word without a colon; None if `key` is absent."""
    tokens = text.split()
    if key not in tokens:
        return None
    out: List[Tuple[str, str]] = []
    for token in tokens[tokens.index(key) + 1:]:
        if ":" not in token:
            break
        left, _sep, right = token.partition(":")
        out.append((left, right))
    return out


def _prio_keyed(where: str, pairs: List[Tuple[str, str]]) -> Dict[int, str]:
    out: Dict[int, str] = {}
    for left, right in pairs:
        if left == "all":
            out.update({p: right for p in PRIORITIES})
        elif left.isdigit() and int(left) in PRIORITIES:
            out[int(left)] = right
        else:
            raise RoceNicError("%s: %r is not a priority 0..7" % (where, left))
    return out


def parse_dcb_pfc(text: str) -> Tuple[Tuple[int, ...], Dict[str, str]]:
    """dcb pfc show dev <if>: the 8 PFC flags and the other fields (pfc-cap, macsec-bypass, delay)."""
    pairs = _pairs(text, "prio-pfc")
    if pairs is None:
        raise RoceNicError("dcb pfc show printed no prio-pfc: %r" % text.strip()[:200])
    flags = _prio_keyed("dcb pfc prio-pfc", pairs)
    if sorted(flags) != list(PRIORITIES) or any(v not in ("on", "off") for v in flags.values()):
        raise RoceNicError("dcb pfc prio-pfc: expected 0:on|off .. 7:on|off, got %s"
                           % " ".join("%s:%s" % p for p in pairs))
    tokens = text.split()
    extra = {key: tokens[tokens.index(key) + 1] for key in ("pfc-cap", "macsec-bypass", "delay")
             if key in tokens and tokens.index(key) + 1 < len(tokens)}
    return tuple(1 if flags[p] == "on" else 0 for p in PRIORITIES), extra


def parse_dcb_ets(text: str) -> Dict[str, Dict[int, str]]:
    """dcb ets show dev <if>: prio-tc, tc-tsa and tc-bw as {priority or tc: value}."""
    out: Dict[str, Dict[int, str]] = {}
    for key in ("prio-tc", "tc-tsa", "tc-bw"):
        pairs = _pairs(text, key)
        if pairs is not None:
            out[key] = _prio_keyed("dcb ets " + key, pairs)
    if "prio-tc" not in out:
        raise RoceNicError("dcb ets show printed no prio-tc: %r" % text.strip()[:200])
    return out


def dscp_value(token: str) -> int:
    """A DSCP as dcb prints it: 26, or its rt_dsfield name AF31."""
    if token.isdigit() and 0 <= int(token) <= 63:
        return int(token)
    if token in DSCP_NAMES:
        return DSCP_NAMES[token]
    raise RoceNicError("dcb app dscp-prio: %r is neither a DSCP 0..63 nor a DSCP name (CS0..CS7, AF11..AF43, EF)"
                       % token)


def parse_dcb_app_dscp(text: str) -> Dict[int, List[int]]:
    """dcb app show dev <if> dscp-prio: DSCP -> priorities (the APP table may hold several for one DSCP)."""
    pairs = _pairs(text, "dscp-prio") or []
    out: Dict[int, List[int]] = {}
    for left, right in pairs:
        if not right.isdigit() or int(right) not in PRIORITIES:
            raise RoceNicError("dcb app dscp-prio %s:%s: %r is not a priority 0..7" % (left, right, right))
        out.setdefault(dscp_value(left), []).append(int(right))
    return out


def dcb_state(pfc_text: str, app_text: str) -> QosState:
    """QosState from dcb: trust is dscp when the APP table has DSCP entries (mlx5 switches its trust with the
    first one), else pcp with the map unknown; a DSCP with several priorities is -1 (replace fixes it)."""
    pfc, extra = parse_dcb_pfc(pfc_text)
    table = parse_dcb_app_dscp(app_text)
    state = QosState(trust=TRUST_DSCP if table else "pcp", pfc=pfc, extra=dict(extra))
    if table:
        state.dscp2prio = {d: (prios[0] if len(set(prios)) == 1 else -1) for d, prios in table.items()}
    return state
