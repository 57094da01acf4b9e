# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run a playbook against the lab the way AWX runs a job: through ansible-runner, in a private data directory.

    awx_runner.py --inventory DIR --playbook playbooks/site.yml --log FILE [--extravars JSON]
                  [--hosts h1,h2] [--expect-refusal TEXT] [--expect-unchanged] [--cost FILE] [--project CHECKOUT]
                  [--slices N [--parallel M] [--template NAME] [--workflow NAME] [--job-id ID]]

Like AWX it lays out, under .build/runner/<ident>/:
  project/          the project as a checkout has it (this one, or --project's git work tree: the tracked and
                    untracked, not ignored files; AWX syncs the project from git), so the project's own
                    ansible.cfg applies, as it does in AWX
  inventory/        without --slices: the inventory, materialised (hosts.yml and its group_vars); --hosts keeps only
                    those hosts. With --slices: the executable script AWX writes (tests/e2e/awx_slices.py), from
                    the inventory as AWX's sync imports it
  env/extravars     AWX's job variables (awx_job_id, awx_job_template_name, ..., under the awx_ and tower_
                    prefixes, as AWX gives them) and the caller's --extravars
  env/settings      runner settings AWX sets (no idle timeout, a job timeout)
and then checks what AWX reads back: the runner status and rc, the job events (a playbook_on_stats event with
the per-host counts) and the stdout, which is copied to --log for tests/e2e/summarise.py.

--slices N launches the template (--template, its name) as AWX launches one with job_slice_count N: a workflow job
named after the template, whose min(N, hosts) nodes are the slices, each a job of launch type "workflow" with its
own private data directory (<ident>-slice<k>/), its share of the hosts (sorted by name, dealt round-robin) and
awx_workflow_job_name equal to awx_job_template_name. They run --parallel at a time (default 2: AWX runs them at
once on separate execution nodes; this machine has 2 cores). Each slice's log is --log with -slice<k> before .log,
and --log holds them all, one after the other. Every slice must run on its own hosts only. --slices 1 is one job
with the whole inventory as AWX writes it. --workflow NAME: the job (or the slices' workflow job) is a node of
the workflow job NAME, as the converge workflow's jobs are (awx/configure.yml). --collections DIR: the
collections come from DIR only (ANSIBLE_COLLECTIONS_PATH, no system path), as an EE's installed ones do.
With --expect-refusal every job must fail, say TEXT and change nothing; with --expect-unchanged every job must
succeed with changed=0 on every host. With --cost, what the run cost each host, summed over the slices
(evaluations, module runs on the node, setup runs: tests/e2e/run_cost.py), is printed and written to FILE as JSON.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, List, Optional, Tuple

import ansible_runner
import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import awx_slices  # noqa: E402  pylint: disable=wrong-import-position
import run_cost  # noqa: E402  pylint: disable=wrong-import-position

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def copy_project(dest: str, project: str = ROOT) -> None:
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=project,
                           check=True, capture_output=True, text=True).stdout.split("\0")
    for rel in filter(None, files):
        src = os.path.join(project, rel)
        if not os.path.lexists(src):  # deleted in the working tree, not yet in git
            continue
        target = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if os.path.islink(src):
            os.symlink(os.readlink(src), target)
        else:
            shutil.copy2(src, target)


def prune(group: Dict, keep: List[str]) -> None:
    """Keep only the named hosts in a YAML inventory group and its children."""
    hosts = group.get("hosts") or {}
    group["hosts"] = {name: hostvars for name, hostvars in hosts.items() if name in keep}
    for child in (group.get("children") or {}).values():
        if child is not None:
            prune(child, keep)


def materialise_inventory(src_dir: str, dest: str, keep: List[str]) -> None:
    shutil.copytree(os.path.join(src_dir, "group_vars"), os.path.join(dest, "group_vars"))
    with open(os.path.join(src_dir, "hosts.yml"), encoding="utf-8") as fh:
        inventory = yaml.safe_load(fh)
    if keep:
        prune(inventory["all"], keep)
    with open(os.path.join(dest, "hosts.yml"), "w", encoding="utf-8") as fh:
        yaml.safe_dump(inventory, fh, sort_keys=False)


def meta_vars(job_id: int, template: str, launch_type: str = "manual",
              workflow: Optional[Tuple[int, str, str]] = None) -> Dict[str, object]:
    """The variables AWX gives every job (UnifiedJob.awx_meta_vars and Job.awx_meta_vars in awx/main/models/), under
    both its prefixes: the job, its template, its launch type and, for a job spawned by a workflow job, that
    workflow job's id, name and launch type (WORKFLOW: id, name, launch type)."""
    values: Dict[str, object] = {"job_id": job_id, "job_launch_type": launch_type, "job_template_id": 7,
                                 "job_template_name": template, "user_name": "e2e", "inventory_name": "lab",
                                 "project_scm_branch": "main"}
    if workflow:
        values.update(workflow_job_id=workflow[0], workflow_job_name=workflow[1], workflow_job_launch_type=workflow[2])
    return {f"{prefix}_{key}": value for prefix in ("awx", "tower") for key, value in values.items()}


