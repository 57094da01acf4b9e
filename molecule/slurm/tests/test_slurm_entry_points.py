# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The slurm role's entry points, each read from its node: controller, accounting, compute, login."""
import os
import re
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))), "tests", "molecule"))
from lab_host import host, hosts  # noqa: E402  (shared by the scenarios)

testinfra_hosts = hosts("all")  # over SSH (tests/molecule/lab_host.py)


def _role(host):
    return host.check_output("hostname").replace("molecule-slurm-", "")


def _node(name):
    return host(f"molecule-slurm-{name}")


def test_munge_runs_with_the_cluster_key(host):
    assert host.service("munge").is_running
    # The running munged uses the cluster's key: a credential made here decodes on the head node.
    cred = host.check_output("munge -n")
    assert _node("head").run(f"echo '{cred}' | unmunge").rc == 0
    key = host.file("/etc/munge/munge.key")
    assert key.user == "munge" and key.mode == 0o400 and key.size == 1024
    head_key = _node("head").check_output("sha256sum /etc/munge/munge.key").split()[0]
    assert host.check_output("sha256sum /etc/munge/munge.key").split()[0] == head_key


def test_same_slurm_conf_everywhere(host):
    text = host.file("/etc/slurm/slurm.conf").content_string
    assert text.startswith("#") and "ClusterName=molecule" in text
    assert "SlurmctldHost=molecule-slurm-head(" in text and "Include /etc/slurm/nodes.conf" in text
    assert "PriorityWeightFairshare=10000" in text and "PreemptType=preempt/qos" in text
    assert host.check_output("sha256sum /etc/slurm/slurm.conf").split()[0] == \
        _node("head").check_output("sha256sum /etc/slurm/slurm.conf").split()[0]
    nodes = host.file("/etc/slurm/nodes.conf").content_string
    assert "NodeName=molecule-slurm-gpu01 CPUs=2 Sockets=1 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=1024 " \
           "Gres=gpu:h100:8" in nodes
    assert "PartitionName=gpu Nodes=molecule-slurm-gpu01 Default=YES" in nodes


def test_controller(host):
    if _role(host) != "head":
        pytest.skip("the controller entry point lives on head")
    assert host.service("slurmctld").is_running and host.service("slurmctld").is_enabled
    for package in ("slurmdbd", "mariadb-server", "slurmd"):
        assert not host.package(package).is_installed
    state = host.file("/var/lib/slurm/slurmctld")
    assert state.is_directory and state.user == "slurm" and state.mode == 0o750
    assert "AccountingStorageHost=molecule-slurm-dbd\n" in host.file("/etc/slurm/slurm.conf").content_string
    assert not host.file("/etc/slurm/slurmdbd.conf").exists
    # slurmctld registered with the slurmdbd on the other host: accounting answers from here, over the network.
    assert host.check_output("sacctmgr --noheader --parsable2 list cluster format=cluster,controlhost") == \
        "molecule|" + host.interface.default().addresses[0]
    assert host.socket("tcp://0.0.0.0:6817").is_listening
    limits = host.file("/etc/systemd/system/slurmctld.service.d/gpufleet-limits.conf").content_string
    assert "LimitNOFILE=20000" in limits and "containers cannot raise" in limits


def test_accounting(host):
    if _role(host) != "dbd":
        pytest.skip("the accounting entry point lives on dbd")
    for service in ("slurmdbd", "mariadb"):
        assert host.service(service).is_running and host.service(service).is_enabled
    for package in ("slurmctld", "slurmd"):
        assert not host.package(package).is_installed
    dbd = host.file("/etc/slurm/slurmdbd.conf")
    assert dbd.user == "slurm" and dbd.mode == 0o600 and "StoragePass=" in dbd.content_string
    assert "DbdHost=molecule-slurm-dbd\n" in dbd.content_string
    assert host.check_output("sacctmgr --noheader --parsable2 list cluster format=cluster") == "molecule"
    assert host.socket("tcp://0.0.0.0:6819").is_listening
    # MariaDB serves the accounting database on its socket only; slurmdbd is what the network reaches.
    assert not host.socket("tcp://0.0.0.0:3306").is_listening
    limits = host.file("/etc/systemd/system/slurmdbd.service.d/gpufleet-limits.conf").content_string
    assert "LimitNOFILE=20000" in limits


