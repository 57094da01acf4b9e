# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""module_utils/nccl/pci_sysfs.py: NCCL's parent rule, the raw readers and whole boxes built in a fake sysfs
(tests/fixtures/sysfs), read back by NCCL's own reader; the RDMA port report (Scan.rdma_ports) row by row and
NCCL's numbering over ACTIVE InfiniBand/RoCE ports when a DOWN port comes before an ACTIVE one on the same device
(with the tests that kill the mutants `make mutation` found alive, docs/testing.md)."""
from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl import pci_sysfs
from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.topology import render_xml
from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.values import NcclTopologyError
from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.pci_sysfs import (
    PciSysfsError,
    build_layout,
    is_bdf,
    nccl_parent_index,
    read_cpuinfo,
    read_cpumaps,
    read_net_devices,
    read_pci_devices,
    read_rdma_devices,
)

from fake_sysfs import machines  # noqa: E402
from fake_sysfs.builder import SysfsBuilder, new_tree, write_cpuinfo  # noqa: E402
from fake_sysfs.nccl_reader import nccl_read  # noqa: E402


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


# ---------------------------------------------------------------- the RDMA port report, row by row

def test_edge_box_rdma_report_row_by_row(tmp_path):
    # machines.edge_box: mlx5_0/mlx5_1 on 0000:c1:00.0/.1 ACTIVE at 200 Gb/s, mlx5_2 on 0000:c2:00.0 DOWN at 10 Gb/s.
    scan = build_layout(*machines.edge_box(str(tmp_path)))
    assert scan.rdma_ports == [
        {"name": "mlx5_0", "busid": "0000:c1:00.0", "port": 1, "state": "4: ACTIVE", "link_layer": "InfiniBand",
         "rate_mbps": 200000, "dev": 0},
        {"name": "mlx5_1", "busid": "0000:c1:00.1", "port": 1, "state": "4: ACTIVE", "link_layer": "InfiniBand",
         "rate_mbps": 200000, "dev": 1},
        {"name": "mlx5_2", "busid": "0000:c2:00.0", "port": 1, "state": "1: DOWN", "link_layer": "InfiniBand",
         "rate_mbps": 10000, "dev": None},
    ]


def test_a_down_port_before_an_active_roce_port_is_skipped_not_the_device(tmp_path):
    # One dual-port RoCE NIC: port 1 DOWN, port 2 ACTIVE Ethernet (RoCE). NCCL's IB plugin lists port 2 as dev 0.
    b, sysfs, procfs = new_tree(tmp_path)
    b.host_bridge("pci0000:40")
    b.pci("pci0000:40", "0000:40:01.1", "0x060400", "0x1022", "0x1483", None, 0,
          (machines.GEN4, "16"), (machines.GEN4, "16"))
    b.pci("0000:40:01.1", "0000:41:00.0", "0x030200", "0x10de", "0x20b5", ("0x10de", "0x1533"), 0,
          (machines.GEN4, "16"), (machines.GEN4, "16"))
    b.pci("0000:40:01.1", "0000:42:00.0", "0x020000", "0x15b3", "0x1021", ("0x15b3", "0x0020"), 0,
          (machines.GEN4, "16"), (machines.GEN4, "16"))
    b.ib_device("mlx5_0", "0000:42:00.0", {1: ("100 Gb/sec (2X HDR)", "Ethernet", "1: DOWN"),
                                           2: ("400 Gb/sec (4X NDR)", "Ethernet", "4: ACTIVE")}, "0c42:a103:0003:0000")
    b.numa_node(0, "00000000,00000000,ffffffff,ffffffff", "0-63")
    write_cpuinfo(procfs, machines.MILAN_CPUINFO)
    scan = build_layout(sysfs, procfs)
    assert [(r["port"], r["dev"], r["link_layer"]) for r in scan.rdma_ports] == [(1, None, "Ethernet"), (2, 0, "Ethernet")]
    nets = [n for c in scan.layout["cpus"] for s in c.get("pci", []) for p in s.get("pci", []) + [s]
            for n in p.get("nic", {}).get("net", [])]
    assert nets == [{"name": "mlx5_0", "dev": 0, "port": 2, "speed": 400000}]


# ---------------------------------------------------------------- the whole scan of a box, key by key
# Mutants of the report rows (key names), the element attributes (subsystem ids, "0x%04x" spellings), the roles
# ("gpu", "nic", "ethernet", "bridge"), the parents, the report's busid order and the warnings' texts.

GEN3, GEN4, GEN5, IDLE = machines.GEN3, machines.GEN4, machines.GEN5, machines.IDLE


def _row(busid, role, parent, numa, ids, link, max_link, current_link):
    return {"busid": busid, "role": role, "parent": parent, "numa_node": numa, "class": ids[0], "vendor": ids[1],
            "device": ids[2], "link_speed": link[0], "link_width": link[1], "max_link_speed": max_link[0],
            "max_link_width": max_link[1], "current_link_speed": current_link[0], "current_link_width": current_link[1]}


def test_edge_box_in_full(tmp_path):
    # machines.edge_box with include_ethernet: GPUs 41:00.0 (NUMA 0) and 81:00.0 (numa_node -1), the dual-port
    # ConnectX-6 c1:00.0/.1 merged into .0, the DOWN ConnectX-6 c2:00.0 and the E810 c3:00.0 (eth0), all straight on
    # root ports (parent "cpu"). Worked from the fixture's files: link = the slower max of device and root port.
    sysfs, procfs = machines.edge_box(str(tmp_path))
    scan = build_layout(sysfs, procfs, include_ethernet=True)
    amd = {"arch": "x86_64", "vendor": "AuthenticAMD", "familyid": 25, "modelid": 1}
    gpu41 = {"busid": "0000:41:00.0", "class": "0x030200", "vendor": "0x10de", "device": "0x20b5",
             "subsystem_vendor": "0x10de", "subsystem_device": "0x1533", "link_speed": "8.0 GT/s PCIe", "link_width": 16}
    gpu81 = dict(gpu41, busid="0000:81:00.0", link_speed="16.0 GT/s PCIe")
    cx6 = {"class": "0x020700", "vendor": "0x15b3", "device": "0x101b", "subsystem_vendor": "0x15b3",
           "subsystem_device": "0x0007", "link_speed": "16.0 GT/s PCIe", "link_width": 8}
    nic_c1 = dict(cx6, busid="0000:c1:00.0", nic={"net": [{"name": "mlx5_0", "dev": 0, "port": 1, "speed": 200000},
                                                          {"name": "mlx5_1", "dev": 1, "port": 2, "speed": 200000}]})
    nic_c2 = dict(cx6, busid="0000:c2:00.0")
    e810 = {"busid": "0000:c3:00.0", "class": "0x020000", "vendor": "0x8086", "device": "0x1592",
            "subsystem_vendor": "0x8086", "subsystem_device": "0x0002", "link_speed": "16.0 GT/s PCIe", "link_width": 8}
    assert scan.layout == {"version": 1, "cpus": [
        dict({"numaid": -1, "pci": [gpu81]}, **amd),
        dict({"numaid": 0, "affinity": "00000000,00000000,ffffffff,ffffffff", "pci": [gpu41, nic_c1, nic_c2, e810]},
             **amd)]}
    a100, cx6_ids = ("0x030200", "0x10de", "0x20b5"), ("0x020700", "0x15b3", "0x101b")
    g4x16, g4x8 = ("16.0 GT/s PCIe", 16), ("16.0 GT/s PCIe", 8)
    # Sorted by busid (the elements are made CPU by CPU, numaid -1 first).
    assert scan.devices == [
        _row("0000:41:00.0", "gpu", "cpu", 0, a100, ("8.0 GT/s PCIe", 16), g4x16, ("8.0 GT/s PCIe", 16)),
        _row("0000:81:00.0", "gpu", "cpu", -1, a100, g4x16, g4x16, g4x16),
        _row("0000:c1:00.0", "nic", "cpu", 0, cx6_ids, g4x8, g4x16, g4x8),
        _row("0000:c2:00.0", "nic", "cpu", 0, cx6_ids, g4x8, g4x16, g4x8),
        _row("0000:c3:00.0", "ethernet", "cpu", 0, ("0x020000", "0x8086", "0x1592"), g4x8, g4x16, g4x16),
    ]
    assert scan.warnings == [
        "0000:81:00.0 report numa_node -1 (no NUMA information: single-socket board or VM); they go under cpu "
        "numaid -1 without affinity, as NCCL's own detection does"]


def _pex_box(tmp_path):
    """One Broadcom PEX switch (upstream 50:00.0, downstream 51:01.0) on root port 4f:01.0, GPU 53:00.0 below it."""
    b, sysfs, procfs = new_tree(tmp_path)
    b.host_bridge("pci0000:4f")
    b.pci("pci0000:4f", "0000:4f:01.0", "0x060400", "0x8086", "0x352a", None, 0, (GEN5, "16"), (GEN5, "16"))
    b.pci("0000:4f:01.0", "0000:50:00.0", "0x060400", "0x1000", "0xc030", ("0x1000", "0x100b"), 0,
          (GEN5, "16"), (GEN5, "16"))
    b.pci("0000:50:00.0", "0000:51:01.0", "0x060400", "0x1000", "0xc030", ("0x1000", "0x100b"), 0,
          (GEN5, "16"), (GEN5, "16"))
    b.pci("0000:51:01.0", "0000:53:00.0", "0x030200", "0x10de", "0x2330", ("0x10de", "0x16c1"), 0,
          (GEN5, "16"), (IDLE, "16"))
    b.numa_node(0, "ffffffff", "0-31")
    write_cpuinfo(procfs, machines.SPR_CPUINFO)
    return b, sysfs, procfs


def _pex_expected():
    gen5x16 = ("32.0 GT/s PCIe", 16)
    switch = {"busid": "0000:50:00.0", "class": "0x060400", "vendor": "0x1000", "device": "0xc030",
              "subsystem_vendor": "0x1000", "subsystem_device": "0x100b", "link_speed": "32.0 GT/s PCIe",
              "link_width": 16, "pci": [
                  {"busid": "0000:53:00.0", "class": "0x030200", "vendor": "0x10de", "device": "0x2330",
                   "subsystem_vendor": "0x10de", "subsystem_device": "0x16c1", "link_speed": "32.0 GT/s PCIe",
                   "link_width": 16}]}
    layout = {"version": 1, "cpus": [{"numaid": 0, "arch": "x86_64", "vendor": "GenuineIntel", "familyid": 6,
                                      "modelid": 143, "affinity": "ffffffff", "pci": [switch]}]}
    devices = [
        _row("0000:50:00.0", "bridge", "cpu", 0, ("0x060400", "0x1000", "0xc030"), gen5x16, gen5x16, gen5x16),
        _row("0000:53:00.0", "gpu", "0000:50:00.0", 0, ("0x030200", "0x10de", "0x2330"), gen5x16, gen5x16,
             ("2.5 GT/s PCIe", 16)),
    ]
    return layout, devices


def test_pex_switch_gpu_hangs_under_the_upstream_port(tmp_path):
    _b, sysfs, procfs = _pex_box(tmp_path)
    scan = build_layout(sysfs, procfs)
    layout, devices = _pex_expected()
    assert (scan.layout, scan.devices, scan.warnings) == (layout, devices, [])


def test_a_bridge_missing_from_bus_pci_devices_is_read_from_its_directory(tmp_path):
    # The GPU's chain names upstream port 50:00.0, which bus/pci/devices does not list (a partial copy of sysfs):
    # build_layout reads it from devices/pci0000:4f/0000:4f:01.0/0000:50:00.0 and the result is the same as above.
    _b, sysfs, procfs = _pex_box(tmp_path)
    os.unlink(os.path.join(sysfs, "bus", "pci", "devices", "0000:50:00.0"))
    scan = build_layout(sysfs, procfs)
    layout, devices = _pex_expected()
    assert (scan.layout, scan.devices, scan.warnings) == (layout, devices, [])


def test_nic_only_box_warns_and_names_the_missing_cpumap(tmp_path):
    b, sysfs, procfs = new_tree(tmp_path)
    b.host_bridge("pci0000:c0")
    b.pci("pci0000:c0", "0000:c0:03.1", "0x060400", "0x1022", "0x1483", None, 0, (GEN4, "16"), (GEN4, "16"))
    b.pci("0000:c0:03.1", "0000:c1:00.0", "0x020700", "0x15b3", "0x101b", ("0x15b3", "0x0007"), 0,
          (GEN4, "16"), (GEN4, "16"))
    b.ib_device("mlx5_0", "0000:c1:00.0", {1: ("200 Gb/sec (4X HDR)", "InfiniBand", "4: ACTIVE")},
                "0c42:a103:0003:0000")
    write_cpuinfo(procfs, machines.MILAN_CPUINFO)
    scan = build_layout(sysfs, procfs)
    assert scan.warnings == [
        "no NVIDIA GPU (vendor 0x10de, class 0x0302xx/0x0300xx) under %s/bus/pci/devices; the file describes NICs only"
        % sysfs,
        "NUMA node 0 has no %s/devices/system/node/node0/cpumap; affinity left out, NCCL will not pin its threads for "
        "devices there" % sysfs]
    assert [(d["busid"], d["role"], d["parent"]) for d in scan.devices] == [("0000:c1:00.0", "nic", "cpu")]
    assert "affinity" not in scan.layout["cpus"][0]


@pytest.mark.parametrize("include_nics, what", [(True, "NVIDIA GPU or RDMA NIC"), (False, "NVIDIA GPU")])
def test_nothing_to_describe_refused_in_full(tmp_path, include_nics, what):
    b, sysfs, procfs = new_tree(tmp_path)
    b.host_bridge("pci0000:00")
    b.pci("pci0000:00", "0000:00:00.0", "0x060000", "0x8086", "0x09a2", None, 0)
    with pytest.raises(PciSysfsError) as caught:
        build_layout(sysfs, procfs, include_nics=include_nics)
    assert str(caught.value) == "found no %s under %s/bus/pci/devices; nothing to describe to NCCL" % (what, sysfs)


def test_two_gpus_without_numa_information_share_one_warning(tmp_path):
    b, sysfs, procfs = new_tree(tmp_path)
    b.host_bridge("pci0000:00")
    for busid in ("0000:00:05.0", "0000:00:06.0"):
        b.pci("pci0000:00", busid, "0x030200", "0x10de", "0x2330", ("0x10de", "0x16c1"), -1, (GEN5, "16"), (GEN5, "16"))
    write_cpuinfo(procfs, machines.SPR_CPUINFO)
    scan = build_layout(sysfs, procfs)
    assert scan.warnings == [
        "0000:00:05.0, 0000:00:06.0 report numa_node -1 (no NUMA information: single-socket board or VM); they go "
        "under cpu numaid -1 without affinity, as NCCL's own detection does"]
    assert [c["numaid"] for c in scan.layout["cpus"]] == [-1]


def test_missing_link_files_warnings_in_full(tmp_path):
    # GPU 00:05.0 straight on the root bus: its "port" is devices/pci0000:00, which has no link files either.
    b, sysfs, procfs = new_tree(tmp_path)
    b.host_bridge("pci0000:00")
    b.pci("pci0000:00", "0000:00:05.0", "0x030200", "0x10de", "0x2330", None, 0, ("Unknown", "0"))
    write_cpuinfo(procfs, machines.SPR_CPUINFO)
    scan = build_layout(sysfs, procfs)
    assert scan.warnings == [
        "NUMA node 0 has no %s/devices/system/node/node0/cpumap; affinity left out, NCCL will not pin its threads for "
        "devices there" % sysfs,
        "0000:00:05.0: no readable max_link_speed here or on its port; wrote 8.0 GT/s PCIe, NCCL's own fallback",
        "0000:00:05.0: no readable max_link_width here or on its port; wrote x16, NCCL's own fallback"]


def _gpu_box(tmp_path):
    """GPU 0000:41:00.0 (A100 PCIe) on root port 0000:40:01.1, both gen4 x16, NUMA node 0 with a cpumap."""
    b, sysfs, procfs = new_tree(tmp_path)
    b.host_bridge("pci0000:40")
    b.pci("pci0000:40", "0000:40:01.1", "0x060400", "0x1022", "0x1483", None, 0, (GEN4, "16"), (GEN4, "16"))
    b.pci("0000:40:01.1", "0000:41:00.0", "0x030200", "0x10de", "0x20b5", ("0x10de", "0x1533"), 0,
          (GEN4, "16"), (GEN4, "16"))
    b.numa_node(0, "ffffffff", "0-31")
    write_cpuinfo(procfs, machines.MILAN_CPUINFO)
    return b, sysfs, procfs


def _gpu_file(sysfs, name):
    return os.path.join(sysfs, "devices", "pci0000:40", "0000:40:01.1", "0000:41:00.0", name)


def test_link_width_from_the_port_when_the_device_has_none(tmp_path):
    _b, sysfs, procfs = _gpu_box(tmp_path)
    os.unlink(_gpu_file(sysfs, "max_link_width"))
    scan = build_layout(sysfs, procfs)
    gpu = scan.layout["cpus"][0]["pci"][0]
    assert (gpu["link_speed"], gpu["link_width"]) == ("16.0 GT/s PCIe", 16)
    assert (scan.devices[0]["max_link_width"], scan.warnings) == (None, [])


def test_a_link_speed_nccl_has_no_entry_for_is_refused_naming_the_device(tmp_path):
    # 128 GT/s (PCIe 7.0) is past NCCL's kvDictPciGen (its last entry is 64 GT/s); the refusal names the device.
    _b, sysfs, procfs = _gpu_box(tmp_path)
    port = os.path.join(sysfs, "devices", "pci0000:40", "0000:40:01.1", "max_link_speed")
    for name in (_gpu_file(sysfs, "max_link_speed"), port):
        with open(name, "w") as handle:
            handle.write("128.0 GT/s PCIe\n")
    with pytest.raises(NcclTopologyError) as caught:
        build_layout(sysfs, procfs)
    assert str(caught.value) == (
        "0000:41:00.0 max_link_speed: link_speed '128.0 GT/s PCIe' is not a PCIe rate; use GT/s (2.5, 5, 8, 16, 32, "
        "64), 'gen1'..'gen6' or the kernel's string such as '32.0 GT/s PCIe'")


def test_unreadable_device_id_and_numa_node(tmp_path):
    # No device file: written as 0x0000; no numa_node file: -1, as a kernel without NUMA writes.
    _b, sysfs, procfs = _gpu_box(tmp_path)
    os.unlink(_gpu_file(sysfs, "device"))
    os.unlink(_gpu_file(sysfs, "numa_node"))
    scan = build_layout(sysfs, procfs)
    assert [(c["numaid"], [p["device"] for p in c["pci"]]) for c in scan.layout["cpus"]] == [(-1, ["0x0000"])]
    assert scan.devices[0]["numa_node"] == -1


def test_numa_node_ten_and_above(tmp_path):
    # Four sockets with sub-NUMA clustering have 16 nodes: "10" is node 10 (decimal).
    _b, sysfs, procfs = _gpu_box(tmp_path)
    with open(_gpu_file(sysfs, "numa_node"), "w") as handle:
        handle.write("10\n")
    scan = build_layout(sysfs, procfs)
    assert [c["numaid"] for c in scan.layout["cpus"]] == [10]
    assert scan.devices[0]["numa_node"] == 10


def test_a_subsystem_id_half_missing_writes_neither(tmp_path):
    _b, sysfs, procfs = _gpu_box(tmp_path)
    os.unlink(_gpu_file(sysfs, "subsystem_device"))
    gpu = build_layout(sysfs, procfs).layout["cpus"][0]["pci"][0]
    assert "subsystem_vendor" not in gpu and "subsystem_device" not in gpu
    _b, sysfs, procfs = _gpu_box(tmp_path / "other")
    os.unlink(_gpu_file(sysfs, "subsystem_vendor"))
    gpu = build_layout(sysfs, procfs).layout["cpus"][0]["pci"][0]
    assert "subsystem_vendor" not in gpu and "subsystem_device" not in gpu


def test_default_trees_are_the_live_sys_and_proc(tmp_path, monkeypatch):
    # build_layout() with no arguments reads /sys and /proc: the readers are replaced to record what they were given.
    _b, sysfs, _procfs = _gpu_box(tmp_path)
    devices = pci_sysfs.read_pci_devices(sysfs)
    given = {}

    def record(name, result):
        def reader(root):
            given[name] = root
            return result
        return reader

    monkeypatch.setattr(pci_sysfs, "read_pci_devices", record("read_pci_devices", devices))
    monkeypatch.setattr(pci_sysfs, "read_rdma_devices", record("read_rdma_devices", []))
    monkeypatch.setattr(pci_sysfs, "read_cpumaps", record("read_cpumaps", {0: "ff"}))
    monkeypatch.setattr(pci_sysfs, "read_cpuinfo", record("read_cpuinfo", {"arch": "x86_64"}))
    scan = build_layout()
    assert given == {"read_pci_devices": "/sys", "read_rdma_devices": "/sys", "read_cpumaps": "/sys",
                     "read_cpuinfo": "/proc"}
    assert scan.layout["cpus"][0]["affinity"] == "ff"


# ---------------------------------------------------------------- NIC functions, Ethernet, RDMA devices

def test_nic_function_1_without_function_0_is_its_own_element(tmp_path):
    # Function .0 of the ConnectX is not on this host (given to a VM): .1 keeps its own element and port 1.
    b, sysfs, procfs = _gpu_box(tmp_path)
    b.pci("0000:40:01.1", "0000:42:00.1", "0x020700", "0x15b3", "0x101b", ("0x15b3", "0x0007"), 0,
          (GEN4, "16"), (GEN4, "16"))
    b.ib_device("mlx5_1", "0000:42:00.1", {1: ("200 Gb/sec (4X HDR)", "InfiniBand", "4: ACTIVE")},
                "0c42:a103:0003:0001")
    scan = build_layout(sysfs, procfs)
    pcis = scan.layout["cpus"][0]["pci"]
    assert [p["busid"] for p in pcis] == ["0000:41:00.0", "0000:42:00.1"]
    assert pcis[1]["nic"] == {"net": [{"name": "mlx5_1", "dev": 0, "port": 1, "speed": 200000}]}


def test_function_0_of_another_vendor_is_not_merged(tmp_path):
    b, sysfs, procfs = _gpu_box(tmp_path)
    b.pci("0000:40:01.1", "0000:42:00.0", "0x088000", "0x1022", "0x1498", None, 0, (GEN4, "16"), (GEN4, "16"))
    b.pci("0000:40:01.1", "0000:42:00.1", "0x020700", "0x15b3", "0x101b", ("0x15b3", "0x0007"), 0,
          (GEN4, "16"), (GEN4, "16"))
    b.ib_device("mlx5_1", "0000:42:00.1", {1: ("200 Gb/sec (4X HDR)", "InfiniBand", "4: ACTIVE")},
                "0c42:a103:0003:0001")
    scan = build_layout(sysfs, procfs)
    assert [(d["busid"], d["role"]) for d in scan.devices] == [("0000:41:00.0", "gpu"), ("0000:42:00.1", "nic")]


def test_ipoib_netdevs_on_a_merged_nic_add_no_ethernet_element(tmp_path):
    # edge_box plus the IPoIB netdevs of both ConnectX-6 functions: with include_ethernet, function .1 stays merged
    # into .0 (no element of its own), and only the E810 is an "ethernet" element.
    sysfs, procfs = machines.edge_box(str(tmp_path))
    b = SysfsBuilder(sysfs)
    for fn in (0, 1):
        busid = "0000:c1:00.%d" % fn
        b.chains[busid] = ("pci0000:c0", "0000:c0:03.1", busid)
        b.net_device("ibp193s0f%d" % fn, busid, "200000")
    scan = build_layout(sysfs, procfs, include_ethernet=True)
    assert [(d["busid"], d["role"]) for d in scan.devices] == [
        ("0000:41:00.0", "gpu"), ("0000:81:00.0", "gpu"), ("0000:c1:00.0", "nic"), ("0000:c2:00.0", "nic"),
        ("0000:c3:00.0", "ethernet")]


def test_include_ethernet_without_class_net(tmp_path):
    _b, sysfs, procfs = _gpu_box(tmp_path)
    assert not os.path.isdir(os.path.join(sysfs, "class", "net"))
    assert read_net_devices(sysfs) == {}
    scan = build_layout(sysfs, procfs, include_ethernet=True)
    assert [(d["busid"], d["role"]) for d in scan.devices] == [("0000:41:00.0", "gpu")]


def test_a_netdev_whose_device_link_points_nowhere_is_skipped(tmp_path):
    # The PCI function was removed; its device link dangles (os.path.exists is false).
    _b, sysfs, _procfs = _gpu_box(tmp_path)
    netdir = os.path.join(sysfs, "class", "net", "eth9")
    os.makedirs(netdir)
    os.symlink(os.path.join("..", "..", "..", "devices", "pci0000:40", "0000:40:01.1", "0000:42:00.0"),
               os.path.join(netdir, "device"))
    assert read_net_devices(sysfs) == {}


def _soft_roce(sysfs, name, netdev):
    """A soft-RoCE device (rdma link add NAME type rxe netdev NETDEV): its device link is the virtual netdev."""
    base = os.path.join(sysfs, "devices", "virtual", "infiniband", name)
    os.makedirs(os.path.join(base, "ports", "1"))
    os.makedirs(os.path.join(sysfs, "devices", "virtual", "net", netdev))
    os.symlink(os.path.join("..", "..", "net", netdev), os.path.join(base, "device"))
    for fname, text in (("rate", "100 Gb/sec (4X EDR)"), ("link_layer", "Ethernet"), ("state", "4: ACTIVE")):
        with open(os.path.join(base, "ports", "1", fname), "w") as handle:
            handle.write(text + "\n")
    os.symlink(os.path.join("..", "..", "devices", "virtual", "infiniband", name),
               os.path.join(sysfs, "class", "infiniband", name))


def test_a_soft_roce_device_listed_first_skips_only_itself(tmp_path):
    b, sysfs, procfs = _gpu_box(tmp_path)
    b.pci("0000:40:01.1", "0000:42:00.0", "0x020700", "0x15b3", "0x101b", ("0x15b3", "0x0007"), 0,
          (GEN4, "16"), (GEN4, "16"))
    b.ib_device("mlx5_0", "0000:42:00.0", {1: ("200 Gb/sec (4X HDR)", "InfiniBand", "4: ACTIVE")},
                "0c42:a103:0003:0000")
    _soft_roce(sysfs, "bond0_rxe", "bond0")  # sorts before mlx5_0
    assert [(r.name, r.busid) for r in read_rdma_devices(sysfs)] == [("mlx5_0", "0000:42:00.0")]
    assert [(r["name"], r["dev"]) for r in build_layout(sysfs, procfs).rdma_ports] == [("mlx5_0", 0)]


def test_an_rdma_device_on_an_unlisted_function_skips_only_itself(tmp_path):
    # mlx5_0's function 0000:42:00.0 is missing from bus/pci/devices (a partial copy of sysfs); mlx5_1 on
    # 0000:43:00.0 comes after it in PCI order and still gets dev 0.
    b, sysfs, procfs = _gpu_box(tmp_path)
    for index, busid in enumerate(("0000:42:00.0", "0000:43:00.0")):
        b.pci("0000:40:01.1", busid, "0x020700", "0x15b3", "0x101b", ("0x15b3", "0x0007"), 0,
              (GEN4, "16"), (GEN4, "16"))
        b.ib_device("mlx5_%d" % index, busid, {1: ("200 Gb/sec (4X HDR)", "InfiniBand", "4: ACTIVE")},
                    "0c42:a103:0003:000%d" % index)
    os.unlink(os.path.join(sysfs, "bus", "pci", "devices", "0000:42:00.0"))
    scan = build_layout(sysfs, procfs)
    assert [(r["name"], r["dev"]) for r in scan.rdma_ports] == [("mlx5_1", 0)]
    assert [(d["busid"], d["role"]) for d in scan.devices] == [("0000:41:00.0", "gpu"), ("0000:43:00.0", "nic")]


def test_rdma_device_without_ports_directory(tmp_path):
    b, sysfs, _procfs = _gpu_box(tmp_path)
    b.pci("0000:40:01.1", "0000:42:00.0", "0x020700", "0x15b3", "0x101b", ("0x15b3", "0x0007"), 0,
          (GEN4, "16"), (GEN4, "16"))
    b.ib_device("mlx5_0", "0000:42:00.0", {}, "0c42:a103:0003:0000")
    assert [(r.name, r.ports) for r in read_rdma_devices(sysfs)] == [("mlx5_0", [])]


def test_ports_sorted_by_number_past_nine(tmp_path):
    # An mlx5 device in switchdev mode has one port per VF representor: ports 1..12 in numeric order, not 1, 10, 11.
    b, sysfs, _procfs = _gpu_box(tmp_path)
    b.pci("0000:40:01.1", "0000:42:00.0", "0x020000", "0x15b3", "0x101d", ("0x15b3", "0x0016"), 0,
          (GEN4, "16"), (GEN4, "16"))
    b.ib_device("mlx5_0", "0000:42:00.0", {n: ("100 Gb/sec (4X EDR)", "Ethernet", "4: ACTIVE") for n in range(1, 13)},
                "0c42:a103:0003:0000")
    assert [p.number for p in read_rdma_devices(sysfs)[0].ports] == list(range(1, 13))


def test_ports_with_unreadable_rate_link_layer_or_state(tmp_path):
    # mlx5_0 port 1: no rate file (ACTIVE InfiniBand: a net without "speed"); mlx5_1 port 1: no link_layer and no
    # state file (reported as "", not usable).
    b, sysfs, procfs = _gpu_box(tmp_path)
    for index, busid in enumerate(("0000:42:00.0", "0000:43:00.0")):
        b.pci("0000:40:01.1", busid, "0x020700", "0x15b3", "0x101b", ("0x15b3", "0x0007"), 0,
              (GEN4, "16"), (GEN4, "16"))
        b.ib_device("mlx5_%d" % index, busid, {1: ("200 Gb/sec (4X HDR)", "InfiniBand", "4: ACTIVE")},
                    "0c42:a103:0003:000%d" % index)
    ports = os.path.join(sysfs, "class", "infiniband", "mlx5_%d", "ports", "1", "%s")
    os.unlink(ports % (0, "rate"))
    os.unlink(ports % (1, "link_layer"))
    os.unlink(ports % (1, "state"))
    scan = build_layout(sysfs, procfs)
    assert scan.rdma_ports == [
        {"name": "mlx5_0", "busid": "0000:42:00.0", "port": 1, "state": "4: ACTIVE", "link_layer": "InfiniBand",
         "rate_mbps": None, "dev": 0},
        {"name": "mlx5_1", "busid": "0000:43:00.0", "port": 1, "state": "", "link_layer": "", "rate_mbps": 200000,
         "dev": None}]
    assert scan.layout["cpus"][0]["pci"][1]["nic"] == {"net": [{"name": "mlx5_0", "dev": 0, "port": 1}]}


# ---------------------------------------------------------------- raw readers: cpumaps, cpuinfo, device files

def test_read_cpumaps_skips_a_node_without_cpumap(tmp_path):
    b, sysfs, _procfs = _gpu_box(tmp_path)
    os.makedirs(os.path.join(sysfs, "devices", "system", "node", "node1"))
    assert read_cpumaps(sysfs) == {0: "ffffffff"}


def test_read_cpuinfo_refusals_in_full(tmp_path):
    path = os.path.join(str(tmp_path), "nowhere", "cpuinfo")
    with pytest.raises(PciSysfsError) as caught:
        read_cpuinfo(os.path.join(str(tmp_path), "nowhere"))
    assert str(caught.value) == "cannot read %s; point procfs_root at a procfs tree" % path
    write_cpuinfo(str(tmp_path), "processor\t: 0\nisa\t: rv64imafdc\n")
    with pytest.raises(PciSysfsError) as caught:
        read_cpuinfo(str(tmp_path))
    assert str(caught.value) == ("%s names no vendor_id (x86), CPU implementer (arm64) or POWER cpu (ppc64); NCCL "
                                 "needs the CPU arch" % os.path.join(str(tmp_path), "cpuinfo"))


@pytest.mark.parametrize("text, expected", [
    # x86 without family and model lines: the vendor alone.
    ("processor\t: 0\nvendor_id\t: GenuineIntel\n\n", {"arch": "x86_64", "vendor": "GenuineIntel"}),
    # The POWER rule through the platform line when the cpu line does not name POWER.
    ("processor\t: 0\ncpu\t\t: unknown (00801200)\nplatform\t: pSeries\n\n", {"arch": "ppc64"}),
    ("processor\t: 0\nplatform\t: pSeries\n\n", {"arch": "ppc64"}),
])
def test_read_cpuinfo_more_shapes(tmp_path, text, expected):
    write_cpuinfo(str(tmp_path), text)
    assert read_cpuinfo(str(tmp_path)) == expected


def test_read_cpuinfo_a_32bit_powermac_is_refused(tmp_path):
    # A G4 PowerMac names neither POWER in its cpu line nor pSeries as its platform: no arch NCCL knows.
    write_cpuinfo(str(tmp_path), "processor\t: 0\ncpu\t\t: 7447A, altivec supported\nplatform\t: PowerMac\n\n")
    with pytest.raises(PciSysfsError, match="names no vendor_id"):
        read_cpuinfo(str(tmp_path))


def test_pci_device_refusals_in_full(tmp_path):
    sysfs = os.path.join(str(tmp_path), "sys")
    with pytest.raises(PciSysfsError) as caught:
        read_pci_devices(sysfs)
    listing = os.path.join(sysfs, "bus", "pci", "devices")
    assert str(caught.value) == ("cannot list %s (No such file or directory); point sysfs_root at a sysfs tree"
                                 % listing)
    # A class file but no vendor file.
    b = SysfsBuilder(sysfs)
    b.host_bridge("pci0000:00")
    b.pci("pci0000:00", "0000:00:05.0", "0x030200", "0x10de", "0x2330", None, 0)
    gpu = os.path.join(sysfs, "devices", "pci0000:00", "0000:00:05.0")
    os.unlink(os.path.join(gpu, "vendor"))
    with pytest.raises(PciSysfsError) as caught:
        read_pci_devices(sysfs)
    assert str(caught.value) == ("%s has no readable class/vendor file; is sysfs_root=%s a sysfs tree?"
                                 % (os.path.realpath(gpu), sysfs))


def test_link_leaving_the_tree_refused_in_full(tmp_path):
    outside = tmp_path / "elsewhere" / "0000:01:00.0"
    outside.mkdir(parents=True)
    sysfs = str(tmp_path / "sys")
    SysfsBuilder(sysfs)
    os.symlink(str(outside), os.path.join(sysfs, "bus", "pci", "devices", "0000:01:00.0"))
    with pytest.raises(PciSysfsError) as caught:
        read_pci_devices(sysfs)
    assert str(caught.value) == (
        "%s resolves outside %s; the tree is not laid out like the kernel's sysfs (bus/pci/devices/* must link into "
        "devices/pci*/...)" % (os.path.realpath(str(outside)), os.path.realpath(os.path.join(sysfs, "devices"))))


def test_parent_rule_with_a_bdf_at_the_top_of_the_chain():
    # Fewer than two components above the device: the CPU, even when the top one is a BDF.
    assert nccl_parent_index(("0000:00:01.0", "0000:01:00.0"), 1) is None
