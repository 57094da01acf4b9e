# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/stages.sh, make test's lanes: each lane a session of its own at its niceness, the targets of a lane in turn
up to the first failure, every lane's result reported, and a TERM stops every lane. Run on a copy of the script next
to a Makefile of throw-away targets."""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time

import pytest

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Each target prints what the lane's processes run as: session, niceness, autogroup (absent on some kernels).
_MAKEFILE = """\
define show
@echo "== $@ sid=$$(ps -o sid= -p $$$$ | tr -d ' ') nice=$$(ps -o ni= -p $$$$ | tr -d ' ') \\
ag=$$(sed -n 's/.* nice //p' /proc/$$$$/autogroup 2>/dev/null)"
endef
first:
\t$(show)
second:
\t$(show)
broken:
\t@echo "the end of a failed stage"; false
after_broken:
\t$(show)
slow1 slow2:
\t@echo $$$$ > $@.pid; sleep 60
"""


@pytest.fixture()
def tree(tmp_path):
    (tmp_path / "tests").mkdir()
    shutil.copy(os.path.join(_ROOT, "tests", "stages.sh"), tmp_path / "tests" / "stages.sh")
    (tmp_path / "Makefile").write_text(_MAKEFILE, encoding="utf-8")
    return tmp_path


def _run(tree, *lanes, timeout=60):
    return subprocess.run(["bash", str(tree / "tests" / "stages.sh"), *lanes], capture_output=True, text=True,
                          timeout=timeout, check=False, cwd=tree)


def _shown(out):
    """{target: (sid, nice, autogroup nice or '')} from the targets' own lines."""
    return {m.group(1): (m.group(2), m.group(3), m.group(4))
            for m in re.finditer(r"== (\w+) sid=(\d+) nice=(-?\d+) ag=(-?\d*)", out)}


def test_each_lane_is_a_session_of_its_own_at_its_niceness(tree):
    run = _run(tree, "first", "nice=7 second")
    assert run.returncode == 0, run.stdout + run.stderr
    shown = _shown(run.stdout)
    assert set(shown) == {"first", "second"}, run.stdout
    assert shown["first"][0] != shown["second"][0]  # two sessions
    assert shown["first"][0] != str(os.getsid(0))  # neither is the caller's
    assert (shown["first"][1], shown["second"][1]) == ("0", "7")
    if os.path.exists("/proc/self/autogroup"):  # the session's share of the CPU carries the niceness too
        assert (shown["first"][2], shown["second"][2]) == ("0", "7")
    assert "== stage first: passed" in run.stdout and "== stage second: passed" in run.stdout


def test_a_lane_stops_at_its_first_failure_and_the_others_run_on(tree):
    run = _run(tree, "broken after_broken", "nice=3 first second")
    assert run.returncode == 1
    out = run.stdout
    assert "== stage broken: FAILED" in out and "the end of a failed stage" in out
    assert "after_broken" not in _shown(out)  # the failed lane went no further
    assert set(_shown(out)) == {"first", "second"}  # the other lane ran to its end
    assert (tree / ".build" / "stages" / "broken.log").read_text(encoding="utf-8").startswith("the end of a failed")


def _wait_for(predicate, seconds):
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def _gone(pid):
    """No such process, or only its zombie (its parent has not reaped it yet)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_term_stops_every_lane(tree):
    proc = subprocess.Popen(["bash", str(tree / "tests" / "stages.sh"), "slow1", "nice=5 slow2"],  # pylint: disable=consider-using-with
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tree)
    files = [tree / "slow1.pid", tree / "slow2.pid"]
    assert _wait_for(lambda: all(f.exists() and f.read_text(encoding="utf-8").strip() for f in files), 30)
    sleepers = [int(f.read_text(encoding="utf-8")) for f in files]
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 130
    # each lane's make and the shell of its recipe end with their session
    assert _wait_for(lambda: all(_gone(pid) for pid in sleepers), 10), "a lane outlived the TERM"