class Job:
    """One AWX job: its private data directory laid out, run through ansible-runner, and what AWX reads back."""

    def __init__(self, base: str, ident: str, playbook: str, extravars: Dict[str, object], log: str,
                 hosts: Optional[List[str]] = None, collections: str = ""):
        self.base, self.ident, self.playbook, self.extravars, self.log = base, ident, playbook, extravars, log
        self.hosts = hosts  # the hosts of its inventory, when it is one slice
        self.collections = collections  # the EE's collections: the roles and plugins come from there
        self.status, self.rc, self.stdout, self.events, self.seconds = "", -1, "", [], 0.0

    def lay_out(self, project: str) -> None:
        shutil.rmtree(self.base, ignore_errors=True)
        for sub in ("project", "inventory", "env"):
            os.makedirs(os.path.join(self.base, sub))
        copy_project(os.path.join(self.base, "project"), project)
        with open(os.path.join(self.base, "env", "extravars"), "w", encoding="utf-8") as fh:
            json.dump(self.extravars, fh)
        with open(os.path.join(self.base, "env", "settings"), "w", encoding="utf-8") as fh:
            json.dump({"idle_timeout": 0, "job_timeout": 1500, "suppress_ansible_output": True}, fh)

    def run(self) -> "Job":
        started = time.monotonic()
        # AWX runs ansible-playbook with the project's ansible.cfg (main() drops the caller's ANSIBLE_CONFIG).
        envvars = {"ANSIBLE_FORCE_COLOR": "false"}
        if self.collections:
            # As in an EE: the collection installed there (here, from its tarball with only its declared
            # dependencies: tests/install) and nothing else, not the project's own collections/ link.
            envvars.update(ANSIBLE_COLLECTIONS_PATH=self.collections, ANSIBLE_COLLECTIONS_SCAN_SYS_PATH="false")
        result = ansible_runner.run(private_data_dir=self.base, playbook=self.playbook, ident=self.ident,
                                    envvars=envvars, quiet=True)
        self.seconds = time.monotonic() - started
        self.status, self.rc = result.status, result.rc
        # AWX shows the colours; the logs here are read by tests/e2e/summarise.py and check_log.py.
        self.stdout = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout.read())
        self.events = list(result.events)
        with open(self.log, "w", encoding="utf-8") as fh:
            fh.write(self.stdout)
        return self

    def stats(self) -> Dict[str, Dict[str, int]]:
        found = [e for e in self.events if e.get("event") == "playbook_on_stats"]
        return found[-1]["event_data"] if found else {}

    def changed(self) -> Dict[str, int]:
        return {h: n for h, n in sorted((self.stats().get("changed") or {}).items()) if n}

    def problems(self, refusal: str, unchanged: bool) -> List[str]:
        """What AWX would show as wrong with this job, and what the caller expected of it."""
        found = []
        counts = self.stats()
        if not counts:
            found.append("no playbook_on_stats event: AWX would have no host summary")
        if self.hosts is not None:
            seen = {h for key in ("ok", "changed", "failures", "dark", "skipped") for h in counts.get(key) or {}}
            outside = sorted(seen - set(self.hosts) - LOCAL)
            if outside:
                found.append(f"ran on {', '.join(outside)}, outside its slice ({', '.join(self.hosts)})")
        if refusal:
            if self.status != "failed" or self.rc == 0:
                found.append(f"expected a refusal, the run ended {self.status} (rc {self.rc})")
            if refusal not in self.stdout:
                found.append(f"the refusal does not say '{refusal}'")
            if self.changed():
                found.append(f"the refused run changed {self.changed()}")
        else:
            if self.status != "successful" or self.rc != 0:
                found.append(f"the run ended {self.status} (rc {self.rc}); see {self.log}")
            if not any(e.get("event") == "runner_on_ok" for e in self.events):
                found.append("no runner_on_ok event")
            if unchanged and self.changed():
                found.append(f"changed {self.changed()} on a run that must change nothing")
        return found


LOCAL = frozenset({"localhost", "127.0.0.1"})


