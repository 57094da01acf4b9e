# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The reference design's planning inputs (inventories/h100-64/group_vars/all/plan.yml) give the numbers
docs/plan.md quotes.

The inventory is assembled the way playbooks/plan.yml assembles it, with module_utils/cluster_plan.plan_inputs: the
hosts of gpu_nodes, each rack's hostlist, one PDU per rack and feed named <rack>-pdu-<feed>, the as-built breakers
expanded to one row per PSU. Its few templates (`gpufleet_plan_gpus`, the HCA speed) are rendered with the
inventory's own values.
"""

from __future__ import annotations

import os
import sys

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.cluster_plan import lustre_plans, plan_inputs
from ansible_collections.gpufleet.cluster.plugins.module_utils.hostlist import compress_hostlist
from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl_topology import render_xml
from ansible_collections.gpufleet.cluster.plugins.module_utils.power import check_assignment
from ansible_collections.gpufleet.cluster.plugins.module_utils.power_layout import PowerLayoutError, plan_layout

_UNIT = os.path.dirname(os.path.abspath(__file__))
if _UNIT not in sys.path:
    sys.path.insert(0, _UNIT)
from fixtures.sysfs.nccl_reader import nccl_read  # noqa: E402
from reference_inventory import plan_inventory  # noqa: E402


@pytest.fixture(scope="module")
def inv():
    inventory, groups, node_hw = plan_inventory()
    return dict(inventory, groups=groups, node_hw=node_hw, gpus=inventory["gpufleet_plan_gpus"])


def _inputs(inv, pdus="planned"):
    """What plan.yml's cluster_plan_inputs filter hands pdu_layout and pdu_check."""
    return plan_inputs(inv, inv["groups"], {"gpu_nodes": inv["node_hw"]}, pdus=pdus)


def _power_input(inv, pdu_kind="planned"):
    return _inputs(inv, pdu_kind)["layout_input"]


def test_inventory_shape(inv):
    assert inv["gpus"] == 64
    assert compress_hostlist(inv["groups"]["gpu_nodes"]) == "compute[01-08]"
    inputs = _inputs(inv)
    assert inputs["placement"] == {"not_in_a_rack": [], "in_no_node_type": [], "in_two_racks": [], "in_two_node_types": []}
    # 8 nodes x 5600 W within the rack's 60 kW.
    assert inputs["racks"] == [{"name": "r01", "nodes": "compute[01-08]", "count": 8, "max_power_w": 44800, "budget_w": 60000}]


def test_planned_layout_survives_a_feed_loss(inv):
    result = plan_layout(_power_input(inv))
    summary = result["summary"]
    assert summary["psus"] == 32 and summary["scenarios"] == 35
    # Two PSUs per 32 A L-N breaker at 230.94 V: 5600 W = 25.525 A of 25.6 A after a feed loss. The imbalance
    # limit 0.2 makes it 9 breakers per feed (3/3/2 on 8 breakers would be 0.25).
    assert result["racks"] == [{"rack": "r01", "circuits_used": {"A": 9, "B": 9}, "circuits_available": {"A": 12, "B": 12}}]
    assert summary["worst_utilisation"] == 0.9971
    input_limit = inv["gpufleet_plan_power"]["pdu"]["input_rating_a"] * inv["gpufleet_plan_power"]["derating"]
    for pdu in result["pdus"]:
        assert pdu["imbalance"] == 0.125
        assert pdu["line_currents_a"] == {"L1": 38.287, "L2": 31.906, "L3": 31.906}
        assert pdu["worst_line_a"] == 76.575 <= input_limit == 100.0
    # Every used breaker holds PSUs of different nodes.
    for circuit in result["circuits"]:
        owners = [p.split("/")[0] for p in circuit["psus"]]
        assert len(owners) == len(set(owners)) <= 2
    assert check_assignment(_power_input(inv), result)["ok"]


def test_as_built_breaker_plan_is_overloaded(inv):
    as_built = _inputs(inv)["as_built"]
    check = check_assignment(as_built["input"], as_built["assignment"])
    assert not check["ok"]
    assert check["summary"]["violations"] == 24  # 8 breakers x (normal, other feed lost, worst PSU lost)
    assert {v["type"] for v in check["violations"]} == {"overload"}
    cb1 = next(c for c in check["circuits"] if (c["pdu"], c["circuit"]) == ("r01-pdu-a", "cb1"))
    assert cb1["limit_a"] == 25.6
    assert (cb1["normal_w"], cb1["normal_a"]) == (5600.0, 25.629)
    assert (cb1["worst_w"], cb1["worst_a"], cb1["worst_scenario"]) == (11200.0, 51.259, "feed B lost")
    assert cb1["utilisation"] == 2.0023


def test_as_built_pdus_cannot_be_laid_out(inv):
    with pytest.raises(PowerLayoutError, match=r"out of circuits on feed A: 12 PSU\(s\).*add about 12 more 32 A"):
        plan_layout(_power_input(inv, "as_built"))


def test_lustre_directories(inv):
    plans = {d["path"].rsplit("/", 1)[1]: (d["stripe_plan"], d["pfl"]) for d in lustre_plans(_inputs(inv)["lustre"])}
    datasets, _pfl = plans["datasets"]
    # 64 GPU readers x 1.5 GB/s = 96 GB/s, ceil(96 / 10) = 10 stripes, clamped to 8 OSTs.
    assert (datasets["stripe_count"], datasets["aggregate_gbs"], datasets["limiting_factor"]) == (8, 80.0, "ost_bandwidth")
    assert datasets["lfs_setstripe_args"] == ["-c", "8", "-S", "1M"]
    ckpt_plan, ckpt_pfl = plans["checkpoints"]
    assert ckpt_plan["stripe_count"] == 1  # 64 files >= 8 OSTs
    assert ckpt_pfl["command"] == "lfs setstripe -E 64M -c 1 -S 1M -E 1G -c 4 -S 1M -E -1 -c 8 -S 4M /mnt/lustre/checkpoints"
    assert plans["scratch"][0]["limiting_factor"] == "client_bandwidth"


def test_nccl_layout(inv):
    (node_type,) = inv["gpufleet_plan_node_types"]
    xml = render_xml(node_type["nccl_layout"])
    tree = nccl_read(xml)
    assert xml.count('class="0x030200"') == inv["node_hw"]["gpus"] == 8
    assert xml.count("<net ") == inv["node_hw"]["rdma_hcas"] == 8
    assert ['name="mlx5_%d"' % i in xml for i in range(8)] == [True] * 8
    assert xml.count('speed="200000"') == 8  # HDR, from gpufleet_fabric.rate_gbps
    assert xml.count('class="0x060400"') == 4
    assert [name for name, _attrs, _kids in tree] == ["system"]
