# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The validate.yml report: check results -> one JSON document (schema gpufleet.validate/v1) and one HTML page.

A result is {check, node or nodes, status, measured, expected, unit, detail, derivation}. status may be left
out when `expected` is an expectation of validate_expect: not applicable ones become `not_applicable` with
their reason, a missing measurement `error`, else `pass`/`fail` by the expectation's compare (>=, <=, ==).
The report is `fail` when any result is `fail` or `error`. Nodes named by a failed or errored single-node
result are listed under `drain` with a Slurm reason (validate.yml drains them only when asked).
Output is deterministic: results sorted by check then node, nodes by name, no clock read here.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Dict, List, Optional, Tuple

from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import mapping_of, must_be, unknown_keys

from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.report_html import render_html

SCHEMA = "gpufleet.validate/v1"
STATUSES = ("pass", "fail", "not_applicable", "error")
FAILING = ("fail", "error")
REASON_PREFIX = "validate: "
REASON_MAX = 249  # scontrol keeps reasons short; the GPU health check uses the same limit
_KEYS = ("check", "node", "nodes", "status", "measured", "expected", "unit", "detail", "derivation")


class ReportError(ValueError):
    """A check result that cannot go into the report; the message names the result and the field."""


def _scalar(value: Any, where: str) -> Any:
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise must_be(where, value, "a finite number", ReportError)
        return value
    raise must_be(where, value, "a number, a string or null", ReportError)


def _compare(measured: Any, expect: Dict[str, Any]) -> bool:
    op, value = expect.get("compare"), expect.get("value")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise must_be("expected.value", value, "a finite number to compare the measurement with", ReportError)
    if op == ">=":
        return measured >= value
    if op == "<=":
        return measured <= value
    if op == "==":
        return measured == value
    raise must_be("expected.compare", op, ">=, <= or ==", ReportError)


_NODE_ALLOWED = "a host name or Slurm node name: letters, digits, '.', '_' and '-'; it becomes scontrol's nodename="


def _node_name(value: Any) -> bool:
    """A node is drained by name (scontrol update nodename=<node>): no ',', blank, '=', bracket or control."""
    return input_rules.is_valid("hostname", value) or input_rules.is_valid("slurm_name", value)


def normalise(entry: Any, index: int) -> Dict[str, Any]:
    """One result checked and completed (status judged from an expectation when not given)."""
    where = "results[%d]" % index
    mapping_of(where, entry, ReportError, "a dict with check, node, status, ...")
    unknown_keys(where, entry, _KEYS, ReportError, hint="a result's keys are described in docs/validate.md")
    check = entry.get("check")
    if not isinstance(check, str) or not check:
        raise must_be(where + ".check", check, "the check's name", ReportError)
    where = "%s (%s)" % (where, check)
    nodes = entry.get("nodes")
    if nodes is not None and (not isinstance(nodes, list) or not all(_node_name(n) for n in nodes)):
        raise must_be(where + ".nodes", nodes, "a list of node names (%s)" % _NODE_ALLOWED, ReportError)
    node = entry.get("node")
    if node is not None and not _node_name(node):
        raise must_be(where + ".node", node, "a node name (%s) or null" % _NODE_ALLOWED, ReportError)
    expected = entry.get("expected")
    status = entry.get("status")
    derivation = entry.get("derivation")
    detail = entry.get("detail")
    unit = entry.get("unit")
    measured = _scalar(entry.get("measured"), where + ".measured")
    if isinstance(expected, dict):
        expect = expected
        derivation = derivation or expect.get("derivation")
        unit = unit or expect.get("unit")
        expected = expect.get("value")
        if status is None:
            if not expect.get("applicable", True):
                status, detail = "not_applicable", detail or expect.get("reason")
            elif measured is None:
                status, detail = "error", detail or "no measurement"
            elif isinstance(measured, bool) or not isinstance(measured, (int, float)):
                raise must_be(where + ".measured", measured, "a number to compare with the expectation", ReportError)
            else:
                status = "pass" if _compare(measured, expect) else "fail"
    if status not in STATUSES:
        raise must_be(where + ".status", status, "one of %s" % ", ".join(STATUSES), ReportError)
    for key, value in (("detail", detail), ("unit", unit), ("derivation", derivation)):
        if value is not None and not isinstance(value, str):
            raise must_be("%s.%s" % (where, key), value, "text", ReportError)
    return {"check": check, "node": node, "nodes": sorted(set(nodes)) if nodes else ([node] if node else []),
            "status": status, "measured": measured, "expected": _scalar(expected, where + ".expected"),
            "unit": unit, "detail": detail or "", "derivation": derivation or ""}


