# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/e2e/check_rollout.py on real e2e logs (tests/fixtures/e2e/README.md): the controllers restart one at a
time, the primary first, each serving before the next."""
from __future__ import annotations

import os
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(_ROOT, "tests", "e2e"))
import check_rollout  # noqa: E402  pylint: disable=wrong-import-position

_LOGS = os.path.join(_ROOT, "tests", "fixtures", "e2e")
ONE = [("restart", "head"), ("serving", "head"), ("restart", "head2"), ("serving", "head2")]


def _lines(name):
    with open(os.path.join(_LOGS, name), encoding="utf-8") as fh:
        return fh.read().splitlines()


def test_a_roll_out_reads_as_primary_restarted_serving_then_backup():
    found = check_rollout.events(_lines("rollout-good-config.log"))
    assert found == ONE
    assert check_rollout.problems(found, "head", "head2") == []


def test_a_rotation_restarts_the_controllers_the_same_way():
    assert check_rollout.events(_lines("rollout-munge-rotate.log")) == ONE


def test_two_roll_outs_in_one_run_each_in_order():
    """A run whose handlers flush twice (a new munge key, then new node lines) rolls out twice."""
    found = check_rollout.events(_lines("rollout-munge-rotate.log") + _lines("rollout-good-config.log"))
    assert found == ONE + ONE
    assert check_rollout.problems(found, "head", "head2") == []
    assert check_rollout.problems(found[:6], "head", "head2") != []  # the second roll-out cut short


def test_the_backup_restarted_before_the_primary_served_fails():
    lines = _lines("rollout-good-config.log")
    # The two restarts at once (the handler before): both restarts, then the waits.
    found = check_rollout.events(lines)
    both_first = [found[0], found[2], found[1], found[3]]
    assert check_rollout.problems(both_first, "head", "head2") == [
        f"expected each roll-out as {ONE}, the log shows {both_first}"]
    assert check_rollout.problems(found, "head2", "head") != []  # the backup is not the one to restart first


def test_a_run_without_restart_fails(tmp_path):
    assert check_rollout.problems(check_rollout.events(["PLAY RECAP ***", "head : ok=3 changed=0"]), "head", "head2") == [
        "no slurmctld restart in the log"]


def test_main_exit_status(tmp_path, capsys):
    assert check_rollout.main([os.path.join(_LOGS, "rollout-good-config.log"), "head", "head2"]) == 0
    assert "restart head, serving head, restart head2, serving head2" in capsys.readouterr().out
    log = tmp_path / "spliced.log"
    text = "\n".join(_lines("rollout-good-config.log"))
    log.write_text(text.replace("changed: [head -> head2(10.123.58.11)]", "ok: [head -> head2(10.123.58.11)]"))
    assert check_rollout.main([str(log), "head", "head2"]) == 1  # head2 was never restarted
    assert check_rollout.main([]) == 2
