# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A molecule scenario's `check` step must find nothing to change on the converged node.

    check_recap.py MOLECULE_LOG

molecule fails its `check` step only when a task fails; check mode reporting a change that a real run would not
make passes it. This reads the log of `molecule test`, takes the PLAY RECAP lines printed between the start of the
`check` step and the start of the next step, and exits 1 when any host there has changed, failed or unreachable
above 0, or when the log has no check step or no recap in it.
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


def check_step_recaps(text: str) -> Tuple[bool, List[Dict[str, int]]]:
    """(whether a check step was found, the recap rows printed during it)."""
    step: Optional[str] = None
    found, rows = False, []
    for raw in text.splitlines():
        line = ANSI.sub("", raw)
        start = STEP_START.search(line)
        if start:
            step = start.group("step")
            found = found or step == "check"
            continue
        match = RECAP.match(line.strip()) if step == "check" else None
        if match:
            counts = {k: int(match.group(k)) for k in ("ok", "changed", "unreachable", "failed")}
            rows.append({"host": match.group("host"), **counts})
    return found, rows


def problems(text: str) -> List[str]:
    found, rows = check_step_recaps(text)
    if not found:
        return ["no molecule `check` step in the log"]
    if not rows:
        return ["the `check` step printed no PLAY RECAP"]
    return [f"check mode on the converged {r['host']}: changed={r['changed']} failed={r['failed']} "
            f"unreachable={r['unreachable']} (a converged node must show nothing to change)"
            for r in rows if r["changed"] or r["failed"] or r["unreachable"]]


def main(argv: List[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8", errors="replace") as handle:
        found = problems(handle.read())
    for line in found:
        print(f"check_recap: {line}")
    if not found:
        print(f"check_recap: {len(check_step_recaps(open(argv[0], encoding='utf-8', errors='replace').read())[1])} "
              "host recaps in the check step, all changed=0")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
