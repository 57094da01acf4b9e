# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/e2e/run_cost.py: evaluations and module runs per host, from ansible-runner's job events."""
from __future__ import annotations

import os
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(_ROOT, "tests", "e2e"))
import run_cost  # noqa: E402  pylint: disable=wrong-import-position


def event(kind, host, action, res=None, resolved=True):
    data = {"host": host, "task_action": action, "res": res or {}}
    if resolved:
        data["resolved_action"] = action if "." in action else "ansible.builtin." + action
    return {"event": kind, "event_data": data}


def test_controller_actions_are_evaluations_not_module_runs():
    events = [
        event("runner_on_ok", "gpu01", "ansible.builtin.set_fact"),
        event("runner_on_ok", "gpu01", "assert", resolved=False),
        event("runner_on_ok", "gpu01", "ansible.legacy.debug"),
        event("runner_on_skipped", "gpu01", "ansible.builtin.apt"),
        event("runner_on_ok", "gpu01", "gpufleet.cluster.node_state"),
        event("runner_on_ok", "gpu01", "ansible.builtin.gather_facts"),
    ]
    assert run_cost.cost(events) == {"gpu01": {"evaluations": 6, "module_runs": 2, "setup": 1}}


def test_a_loop_counts_once_as_an_evaluation_and_per_item_run():
    res = {"results": [{"changed": False}, {"skipped": True}, {"changed": True}]}
    events = [event("runner_item_on_ok", "gpu01", "ansible.builtin.file"),
              event("runner_on_ok", "gpu01", "ansible.builtin.file", res)]
    assert run_cost.cost(events)["gpu01"] == {"evaluations": 1, "module_runs": 2, "setup": 0}


def test_a_task_delegated_to_localhost_does_not_reach_the_node():
    local = {"_ansible_delegated_vars": {"ansible_host": "localhost"}}
    login = {"_ansible_delegated_vars": {"ansible_host": "10.89.0.5"}}
    events = [event("runner_on_ok", "gpu01", "ansible.builtin.command", local),
              event("runner_on_ok", "gpu01", "ansible.builtin.command", login),
              event("runner_on_failed", "head", "ansible.builtin.command"),
              {"event": "playbook_on_stats", "event_data": {}},
              {"event": "runner_on_ok", "event_data": {"task_action": "set_fact"}}]
    costs = run_cost.cost(events)
    assert costs == {"gpu01": {"evaluations": 2, "module_runs": 1, "setup": 0},
                     "head": {"evaluations": 1, "module_runs": 1, "setup": 0}}
    assert list(run_cost.lines(costs))[0].split() == ["gpu01", "evaluations=2", "module_runs=1", "setup=0"]
