# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import os
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.topology import render_xml
from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.pci_sysfs import (
    PciSysfsError,
    build_layout,
    is_bdf,
    nccl_parent_index,
    read_cpuinfo,
    read_cpumaps,
    read_pci_devices,
    read_rdma_devices,
)

_UNIT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(os.path.dirname(__file__)))))
if _UNIT not in sys.path:
    sys.path.insert(0, _UNIT)
from fixtures.sysfs import machines  # noqa: E402
from fixtures.sysfs.builder import SysfsBuilder, write_cpuinfo  # noqa: E402
from fixtures.sysfs.nccl_reader import nccl_read  # noqa: E402


@pytest.fixture
def h100(tmp_path):
    return machines.hgx_h100(str(tmp_path))


@pytest.fixture
def edge(tmp_path):
    return machines.edge_box(str(tmp_path))


def _pcis(node):
    return node.get("pci", [])


# ---------------------------------------------------------------- NCCL's parent rule

def test_parent_rule_on_a_pex_switch():
    chain = ("pci0000:4f", "0000:4f:01.0", "0000:50:00.0", "0000:51:01.0", "0000:53:00.0")
    # GPU (index 4): skip downstream port 51:01.0, land on upstream port 50:00.0 (index 2).
    assert nccl_parent_index(chain, 4) == 2
    # Upstream port: skip root port 4f:01.0, reach 'pci0000:4f' -> CPU.
    assert nccl_parent_index(chain, 2) is None


def test_parent_rule_direct_on_root_port_and_root_complex():
    assert nccl_parent_index(("pci0000:40", "0000:40:01.1", "0000:41:00.0"), 2) is None
    assert nccl_parent_index(("pci0000:00", "0000:00:02.0"), 1) is None


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 12))
def test_parent_rule_skips_every_other_level(depth):
    # host bridge + `depth` nested functions: the element at index k hangs under k-2 while k-2 >= 1.
    chain = ("pci0000:00",) + tuple("0000:%02x:00.0" % i for i in range(1, depth + 1))
    expected = depth - 2 if depth - 2 >= 1 else None
    assert nccl_parent_index(chain, depth) == expected


def test_is_bdf():
    assert is_bdf("0000:ca:00.0") and not is_bdf("pci0000:ca") and not is_bdf("0000:ca:00")


# ---------------------------------------------------------------- raw readers

def test_read_pci_devices_resolves_the_kernel_links(h100):
    sysfs, _procfs = h100
    devices = read_pci_devices(sysfs)
    gpu = devices["0000:53:00.0"]
    assert gpu.chain == ("pci0000:4f", "0000:4f:01.0", "0000:50:00.0", "0000:51:01.0", "0000:53:00.0")
    assert (gpu.pci_class, gpu.vendor, gpu.device) == (0x030200, 0x10DE, 0x2330)
    assert (gpu.subsystem_vendor, gpu.subsystem_device) == (0x10DE, 0x16C1)
    assert (gpu.max_link_speed, gpu.current_link_speed) == ("32.0 GT/s PCIe", "2.5 GT/s PCIe")
    # 8 GPUs + 8 NICs + 16 downstream + 4 upstream + 4 root ports + 6 root-complex devices + NVMe pair.
    assert len(devices) == 8 + 8 + 16 + 4 + 4 + 6 + 2


def test_read_cpumaps_and_rdma(h100):
    sysfs, _procfs = h100
    assert read_cpumaps(sysfs) == machines.H100_CPUMAP
    rdma = read_rdma_devices(sysfs)
    assert [r.name for r in rdma] == ["mlx5_%d" % i for i in range(8)]
    assert rdma[7].busid == "0000:c9:00.0" and rdma[7].ports[0].rate_mbps == 400000 and rdma[7].ports[0].active


@pytest.mark.parametrize("text, expected", [
    (machines.SPR_CPUINFO, {"arch": "x86_64", "vendor": "GenuineIntel", "familyid": 6, "modelid": 143}),
    (machines.MILAN_CPUINFO, {"arch": "x86_64", "vendor": "AuthenticAMD", "familyid": 25, "modelid": 1}),
    ("processor\t: 0\nBogoMIPS\t: 2000.00\nCPU implementer\t: 0x41\nCPU architecture: 8\n\n", {"arch": "arm64"}),
    ("processor\t: 0\ncpu\t\t: POWER9 (architected), altivec supported\n\n", {"arch": "ppc64"}),
])
def test_read_cpuinfo(tmp_path, text, expected):
    write_cpuinfo(str(tmp_path), text)
    assert read_cpuinfo(str(tmp_path)) == expected


