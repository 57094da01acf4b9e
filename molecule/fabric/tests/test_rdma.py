# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the rdma role leaves on a lab GPU node: the inbox stack installed for real, its tools run, and the
configuration files (modules-load, IPoIB for systemd-networkd, opensm) as the scenario's settings say."""
import configparser
import os
import sys
import re

from check_run import run_check

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))), "tests", "molecule"))
from lab_host import hosts  # noqa: E402  (shared by the scenarios)

testinfra_hosts = hosts("gpu_nodes")  # over SSH (tests/molecule/lab_host.py)

INBOX = ["rdma-core", "ibverbs-providers", "ibverbs-utils", "infiniband-diags", "perftest", "rdmacm-utils", "opensm"]
NETWORK_DIR = "/etc/systemd/network"


def _ini(host, path):
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # networkd keys are case-sensitive
    parser.read_string(host.file(path).content_string)
    return parser


def test_rdma_inbox_packages_installed_from_debian(host):
    out = host.check_output("dpkg-query --show --showformat='${Package} ${db:Status-Status} ${Version}\\n' "
                            + " ".join(INBOX))
    versions = {name: version for name, status, version in (line.split() for line in out.splitlines())
                if status == "installed"}
    assert sorted(versions) == sorted(INBOX)
    # Debian 12's rdma-core source builds all four of these at one version; none is a vendor (mlnx) build.
    assert {versions[p] for p in ("rdma-core", "ibverbs-providers", "ibverbs-utils", "infiniband-diags")} == {"44.0-2"}
    assert versions["perftest"].startswith("4.5+0.17")
    assert versions["opensm"].startswith("3.3.23")
    assert not any("mlnx" in v for v in versions.values())


def test_rdma_no_vendor_repository(host):
    for name in ("gpufleet-doca", "gpufleet-mlnx-ofed"):
        assert not host.file(f"/etc/apt/sources.list.d/{name}.sources").exists


def test_rdma_ibstat_lists_no_ca(host):
    result = host.run("ibstat -l")
    assert result.rc == 0 and result.stdout.strip() == ""
    version = host.run("ibstat -V")
    assert (version.stdout + version.stderr).strip().startswith("ibstat BUILD VERSION: 44.0")


def test_rdma_ibv_devices_runs_and_finds_no_verbs(host):
    # libibverbs is there and runs; the lab kernel has no RDMA core, so it cannot list devices (ENOSYS). On a node
    # with the modules loaded and no HCA it prints only its header and exits 0.
    result = host.run("ibv_devices")
    assert result.rc == 1
    assert "Failed to get IB devices list: Function not implemented" in result.stderr


def test_rdma_perftest_present(host):
    result = host.run("ib_write_bw --help")
    assert "Usage:" in result.stdout and "ib_write_bw <host>" in result.stdout
    assert host.run("ib_write_bw --version").stdout.strip() == "Version: 6.06"


def test_rdma_iproute2_rdma_tool_runs(host):
    assert host.run("rdma -V").stdout.strip() == "rdma utility, iproute2-6.1.0"
    result = host.run("rdma link show")
    # No RDMA netlink in the lab kernel: the tool says so instead of listing links.
    assert result.rc == 1 and "Failed to open NETLINK_RDMA socket" in result.stderr


def test_rdma_modules_load_file(host):
    f = host.file("/etc/modules-load.d/gpufleet-rdma.conf")
    assert f.user == "root" and f.group == "root" and f.mode == 0o644
    lines = [line for line in f.content_string.splitlines() if line and not line.startswith("#")]
    assert lines == ["ib_umad", "ib_ipoib", "rdma_ucm"]


