# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A small three-node, two-rack cluster "mini" worked by hand, and the reference inventory (inventories/h100-64) as
plan.yml reads it: the inventories of the plan's unit tests (stage 1 in tests/unit/plugins/module_utils/plan/
test_inputs.py, stage 2 in test_build.py, the reports in report/test_markdown.py).
"""

from __future__ import annotations

import copy

from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.build import build_plan
from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.inputs import plan_inputs
from ansible_collections.gpufleet.cluster.plugins.module_utils.power.scenarios import check_assignment
from ansible_collections.gpufleet.cluster.plugins.module_utils.power.layout import plan_layout

from reference_inventory import plan_inventory

# One PCIe switch with 2 GPUs and 1 HCA.
LAYOUT = {"version": 1, "cpus": [{
    "numaid": 0, "affinity": "0-15", "arch": "x86_64", "vendor": "GenuineIntel", "familyid": 6, "modelid": 143,
    "pci": [{"busid": "0000:50:00.0", "class": "bridge", "link_speed": "gen5", "link_width": 16, "pci": [
        {"busid": "0000:52:00.0", "class": "ib", "link_speed": "gen5", "link_width": 16,
         "nic": {"net": [{"name": "mlx5_0", "dev": 0, "speed": 400000, "port": 1}]}},
        {"busid": "0000:53:00.0", "class": "gpu", "link_speed": "gen5", "link_width": 16},
        {"busid": "0000:54:00.0", "class": "gpu", "link_speed": "gen5", "link_width": 16}]}]}]}


def one_phase(*names):
    """A 230 V single-phase PDU spec with a 16 A breaker of each name."""
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
        "pdu": {"model": "230 V, 2 x 16 A", "input_rating_a": 32, "spec": one_phase("cb1", "cb2")},
        # As built: both nodes of r1 on one breaker per feed.
        "as_built": {"pdu": {"model": "230 V, 1 x 16 A", "spec": one_phase("cb1")},
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


def small_plan(inventory=None, groups=None):
    """(inputs, layout, as-built check or None, plan) of `inventory` (SMALL by default)."""
    inventory = SMALL if inventory is None else inventory
    groups = GROUPS if groups is None else groups
    inputs = plan_inputs(inventory, groups, HARDWARE)
    layout = plan_layout(inputs["layout_input"])
    check = check_assignment(inputs["as_built"]["input"], inputs["as_built"]["assignment"]) if inputs["as_built"] else None
    return inputs, layout, check, build_plan(inputs, layout, check)


def with_power(**power):
    """SMALL with its node type's `power` updated."""
    inventory = copy.deepcopy(SMALL)
    inventory["gpufleet_plan_node_types"][0]["power"].update(power)
    return inventory


def reference_inputs():
    """plan_inputs of the reference inventory as plan.yml reads it: groups from hosts.yml, its templates rendered."""
    inventory, groups, hardware = plan_inventory()
    assert groups["gpu_nodes"] == ["compute%02d" % i for i in range(1, 9)]
    return plan_inputs(inventory, groups, {"gpu_nodes": hardware})


def reference_plan(inputs):
    """(as-built check, plan) of the reference inputs, laid out by pdu_layout."""
    check = check_assignment(inputs["as_built"]["input"], inputs["as_built"]["assignment"])
    return check, build_plan(inputs, plan_layout(inputs["layout_input"]), check)