BACKUPS = {"head": ("gpufleet-slurm-state-backup", "slurmctld-state-"),
           "dbd": ("gpufleet-slurm-db-backup", "slurm_acct_db-")}


def test_backups_scheduled_and_written_root_only(host):
    """The controller archives StateSaveLocation, the accounting host dumps the database: each by a timer that is
    enabled and waiting, whose service (started here as the timer starts it) writes a 0600 root file into the 0700
    directory; the other hosts have neither."""
    role = _role(host)
    if role not in BACKUPS:
        assert not host.file("/etc/systemd/system/gpufleet-slurm-db-backup.timer").exists
        assert not host.file("/etc/systemd/system/gpufleet-slurm-state-backup.timer").exists
        return
    unit, prefix = BACKUPS[role]
    timer = host.service(unit + ".timer")
    assert timer.is_enabled and timer.is_running
    timer_file = host.file(f"/etc/systemd/system/{unit}.timer").content_string
    assert "OnCalendar=*-*-* 03:15:00\nPersistent=true\n" in timer_file
    backups = host.file("/var/backups/gpufleet-slurm")
    assert backups.is_directory and backups.user == "root" and backups.mode == 0o700
    assert host.run(f"systemctl start {unit}.service").rc == 0
    newest = host.check_output(
        f"ls -1t /var/backups/gpufleet-slurm | grep -E '^{prefix}[0-9]{{8}}T[0-9]{{6}}Z[.]' | head -1")
    written = host.file(f"/var/backups/gpufleet-slurm/{newest}")
    assert newest and written.user == "root" and written.mode == 0o600 and written.size > 0


def test_compute(host):
    if _role(host) != "gpu01":
        pytest.skip("compute entry point lives on gpu01")
    assert host.service("slurmd").is_running and host.service("slurmd").is_enabled
    assert "NodeName=molecule-slurm-gpu01 Name=gpu Type=h100 File=/dev/nvidia[0-7]" in \
        host.file("/etc/slurm/gres.conf").content_string
    cgroup = host.file("/etc/slurm/cgroup.conf").content_string
    assert "ConstrainDevices=YES" in cgroup and "CgroupPlugin=autodetect" in cgroup
    assert host.run("slurmd -G -f /etc/slurm/slurm.conf -N molecule-slurm-gpu01").rc == 0
    assert not host.package("slurmctld").is_installed and not host.package("mariadb-server").is_installed


def test_login_has_only_the_clients(host):
    if _role(host) != "login01":
        pytest.skip("login entry point lives on login01")
    assert host.package("slurm-client").is_installed
    for package in ("slurmd", "slurmctld", "slurmdbd"):
        assert not host.package(package).is_installed
    # The login node reaches the controller, which knows the one compute node, and that node is in service.
    states = {}
    for _attempt in range(30):
        out = host.check_output("sinfo --noheader --Node --format '%N %t'")
        states = dict(line.split() for line in out.splitlines())
        if states == {"molecule-slurm-gpu01": "idle"}:
            break
        time.sleep(1)
    assert states == {"molecule-slurm-gpu01": "idle"}


def test_login_installed_from_the_sites_mirror(host):
    if _role(host) != "login01":
        pytest.skip("the repository install path is taken on login01")
    source = host.file("/etc/apt/sources.list.d/site-slurm-mirror.sources").content_string
    assert "URIs: file:/srv/slurm-mirror" in source and "Suites: ./" in source
    # The mirror's key, listed by gpg and found to be the pinned one, copied where the source names it.
    assert "Signed-By: /etc/apt/keyrings/site-slurm-mirror.gpg" in source and "Components" not in source
    assert host.file("/etc/apt/keyrings/site-slurm-mirror.gpg").content == host.file("/srv/slurm-mirror/mirror-key.gpg").content
    # apt trusts the signed mirror and offers the installed client from it.
    policy = host.check_output("apt-cache policy slurm-client")
    installed = policy.split("Installed: ")[1].split()[0]
    assert installed.startswith("22.05.")
    # The sources offering the installed version: the indented lines under " *** <version> <priority>".
    offered = re.search(r"\*\*\* " + re.escape(installed) + r" \d+\n((?: {8}.*\n?)+)", policy).group(1)
    assert "file:/srv/slurm-mirror ./ Packages" in offered
