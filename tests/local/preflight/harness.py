# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The preflight harness: every bad value fed to its role's real preflight, on this machine, in check mode.

    harness.py playbook CASES PLAYBOOK INVENTORY NODE
                                         write one ansible-playbook file: a play per case (the case's values as play
                                         vars, so none leaks into the next), which includes the role's
                                         tasks/preflight.yml in a block and records how it ended (passed, or the
                                         task that failed and its message) in the host fact preflight_results;
                                         a last play writes them to $PREFLIGHT_RESULTS. And the inventory: NODE (this
                                         machine, connection local) in every group a role looks at, and the other
                                         nodes a case describes (`peers`: {group, hosts: name -> host vars},
                                         the group holding NODE and them, which the case names as its cluster's)
    harness.py check CASES RESULTS LOG   assert each case ended as cases.yml says:
                                         - refused: failed at the role's input check (the task `task` names),
                                           the message naming every variable in `names` and none of `hidden`;
                                         - passed: got through the input checks: passed, or failed later at a
                                           task that reads this machine (`later`, said in the report), never at one
                                           of the role's input checks, unless the role checks its input and the
                                           node in one task (inputs first, alone) and the message is about this
                                           machine only: it fullmatches the role's `node_only`;
                                         and that no `hidden` value reached the log. Prints a line per case.

cases.yml: `roles: {<role>: {base: {...}, checks: [task names], node_only: regex}}` (base: values like the lab's
that let the preflight get through its reads on a machine that is no cluster node; checks: the role's input-check
tasks; node_only: what a check that also checks the node says when only this machine fails it, e.g. it does not
run systemd, which a cluster node always does) and
`cases: [{role, name, vars, vars_from, expect, names, hidden, bare, checks, node_only}]` (node_only: the role's, for
this case; bare: the role's defaults alone, no
base; vars_from: {file, keys}: the variables of a YAML file of the checkout (an inventory's group_vars) whose names
match the regular expression keys, laid over base and under vars, so a case checks the file as it is shipped;
checks: further tasks that count as input checks for this case).
PREFLIGHT_ROLES=slurm,dcgm runs only those roles' cases (while working on one).
"""
from __future__ import annotations

import json
import os
import re
import sys

import yaml


def _load(path):
    """cases.yml; with PREFLIGHT_ROLES (role names, comma separated) only those roles' cases."""
    with open(path, encoding="utf-8") as handle:
        data = yaml.safe_load(handle)
    only = [role for role in os.environ.get("PREFLIGHT_ROLES", "").split(",") if role]
    if only:
        data["cases"] = [case for case in data["cases"] if case["role"] in only]
    return data


def _vars_from(cases_path, spec):
    """The variables of spec["file"] (relative to the checkout) whose names fullmatch spec["keys"]; none matching
    is an error (a renamed variable must not turn the case into one of the base values alone)."""
    if not spec:
        return {}
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(cases_path)))))
    with open(os.path.join(root, spec["file"]), encoding="utf-8") as handle:
        values = yaml.safe_load(handle) or {}
    chosen = {key: value for key, value in values.items() if re.fullmatch(spec["keys"], key)}
    if not chosen:
        raise SystemExit("vars_from: no variable of %s matches %r" % (spec["file"], spec["keys"]))
    return chosen


def inventory(data, node, python):
    groups = {name: {"hosts": {node: {}}} for name in ("cluster", "slurm_controller", "slurm_dbd", "gpu_nodes")}
    groups["target"] = {"hosts": {node: {"gpufleet_ip": "127.0.0.1"}}}
    for case in data["cases"]:
        if case.get("peers"):
            groups[case["peers"]["group"]] = {"hosts": dict({node: {}}, **case["peers"]["hosts"])}
    return {"all": {"vars": {"ansible_connection": "local", "ansible_python_interpreter": python},
                    "children": groups}}