def test_rdma_ipoib_network_files(host):
    names = sorted(host.run(f"ls {NETWORK_DIR}").stdout.split())
    assert [n for n in names if n.startswith("60-gpufleet-rdma-")] == [
        "60-gpufleet-rdma-ib0.8002.netdev", "60-gpufleet-rdma-ib0.8002.network", "60-gpufleet-rdma-ib0.network"]
    ib0 = _ini(host, f"{NETWORK_DIR}/60-gpufleet-rdma-ib0.network")
    assert ib0["Match"]["Name"] == "ib0"
    assert ib0["Link"]["MTUBytes"] == "2044"  # datagram default: 2048-byte IB MTU - 4-byte IPoIB header
    assert ib0["Network"]["Address"] == "10.10.0.11/16"
    assert ib0["Network"]["IPoIB"] == "ib0.8002"  # the partition child is created from the parent
    assert ib0["IPoIB"]["Mode"] == "datagram"
    child = _ini(host, f"{NETWORK_DIR}/60-gpufleet-rdma-ib0.8002.network")
    assert child["Match"]["Name"] == "ib0.8002" and child["Network"]["Address"] == "10.20.0.11/16"
    assert child["Link"]["MTUBytes"] == "65520" and child["IPoIB"]["Mode"] == "connected"
    netdev = _ini(host, f"{NETWORK_DIR}/60-gpufleet-rdma-ib0.8002.netdev")
    # pkey 0x0002 with the full-member bit: 0x0002 | 0x8000 = 0x8002
    assert dict(netdev["NetDev"]) == {"Name": "ib0.8002", "Kind": "ipoib", "MTUBytes": "65520"}
    assert dict(netdev["IPoIB"]) == {"PartitionKey": "0x8002", "Mode": "connected"}
    assert host.file(f"{NETWORK_DIR}/60-gpufleet-rdma-ib0.network").mode == 0o644


def test_rdma_opensm_config(host):
    f = host.file("/etc/opensm/opensm.conf")
    assert f.user == "root" and f.mode == 0o644
    options = dict(line.split(None, 1) for line in f.content_string.splitlines()
                   if line.strip() and not line.startswith("#"))
    assert options == {"sm_priority": "14", "guid": "0x946dae0300cde72c"}
    ports = [line for line in host.file("/etc/default/opensm").content_string.splitlines() if line.startswith("PORTS=")]
    assert ports == ['PORTS="0x946dae0300cde72c"']


def test_rdma_opensm_enabled_not_started(host):
    # Enabled for boot; not started (rdma_opensm_start: false): no HCA, and the unit's condition
    # (/sys/class/infiniband_mad/abi_version) would skip it anyway.
    assert host.service("opensm").is_enabled
    assert host.run("systemctl is-active opensm.service").stdout.strip() == "inactive"
    assert not host.file("/sys/class/infiniband_mad/abi_version").exists


# A real key stands in for the vendor's (NVIDIA's CUDA key, shipped with nvidia_driver): check mode lists it with gpg
# and compares it with the pinned fingerprint, as a real run does, and writes nothing.
_STAND_IN_KEY = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))),
                             "roles", "nvidia_driver", "files", "cuda-archive-keyring-3bf863cc.asc")
_CHECK_PLAY = """\
- name: A DOCA-OFED stack in check mode, its repository not configured yet
  hosts: gpu_nodes
  gather_facts: false
  roles:
    - role: gpufleet.cluster.rdma
      vars:
        rdma_stack: doca
        rdma_allow_stack_switch: true
        rdma_doca_version: "3.2.1"
        rdma_doca_repository_base: https://doca-mirror.invalid/doca
        rdma_repository_key: "{{ lookup('ansible.builtin.file', '%s') }}"
        rdma_repository_key_fingerprints: ["EB693B3035CD5710E231E123A4B469963BF863CC"]
""" % _STAND_IN_KEY


def test_vendor_stack_check_mode_predicts_and_writes_nothing(host, tmp_path):
    """Check mode on a node without the vendor's repository: apt cannot be asked about it and deb822_repository
    cannot run without python3-debian, so the role says what a real run would add and install, as a change."""
    out = run_check(_CHECK_PLAY, tmp_path).stdout
    assert re.search(r"a real run would (install python3-debian, )?add the repository gpufleet-doca "
                     r"\(https://doca-mirror\.invalid/doca/3\.2\.1/", out), out[-3000:]
    assert re.search(r"changed: \[molecule-fabric-gpu01\]", out)
    # Nothing was written: no vendor source, no key, and the inbox stack is still the one installed.
    assert not host.file("/etc/apt/sources.list.d/gpufleet-doca.sources").exists
    assert not host.file("/etc/apt/keyrings/gpufleet-doca.asc").exists
    assert host.package("rdma-core").is_installed and not host.package("doca-ofed").is_installed
