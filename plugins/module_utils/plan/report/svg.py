# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Drawing primitives of the plan report (page.py): escaped text, number formats, the bar scale,
ok / warn / over status, an SVG wrapper with its text alternative, and a layered tree drawing.

Everything returns strings of inline SVG that are also well-formed XML (each ``<svg>`` parses with
xml.etree), so the report needs no script, stylesheet file, font or image from anywhere.
"""

from __future__ import annotations

import html
import json
import math
from typing import Any, List, Optional, Sequence

# A breaker (or PDU input) whose worst-case current reaches this share of its continuous limit is "warn".
WARN_AT = 0.9
# Width in px of the bar area of every bar chart; a bar is BAR_W x amps / axis_a wide (see bar_px).
BAR_W = 512


class PlanReportError(ValueError):
    """The plan cannot be drawn; the message names the part of the plan, the value and what to pass instead."""


def esc(value: Any) -> str:
    """Every text that reaches the document goes through here (element text and attribute values)."""
    return html.escape(str(value), quote=True)


def num(value: Any) -> str:
    """A number exactly as the plan's JSON files write it (25.525, 5600.0, 12), so the report and power.json agree."""
    if value is None:
        return "n/a"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    return json.dumps(value)


def pct(ratio: float) -> str:
    """A ratio as a percentage with one decimal, as power.md writes it: 0.9971 -> '99.7'."""
    return "%.1f" % (100 * ratio)


def px(value: float) -> str:
    """An SVG coordinate: two decimals (tests recompute bar widths with the same format)."""
    return "%.2f" % value


def axis_max(value: float) -> float:
    """The end of a bar scale: `value` rounded up to a whole number of the smallest step of 1, 2, 4, 5 x 10^k
    that needs at most 16 steps.  32 A -> 32 (step 2), 51.259 A -> 52 (step 4), 205.034 A -> 220 (step 20)."""
    if value <= 0:
        return 1.0
    exponent = int(math.floor(math.log10(value))) - 2
    while True:
        for mantissa in (1, 2, 4, 5):
            step = mantissa * 10.0 ** exponent
            if value / step <= 16 + 1e-9:
                return float(math.ceil(value / step - 1e-9) * step)
        exponent += 1


def axis_step(axis: float) -> float:
    """The step axis_max chose for `axis` (for the grid lines)."""
    exponent = int(math.floor(math.log10(axis))) - 2
    while True:
        for mantissa in (1, 2, 4, 5):
            step = mantissa * 10.0 ** exponent
            if axis / step <= 16 + 1e-9:
                return step
        exponent += 1


def bar_px(amps: float, axis: float) -> float:
    """Width of a bar for `amps` on a scale ending at `axis`: proportional, BAR_W px for the whole axis."""
    return BAR_W * max(0.0, float(amps)) / axis


def status(ratio: Optional[float]) -> str:
    """ok below WARN_AT of the limit, warn up to the limit itself, over above it; info when there is no limit."""
    if ratio is None:
        return "info"
    if ratio > 1.0:
        return "over"
    return "warn" if ratio >= WARN_AT else "ok"


STATUS_TEXT = {"ok": "OK", "warn": "NEAR LIMIT", "over": "OVER LIMIT", "info": "no limit given"}


def chip(state: str) -> str:
    """An HTML status label: colour and words, so that colour is never the only signal."""
    return '<span class="chip %s">%s</span>' % (esc(state), esc(STATUS_TEXT[state]))


class Ids:
    """Deterministic element ids (svg titles) for one document: prefix-1, prefix-2, ..."""

    def __init__(self) -> None:
        self.count = 0

    def next(self, prefix: str) -> str:
        self.count += 1
        return "%s-%d" % (prefix, self.count)


def svg(ids: Ids, width: float, height: float, title: str, desc: str, body: Sequence[str], css: str = "") -> str:
    """An inline SVG with a <title> and <desc> (its text alternative, named by aria-labelledby)."""
    tid = ids.next("svg")
    return ('<svg xmlns="http://www.w3.org/2000/svg" class="%s" viewBox="0 0 %s %s" width="%s" height="%s" role="img" '
            'aria-labelledby="%s-t %s-d"><title id="%s-t">%s</title><desc id="%s-d">%s</desc>%s</svg>' % (
                esc(("drawing fig-" + css) if css else "drawing"), px(width), px(height), px(width), px(height), tid, tid, tid, esc(title),
                tid, esc(desc), "".join(body)))


def rect(x: float, y: float, w: float, h: float, cls: str, tip: str = "", extra: str = "") -> str:
    tip_el = "<title>%s</title>" % esc(tip) if tip else ""
    return '<rect x="%s" y="%s" width="%s" height="%s" class="%s"%s>%s</rect>' % (
        px(x), px(y), px(max(0.0, w)), px(max(0.0, h)), esc(cls), extra, tip_el)


def text(x: float, y: float, content: str, cls: str = "", anchor: str = "start") -> str:
    attrs = ' class="%s"' % esc(cls) if cls else ""
    if anchor != "start":
        attrs += ' text-anchor="%s"' % anchor
    return '<text x="%s" y="%s"%s>%s</text>' % (px(x), px(y), attrs, esc(content))


