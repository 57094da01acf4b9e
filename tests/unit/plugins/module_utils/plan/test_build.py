# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Stage 2 of plan.yml (module_utils/plan/build.py): the small inventory's plan worked by hand, then the reference
one's (the Markdown reports' text: plan/report/test_markdown.py)."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.build import build_plan, hostlists, to_json
from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.inputs import ClusterPlanError, plan_inputs
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist import sort_hosts
from ansible_collections.gpufleet.cluster.plugins.module_utils.power.scenarios import check_assignment
from ansible_collections.gpufleet.cluster.plugins.module_utils.power.layout import plan_layout

from small_plan import GROUPS, HARDWARE, SMALL, reference_inputs, reference_plan, small_plan


def test_small_plan_numbers():
    _inputs, layout, check, plan = small_plan()
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


def test_plan_without_as_built_and_without_model_text():
    inventory = copy.deepcopy(SMALL)
    del inventory["gpufleet_plan_power"]["as_built"]
    del inventory["gpufleet_plan_power"]["pdu"]["model"]
    del inventory["gpufleet_plan_power"]["pdu"]["input_rating_a"]
    inputs, _layout, check, plan = small_plan(inventory)
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


def test_hostlists_and_json():
    lists = hostlists({"all": ["b2", "b1", "a"], "none": []})
    assert lists == [{"group": "all", "count": 3, "hostlist": "a,b[1-2]", "hosts": ["a", "b1", "b2"]},
                     {"group": "none", "count": 0, "hostlist": "", "hosts": []}]
    assert to_json({"b": [1], "a": 0.5}) == '{\n  "a": 0.5,\n  "b": [\n    1\n  ]\n}\n'


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["g1", "g2", "g3"]), st.lists(st.sampled_from(["a1", "a2", "a10", "b", "c07"]), max_size=6)))
def test_hostlist_expansion_is_the_sorted_unique_group(groups):
    for row in hostlists(groups):
        assert row["hosts"] == (sort_hosts(groups[row["group"]]) if groups[row["group"]] else [])
        assert row["count"] == len(groups[row["group"]])


# ---------------------------------------------------------------- the reference inventory (inventories/h100-64)


@pytest.fixture(scope="module")
def reference():
    """The reference inventory's plan inputs."""
    return reference_inputs()


def test_reference_plan(reference):
    check, plan = reference_plan(reference)
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
