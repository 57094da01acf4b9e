# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The rack budget section of the plan report, from power.json's `budget` (rack_power_fit at full power, the GPU cap,
the warnings) and the layout's `psu_loads`: each rack's draw at full power and as planned against its budget, the cap
and its cost in words, and the PSU load in the worst scenario against the PSU rating.

Scales as in plan/report/power.py: a chart's axis ends at axis_max(largest value); status is value / limit (budget or
rating) below WARN_AT ok, up to 1 warn, above over.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.report.svg import (
    BAR_W, Ids, axis_max, bar_px, chip, data, esc, grid, line, num, pct, rect, status, svg, text)
from ansible_collections.gpufleet.cluster.plugins.module_utils.power.fit import cap_cost, psu_rows

LABEL_W = 150.0


def rack_budget_chart(ids: Ids, fit: Mapping[str, Any], planned_w: Any) -> str:
    """Two bars against the budget line: the rack at full power (rack_power_fit's draw_w) and as planned (after any cap)."""
    budget = fit["budget_w"]
    axis = axis_max(max(fit["draw_w"], planned_w, budget))
    x0, top = LABEL_W, 24.0
    body = grid(x0, top, top + 44, axis, "W")
    rows = (("at full power", fit["draw_w"], "full"), ("as planned", planned_w, "planned"))
    words = []
    for i, (label, watts, kind) in enumerate(rows):
        y = top + 4 + i * 22
        state = status(watts / budget)
        body.append(text(4, y + 12, label, "label"))
        body.append(rect(x0, y, bar_px(watts, axis), 16, "bar worst " + state, "rack %s %s: %s W of %s W" % (
            fit["name"], label, num(watts), num(budget)), data("rack", fit["name"]) + data("draw", kind) + data("watts", watts)))
        body.append(text(x0 + BAR_W + 12, y + 12, "%s: %s W, %s %% of the budget: %s" % (
            label, num(watts), pct(watts / budget), {"ok": "fits", "warn": "fits, near the budget", "over": "OVER BUDGET"}[state]),
            "value " + state))
        words.append("%s %s W" % (label, num(watts)))
    x = x0 + bar_px(budget, axis)
    body.append(line(x, top, x, top + 50, "rating"))
    body.append(text(x + 4, top + 62, "budget %s W" % num(budget), "sub"))
    desc = "rack %s: %s against a budget of %s W" % (fit["name"], ", ".join(words), num(budget))
    return svg(ids, x0 + BAR_W + 480, top + 68, "Rack %s: draw against its power budget" % fit["name"], desc, body, "budget")


def psu_chart(ids: Ids, rows: Sequence[Mapping[str, Any]]) -> str:
    """Per node type: the watts on each PSU left in its worst scenario, against the PSU rating (where given)."""
    axis = axis_max(max([r["worst_w"] for r in rows] + [r["rating_w"] or 0 for r in rows]))
    top, row_h = 24.0, 30.0
    x0 = LABEL_W
    height = top + row_h * len(rows) + 8
    body = grid(x0, top, height - 8, axis, "W")
    for i, r in enumerate(rows):
        y = top + i * row_h
        state = status(r["worst_w"] / r["rating_w"]) if r["rating_w"] else "info"
        body.append(text(4, y + 14, r["what"], "label"))
        body.append(text(4, y + 26, "%s PSU%s left" % (r["live_psus"], "" if r["live_psus"] == 1 else "s"), "sub"))
        body.append(rect(x0, y + 6, bar_px(r["worst_w"], axis), 14, "bar worst " + state,
                         "%s: %s W per PSU after %s" % (r["what"], num(r["worst_w"]), r["worst_scenario"]),
                         data("psu", r["what"]) + data("watts", r["worst_w"]) + (data("rating", r["rating_w"]) if r["rating_w"] else "")))
        if r["rating_w"]:
            x = x0 + bar_px(r["rating_w"], axis)
            body.append(line(x, y + 2, x, y + 24, "rating"))
        body.append(text(x0 + BAR_W + 12, y + 18, "%s W per PSU after %s%s" % (
            num(r["worst_w"]), r["worst_scenario"], ", %s %% of its %s W rating" % (pct(r["worst_w"] / r["rating_w"]), num(r["rating_w"]))
            if r["rating_w"] else ", no rating given"), "value " + state))
    return svg(ids, x0 + BAR_W + 420, height, "PSU load in the worst scenario against the PSU rating",
               "; ".join("%s: %s W per PSU after %s%s" % (
                   r["what"], num(r["worst_w"]), r["worst_scenario"], " of %s W" % num(r["rating_w"]) if r["rating_w"] else "")
                   for r in rows),
               body, "psus")


def budget_section(ids: Ids, power: Mapping[str, Any]) -> str:
    """Rack draw against budget (full power and as planned), the GPU cap with its cost, warnings, PSU loads."""
    budget = power.get("budget") or {}
    planned = {r["name"]: r["max_power_w"] for r in power["racks"]}
    out = ["<p>Each rack at full power (every node at its maximum input power, every switch and server at its maximum: "
           "<code>gpufleet.cluster.rack_power_fit</code>) and as planned, against its budget (the solid line). "
           "<code>gpufleet_power_cap: %s</code>.</p>" % esc(budget.get("choice", "none"))]
    for fit in budget.get("fit") or []:
        out.append('<h3>Rack %s</h3><p>At full power %s W of %s W %s; %s of its nodes fit at full power.</p><div class="scroll">%s</div>' % (
            esc(fit["name"]), esc(num(fit["draw_w"])), esc(num(fit["budget_w"])),
            chip("ok" if fit["fits"] else "over"), esc(num(fit["max_nodes"])),
            rack_budget_chart(ids, fit, planned.get(fit["name"], fit["draw_w"]))))
    cap = budget.get("gpu_power_cap_w")
    if cap is not None:
        gpu_w = budget.get("gpu_power_w")
        out.append('<p class="cap" data-cap="%s"><strong>GPU power cap: %s W per GPU</strong> (<code>gpufleet_power_cap: '
                   'rack_budget</code>): %s</p>' % (
                       esc(num(cap)), esc(num(cap)),
                       esc(cap_cost(cap, gpu_w).replace("`", "")) if gpu_w else "a power limit, not a clock setting"))
    else:
        out.append('<p class="cap" data-cap="none">No GPU power cap: %s</p>' % (
            "every rack fits its budget at full power." if all(f["fits"] for f in budget.get("fit") or []) else
            "none is applied."))
    for warning in budget.get("warnings") or []:
        out.append('<p class="warning">%s %s</p>' % (chip("warn"), esc(warning)))
    rows = psu_rows(power["layout"]["result"].get("psu_loads") or [])
    if rows:
        out.append("<h3>PSU load in the worst scenario</h3><p>The watts each PSU left carries in the node's worst scenario (normal, "
                   "a feed lost, one PSU lost) against the PSU's rating (the solid line).</p><div class=\"scroll\">%s</div>" % psu_chart(ids, rows))
    return "".join(out)
