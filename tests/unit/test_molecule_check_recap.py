# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/molecule/check_recap.py: a scenario's check step must report changed=0 on its converged nodes."""
from __future__ import annotations

import os
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(_ROOT, "tests", "molecule"))
import check_recap  # noqa: E402  pylint: disable=wrong-import-position

with open(os.path.join(_ROOT, "tests", "fixtures", "molecule", "dcgm-test.log"), encoding="utf-8") as _fh:
    REAL = _fh.read()
CHECK_RECAP = "molecule-dcgm-gpu01        : ok=19   changed=0    unreachable=0    failed=0    skipped=20"


def test_the_real_log_passes_and_only_the_check_recap_is_read():
    found, rows = check_recap.check_step_recaps(REAL)
    assert found
    # converge (changed>0) and the destroy plays are outside the check step: one row, the check run's.
    assert rows == [{"host": "molecule-dcgm-gpu01", "ok": 19, "changed": 0, "unreachable": 0, "failed": 0}]
    assert check_recap.problems(REAL) == []


def test_a_false_change_in_check_mode_fails():
    assert CHECK_RECAP in REAL
    bad = REAL.replace(CHECK_RECAP, CHECK_RECAP.replace("changed=0 ", "changed=2 "))
    assert check_recap.problems(bad) == [
        "check mode on the converged molecule-dcgm-gpu01: changed=2 failed=0 unreachable=0 "
        "(a converged node must show nothing to change)"]


def test_colour_codes_are_ignored():
    coloured = REAL.replace("[dcgm > check] Executing", "\x1b[34m[dcgm > check]\x1b[0m \x1b[1mExecuting\x1b[0m")
    coloured = coloured.replace(CHECK_RECAP, "\x1b[0;33m" + CHECK_RECAP.replace("changed=0 ", "changed=1 ") + "\x1b[0m")
    assert len(check_recap.problems(coloured)) == 1


def test_a_log_without_a_check_step_or_its_recap_fails():
    no_check = REAL.replace("[dcgm > check] Executing", "[dcgm > checking] started")
    assert check_recap.problems(no_check) == ["no molecule `check` step in the log"]
    lines = [line for line in REAL.splitlines() if CHECK_RECAP not in line]
    assert check_recap.problems("\n".join(lines)) == ["the `check` step printed no PLAY RECAP"]


def test_main_exit_codes(tmp_path):
    good, bad = tmp_path / "good.log", tmp_path / "bad.log"
    good.write_text(REAL)
    bad.write_text(REAL.replace(CHECK_RECAP, CHECK_RECAP.replace("failed=0 ", "failed=1 ")))
    assert check_recap.main([str(good)]) == 0
    assert check_recap.main([str(bad)]) == 1
    assert check_recap.main([]) == 2


def test_main_without_a_log_prints_its_usage(capsys):
    assert check_recap.main([]) == 2
    assert capsys.readouterr().err == "check_recap.py MOLECULE_LOG\n"


def _with_side_effect(changed):
    """The real log with a side_effect step (the refusals, as fabric and gpu_tuning run them) after the check step."""
    step = ("INFO     [dcgm > side_effect] Executing\n\nPLAY RECAP " + "*" * 20 + "\n"
            f"molecule-dcgm-gpu01        : ok=7    changed={changed}    unreachable=0    failed=0    skipped=0\n\n")
    assert "INFO     [dcgm > verify] Executing" in REAL
    return REAL.replace("INFO     [dcgm > verify] Executing", step + "INFO     [dcgm > verify] Executing", 1)


def test_the_side_effect_step_must_change_nothing():
    assert check_recap.problems(_with_side_effect(0)) == []
    assert check_recap.check_step_recaps(_with_side_effect(0), "side_effect")[1] == [
        {"host": "molecule-dcgm-gpu01", "ok": 7, "changed": 0, "unreachable": 0, "failed": 0}]
    assert check_recap.problems(_with_side_effect(3)) == [
        "the refusals on the converged molecule-dcgm-gpu01: changed=3 failed=0 unreachable=0 "
        "(a converged node must show nothing to change)"]
    # A scenario without a side_effect step is not asked for one.
    assert check_recap.check_step_recaps(REAL, "side_effect") == (False, [])


def test_a_side_effect_step_without_its_recap_fails():
    lines = [line for line in _with_side_effect(0).splitlines() if "ok=7 " not in line]
    assert check_recap.problems("\n".join(lines)) == ["the `side_effect` step printed no PLAY RECAP"]