def sanitize_reason(text: str) -> str:
    """One line, no double quotes (scontrol and sinfo show the reason quoted)."""
    text = re.sub(r"[\x00-\x1f\x7f-\x9f]", " ", text.replace('"', "'"))
    return re.sub(r"\s+", " ", text).strip()


def _why(result: Dict[str, Any]) -> str:
    if result["status"] == "error":
        return "%s error: %s" % (result["check"], result["detail"] or "no result")
    if result["measured"] is not None and result["expected"] is not None:
        unit = " " + result["unit"] if result["unit"] else ""
        return "%s %s%s (expected %s%s)" % (result["check"], fmt(result["measured"]), unit, fmt(result["expected"]),
                                            unit)
    return "%s: %s" % (result["check"], result["detail"] or "failed")


def build_reason(items: List[str]) -> str:
    """`validate: <item>; <item>` within 249 characters; items that do not fit become `+N more`."""
    items = [text for text in (sanitize_reason(item) for item in items) if text] or ["check failed"]
    for keep in range(len(items), 0, -1):
        more = "" if keep == len(items) else "; +%d more" % (len(items) - keep)
        reason = REASON_PREFIX + "; ".join(items[:keep]) + more
        if len(reason) <= REASON_MAX:
            return reason
    suffix = "..." if len(items) == 1 else "... +%d more" % (len(items) - 1)
    return (REASON_PREFIX + items[0])[:REASON_MAX - len(suffix)] + suffix


def fmt(value: Any) -> str:
    """Numbers for people: 22.5, 201.802, 700 (no trailing zeros)."""
    if isinstance(value, bool) or value is None:
        return "-" if value is None else str(value).lower()
    if isinstance(value, float):
        return ("%.3f" % value).rstrip("0").rstrip(".")
    return str(value)


def _sort_key(result: Dict[str, Any]) -> Tuple[str, str, str]:
    return (result["check"], ",".join(result["nodes"]), json.dumps(result, sort_keys=True))


def build_report(results: List[Any], cluster: Optional[str] = None, generated: Optional[str] = None,
                 title: Optional[str] = None) -> Dict[str, Any]:
    """The JSON-able report (schema in docs/validate.md)."""
    if not isinstance(results, list):
        raise must_be("results", results, "a list of check results", ReportError)
    checks = sorted((normalise(entry, index) for index, entry in enumerate(results)), key=_sort_key)
    counts = {status: sum(1 for result in checks if result["status"] == status) for status in STATUSES}
    nodes: Dict[str, Dict[str, Any]] = {}
    for result in checks:
        for name in result["nodes"]:
            entry = nodes.setdefault(name, {"status": "pass", "checks": {}, "failed": []})
            previous = entry["checks"].get(result["check"])
            # A node with several results of one check (one per HCA pair) keeps the worst.
            order = {"error": 3, "fail": 2, "pass": 1, "not_applicable": 0}
            if previous is None or order[result["status"]] > order[previous]:
                entry["checks"][result["check"]] = result["status"]
    for name, entry in nodes.items():
        entry["failed"] = sorted(check for check, status in entry["checks"].items() if status in FAILING)
        statuses = set(entry["checks"].values())
        entry["status"] = "fail" if entry["failed"] else "pass" if "pass" in statuses else "not_applicable"
    drain = []
    for name in sorted(nodes):
        own = [result for result in checks if result["status"] in FAILING and result["nodes"] == [name]]
        if own:
            drain.append({"node": name, "reason": build_reason([_why(result) for result in own]),
                          "checks": sorted({result["check"] for result in own})})
    failed = counts["fail"] + counts["error"] > 0
    return {
        "schema": SCHEMA,
        "cluster": cluster,
        "title": title or "Cluster validation%s" % (" of " + cluster if cluster else ""),
        "generated": generated,
        "status": "fail" if failed else "pass",
        "counts": counts,
        "checks": checks,
        "nodes": {name: nodes[name] for name in sorted(nodes)},
        "drain": drain,
    }


def report(results: List[Any], cluster: Optional[str] = None, generated: Optional[str] = None,
           title: Optional[str] = None) -> Dict[str, Any]:
    """{json: text, html: text, failed: bool, drain: [{node, reason, checks}], report: the dict}."""
    built = build_report(results, cluster=cluster, generated=generated, title=title)
    return {"json": json.dumps(built, indent=2, sort_keys=True) + "\n", "html": render_html(built),
            "failed": built["status"] == "fail", "drain": built["drain"], "report": built}
