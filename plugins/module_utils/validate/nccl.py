# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Parser of nccl-tests output (all_reduce_perf and the other *_perf tests).

What nccl-tests prints (recorded: a complete single-node run, a 4-node table with the Avg line, a 2-node
table with every line prefixed `0: ` by `srun --label`):

* `# nThread 1 nGpus 8 minBytes 1 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 ...`
* `#  Rank  0 Group  0 Pid 112424 on localhost device  0 [0x00] A100-SXM4-40GB` (Group only in newer
  versions): which host and GPU each rank ran on.
* the table: `size count type redop [root] | time algbw busbw #wrong | time algbw busbw #wrong`, the first
  group out-of-place, the second in-place. Older versions call the last column `error` (a float or N/A),
  newer ones `#wrong` (an integer count) and add `root`. Columns are taken from the header line.
* `# Out of bounds values : 0 OK` and `# Avg bus bandwidth    : 68.4048` (GB/s, the mean over all sizes).

busbw is algbw x 2 (n - 1) / n for all-reduce (nccl-tests doc/PERFORMANCE.md): the figure comparable to the
hardware's link speed. The check reads the busbw of the largest size (the best of out-of-place and in-place),
not the Avg line, which is pulled down by the small sizes.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple

from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.parse import (
    ValidateParseError, is_number, number, text_input,
)

_LABEL = re.compile(r"^\s*(\d+): ?")       # srun --label
_RANK = re.compile(r"^#\s*Rank\s+(\d+)(?:\s+Group\s+(\d+))?\s+Pid\s+(\d+)\s+on\s+(\S+)\s+device\s+(\d+)\s+"
                   r"\[([^\]]*)\]\s*(.*?)\s*$")
_NTHREAD = re.compile(r"^#\s*nThread\b")
_AVG = re.compile(r"^#\s*Avg bus bandwidth\s*:\s*(\S+)")
_OOB = re.compile(r"^#\s*Out of bounds values\s*:\s*(\d+)\s*(\w+)?")
_LEADING = ("size", "count", "type", "redop", "root")
_GROUP = ("time", "algbw", "busbw")
_CHECK = ("#wrong", "error")


class NcclTestsParseError(ValidateParseError):
    """nccl-tests output that cannot be read."""

    tool = "nccl-tests"


def _header(tokens: List[str], lineno: int, line: str) -> List[str]:
    """Column names of `#  size count type redop [root] time algbw busbw #wrong time algbw busbw #wrong`."""
    names = [token for token in tokens if token != "#"]
    names = [name.lstrip("#") if name not in _CHECK else name for name in names]
    lead = [name for name in names if name in _LEADING]
    tail = names[len(lead):]
    if lead[:4] != ["size", "count", "type", "redop"] or len(tail) != 8 \
            or [tail[0], tail[1], tail[2]] != list(_GROUP) or tail[3] not in _CHECK:
        raise NcclTestsParseError("unknown table header (expected '# size count type redop [root] time algbw "
                                  "busbw #wrong|error time algbw busbw #wrong|error')", lineno, line)
    return lead


def _side(values: List[str], check: str) -> Dict[str, Any]:
    time, algbw, busbw, wrong = values
    side: Dict[str, Any] = {
        "time_us": None if time == "N/A" else number(time),
        "algbw_gbs": None if algbw == "N/A" else number(algbw),
        "busbw_gbs": None if busbw == "N/A" else number(busbw),
    }
    if check == "#wrong":
        side["wrong"] = None if wrong == "N/A" else int(number(wrong))
    else:
        side["error"] = None if wrong == "N/A" else float(number(wrong))
    return side


def _row(lead: List[str], check: str, tokens: List[str], lineno: int, line: str) -> Dict[str, Any]:
    if len(tokens) != len(lead) + 8:
        raise NcclTestsParseError("%d fields in a result row, expected %d (%s, then time algbw busbw %s "
                                  "out-of-place and in-place)" % (len(tokens), len(lead) + 8, " ".join(lead), check),
                                  lineno, line)
    head = dict(zip(lead, tokens))
    for key in ("size", "count"):
        if not head[key].isdigit():
            raise NcclTestsParseError("%s must be a whole number" % key, lineno, line)
    rest = tokens[len(lead):]
    for token in rest:
        if token != "N/A" and not is_number(token):
            raise NcclTestsParseError("%r is not a number (expected time, algbw, busbw and %s twice)"
                                      % (token, check), lineno, line)
    return {"size": int(head["size"]), "count": int(head["count"]), "type": head["type"],
            "redop": head["redop"], "root": int(head["root"]) if "root" in head else None,
            "out_of_place": _side(rest[:4], check), "in_place": _side(rest[4:], check)}


