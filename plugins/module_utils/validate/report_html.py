# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""HTML page of a validate_report report: one self-contained file, inline CSS, no script, every value
escaped with html.escape. Per-check table (status, node, measured vs expected, detail, derivation), a per-node
matrix and the drain list; `not applicable: no <hardware>` rows are shown greyed, apart from passes."""

from __future__ import annotations

from html import escape
from typing import Any, Dict, List

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}
table{border-collapse:collapse;margin:.5em 0;font-size:.9em}
th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}
.pass{background:#e3f5e1;color:#1b5e20}.fail{background:#fde2e1;color:#b71c1c;font-weight:bold}
.error{background:#fff1d6;color:#8a4b00;font-weight:bold}.not_applicable{background:#eeeeee;color:#666;font-style:italic}
.banner{padding:.6em 1em;display:inline-block;border-radius:4px;font-size:1.1em}
.small{color:#555;font-size:.85em}
"""
_LABEL = {"pass": "PASS", "fail": "FAIL", "error": "ERROR", "not_applicable": "NOT APPLICABLE"}


def _num(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return ("%.3f" % value).rstrip("0").rstrip(".")
    return str(value)


def _cell(text: Any, css: str = "") -> str:
    return "<td%s>%s</td>" % (' class="%s"' % css if css else "", escape(_num(text) if not isinstance(text, str) else text))


def _status(status: str) -> str:
    return '<td class="%s">%s</td>' % (escape(status), escape(_LABEL.get(status, status)))


def _checks(report: Dict[str, Any]) -> List[str]:
    out = ["<h2>Checks</h2>", "<table>",
           "<tr><th>check</th><th>node(s)</th><th>status</th><th>measured</th><th>expected</th><th>unit</th>"
           "<th>detail</th><th>threshold derivation</th></tr>"]
    for result in report["checks"]:
        where = ", ".join(result["nodes"]) or "cluster"
        detail = result["detail"]
        if result["status"] == "not_applicable" and not detail.startswith("not applicable"):
            detail = "not applicable: " + detail if detail else "not applicable"
        out.append('<tr class="%s">%s%s%s%s%s%s%s%s</tr>' % (
            escape(result["status"]), _cell(result["check"]), _cell(where), _status(result["status"]),
            _cell(result["measured"], "num"), _cell(result["expected"], "num"), _cell(result["unit"] or ""),
            _cell(detail), _cell(result["derivation"], "small")))
    out.append("</table>")
    return out


def _nodes(report: Dict[str, Any]) -> List[str]:
    if not report["nodes"]:
        return []
    names = sorted({check for entry in report["nodes"].values() for check in entry["checks"]})
    out = ["<h2>Per node</h2>", "<table>", "<tr><th>node</th><th>status</th>%s</tr>"
           % "".join("<th>%s</th>" % escape(name) for name in names)]
    for node, entry in report["nodes"].items():
        cells = "".join(_status(entry["checks"][name]) if name in entry["checks"] else "<td>-</td>" for name in names)
        out.append("<tr>%s%s%s</tr>" % (_cell(node), _status(entry["status"]), cells))
    out.append("</table>")
    return out


def _drain(report: Dict[str, Any]) -> List[str]:
    if not report["drain"]:
        return ["<h2>Nodes to drain</h2>", "<p>None.</p>"]
    out = ["<h2>Nodes to drain</h2>", "<table>", "<tr><th>node</th><th>Slurm reason</th></tr>"]
    out += ["<tr>%s%s</tr>" % (_cell(item["node"]), _cell(item["reason"])) for item in report["drain"]]
    out.append("</table>")
    return out


def render_html(report: Dict[str, Any]) -> str:
    counts = report["counts"]
    order = ("pass", "fail", "error", "not_applicable")
    summary = ", ".join("%d %s" % (counts[key], _LABEL[key].lower()) for key in order)
    head = ['<!DOCTYPE html>', '<html lang="en">', "<head>", '<meta charset="utf-8">',
            "<title>%s</title>" % escape(report["title"]), "<style>%s</style>" % _CSS, "</head>", "<body>",
            "<h1>%s</h1>" % escape(report["title"]),
            '<p><span class="banner %s">%s</span></p>' % (escape(report["status"]), escape(_LABEL[report["status"]])),
            "<p>%s%s</p>" % (escape(summary), "" if not report["generated"] else
                             " &middot; generated %s" % escape(str(report["generated"])))]
    body = _checks(report) + _nodes(report) + _drain(report)
    tail = ['<p class="small">schema %s; the JSON report holds the same data.</p>' % escape(report["schema"]),
            "</body>", "</html>"]
    return "\n".join(head + body + tail) + "\n"
