# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""plan.yml's assembly (module_utils/plan/build.py): a small inventory worked by hand, then the reference one."""

from __future__ import annotations

import copy
import json
import os
from collections import Counter

import jinja2
import jinja2.filters
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.build import (
    ClusterPlanError,
    as_built_assignment,
    build_plan,
    hostlists,
    plain,
    plan_inputs,
    power_pdus,
    rack_placement,
    render_hostlists_md,
    to_json,
    _unique,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist import sort_hosts
from ansible_collections.gpufleet.cluster.plugins.module_utils.power.scenarios import check_assignment
from ansible_collections.gpufleet.cluster.plugins.module_utils.power.layout import PowerLayoutError, plan_layout

from reference_inventory import plan_inventory

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.dirname(__file__)), "..", "..", "..", ".."))

# One PCIe switch with 2 GPUs and 1 HCA.
LAYOUT = {"version": 1, "cpus": [{
    "numaid": 0, "affinity": "0-15", "arch": "x86_64", "vendor": "GenuineIntel", "familyid": 6, "modelid": 143,
    "pci": [{"busid": "0000:50:00.0", "class": "bridge", "link_speed": "gen5", "link_width": 16, "pci": [
        {"busid": "0000:52:00.0", "class": "ib", "link_speed": "gen5", "link_width": 16,
         "nic": {"net": [{"name": "mlx5_0", "dev": 0, "speed": 400000, "port": 1}]}},
        {"busid": "0000:53:00.0", "class": "gpu", "link_speed": "gen5", "link_width": 16},
        {"busid": "0000:54:00.0", "class": "gpu", "link_speed": "gen5", "link_width": 16}]}]}]}


def _one_phase(*names):
    return {"voltage": 230, "phases": 1, "circuits": [{"name": n, "rating_a": 16} for n in names]}


# Three 2300 W nodes with 2 PSUs (either carries the node), PF 1.0 so that amps = W / 230: a PSU draws 5 A
# normally and 10 A once the other feed is lost. A 16 A breaker may carry 16 x 0.8 = 12.8 A.
SMALL = {
    "gpufleet_cluster_name": "mini",
    "gpufleet_plan_node_types": [{"name": "gpu2", "group": "gpu_nodes", "nccl_layout": LAYOUT,
                                  "power": {"max_power_w": 2300, "psus": 2, "psus_required": 1, "power_factor": 1.0}}],
    "gpufleet_plan_power": {
        "derating": 0.8, "feeds": ["A", "B"],
        "racks": [{"name": "r1", "nodes": "n[1-2]"}, {"name": "r2", "nodes": "n3"}],
        "pdu": {"model": "230 V, 2 x 16 A", "input_rating_a": 32, "spec": _one_phase("cb1", "cb2")},
        # As built: both nodes of r1 on one breaker per feed.
        "as_built": {"pdu": {"model": "230 V, 1 x 16 A", "spec": _one_phase("cb1")},
                     "breakers": [{"pdu": "r1-pdu-a", "circuit": "cb1", "nodes": "n[1-2]", "psus": [1]},
                                  {"pdu": "r1-pdu-b", "circuit": "cb1", "nodes": "n[1-2]", "psus": [2]},
                                  {"pdu": "r2-pdu-a", "circuit": "cb1", "nodes": "n3", "psus": [1]},
                                  {"pdu": "r2-pdu-b", "circuit": "cb1", "nodes": "n3", "psus": [2]}]}},
    "gpufleet_plan_lustre": {"ost_bw_gbs": 2.0, "directories": [
        {"name": "data", "pattern": "shared_file", "clients": 3, "client_bw_gbs": 1.5, "apply": "stripe_plan",
         "sizes": {"p50_bytes": 1048576, "p90_bytes": 8388608, "max_bytes": 1073741824}}]},
    "gpufleet_lustre": {"fsname": "fs", "mountpoint": "/lus", "osts": 4},
    "gpufleet_power": {"racks": [{"name": "r1", "budget_w": 5000}, {"name": "r2", "budget_w": 3000}]},
}
GROUPS = {"all": ["n1", "n2", "n3", "head"], "ungrouped": [], "gpu_nodes": ["n1", "n2", "n3"], "head_nodes": ["head"]}
HARDWARE = {"gpu_nodes": {"gpus": 2, "rdma_hcas": 1}}


