# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/e2e/awx_slices.py: the inventories of an AWX sliced job, as AWX's Inventory.get_script_data builds them."""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import pytest

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(_ROOT, "tests", "e2e"))
import awx_slices  # noqa: E402  pylint: disable=wrong-import-position

BIN = os.path.dirname(sys.executable)

# What `ansible-inventory --list --export` prints for a lab-like inventory: "all" with variables, groups with
# children only, groups with hosts and variables, an empty group, a host in no group.
EXPORT = {
    "_meta": {"hostvars": {
        "gpu01": {"ansible_host": "10.0.0.11"}, "gpu02": {"ansible_host": "10.0.0.12"},
        "gpu10": {"ansible_host": "10.0.0.20"}, "head": {"ansible_host": "10.0.0.2"},
        "login01": {"ansible_host": "10.0.0.5"}, "spare": {"note": "in no group"},
    }},
    "all": {"children": ["ungrouped", "cluster", "lustre_clients", "rdma_switches"],
            "vars": {"ansible_user": "root", "cluster_name": "lab"}},
    "ungrouped": {"hosts": ["spare"]},
    "cluster": {"children": ["slurm_controller", "login_nodes", "gpu_nodes"], "vars": {"site": "a"}},
    "slurm_controller": {"hosts": ["head"], "vars": {"role": "controller"}},
    "login_nodes": {"hosts": ["login01"]},
    "gpu_nodes": {"hosts": ["gpu10", "gpu02", "gpu01"], "vars": {"role": "gpu", "gpus": 8}},
    "lustre_clients": {"children": ["gpu_nodes", "login_nodes"]},
}
HOSTS = ["gpu01", "gpu02", "gpu10", "head", "login01", "spare"]
GROUPS = ["cluster", "gpu_nodes", "login_nodes", "lustre_clients", "rdma_switches", "slurm_controller"]


def test_hosts_are_sorted_by_name_and_dealt_round_robin():
    inventory = awx_slices.Imported(EXPORT)
    assert inventory.sliced_hosts(1, 3) == ["gpu01", "head"]
    assert inventory.sliced_hosts(2, 3) == ["gpu02", "login01"]
    assert inventory.sliced_hosts(3, 3) == ["gpu10", "spare"]
    assert inventory.sliced_hosts(1, 4) == ["gpu01", "login01"]
    assert inventory.sliced_hosts(4, 4) == ["head"]
    # Every host in exactly one slice, for every count.
    for count in range(1, 8):
        dealt = [h for k in range(1, count + 1) for h in inventory.sliced_hosts(k, count)]
        assert sorted(dealt) == HOSTS and len(dealt) == len(set(dealt))


def test_one_slice_is_the_whole_inventory_and_no_more_slices_than_hosts():
    inventory = awx_slices.Imported(EXPORT)
    assert inventory.sliced_hosts(1, 1) == HOSTS
    assert inventory.script_data() == inventory.script_data(1, 1)
    assert inventory.effective_slice_count(2) == 2
    assert inventory.effective_slice_count(50) == 6


def test_a_slice_is_exactly_what_awx_writes():
    """Slice 2 of 3 (gpu02, login01), written out in full as get_script_data returns it."""
    assert awx_slices.Imported(EXPORT).script_data(2, 3) == {
        "all": {"vars": {"ansible_user": "root", "cluster_name": "lab"}, "hosts": [], "children": GROUPS},
        "cluster": {"children": ["slurm_controller", "login_nodes", "gpu_nodes"], "vars": {"site": "a"}},
        "gpu_nodes": {"hosts": ["gpu02"], "vars": {"role": "gpu", "gpus": 8}},
        "login_nodes": {"hosts": ["login01"]},
        "lustre_clients": {"children": ["gpu_nodes", "login_nodes"]},
        # No host of its in this slice, but its variables: kept, without hosts.
        "slurm_controller": {"vars": {"role": "controller"}},
        "_meta": {"hostvars": {
            "gpu02": {"ansible_host": "10.0.0.12", "remote_host_enabled": "true", "remote_host_id": 2,
                      "remote_tower_enabled": "true", "remote_tower_id": 2},
            "login01": {"ansible_host": "10.0.0.5", "remote_host_enabled": "true", "remote_host_id": 5,
                        "remote_tower_enabled": "true", "remote_tower_id": 5},
        }},
    }


