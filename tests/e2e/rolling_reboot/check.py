# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks of tests/e2e/rolling_reboot.sh: what the two driver_upgrade.yml runs did, from their logs and the lab.

Each node in its own turn: drained, its jobs waited for, its packages installed, rebooted, its driver checked,
resumed, in that order; the batches (--batches, a canary then the rest) one after the other, the nodes of one batch
side by side; a node drained by someone else before the run (--held NODE:REASON) goes through its turn but keeps
its state and reason. While the canary had its new packages, the nodes after it still had their old ones. The job
on the first node ended on its own; every node rebooted once, runs the installed driver and is back in Slurm; the
re-run changed nothing and rebooted nothing.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Dict, List, Tuple

# The recap parser the other e2e checks use (tests/e2e/summarise.py).
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import summarise  # noqa: E402  pylint: disable=wrong-import-position

# A node's turn, in order: (task name in the log, which nodes take it: a node drained by someone else before the run
# is told it stays drained, and is neither drained anew nor resumed).
TURN = [("Drain | Say a node drained before this run stays drained", "held"), ("Drain | Drain in Slurm", "others"),
        ("Drain | Wait until no job runs on the node", "all"), ("Packages | Install the driver", "all"),
        ("Reboot | Reboot", "all"), ("Reboot | Read the kernel module version now running", "all"),
        ("Reboot | Check the installed driver runs", "all"), ("Reboot | Return to Slurm", "others")]
TASK = re.compile(r"^TASK \[(?P<name>.+?)\] \*+$")  # any role's task: each one ends the results of the one before
ROLE = "gpufleet.cluster.nvidia_driver : "
RESULT = re.compile(r"^(?P<status>ok|changed|failed|fatal): \[(?P<host>[^]\s]+)(?: -> [^]]+)?\]")


def turn_events(log: str) -> List[Tuple[str, str]]:
    """(node, step) for each step of a turn that ran (ok or changed) on a node, in the order of the log."""
    events: List[Tuple[str, str]] = []
    current = None
    for line in log.splitlines():
        match = TASK.match(line)
        if match:
            name = match.group("name")
            name = name[len(ROLE):] if name.startswith(ROLE) else ""
            steps = [step for step, _who in TURN if name == step or name.startswith(step + " of branch")]
            current = steps[0] if steps else None
            continue
        result = RESULT.match(line)
        if current and result and result.group("status") in ("ok", "changed"):
            events.append((result.group("host"), current))
    return events


def lines(text: str) -> List[str]:
    """The non-empty lines of a command's output (Slurm's rows, read through podman exec)."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def upstream(version: str) -> str:
    return re.sub(r"-.*$", "", re.sub(r"^[0-9]+:", "", version))


def packages(text: str) -> Dict[str, str]:
    """NODE=VERSION words (tests/e2e/rolling_reboot.sh's packages: "none" when not installed)."""
    return dict(word.split("=", 1) for word in text.split())


def check_turns(events: List[Tuple[str, str]], batches: List[List[str]], held: str, problems: List[str]) -> None:
    """Each node's steps in order; each batch's steps all after the batch before it."""
    found = len(problems)
    for batch_no, batch in enumerate(batches):
        for node in batch:
            steps = [step for host, step in events if host == node]
            wanted = [step for step, who in TURN if who == "all" or (who == "held") == (node == held)]
            if steps != wanted:
                problems.append(f"{node}'s turn ran {steps}, not {wanted}")
        if batch_no:
            earlier = {node for previous in batches[:batch_no] for node in previous}
            first = min(i for i, (host, _step) in enumerate(events) if host in batch)
            late = [f"{host}: {step}" for host, step in events[first:] if host in earlier]
            if late:
                problems.append(f"batch {batch} began before the batch before it had ended: then {late}")
    if len(problems) == found:
        done = {node: "kept drained, waited, installed, rebooted, checked" if node == held
                else "drained, waited, installed, rebooted, checked, resumed" for batch in batches for node in batch}
        print("ok: each node in its own turn, in batches " + " then ".join(",".join(b) for b in batches) + ": "
              + "; ".join(f"{node}: {what}" for node, what in done.items()))


def main() -> int:
    parser = argparse.ArgumentParser()
    for name in ("log", "rerun-log", "nodes", "batches", "packages-before", "packages-during", "boots-before",
                 "boots-after", "boots-now", "job-state", "node-states", "running", "installed", "held"):
        parser.add_argument(f"--{name}", required=True)
    args = parser.parse_args()
    nodes = args.nodes.split(",")
    problems: List[str] = []

    with open(args.log, encoding="utf-8") as fh:
        log = fh.read()
    with open(args.rerun_log, encoding="utf-8") as fh:
        rerun = fh.read()

    held_node, held_reason = args.held.split(":", 1)
    batches = [batch.split(",") for batch in args.batches.split("/")]
    if sorted(node for batch in batches for node in batch) != sorted(nodes):
        problems.append(f"--batches {args.batches} are not the nodes {nodes}")
    check_turns(turn_events(log), batches, held_node, problems)

    # The canary had its new packages; the nodes not yet reached still had what they had before the run.
    old, during = packages(args.packages_before), packages(args.packages_during)
    canary, later = batches[0], [node for batch in batches[1:] for node in batch]
    if any(during.get(node) in (None, old.get(node)) for node in canary) or any(
            during.get(node) != old.get(node) for node in later):
        problems.append(f"packages while the canary {canary} had its turn: {during} (before the run: {old}); "
                        "expected new ones on the canary only")
    else:
        print(f"ok: during the canary's turn {', '.join(f'{n}={during[n]}' for n in canary)} while "
              f"{', '.join(f'{n}={during[n]}' for n in later)} (not reached yet) kept their packages")
    retries = len(re.findall(rf"FAILED - RETRYING: \[{nodes[0]}[] ].*Wait until no job runs on the node", log))
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
    elif turn_events(rerun):
        problems.append(f"the re-run took turns: {turn_events(rerun)}")
    else:
        print(f"ok: the re-run changed nothing on {len(totals)} hosts and rebooted nothing")

    for problem in problems:
        print(f"FAILED: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
