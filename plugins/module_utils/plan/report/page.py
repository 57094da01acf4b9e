# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The plan as one HTML page (report.html of playbooks/plan.yml, docs/plan.md "The report").

:func:`render_report` takes the data plan.yml writes as JSON (power.json, lustre.json, hostlists.json), the NCCL
layout of every node type and the Slurm fabric topology, and returns one self-contained document: inline CSS and
inline SVG, no script, no external URL. :func:`report_from_plan` does the same from the result of the
``cluster_plan`` filter (it reads the JSON and XML files of ``plan.files``).

Every text is escaped; the same input gives the same bytes (nothing is timestamped).
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional, Sequence

from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.topology import layout_from_xml
from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.values import NcclTopologyError
from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.report.budget import budget_section
from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.report.power import budget_bar, pdu_sections, rack_elevation
from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.report.sections import (
    legend, lustre_section, nccl_section, slurm_section)
from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.report.svg import (
    WARN_AT, Ids, PlanReportError, chip, esc, num, pct, status)

__all__ = ["PlanReportError", "render_report", "report_from_plan", "SECTIONS"]

# Section ids, in page order (the browser check looks for each).
SECTIONS = ("summary", "budget", "racks", "power", "as-built", "lustre", "nccl", "slurm", "hostlists")

CSS = """
:root{--ok:#2e7d32;--ok2:#a5d6a7;--warn:#b26a00;--warn2:#ffcc80;--over:#c62828;--over2:#ef9a9a;--info:#1565c0;--info2:#90caf9;
--ink:#1b1f24;--mute:#57606a;--line:#d0d7de}
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,"DejaVu Sans",sans-serif;color:var(--ink);margin:0;background:#fff}
header,main,footer{max-width:1360px;margin:0 auto;padding:0 20px}
header{border-bottom:1px solid var(--line)}
nav ul{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:6px 18px}
h1{font-size:26px}h2{font-size:21px;border-bottom:1px solid var(--line);padding-bottom:4px;margin-top:36px}
h3{font-size:17px;margin-top:24px}h4{font-size:15px}
table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
thead th,tr:first-child th{background:#f6f8fa}
code,pre{font-family:"DejaVu Sans Mono",monospace;font-size:13px}pre{background:#f6f8fa;padding:8px;overflow-x:auto}
.scroll{overflow-x:auto;max-width:100%}
.chip{display:inline-block;border-radius:3px;padding:0 6px;font-size:12px;font-weight:700;color:#fff}
.chip.ok{background:var(--ok)}.chip.warn{background:var(--warn)}.chip.over{background:var(--over)}.chip.info{background:var(--info)}
.drawing{font-family:system-ui,"DejaVu Sans",sans-serif;font-size:11px;display:block;margin:6px 0;max-width:100%;height:auto}
.drawing text{stroke:none}
.drawing .label{font-size:12px;font-weight:600;fill:var(--ink)}.drawing .sub,.drawing .tick{font-size:11px;fill:var(--mute)}
.drawing .value{font-size:12px;fill:var(--ink)}.drawing .value.warn{fill:var(--warn);font-weight:700}
.drawing .value.over{fill:var(--over);font-weight:700}
.grid{stroke:#eaeef2;stroke-width:1}.limit{stroke:var(--ink);stroke-width:1.5;stroke-dasharray:4 3}.rating{stroke:var(--ink);stroke-width:1.5}
.bar.normal.ok{fill:var(--ok)}.bar.normal.warn{fill:var(--warn)}.bar.normal.over{fill:var(--over)}.bar.normal.info{fill:var(--info)}
.bar.worst.ok{fill:var(--ok2)}.bar.worst.warn{fill:var(--warn2)}.bar.worst.over{fill:var(--over2)}.bar.worst.info{fill:var(--info2)}
.bar.worst{stroke:var(--mute);stroke-width:.5}.bar.neutral{fill:#cfd8dc}
.rack{fill:#f6f8fa;stroke:#444;stroke-width:2}.server{fill:#fff;stroke:#8c959f}
.psu.feed-a{fill:#e3f2fd;stroke:#1565c0}.psu.feed-b{fill:#f3e5f5;stroke:#6a1b9a}.psu{fill:#fffde7;stroke:#8c959f}
.pdu{fill:#fafafa;stroke:#8c959f}.dot.ok{fill:var(--ok)}.dot.warn{fill:var(--warn)}.dot.over{fill:var(--over)}.dot.idle{fill:#fff;stroke:#8c959f}
.step{fill:var(--info2);stroke:var(--info)}
.edge{fill:none;stroke:#8c959f;stroke-width:1.2}
.node{stroke:#57606a;fill:#fff}.node.system{fill:#eceff1}.node.cpu{fill:#e8eaf6}.node.switch{fill:#fff3e0}
.node.spine{fill:#fce4ec}.node.gpu{fill:#e8f5e9}.node.nic{fill:#e3f2fd}.node.hosts{fill:#f6f8fa;stroke-dasharray:3 2}
"""