def _plan(inventory=None, groups=None):
    inventory = SMALL if inventory is None else inventory
    groups = GROUPS if groups is None else groups
    inputs = plan_inputs(inventory, groups, HARDWARE)
    layout = plan_layout(inputs["layout_input"])
    check = check_assignment(inputs["as_built"]["input"], inputs["as_built"]["assignment"]) if inputs["as_built"] else None
    return inputs, layout, check, build_plan(inputs, layout, check)


# ---------------------------------------------------------------- stage 1


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


# ---------------------------------------------------------------- stage 2


def test_small_plan_numbers():
    _inputs, layout, check, plan = _plan()
    # Planned: one PSU per breaker (two would be 20 A after a feed loss): r1 2 + 2, r2 1 + 1 = 6 of 8 breakers,
    # the busiest at 10 / 12.8 = 78.1 %.
    assert (layout["summary"]["circuits_used"], layout["summary"]["worst_utilisation"]) == (6, 0.7812)
    # As built: r1-pdu-a/cb1 carries n1/1 and n2/1; feed B lost: 2 x 2300 W = 20 A = 156.25 %; PSU n1/2 lost:
    # 2300 + 1150 W = 15 A = 117.2 %. The same on r1-pdu-b/cb1: 4 overloads; r2's breakers hold 10 A at worst.
    assert check["summary"]["violations"] == 4
    assert plan["summary"] == {
        "circuits_used": 6, "gpu_power_cap_w": None, "warnings": [], "as_built_violations": 4, "lustre_directories": 1,
        "nccl_files": ["nccl/gpu2.xml"],
        "hostlists": {"all": "head,n[1-3]", "ungrouped": "", "gpu_nodes": "n[1-3]", "head_nodes": "head"}}
    assert list(plan["files"]) == ["power.json", "power.md", "lustre.json", "lustre.md", "nccl/gpu2.xml", "hostlists.json",
                                   "hostlists.md", "README.md"]
    # 3 clients x 1.5 GB/s = 4.5 GB/s; ceil(4.5 / 2.0) = 3 stripes of 4 OSTs.
    assert plan["lustre"] == [{"path": "/lus/data", "apply": "stripe_plan", "command": "lfs setstripe -c 3 -S 1M /lus/data"}]
    assert plan["nccl"] == [{"name": "gpu2", "group": "gpu_nodes", "file": "nccl/gpu2.xml", "hosts": "n[1-3]", "gpus": 2, "nets": 1,
                             "hardware_gpus": 2, "hardware_hcas": 1}]


def test_small_plan_reports():
    _inputs, _layout, _check, plan = _plan()
    files = plan["files"]
    readme = files["README.md"].splitlines()
    assert readme[7] == ("| [power.md](power.md), [power.json](power.json) | Racks at full power: r1 4600 W of 5000 W; r2 2300 W of "
                         "3000 W. PDU breaker layout: 6 breakers, worst 78.1 % of a limit "
                         "(r1-pdu-a/cb1). The design's as-built plan: 4 violations, worst 156.2 % |")
    assert readme[8:] == ["| [lustre.md](lustre.md), [lustre.json](lustre.json) | `/lus/data`: stripe_plan |",
                          "| [nccl/gpu2.xml](nccl/gpu2.xml) | NCCL_TOPO_FILE for `n[1-3]` (gpu_nodes): 2 GPUs, 1 RDMA ports |",
                          "| [hostlists.md](hostlists.md), [hostlists.json](hostlists.json) | `all` = `head,n[1-3]`, "
                          "`gpu_nodes` = `n[1-3]`, `head_nodes` = `head` |"]
    power = files["power.md"]
    assert "| r1 | `n[1-2]` (2) | 4600 W | 5000 W (92.0 % used) |\n" in power
    assert "| feed B lost | 4600.0 | 20.00 | 156.2 % |\n| PSU n1/2 lost | 3450.0 | 15.00 | 117.2 % |\n" in power
    # Spare on the layout's busiest breaker: 12.8 A x 230 V x PF 1.0 - 2300 W = 644 W.
    assert "78.1 % of its 12.80 A limit,\n644.0 W to spare at PF 1.0.\n" in power
    assert "| r1-pdu-a | 10.0 | None | None | 20.0 | feed B lost | 25.6 |\n" in power  # input limit 32 A x 0.8
    assert power.endswith("| n3 | r2 | r2-pdu-a/cb1 | r2-pdu-b/cb1 |\n")
    assert json.loads(files["power.json"])["as_built"]["check"]["summary"]["violations"] == 4
    assert json.loads(files["lustre.json"])["directories"][0]["stripe_plan"]["stripe_count"] == 3
    assert json.loads(files["hostlists.json"])["ungrouped"] == {"group": "ungrouped", "count": 0, "hostlist": "", "hosts": []}
    assert files["nccl/gpu2.xml"].count('class="0x030200"') == 2
    assert "| `/lus/data` | shared_file | 3 x 1.5 | 3 x 1M | 4.5 (client bandwidth) | 1 / 1 / 4 | stripe_plan |\n" in files["lustre.md"]


