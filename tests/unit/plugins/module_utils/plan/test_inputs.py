# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Stage 1 of plan.yml (module_utils/plan/inputs.py): the small inventory worked by hand, the reference one, the
whole-node power checks and the helpers' properties."""

from __future__ import annotations

import copy
from collections import Counter

import jinja2
import jinja2.filters
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.build import build_plan
from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.inputs import (
    ClusterPlanError,
    as_built_assignment,
    plain,
    plan_inputs,
    power_pdus,
    rack_placement,
    unique,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.power.scenarios import check_assignment
from ansible_collections.gpufleet.cluster.plugins.module_utils.power.layout import PowerLayoutError, plan_layout

from small_plan import GROUPS, HARDWARE, LAYOUT, SMALL, reference_inputs, with_power


def test_inputs_of_the_small_inventory():
    inputs = plan_inputs(SMALL, GROUPS, HARDWARE)
    assert inputs["name"] == "mini" and inputs["derating"] == 0.8
    assert inputs["pdu_model"] == {"model": "230 V, 2 x 16 A", "input_rating_a": 32}
    # r1: 2 x 2300 = 4600 W of 5000; r2: 2300 W of 3000.
    assert inputs["racks"] == [{"name": "r1", "nodes": "n[1-2]", "count": 2, "loads": [], "loads_w": 0, "max_power_w": 4600,
                                "budget_w": 5000},
                               {"name": "r2", "nodes": "n3", "count": 1, "loads": [], "loads_w": 0, "max_power_w": 2300,
                                "budget_w": 3000}]
    # Both racks fit at full power; the hardware gives no GPU watts, so no cap could be computed.
    assert inputs["power_budget"] == {
        "choice": "none", "gpu_power_cap_w": None, "gpu_power_w": None, "errors": [], "warnings": [],
        "fit": [{"name": "r1", "draw_w": 4600, "budget_w": 5000, "fits": True, "over_w": 0, "max_nodes": 2, "gpu_power_cap_w": None},
                {"name": "r2", "draw_w": 2300, "budget_w": 3000, "fits": True, "over_w": 0, "max_nodes": 1, "gpu_power_cap_w": None}]}
    assert inputs["placement"] == {"not_in_a_rack": [], "in_no_node_type": [], "in_two_racks": [], "in_two_node_types": []}
    nodes = inputs["layout_input"]["nodes"]
    assert [(n["name"], n["rack"]) for n in nodes] == [("n1", "r1"), ("n2", "r1"), ("n3", "r2")]
    assert nodes[0] == {"name": "n1", "rack": "r1", "max_power_w": 2300, "psus": 2, "psus_required": 1, "power_factor": 1.0,
                        "node_type": "gpu2"}
    # One PDU per rack and feed: 2 racks x 2 feeds.
    assert [p["name"] for p in inputs["layout_input"]["pdus"]] == ["r1-pdu-a", "r1-pdu-b", "r2-pdu-a", "r2-pdu-b"]
    assert inputs["layout_input"]["imbalance_limit"] is None
    # As built: 4 breakers, r1's two with 2 nodes x 1 PSU each, r2's with 1: 2 + 2 + 1 + 1 rows.
    assert len(inputs["as_built"]["assignment"]) == 6
    assert inputs["as_built"]["assignment"][:2] == [{"node": "n1", "psu": 1, "pdu": "r1-pdu-a", "circuit": "cb1"},
                                                    {"node": "n2", "psu": 1, "pdu": "r1-pdu-a", "circuit": "cb1"}]
    assert [len(p["circuits"]) for p in inputs["as_built"]["input"]["pdus"]] == [1, 1, 1, 1]
    assert inputs["node_types"] == [{"name": "gpu2", "group": "gpu_nodes", "hosts": ["n1", "n2", "n3"], "nccl_layout": LAYOUT,
                                     "hardware": {"gpus": 2, "rdma_hcas": 1}}]


def test_as_built_pdus_are_the_layout_input_with_pdus_as_built():
    inputs = plan_inputs(SMALL, GROUPS, pdus="as_built")
    assert inputs["pdu_model"] == {"model": "230 V, 1 x 16 A", "input_rating_a": None}
    # Each as-built PDU has one breaker; r1 needs two per feed (10 A per PSU after a feed loss, 12.8 A allowed).
    with pytest.raises(PowerLayoutError, match="rack 'r1' is out of circuits on feed A"):
        plan_layout(inputs["layout_input"])


def test_placement_names_every_misplaced_host():
    bad = copy.deepcopy(SMALL)
    bad["gpufleet_plan_power"]["racks"] = [{"name": "r1", "nodes": "n[1-2],head"}, {"name": "r2", "nodes": "n2"}]
    inputs = plan_inputs(bad, GROUPS)
    assert inputs["placement"] == {"not_in_a_rack": ["n3"], "in_no_node_type": ["head"], "in_two_racks": ["n2"],
                                   "in_two_node_types": []}
    # n2 is counted in both racks; head (no node type) draws nothing.
    assert [(r["nodes"], r["max_power_w"]) for r in inputs["racks"]] == [("head,n[1-2]", 4600), ("n2", 2300)]
    assert [n["rack"] for n in inputs["layout_input"]["nodes"]] == ["r1", "r2", ""]  # last rack wins, none for n3


def test_rack_without_budget_and_missing_keys():
    bad = copy.deepcopy(SMALL)
    bad["gpufleet_power"]["racks"] = [{"name": "r1", "budget_w": 5000}]
    assert plan_inputs(bad, GROUPS)["racks"][1]["budget_w"] is None
    del bad["gpufleet_plan_power"]["feeds"]
    with pytest.raises(ClusterPlanError, match=r"gpufleet_plan_power\.feeds is missing"):
        plan_inputs(bad, GROUPS)
    with pytest.raises(ClusterPlanError, match=r"group 'gpu_nodes' is not an inventory group"):
        plan_inputs(SMALL, {"all": []})
    with pytest.raises(ClusterPlanError, match=r"racks\[0\]\.nodes: .*n\[1-2"):
        plan_inputs(dict(SMALL, gpufleet_plan_power=dict(SMALL["gpufleet_plan_power"], racks=[{"name": "r1", "nodes": "n[1-2"}])), GROUPS)
    with pytest.raises(ClusterPlanError, match=r"gpufleet_plan_power\.as_built\.pdu, which is not set"):
        plan_inputs(dict(SMALL, gpufleet_plan_power={k: v for k, v in SMALL["gpufleet_plan_power"].items() if k != "as_built"}),
                    GROUPS, pdus="as_built")


def test_pdus_and_as_built_rows():
    pdus = power_pdus([{"name": "r7"}], ["A", "B", "C"], {"voltage": 230})
    assert pdus == [{"name": "r7-pdu-a", "rack": "r7", "feed": "A", "voltage": 230},
                    {"name": "r7-pdu-b", "rack": "r7", "feed": "B", "voltage": 230},
                    {"name": "r7-pdu-c", "rack": "r7", "feed": "C", "voltage": 230}]
    # 3 nodes x 2 PSUs = 6 rows, nodes outer, PSUs inner.
    rows = as_built_assignment([{"pdu": "p", "circuit": "c", "nodes": "x[1-3]", "psus": [1, 3]}])
    assert [(r["node"], r["psu"]) for r in rows] == [("x1", 1), ("x1", 3), ("x2", 1), ("x2", 3), ("x3", 1), ("x3", 3)]


def test_a_mapping_or_list_of_the_wrong_type_is_refused_in_the_collections_wording():
    with pytest.raises(ClusterPlanError, match=r"^inventory must be a mapping, got \['x'\] of type list$"):
        plan_inputs(["x"], GROUPS)
    bad = copy.deepcopy(SMALL)
    bad["gpufleet_plan_power"]["feeds"] = "A"
    with pytest.raises(ClusterPlanError, match=r"^gpufleet_plan_power\.feeds must be a list, got 'A' of type str$"):
        plan_inputs(bad, GROUPS)


class _Str(str):
    pass


def test_plain_drops_subtypes():
    value = plain({"a": (_Str("x"), 1, True, None, 2.5)})
    assert value == {"a": ["x", 1, True, None, 2.5]}
    assert [type(v) for v in value["a"]] == [str, int, bool, type(None), float]


# ---------------------------------------------------------------- properties

HOSTS = st.lists(st.sampled_from(["n1", "n2", "n3", "N3", "x10"]), max_size=8)


@settings(max_examples=200, deadline=None)
@given(HOSTS, HOSTS)
def test_placement_is_empty_exactly_when_the_old_jinja_check_passed(typed, racked):
    # plan.yml asserted: sorted(typed) == sorted(racked) and racked has no duplicates.
    old_ok = sorted(typed) == sorted(racked) and len(set(racked)) == len(racked)
    result = rack_placement(typed, racked)
    assert (result == {k: [] for k in result}) == old_ok
    assert set(result["in_two_racks"]) <= {h for h, n in Counter(racked).items() if n > 1}


@settings(max_examples=200, deadline=None)
@given(HOSTS)
def test_unique_is_jinjas_unique(items):
    # The reports used Ansible's `unique`, which is Jinja's (case-insensitive by default).
    assert unique(items) == list(jinja2.filters.do_unique(jinja2.Environment(), items))


# ---------------------------------------------------------------- the reference inventory (inventories/h100-64)


@pytest.fixture(scope="module")
def reference():
    """The reference inventory's plan inputs."""
    return reference_inputs()


def test_reference_inputs(reference):
    assert reference["name"] == "h100-64"
    # At full power: 8 x 10200 W + 3 x 650 W + 800 W = 84350 W against 60000 W, 24350 W over; (60000 - 2750) / 10200
    # = 5.6, so 5 nodes fit; cap (60000 - 2750 - 8 x (10200 - 8 x 700)) / 64 = 20450 / 64 = 319.5 -> 319 W.
    assert reference["power_budget"] == {
        "choice": "rack_budget", "gpu_power_cap_w": 319, "gpu_power_w": 700, "errors": [], "warnings": [],
        "fit": [{"name": "r01", "draw_w": 84350, "budget_w": 60000, "fits": False, "over_w": 24350, "max_nodes": 5,
                 "gpu_power_cap_w": 319}]}
    # As planned, capped: 8 x (10200 - 8 x (700 - 319)) + 2750 = 8 x 7152 + 2750 = 59966 W of 60000 W.
    assert reference["racks"] == [{"name": "r01", "nodes": "compute[01-08]", "count": 8,
                                   "loads": ["leaf1", "leaf2", "spine1", "slurm-head"], "loads_w": 2750, "max_power_w": 59966,
                                   "budget_w": 60000}]
    node = reference["layout_input"]["nodes"][0]
    assert node == {"name": "compute01", "rack": "r01", "max_power_w": 7152, "psus": 6, "psus_required": 3, "power_factor": 0.95,
                    "psu_rating_w": 3300, "node_type": "hgx-h100"}
    # 8 breakers x 2 nodes x 3 PSUs = 48 rows, every node PSU once.
    assert len(reference["as_built"]["assignment"]) == 48


# ---------------------------------------------------------------- whole-node power (issue 14)


def test_max_power_below_its_components_is_refused():
    # 2 GPUs x 700 W + 1 CPU x 350 W + 600 W = 2350 W > 2300 W.
    bad = with_power(components={"gpus": {"count": 2, "power_w": 700}, "cpus": {"count": 1, "power_w": 350}, "other_w": 600})
    with pytest.raises(ClusterPlanError) as err:
        plan_inputs(bad, GROUPS, HARDWARE)
    assert str(err.value) == (
        "gpufleet_plan_node_types[0].power.max_power_w 2300 W is below the sum of its components, 2350 W (2 x 700 W gpus + "
        "1 x 350 W cpus + other 600 W); max_power_w is the whole node's maximum input power: use the nameplate or the "
        "vendor's maximum")
    ok = with_power(components={"gpus": {"count": 2, "power_w": 700}, "other_w": 900})  # exactly 2300 W: accepted
    assert plan_inputs(ok, GROUPS, HARDWARE)["power_budget"]["warnings"] == []


def test_max_power_equal_to_the_gpus_alone_warns():
    # The design's mistake in small: 2300 W for 2 GPUs of 1150 W.
    inputs = plan_inputs(with_power(components={"gpus": {"count": 2, "power_w": 1150}}), GROUPS, HARDWARE)
    (warning,) = inputs["power_budget"]["warnings"]
    assert warning.startswith("node type gpu2: max_power_w 2300 W is its 2 GPUs x 1150 W alone; a whole node also feeds")
    plan = build_plan(inputs, plan_layout(inputs["layout_input"]),
                      check_assignment(inputs["as_built"]["input"], inputs["as_built"]["assignment"]))
    assert plan["summary"]["warnings"] == [warning]
    assert "**Warning:** %s.\n" % warning in plan["files"]["power.md"]
    assert "Warning: %s." % warning in plan["files"]["README.md"]
    # gpufleet_hardware's figures count too when the node type lists no components.
    hw = {"gpu_nodes": {"gpus": 2, "gpu_tdp_w": 1150, "rdma_hcas": 1}}
    assert len(plan_inputs(SMALL, GROUPS, hw)["power_budget"]["warnings"]) == 1


def test_over_budget_needs_a_way_out_and_the_cap_lowers_the_nodes():
    # r1: 2 x 2300 W = 4600 W against 4000 W. 2 GPUs of 700 W per node, lowest limit 100 W.
    inventory = with_power(components={"gpus": {"count": 2, "power_w": 700}}, gpu_min_power_w=100)
    inventory["gpufleet_power"]["racks"][0]["budget_w"] = 4000
    (error,) = plan_inputs(inventory, GROUPS, HARDWARE)["power_budget"]["errors"]
    # max_nodes floor(4000 / 2300) = 1 -> 2 racks; cap (4000 - 2 x (2300 - 1400)) / 4 = 2200 / 4 = 550 W.
    assert error.startswith("rack r1 draws up to 4600 W against its budget of 4000 W (600 W over); it holds 1 of its 2 nodes")
    assert "2 racks of this budget (1 nodes each)" in error and "to 550 W" in error
    inventory["gpufleet_power_cap"] = "rack_budget"
    inputs = plan_inputs(inventory, GROUPS, HARDWARE)
    assert inputs["power_budget"]["errors"] == [] and inputs["power_budget"]["gpu_power_cap_w"] == 550
    # Every GPU node is capped: 2300 - 2 x (700 - 550) = 2000 W; r1 4000 W of 4000 W, r2 2000 W of 3000 W.
    assert [n["max_power_w"] for n in inputs["layout_input"]["nodes"]] == [2000, 2000, 2000]
    assert [r["max_power_w"] for r in inputs["racks"]] == [4000, 2000]
    # A cap below the GPUs' lowest limit is no way out.
    inventory["gpufleet_plan_node_types"][0]["power"]["gpu_min_power_w"] = 600
    (error,) = plan_inputs(inventory, GROUPS, HARDWARE)["power_budget"]["errors"]
    assert "no GPU power cap (it would fall below the GPUs' lowest settable limit) (chosen, but unavailable)" in error
    with pytest.raises(ClusterPlanError, match=r"gpufleet_power_cap must be one of none, rack_budget \(or unset\), got 'always'"):
        plan_inputs(dict(inventory, gpufleet_power_cap="always"), GROUPS, HARDWARE)


def test_loads_are_laid_out_with_the_nodes():
    inventory = copy.deepcopy(SMALL)
    inventory["gpufleet_plan_power"]["racks"][1]["loads"] = [{"name": "sw1", "max_power_w": 300, "psus": 2, "psus_required": 1}]
    inputs = plan_inputs(inventory, GROUPS, HARDWARE)
    assert inputs["racks"][1] == {"name": "r2", "nodes": "n3", "count": 1, "loads": ["sw1"], "loads_w": 300, "max_power_w": 2600,
                                  "budget_w": 3000}
    assert inputs["layout_input"]["nodes"][-1] == {
        "name": "sw1", "max_power_w": 300, "psus": 2, "psus_required": 1, "rack": "r2", "node_type": "load"}
    layout = plan_layout(inputs["layout_input"])
    assert sorted(p["psu"] for p in layout["placements"] if p["node"] == "sw1") == [1, 2]
    # The as-built cabling describes the GPU nodes only.
    assert "sw1" not in [n["name"] for n in inputs["as_built"]["input"]["nodes"]]
    with pytest.raises(ClusterPlanError, match=r"racks\[1\]\.loads\[0\]\.name"):
        bad = copy.deepcopy(inventory)
        bad["gpufleet_plan_power"]["racks"][1]["loads"][0]["name"] = "sw 1\n"
        plan_inputs(bad, GROUPS, HARDWARE)
