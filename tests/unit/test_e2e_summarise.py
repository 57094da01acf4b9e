# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/e2e/summarise.py: the recap of the e2e's converge and its re-run."""
from __future__ import annotations

import os
import sys

import pytest

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(_ROOT, "tests", "e2e"))
import summarise  # noqa: E402  pylint: disable=wrong-import-position

RECAP = """PLAY RECAP *********************************************************************
gpu01                      : ok=29   changed={c}    unreachable=0    failed=0    skipped=2    rescued=0    ignored=0
head                       : ok=29   changed=0    unreachable=0    failed={f}    skipped=2    rescued=0    ignored=0
Saturday 21 November 2026  17:05:12 +0000 (0:00:00.114)       0:00:57.300 *****
"""


def test_summarise_accepts_a_clean_rerun(tmp_path, capsys):
    first, second = tmp_path / "a.log", tmp_path / "b.log"
    first.write_text(RECAP.format(c=11, f=0))
    second.write_text(RECAP.format(c=0, f=0))
    assert summarise.main([str(first), str(second)]) == 0
    out = capsys.readouterr().out
    assert "converge in 57 s: 2 hosts" in out and "re-run changed nothing" in out


@pytest.mark.parametrize("changed,failed,why", [(1, 0, "gpu01 changed 1 task(s) on a second run"),
                                                (0, 1, "head failed or unreachable")])
def test_summarise_refuses_changes_and_failures(tmp_path, capsys, changed, failed, why):
    first, second = tmp_path / "a.log", tmp_path / "b.log"
    first.write_text(RECAP.format(c=11, f=0))
    second.write_text(RECAP.format(c=changed, f=failed))
    assert summarise.main([str(first), str(second)]) == 1
    assert why in capsys.readouterr().out
