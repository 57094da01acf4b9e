# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""fabric/roce/nic_sysfs.py read against a fake ConnectX-7 RoCE port (tests/unit/helpers/fake_roce_nic.py): the
GID choice, ECN per priority, rdma_cm's ToS."""
from __future__ import annotations

import os

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce.nic import RoceNicError
from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce import nic_sysfs as nic

from fake_roce_nic import GIDS, ROCE_V2_IPV4_INDEX, connectx7, read  # noqa: I100


def test_gid_table_and_choice(tmp_path):
    sysfs, _unused = connectx7(tmp_path)
    gids = nic.read_gids(sysfs, "mlx5_0", 1)
    assert [g.index for g in gids] == list(range(8))          # the 8 empty slots are left out
    chosen = nic.choose_gid(gids, "mlx5_0", 1, "eth2")
    assert (chosen.index, chosen.ipv4, chosen.type) == (ROCE_V2_IPV4_INDEX, "10.10.1.11", "RoCE v2")
    vlan = nic.choose_gid(gids, "mlx5_0", 1, "eth2.100")
    assert (vlan.index, vlan.ipv4) == (7, "10.20.1.11")
    assert gids[3].ipv4 is None and gids[0].describe() == "0 fe80:0000:0000:0000:085c:c2ff:fe3d:7a10 (IB/RoCE v1, eth2)"


def test_no_roce_v2_ipv4_gid_names_what_is_there(tmp_path):
    sysfs, _unused = connectx7(tmp_path, gids=GIDS[:4])
    with pytest.raises(RoceNicError) as err:
        nic.choose_gid(nic.read_gids(sysfs, "mlx5_0", 1), "mlx5_0", 1, "eth2")
    assert str(err.value).startswith("mlx5_0 port 1 has no RoCE v2 GID with an IPv4 address on eth2 (found: 0 fe80:")
    assert "3 fd00:0000:0000:0001:0000:0000:0000:0011 (RoCE v2, eth2)" in str(err.value)
    assert "give eth2 an IPv4 address" in str(err.value)
    with pytest.raises(RoceNicError, match="mlx5_0 has no port 2"):
        nic.read_gids(sysfs, "mlx5_0", 2)


def test_port_of_netdev(tmp_path):
    sysfs, _unused = connectx7(tmp_path)
    assert nic.find_port_of_netdev(sysfs, "eth2") == ("mlx5_0", 1)
    assert nic.find_port_of_netdev(sysfs, "eth2.100") == ("mlx5_0", 1)
    assert nic.port_netdev(sysfs, "mlx5_0", 1) == "eth2" and nic.link_layer(sysfs, "mlx5_0", 1) == "Ethernet"
    with pytest.raises(RoceNicError, match="no RDMA port has a GID on eth9"):
        nic.find_port_of_netdev(sysfs, "eth9")


def test_ecn_read_write(tmp_path):
    sysfs, _unused = connectx7(tmp_path)
    assert nic.read_ecn(sysfs, "eth2", "np") == {p: False for p in range(8)}
    nic.write_ecn(sysfs, "eth2", "np", 3, True)
    assert read(os.path.join(sysfs, "class/net/eth2/ecn/roce_np/enable/3")) == "1\n"
    assert nic.read_ecn(sysfs, "eth2", "np")[3] is True and nic.read_ecn(sysfs, "eth2", "rp")[3] is False
    assert nic.read_ecn(str(tmp_path / "nothing"), "eth2", "np") is None      # inbox driver: no ecn directory


def test_tos_read_write(tmp_path):
    sysfs, configfs = connectx7(tmp_path)
    assert nic.read_tos(configfs, "mlx5_0", 1) is None                        # rdma_cm/mlx5_0 not made yet
    nic.write_tos(configfs, "mlx5_0", 1, 106)
    assert read(os.path.join(configfs, "rdma_cm/mlx5_0/ports/1/default_roce_tos")) == "106\n"
    assert nic.read_tos(configfs, "mlx5_0", 1) == 106
    with pytest.raises(RoceNicError, match="rdma_cm's configfs is not there"):
        nic.read_tos(str(tmp_path / "noconfig"), "mlx5_0", 1)
