# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Open report.html of playbooks/plan.yml in headless Chromium (Debian's package) and check that it renders.

    python3 tests/browser/check_report.py [REPORT] [--screenshot PNG] [--chromium PATH]

REPORT defaults to .build/plan/h100-64/report.html (what `ansible-playbook playbooks/plan.yml -i inventories/h100-64`
writes). Two Chromium runs:

1. ``--dump-dom`` with ``--enable-logging=stderr --v=0``: Chromium exits 0, the DOM it built holds every section of
   the report, as many <svg> drawings as the file, and stderr has no console message. Chromium logs every console
   message, error or not, as ``INFO:CONSOLE:<line>] "<text>", source: <url> (<line>)`` (an uncaught exception reads
   ``"Uncaught ReferenceError: ..."``); the report has no script, so any such line is a failure.
2. ``--screenshot --window-size=1400,2000``: Chromium exits 0, the PNG is 1400 x 2000, at least 2 % of its pixels
   are not white (text and drawings) and at least 0.2 % clearly coloured (the load bars).

Exit status: 0 all checks pass, 1 a check failed (each failure printed), 2 the report file is missing,
3 no Chromium (install Debian's ``chromium`` package: ``apt-get install --no-install-recommends chromium``).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from typing import List, Optional, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from png import PngError, pixel_stats  # noqa: E402  (this folder's stdlib PNG reader)

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_REPORT = os.path.join(REPO, ".build", "plan", "h100-64", "report.html")
# plugins/module_utils/plan/report/page.py SECTIONS, in page order.
SECTIONS = ("summary", "budget", "racks", "power", "as-built", "lustre", "nccl", "slurm", "hostlists")
# The power budget parts (plan/report/budget.py): per rack a bar at full power and one as planned, each PSU load bar
# with its rating, and the GPU cap paragraph (data-cap, the figure or "none").
BUDGET_BAR_RE = re.compile(r'<rect [^>]*data-rack="([^"]+)" data-draw="(full|planned)" data-watts="([0-9.]+)"')
PSU_BAR_RE = re.compile(r'<rect [^>]*data-psu="([^"]+)" data-watts="([0-9.]+)"(?: data-rating="([0-9.]+)")?')
CAP_RE = re.compile(r'<p class="cap" data-cap="([^"]+)">')
WINDOW = (1400, 2000)
MIN_INK, MIN_COLOUR = 0.02, 0.002
CONSOLE_RE = re.compile(r":CONSOLE[:(]\d*\)?\]?\s*(.*)")
BASE_FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
              "--hide-scrollbars", "--enable-logging=stderr", "--v=0", "--virtual-time-budget=2000"]
TIMEOUT_S = 120


def find_chromium(explicit: Optional[str]) -> Optional[str]:
    for name in ([explicit] if explicit else [os.environ.get("CHROMIUM", ""), "chromium", "chromium-browser"]):
        path = shutil.which(name) if name else None
        if path:
            return path
    return None


def console_lines(stderr: str) -> List[str]:
    """Chromium's console messages (and uncaught exceptions) among its log lines."""
    return [line.strip() for line in stderr.splitlines() if CONSOLE_RE.search(line) or "Uncaught" in line]


def run(chromium: str, flags: List[str], url: str, profile: str) -> Tuple[int, str, str]:
    proc = subprocess.run([chromium] + BASE_FLAGS + ["--user-data-dir=" + profile] + flags + [url],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT_S, check=False)
    return proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")


def check_dom(dom: str, source: str) -> List[str]:
    """The rendered DOM against the file: every section, every drawing, the title, the language."""
    failures = ["section id=%r is missing from the rendered page" % s for s in SECTIONS if '<section id="%s"' % s not in dom]
    if dom.count("<svg") != source.count("<svg") or not dom.count("<svg"):
        failures.append("the rendered page has %d <svg> drawings, the file %d" % (dom.count("<svg"), source.count("<svg")))
    if not re.search(r"<title>Plan: [^<]+</title>", dom):
        failures.append("the rendered page has no <title>Plan: ...</title>")
    if '<html lang="en"' not in dom:
        failures.append('the rendered page has no <html lang="en">')
    failures.extend(check_budget(dom, source))
    return failures


