# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run a playbook against the lab the way AWX runs a job: through ansible-runner, in a private data directory.

    awx_runner.py --inventory DIR --playbook playbooks/site.yml --log FILE [--extravars JSON]
                  [--hosts h1,h2] [--expect-refusal TEXT] [--cost FILE] [--project CHECKOUT]

Like AWX it lays out, under .build/runner/<ident>/:
  project/          the project as a checkout has it (this one, or --project's git work tree: the tracked and
                    untracked, not ignored files; AWX syncs the project from git), so the project's own
                    ansible.cfg applies, as it does in AWX
  inventory/        the inventory, materialised (hosts.yml and its group_vars); --hosts keeps only those hosts, as
                    one slice of an AWX sliced job holds only its share of the inventory
  env/extravars     AWX's job variables (awx_job_id, awx_job_template_name, ...) and the survey answers
  env/settings      runner settings AWX sets (no idle timeout, a job timeout)
and then checks what AWX reads back: the runner status and rc, the job events (a playbook_on_stats event with
the per-host counts) and the stdout, which is copied to --log for tests/e2e/summarise.py.
With --expect-refusal the run must fail, say TEXT and change nothing. With --cost, what the run cost each host
(evaluations, module runs on the node, setup runs: tests/e2e/run_cost.py) is printed and written to FILE as JSON.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from typing import Dict, List

import ansible_runner
import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_cost  # noqa: E402  pylint: disable=wrong-import-position

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
AWX_VARS = {"awx_job_id": 4242, "awx_job_launch_type": "manual", "awx_job_template_id": 7,
            "awx_job_template_name": "gpufleet site (converge)", "awx_user_name": "e2e"}


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


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--inventory", required=True)
    parser.add_argument("--playbook", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--ident", default="job")
    parser.add_argument("--extravars", default="{}")
    parser.add_argument("--hosts", default="")
    parser.add_argument("--expect-refusal", default="")
    parser.add_argument("--cost", default="")
    parser.add_argument("--project", default=ROOT)
    args = parser.parse_args()

    base = os.path.join(ROOT, ".build", "runner", args.ident)
    shutil.rmtree(base, ignore_errors=True)
    for sub in ("project", "inventory", "env"):
        os.makedirs(os.path.join(base, sub))
    copy_project(os.path.join(base, "project"), os.path.abspath(args.project))
    materialise_inventory(args.inventory, os.path.join(base, "inventory"), [h for h in args.hosts.split(",") if h])
    extravars = dict(AWX_VARS, **json.loads(args.extravars))
    with open(os.path.join(base, "env", "extravars"), "w", encoding="utf-8") as fh:
        json.dump(extravars, fh)
    with open(os.path.join(base, "env", "settings"), "w", encoding="utf-8") as fh:
        json.dump({"idle_timeout": 0, "job_timeout": 1500, "suppress_ansible_output": True}, fh)

    # AWX runs ansible-playbook with the project's ansible.cfg, not one named by the caller's environment.
    envvars = {"ANSIBLE_FORCE_COLOR": "false"}
    saved = os.environ.pop("ANSIBLE_CONFIG", None)
    try:
        result = ansible_runner.run(private_data_dir=base, playbook=args.playbook, ident=args.ident,
                                    envvars=envvars, quiet=True)
    finally:
        if saved is not None:
            os.environ["ANSIBLE_CONFIG"] = saved
    # AWX shows the colours; the logs here are read by tests/e2e/summarise.py.
    stdout = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout.read())
    with open(args.log, "w", encoding="utf-8") as fh:
        fh.write(stdout)

    events = list(result.events)
    stats = [e for e in events if e.get("event") == "playbook_on_stats"]
    counts = stats[-1]["event_data"] if stats else {}
    hosts_ok = sorted(counts.get("ok", {}))
    changed = {h: n for h, n in (counts.get("changed") or {}).items() if n}
    print(f"ansible-runner: {args.playbook} in {base}: status {result.status}, rc {result.rc}, "
          f"{len(events)} job events, hosts {','.join(hosts_ok) or 'none'}, changed {changed or 'none'}")
    if args.cost:
        costs = run_cost.cost(events)
        with open(args.cost, "w", encoding="utf-8") as fh:
            json.dump(costs, fh, indent=1, sort_keys=True)
        print("cost per host (evaluations: tasks gone through; module_runs: modules run on the node):")
        print("\n".join(run_cost.lines(costs)))
    problems = []
    if not stats:
        problems.append("no playbook_on_stats event: AWX would have no host summary")
    if args.expect_refusal:
        if result.status != "failed" or result.rc == 0:
            problems.append(f"expected a refusal, the run ended {result.status} (rc {result.rc})")
        if args.expect_refusal not in stdout:
            problems.append(f"the refusal does not say '{args.expect_refusal}'")
        if changed:
            problems.append(f"the refused run changed {changed}")
    else:
        if result.status != "successful" or result.rc != 0:
            problems.append(f"the run ended {result.status} (rc {result.rc}); see {args.log}")
        if not any(e.get("event") == "runner_on_ok" for e in events):
            problems.append("no runner_on_ok event")
    for problem in problems:
        print(f"FAILED: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
