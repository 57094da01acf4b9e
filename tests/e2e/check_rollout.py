# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The controllers restarted one at a time, the primary first, each serving before the next (tests/e2e/bad_config.sh,
munge_key.sh):

    check_rollout.py LOG PRIMARY BACKUP

Reads the slurm role's restart handler in an ansible-playbook log (roles/slurm/tasks/restart_controller.yml): each
time it ran, slurmctld restarted on PRIMARY, `scontrol ping` said PRIMARY serves, and only then BACKUP restarted and
was seen serving. Exits 1 saying what came in another order, or when no restart ran at all.
"""
from __future__ import annotations

import re
import sys
from typing import List, Tuple

_BANNER = re.compile(r"^(?:TASK|RUNNING HANDLER) \[gpufleet\.cluster\.slurm : (.*?)\] \**$")
_WAIT = re.compile(r"Restart controller \| Wait until slurmctld serves \(scontrol ping\) on (\S+)")
# "changed: [head]" (the primary, the host the handler runs for) or "changed: [head -> head2(10.0.0.2)]".
_RESULT = re.compile(r"^(ok|changed): \[([^\]\s]+)(?: -> ([^\]\s(]+)[^\]]*)?\]")


def events(lines: List[str]) -> List[Tuple[str, str]]:
    """("restart", host) and ("serving", host), in the order the log shows them."""
    out: List[Tuple[str, str]] = []
    task = ""
    for line in lines:
        banner = _BANNER.match(line)
        if banner:
            task = banner.group(1)
            continue
        result = _RESULT.match(line)
        if not result:
            continue
        host = result.group(3) or result.group(2)
        if task == "Restart slurmctld" and result.group(1) == "changed":
            out.append(("restart", host))
        wait = _WAIT.fullmatch(task)
        if wait and result.group(1) == "ok":
            out.append(("serving", wait.group(1)))
    return out


def problems(found: List[Tuple[str, str]], primary: str, backup: str) -> List[str]:
    if not found:
        return ["no slurmctld restart in the log"]
    wanted = [("restart", primary), ("serving", primary), ("restart", backup), ("serving", backup)]
    if len(found) % len(wanted) or any(found[i:i + len(wanted)] != wanted for i in range(0, len(found), len(wanted))):
        return [f"expected each roll-out as {wanted}, the log shows {found}"]
    return []


def main(argv: List[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8", errors="replace") as fh:
        found = events(fh.read().splitlines())
    for problem in problems(found, argv[1], argv[2]):
        print(f"check_rollout {argv[0]}: {problem}")
        return 1
    print(f"slurmctld restarted {len(found) // 4} time(s), one controller at a time: " +
          ", ".join(f"{what} {host}" for what, host in found))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
