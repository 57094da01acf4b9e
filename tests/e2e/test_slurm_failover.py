# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""High availability: with the primary controller's container stopped, the backup takes over the saved state.

Run by tests/e2e/failover.sh, the e2e's last step. Before it stopped the primary (it needs the lab's podman, not
SSH), it submitted a long job (E2E_FAILOVER_JOB) and waited until it ran (E2E_FAILOVER_START, its start time). A
backup that started with empty state would not know that job, or would give the next job an id it already used.
"""
import os
import time

import testinfra
import testinfra.utils.ansible_runner


def _job(login, job):
    """scontrol's one-line view of a job as a dict (JobState, StartTime, Restarts, ...)."""
    line = login.check_output(f"scontrol --oneliner show job {job}")
    return dict(field.split("=", 1) for field in line.split() if "=" in field)


def test_backup_controller_took_over_the_saved_state_and_runs_jobs(request):
    inventory = request.config.option.ansible_inventory
    runner = testinfra.utils.ansible_runner.AnsibleRunner(inventory)
    primary, backup = runner.get_hosts("slurm_controller")
    login = testinfra.get_host(f"ansible://{runner.get_hosts('login_nodes')[0]}", ansible_inventory=inventory)
    held, started = os.environ["E2E_FAILOVER_JOB"], os.environ["E2E_FAILOVER_START"]
    deadline = time.monotonic() + 90
    while True:
        ping = login.run("scontrol ping").stdout
        if f"{backup} is UP" in ping and f"{primary} is DOWN" in ping:
            break
        assert time.monotonic() < deadline, f"backup {backup} never took over: {ping}"
        time.sleep(3)

    # The job that ran before the hand-over: the backup knows it, still RUNNING, same id, same start, not requeued.
    job = _job(login, held)
    assert job["JobId"] == held
    assert job["JobState"] == "RUNNING", f"job {held} after the fail-over: {job['JobState']} ({job.get('Reason')})"
    assert job["StartTime"] == started, f"job {held} started at {started}, the backup says {job['StartTime']}"
    assert job["Restarts"] == "0", f"job {held} was requeued across the fail-over: Restarts={job['Restarts']}"
    # A job submitted to the backup gets an id after every id the primary gave out.
    new = login.check_output("sbatch --parsable --wrap true").split(";")[0]
    assert int(new) > int(held), f"the backup gave job id {new}, not above {held} that the primary gave"

    login.check_output(f"scancel {held}")
    n = len(runner.get_hosts("gpu_nodes"))
    out = login.check_output(f"srun --nodes={n} hostname")
    assert sorted(out.split()) == sorted(runner.get_hosts("gpu_nodes"))
