# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The reference design's planning inputs (inventories/h100-64/group_vars/all/plan.yml) give the numbers
docs/plan.md quotes.

The inventory is assembled the way playbooks/plan.yml assembles it, with module_utils/plan/inputs.plan_inputs:
the hosts of gpu_nodes, each rack's hostlist, one PDU per rack and feed named <rack>-pdu-<feed>, the as-built breakers
expanded to one row per PSU. Its few templates (`gpufleet_plan_gpus`, the HCA speed) are rendered with the
inventory's own values.
"""

from __future__ import annotations

import os
import sys

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.build import lustre_plans
from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.inputs import plan_inputs
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist import compress_hostlist
from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.topology import render_xml
from ansible_collections.gpufleet.cluster.plugins.module_utils.power.scenarios import check_assignment
from ansible_collections.gpufleet.cluster.plugins.module_utils.power.layout import PowerLayoutError, plan_layout

_UNIT = os.path.dirname(os.path.abspath(__file__))
if _UNIT not in sys.path:
    sys.path.insert(0, _UNIT)
from fake_sysfs.nccl_reader import nccl_read  # noqa: E402
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
    # Whole-node figures: 8 x 10200 W + 2750 W of loads = 84350 W does not fit 60 kW; the inventory caps the GPUs at
    # 319 W, (60000 - 2750 - 8 x 4600) / 64 = 319.5 rounded down, and pins the same figure for gpu_tuning.
    assert inputs["power_budget"]["gpu_power_cap_w"] == inv["gpufleet_gpu_power_cap_w"] == 319
    assert inputs["power_budget"]["fit"][0]["draw_w"] == 84350 and inputs["power_budget"]["errors"] == []
    # Capped: 8 x 7152 W + 2750 W = 59966 W within the rack's 60 kW.
    assert [(r["name"], r["max_power_w"], r["budget_w"]) for r in inputs["racks"]] == [("r01", 59966, 60000)]


def test_node_figures_are_whole_node(inv):
    (node_type,) = inv["gpufleet_plan_node_types"]
    power = node_type["power"]
    # DGX H100 User Guide: 10.2 kW maximum, six 3.3 kW PSUs; 8 x 700 W GPUs + 2 x 350 W CPUs = 6300 W listed.
    assert (power["max_power_w"], power["psus"], power["psu_rating_w"]) == (10200, 6, 3300)
    assert power["max_power_w"] >= 8 * 700 + 2 * 350


def test_without_a_way_out_the_rack_is_refused(inv):
    refused = dict(inv, gpufleet_power_cap="none", gpufleet_gpu_power_cap_w=None)
    (error,) = _inputs(refused)["power_budget"]["errors"]
    assert error.startswith("rack r01 draws up to 84350 W against its budget of 60000 W (24350 W over); it holds 5 of its 8 "
                            "nodes at full power. Ways out: more racks (2 racks of this budget (5 nodes each)")
    assert "gpufleet_power_cap: rack_budget, which limits every GPU of the rack to 319 W" in error
    pinned_wrong = dict(inv, gpufleet_gpu_power_cap_w=700)
    assert _inputs(pinned_wrong)["power_budget"]["errors"] == [
        "gpufleet_gpu_power_cap_w is 700 in the inventory, but the plan computes 319 W; set it to 319 (it is the power limit "
        "gpu_tuning applies and validate.yml checks)"]


def test_two_racks_keep_the_gpus_at_full_power(inv):
    # The other way out: a second 60 kW rack, racks without `nodes`: the plan spreads the 8 nodes 4 + 4.
    loads = inv["gpufleet_plan_power"]["racks"][0]["loads"]
    power = dict(inv["gpufleet_plan_power"], racks=[{"name": "r01", "loads": loads}, {"name": "r02"}])
    two = dict(inv, gpufleet_plan_power=power, gpufleet_power_cap="none", gpufleet_gpu_power_cap_w=None,
               gpufleet_power={"racks": [{"name": "r01", "budget_w": 60000}, {"name": "r02", "budget_w": 60000}]})
    inputs = _inputs(two)
    # r01: 4 x 10200 + 2750 = 43550 W; r02: 40800 W. Both fit, no cap.
    assert [(r["name"], r["nodes"], r["max_power_w"]) for r in inputs["racks"]] == [
        ("r01", "compute[01-04]", 43550), ("r02", "compute[05-08]", 40800)]
    assert inputs["power_budget"]["gpu_power_cap_w"] is None and inputs["power_budget"]["errors"] == []
    # Full power on two feeds: after a feed loss 3 PSUs must carry 10200 W, 3400 W > 3300 W: refused, naming the fixes.
    with pytest.raises(PowerLayoutError, match=r"hgx-h100.*3 x 3300 W = 9900 W < 10200 W.*a third feed"):
        plan_layout(inputs["layout_input"])
    # With a third feed (2 + 2 + 2) four PSUs are left, 2550 W each (8 PSUs on 3 phases of a PDU cannot meet the
    # 20 % imbalance limit, 3/3/2 is 25 %: not checked here).
    three = dict(two, gpufleet_plan_power=dict(power, feeds=["A", "B", "C"], imbalance_limit=None))
    result = plan_layout(_inputs(three)["layout_input"])
    assert {(r["worst_w"], r["live_psus"]) for r in result["psu_loads"] if r["node_type"] == "hgx-h100"} == {(2550, 4)}


def test_planned_layout_survives_a_feed_loss(inv):
    result = plan_layout(_power_input(inv))
    summary = result["summary"]
    # 8 nodes x 6 PSUs + 4 loads x 2 PSUs = 56 PSUs; scenarios: normal, 2 feeds, 56 PSUs.
    assert summary["psus"] == 56 and summary["scenarios"] == 59
    # Two capped-node PSUs per 32 A L-N breaker at 230.94 V: 2 x 2384 W = 21.73 A of 25.6 A after a feed loss; a switch
    # or the head node beside them on four breakers. All 12 breakers of each feed.
    assert result["racks"] == [{"rack": "r01", "circuits_used": {"A": 12, "B": 12}, "circuits_available": {"A": 12, "B": 12}}]
    assert summary["worst_utilisation"] == 0.9914
    input_limit = inv["gpufleet_plan_power"]["pdu"]["input_rating_a"] * inv["gpufleet_plan_power"]["derating"]
    for pdu in result["pdus"]:
        assert pdu["imbalance"] == 0.0192
        # After a feed loss one PDU carries 59966 W: about 91 A per line on average, 92.856 A on the busiest.
        assert pdu["worst_line_a"] == 92.856 <= input_limit == 100.0
    assert check_assignment(_power_input(inv), result)["ok"]


def test_as_built_breaker_plan_is_overloaded(inv):
    as_built = _inputs(inv)["as_built"]
    check = check_assignment(as_built["input"], as_built["assignment"])
    assert not check["ok"]
    assert check["summary"]["violations"] == 24  # 8 breakers x (normal, other feed lost, worst PSU lost)
    assert {v["type"] for v in check["violations"]} == {"overload"}
    cb1 = next(c for c in check["circuits"] if (c["pdu"], c["circuit"]) == ("r01-pdu-a", "cb1"))
    assert cb1["limit_a"] == 25.6
    # 3 PSUs of 2 capped nodes: 7152 W / (230 V x 0.95) = 32.73 A normally, twice that after feed B's loss.
    assert (cb1["normal_w"], cb1["normal_a"]) == (7152.0, 32.732)
    assert (cb1["worst_w"], cb1["worst_a"], cb1["worst_scenario"]) == (14304.0, 65.465, "feed B lost")
    assert cb1["utilisation"] == 2.5572


def test_as_built_pdus_cannot_be_laid_out(inv):
    with pytest.raises(PowerLayoutError, match=r"out of circuits on feed A: 16 PSU\(s\).*add about 8 more 32 A"):
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