def _plain_summary(name: str, power: Mapping[str, Any], lustre: Mapping[str, Any], nccl: Sequence[Mapping[str, Any]],
                   hostlists: Mapping[str, Any], topology: Optional[Mapping[str, Any]]) -> str:
    result = power["layout"]["result"]
    s = result["summary"]
    busiest = max(result["circuits"], key=lambda c: c["utilisation"])
    rows = ['<tr><th scope="row">racks</th><td>%s</td></tr>' % "; ".join(
        esc("%s: %s nodes (%s), %s W of %s W" % (r["name"], num(r["count"]), r["nodes"], num(r["max_power_w"]), num(r["budget_w"])))
        for r in power["racks"])]
    budget = power.get("budget") or {}
    if budget.get("fit"):
        rows.append('<tr><th scope="row">racks at full power</th><td>%s</td></tr>' % "; ".join(
            "%s %s" % (esc("%s: %s W of %s W" % (f["name"], num(f["draw_w"]), num(f["budget_w"]))), chip("ok" if f["fits"] else "over"))
            for f in budget["fit"]))
        cap = budget.get("gpu_power_cap_w")
        rows.append('<tr><th scope="row">GPU power cap</th><td>%s</td></tr>' % (
            "<strong>%s W per GPU</strong>, a power limit (not a clock): power-bound work runs slower" % esc(num(cap))
            if cap is not None else "none"))
    rows.append('<tr><th scope="row">computed PDU layout</th><td>%s of %s breakers used, all %s scenarios checked; busiest %s reaches '
                '%s A of %.2f A after %s, <strong>%s %%</strong> of its limit %s</td></tr>' % (
                    esc(num(s["circuits_used"])), esc(num(s["circuits_available"])), esc(num(s["scenarios"])), esc(s["worst_circuit"]),
                    esc(num(busiest["worst_a"])), busiest["limit_a"], esc(busiest["worst_scenario"]), esc(pct(s["worst_utilisation"])),
                    chip(status(s["worst_utilisation"]))))
    as_built = power.get("as_built")
    if as_built is not None:
        cs = as_built["check"]["summary"]
        rows.append('<tr><th scope="row">as-built cabling</th><td>%s: <strong>%s violation(s)</strong>, worst %s at %s %% of its limit %s'
                    '</td></tr>' % (esc(as_built["pdu_model"]), esc(num(cs["violations"])), esc(cs["worst_circuit"]),
                                    esc(pct(cs["worst_utilisation"])), chip(status(cs["worst_utilisation"]))))
    rows.append('<tr><th scope="row">Lustre</th><td>%s</td></tr>' % "<br>".join(
        "<code>%s</code>: %s" % (esc(d["path"]), esc(d["apply"])) for d in lustre["directories"]))
    rows.append('<tr><th scope="row">NCCL topologies</th><td>%s</td></tr>' % (esc(", ".join(
        "%s (%s)" % (t["name"], t.get("hosts") or "no hosts") for t in nccl)) or "none"))
    rows.append('<tr><th scope="row">Slurm topology</th><td>%s</td></tr>' % esc(
        "topology/%s" % topology.get("kind", "tree") if topology else "none"))
    if "gpu_nodes" in hostlists:
        rows.append('<tr><th scope="row">gpu_nodes</th><td><code>%s</code></td></tr>' % esc(hostlists["gpu_nodes"]["hostlist"]))
    return ('<p>Everything below is computed from the inventory of <strong>%s</strong> by <code>playbooks/plan.yml</code>; the numbers '
            'are those of power.json, lustre.json, hostlists.json and nccl/*.xml next to this file.</p><table>%s</table>' % (
                esc(name), "".join(rows)))


