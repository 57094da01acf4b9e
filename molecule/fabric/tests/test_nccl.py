# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the nccl role leaves on a lab GPU node: the reference H100 topology file and /etc/nccl.conf, read the
way NCCL reads them, with the RoCE settings roce_host wrote merged in; no NCCL packages (installation is off)."""
import os
import sys
import tarfile
import xml.etree.ElementTree as ET

from check_run import REPO, run_check

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))), "tests", "molecule"))
from lab_host import hosts  # noqa: E402  (shared by the scenarios)

testinfra_hosts = hosts("gpu_nodes")  # over SSH (tests/molecule/lab_host.py)

CONF = "/etc/nccl.conf"
TOPO = "/etc/nccl/topo.xml"
ROCE = "/etc/gpufleet/nccl-roce.conf"
ROCE_KEYS = ("NCCL_IB_TC", "NCCL_IB_GID_INDEX", "NCCL_IB_HCA")


def _nccl_reads(text):
    """NCCL's setEnvFile: a line is split at its first '=', nothing stripped; no '=' and it is skipped; the
    first line of a key wins."""
    env = {}
    for line in text.split("\n"):
        if "=" in line:
            key, value = line.split("=", 1)
            env.setdefault(key, value)
    return env


def _roce_file(host):
    """The RoCE settings roce_host wrote: KEY=VALUE lines, '#' comments."""
    if not host.file(ROCE).exists:
        return {}
    lines = host.file(ROCE).content_string.splitlines()
    pairs = [line.split("=", 1) for line in lines if line.strip() and not line.lstrip().startswith("#")]
    return {key: value.strip() for key, value in pairs}


def test_nccl_conf_mode_owner(host):
    conf = host.file(CONF)
    assert conf.is_file and conf.user == "root" and conf.group == "root" and conf.mode == 0o644


def test_nccl_conf_lines_are_settings_or_comments_nccl_skips(host):
    for line in host.file(CONF).content_string.splitlines():
        # A comment NCCL would read as a setting would hold '='; a setting has no white space around its key.
        assert (line.startswith("#") and "=" not in line) or (line.startswith("NCCL_") and " =" not in line), line


def test_nccl_conf_settings(host):
    env = _nccl_reads(host.file(CONF).content_string)
    # The scenario's own: the topology file, the container's interface, and nccl_env_extra's two keys.
    assert env["NCCL_TOPO_FILE"] == TOPO
    assert env["NCCL_SOCKET_IFNAME"] == "=eth0"
    assert env["NCCL_IB_TIMEOUT"] == "22" and env["NCCL_DEBUG"] == "WARN"
    assert host.interface("eth0").exists


def test_nccl_conf_has_roce_settings_as_roce_host_wrote_them(host):
    roce = _roce_file(host)
    env = _nccl_reads(host.file(CONF).content_string)
    # The scenario requires the file (nccl_roce_conf_required), so it is there, with at least the GID index.
    assert "NCCL_IB_GID_INDEX" in roce
    for key in ROCE_KEYS:
        assert env.get(key) == roce.get(key), key
    # Nothing but the role's five keys and roce_host's.
    assert set(env) == {"NCCL_TOPO_FILE", "NCCL_SOCKET_IFNAME", "NCCL_IB_TIMEOUT", "NCCL_DEBUG"} | set(roce)


def test_topology_file_mode_owner(host):
    topo = host.file(TOPO)
    assert topo.is_file and topo.user == "root" and topo.group == "root" and topo.mode == 0o644
    directory = host.file(os.path.dirname(TOPO))
    assert directory.is_directory and directory.mode == 0o755


def test_topology_is_the_reference_h100_layout(host):
    root = ET.fromstring(host.file(TOPO).content_string)
    assert root.tag == "system" and root.get("version") == "1"
    cpus = root.findall("cpu")
    # 2 NUMA nodes, CPUs 0-51 and 52-103 (docs/nccl-topology.md works the cpumaps out).
    assert [(c.get("numaid"), c.get("affinity")) for c in cpus] == [
        ("0", "00000000,00000000,000fffff,ffffffff"), ("1", "000000ff,ffffffff,fff00000,00000000")]
    pcis = root.findall(".//pci")
    gpus = [p for p in pcis if p.get("class") == "0x030200"]
    hcas = [p for p in pcis if p.get("class") == "0x020700"]
    bridges = [p for p in pcis if p.get("class") == "0x060400"]
    assert [g.get("busid") for g in gpus] == [
        "0000:53:00.0", "0000:64:00.0", "0000:75:00.0", "0000:86:00.0",
        "0000:97:00.0", "0000:a8:00.0", "0000:b9:00.0", "0000:ca:00.0"]
    assert len(hcas) == 8 and len(bridges) == 4 and len(pcis) == 20
    nets = root.findall(".//nic/net")
    assert [(n.get("name"), n.get("dev")) for n in nets] == [("mlx5_%d" % i, str(i)) for i in range(8)]
    # HDR: 200 Gb/s from the reference design's gpufleet_fabric.rate_gbps, in Mbit/s.
    assert {n.get("speed") for n in nets} == {"200000"}
    # Each switch holds 2 GPUs and 2 HCAs; GPUs and switches gen5 (32 GT/s), the ConnectX-6 HCAs gen4.
    for bridge in bridges:
        classes = sorted(child.get("class") for child in bridge.findall("pci"))
        assert classes == ["0x020700", "0x020700", "0x030200", "0x030200"]
    assert {g.get("link_speed") for g in gpus} == {"32.0 GT/s PCIe"}
    assert {h.get("link_speed") for h in hcas} == {"16.0 GT/s PCIe"}


def test_no_nccl_packages_installed(host):
    # nccl_install_packages is false in the lab (no NVIDIA repository), and nothing was built.
    for name in ("libnccl2", "libnccl-dev"):
        assert not host.package(name).is_installed
    assert not host.file("/opt/nccl-tests").exists


# That a refusal leaves nothing behind is checked in nccl_refusals.yml itself, right before and right after each refusal
# (tasks/nccl_refusal_state.yml: checksums, modes and mtimes of what the role writes, and its packages): read here, after
# the main play has rewritten /etc/nccl.conf, the file could not show what a refusal did.


_STANDIN_CUDA = "/tmp/check-standin-cuda"
_BUILD_PLAY = """\
- name: nccl-tests built from source, in check mode, on a node where it has not been built
  hosts: gpu_nodes
  gather_facts: false
  vars_files:
    - {repo}/inventories/h100-64/group_vars/all/hardware.yml
    - {repo}/inventories/h100-64/group_vars/all/plan.yml
  roles:
    - role: gpufleet.cluster.nccl
      vars:
        gpufleet_fabric: {{kind: roce, rate_gbps: 200}}  # roce_host.yml made this node a RoCE node
        nccl_topology_source: none
        nccl_tests: build
        nccl_tests_source: {archive}
        nccl_cuda_home: {cuda}
        nccl_tests_dir: /opt/check-nccl-tests