def test_read_cpuinfo_refusals(tmp_path):
    with pytest.raises(PciSysfsError, match="cannot read .*cpuinfo; point procfs_root"):
        read_cpuinfo(str(tmp_path / "nowhere"))
    write_cpuinfo(str(tmp_path), "processor\t: 0\nisa\t: rv64imafdc\n")
    with pytest.raises(PciSysfsError, match="NCCL needs the CPU arch"):
        read_cpuinfo(str(tmp_path))


def test_not_a_sysfs_tree(tmp_path):
    with pytest.raises(PciSysfsError, match="cannot list .*bus/pci/devices"):
        read_pci_devices(str(tmp_path))


def test_link_leaving_the_tree_refused(tmp_path):
    outside = tmp_path / "elsewhere" / "0000:01:00.0"
    outside.mkdir(parents=True)
    SysfsBuilder(str(tmp_path / "sys"))
    os.symlink(str(outside), str(tmp_path / "sys" / "bus" / "pci" / "devices" / "0000:01:00.0"))
    with pytest.raises(PciSysfsError, match="not laid out like the kernel's sysfs"):
        read_pci_devices(str(tmp_path / "sys"))


# ---------------------------------------------------------------- the H100 box

def test_h100_layout_shape(h100):
    scan = build_layout(*h100)
    assert scan.warnings == []
    cpus = scan.layout["cpus"]
    assert [c["numaid"] for c in cpus] == [0, 1]
    assert [c["affinity"] for c in cpus] == [machines.H100_CPUMAP[0], machines.H100_CPUMAP[1]]
    assert {k: cpus[0][k] for k in ("arch", "vendor", "familyid", "modelid")} == \
        {"arch": "x86_64", "vendor": "GenuineIntel", "familyid": 6, "modelid": 143}
    # Two PEX switches per NUMA node, each shown as its upstream port holding 2 NICs + 2 GPUs.
    assert [[s["busid"] for s in _pcis(c)] for c in cpus] == [list(machines.H100_SWITCHES[:2]),
                                                              list(machines.H100_SWITCHES[2:])]
    switch0 = _pcis(cpus[0])[0]
    assert switch0["class"] == "0x060400" and (switch0["vendor"], switch0["device"]) == ("0x1000", "0xc030")
    assert [(p["busid"], p["class"]) for p in _pcis(switch0)] == [
        ("0000:52:00.0", "0x020700"), ("0000:53:00.0", "0x030200"),
        ("0000:63:00.0", "0x020700"), ("0000:64:00.0", "0x030200")]


def test_h100_gpus_and_nics_per_switch_follow_the_capture(h100):
    layout = build_layout(*h100).layout
    per_switch = {s["busid"]: [p["busid"] for p in _pcis(s) if p["class"] == "0x030200"]
                  for c in layout["cpus"] for s in _pcis(c)}
    # gpud capture bus ids paired in minor-number order: (53, 64), (75, 86), (97, a8), (b9, ca).
    assert per_switch == {"0000:50:00.0": ["0000:53:00.0", "0000:64:00.0"],
                          "0000:72:00.0": ["0000:75:00.0", "0000:86:00.0"],
                          "0000:94:00.0": ["0000:97:00.0", "0000:a8:00.0"],
                          "0000:b6:00.0": ["0000:b9:00.0", "0000:ca:00.0"]}
    nets = [n for c in layout["cpus"] for s in _pcis(c) for p in _pcis(s) for n in p.get("nic", {}).get("net", [])]
    assert nets == [{"name": "mlx5_%d" % i, "dev": i, "port": 1, "speed": 400000} for i in range(8)]


def test_h100_skips_ports_and_distractors(h100):
    scan = build_layout(*h100)
    written = {d["busid"] for d in scan.devices}
    assert len(written) == 4 + 8 + 8
    assert not written & set(machines.H100_DOWNSTREAM + machines.H100_ROOT_PORTS)
    # BMC VGA (1a03:2000, class 0x030000 but not NVIDIA), NVMe, management NIC stay out.
    assert not written & {"0000:03:00.0", "0000:e4:00.0", "0000:04:00.0"}


def test_h100_link_speed_uses_max_not_current(h100):
    scan = build_layout(*h100)
    gpu0 = [d for d in scan.devices if d["busid"] == "0000:53:00.0"][0]
    # GPU0 idles at 2.5 GT/s (current_link_speed) but the slot is gen5 x16.
    assert gpu0["current_link_speed"] == "2.5 GT/s PCIe"
    assert (gpu0["link_speed"], gpu0["link_width"]) == ("32.0 GT/s PCIe", 16)
    assert {(d["link_speed"], d["link_width"]) for d in scan.devices} == {("32.0 GT/s PCIe", 16)}
    assert {d["parent"] for d in scan.devices if d["role"] == "bridge"} == {"cpu"}


