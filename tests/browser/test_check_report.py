# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The browser check itself (tests/browser/check_report.py): its detectors on made-up input, then, where Chromium is
installed, a real report and a page with script errors in the real browser.  Run: pytest -q tests/browser"""

from __future__ import annotations

import os
import sys
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "collections"))

import check_report  # noqa: E402
from png import pixel_stats, write_png  # noqa: E402

CHROMIUM = check_report.find_chromium(None)
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="no chromium (apt-get install --no-install-recommends chromium)")

# What Chromium 156 writes to stderr for console.error("boom") and an uncaught exception, among other log lines.
STDERR = """[1:1:1121/233934.108278:WARNING:ui/base/idle/idle_linux.cc:111] None of the known D-Bus ScreenSaver services could be used.
[1:1:1121/233935.576312:INFO:CONSOLE:2] "boom", source: file:///tmp/bad.html (2)
[1:1:1121/233935.576513:INFO:CONSOLE:2] "Uncaught ReferenceError: undefinedFn is not defined", source: file:///tmp/bad.html (2)
"""


def test_console_lines_are_found():
    lines = check_report.console_lines(STDERR)
    assert len(lines) == 2 and lines[0].endswith('"boom", source: file:///tmp/bad.html (2)') and "Uncaught ReferenceError" in lines[1]
    assert check_report.console_lines(STDERR.splitlines()[0]) == []


def test_blank_and_drawn_screenshots():
    white = bytes([255]) * 3 * 100
    blank = write_png(100, [white] * 50)
    assert pixel_stats(blank) == (100, 50, 0.0, 0.0)
    # 10 of 50 rows black text-like ink, 5 rows of green bars: 30 % ink, 10 % colour.
    rows = [bytes([0]) * 300] * 10 + [bytes([46, 125, 50]) * 100] * 5 + [white] * 35
    assert pixel_stats(write_png(100, rows)) == (100, 50, 0.3, 0.1)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "s.png")
        with open(path, "wb") as handle:
            handle.write(blank)
        failures = check_report.check_png(path)
        assert failures[0] == "the screenshot is 100 x 50, expected 1400 x 2000"
        assert failures[1].startswith("the screenshot is blank: 0.00 %")
        assert check_report.check_png(os.path.join(tmp, "none.png")) == ["no screenshot was written to %s" % os.path.join(tmp, "none.png")]


def test_dom_check_names_what_is_missing():
    failures = check_report.check_dom('<html lang="en"><title>Plan: x</title><section id="summary"><svg></svg>', "<svg><svg>")
    assert failures == ["section id=%r is missing from the rendered page" % s for s in check_report.SECTIONS[1:]] + [
        "the rendered page has 1 <svg> drawings, the file 2",
        "the rendered page shows no rack draw against its budget",
        "the rendered page shows no PSU load in the worst scenario",
        "the rendered page has 0 GPU cap paragraphs, expected 1"]


FULL = '<rect x="1" data-rack="r01" data-draw="full" data-watts="84350">'
PLANNED = '<rect x="1" data-rack="r01" data-draw="planned" data-watts="59966">'
PSU = '<rect x="1" data-psu="hgx-h100" data-watts="2384" data-rating="3300">'
CAP = '<p class="cap" data-cap="319"><strong>GPU power cap: 319 W per GPU</strong>'


def test_budget_check_names_what_is_missing():
    good = FULL + PLANNED + PSU + CAP
    assert check_report.check_budget(good, good) == []
    assert check_report.check_budget(good.replace(CAP, '<p class="cap" data-cap="none">'),
                                     good.replace(CAP, '<p class="cap" data-cap="none">')) == []
    # The browser lost a bar the file has, a rack has only one bar, no rating, a cap not stated per GPU.
    assert check_report.check_budget(FULL + PSU + CAP, good)[0].startswith("the rendered budget section differs from the file")
    assert "rack r01 has draw bars ['full'], expected one at full power and one as planned" in check_report.check_budget(
        FULL + PSU + CAP, FULL + PSU + CAP)
    no_rating = FULL + PLANNED + PSU.replace(' data-rating="3300"', "") + CAP
    assert check_report.check_budget(no_rating, no_rating) == ["no PSU load bar carries its PSU rating"]
    unstated = FULL + PLANNED + PSU + '<p class="cap" data-cap="319">'
    assert check_report.check_budget(unstated, unstated) == ["the GPU cap 319 W is not stated per GPU in the page"]


def _small_report():
    from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.build import build_plan
    from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.inputs import plan_inputs
    from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.report.page import report_from_plan
    from ansible_collections.gpufleet.cluster.plugins.module_utils.power.layout import plan_layout

    inventory = {
        "gpufleet_plan_node_types": [{"name": "t", "group": "g",
                                      "power": {"max_power_w": 2300, "psus": 2, "psus_required": 1, "psu_rating_w": 2400}}],
        "gpufleet_plan_power": {"feeds": ["A", "B"], "racks": [{"name": "<r1>", "nodes": "n[1-4]"}],
                                "pdu": {"input_rating_a": 32, "spec": {"voltage": 400, "phases": 3, "wiring": "wye", "circuits": [
                                    {"name": "cb%d" % i, "rating_a": 16, "phase": "L%d" % (1 + i % 3)} for i in range(6)]}}},
        "gpufleet_plan_lustre": {"ost_bw_gbs": 2.0, "directories": [
            {"name": "d", "pattern": "shared_file", "clients": 4, "client_bw_gbs": 1.0,
             "sizes": {"p50_bytes": 1048576, "p90_bytes": 8388608, "max_bytes": 1073741824}}]},
        "gpufleet_lustre": {"fsname": "fs", "mountpoint": "/lus", "osts": 4},
        "gpufleet_power": {"racks": [{"name": "<r1>", "budget_w": 10000}]},
    }
    inputs = plan_inputs(inventory, {"all": ["n1", "n2", "n3", "n4"], "g": ["n1", "n2", "n3", "n4"]})
    return report_from_plan(build_plan(inputs, plan_layout(inputs["layout_input"])), "mini",
                            {"kind": "tree", "leaves": [{"name": "leaf1", "nodes": "n[1-4]"}]})


@needs_chromium
def test_a_report_renders_without_console_messages(tmp_path):
    report = tmp_path / "report.html"
    report.write_text(_small_report(), encoding="utf-8")
    assert check_report.main([str(report), "--screenshot", str(tmp_path / "shot.png")]) == 0
    assert (tmp_path / "shot.png").stat().st_size > 10000


@needs_chromium
def test_script_errors_are_caught(tmp_path):
    page = tmp_path / "bad.html"
    page.write_text('<!DOCTYPE html><html lang="en"><title>x</title><script>undefinedFn();</script></html>', encoding="utf-8")
    rc, _dom, err = check_report.run(CHROMIUM, ["--dump-dom"], "file://%s" % page, str(tmp_path / "profile"))
    assert rc == 0
    assert [line for line in check_report.console_lines(err) if "Uncaught ReferenceError: undefinedFn is not defined" in line]


def test_no_chromium_exits_3(tmp_path):
    report = tmp_path / "report.html"
    report.write_text("<html></html>", encoding="utf-8")
    assert check_report.main([str(report), "--chromium", "/nonexistent/chromium"]) == 3
    assert check_report.main([str(tmp_path / "missing.html")]) == 2
