# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Tests that kill mutants `make mutation MODULES=pci_sysfs` found alive (docs/testing.md).

The RDMA port report (Scan.rdma_ports) row by row, and NCCL's numbering over ACTIVE InfiniBand/RoCE ports when a
DOWN port comes before an ACTIVE one on the same device.
"""
from __future__ import annotations

import os
import sys

from ansible_collections.gpufleet.cluster.plugins.module_utils.pci_sysfs import build_layout

_UNIT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if _UNIT not in sys.path:
    sys.path.insert(0, _UNIT)
from fixtures.sysfs import machines  # noqa: E402
from fixtures.sysfs.builder import SysfsBuilder, write_cpuinfo  # noqa: E402


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
    sysfs, procfs = os.path.join(str(tmp_path), "sys"), os.path.join(str(tmp_path), "proc")
    b = SysfsBuilder(sysfs)
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
