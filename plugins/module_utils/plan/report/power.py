# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The power pictures of the plan report, from power.json (plan.yml): rack elevations with their PDUs, one bar
chart of the breakers per PDU (normal and worst single-failure load against the continuous limit and the rating),
and the phase balance of every PDU.

Scales: a chart's axis ends at axis_max(largest current or rating on it); a bar is BAR_W x amps / axis px wide.
Status: worst current / continuous limit (rating x derating) below WARN_AT is ok, up to 1 warn, above over.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence

from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist import HostlistError, expand_hostlist
from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.report.svg import (
    BAR_W, Ids, PlanReportError, axis_max, bar_px, chip, data, esc, grid, line, num, pct, rect, status, svg, text)

LABEL_W = 150.0  # left column of the charts (breaker name, phase, PSU count)
ROW_H = 34.0


def _by_pdu(circuits: Sequence[Mapping[str, Any]]) -> Dict[str, List[Mapping[str, Any]]]:
    out: Dict[str, List[Mapping[str, Any]]] = {}
    for c in circuits:
        out.setdefault(c["pdu"], []).append(c)
    return out


def circuit_chart(ids: Ids, pdu: str, circuits: Sequence[Mapping[str, Any]], what: str) -> str:
    """One row per breaker: the normal bar over the worst-failure bar, the continuous limit (dashed) and the
    rating (solid) as lines, and the numbers in words at the right."""
    axis = axis_max(max([c["rating_a"] for c in circuits] + [c["worst_a"] for c in circuits] + [c["normal_a"] for c in circuits]))
    top = 24.0
    height = top + ROW_H * len(circuits) + 8
    x0 = LABEL_W
    body = grid(x0, top, height - 8, axis, "A")
    for i, c in enumerate(circuits):
        y = top + i * ROW_H
        name = "%s/%s" % (c["pdu"], c["circuit"])
        phase = " %s" % c["phase"] if c.get("phase") else ""
        body.append(text(4, y + 14, "%s%s" % (c["circuit"], phase), "label"))
        body.append(text(4, y + 27, "%d PSU%s" % (len(c["psus"]), "" if len(c["psus"]) == 1 else "s") if c["used"] else "unused", "sub"))
        if not c["used"]:
            body.append(text(x0 + 4, y + 20, "unused: %s A breaker, no PSU" % num(c["rating_a"]), "sub"))
            continue
        normal_state, worst_state = status(c["normal_a"] / c["limit_a"]), status(c["worst_a"] / c["limit_a"])
        psus = ", ".join(c["psus"])
        body.append(rect(x0, y + 4, bar_px(c["normal_a"], axis), 11, "bar normal " + normal_state,
                         "%s normal: %s A (%s W); PSUs %s" % (name, num(c["normal_a"]), num(c["normal_w"]), psus),
                         data("circuit", name) + data("amps", c["normal_a"])))
        body.append(rect(x0, y + 17, bar_px(c["worst_a"], axis), 11, "bar worst " + worst_state,
                         "%s after %s: %s A (%s W)" % (name, c["worst_scenario"], num(c["worst_a"]), num(c["worst_w"])),
                         data("circuit", name) + data("amps", c["worst_a"])))
        limit_x, rating_x = x0 + bar_px(c["limit_a"], axis), x0 + bar_px(c["rating_a"], axis)
        body.append(line(limit_x, y + 1, limit_x, y + 31, "limit"))
        body.append(line(rating_x, y + 1, rating_x, y + 31, "rating"))
        body.append(text(x0 + BAR_W + 12, y + 14, "normal %s A, worst %s A (%s)" % (
            num(c["normal_a"]), num(c["worst_a"]), c["worst_scenario"]), "value"))
        body.append(text(x0 + BAR_W + 12, y + 28, "%s %% of %s A limit: %s" % (
            pct(c["utilisation"]), "%.2f" % c["limit_a"], {"ok": "ok", "warn": "near limit", "over": "OVER LIMIT"}[worst_state]),
            "value " + worst_state))
    used = [c for c in circuits if c["used"]]
    worst = max(used, key=lambda c: c["utilisation"]) if used else None
    desc = "%d of %d breakers used" % (len(used), len(circuits))
    if worst is not None:
        desc += "; busiest %s: normal %s A, worst %s A after %s, %s %% of its %.2f A limit" % (
            worst["circuit"], num(worst["normal_a"]), num(worst["worst_a"]), worst["worst_scenario"], pct(worst["utilisation"]),
            worst["limit_a"])
    return svg(ids, x0 + BAR_W + 440, height, "%s breakers of %s: normal and worst-failure load" % (what, pdu), desc, body,
               "circuits")


