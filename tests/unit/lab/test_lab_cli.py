# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""lab/lab.py and tests/e2e/summarise.py: the parts that need no podman."""
import importlib.util
import os
import sys

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, path))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


lab = _load("gpufleet_lab", "lab/lab.py")
summarise = _load("gpufleet_summarise", "tests/e2e/summarise.py")


def test_apt_sources_read_deb822_and_one_line(tmp_path, monkeypatch):
    d = tmp_path / "sources.list.d"
    d.mkdir()
    (d / "debian.sources").write_text(
        "Types: deb\n# a comment\nURIs: http://mirror.invalid/debian\nSuites: bookworm bookworm-updates\n"
        "Components: main\n\nTypes: deb\nURIs: http://mirror.invalid/debian-security\nSuites: bookworm-security\n"
        "Components: main\n\nTypes: deb\nURIs: http://off.invalid\nSuites: noble\nEnabled: no\n")
    (d / "extra.list").write_text("deb [arch=amd64] http://ubuntu.invalid/ubuntu noble main  # trailing\n")
    real_glob = lab.glob.glob
    monkeypatch.setattr(lab.glob, "glob", lambda pattern: real_glob(pattern.replace("/etc/apt/sources.list.d", str(d))))
    sources = lab.apt_sources()
    assert {"uris": ["http://mirror.invalid/debian"], "suites": ["bookworm", "bookworm-updates"]} in sources
    assert {"uris": ["http://ubuntu.invalid/ubuntu"], "suites": ["noble"]} in sources
    assert all(s["uris"] != ["http://off.invalid"] for s in sources)  # Enabled: no
    monkeypatch.delenv("LAB_UBUNTU_MIRROR", raising=False)
    assert lab.mirror_for("noble", "LAB_UBUNTU_MIRROR") == "http://ubuntu.invalid/ubuntu"
    monkeypatch.setenv("LAB_UBUNTU_MIRROR", "http://override.invalid/ubuntu/")
    assert lab.mirror_for("noble", "LAB_UBUNTU_MIRROR") == "http://override.invalid/ubuntu"


def test_plan_nodes_and_addresses():
    nodes = lab.plan_nodes("gpufleet-lab", computes=16, logins=1)
    names = [n.hostname for n in nodes]
    assert names[:2] == ["head", "login01"] and names[-1] == "gpu16" and len(names) == 18
    ips = [n.ip for n in nodes]
    assert len(set(ips)) == len(ips)
    net = ips[0].rsplit(".", 1)[0]
    assert all(ip.startswith(net + ".") for ip in ips)
    assert nodes[0].groups == ["slurm_controller", "slurm_dbd"]
    # Labs of different names get different /24s, stable across runs, never podman's 10.123.0.0/24.
    assert lab.lab_subnet("gpufleet-lab") != lab.lab_subnet("gpufleet-e2e")
    assert lab.lab_subnet("gpufleet-lab") == lab.lab_subnet("gpufleet-lab")
    assert 1 <= lab.lab_subnet("x") <= 250


def test_inventory_describes_groups(tmp_path):
    nodes = lab.plan_nodes("t", computes=3, logins=1)
    path = lab.write_inventory("t", nodes, "/key", str(tmp_path / "inv"))
    inv = yaml.safe_load(open(path, encoding="utf-8"))
    groups = inv["all"]["children"]["cluster"]["children"]
    assert list(groups["gpu_nodes"]["hosts"]) == ["gpu01", "gpu02", "gpu03"]
    assert groups["gpu_nodes"]["hosts"]["gpu02"]["gpufleet_ip"] == nodes[-2].ip
    assert list(groups["slurm_controller"]["hosts"]) == ["head"]
    assert set(inv["all"]["children"]["lustre_clients"]["children"]) == {"gpu_nodes", "login_nodes"}
    # A second lab gets the same committed lab description.
    assert (tmp_path / "inv" / "group_vars" / "all" / "lab.yml").exists()


def test_a_second_up_keeps_the_labs_secrets(tmp_path):
    """Growing a lab (`up --computes 3` after 2) must not rotate the database password under slurmdbd."""
    secrets_path = tmp_path / "inv" / "group_vars" / "all" / "lab_secrets.yml"
    lab.write_inventory("t", lab.plan_nodes("t", computes=2, logins=1), "/key", str(tmp_path / "inv"))
    first = secrets_path.read_text()
    assert oct(secrets_path.stat().st_mode & 0o777) == "0o600"
    lab.write_inventory("t", lab.plan_nodes("t", computes=3, logins=1), "/key", str(tmp_path / "inv"))
    assert secrets_path.read_text() == first
    assert oct(secrets_path.stat().st_mode & 0o777) == "0o600"
    assert yaml.safe_load(first)["slurm_db_password"]


def test_recipe_hash_follows_the_mirror(monkeypatch):
    debian = lab.DISTROS["debian12"]
    monkeypatch.setenv("LAB_DEBIAN_MIRROR", "http://a.invalid/debian")
    first = lab.recipe_hash(debian)
    assert first == lab.recipe_hash(debian)
    monkeypatch.setenv("LAB_DEBIAN_MIRROR", "http://b.invalid/debian")
    assert lab.recipe_hash(debian) != first


def test_computes_out_of_range_is_refused():
    with pytest.raises(SystemExit):
        lab.up("t", computes=0, logins=1, distro="debian12", inventory="/nonexistent")


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
