# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/e2e/awx_runner.py: a playbook run as AWX runs a job, and as the slices of a sliced job."""
from __future__ import annotations

import json
import os
import subprocess
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(_ROOT, "tests", "e2e"))
import awx_runner  # noqa: E402  pylint: disable=wrong-import-position

BIN = os.path.dirname(sys.executable)


def test_meta_vars_of_a_slice_name_the_template_as_its_workflow():
    got = awx_runner.meta_vars(4302, "lab nodes", "workflow", (4300, "lab nodes", "workflow"))
    for prefix in ("awx", "tower"):
        assert got[f"{prefix}_job_id"] == 4302
        assert got[f"{prefix}_job_launch_type"] == "workflow"
        assert got[f"{prefix}_workflow_job_id"] == 4300
        assert got[f"{prefix}_workflow_job_name"] == got[f"{prefix}_job_template_name"] == "lab nodes"
        assert got[f"{prefix}_workflow_job_launch_type"] == "workflow"
    alone = awx_runner.meta_vars(1, "lab cluster")
    assert alone["awx_job_launch_type"] == "manual" and "awx_workflow_job_id" not in alone


def _job(stats, status="successful", rc=0, stdout="", hosts=None, ok_event=True):
    job = awx_runner.Job("/nonexistent", "j", "p.yml", {}, "/nonexistent.log", hosts)
    job.status, job.rc, job.stdout = status, rc, stdout
    job.events = ([{"event": "runner_on_ok"}] if ok_event else []) + (
        [{"event": "playbook_on_stats", "event_data": stats}] if stats is not None else [])
    return job


def test_problems_name_what_awx_would_show():
    assert not _job({"ok": {"gpu01": 3}, "changed": {}}).problems("", unchanged=True)
    assert _job({"ok": {"gpu01": 3}, "changed": {"gpu01": 1}}).problems("", unchanged=True) == [
        "changed {'gpu01': 1} on a run that must change nothing"]
    assert _job({"ok": {"gpu01": 3}, "changed": {"gpu01": 1}}).problems("", unchanged=False) == []
    assert _job(None).problems("", unchanged=False)[0].startswith("no playbook_on_stats event")
    failed = _job({"failures": {"gpu01": 1}}, status="failed", rc=2, stdout="refused: as one slice of a sliced job")
    assert failed.problems("as one slice", unchanged=False) == []
    assert _job({"ok": {"gpu01": 1}}).problems("as one slice", unchanged=False) == [
        "expected a refusal, the run ended successful (rc 0)", "the refusal does not say 'as one slice'"]
    # A slice that reached a host of another slice: its inventory was not the slice's.
    leaked = _job({"ok": {"gpu01": 1, "gpu02": 1, "localhost": 1}}, hosts=["gpu01"])
    assert leaked.problems("", unchanged=False) == ["ran on gpu02, outside its slice (gpu01)"]


def test_a_sliced_launch_runs_each_slice_on_its_own_hosts_concurrently(tmp_path):
    """A real sliced launch through ansible-runner (local connections): 5 hosts in 2 slices, each slice its own
    private data directory, inventory script and extravars; a first run changes files, a second changes none; the
    cost is summed over the slices."""
    project = tmp_path / "project"
    (project / "playbooks").mkdir(parents=True)
    out = tmp_path / "out"
    out.mkdir()
    (project / "ansible.cfg").write_text("[defaults]\nretry_files_enabled = false\n")
    (project / "playbooks" / "p.yml").write_text(f"""
- name: A slice
  hosts: all
  gather_facts: false
  tasks:
    - name: Check AWX's slice variables
      ansible.builtin.assert:
        that:
          - awx_workflow_job_name == awx_job_template_name == 'lab nodes'
          - awx_job_launch_type == 'workflow' and awx_workflow_job_launch_type == 'workflow'
          - groups['gpu_nodes'] | length <= 2
    - name: Write a file per host with its group's variable
      ansible.builtin.copy:
        dest: "{out}/{{{{ inventory_hostname }}}}"
        content: "{{{{ role }}}} {{{{ awx_job_id }}}}\\n"
        mode: "0600"
      when: awx_job_id | int > 0
""")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    inventory = tmp_path / "inventory"
    (inventory / "group_vars").mkdir(parents=True)
    (inventory / "group_vars" / "gpu_nodes.yml").write_text("role: gpu\n")
    (inventory / "group_vars" / "all.yml").write_text("role: other\nansible_connection: local\n"
                                                      f"ansible_python_interpreter: {sys.executable}\n")
    (inventory / "hosts.yml").write_text("all:\n  children:\n    gpu_nodes: {hosts: {gpu01: {}, gpu02: {}, gpu03: {}}}\n"
                                         "    login_nodes: {hosts: {login01: {}}}\n  hosts: {head: {}}\n")
    env = dict(os.environ, PATH=BIN + os.pathsep + os.environ.get("PATH", ""))

    def launch(*extra):
        return subprocess.run(
            [sys.executable, os.path.join(_ROOT, "tests", "e2e", "awx_runner.py"), "--inventory", str(inventory),
             "--playbook", "playbooks/p.yml", "--project", str(project), "--ident", "unit-awx-slices",
             "--log", str(tmp_path / "nodes.log"), "--slices", "2", "--template", "lab nodes",
             "--workflow", "lab converge", "--job-id", "900", "--cost", str(tmp_path / "cost.json"), *extra],
            capture_output=True, text=True, env=env, check=False, cwd=str(tmp_path))

    first = launch("--expect-unchanged")
    assert first.returncode == 1, first.stdout + first.stderr
    # Hosts by name: gpu01 gpu02 gpu03 head login01; slice 1 gets gpu01 gpu03 login01, slice 2 gpu02 head.
    assert "FAILED: unit-awx-slices-slice1: changed {'gpu01': 1, 'gpu03': 1, 'login01': 1}" in first.stdout
    assert "FAILED: unit-awx-slices-slice2: changed {'gpu02': 1, 'head': 1}" in first.stdout
    assert "2 slices, 2 at a time" in first.stdout
    assert {p.name: p.read_text() for p in out.iterdir()} == {
        "gpu01": "gpu 901\n", "gpu03": "gpu 901\n", "login01": "other 901\n", "gpu02": "gpu 902\n", "head": "other 902\n"}
    runner = os.path.join(_ROOT, ".build", "runner")
    extravars = json.load(open(os.path.join(runner, "unit-awx-slices-slice2", "env", "extravars")))
    assert extravars["awx_workflow_job_id"] == 900 and extravars["awx_job_id"] == 902
    assert (tmp_path / "nodes-slice1.log").read_text().count("PLAY RECAP") == 1
    assert (tmp_path / "nodes.log").read_text().count("PLAY RECAP") == 2

    second = launch("--expect-unchanged")
    assert second.returncode == 0, second.stdout + second.stderr
    cost = json.load(open(tmp_path / "cost.json"))
    assert sorted(cost) == ["gpu01", "gpu02", "gpu03", "head", "login01"]
    assert cost["gpu02"] == {"evaluations": 2, "module_runs": 1, "setup": 0}