def test_plan_without_as_built_and_without_model_text():
    inventory = copy.deepcopy(SMALL)
    del inventory["gpufleet_plan_power"]["as_built"]
    del inventory["gpufleet_plan_power"]["pdu"]["model"]
    del inventory["gpufleet_plan_power"]["pdu"]["input_rating_a"]
    inputs, _layout, check, plan = _plan(inventory)
    assert check is None and plan["summary"]["as_built_violations"] is None
    power = plan["files"]["power.md"]
    assert "The inventory describes no as-built cabling (`gpufleet_plan_power.as_built`), so there is nothing to check.\n" in power
    assert "PDUs (planned): as described in the inventory, one per rack and feed.\n" in power
    assert "| r1-pdu-a | 10.0 | None | None | 20.0 | feed B lost | n/a |\n" in power
    assert json.loads(plan["files"]["power.json"])["as_built"] is None
    assert plan["files"]["README.md"].splitlines()[7].endswith("(r1-pdu-a/cb1). |")
    with pytest.raises(ClusterPlanError, match="pass the pdu_check result"):
        build_plan(dict(inputs, as_built={"pdu_model": ""}), plan_layout(inputs["layout_input"]), None)


def test_lustre_errors_name_the_directory():
    bad = copy.deepcopy(SMALL)
    bad["gpufleet_plan_lustre"]["directories"][0]["pattern"] = "random"
    inputs = plan_inputs(bad, GROUPS, HARDWARE)
    with pytest.raises(ClusterPlanError, match=r"directories\[0\] \(/lus/data\): .*random"):
        checked = check_assignment(inputs["as_built"]["input"], inputs["as_built"]["assignment"])
        build_plan(inputs, plan_layout(inputs["layout_input"]), checked)


def test_hostlists_md_and_json():
    lists = hostlists({"all": ["b2", "b1", "a"], "none": []})
    assert lists == [{"group": "all", "count": 3, "hostlist": "a,b[1-2]", "hosts": ["a", "b1", "b2"]},
                     {"group": "none", "count": 0, "hostlist": "", "hosts": []}]
    assert render_hostlists_md("x", lists).endswith(
        "| `all` | 3 | `a,b[1-2]` |\n| `none` | 0 | (empty) |\n\n## Expansions\n\n* `all`: a, b1, b2\n* `none`: (empty)\n")
    assert to_json({"b": [1], "a": 0.5}) == '{\n  "a": 0.5,\n  "b": [\n    1\n  ]\n}\n'


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
    assert _unique(items) == list(jinja2.filters.do_unique(jinja2.Environment(), items))


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["g1", "g2", "g3"]), st.lists(st.sampled_from(["a1", "a2", "a10", "b", "c07"]), max_size=6)))
def test_hostlist_expansion_is_the_sorted_unique_group(groups):
    for row in hostlists(groups):
        assert row["hosts"] == (sort_hosts(groups[row["group"]]) if groups[row["group"]] else [])
        assert row["count"] == len(groups[row["group"]])


# ---------------------------------------------------------------- the reference inventory (inventories/h100-64)


@pytest.fixture(scope="module")
def reference():
    """The reference inventory as plan.yml reads it: groups from hosts.yml, its templates rendered."""
    inventory, groups, hardware = plan_inventory()
    assert groups["gpu_nodes"] == ["compute%02d" % i for i in range(1, 9)]
    return plan_inputs(inventory, groups, {"gpu_nodes": hardware})


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


