# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The filter gpufleet.cluster.plan_report_html, chained after the plan filters as plan.yml chains them."""

from __future__ import annotations

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import plan_report_html as report_filter_module
from ansible_collections.gpufleet.cluster.plugins.filter.cluster_plan import cluster_plan
from ansible_collections.gpufleet.cluster.plugins.filter.cluster_plan_inputs import cluster_plan_inputs
from ansible_collections.gpufleet.cluster.plugins.filter.pdu_layout import pdu_layout
from ansible_collections.gpufleet.cluster.plugins.filter.plan_report_html import plan_report_html

# Two 2300 W nodes with 2 PSUs, PF 1.0, on 16 A breakers: 10 A of 12.8 A after a feed loss, one PSU per breaker.
from duo_plan import GROUPS, INVENTORY  # noqa: E402

TOPOLOGY = {"kind": "tree", "leaves": [{"name": "leaf1", "nodes": "n[1-2]"}]}


@pytest.fixture(scope="module")
def plan():
    inputs = cluster_plan_inputs(INVENTORY, GROUPS, {})
    return cluster_plan(inputs, pdu_layout(inputs["layout_input"]))


def test_report_of_the_chain(plan):
    doc = plan_report_html(plan, "duo", TOPOLOGY)
    assert doc.startswith("<!DOCTYPE html>\n") and "<title>Plan: duo</title>" in doc
    # 2 nodes x 2 PSUs on 4 of 6 breakers; the busiest at 10 / 12.8 A = 78.1 %.
    assert "4 of 6 breakers used" in doc and "<strong>78.1 %</strong>" in doc
    assert "SwitchName=leaf1 Nodes=n[1-2]" in doc
    assert doc == plan_report_html(plan, "duo", TOPOLOGY)
    assert report_filter_module.FilterModule().filters() == {"plan_report_html": plan_report_html}


@pytest.mark.parametrize("args, message", [
    (([],), "input must be the result of gpufleet.cluster.cluster_plan (a dict with files), got [] of type list"),
    (({"files": None},), "input must be the result of gpufleet.cluster.cluster_plan (a dict with files), got "
                         "{'files': None} of type dict"),
    (({"files": {}}, ""), "name must be a non-empty string (the cluster name), got '' of type str"),
    (({"files": {}}, "x", ["leaf"]), "topology must be gpufleet_fabric.topology (a dict with kind tree or block) or "
                                     "null, "
                                     "got ['leaf'] of type list"),
])
def test_argument_errors(args, message):
    with pytest.raises(AnsibleFilterError) as err:
        plan_report_html(*args)
    assert str(err.value) == "gpufleet.cluster.plan_report_html: " + message


def test_module_errors_name_the_filter(plan):
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.plan_report_html: plan.files has no power.json"):
        plan_report_html({"files": {"lustre.json": "{}"}})
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.plan_report_html: gpufleet_fabric.topology: "
                                                 r"fabric kind 'mesh'"):
        plan_report_html(plan, "duo", {"kind": "mesh"})


def test_documentation_matches_the_signature():
    doc = yaml.safe_load(report_filter_module.DOCUMENTATION)
    assert doc["name"] == "plan_report_html" and doc["version_added"] == "0.1.0"
    assert doc["positional"] == "_input, name, topology"
    assert list(doc["options"]) == ["_input", "name", "topology"]
    assert doc["options"]["name"]["default"] == "cluster"
    yaml.safe_load(report_filter_module.EXAMPLES)
    assert yaml.safe_load(report_filter_module.RETURN)["_value"]["type"] == "str"