def slice_jobs(args: argparse.Namespace, base: str, given: Dict[str, object]) -> List[Job]:
    """The jobs of one launch: a sliced launch is a workflow job named after the template whose nodes are the
    slices, each a job with its slice's inventory (tests/e2e/awx_slices.py); an unsliced one is one job."""
    inventory = awx_slices.Imported(awx_slices.export(args.inventory))
    count = inventory.effective_slice_count(args.slices)
    launch = "workflow" if args.workflow else "manual"
    jobs = []
    for number in range(1, count + 1):
        if count > 1:
            # The slices' workflow job is the template's own (JobTemplate.create_unified_job); it was itself
            # launched by the converge workflow, or by hand.
            workflow = (args.job_id, args.template, launch)
            job_id, job_launch = args.job_id + number, "workflow"
            ident, log = f"{args.ident}-slice{number}", re.sub(r"(\.log)?$", f"-slice{number}.log", args.log, count=1)
        else:
            workflow = (args.job_id - 1, args.workflow, "manual") if args.workflow else None
            job_id, job_launch, ident, log = args.job_id, launch, args.ident, args.log
        extravars = dict(meta_vars(job_id, args.template, job_launch, workflow), **given)
        job = Job(os.path.join(base, ident), ident, args.playbook, extravars, log,
                  inventory.sliced_hosts(number, count) if count > 1 else None, args.collections)
        job.lay_out(os.path.abspath(args.project))
        awx_slices.write_script(inventory.script_data(number, count), os.path.join(job.base, "inventory", "hosts"))
        jobs.append(job)
    return jobs


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--inventory", required=True)
    parser.add_argument("--playbook", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--ident", default="job")
    parser.add_argument("--extravars", default="{}")
    parser.add_argument("--hosts", default="")
    parser.add_argument("--expect-refusal", default="")
    parser.add_argument("--expect-unchanged", action="store_true")
    parser.add_argument("--cost", default="")
    parser.add_argument("--project", default=ROOT)
    parser.add_argument("--slices", type=int, default=0)
    parser.add_argument("--parallel", type=int, default=2)
    parser.add_argument("--template", default="gpufleet site (converge)")
    parser.add_argument("--workflow", default="")
    parser.add_argument("--job-id", type=int, default=4242)
    parser.add_argument("--collections", default="")
    args = parser.parse_args()
    if args.slices < 0 or args.parallel < 1:
        parser.error("--slices must be 0 or more and --parallel 1 or more")

    base = os.path.join(ROOT, ".build", "runner")
    given = json.loads(args.extravars)
    # AWX runs ansible-playbook with the project's ansible.cfg, not one named by the caller's environment.
    os.environ.pop("ANSIBLE_CONFIG", None)
    if args.slices:
        jobs = slice_jobs(args, base, given)
    else:
        job = Job(os.path.join(base, args.ident), args.ident, args.playbook,
                  dict(meta_vars(args.job_id, args.template), **given), args.log, collections=args.collections)
        job.lay_out(os.path.abspath(args.project))
        materialise_inventory(args.inventory, os.path.join(job.base, "inventory"),
                              [h for h in args.hosts.split(",") if h])
        jobs = [job]
    started = time.monotonic()
    # AWX runs the slices at once, each on an execution node with capacity for it; here PARALLEL at a time.
    with ThreadPoolExecutor(max_workers=args.parallel) as pool:
        list(pool.map(Job.run, jobs))
    if len(jobs) > 1:
        with open(args.log, "w", encoding="utf-8") as fh:
            fh.write("".join(f"==== {job.ident}: {','.join(job.hosts or [])}\n{job.stdout}" for job in jobs))

    problems = []
    costs: Dict[str, Dict[str, int]] = {}
    for job in jobs:
        hosts_ok = sorted(job.stats().get("ok", {}))
        print(f"ansible-runner: {args.playbook} in {job.base}: status {job.status}, rc {job.rc}, {len(job.events)} job "
              f"events, {job.seconds:.0f} s, hosts {','.join(hosts_ok) or 'none'}, changed {job.changed() or 'none'}")
        problems += [f"{job.ident}: {p}" for p in job.problems(args.expect_refusal, args.expect_unchanged)]
        for host, counts in run_cost.cost(job.events).items():
            total = costs.setdefault(host, dict.fromkeys(counts, 0))
            for key, value in counts.items():
                total[key] += value
    if len(jobs) > 1:
        print(f"{len(jobs)} slices, {args.parallel} at a time: {time.monotonic() - started:.0f} s")
    if args.cost:
        with open(args.cost, "w", encoding="utf-8") as fh:
            json.dump(costs, fh, indent=1, sort_keys=True)
        print("cost per host (evaluations: tasks gone through; module_runs: modules run on the node), all slices:")
        print("\n".join(run_cost.lines(costs)))
    for problem in problems:
        print(f"FAILED: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
