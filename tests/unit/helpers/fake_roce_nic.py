# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A fake ConnectX-7 RoCE port in sysfs/configfs, for the roce_nic_sysfs tests and the roce_nic_qos module's."""
from __future__ import annotations

import os

# The GID table of mlx5_0 port 1 as the kernel fills it: each address of the netdev gets a RoCE v1 and a RoCE v2
# entry, link-local first (from the MAC 0a:5c:c2:3d:7a:10), then a global IPv6, then IPv4 10.10.1.11
# (0a0a:010b), then a VLAN netdev's IPv4 10.20.1.11 (0a14:010b); the rest of the 16 slots are empty (zeros).
V1, V2 = "IB/RoCE v1", "RoCE v2"
GIDS = [
    ("fe80:0000:0000:0000:085c:c2ff:fe3d:7a10", V1, "eth2"),
    ("fe80:0000:0000:0000:085c:c2ff:fe3d:7a10", V2, "eth2"),
    ("fd00:0000:0000:0001:0000:0000:0000:0011", V1, "eth2"),
    ("fd00:0000:0000:0001:0000:0000:0000:0011", V2, "eth2"),
    ("0000:0000:0000:0000:0000:ffff:0a0a:010b", V1, "eth2"),
    ("0000:0000:0000:0000:0000:ffff:0a0a:010b", V2, "eth2"),
    ("0000:0000:0000:0000:0000:ffff:0a14:010b", V1, "eth2.100"),
    ("0000:0000:0000:0000:0000:ffff:0a14:010b", V2, "eth2.100"),
]
ROCE_V2_IPV4_INDEX = 5          # ::ffff:10.10.1.11, RoCE v2, eth2
ZERO = "0000:0000:0000:0000:0000:0000:0000:0000"


def _write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        handle.write(text + "\n")


def connectx7(tmp_path, device="mlx5_0", netdev="eth2", link_layer="Ethernet", gids=None, ecn=True):
    """(sysfs_root, configfs_root): one RoCE port, ECN all 0, rdma_cm loaded with nothing made yet."""
    sysfs, configfs = str(tmp_path / "sys"), str(tmp_path / "config")
    port = os.path.join(sysfs, "class", "infiniband", device, "ports", "1")
    for name, text in {"link_layer": link_layer, "state": "4: ACTIVE", "phys_state": "5: LinkUp",
                       "rate": "400 Gb/sec (4X NDR)", "lid": "0x0"}.items():
        _write(os.path.join(port, name), text)
    table = GIDS if gids is None else gids
    for index in range(16):
        gid, kind, ndev = table[index] if index < len(table) else (ZERO, "", "")
        _write(os.path.join(port, "gids", str(index)), gid)
        _write(os.path.join(port, "gid_attrs", "types", str(index)), kind)
        _write(os.path.join(port, "gid_attrs", "ndevs", str(index)), ndev)
    if ecn:
        for point in ("roce_np", "roce_rp"):
            for prio in range(8):
                _write(os.path.join(sysfs, "class", "net", netdev, "ecn", point, "enable", str(prio)), "0")
    os.makedirs(os.path.join(configfs, "rdma_cm"), exist_ok=True)
    return sysfs, configfs


def read(path):
    with open(path) as handle:
        return handle.read()