def circuit_table(circuits: Sequence[Mapping[str, Any]]) -> str:
    """The numbers of the chart as a table (for screen readers and copying)."""
    rows = ["<tr><th scope=\"col\">breaker</th><th scope=\"col\">phase</th><th scope=\"col\">PSUs</th>"
            "<th scope=\"col\">normal A</th><th scope=\"col\">worst A</th><th scope=\"col\">worst scenario</th>"
            "<th scope=\"col\">limit A</th><th scope=\"col\">% of limit</th><th scope=\"col\">status</th></tr>"]
    for c in circuits:
        if not c["used"]:
            rows.append("<tr><td>%s</td><td>%s</td><td colspan=\"7\">unused</td></tr>" % (esc(c["circuit"]), esc(c.get("phase") or "")))
            continue
        rows.append("<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>" % (
            esc(c["circuit"]), esc(c.get("phase") or ""), esc(", ".join(c["psus"])), esc(num(c["normal_a"])), esc(num(c["worst_a"])),
            esc(c["worst_scenario"]), esc(num(c["limit_a"])), esc(pct(c["utilisation"])), chip(status(c["worst_a"] / c["limit_a"]))))
    return "<details><summary>Numbers</summary><table>%s</table></details>" % "".join(rows)


def phase_chart(ids: Ids, p: Mapping[str, Any], input_rating_a: Optional[float], derating: float,
                imbalance_limit: Optional[float]) -> str:
    """The PDU's line currents in normal operation (L1/L2/L3), the neutral, and its worst line current after any
    failure, against the PDU input's continuous limit (input rating x derating) when the rating is known."""
    limit = input_rating_a * derating if input_rating_a is not None else None
    rows = [(line_name, amps, "normal") for line_name, amps in p["line_currents_a"].items()]
    if p.get("neutral_a") is not None:
        rows.append(("N", p["neutral_a"], "neutral"))
    rows.append(("worst line", p["worst_line_a"], "worst"))
    values = [row[1] for row in rows] + ([input_rating_a] if input_rating_a is not None else [])
    axis = axis_max(max(values))
    top, row_h = 24.0, 22.0
    height = top + row_h * len(rows) + 8
    x0 = 100.0
    body = grid(x0, top, height - 8, axis, "A")
    for i, (name, amps, kind) in enumerate(rows):
        y = top + i * row_h
        state = "info" if kind == "neutral" or limit is None else status(amps / limit)
        body.append(text(4, y + 15, name, "label"))
        body.append(rect(x0, y + 4, bar_px(amps, axis), 13, "bar %s %s" % (kind, state), "%s %s: %s A" % (p["pdu"], name, num(amps)),
                         data("line", name) + data("amps", amps)))
        words = "%s A" % num(amps)
        if kind == "worst":
            words += " after %s" % p["worst_line_scenario"]
        if limit is not None and kind != "neutral":
            words += ", %s %% of %.2f A" % (pct(amps / limit), limit)
        body.append(text(x0 + BAR_W + 12, y + 15, words, "value " + state))
    if limit is not None:
        for value, cls in ((limit, "limit"), (input_rating_a, "rating")):
            x = x0 + bar_px(value, axis)
            body.append(line(x, top - 2, x, height - 6, cls))
    balance = "imbalance %s %%" % pct(p["imbalance"]) if p.get("imbalance") is not None else "single phase, no imbalance"
    if p.get("imbalance") is not None and imbalance_limit is not None:
        balance += " (limit %s %%)" % pct(imbalance_limit)
    desc = "%s: line currents %s A, %s; worst line %s A after %s" % (
        p["pdu"], " / ".join(num(a) for a in p["line_currents_a"].values()), balance, num(p["worst_line_a"]), p["worst_line_scenario"])
    return svg(ids, x0 + BAR_W + 380, height, "Phase balance of %s" % p["pdu"], desc, body, "phases")