def _best(row: Dict[str, Any]) -> Optional[float]:
    values = [side["busbw_gbs"] for side in (row["out_of_place"], row["in_place"]) if side["busbw_gbs"] is not None]
    return max(values) if values else None


def parse_nccl_tests(text: str) -> Dict[str, Any]:
    """Rows, ranks, hosts, the Avg bus bandwidth and Out of bounds lines and a summary of one run."""
    text_input(text, "the text output of an nccl-tests binary", NcclTestsParseError)
    lead: Optional[List[str]] = None
    check = "#wrong"
    rows: List[Dict[str, Any]] = []
    ranks: List[Dict[str, Any]] = []
    labels: List[int] = []
    params: Dict[str, str] = {}
    avg: Optional[float] = None
    oob: Optional[int] = None
    oob_word: Optional[str] = None
    notes: List[str] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        label = _LABEL.match(raw)
        line = raw[label.end():] if label else raw
        if label and int(label.group(1)) not in labels:
            labels.append(int(label.group(1)))
        stripped = line.strip()
        if not stripped:
            continue
        tokens = stripped.split()
        if stripped.startswith("#"):
            match = _RANK.match(stripped)
            if match:
                ranks.append({"rank": int(match.group(1)),
                              "group": None if match.group(2) is None else int(match.group(2)),
                              "pid": int(match.group(3)), "host": match.group(4), "device": int(match.group(5)),
                              "bus_id": match.group(6), "name": match.group(7)})
            elif _NTHREAD.match(stripped):
                params.update(_params(stripped))
            elif _AVG.match(stripped):
                value = _AVG.match(stripped).group(1)
                if not is_number(value):
                    raise NcclTestsParseError("the Avg bus bandwidth is not a number", lineno, raw)
                avg = float(value)
            elif _OOB.match(stripped):
                match = _OOB.match(stripped)
                oob, oob_word = int(match.group(1)), match.group(2)
            elif "size" in tokens or "#size" in tokens:
                lead = _header(tokens, lineno, raw)
                check = "error" if tokens[-1] == "error" else "#wrong"
            continue
        if is_number(tokens[0]) and len(tokens) >= 4:
            if lead is None:
                raise NcclTestsParseError("result row before the '# size count type redop ...' header", lineno, raw)
            rows.append(_row(lead, check, tokens, lineno, raw))
        else:
            notes.append(stripped)   # NCCL INFO/WARN lines, launcher noise
    if not rows:
        raise NcclTestsParseError("no result rows (expected the '# size count type redop ...' table)%s"
                                  % ("; the output says: " + notes[-1] if notes else ""))
    return _result(rows, ranks, labels, params, avg, oob, oob_word, notes)


def _params(line: str) -> Dict[str, str]:
    """`# nThread 1 nGpus 8 minBytes 1 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 ...`."""
    text = re.sub(r"\b(warmup|agg) iters:", r"\1_iters", line.lstrip("#")).replace(":", " ")
    tokens = text.split()
    return {tokens[i]: tokens[i + 1] for i in range(0, len(tokens) - 1, 2)}


def _result(rows: List[Dict[str, Any]], ranks: List[Dict[str, Any]], labels: List[int], params: Dict[str, str],
            avg: Optional[float], oob: Optional[int], oob_word: Optional[str], notes: List[str]) -> Dict[str, Any]:
    largest = max(rows, key=lambda row: row["size"])
    best = [value for value in (_best(row) for row in rows) if value is not None]
    wrong = 0
    for row in rows:
        for side in (row["out_of_place"], row["in_place"]):
            wrong += side.get("wrong") or 0
    hosts = sorted({rank["host"] for rank in ranks})
    return {
        "tool": "nccl-tests",
        "params": params,
        "ranks": sorted(ranks, key=lambda rank: rank["rank"]),
        "hosts": hosts,
        "gpus_per_host": {host: sum(1 for rank in ranks if rank["host"] == host) for host in hosts},
        "srun_labels": sorted(labels),
        "rows": rows,
        "avg_busbw_gbs": avg,
        "out_of_bounds": oob,
        "out_of_bounds_ok": None if oob is None else (oob == 0 and (oob_word or "OK") == "OK"),
        "wrong_total": wrong,
        "notes": notes,
        "summary": {"largest_size": largest["size"], "largest_busbw_gbs": _best(largest),
                    "peak_busbw_gbs": max(best) if best else None, "ranks": len(ranks), "hosts": len(hosts)},
    }


def correct(result: Dict[str, Any]) -> Tuple[bool, str]:
    """(ok, why): no #wrong values and an `Out of bounds values : 0 OK` line where one was printed."""
    if result["wrong_total"]:
        return False, "%d wrong values (#wrong column)" % result["wrong_total"]
    if result["out_of_bounds_ok"] is False:
        return False, "%d out of bounds values" % (result["out_of_bounds"] or 0)
    return True, "no wrong values"