"""


def test_build_in_check_mode_says_it_would_build_and_writes_nothing(host, tmp_path):
    """A build of nccl-tests in check mode: nothing fetched, so nothing to unpack or compile; the role says it
    would fetch and build, as a change. nvcc and nccl.h are stand-ins, there only for preflight to find."""
    archive = tmp_path / "nccl-tests-2.17.6.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        readme = tmp_path / "README"
        readme.write_text("stand-in source tree\n", encoding="utf-8")
        tar.add(readme, arcname="nccl-tests-2.17.6/README")
    header_was_there = host.file("/usr/include/nccl.h").exists
    host.check_output(f"mkdir -p {_STANDIN_CUDA}/bin && printf '#!/bin/sh\\nexit 1\\n' > {_STANDIN_CUDA}/bin/nvcc "
                      f"&& chmod 0755 {_STANDIN_CUDA}/bin/nvcc")
    if not header_was_there:
        host.check_output("touch /usr/include/nccl.h")
    try:
        out = run_check(_BUILD_PLAY.format(repo=REPO, archive=archive, cuda=_STANDIN_CUDA), tmp_path).stdout
    finally:
        host.run(f"rm -rf {_STANDIN_CUDA}" + ("" if header_was_there else " /usr/include/nccl.h"))
    assert f"a real run would fetch {archive}, build nccl-tests into /opt/check-nccl-tests/bin" in out, out[-3000:]
    assert not host.file("/opt/check-nccl-tests").exists


_PACKAGES_PLAY = """\
- name: NCCL's packages in check mode, on a node without NVIDIA's repository (as on a node never converged)
  hosts: gpu_nodes
  gather_facts: false
  vars_files:
    - {repo}/inventories/h100-64/group_vars/all/hardware.yml
    - {repo}/inventories/h100-64/group_vars/all/plan.yml
  roles:
    - role: gpufleet.cluster.nccl
      vars:
        gpufleet_fabric: {{kind: roce, rate_gbps: 200}}  # roce_host.yml made this node a RoCE node
        nccl_topology_source: none
        nccl_install_packages: true
"""


def test_packages_in_check_mode_say_what_would_be_added_and_installed(host, tmp_path):
    """--check with the packages on where NVIDIA's repository is not configured (the nvidia_driver role only
    pretends to add it in check mode on a fresh node): apt has no candidate for libnccl2, and the run says it
    would add the repository and install libnccl2 and libnccl-dev, as a change, instead of failing in preflight."""
    assert not host.file("/etc/apt/sources.list.d/gpufleet-nvidia-cuda.sources").exists
    run = run_check(_PACKAGES_PLAY.format(repo=REPO), tmp_path)
    out = " ".join(run.stdout.split())
    assert "has no candidate yet for libnccl2, libnccl-dev" in out, out[-3000:]
    assert ("A real run would add the repository /etc/apt/sources.list.d/gpufleet-nvidia-cuda.sources (the "
            "nvidia_driver role, before this one), refresh the package lists and install libnccl2, libnccl-dev") in out
    assert not host.package("libnccl2").is_installed
