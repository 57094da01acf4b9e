# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Parser of perftest's text output (ib_write_bw, ib_send_bw, ib_read_bw, ib_write_lat, ib_send_lat, ...).

Formats, from linux-rdma/perftest src/perftest_parameters.h (RESULT_FMT, RESULT_FMT_G, RESULT_FMT_LAT and
the REPORT_FMT* printf strings):

* bandwidth: `#bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]`, or `[Gb/sec]` with
  --report_gbits. perftest divides bytes/s by 0x100000 for MB/sec (so MB/sec is MiB/s) and bits/s by
  125000000 x 8 = 1e9 for Gb/sec (format_factor in print_report_bw). Both are normalised here to Gb/s:
  MB/sec x 1048576 x 8 / 1e9. Bidirectional tests (-b) print the sum of both directions.
* latency: `#bytes #iterations t_min[usec] t_max[usec] t_typical[usec] t_avg[usec] t_stdev[usec]
  99% percentile[usec] 99.9% percentile[usec]` (older builds stop after t_typical or t_avg; the columns
  are read from the header). t_typical is the median; perftest reports half the round trip.

A run prints a header block, then one table per side when server and client share the stream. The
recorded outputs show the client's and the server's tables one after the other, or interleaved line by
line (both `#bytes` headers first, then the client's rows, then the server's last row after the closing
rule), and warnings such as `Conflicting CPU frequency values detected` inside a table. Tables are kept
in the order their header appeared; a row goes to the oldest table not yet closed by a rule.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple

from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.parse import (
    ValidateParseError, is_number, number, text_input,
)

MIB = 1048576
# (pattern, key) of every column perftest prints; `{u}` is the bandwidth unit.
_COLUMNS: List[Tuple[str, str]] = [
    (r"#bytes", "bytes"),
    (r"#sl", "sl"),
    (r"#iterations", "iterations"),
    (r"BW peak\[(?:MB|Gb)/sec\]", "bw_peak"),
    (r"BW average\[(?:MB|Gb)/sec\]", "bw_average"),
    (r"MsgRate\[Mpps\]", "msg_rate_mpps"),
    (r"BW Port1\[(?:MB|Gb)/sec\]", "bw_port1"),
    (r"MsgRate Port1\[Mpps\]", "msg_rate_port1_mpps"),
    (r"BW Port2\[(?:MB|Gb)/sec\]", "bw_port2"),
    (r"MsgRate Port2\[Mpps\]", "msg_rate_port2_mpps"),
    (r"t_min\[(?:usec|cycles)\]", "t_min"),
    (r"t_max\[(?:usec|cycles)\]", "t_max"),
    (r"t_typical\[(?:usec|cycles)\]", "t_typical"),
    (r"t_avg\[(?:usec|cycles)\]", "t_avg"),
    (r"t_stdev\[(?:usec|cycles)\]", "t_stdev"),
    (r"99% percentile\[(?:usec|cycles)\]", "t_99"),
    (r"99\.9% percentile\[(?:usec|cycles)\]", "t_99_9"),
    (r"tps average", "tps_average"),
    (r"CPU_Util\[%\]", "cpu_util"),
]
_COLUMN = re.compile("|".join("(%s)" % pattern for pattern, _name in _COLUMNS))
_UNIT = re.compile(r"\[(MB/sec|Gb/sec|usec|cycles)\]")
_TITLE = re.compile(r"^\s*(Send|RDMA_Write|RDMA_Read|Atomic(?: \w+)?)\s+(Bidirectional\s+)?(BW|Latency)\s+Test\s*$")
_RULE = re.compile(r"^\s*-{20,}\s*$")
_SETTING = re.compile(r"([A-Za-z][\w.*/ -]*?)\s*:\s*(\S+)")
_ADDRESS = re.compile(r"^\s*(?:local address|remote address|GID):", re.I)
_BW_KEYS = ("bw_peak", "bw_average", "bw_port1", "bw_port2")


class PerftestParseError(ValidateParseError):
    """perftest output (ib_*_bw / ib_*_lat) that cannot be read."""

    tool = "perftest"


def _header(line: str, lineno: int) -> Tuple[List[str], str]:
    """Column keys and unit of a `#bytes ...` header line."""
    keys: List[str] = []
    rest = line
    for match in _COLUMN.finditer(line):
        index = next(i for i, group in enumerate(match.groups()) if group is not None)
        keys.append(_COLUMNS[index][1])
        rest = rest.replace(match.group(0), " ", 1)
    if rest.strip() or "bytes" not in keys:
        raise PerftestParseError("unknown column %r in the result header (expected perftest's #bytes, "
                                 "#iterations, BW peak[MB/sec|Gb/sec], ..., t_min[usec], ... columns)"
                                 % rest.strip(), lineno, line)
    units = _UNIT.findall(line)
    unit = units[0] if units else "none"
    return keys, unit


def to_gbps(value: float, unit: str) -> float:
    """A perftest bandwidth in Gb/s: MB/sec is MiB/s (x 1048576 x 8 / 1e9), Gb/sec is 1e9 bit/s."""
    if unit == "MB/sec":
        return value * MIB * 8 / 1e9
    if unit == "Gb/sec":
        return float(value)
    raise PerftestParseError("bandwidth unit %r is not MB/sec or Gb/sec" % unit)


