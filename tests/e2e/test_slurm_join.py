# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A node added to the inventory joins, and a job running elsewhere keeps running.

Run by tests/e2e/join.sh after it submitted a long job to the first GPU node (E2E_JOB_ID, running since
E2E_JOB_START), added a GPU node to the lab and ran docs/day2.md's "Add a GPU node" steps (common.yml everywhere,
site.yml limited to the new node with its layers' tags, slurm.yml everywhere).
"""
import os
import time

import testinfra
import testinfra.utils.ansible_runner


def test_new_node_joins_and_running_job_survives(request):
    inventory = request.config.option.ansible_inventory
    runner = testinfra.utils.ansible_runner.AnsibleRunner(inventory)
    computes = runner.get_hosts("gpu_nodes")
    login = testinfra.get_host(f"ansible://{runner.get_hosts('login_nodes')[0]}", ansible_inventory=inventory)
    job, started = os.environ["E2E_JOB_ID"], os.environ["E2E_JOB_START"]
    state = login.check_output(f"squeue --noheader --jobs {job} --format '%T %N'")
    assert state == f"RUNNING {computes[0]}", f"job {job} did not survive the node being added: {state!r}"
    # RUNNING now does not prove it was never killed and requeued: same start time, no restart.
    fields = dict(f.split("=", 1) for f in login.check_output(f"scontrol --oneliner show job {job}").split() if "=" in f)
    assert fields["StartTime"] == started, f"job {job} started at {started}, now says {fields['StartTime']}: requeued"
    assert fields["Restarts"] == "0", f"job {job} was restarted while the node joined: Restarts={fields['Restarts']}"
    deadline = time.monotonic() + 60
    while True:
        out = login.check_output("sinfo --noheader --Node --format '%N %t'")
        states = dict(line.split() for line in out.splitlines())
        if states.get(computes[-1]) == "idle":
            break
        assert time.monotonic() < deadline, f"{computes[-1]} did not join: {states}"
        time.sleep(2)
    assert set(states) == set(computes)
    login.check_output(f"scancel {job}")