def _balance_line(p: Mapping[str, Any], imbalance_limit: Optional[float]) -> str:
    if p.get("imbalance") is None:
        return "<p>%s: %s phase(s), %s V; no imbalance on a single phase.</p>" % (esc(p["pdu"]), esc(num(p["phases"])), esc(num(p["voltage"])))
    state = status(p["imbalance"] / imbalance_limit) if imbalance_limit else "info"
    return "<p>%s: %s V %s, imbalance <strong>%s %%</strong>%s, neutral %s A %s</p>" % (
        esc(p["pdu"]), esc(num(p["voltage"])), esc(p.get("wiring") or ""), esc(pct(p["imbalance"])),
        esc(" of %s %% allowed" % pct(imbalance_limit)) if imbalance_limit else "", esc(num(p.get("neutral_a"))), chip(state))


def pdu_sections(ids: Ids, check: Mapping[str, Any], what: str, input_rating_a: Optional[float], derating: float,
                 imbalance_limit: Optional[float], level: int) -> str:
    """Per PDU: its breaker chart and table, its phase balance."""
    out = []
    circuits = _by_pdu(check["circuits"])
    for p in check["pdus"]:
        mine = circuits.get(p["pdu"], [])
        out.append('<section class="pdu"><h%d>%s (rack %s, feed %s)</h%d>' % (level, esc(p["pdu"]), esc(p["rack"]), esc(p["feed"]), level))
        if mine:
            out.append('<div class="scroll">%s</div>%s' % (circuit_chart(ids, p["pdu"], mine, what), circuit_table(mine)))
        out.append(_balance_line(p, imbalance_limit))
        out.append('<div class="scroll">%s</div></section>' % phase_chart(ids, p, input_rating_a, derating, imbalance_limit))
    return "".join(out)


# ---------------------------------------------------------------- rack elevation

SLOT_H = 44.0
RACK_W = 430.0
STRIP_W = 170.0
STRIP_ROW = 24.0


def _strip(pdu: Mapping[str, Any], circuits: Sequence[Mapping[str, Any]], x: float, y: float, h: float) -> List[str]:
    """A PDU drawn as a vertical strip: one row per breaker with its PSU count and worst-case share of its limit."""
    body = [rect(x, y, STRIP_W, h, "pdu feed-%s" % str(pdu["feed"]).lower(), "%s, feed %s" % (pdu["pdu"], pdu["feed"])),
            text(x + STRIP_W / 2, y + 16, "%s (feed %s)" % (pdu["pdu"], pdu["feed"]), "label", "middle")]
    for i, c in enumerate(circuits):
        ry = y + 24 + i * STRIP_ROW
        state = status(c["worst_a"] / c["limit_a"]) if c["used"] else "idle"
        body.append(rect(x + 6, ry, 10, STRIP_ROW - 6, "dot " + state))
        words = "%s %s %s" % (c["circuit"], c.get("phase") or "", "%d PSU, %s %%" % (len(c["psus"]), pct(c["utilisation"])) if c["used"] else "free")
        body.append(text(x + 22, ry + 13, " ".join(words.split()), "sub"))
    return body


