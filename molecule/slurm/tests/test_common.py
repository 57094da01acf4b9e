# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the common role leaves on each node of the slurm scenario (it runs first there, as in site.yml), read from the
node itself: packages, time (head serves it, the others follow), /etc/hosts, kernel settings and limits."""
import os
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))), "tests", "molecule"))
from lab_host import host, hosts  # noqa: E402

testinfra_hosts = hosts("all")  # over SSH (tests/molecule/lab_host.py)


NODES = ["molecule-slurm-dbd", "molecule-slurm-gpu01", "molecule-slurm-head", "molecule-slurm-login01"]


def _is_head(host):
    return host.check_output("hostname") == "molecule-slurm-head"


def _ip(name):
    return host(name).check_output("hostname -I").split()[0]


@pytest.fixture(scope="module")
def head_ip():
    return _ip("molecule-slurm-head")


@pytest.fixture(scope="module")
def node_ips():
    return {name: _ip(name) for name in NODES}


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
        assert time.monotonic() < deadline, f"{host.check_output('hostname')} never synchronised with the head node: {head[0]}"
        time.sleep(2)
    assert head[0][3] == "10"  # the head serves its local stratum 10 ...
    assert "Stratum         : 11" in host.check_output("chronyc -n tracking")  # ... and the node sits one below


def test_cluster_hosts_listed(host, head_ip, node_ips):
    hosts = host.file("/etc/hosts").content_string
    assert "127.0.0.1\tlocalhost" in hosts  # what was there stays
    block = hosts.split("# BEGIN gpufleet.cluster: cluster hosts\n")[1].split("# END gpufleet.cluster")[0]
    lines = [line.split() for line in block.strip().splitlines()]
    assert lines == [[node_ips[name], f"{name}.lab.example", name] for name in NODES]  # sorted by name
    assert host.check_output("getent hosts molecule-slurm-head").split()[0] == head_ip


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


# Check mode on a node never converged: the e2e's site.yml --check on gpu03 before it joins runs this role there,
# and finds changes, no failure and nothing written (tests/e2e/join.sh).