def _row(keys: List[str], unit: str, tokens: List[str], lineno: int, line: str) -> Dict[str, Any]:
    if len(tokens) != len(keys) and not (keys[-1] == "cpu_util" and len(tokens) == len(keys) - 1):
        raise PerftestParseError("%d values in a result row, expected %d (%s)"
                                 % (len(tokens), len(keys), ", ".join(keys)), lineno, line)
    row: Dict[str, Any] = {key: number(token) for key, token in zip(keys, tokens)}
    for key in _BW_KEYS:
        if key in row:
            row[key + "_gbps"] = to_gbps(row[key], unit)
    return row


def _title(match: "re.Match[str]") -> Dict[str, Any]:
    verb = {"Send": "send", "RDMA_Write": "write", "RDMA_Read": "read"}.get(match.group(1), "atomic")
    return {"test": " ".join(match.group(0).split()), "verb": verb,
            "kind": "bw" if match.group(3) == "BW" else "lat", "bidirectional": bool(match.group(2))}


def parse_perftest(text: str) -> Dict[str, Any]:
    """Header settings, result tables, normalised bandwidths and a summary of one perftest output."""
    text_input(text, "the text output of a perftest tool", PerftestParseError)
    title: Dict[str, Any] = {}
    settings: Dict[str, str] = {}
    warnings: List[str] = []
    pending: List[Dict[str, Any]] = []   # tables whose header was seen and that no rule closed yet
    tables: List[Dict[str, Any]] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("*"):
            continue
        match = _TITLE.match(line)
        if match:
            title = title or _title(match)
            continue
        if line.startswith("#bytes"):
            keys, unit = _header(line, lineno)
            pending.append({"keys": keys, "unit": unit, "rows": [], "line": lineno})
            continue
        if _RULE.match(line):
            if pending and pending[0]["rows"]:
                tables.append(pending.pop(0))
            continue
        tokens = line.split()
        if all(is_number(token) for token in tokens):
            if not pending:
                raise PerftestParseError("result row without a '#bytes ...' header above it (expected the "
                                         "header, then one row per message size)", lineno, raw)
            table = pending[0]
            table["rows"].append(_row(table["keys"], table["unit"], tokens, lineno, raw))
            continue
        if is_number(tokens[0]) and pending:
            raise PerftestParseError("a result row must hold numbers only (expected %s)"
                                     % ", ".join(pending[0]["keys"]), lineno, raw)
        if _ADDRESS.match(line):
            continue
        if pending or line.lower().startswith(("conflicting cpu", "warning", "error", "couldn't", "failed")):
            if line not in warnings:
                warnings.append(line)
            continue
        for key, value in _SETTING.findall(line):
            settings.setdefault(" ".join(key.split()), value)
    tables += [table for table in pending if table["rows"]]
    if not tables:
        raise PerftestParseError("no result rows (expected a '#bytes #iterations ...' table with one row per "
                                 "message size)%s" % ("; the output says: " + warnings[-1] if warnings else ""))
    return _result(title, settings, warnings, tables)


def _result(title: Dict[str, Any], settings: Dict[str, str], warnings: List[str],
            tables: List[Dict[str, Any]]) -> Dict[str, Any]:
    main = max(tables, key=lambda table: len(table["rows"]))   # the client's: max() keeps the first of equals
    unit = main["unit"]
    kind = title.get("kind") or ("lat" if "t_min" in main["keys"] or "t_avg" in main["keys"] else "bw")
    result: Dict[str, Any] = {
        "tool": "perftest",
        "test": title.get("test"),
        "verb": title.get("verb"),
        "kind": kind,
        "bidirectional": title.get("bidirectional", False),
        "device": settings.get("Device"),
        "link_type": settings.get("Link type"),
        "transport_type": settings.get("Transport type"),
        "connection_type": settings.get("Connection type"),
        "rdma_cm": settings.get("rdma_cm QPs") == "ON",
        "settings": settings,
        "unit": unit,
        "columns": main["keys"],
        "rows": main["rows"],
        "tables": [table["rows"] for table in tables],
        "warnings": warnings,
    }
    result["summary"] = _summary(kind, main["rows"])
    return result


def _summary(kind: str, rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    """bw: the largest message's row (the bandwidth a link is judged on) and the best average of all sizes;
    lat: the smallest message's row (the latency a link is judged on)."""
    if kind == "bw":
        largest = max(rows, key=lambda row: row["bytes"])
        best = max(row.get("bw_average_gbps", 0.0) for row in rows)
        return {"bytes": largest["bytes"], "bw_average_gbps": largest.get("bw_average_gbps"),
                "bw_peak_gbps": largest.get("bw_peak_gbps"), "max_bw_average_gbps": best,
                "bw_average_gbytes": None if "bw_average_gbps" not in largest else largest["bw_average_gbps"] / 8}
    smallest = min(rows, key=lambda row: row["bytes"])
    keys = ("bytes", "t_min", "t_max", "t_typical", "t_avg", "t_stdev", "t_99", "t_99_9")
    return {key: smallest.get(key) for key in keys}


def measured(result: Dict[str, Any]) -> Tuple[Optional[float], str]:
    """(value, unit) a check compares: bw -> Gb/s average at the largest size; lat -> t_typical (usec)."""
    summary = result["summary"]
    if result["kind"] == "bw":
        return summary["bw_average_gbps"], "Gb/s"
    return summary.get("t_typical"), "usec"
