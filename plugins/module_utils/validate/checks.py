# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Check results (validate_report's entry format) from parsed tool outputs and validate_expect expectations.

The status is judged here, with the expectation's compare, so the playbook only gathers; `expected` keeps
the number and `derivation` the expectation's text.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import must_be
from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.expect import ExpectationError
from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.nccl import correct
from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.perftest import measured as perftest_measured


def _expectation(expect: Any) -> Dict[str, Any]:
    if not isinstance(expect, dict) or "applicable" not in expect:
        raise must_be("expect", expect, "a validate_expect result (a dict with applicable, value, compare)",
                      ExpectationError)
    return expect


def judged(check: str, nodes: List[str], value: Optional[float], unit: str, expect: Dict[str, Any],
           detail: str, extra_fail: Optional[str] = None) -> Dict[str, Any]:
    expect = _expectation(expect)
    node = nodes[0] if len(nodes) == 1 else None
    result: Dict[str, Any] = {"check": check, "node": node, "nodes": nodes, "measured": value,
                              "expected": expect.get("value"), "unit": expect.get("unit") or unit,
                              "derivation": expect.get("derivation") or "", "detail": detail}
    if not expect.get("applicable", True):
        result.update(status="not_applicable", detail=expect.get("reason") or "not applicable", measured=None)
    elif value is None:
        result.update(status="error", detail=detail or "no measurement")
    else:
        op, limit = expect.get("compare"), expect.get("value")
        ok = value >= limit if op == ">=" else value <= limit if op == "<=" else value == limit
        result["status"] = "pass" if ok and not extra_fail else "fail"
        if extra_fail:
            result["detail"] = "%s; %s" % (extra_fail, detail) if detail else extra_fail
    return result


def perftest_check(parsed: Dict[str, Any], expect: Dict[str, Any], nodes: List[str],
                   check: Optional[str] = None) -> Dict[str, Any]:
    value, unit = perftest_measured(parsed)
    summary = parsed["summary"]
    if parsed["kind"] == "bw":
        detail = "%s on %s (%s), %d bytes: BW average %s Gb/s" % (
            parsed.get("test") or "perftest", parsed.get("device") or "?", parsed.get("link_type") or "?",
            summary["bytes"], "%.2f" % value if value is not None else "-")
    else:
        detail = "%s, %d bytes: t_typical %s usec, t_99.9 %s usec" % (
            parsed.get("test") or "perftest", summary["bytes"], summary.get("t_typical"), summary.get("t_99_9"))
    return judged(check or ("rdma_bw" if parsed["kind"] == "bw" else "rdma_lat"), nodes,
                  None if value is None else round(value, 3), unit, expect, detail)


def nccl_check(parsed: Dict[str, Any], expect: Dict[str, Any], nodes: List[str],
               check: str = "nccl_all_reduce") -> Dict[str, Any]:
    ok, why = correct(parsed)
    summary = parsed["summary"]
    detail = "busbw %s GB/s at %d bytes over %d ranks%s" % (
        summary["largest_busbw_gbs"], summary["largest_size"], summary["ranks"] or 0,
        "" if parsed["avg_busbw_gbs"] is None else ", Avg bus bandwidth %s GB/s" % parsed["avg_busbw_gbs"])
    return judged(check, nodes, summary["largest_busbw_gbs"], "GB/s", expect, detail, None if ok else why)


def fio_check(parsed: Dict[str, Any], expect: Dict[str, Any], nodes: List[str], direction: str = "read",
              check: Optional[str] = None) -> Dict[str, Any]:
    best = parsed["summary"].get(direction)
    value = None if best is None else round(best["gbytes_per_s"], 3)
    detail = "no %s jobs" % direction if best is None else "%s %d bytes in %d ms (group %s, %s IOPS)" % (
        direction, best["io_bytes"], best["runtime_ms"], best["groupid"], round(best["iops"], 1))
    errors = "; ".join(parsed["errors"]) or None
    return judged(check or "storage_%s" % direction, nodes, value, "GB/s", expect, detail, errors)
