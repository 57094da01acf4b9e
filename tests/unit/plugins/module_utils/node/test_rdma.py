# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node/rdma.py: the HCAs and ports of a fake sysfs tree of the recorded H100 node (tests/unit/helpers/
fake_rdma_sysfs.py), as the rdma role checks them against rdma_expect_ports."""
import fake_rdma_sysfs as sysfs_tree

from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.rdma.stack import port_check
from ansible_collections.gpufleet.cluster.plugins.module_utils.node.rdma import rdma_state


def test_ports_of_the_recorded_node_flat_with_their_device(tmp_path):
    state = rdma_state(sysfs_tree.h100_ndr(tmp_path, full=True))
    assert [d["name"] for d in state["devices"]] == ["mlx5_%d" % i for i in range(12)]
    ports = {(p["device"], p["port"]): p for p in state["ports"]}
    assert len(ports) == 12
    assert (ports[("mlx5_0", 1)]["state"], ports[("mlx5_0", 1)]["rate_gbps"], ports[("mlx5_0", 1)]["link_layer"]) \
        == ("ACTIVE", 400, "InfiniBand")
    assert (ports[("mlx5_2", 1)]["state"], ports[("mlx5_2", 1)]["phys_state"], ports[("mlx5_2", 1)]["link_layer"]) \
        == ("DOWN", "Disabled", "Ethernet")
    assert state["msg"] == "12 RDMA device(s), 12 port(s): 9 ACTIVE (Ethernet 1, InfiniBand 8), 3 not ACTIVE"
    assert state["problems"] == []


def test_the_role_check_reads_the_ports_it_needs(tmp_path):
    state = rdma_state(sysfs_tree.h100_ndr(tmp_path, full=True))
    expected = [{"device": "mlx5_0", "rate_gbps": 400, "link_layer": "InfiniBand"},
                {"device": "mlx5_2", "link_layer": "Ethernet"}]
    check = port_check(state["ports"], expected, True)
    assert not check["ok"] and check["mismatches"] == ["mlx5_2/1: state is DOWN, expected ACTIVE"]


def test_a_value_sysfs_gives_that_is_not_understood_is_named(tmp_path):
    state = rdma_state(sysfs_tree.h100_ndr(tmp_path, overrides={"mlx5_0": {"rate": "fast"}}))
    assert len(state["problems"]) == 1 and "mlx5_0/ports/1/rate" in state["problems"][0]
    assert next(p for p in state["ports"] if p["device"] == "mlx5_0")["rate_gbps"] is None


def test_no_class_infiniband_is_no_device(tmp_path):
    state = rdma_state(str(tmp_path))
    assert state["devices"] == [] and state["ports"] == [] and state["summary"]["ports"] == 0
    assert state["msg"] == ("no RDMA device found: %s/class/infiniband is empty or missing; is the HCA driver "
                            "(mlx5_ib, ib_core) loaded?" % tmp_path)