def _racks(ids: Ids, power: Mapping[str, Any]) -> str:
    result = power["layout"]["result"]
    out = ["<p>Each rack with its nodes (stacked in hostlist order: the inventory has no U positions) and its PDUs, one per feed. "
           "A PSU box names the feed and breaker it is cabled to in the computed layout; a PDU row shows the breaker's PSUs and its "
           "worst-case share of the continuous limit.</p>"]
    for rack in power["racks"]:
        out.append('<h3>Rack %s</h3><div class="scroll">%s</div><div class="scroll">%s</div>' % (
            esc(rack["name"]), budget_bar(ids, rack), rack_elevation(ids, rack, result)))
    return "".join(out)


def _power(ids: Ids, power: Mapping[str, Any]) -> str:
    layout = power["layout"]
    derating = layout["input"]["derating"]
    return ("<p>PDU model: %s. Each breaker may carry its rating x %s continuously (the dashed line). The upper bar is its load "
            "in normal operation, the lower one its load after the worst single failure (a feed or one PSU lost). A bar is "
            "%s when it reaches %d %% of the limit and red above the limit; the words beside it give the numbers.</p>%s%s" % (
                esc(layout.get("pdu_model") or "as described in the inventory"), esc(num(derating)), "amber", int(WARN_AT * 100),
                legend(ids), pdu_sections(ids, layout["result"], "Computed layout", layout.get("input_rating_a"), derating,
                                          layout["input"].get("imbalance_limit"), 3)))


def _as_built(ids: Ids, power: Mapping[str, Any]) -> str:
    as_built = power.get("as_built")
    if as_built is None:
        return "<p>The inventory describes no as-built cabling (<code>gpufleet_plan_power.as_built</code>).</p>"
    check = as_built["check"]
    rows = "".join("<li>%s</li>" % esc(v["message"]) for v in check["violations"][:12])
    more = len(check["violations"]) - 12
    derating = power["layout"]["input"]["derating"]
    return ("<p>%s, cabled as the inventory says: <strong>%s violation(s)</strong> %s</p><ul>%s%s</ul>%s" % (
        esc(as_built["pdu_model"]), esc(num(check["summary"]["violations"])), chip("ok" if check["ok"] else "over"), rows,
        "<li>... and %d more (power.md, power.json)</li>" % more if more > 0 else "",
        pdu_sections(ids, check, "As-built", None, derating, None, 3)))


def _hostlists(hostlists: Mapping[str, Any]) -> str:
    rows = ['<tr><th scope="col">group</th><th scope="col">hosts</th><th scope="col">hostlist</th></tr>']
    for group, g in hostlists.items():
        rows.append("<tr><td>%s</td><td>%s</td><td>%s</td></tr>" % (
            esc(group), esc(num(g["count"])), "<code>%s</code>" % esc(g["hostlist"]) if g["hostlist"] else "(empty)"))
    return "<table>%s</table>" % "".join(rows)


