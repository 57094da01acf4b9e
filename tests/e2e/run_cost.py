# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a playbook run cost each host, from ansible-runner's job events (what AWX stores of a job).

Per host:
  evaluations   tasks the host went through: one ok, changed, skipped or failed result each (a loop counts once)
  module_runs   modules run on the host itself: ok, changed or failed results of actions that reach the node (a
                loop counts each item it ran); set_fact, assert, debug, include_* and the like run on the
                controller, and a task delegated to localhost does not reach the node, so neither counts
  setup         runs of setup / gather_facts (part of module_runs)

Read by tests/e2e/awx_runner.py (--cost FILE); the figures of issue 29 in docs/performance.md come from it.
"""
from __future__ import annotations

from typing import Any, Dict, Iterable

RESULTS = {"runner_on_ok", "runner_on_skipped", "runner_on_failed"}
# Actions that run in the controller's worker and never reach the node (strategy-level ones included).
CONTROLLER_ACTIONS = frozenset({
    "add_host", "assert", "debug", "fail", "group_by", "import_playbook", "import_role", "import_tasks",
    "include", "include_role", "include_tasks", "include_vars", "meta", "pause", "set_fact", "set_stats",
    "validate_argument_spec",
})
SETUP_ACTIONS = frozenset({"setup", "gather_facts"})
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


def short_action(event_data: Dict[str, Any]) -> str:
    """The action's short name: ansible.builtin.set_fact and ansible.legacy.set_fact are set_fact."""
    action = str(event_data.get("resolved_action") or event_data.get("task_action") or "")
    for prefix in ("ansible.builtin.", "ansible.legacy."):
        if action.startswith(prefix):
            return action[len(prefix):]
    return action


def _reaches_node(event_data: Dict[str, Any]) -> bool:
    if short_action(event_data) in CONTROLLER_ACTIONS:
        return False
    res = event_data.get("res") or {}
    delegated = res.get("_ansible_delegated_vars") or {}
    return str(delegated.get("ansible_host", delegated.get("ansible_delegated_host", ""))) not in LOCAL_HOSTS \
        if delegated else True


def _runs(event: str, res: Dict[str, Any]) -> int:
    """How many module runs one result stands for: a loop's items that were not skipped, else one."""
    if event == "runner_on_skipped":
        return 0
    items = res.get("results")
    if isinstance(items, list):
        return sum(1 for item in items if isinstance(item, dict) and not item.get("skipped"))
    return 1


def cost(events: Iterable[Dict[str, Any]]) -> Dict[str, Dict[str, int]]:
    """Per host: evaluations, module_runs and setup of one run, from its job events."""
    hosts: Dict[str, Dict[str, int]] = {}
    for event in events:
        kind = event.get("event")
        data = event.get("event_data") or {}
        host = data.get("host")
        if kind not in RESULTS or not host:
            continue
        counts = hosts.setdefault(str(host), {"evaluations": 0, "module_runs": 0, "setup": 0})
        counts["evaluations"] += 1
        if _reaches_node(data):
            runs = _runs(kind, data.get("res") or {})
            counts["module_runs"] += runs
            if short_action(data) in SETUP_ACTIONS:
                counts["setup"] += runs
    return hosts


def lines(costs: Dict[str, Dict[str, int]]) -> Iterable[str]:
    """One line per host, sorted by name."""
    for host in sorted(costs):
        c = costs[host]
        yield f"  {host:24} evaluations={c['evaluations']:<4} module_runs={c['module_runs']:<4} setup={c['setup']}"