def test_h100_without_nics(h100):
    layout = build_layout(*h100, include_nics=False).layout
    leaves = [p for c in layout["cpus"] for s in _pcis(c) for p in _pcis(s)]
    assert len(leaves) == 8 and all(p["class"] == "0x030200" for p in leaves)


def test_h100_with_ethernet_adds_only_the_management_nic(h100):
    layout = build_layout(*h100, include_ethernet=True).layout
    top0 = _pcis(layout["cpus"][0])
    # eno1 (I210 on root port 00:1c.5) hangs straight under the CPU; the IPoIB netdevs are the mlx5 NICs.
    assert [p["busid"] for p in top0] == ["0000:04:00.0", "0000:50:00.0", "0000:72:00.0"]
    assert top0[0]["class"] == "0x020000" and "nic" not in top0[0] and top0[0]["link_width"] == 1


def test_h100_xml_is_read_by_nccls_tokenizer(h100):
    tree = nccl_read(render_xml(build_layout(*h100).layout))
    cpus = tree[0][2]
    assert len(cpus) == 2 and sum(len(s[2]) for c in cpus for s in c[2]) == 16


# ---------------------------------------------------------------- the awkward box

def test_edge_box(edge):
    scan = build_layout(*edge, include_ethernet=True)
    cpus = scan.layout["cpus"]
    assert [c["numaid"] for c in cpus] == [-1, 0]
    assert "affinity" not in cpus[0] and "numa_node -1" in scan.warnings[0]
    assert cpus[1]["affinity"] == "00000000,00000000,ffffffff,ffffffff"
    assert {k: cpus[1][k] for k in ("vendor", "familyid", "modelid")} == \
        {"vendor": "AuthenticAMD", "familyid": 25, "modelid": 1}
    by_busid = {p["busid"]: p for p in _pcis(cpus[1])}
    assert sorted(by_busid) == ["0000:41:00.0", "0000:c1:00.0", "0000:c2:00.0", "0000:c3:00.0"]
    # GPU gen4 behind a gen3 root port: NCCL takes the slower end.
    assert by_busid["0000:41:00.0"]["link_speed"] == "8.0 GT/s PCIe"
    # Dual-port card: functions .0 and .1 merge into .0, ports 1 and 1+1; x16 card in an x8 port -> 8.
    assert by_busid["0000:c1:00.0"]["nic"] == {"net": [
        {"name": "mlx5_0", "dev": 0, "port": 1, "speed": 200000},
        {"name": "mlx5_1", "dev": 1, "port": 2, "speed": 200000}]}
    assert by_busid["0000:c1:00.0"]["link_width"] == 8
    # DOWN port: element kept (it is still on the bus), no net, no dev number used.
    assert "nic" not in by_busid["0000:c2:00.0"]
    assert [p["dev"] for p in scan.rdma_ports] == [0, 1, None]
    assert by_busid["0000:c3:00.0"]["class"] == "0x020000"


def test_missing_link_files_fall_back_like_nccl(tmp_path):
    b = SysfsBuilder(str(tmp_path / "sys"))
    b.host_bridge("pci0000:00")
    b.pci("pci0000:00", "0000:00:05.0", "0x030200", "0x10de", "0x2330", None, 0, ("Unknown", "0"))
    write_cpuinfo(str(tmp_path / "proc"), machines.SPR_CPUINFO)
    scan = build_layout(str(tmp_path / "sys"), str(tmp_path / "proc"))
    gpu = scan.layout["cpus"][0]["pci"][0]
    assert (gpu["link_speed"], gpu["link_width"]) == ("8.0 GT/s PCIe", 16)
    assert "subsystem_vendor" not in gpu
    assert len([w for w in scan.warnings if "NCCL's own fallback" in w]) == 2
    assert len(scan.warnings) == 3 and any("node0/cpumap; affinity left out" in w for w in scan.warnings)


def test_no_gpu_no_nic_refused(tmp_path):
    b = SysfsBuilder(str(tmp_path / "sys"))
    b.host_bridge("pci0000:00")
    b.pci("pci0000:00", "0000:00:00.0", "0x060000", "0x8086", "0x09a2", None, 0)
    with pytest.raises(PciSysfsError, match="found no NVIDIA GPU or RDMA NIC"):
        build_layout(str(tmp_path / "sys"), str(tmp_path / "proc"))