def render_report(name: str, power: Mapping[str, Any], lustre: Mapping[str, Any], hostlists: Mapping[str, Any],
                  nccl: Sequence[Mapping[str, Any]] = (), topology: Optional[Mapping[str, Any]] = None) -> str:
    """The report. `power`, `lustre`, `hostlists`: the content of power.json, lustre.json and hostlists.json;
    `nccl`: per node type {name, layout, hosts?, file?} with its NCCL layout; `topology`: gpufleet_fabric.topology."""
    ids = Ids()
    try:
        parts = [
            ("summary", "Summary", _plain_summary(name, power, lustre, nccl, hostlists, topology)),
            ("budget", "Rack power budgets, PSU loads and GPU cap", budget_section(ids, power)),
            ("racks", "Rack elevations", _racks(ids, power)),
            ("power", "PDU breakers and phase balance", _power(ids, power)),
            ("as-built", "The as-built cabling", _as_built(ids, power)),
            ("lustre", "Lustre layouts per directory", lustre_section(ids, lustre)),
            ("nccl", "NCCL topology per node type", nccl_section(ids, nccl)),
            ("slurm", "Slurm topology", slurm_section(ids, topology)),
            ("hostlists", "Hostlists", _hostlists(hostlists)),
        ]
    except (KeyError, TypeError, IndexError, AttributeError, ZeroDivisionError) as exc:
        raise PlanReportError("the plan lacks or mistypes %s (%s: %s); pass the files of the gpufleet.cluster.cluster_plan result "
                              "unchanged" % (exc, type(exc).__name__, exc))
    out = ['<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
           '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
           '<title>Plan: %s</title>\n<link rel="icon" href="data:,">\n<style>%s</style>\n</head>\n<body>\n' % (esc(name), CSS),
           '<header><h1>Plan: %s</h1><nav aria-label="Sections"><ul>%s</ul></nav></header>\n<main>\n' % (
               esc(name), "".join('<li><a href="#%s">%s</a></li>' % (key, esc(title)) for key, title, _body in parts))]
    for key, title, body in parts:
        out.append('<section id="%s" aria-labelledby="%s-h"><h2 id="%s-h">%s</h2>\n%s\n</section>\n' % (key, key, key, esc(title), body))
    out.append("</main>\n<footer><p>Written by <code>playbooks/plan.yml</code> (gpufleet.cluster.plan_report_html); "
               "docs/plan.md explains each picture.</p></footer>\n</body>\n</html>\n")
    return "".join(out)


def _json_file(files: Mapping[str, Any], path: str) -> Any:
    if path not in files:
        raise PlanReportError("plan.files has no %s (files: %s); pass the result of gpufleet.cluster.cluster_plan" % (
            path, ", ".join(sorted(files))))
    try:
        return json.loads(files[path])
    except (TypeError, ValueError) as exc:
        raise PlanReportError("plan.files[%s] is not JSON (%s); pass the result of gpufleet.cluster.cluster_plan" % (path, exc))


def report_from_plan(plan: Mapping[str, Any], name: str = "cluster", topology: Optional[Mapping[str, Any]] = None) -> str:
    """The report of a cluster_plan result: its JSON files, and each node type's layout read back from its XML file."""
    files = plan.get("files")
    if not isinstance(files, Mapping):
        raise PlanReportError("the plan has no files mapping; pass the result of gpufleet.cluster.cluster_plan")
    nccl: List[Dict[str, Any]] = []
    for t in plan.get("nccl") or []:
        xml = files.get(t.get("file"))
        if not isinstance(xml, str):
            raise PlanReportError("plan.nccl %s names file %r, which plan.files does not hold" % (t.get("name"), t.get("file")))
        try:
            layout = layout_from_xml(xml)
        except NcclTopologyError as exc:
            raise PlanReportError("plan.files[%s]: %s" % (t["file"], exc))
        nccl.append({"name": t["name"], "hosts": t.get("hosts", ""), "file": t["file"], "layout": layout})
    return render_report(name, _json_file(files, "power.json"), _json_file(files, "lustre.json"), _json_file(files, "hostlists.json"),
                         nccl, topology)
