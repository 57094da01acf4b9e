# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""`mutmut` (same arguments) whose timeouts are CPU seconds only, so a paused or starved run keeps honest verdicts.

mutmut 3.8 limits each mutant's tests twice: RLIMIT_CPU (CPU seconds: a mutant that loops is stopped, a stopped
process uses none) and a thread in the parent that sends SIGXCPU when a wall-clock time of about the same size has
passed. Under `kill -STOP`/`-CONT`, or on a machine busy with other work, that wall-clock timer fires on mutants
whose tests were merely waiting, and mutmut counts them as timeouts, i.e. killed. Here the wall-clock backstop is
stretched to MUTATION_WALL_S seconds (default 3600): it is left only for a mutant that blocks without using CPU.

    python tests/mutation/mutmut_cpu_limit.py run --max-children 2 [NAME ...]   (run from a staging tree)
"""
import os
import sys

from mutmut.workers import isolation
from mutmut.__main__ import cli

WALL_S = float(os.environ.get("MUTATION_WALL_S", "3600"))
_register_timeout = isolation.register_timeout


def register_timeout(pid, timeout_s):
    """mutmut's timer, with at least WALL_S seconds of wall-clock time."""
    _register_timeout(pid=pid, timeout_s=max(timeout_s, WALL_S))


isolation.register_timeout = register_timeout

if __name__ == "__main__":
    sys.argv[0] = "mutmut"
    sys.exit(cli())
