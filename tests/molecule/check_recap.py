# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A molecule scenario's `check` step must find nothing to change on the converged node, and its `side_effect`
step (the refusals, where a scenario has one) must change nothing.

    check_recap.py MOLECULE_LOG

molecule fails these steps only when a task fails; check mode reporting a change that a real run would not make,
or a refused run that changed something, passes it. This reads the log of `molecule test`, takes the PLAY RECAP
lines printed between the start of the `check` (or `side_effect`) step and the start of the next step, and exits 1
when any host there has changed, failed or unreachable above 0, or when the log has no check step, or a step
without a recap in it.
"""
from __future__ import annotations

import re
import sys
from typing import Dict, List, Optional, Tuple

STEPS = ("dependency", "cleanup", "destroy", "syntax", "create", "prepare", "converge", "idempotence",
         "side_effect", "check", "verify")
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
STEP_START = re.compile(r"\b(?P<step>%s)\b\W*Executing\b" % "|".join(STEPS))
RECAP = re.compile(r"^(?P<host>\S+)\s+:\s+ok=(?P<ok>\d+)\s+changed=(?P<changed>\d+)\s+unreachable=(?P<unreachable>\d+)"
                   r"\s+failed=(?P<failed>\d+)")


# The steps whose every recap must show changed=0, and what that means.
QUIET = {"check": "check mode on the converged {host}", "side_effect": "the refusals on the converged {host}"}


def check_step_recaps(text: str, wanted: str = "check") -> Tuple[bool, List[Dict[str, int]]]:
    """(whether the step was found, the recap rows printed during it)."""
    step: Optional[str] = None
    found, rows = False, []
    for raw in text.splitlines():
        line = ANSI.sub("", raw)
        start = STEP_START.search(line)
        if start:
            step = start.group("step")
            found = found or step == wanted
            continue
        match = RECAP.match(line.strip()) if step == wanted else None
        if match:
            counts = {k: int(match.group(k)) for k in ("ok", "changed", "unreachable", "failed")}
            rows.append({"host": match.group("host"), **counts})
    return found, rows


def problems(text: str) -> List[str]:
    out: List[str] = []
    for step, who in QUIET.items():
        found, rows = check_step_recaps(text, step)
        if not found:
            if step == "check":
                out.append("no molecule `check` step in the log")
            continue
        if not rows:
            out.append(f"the `{step}` step printed no PLAY RECAP")
        out.extend(f"{who.format(host=r['host'])}: changed={r['changed']} failed={r['failed']} "
                   f"unreachable={r['unreachable']} (a converged node must show nothing to change)"
                   for r in rows if r["changed"] or r["failed"] or r["unreachable"])
    return out


def main(argv: List[str]) -> int:
    if len(argv) != 1:
        print(next(line.strip() for line in __doc__.splitlines() if "check_recap.py" in line), file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8", errors="replace") as handle:
        text = handle.read()
    found = problems(text)
    for line in found:
        print(f"check_recap: {line}")
    if not found:
        counts = {step: len(check_step_recaps(text, step)[1]) for step in QUIET}
        print(f"check_recap: {counts['check']} host recaps in the check step"
              + (f", {counts['side_effect']} in the side_effect step" if counts["side_effect"] else "")
              + ", all changed=0")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