def playbook(cases_path, out_path, inventory_path, node):
    data = _load(cases_path)
    with open(inventory_path, "w", encoding="utf-8") as handle:
        yaml.safe_dump(inventory(data, node, sys.executable), handle, sort_keys=False)
    plays = [{"name": "Gather this machine's facts once", "hosts": "target", "gather_facts": True,
              "tasks": [{"name": "Start the results", "ansible.builtin.set_fact": {"preflight_results": []}}]}]
    for index, case in enumerate(data["cases"]):
        role = data["roles"][case["role"]]
        values = {} if case.get("bare") else dict(role.get("base") or {})
        values.update(_vars_from(cases_path, case.get("vars_from")))
        values.update(case.get("vars") or {})
        label = "%03d %s: %s" % (index, case["role"], case["name"])
        plays.append({
            "name": label, "hosts": "target", "gather_facts": False, "vars": values,
            "tasks": [{
                "name": "Run the preflight of %s" % case["role"],
                "block": [
                    {"name": "Include the preflight", "ansible.builtin.include_role": {
                        "name": "gpufleet.cluster.%s" % case["role"], "tasks_from": "preflight"}},
                    {"name": "Record it passed", "ansible.builtin.set_fact": {
                        "preflight_results": "{{ preflight_results + [{'case': %s, 'outcome': 'passed'}] }}"
                                             % json.dumps(label)}},
                ],
                "rescue": [{"name": "Record where it failed", "ansible.builtin.set_fact": {
                    "preflight_results": (
                        "{{ preflight_results + [{'case': %s, 'outcome': 'failed', 'task': ansible_failed_task.name,"
                        " 'message': ansible_failed_result.msg | default(ansible_failed_result | string)}] }}"
                        % json.dumps(label))}}],
            }],
        })
    plays.append({"name": "Write the results", "hosts": "target", "gather_facts": False, "tasks": [{
        "name": "Write the results", "ansible.builtin.copy": {
            "content": "{{ preflight_results | to_nice_json }}\n", "dest": "{{ lookup('env', 'PREFLIGHT_RESULTS') }}",
            "mode": "0600"},
        "check_mode": False}]})
    with open(out_path, "w", encoding="utf-8") as handle:
        yaml.safe_dump(plays, handle, sort_keys=False, width=200)


def _strip_role(task):
    """`common : Preflight | Check ...` (how a failed task of a role is named) without the role."""
    return task.split(" : ", 1)[-1]


def check(cases_path, results_path, log_path):
    data = _load(cases_path)
    with open(results_path, encoding="utf-8") as handle:
        results = json.load(handle)
    with open(log_path, encoding="utf-8", errors="replace") as handle:
        log = handle.read()
    problems = []
    if len(results) != len(data["cases"]):
        problems.append("%d cases, %d results" % (len(data["cases"]), len(results)))
    for index, (case, result) in enumerate(zip(data["cases"], results)):
        checks = data["roles"][case["role"]]["checks"] + case.get("checks", [])
        task = _strip_role(result.get("task") or "")
        message = str(result.get("message", ""))
        expect = case["expect"]
        if expect == "refused":
            ok = result["outcome"] == "failed" and task == case.get("task", task) and task in checks
            missing = [name for name in case.get("names", []) if name not in message]
            if not ok or missing:
                problems.append("%s: expected a refusal by %r naming %s; got %s at %r: %s" % (
                    result["case"], case.get("task", "an input check"), case.get("names"), result["outcome"],
                    task, message[:400]))
        else:
            node_only = case.get("node_only", data["roles"][case["role"]].get("node_only"))
            if result["outcome"] == "failed" and task in checks and not (
                    node_only and re.fullmatch(node_only, message, re.DOTALL)):
                problems.append("%s: a good value was refused by %r: %s" % (result["case"], task, message[:400]))
        for secret in case.get("hidden", []):
            if secret in message or secret in log:
                problems.append("%s: the secret value reached the message or the log" % result["case"])
        later = "" if result["outcome"] == "passed" or expect == "refused" else " (later: %s)" % task
        print("%-6s %s%s" % ("ok" if not problems or not problems[-1].startswith(result["case"]) else "FAIL",
                             result["case"], later))
    for problem in problems:
        print("FAIL " + problem)
    return 1 if problems else 0


def main(argv):
    if len(argv) == 6 and argv[1] == "playbook":
        playbook(argv[2], argv[3], argv[4], argv[5])
        return 0
    if len(argv) == 5 and argv[1] == "check":
        return check(argv[2], argv[3], argv[4])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