def test_reference_plan(reference):
    layout = plan_layout(reference["layout_input"])
    check = check_assignment(reference["as_built"]["input"], reference["as_built"]["assignment"])
    plan = build_plan(reference, layout, check)
    # As built, each 230 V breaker holds 3 PSUs of 2 capped nodes: normally 7152 W = 32.73 A (127.9 % of 25.6 A),
    # after the other feed's loss 14304 W = 65.47 A (255.7 %): 8 normal + 8 feed-loss + 8 PSU-loss overloads.
    assert plan["summary"]["as_built_violations"] == 24
    assert check["summary"]["worst_utilisation"] == 2.5572
    # Planned: two node PSUs per 32 A L-N breaker (2 x 2384 W after a feed loss = 21.73 A of 25.6 A), a switch or the
    # head node PSU beside some of them: all 12 breakers per feed, the busiest 25.38 A (99.1 %).
    assert plan["summary"]["circuits_used"] == 24
    assert plan["summary"]["gpu_power_cap_w"] == 319
    assert plan["summary"]["hostlists"]["gpu_nodes"] == "compute[01-08]"
    # datasets: 64 GPUs x 1.5 GB/s = 96 GB/s, ceil(96 / 10) = 10 stripes, clamped to the 8 OSTs.
    lustre = json.loads(plan["files"]["lustre.json"])
    assert lustre["directories"][0]["stripe_plan"]["stripe_count"] == 8
    assert [d["command"] for d in plan["lustre"]] == [
        "lfs setstripe -c 8 -S 1M /mnt/lustre/datasets",
        "lfs setstripe -E 64M -c 1 -S 1M -E 1G -c 4 -S 1M -E -1 -c 8 -S 4M /mnt/lustre/checkpoints",
        "lfs setstripe -E 64M -c 1 -S 1M -E 1G -c 4 -S 1M -E -1 -c 8 -S 4M /mnt/lustre/scratch"]
    assert [(t["gpus"], t["nets"], t["hardware_gpus"], t["hardware_hcas"]) for t in plan["nccl"]] == [(8, 8, 8, 8)]
    readme = plan["files"]["README.md"]
    assert ("| [power.md](power.md), [power.json](power.json) | Racks at full power: r01 84350 W of 60000 W (does not fit). "
            "GPU power cap 319 W per GPU (gpufleet_power_cap: rack_budget). PDU breaker layout: 24 breakers, worst 99.1 % of a "
            "limit (r01-pdu-a/cb01). The design's as-built plan: 24 violations, worst 255.7 %") in readme
    power = plan["files"]["power.md"]
    assert "| r01 | 84350 W | 60000 W | **no** | 24350 W | 5 of 8 | 319 W per GPU |\n" in power
    assert "**GPU power cap applied: 319 W per GPU.**" in power and "(45.6 % of its 700 W)" in power
    assert "It is a power limit, not a clock setting" in power
    # Worst PSU load: after a feed loss 3 PSUs carry the capped 7152 W, 2384 W each, 72.2 % of 3300 W.
    assert "| hgx-h100 | compute[01-08] | 3 | 2384 W | feed A lost | 3300 W | 72.2 % |\n" in power
    assert "`pdu_check` finds **24 violation(s)**, 24 of them overloads on 8 of\n8 breakers.\n" in power
    assert "| r01-pdu-a | 45.289 / 46.428 / 44.947 | 1.343 | 0.0192 | 92.856 | feed B lost | 100.0 |\n" in power
    assert "| r01-pdu-a | cb01 | L1 | 230.94 | compute01/1, compute01/3, slurm-head/1 | 12.69 | 25.379 | feed B lost | 99.1 |\n" in power


# ---------------------------------------------------------------- whole-node power (issue 14)


def _with_power(**power):
    inventory = copy.deepcopy(SMALL)
    inventory["gpufleet_plan_node_types"][0]["power"].update(power)
    return inventory


def test_max_power_below_its_components_is_refused():
    # 2 GPUs x 700 W + 1 CPU x 350 W + 600 W = 2350 W > 2300 W.
    bad = _with_power(components={"gpus": {"count": 2, "power_w": 700}, "cpus": {"count": 1, "power_w": 350}, "other_w": 600})
    with pytest.raises(ClusterPlanError) as err:
        plan_inputs(bad, GROUPS, HARDWARE)
    assert str(err.value) == (
        "gpufleet_plan_node_types[0].power.max_power_w 2300 W is below the sum of its components, 2350 W (2 x 700 W gpus + "
        "1 x 350 W cpus + other 600 W); max_power_w is the whole node's maximum input power: use the nameplate or the "
        "vendor's maximum")
    ok = _with_power(components={"gpus": {"count": 2, "power_w": 700}, "other_w": 900})  # exactly 2300 W: accepted
    assert plan_inputs(ok, GROUPS, HARDWARE)["power_budget"]["warnings"] == []


def test_max_power_equal_to_the_gpus_alone_warns():
    # The design's mistake in small: 2300 W for 2 GPUs of 1150 W.
    inputs = plan_inputs(_with_power(components={"gpus": {"count": 2, "power_w": 1150}}), GROUPS, HARDWARE)
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
    inventory = _with_power(components={"gpus": {"count": 2, "power_w": 700}}, gpu_min_power_w=100)
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
