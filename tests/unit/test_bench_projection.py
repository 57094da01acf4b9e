# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""bench/projection.py: a fleet's converge projected from a measured run, and the callback that measures it."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(_ROOT, "bench"))
import projection  # noqa: E402  pylint: disable=wrong-import-position

RUN = {"main_cpu_s": 10.0, "workers_cpu_s": 80.0, "wall_s": 200.0, "evaluations": {"gpu01": 600, "head": 400}}


def test_per_evaluation_divides_by_every_host_evaluation():
    assert projection.per_evaluation(RUN) == {"main": 0.01, "worker": 0.08}


def test_project_deals_nodes_over_slices_and_bounds_the_wall_time():
    # 2,048 nodes over 8 x 2 slices: 128 hosts a slice; 600 evaluations a node.
    p = projection.project(RUN, "gpu01", 2048, 8, 16, 2)
    assert p.hosts_per_slice == 128
    assert p.main_s == pytest.approx(128 * 600 * 0.01)            # 768 s, one core
    assert p.workers_s == pytest.approx(2 * 128 * 600 * 0.08 / 14)  # two slices' workers on 14 cores
    assert p.node_s == 200.0
    assert p.lower_s == pytest.approx(max(768.0, p.workers_s, 200.0))
    assert p.upper_s == pytest.approx(max(768.0, p.workers_s) + 200.0)


def test_project_rounds_a_partial_slice_up_and_takes_given_node_seconds():
    p = projection.project(RUN, "gpu01", 17, 2, 4, 1, node_seconds=30.0)
    assert p.hosts_per_slice == 9
    assert p.node_s == 30.0


@pytest.mark.parametrize("kwargs, text", [
    ({"node": "gpu99"}, "no host gpu99"),
    ({"cores": 2}, "more than the slices"),
    ({"execution_nodes": 0}, "at least 1"),
])
def test_project_refuses_what_it_cannot_project(kwargs, text):
    args = {"node": "gpu01", "nodes": 2048, "execution_nodes": 8, "cores": 16, "slices_per_execution_node": 2}
    args.update(kwargs)
    with pytest.raises(ValueError, match=text):
        projection.project(RUN, **args)


def test_main_says_what_is_wrong_without_a_traceback(tmp_path, capsys):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(dict(RUN, evaluations={"head": 1})), encoding="utf-8")
    assert projection.main([str(path), "--node", "gpu01"]) == 2
    assert "no host gpu01" in capsys.readouterr().err


def test_the_callback_counts_each_host_task_once_and_writes_the_cpu(tmp_path):
    playbook = tmp_path / "play.yml"
    playbook.write_text(
        "- hosts: all\n  gather_facts: false\n  tasks:\n"
        "    - ansible.builtin.set_fact: {x: 1}\n"
        "    - ansible.builtin.set_fact: {y: '{{ item }}'}\n      loop: [1, 2, 3]\n"
        "    - ansible.builtin.debug: {msg: never}\n      when: false\n", encoding="utf-8")
    out = tmp_path / "cpu.json"
    env = dict(os.environ, ANSIBLE_CALLBACK_PLUGINS=os.path.join(_ROOT, "bench", "callback_plugins"),
               ANSIBLE_CALLBACKS_ENABLED="run_cpu", GPUFLEET_RUN_CPU=str(out),
               ANSIBLE_CONFIG=str(tmp_path / "ansible.cfg"))
    (tmp_path / "ansible.cfg").write_text("[defaults]\n", encoding="utf-8")
    subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i", "a,b,", "-c", "local",
                    str(playbook)], check=True, env=env, capture_output=True, cwd=tmp_path)
    run = json.loads(out.read_text(encoding="utf-8"))
    assert run["evaluations"] == {"a": 3, "b": 3}  # ok, a loop once, skipped
    assert run["main_cpu_s"] > 0 and run["workers_cpu_s"] > 0 and run["wall_s"] > 0
