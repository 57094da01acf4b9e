# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""High availability: with the primary controller's container stopped, the backup takes over and jobs run.

Run by tests/e2e/run.sh last, after it has stopped the primary (it needs the lab's podman, not SSH).
"""
import time

import testinfra
import testinfra.utils.ansible_runner


def test_backup_controller_took_over_and_runs_jobs(request):
    inventory = request.config.option.ansible_inventory
    runner = testinfra.utils.ansible_runner.AnsibleRunner(inventory)
    primary, backup = runner.get_hosts("slurm_controller")
    login = testinfra.get_host(f"ansible://{runner.get_hosts('login_nodes')[0]}", ansible_inventory=inventory)
    deadline = time.monotonic() + 90
    while True:
        ping = login.run("scontrol ping").stdout
        if f"{backup} is UP" in ping and f"{primary} is DOWN" in ping:
            break
        assert time.monotonic() < deadline, f"backup {backup} never took over: {ping}"
        time.sleep(3)
    n = len(runner.get_hosts("gpu_nodes"))
    out = login.check_output(f"srun --nodes={n} hostname")
    assert sorted(out.split()) == sorted(runner.get_hosts("gpu_nodes"))