def test_hosts_in_no_group_stay_in_all_and_empty_groups_are_only_named():
    data = awx_slices.Imported(EXPORT).script_data(3, 3)
    assert data["all"]["hosts"] == ["spare"]
    assert data["gpu_nodes"]["hosts"] == ["gpu10"]
    assert "rdma_switches" not in data and "rdma_switches" in data["all"]["children"]
    assert "ungrouped" not in data and "login_nodes" not in data  # no host, no child, no variable here
    assert sorted(data["_meta"]["hostvars"]) == ["gpu10", "spare"]


def test_the_script_is_what_ansible_reads(tmp_path):
    """The file written is an executable inventory script (0700, as AWX writes it) whose output ansible reads as
    the slice: group variables reach the slice's hosts through their groups, the other slices' hosts are absent."""
    path = tmp_path / "inventory" / "hosts"
    awx_slices.write_script(awx_slices.Imported(EXPORT).script_data(1, 2), str(path))
    assert stat.S_IMODE(path.stat().st_mode) == 0o700
    out = subprocess.run([os.path.join(BIN, "ansible-inventory"), "-i", str(path), "--list"], check=True,
                         capture_output=True, text=True, env=dict(os.environ, ANSIBLE_INVENTORY_ENABLED="script")).stdout
    seen = json.loads(out)
    hostvars = seen["_meta"]["hostvars"]
    assert sorted(hostvars) == ["gpu01", "gpu10", "login01"]  # hosts 1, 3, 5 by name
    assert hostvars["gpu01"]["role"] == "gpu" and hostvars["gpu01"]["gpus"] == 8 and hostvars["gpu01"]["site"] == "a"
    assert hostvars["login01"]["cluster_name"] == "lab" and "role" not in hostvars["login01"]
    assert sorted(seen["gpu_nodes"]["hosts"]) == ["gpu01", "gpu10"]
    assert seen["login_nodes"]["hosts"] == ["login01"]
    assert seen.get("slurm_controller", {}).get("hosts", []) == []  # head is slice 2's


def test_the_export_of_a_real_inventory(tmp_path):
    """From an inventory directory (hosts.yml and group_vars/) through ansible-inventory --list --export, as AWX's
    sync reads it: the group_vars files end up on their groups, and the slices split the hosts."""
    (tmp_path / "group_vars").mkdir()
    (tmp_path / "group_vars" / "gpu_nodes.yml").write_text("gpus: 8\n")
    (tmp_path / "hosts.yml").write_text(
        "all:\n  vars: {cluster_name: lab}\n  children:\n    cluster:\n      children:\n"
        "        slurm_controller: {hosts: {head: {ansible_host: 10.0.0.2}}}\n"
        "        gpu_nodes: {hosts: {gpu01: {}, gpu02: {}, gpu03: {}}}\n")
    env = dict(os.environ, PATH=BIN + os.pathsep + os.environ.get("PATH", ""))
    inventory = awx_slices.Imported(awx_slices.export(str(tmp_path), env=env))
    assert inventory.variables == {"cluster_name": "lab"}
    assert inventory.groups["gpu_nodes"]["vars"] == {"gpus": 8}
    assert inventory.groups["cluster"]["children"] == ["slurm_controller", "gpu_nodes"]
    first, second = inventory.script_data(1, 2), inventory.script_data(2, 2)
    assert first["gpu_nodes"] == {"hosts": ["gpu01", "gpu03"], "vars": {"gpus": 8}}
    assert second["gpu_nodes"] == {"hosts": ["gpu02"], "vars": {"gpus": 8}}
    assert second["slurm_controller"] == {"hosts": ["head"]} and "slurm_controller" not in first
    assert first["_meta"]["hostvars"]["gpu01"]["remote_tower_id"] == 1


def test_the_command_writes_one_script_per_slice(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(awx_slices, "export", lambda inventory, env=None: EXPORT)
    assert awx_slices.main(["--inventory", "unused", "--count", "4", "--out", str(tmp_path)]) == 0
    assert sorted(os.listdir(tmp_path)) == ["slice1", "slice2", "slice3", "slice4"]
    assert capsys.readouterr().out.splitlines()[0] == "slice 1 of 4: gpu01,login01"
    body = (tmp_path / "slice4" / "hosts").read_text()
    assert body.startswith("#! /usr/bin/env python3\n")
    printed = subprocess.run([sys.executable, str(tmp_path / "slice4" / "hosts")], check=True, capture_output=True,
                             text=True).stdout
    assert sorted(json.loads(printed)["_meta"]["hostvars"]) == ["head"]
    with pytest.raises(SystemExit):
        awx_slices.main(["--inventory", "unused", "--count", "0", "--out", str(tmp_path)])