def line(x1: float, y1: float, x2: float, y2: float, cls: str) -> str:
    return '<line x1="%s" y1="%s" x2="%s" y2="%s" class="%s"/>' % (px(x1), px(y1), px(x2), px(y2), esc(cls))


def data(name: str, value: Any) -> str:
    """A data-* attribute for tests and tooling (the number exactly as in the JSON)."""
    return ' data-%s="%s"' % (name, esc(num(value)))


def grid(x0: float, y0: float, y1: float, axis: float, unit: str) -> List[str]:
    """Vertical grid lines at every step of the axis, labelled at most 8 times, above y0."""
    step = axis_step(axis)
    steps = int(round(axis / step))
    every = max(1, int(math.ceil(steps / 8.0)))
    out = []
    for i in range(steps + 1):
        x = x0 + bar_px(i * step, axis)
        out.append(line(x, y0, x, y1, "grid"))
        if (i % every == 0 and steps - i >= every) or i == steps:
            out.append(text(x, y0 - 4, "%g %s" % (i * step, unit) if i == steps else "%g" % (i * step), "tick", "middle"))
    return out


# ---------------------------------------------------------------- trees


class Box:
    """One box of a tree drawing: two lines of text, a kind (its CSS class and legend word), children."""

    def __init__(self, label: str, sub: str = "", kind: str = "", children: Optional[List["Box"]] = None,
                 tip: str = "") -> None:
        self.label, self.sub, self.kind, self.tip = label, sub, kind, tip
        self.children = children or []
        self.x = 0.0
        self.top = 0.0
        self.stacked = False


BOX_H = 36.0
LEVEL_H = 64.0  # one tree level: a box and its connectors
STACK_H = 44.0  # one box of a stacked list of leaves
INDENT = 18.0   # stacked leaves sit this far right of their parent's left edge


def _place(box: Box, top: float, slots: List[int]) -> float:
    """Place `box` with its top at `top`; returns the lowest bottom edge below it. A leaf takes the next free column;
    a parent sits centred over its first and last child, except that a parent of leaves only (two or more) gets one
    column and its leaves stacked under it, so that wide rows (8 GPUs and 8 NICs) stay narrow."""
    box.top = top
    if not box.children:
        box.x = float(slots[0])
        slots[0] += 1
        return top + BOX_H
    if len(box.children) > 1 and all(not c.children for c in box.children):
        box.x = float(slots[0])
        slots[0] += 1
        for i, child in enumerate(box.children):
            child.x, child.top, child.stacked = box.x, top + BOX_H + 10 + i * STACK_H, True
        return box.children[-1].top + BOX_H
    bottom = max(_place(child, top + LEVEL_H, slots) for child in box.children)
    box.x = (box.children[0].x + box.children[-1].x) / 2
    return bottom


def _walk(boxes: Sequence[Box]) -> List[Box]:
    out = []
    for box in boxes:
        out.append(box)
        out.extend(_walk(box.children))
    return out


def tree_svg(ids: Ids, roots: Sequence[Box], title: str, desc: str) -> str:
    """The forest `roots` drawn top-down with elbow connectors (stacked leaves hang off a line at the left)."""
    slots = [0]
    bottom = max(_place(root, 4.0, slots) for root in roots)
    every = _walk(roots)
    # Labels are 12 px bold, second lines 11 px: about 7.4 and 6.4 px per character.
    box_w = max(72.0, max(max(7.4 * len(b.label), 6.4 * len(b.sub)) for b in every) + 14)
    slot_w = box_w + INDENT + 12
    width, height = slots[0] * slot_w + 8, bottom + 8

    def left(b: Box) -> float:
        return 4 + b.x * slot_w + (slot_w - box_w) / 2 + (INDENT / 2 if b.stacked else -INDENT / 2)

    body = []
    for b in every:
        cx = left(b) + box_w / 2
        for c in b.children:
            if c.stacked:
                trunk = left(b) + INDENT / 2
                body.append('<path d="M %s %s V %s H %s" class="edge"/>' % (
                    px(trunk), px(b.top + BOX_H), px(c.top + BOX_H / 2), px(left(c))))
            else:
                mid = b.top + BOX_H + (c.top - b.top - BOX_H) / 2
                body.append('<path d="M %s %s V %s H %s V %s" class="edge"/>' % (
                    px(cx), px(b.top + BOX_H), px(mid), px(left(c) + box_w / 2), px(c.top)))
    for b in every:
        x = left(b)
        body.append('<g class="box %s">' % esc(b.kind))
        body.append(rect(x, b.top, box_w, BOX_H, "node " + b.kind, b.tip or ("%s %s" % (b.label, b.sub)).strip()))
        body.append(text(x + box_w / 2, b.top + (15 if b.sub else 22), b.label, "label", "middle"))
        if b.sub:
            body.append(text(x + box_w / 2, b.top + 29, b.sub, "sub", "middle"))
        body.append("</g>")
    return svg(ids, width, height, title, desc, body, "tree")
