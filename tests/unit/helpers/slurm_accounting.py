# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the slurm/account tests share: sacctmgr 22.05's answers recorded in the lab (tests/fixtures/slurm-accounting),
the policy they were recorded with, and a plan of a policy against a recorded state.

Imported by plain name (tests/unit/helpers is on sys.path through tests/unit/conftest.py).
"""
from __future__ import annotations

import copy
import os

from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.account.plan import plan
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.account.policy import policy
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.account.state import read_state

#: Absolute path of tests/fixtures/slurm-accounting.
FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "fixtures",
                        "slurm-accounting")
SHOWS = ("cluster", "qos", "account", "user", "assoc")


def recorded(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as handle:
        return handle.read()


def state(name, cluster="lab"):
    """The state recorded as NAME.show-*.txt (defaults, policy, cleared, removed)."""
    return read_state(cluster, {show: recorded("%s.show-%s.txt" % (name, show)) for show in SHOWS})


#: The policy the recordings were made with (tests/integration/slurm_account/record_fixtures.sh, "policy").
POLICY = {
    "cluster": "lab",
    "qos": [
        {"name": "normal", "max_jobs_per_user": 2},
        {"name": "high", "priority": 100, "preempt": ["normal"], "preempt_mode": "requeue",
         "flags": ["DenyOnLimit", "NoDecay"], "max_submit_jobs_per_user": 20,
         "max_tres_per_user": {"gres/gpu": 16, "cpu": 128, "mem": 65536}, "max_tres_per_job": {"gres/gpu": 8},
         "max_wall": "2-00:00:00", "grp_tres": {"gres/gpu": 64, "mem": 1048576}, "grp_jobs": 10,
         "description": "High priority, preempts normal"},
    ],
    "accounts": [
        {"name": "research", "description": "Research Dept", "organization": "ACME Labs"},
        {"name": "ml", "parent": "research", "fairshare": 10, "max_jobs": 4, "max_submit_jobs": 8,
         "max_tres_per_job": {"gres/gpu": 8}, "grp_tres": {"gres/gpu": 32}, "max_wall": "12:00:00",
         "qos": ["normal", "high"], "default_qos": "normal"},
        {"name": "hpc", "parent": "research", "fairshare": "parent"},
    ],
    "users": [
        {"name": "alice", "default_account": "ml"},
        {"name": "bob", "default_account": "hpc", "accounts": ["hpc", "ml"], "admin_level": "operator", "max_jobs": 3},
    ],
}
#: How every change command begins.
I = ["sacctmgr", "--immediate"]


def plan_of(params, name, jobs=(), **kw):
    """The plan of the options ``params`` against the recorded state ``name``."""
    return plan(policy(params), state(name), list(jobs) if jobs is not None else None, **kw)


def with_(**changes):
    """POLICY with the given top-level options replaced."""
    params = copy.deepcopy(POLICY)
    params.update(changes)
    return params
