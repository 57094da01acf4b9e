# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A two-node, one-rack cluster "duo": the smallest inventory the plan filters take, shared by their tests."""
from __future__ import annotations

import copy

INVENTORY = {
    "gpufleet_cluster_name": "duo",
    "gpufleet_plan_node_types": [{"name": "cpu", "group": "nodes",
                                  "power": {"max_power_w": 2300, "psus": 2, "psus_required": 1, "power_factor": 1.0}}],
    "gpufleet_plan_power": {"feeds": ["A", "B"], "racks": [{"name": "r1", "nodes": "n[1-2]"}],
                            "pdu": {"spec": {"voltage": 230, "phases": 1,
                                             "circuits": [{"name": "cb%d" % i, "rating_a": 16} for i in (1, 2, 3)]}}},
    "gpufleet_plan_lustre": {"ost_bw_gbs": 1.0, "directories": []},
    "gpufleet_lustre": {"fsname": "fs", "mountpoint": "/lus", "osts": 2},
    "gpufleet_power": {"racks": [{"name": "r1", "budget_w": 5000}]},
}
GROUPS = {"all": ["n1", "n2"], "ungrouped": [], "nodes": ["n1", "n2"]}
# hostvars as plan.yml passes them: the hardware of a node type is that of its group's first host (n1).
HOSTVARS = {"n1": {"gpufleet_hardware": {"gpus": 0}}, "n2": {}}


def with_node_type_name(name):
    """INVENTORY with its node type named ``name``."""
    bad = copy.deepcopy(INVENTORY)
    bad["gpufleet_plan_node_types"][0]["name"] = name
    return bad
