# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/e2e/check_log.py on real e2e logs (tests/fixtures/e2e/README.md)."""
from __future__ import annotations

import os
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(_ROOT, "tests", "e2e"))
import check_log  # noqa: E402  pylint: disable=wrong-import-position

_LOGS = os.path.join(_ROOT, "tests", "fixtures", "e2e")


def _log(name):
    return os.path.join(_LOGS, name)


def _spliced(tmp_path, name, old, new):
    """The log with one passage replaced (the replaced text must be there)."""
    with open(_log(name), encoding="utf-8") as fh:
        text = fh.read()
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return str(path)


def test_a_converge_that_restarts_the_daemons_it_just_started_fails():
    assert check_log.first_converge(_log("converge-937c2e1.log")) == [
        "'Restart slurmdbd' restarted a daemon the converge had just started, on head",
        "'Restart slurmctld' restarted a daemon the converge had just started, on head2",
        "'Restart slurmctld' restarted a daemon the converge had just started, on head, head2",
        "'Restart slurmd' restarted a daemon the converge had just started, on gpu02, gpu01",
        "'Restart slurmd' restarted a daemon the converge had just started, on gpu01, gpu02",
    ]


def test_a_converge_that_starts_each_daemon_once_passes():
    assert check_log.first_converge(_log("converge-restart-fix.log")) == []


def test_a_run_that_started_nothing_is_not_taken_for_a_first_converge(tmp_path):
    path = _spliced(tmp_path, "converge-restart-fix.log",
                    "TASK [gpufleet.cluster.slurm : Controller | Enable and start slurmctld] ********\n"
                    "changed: [head]\nchanged: [head2]",
                    "TASK [gpufleet.cluster.slurm : Controller | Enable and start slurmctld] ********\n"
                    "ok: [head]\nok: [head2]")
    assert check_log.first_converge(path) == [
        "'Controller | Enable and start slurmctld' started nothing: this was not the converge of a new cluster"]


# site.yml --check on the joining node, bare (no /dev/nvidia*, a default memlock below the inventory's), the driver's
# and pynvml's packages on (tests/e2e/join.sh).
_FRESH = "fresh-check-bare.log"


def test_the_fresh_node_check_passes_for_its_node_only():
    assert check_log.fresh_check(_log(_FRESH), "gpu03") == []
    assert check_log.fresh_check(_log(_FRESH), "gpu02") == ["no PLAY RECAP line for gpu02"]


def test_a_fresh_node_check_without_changes_or_with_a_failure_fails(tmp_path):
    recap = "gpu03                      : ok=206  changed=46"
    path = _spliced(tmp_path, _FRESH, recap, recap.replace("changed=46", "changed=0 "))
    assert len(check_log.fresh_check(path, "gpu03")) == 1
    path = _spliced(tmp_path, _FRESH, "failed=0 ", "failed=1 ")
    assert check_log.fresh_check(path, "gpu03")[0].startswith("gpu03: expected changes and no failure")


def test_a_fresh_node_check_that_starts_slurmd_or_makes_a_key_fails(tmp_path):
    key_task = "TASK [gpufleet.cluster.slurm : Munge | Keep the cluster's key on the primary controller, creating it once] ***\n"
    path = _spliced(tmp_path, _FRESH, key_task + "ok: [gpu03 -> head(10.123.127.10)]", key_task + "changed: [gpu03]")
    assert check_log.fresh_check(path, "gpu03") == [
        "the cluster's munge key was made anew, not slurm_munge_key nor read from the primary controller head"]
    path = _spliced(tmp_path, _FRESH, key_task + "ok: [gpu03 -> head(10.123.127.10)]", key_task + "skipping: [gpu03]")
    assert check_log.fresh_check(path, "gpu03") == []  # slurm_munge_key given: the primary is not read
    banner = "TASK [gpufleet.cluster.slurm : Compute | Enable and start slurmd] **************\nchanged: [gpu03]\n"
    path = _spliced(tmp_path, _FRESH, "PLAY RECAP", banner + "\nPLAY RECAP")
    assert check_log.fresh_check(path, "gpu03") == [
        "'Compute | Enable and start slurmd' ran on gpu03, where its unit is not installed"]


def test_a_fresh_node_check_that_does_not_say_what_it_would_install_fails(tmp_path):
    path = _spliced(tmp_path, _FRESH, "a real run installs them, then enables and starts munge, slurmd.",
                    "a real run installs them.")
    assert check_log.fresh_check(path, "gpu03")[0].startswith("the slurm role did not say: Check mode: slurmd")


def test_a_fresh_node_check_with_the_packages_off_misses_what_they_would_install():
    # 937c2e1's e2e ran the check with the lab's settings, the driver's and pynvml's packages off, on a node that was
    # not bare (issue 28): it says nothing of what check mode takes on trust either.
    problems = check_log.fresh_check(_log("fresh-check-937c2e1.log"), "gpu03")
    assert problems[:2] == [
        "the nvidia_driver role did not say: Check mode: gpu03 would refresh its package lists from the changed sources, "
        "then install",
        "the gpu_tuning role did not say: Check mode: apt on gpu03 has no candidate yet for python3-pynvml (Debian ships "
        "it in contrib (it depends on libnvidia-ml1 from non-free)). A real run would refresh the package lists once the "
        "gpufleet.cluster.nvidia_driver role has added that component, and install it"]
    assert len(problems) == 4 and problems[2].startswith(_RDMA_SAID) and problems[3].startswith(_SLURM_SAID)


# Issue 28: the lab's joining node was not bare (stand-in /dev/nvidia* from its creation, the inventory's memlock
# already), so neither preflight had anything to take from the roles before it, and nothing said so.
_RDMA_SAID = "the rdma role did not say what it takes from the roles before it on the bare gpu03: no match for "
_SLURM_SAID = "the slurm role did not say what it takes from the roles before it on the bare gpu03: no match for "


def test_a_fresh_node_check_on_a_node_that_is_not_bare_fails():
    problems = check_log.fresh_check(_log("fresh-check-packages-on.log"), "gpu03")
    assert [p[:len(_RDMA_SAID)] for p in problems] == [_RDMA_SAID, _SLURM_SAID[:len(_RDMA_SAID)]]
    assert problems[1].startswith(_SLURM_SAID)


def test_a_fresh_node_check_that_does_not_say_what_check_mode_took_on_trust_fails(tmp_path):
    path = _spliced(tmp_path, _FRESH, "Check mode: the common role would write memlock 8192 on gpu03",
                    "Check mode: the common role writes memlock 8192 on gpu03")
    assert [p[:len(_RDMA_SAID)] for p in check_log.fresh_check(path, "gpu03")] == [_RDMA_SAID]
    path = _spliced(tmp_path, _FRESH, "and /dev/nvidia0-7 appear once its kernel module loads.",
                    "and /dev/nvidia0-7 appear.")
    problems = check_log.fresh_check(path, "gpu03")
    assert len(problems) == 1 and problems[0].startswith(_SLURM_SAID)
