# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the e2e's runs must have said, read from their logs (tests/e2e/converge.sh, join.sh):

    check_log.py first-converge LOG        the converge of a new cluster started each Slurm daemon once: no
                                           restart handler ran on a daemon that run had just started
    check_log.py fresh-check LOG NODE      site.yml --check on a node nothing converged: changes, no failure, and
                                           the slurm role's account of a compute node joining a running cluster,
                                           the driver's and pynvml's packages it would install; on a bare node
                                           (memlock below the inventory's, no GPU device files), the rdma and slurm
                                           preflights' account of what the common and driver roles would do first

Exits 1 with what was missing. The PLAY RECAP is read with summarise.py's parser.
"""
from __future__ import annotations

import re
import sys
from typing import Dict, List

from summarise import recap


def _read(path: str) -> str:
    """The log with its whitespace runs made single spaces (a task's results then read as one line)."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        return " ".join(fh.read().split())


def _each_run(text: str, role: str, name: str) -> List[str]:
    """The results of every run of a task or handler of `role` (a handler runs at each flush that was notified)."""
    return re.findall(r"(?:TASK|RUNNING HANDLER) \[gpufleet\.cluster\." + re.escape(role) + " : " + re.escape(name)
                      + r"\] \**(.*?)(?= TASK \[| RUNNING HANDLER \[| PLAY \[| PLAY RECAP)", text)


def _task(text: str, role: str, name: str) -> str:
    """The results a task or handler of `role` printed the first time ("" when no host ran it: display_skipped_hosts
    is off, so a task every host skipped prints no banner)."""
    runs = _each_run(text, role, name)
    return runs[0] if runs else ""


def _ran(results: str) -> List[str]:
    """The hosts a task's results name as ok, changed or failed."""
    return re.findall(r"\b(?:ok|changed|fatal|failed): \[([^\]\s]+)", results)


def first_converge(path: str) -> List[str]:
    text = _read(path)
    problems = []
    # The handlers may still run where a daemon was up before the run; on a new cluster none was.
    for handler in ("Restart slurmdbd", "Restart slurmctld", "Restart slurmd"):
        for results in _each_run(text, "slurm", handler):
            restarted = re.findall(r"changed: \[([^\]\s]+)", results)
            if restarted:
                problems.append(f"'{handler}' restarted a daemon the converge had just started, on {', '.join(restarted)}")
    for task in ("Controller | Enable and start slurmctld", "Compute | Enable and start slurmd"):
        if "changed: [" not in _task(text, "slurm", task):
            problems.append(f"'{task}' started nothing: this was not the converge of a new cluster")
    return problems


def fresh_check(path: str, node: str) -> List[str]:
    rows: Dict[str, Dict[str, int]] = recap(path)
    row = rows.get(node)
    if row is None:
        return [f"no PLAY RECAP line for {node}"]
    problems = []
    if row["failed"] or row["unreachable"] or not row["changed"]:
        problems.append(f"{node}: expected changes and no failure, got {row}")
    text = _read(path)
    # The slurm role on a compute node joining a running cluster: the packages, munge and slurmd are not there; the
    # key is slurm_munge_key or read from the primary controller (not made anew), the files would be written, and no systemd task
    # runs on a unit that is not there.
    said = (f"Check mode: slurmd, slurm-client, munge not installed on {node} yet; a real run installs them, then "
            "enables and starts munge, slurmd.")
    if said not in text:
        problems.append(f"the slurm role did not say: {said}")
    # The key: slurm_munge_key's (the lab's secrets give it: the primary's step is skipped, and skipped hosts are not
    # shown) or read from the primary head; never a new one.
    key = _task(text, "slurm", "Munge | Keep the cluster's key on the primary controller, creating it once")
    if re.search(r"changed: \[" + re.escape(node) + r"\b", key):
        problems.append("the cluster's munge key was made anew, not slurm_munge_key nor read from the primary controller head")
    for task in ("Packages | Install what this host's part needs (and nothing more)", "Munge | Give this node the cluster's key",
                 "Config | Write the Slurm files this host reads"):
        if f"changed: [{node}]" not in _task(text, "slurm", task):
            problems.append(f"'{task}' did not report a change on {node}")
    for task in ("Munge | Enable and start munge", "Compute | Enable and start slurmd", "Restart munge", "Restart slurmd"):
        if node in _ran(_task(text, "slurm", task)):
            problems.append(f"'{task}' ran on {node}, where its unit is not installed")
    # The driver's packages (run.sh turns them on for this check): the sources would change, so the lists would be
    # refreshed first and the versions are not known yet; pynvml is in contrib, which the driver role only pretends
    # to add in check mode. Both are said, as a change, and the run goes on.
    for role, said in (
            ("nvidia_driver", f"Check mode: {node} would refresh its package lists from the changed sources, then install"),
            ("gpu_tuning", f"Check mode: apt on {node} has no candidate yet for python3-pynvml (Debian ships it in contrib (it "
                           "depends on libnvidia-ml1 from non-free)). "
                           "A real run would refresh the package lists once the gpufleet.cluster.nvidia_driver role has added "
                           "that component, and install it")):
        if said not in text:
            problems.append(f"the {role} role did not say: {said}")
    # The node is bare (lab.py up --bare, as a real node before its first converge): its memlock soft limit is below
    # the inventory's and it has no /dev/nvidia*. Check mode takes what the common role would write and the driver
    # the nvidia_driver role would install earlier in the run, says so, and goes on (issue 28).
    for role, pattern in (
            ("rdma", r"Check mode: the common role would write memlock \S+ on " + re.escape(node) + r" \(.*?\) and "
                     r"writes nothing in check mode, so the check applies after common's write: logins, root logins "
                     r"and services may then lock rdma_memlock_min_kib \S+\. Before it, [1-6] of 6 checks fail, the first: "
                     r"logins soft memlock is [0-9]+ KiB \(systemd DefaultLimitMEMLOCK \(no pam_limits line\)\), "
                     r"below rdma_memlock_min_kib \S+\. A real run checks the limits as written\."),
            ("slurm", r"Check mode: " + re.escape(node) + r" has no NVIDIA driver yet and lacks /dev/nvidia0-7; the "
                      r"gpufleet\.cluster\.nvidia_driver role would install the driver in this run \(before this "
                      r"role\), and /dev/nvidia0-7 appear once its kernel module loads\. A real run checks them here")):
        if not re.search(pattern, text):
            problems.append(f"the {role} role did not say what it takes from the roles before it on the bare "
                            f"{node}: no match for {pattern}")
    return problems


def main(argv: List[str]) -> int:
    if len(argv) == 2 and argv[0] == "first-converge":
        problems = first_converge(argv[1])
    elif len(argv) == 3 and argv[0] == "fresh-check":
        problems = fresh_check(argv[1], argv[2])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for problem in problems:
        print(f"{argv[0]} {argv[1]}: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
