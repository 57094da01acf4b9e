# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks of tests/e2e/rolling_reboot.sh: what the two driver_upgrade.yml runs did, from their logs and the lab.

One node at a time: each node goes through drain, wait for its jobs, reboot, driver check and resume before the
next node is drained; a node drained by someone else before the run (--held NODE:REASON) is rebooted but keeps
its state and reason. The job on the first node ended on its own; both nodes rebooted once, run the installed
driver and are back in Slurm; the re-run changed nothing and rebooted nothing.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from typing import List

# The recap parser the other e2e checks use (tests/e2e/summarise.py).
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import summarise  # noqa: E402  pylint: disable=wrong-import-position

STEPS = ["Drain in Slurm", "Wait until no job runs on", "Reboot", "Read the kernel module version now running on",
         "Check the installed driver runs on", "Return to Slurm"]
TASK = re.compile(r"^TASK \[gpufleet\.cluster\.nvidia_driver : Reboot \| (?P<name>.+?)\] \*+$")
RESULT = re.compile(r"^(?P<status>ok|changed|skipping|failed|fatal): ")


def reboot_steps(log: str) -> List[str]:
    """The Reboot | tasks that ran (ok or changed), in the order they ran."""
    ran: List[str] = []
    current = None
    for line in log.splitlines():
        match = TASK.match(line)
        if match:
            current = match.group("name")
            continue
        result = RESULT.match(line)
        if current and result:
            if result.group("status") in ("ok", "changed"):
                ran.append(current)
            current = None
    return ran


def lines(text: str) -> List[str]:
    """The non-empty lines of a command's output (Slurm's rows, read through podman exec)."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def upstream(version: str) -> str:
    return re.sub(r"-.*$", "", re.sub(r"^[0-9]+:", "", version))


def main() -> int:
    parser = argparse.ArgumentParser()
    for name in ("log", "rerun-log", "nodes", "boots-before", "boots-after", "boots-now", "job-state", "node-states",
                 "running", "installed", "held"):
        parser.add_argument(f"--{name}", required=True)
    args = parser.parse_args()
    nodes = args.nodes.split(",")
    problems: List[str] = []

    with open(args.log, encoding="utf-8") as fh:
        log = fh.read()
    with open(args.rerun_log, encoding="utf-8") as fh:
        rerun = fh.read()

    held_node, held_reason = args.held.split(":", 1)
    expected: List[str] = []
    for node in nodes:
        if node == held_node:  # drained by someone else: no new drain, no resume, and the role says so
            expected += [f"Say a node drained before this run stays drained, {node}"]
            expected += [f"{step} {node}" for step in STEPS if step not in ("Drain in Slurm", "Return to Slurm")]
        else:
            expected += [f"{step} {node}" for step in STEPS]
    ran = [step for step in reboot_steps(log) if not step.startswith(("Ask Slurm", "Say why"))]
    if ran != expected:
        problems.append(f"the rolling reboot ran {ran}, not one node after the other: {expected}")
    else:
        print(f"ok: one node at a time, {len(expected)} steps: " + "; ".join(
            f"{node}: " + ("kept drained, waited, rebooted, checked" if node == held_node
                           else "drained, waited, rebooted, checked, resumed") for node in nodes))
    retries = len(re.findall(rf"FAILED - RETRYING: .*Wait until no job runs on {nodes[0]}", log))
    if nodes[0] != held_node and not retries:
        problems.append(f"the drain of {nodes[0]} did not wait: its job had ended before (make it longer)")
    else:
        print(f"ok: the drain of {nodes[0]} waited for its job ({retries} polls of squeue)")

    job = lines(args.job_state)
    if not job or not job[0].startswith("COMPLETED|"):
        problems.append(f"the job on {nodes[0]} did not end on its own before the reboot: sacct says {job}")
    else:
        print(f"ok: the job on {nodes[0]} ran to its end ({job[0]}) before its node rebooted")

    before, after, now = args.boots_before.split(), args.boots_after.split(), args.boots_now.split()
    rebooted = [node for node, (b, a) in zip(nodes, zip(before, after)) if b != a]
    if rebooted != nodes:
        problems.append(f"nodes rebooted: {rebooted}, expected {nodes} (PID 1 start times {before} -> {after})")
    elif now != after:
        problems.append(f"the re-run rebooted nodes again (PID 1 start times {after} -> {now})")
    else:
        print(f"ok: each node booted once (PID 1 start times {before} -> {after}), the re-run booted none")

    running, installed = args.running.split(), [upstream(v) for v in args.installed.split()]
    if len(running) != len(nodes) or running != installed:
        problems.append(f"running nvidia modules {running}, installed drivers {installed}")
    else:
        print(f"ok: every node runs the installed driver {', '.join(sorted(set(running)))}")

    states = {node: (state, reason) for node, state, reason in (line.split(":", 2) for line in lines(args.node_states))}
    wanted = {node: ("drained", held_reason) if node == held_node else ("idle", "none") for node in nodes}
    if states != wanted:
        problems.append(f"Slurm node states {states}, expected {wanted}")
    else:
        print(f"ok: in Slurm afterwards: {states}")

    totals = summarise.recap(args.rerun_log)
    totals.pop("_elapsed_s", None)
    busy = [host for host, counts in totals.items() if counts["changed"] or counts["unreachable"] or counts["failed"]]
    if not totals or busy:
        problems.append(f"the re-run was not clean on {busy or 'any host (no recap)'}")
    elif reboot_steps(rerun):
        problems.append(f"the re-run went into the reboot loop: {reboot_steps(rerun)}")
    else:
        print(f"ok: the re-run changed nothing on {len(totals)} hosts and rebooted nothing")

    for problem in problems:
        print(f"FAILED: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
