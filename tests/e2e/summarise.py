# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Summarise ansible-playbook runs from their logs: a converge, then an idempotent re-run.

    summarise.py CONVERGE_LOG [RERUN_LOG ...]

Prints one line per host and run; exits 1 when any run failed or a re-run changed anything.
"""
from __future__ import annotations

import re
import sys
from typing import Dict, List

RECAP = re.compile(r"^(\S+)\s+:\s+ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)\s+skipped=(\d+)")
ELAPSED = re.compile(r"\s(\d+):(\d+):(\d+\.\d+)\s\*+\s*$")


def recap(path: str) -> Dict[str, Dict[str, int]]:
    hosts: Dict[str, Dict[str, int]] = {}
    elapsed = None
    in_recap = False
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if line.startswith("PLAY RECAP"):
                in_recap, hosts = True, {}
                continue
            match = RECAP.match(line) if in_recap else None
            if match:
                name, ok, changed, unreachable, failed, skipped = match.groups()
                hosts[name] = {"ok": int(ok), "changed": int(changed), "unreachable": int(unreachable),
                               "failed": int(failed), "skipped": int(skipped)}
            stamp = ELAPSED.search(line)
            if stamp:
                h, m, s = stamp.groups()
                elapsed = int(h) * 3600 + int(m) * 60 + float(s)
    if elapsed is not None:
        hosts["_elapsed_s"] = {"value": elapsed}  # type: ignore[dict-item]
    return hosts


def main(paths: List[str]) -> int:
    bad = []
    for index, path in enumerate(paths):
        runs = recap(path)
        elapsed = runs.pop("_elapsed_s", {}).get("value")
        label = ["converge", "re-run", "check run"][min(index, 2)]
        timing = f" in {elapsed:.0f} s" if elapsed is not None else ""
        if not runs:
            print(f"{label}: no PLAY RECAP in {path}")
            bad.append(f"{label}: no recap")
            continue
        print(f"{label}{timing}: {len(runs)} hosts")
        for host in sorted(runs):
            r = runs[host]
            print(f"  {host:24} ok={r['ok']:<4} changed={r['changed']:<4} failed={r['failed']} unreachable={r['unreachable']}")
            if r["failed"] or r["unreachable"]:
                bad.append(f"{label}: {host} failed or unreachable")
            if index > 0 and r["changed"]:
                bad.append(f"{label}: {host} changed {r['changed']} task(s) on a second run")
    if bad:
        print("NOT CONVERGED:\n  " + "\n  ".join(bad))
        return 1
    print("converged" + (", and the re-run changed nothing" if len(paths) > 1 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