def rack_elevation(ids: Ids, rack: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    """The rack with its nodes stacked top-down in hostlist order (the inventory gives no U positions), each node's
    PSUs labelled with the PDU feed and breaker of the computed layout, and the rack's PDUs beside it."""
    try:
        nodes = expand_hostlist(rack["nodes"]) if rack["nodes"] else []
    except HostlistError as exc:
        raise PlanReportError("power.json racks %s: nodes %r: %s" % (rack["name"], rack["nodes"], exc))
    pdus = [p for p in result["pdus"] if p["rack"] == rack["name"]]
    circuits = _by_pdu(result["circuits"])
    feeds = {p["pdu"]: p["feed"] for p in pdus}
    cords: Dict[str, List[Mapping[str, Any]]] = {}
    for place in result["placements"]:
        cords.setdefault(place["node"], []).append(place)
    longest = max([len(circuits.get(p["pdu"], [])) for p in pdus] + [0])
    inner = max(len(nodes) * SLOT_H, 24 + longest * STRIP_ROW)
    left = [p for i, p in enumerate(pdus) if i % 2 == 0]
    right = [p for i, p in enumerate(pdus) if i % 2 == 1]
    rack_x = 8 + len(left) * (STRIP_W + 10)
    top = 34.0
    body = [text(rack_x + RACK_W / 2, 18, "rack %s: %d nodes, %s W of %s W" % (
        rack["name"], len(nodes), num(rack["max_power_w"]), num(rack["budget_w"])), "label", "middle"),
        rect(rack_x, top, RACK_W, inner + 12, "rack", "rack %s" % rack["name"])]
    for i, node in enumerate(nodes):
        y = top + 6 + i * SLOT_H
        body.append(rect(rack_x + 8, y + 2, RACK_W - 16, SLOT_H - 4, "server", node))
        body.append(text(rack_x + 16, y + 20, node, "label"))
        body.append(text(rack_x + 16, y + 34, "slot %d" % (i + 1), "sub"))
        mine = sorted(cords.get(node, []), key=lambda c: c["psu"])
        width = (RACK_W - 140) / max(1, len(mine))
        for j, cord in enumerate(mine):
            x = rack_x + 128 + j * width
            feed = str(feeds.get(cord["pdu"], "?"))
            body.append(rect(x, y + 7, width - 6, SLOT_H - 14, "psu feed-%s" % feed.lower(),
                             "%s PSU %s on %s/%s" % (node, cord["psu"], cord["pdu"], cord["circuit"])))
            body.append(text(x + (width - 6) / 2, y + 19, "PSU %s" % cord["psu"], "sub", "middle"))
            body.append(text(x + (width - 6) / 2, y + 31, "%s %s" % (feed, cord["circuit"]), "sub", "middle"))
    for k, p in enumerate(left):
        body.extend(_strip(p, circuits.get(p["pdu"], []), 8 + k * (STRIP_W + 10), top, inner + 12))
    for k, p in enumerate(right):
        body.extend(_strip(p, circuits.get(p["pdu"], []), rack_x + RACK_W + 10 + k * (STRIP_W + 10), top, inner + 12))
    width = rack_x + RACK_W + 10 + len(right) * (STRIP_W + 10)
    desc = "rack %s holds %s (%d nodes, %s W worst case of a %s W budget); PDUs %s; each PSU is labelled with its feed " \
           "and breaker" % (rack["name"], rack["nodes"], len(nodes), num(rack["max_power_w"]), num(rack["budget_w"]),
                            ", ".join(p["pdu"] for p in pdus) or "none")
    return svg(ids, width, top + inner + 20, "Elevation of rack %s" % rack["name"], desc, body, "rack")


def budget_bar(ids: Ids, rack: Mapping[str, Any]) -> str:
    """The rack's worst-case draw against its power budget."""
    budget, draw = rack.get("budget_w"), rack["max_power_w"]
    axis = axis_max(max(draw, budget or 0))
    state = status(draw / budget) if budget else "info"
    x0 = 100.0
    body = grid(x0, 22, 44, axis, "W") + [
        text(4, 38, "worst case", "label"),
        rect(x0, 26, bar_px(draw, axis), 14, "bar worst " + state, "%s W" % num(draw), data("watts", draw))]
    words = "%s W" % num(draw)
    if budget:
        x = x0 + bar_px(budget, axis)
        body.append(line(x, 20, x, 46, "rating"))
        words += " of %s W budget (%s %%)" % (num(budget), pct(draw / budget))
    body.append(text(x0 + BAR_W + 12, 38, words, "value " + state))
    return svg(ids, x0 + BAR_W + 330, 52, "Power budget of rack %s" % rack["name"], words, body, "budget")
