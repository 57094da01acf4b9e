# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a playbook run cost the controller, for bench/projection.py (issue 29).

Enabled by the benchmarks only (bench/rerun_cost.sh):
    ANSIBLE_CALLBACK_PLUGINS=bench/callback_plugins ANSIBLE_CALLBACKS_ENABLED=run_cpu GPUFLEET_RUN_CPU=out.json
At the end of the run it writes, as JSON: the CPU seconds of ansible-playbook's main process (the strategy, which
takes every host through every task one after the other) and of its reaped children (the forked workers, which
template and run each host-task, and their ssh), the wall time, and the task evaluations per host (every task a host
went through: ok, changed, skipped, failed or unreachable, a loop counting once).
"""
from __future__ import annotations

import json
import os
import resource
import time
from collections import Counter

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = r"""
name: run_cpu
type: aggregate
short_description: controller CPU and task evaluations of a run, for the benchmarks
description:
  - Writes the main process's and its workers' CPU seconds, the wall time and the evaluations per host to the
    file named by the environment variable GPUFLEET_RUN_CPU at the end of the run.
requirements:
  - enabled in callbacks_enabled (ANSIBLE_CALLBACKS_ENABLED=run_cpu)
"""


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "run_cpu"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._start = time.monotonic()
        self._evaluations: Counter = Counter()

    def _count(self, result, *_args, **_kwargs):
        self._evaluations[result._host.get_name()] += 1  # pylint: disable=protected-access

    v2_runner_on_ok = _count
    v2_runner_on_failed = _count
    v2_runner_on_skipped = _count
    v2_runner_on_unreachable = _count

    def v2_playbook_on_stats(self, stats):
        path = os.environ.get("GPUFLEET_RUN_CPU")
        if not path:
            return
        own = resource.getrusage(resource.RUSAGE_SELF)
        workers = resource.getrusage(resource.RUSAGE_CHILDREN)
        with open(path, "w", encoding="utf-8") as fh:
            json.dump({"main_cpu_s": round(own.ru_utime + own.ru_stime, 3),
                       "workers_cpu_s": round(workers.ru_utime + workers.ru_stime, 3),
                       "wall_s": round(time.monotonic() - self._start, 3),
                       "evaluations": dict(sorted(self._evaluations.items()))}, fh, indent=1)