def check_budget(dom: str, source: str) -> List[str]:
    """The rack budget section as rendered: every rack's two draw bars, the PSU load bars with their ratings and the
    cap paragraph, the same as in the file; a cap figure appears in the summary too."""
    failures = []
    bars, psus, caps = BUDGET_BAR_RE.findall(dom), PSU_BAR_RE.findall(dom), CAP_RE.findall(dom)
    if bars != BUDGET_BAR_RE.findall(source) or psus != PSU_BAR_RE.findall(source) or caps != CAP_RE.findall(source):
        failures.append("the rendered budget section differs from the file (rack bars %d/%d, PSU bars %d/%d, cap %s/%s)" % (
            len(bars), len(BUDGET_BAR_RE.findall(source)), len(psus), len(PSU_BAR_RE.findall(source)), caps, CAP_RE.findall(source)))
    racks = sorted({rack for rack, _kind, _w in bars})
    for rack in racks:
        kinds = sorted(kind for r, kind, _w in bars if r == rack)
        if kinds != ["full", "planned"]:
            failures.append("rack %s has draw bars %s, expected one at full power and one as planned" % (rack, kinds))
    if not racks:
        failures.append("the rendered page shows no rack draw against its budget")
    if not psus:
        failures.append("the rendered page shows no PSU load in the worst scenario")
    elif not any(rating for _what, _w, rating in psus):
        failures.append("no PSU load bar carries its PSU rating")
    if len(caps) != 1:
        failures.append("the rendered page has %d GPU cap paragraphs, expected 1" % len(caps))
    elif caps[0] != "none" and "%s W per GPU" % caps[0] not in dom:
        failures.append("the GPU cap %s W is not stated per GPU in the page" % caps[0])
    return failures


def check_png(path: str) -> List[str]:
    if not os.path.isfile(path) or os.path.getsize(path) == 0:
        return ["no screenshot was written to %s" % path]
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        width, height, ink, colour = pixel_stats(data)
    except (PngError, ValueError, IndexError) as exc:
        return ["the screenshot %s is not a readable PNG: %s" % (path, exc)]
    failures = []
    if (width, height) != WINDOW:
        failures.append("the screenshot is %d x %d, expected %d x %d" % (width, height, WINDOW[0], WINDOW[1]))
    if ink < MIN_INK:
        failures.append("the screenshot is blank: %.2f %% of its pixels are not white (at least %.1f %% expected)" % (100 * ink, 100 * MIN_INK))
    if colour < MIN_COLOUR:
        failures.append("the screenshot shows no drawing: %.3f %% coloured pixels (at least %.1f %% expected)" % (100 * colour, 100 * MIN_COLOUR))
    print("screenshot %s: %d x %d, %.1f %% ink, %.2f %% colour, %d bytes" % (path, width, height, 100 * ink, 100 * colour, len(data)))
    return failures


def check(report: str, screenshot: str, chromium: str) -> List[str]:
    url = "file://" + os.path.abspath(report)
    with open(report, encoding="utf-8") as handle:
        source = handle.read()
    failures = []
    with tempfile.TemporaryDirectory(prefix="check-report-") as profile:
        rc, dom, err = run(chromium, ["--dump-dom"], url, profile)
        if rc != 0:
            failures.append("chromium --dump-dom exited %d: %s" % (rc, err.strip()[-2000:]))
        failures.extend(check_dom(dom, source))
        failures.extend("console: %s" % line for line in console_lines(err))
    with tempfile.TemporaryDirectory(prefix="check-report-") as profile:
        if os.path.exists(screenshot):
            os.remove(screenshot)
        rc, _out, err = run(chromium, ["--screenshot=" + os.path.abspath(screenshot), "--window-size=%d,%d" % WINDOW], url, profile)
        if rc != 0:
            failures.append("chromium --screenshot exited %d: %s" % (rc, err.strip()[-2000:]))
        failures.extend("console: %s" % line for line in console_lines(err))
        failures.extend(check_png(screenshot))
    return failures


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("report", nargs="?", default=DEFAULT_REPORT, help="report.html (default: %(default)s)")
    parser.add_argument("--screenshot", help="where to keep the screenshot (default: report.png next to the report)")
    parser.add_argument("--chromium", help="the browser (default: $CHROMIUM, chromium, chromium-browser)")
    args = parser.parse_args(argv)
    if not os.path.isfile(args.report):
        print("check_report: %s does not exist; run ansible-playbook playbooks/plan.yml -i inventories/h100-64 first" % args.report,
              file=sys.stderr)
        return 2
    chromium = find_chromium(args.chromium)
    if chromium is None:
        print("check_report: no Chromium found (%s); install Debian's package: apt-get install --no-install-recommends chromium"
              % (args.chromium or "$CHROMIUM, chromium, chromium-browser"), file=sys.stderr)
        return 3
    screenshot = args.screenshot or os.path.splitext(args.report)[0] + ".png"
    version = subprocess.run([chromium, "--version"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=60, check=False)
    print("check_report: %s with %s" % (args.report, version.stdout.decode("utf-8", "replace").strip() or chromium))
    failures = check(args.report, screenshot, chromium)
    for failure in failures:
        print("FAIL: %s" % failure, file=sys.stderr)
    if not failures:
        print("check_report: ok: %d sections, no console message, screenshot %s" % (len(SECTIONS), screenshot))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
