# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the common role leaves on a node, read from the node itself."""
import os
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))), "tests", "molecule"))
from fresh_node import check_on_fresh_node, recap  # noqa: E402  (shared by the scenarios)
from lab_host import host, hosts  # noqa: E402

testinfra_hosts = hosts("all")  # over SSH (tests/molecule/lab_host.py)


def _is_head(host):
    return host.check_output("hostname") == "head"


def _ip(name):
    return host(name).check_output("hostname -I").split()[0]


@pytest.fixture(scope="module")
def head_ip():
    return _ip("molecule-common-head")


@pytest.fixture(scope="module")
def gpu_ip():
    return _ip("molecule-common-gpu01")


@pytest.mark.parametrize("package", ["chrony", "rsync", "numactl", "pciutils", "hwloc-nox", "ethtool", "jq"])
def test_base_packages_installed(host, package):
    assert host.package(package).is_installed


def test_chrony_running_and_enabled(host):
    service = host.service("chrony")
    assert service.is_running
    assert service.is_enabled


def test_chrony_config(host, head_ip):
    conf = host.file("/etc/chrony/chrony.conf")
    assert conf.mode == 0o644 and conf.user == "root"
    text = conf.content_string
    assert text.startswith("#")  # ansible_managed header
    assert "makestep 1.0 3" in text
    if _is_head(host):
        assert "local stratum 10 orphan" in text
        assert "allow 10.124.0.0/16" in text
        assert "server " not in text
    else:
        assert f"server {head_ip} iburst" in text
        assert "local stratum" not in text
    # Containers may not set the clock: chronyd runs with -x, said in the options file and the unit override.
    assert 'DAEMON_OPTS="-F 1 -x"' in host.file("/etc/default/chrony").content_string
    override = host.file("/etc/systemd/system/chrony.service.d/gpufleet-no-clock-control.conf")
    assert "ConditionCapability=" in override.content_string


def test_gpu_node_follows_head_clock(host, head_ip):
    if _is_head(host):
        tracking = host.check_output("chronyc -n tracking")
        assert "Stratum         : 10" in tracking
        return
    # chronyc -c sources: mode,state,address,stratum,poll,reach,...; reach is an octal register.
    deadline = time.monotonic() + 40
    while True:
        rows = [r.split(",") for r in host.check_output("chronyc -n -c sources").splitlines()]
        head = [r for r in rows if r[2] == head_ip]
        assert head, f"head {head_ip} is not a chrony source: {rows}"
        if int(head[0][5], 8) > 0 and head[0][1] in ("*", "+"):
            break
        assert time.monotonic() < deadline, f"gpu01 never synchronised with the head node: {head[0]}"
        time.sleep(2)
    assert head[0][3] == "10"  # the head serves its local stratum 10 ...
    assert "Stratum         : 11" in host.check_output("chronyc -n tracking")  # ... and gpu01 sits one below


def test_cluster_hosts_listed(host, head_ip, gpu_ip):
    hosts = host.file("/etc/hosts").content_string
    assert "127.0.0.1\tlocalhost" in hosts  # what was there stays
    block = hosts.split("# BEGIN gpufleet.cluster: cluster hosts\n")[1].split("# END gpufleet.cluster")[0]
    lines = [line.split() for line in block.strip().splitlines()]
    assert lines == [
        [gpu_ip, "molecule-common-gpu01.lab.example", "molecule-common-gpu01"],
        [head_ip, "molecule-common-head.lab.example", "molecule-common-head"],
    ]
    assert host.check_output("getent hosts molecule-common-head").split()[0] == head_ip


def test_kernel_settings_written(host):
    conf = host.file("/etc/sysctl.d/90-gpufleet.conf")
    assert conf.mode == 0o644
    values = dict(line.replace(" ", "").split("=", 1) for line in conf.content_string.splitlines()
                  if line and not line.startswith("#"))
    assert values == {
        "net.ipv4.neigh.default.gc_thresh1": "8192",
        "net.ipv4.neigh.default.gc_thresh2": "32768",
        "net.ipv4.neigh.default.gc_thresh3": "65536",
        "net.ipv6.neigh.default.gc_thresh1": "8192",
        "net.ipv6.neigh.default.gc_thresh2": "32768",
        "net.ipv6.neigh.default.gc_thresh3": "65536",
        "net.core.somaxconn": "4096",
    }


def test_login_limits(host):
    text = host.file("/etc/security/limits.d/90-gpufleet.conf").content_string
    rows = {tuple(line.split()[:3]): line.split()[3] for line in text.splitlines() if line and not line.startswith("#")}
    for who in ("*", "root"):
        assert rows[(who, "hard", "memlock")] == "8192"
        assert rows[(who, "soft", "nofile")] == "20000"
    # A real login session (pam_limits through runuser -l) gets them.
    assert host.check_output("runuser -l root -c 'ulimit -Sn'") == "20000"
    assert host.check_output("runuser -l root -c 'ulimit -Hl'") == "8192"


def test_systemd_default_limits(host):
    assert host.check_output("systemctl show --property DefaultLimitNOFILE --value") == "20000"
    assert host.check_output("systemctl show --property DefaultLimitMEMLOCK --value") == str(8192 * 1024)


_FRESH_PLAY = """
- name: The scenario's nodes' addresses (their facts), which /etc/hosts and chrony take
  hosts: all:!fresh
  gather_facts: true
  gather_subset: [min, network]

- name: The common role in check mode on a node never converged
  hosts: fresh
  gather_facts: true
  gather_subset: [min, network]
  roles:
    - role: gpufleet.cluster.common
"""


def test_check_mode_on_a_fresh_node_reports_changes_and_does_not_fail(tmp_path):
    """--check on a node nothing has converged (a GPU node of this scenario): the run must not fail, and must
    report the changes a real run would make (packages, files, services)."""
    run = check_on_fresh_node(_FRESH_PLAY, ["cluster", "gpu_nodes"], tmp_path,
                              also=["molecule-common-head", "molecule-common-gpu01"])
    results = recap(run)
    (fresh,) = [name for name in results if name.startswith("molecule-fresh-")]
    assert results[fresh]["failed"] == 0 and results[fresh]["changed"] > 0, run.stdout[-3000:]
