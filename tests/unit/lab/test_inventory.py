# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""lab/inventory.py: the hosts.yml and the secrets `up` writes for a lab."""
from __future__ import annotations

import base64

import yaml

import inventory
import nodes


def test_inventory_describes_groups(tmp_path):
    planned = nodes.plan_nodes("t", computes=3, logins=1)
    path = inventory.write_inventory("t", planned, "/key", str(tmp_path / "inv"))
    inv = yaml.safe_load(open(path, encoding="utf-8"))
    groups = inv["all"]["children"]["cluster"]["children"]
    assert list(groups["gpu_nodes"]["hosts"]) == ["gpu01", "gpu02", "gpu03"]
    assert groups["gpu_nodes"]["hosts"]["gpu02"]["gpufleet_ip"] == planned[-2].ip
    assert list(groups["slurm_controller"]["hosts"]) == ["head"]
    assert set(inv["all"]["children"]["lustre_clients"]["children"]) == {"gpu_nodes", "login_nodes"}
    # A second lab gets the same committed lab description.
    assert (tmp_path / "inv" / "group_vars" / "all" / "lab.yml").exists()


def test_a_second_up_keeps_the_labs_secrets(tmp_path):
    """Growing a lab (`up --computes 3` after 2) must not rotate the database password under slurmdbd."""
    secrets_path = tmp_path / "inv" / "group_vars" / "all" / "lab_secrets.yml"
    inventory.write_inventory("t", nodes.plan_nodes("t", computes=2, logins=1), "/key", str(tmp_path / "inv"))
    first = secrets_path.read_text()
    assert oct(secrets_path.stat().st_mode & 0o777) == "0o600"
    inventory.write_inventory("t", nodes.plan_nodes("t", computes=3, logins=1), "/key", str(tmp_path / "inv"))
    assert secrets_path.read_text() == first
    assert oct(secrets_path.stat().st_mode & 0o777) == "0o600"
    assert yaml.safe_load(first)["slurm_db_password"]
    # The munge key, as a vault gives it (issue 29: a slice of the node job holds no controller to read it from).
    assert len(base64.b64decode(yaml.safe_load(first)["slurm_munge_key"], validate=True)) == 1024


def test_a_rotation_writes_the_new_munge_key_and_keeps_the_rest(tmp_path):
    secrets_path = tmp_path / "inv" / "group_vars" / "all" / "lab_secrets.yml"
    inventory.write_inventory("t", nodes.plan_nodes("t", computes=1, logins=1), "/key", str(tmp_path / "inv"))
    before = yaml.safe_load(secrets_path.read_text())
    new = inventory.new_munge_key()
    inventory.set_munge_key(str(secrets_path), new)
    after = yaml.safe_load(secrets_path.read_text())
    assert after == dict(before, slurm_munge_key=new) and new != before["slurm_munge_key"]
    assert oct(secrets_path.stat().st_mode & 0o777) == "0o600"
