# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""playbooks/roce_switch.yml pushes one switch at a time after every switch's preflight, and the local test's
playbook (tests/local/roce_switch/site.yml, which adds the stand-ins' environment) does the same: the local test
proves the order with the stand-ins' calls, so its playbook must keep the production one's keywords."""
from __future__ import annotations

import os

import yaml
from reference import REPO

KEYWORDS = ("hosts", "gather_facts", "serial", "max_fail_percentage", "any_errors_fatal")


def plays(*path):
    with open(os.path.join(REPO, *path), encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def test_preflight_on_every_switch_then_one_switch_at_a_time():
    preflight, push = plays("playbooks", "roce_switch.yml")
    assert preflight["any_errors_fatal"] is True and "serial" not in preflight
    [task] = preflight["tasks"]
    assert task["ansible.builtin.import_role"] == {"name": "gpufleet.cluster.roce_switch", "tasks_from": "preflight.yml"}
    assert (push["serial"], push["max_fail_percentage"], push["any_errors_fatal"]) == (1, 0, True)
    assert push["roles"] == [{"role": "gpufleet.cluster.roce_switch"}]


def test_the_local_test_runs_the_same_plays():
    production, local = plays("playbooks", "roce_switch.yml"), plays("tests", "local", "roce_switch", "site.yml")
    assert len(production) == len(local) == 2
    for ours, theirs in zip(production, local):
        assert {k: ours.get(k) for k in KEYWORDS} == {k: theirs.get(k) for k in KEYWORDS}
    assert local[0]["tasks"][0]["ansible.builtin.import_role"] == production[0]["tasks"][0]["ansible.builtin.import_role"]
    assert [r["role"] for r in local[1]["roles"]] == [r["role"] for r in production[1]["roles"]]
