# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The filter gpufleet.cluster.cluster_plan, after cluster_plan_inputs and pdu_layout as plan.yml chains them:
the plan and its files, as-built cabling through pdu_check, argument errors, names that become paths and missing
keys refused (issue 13)."""
from __future__ import annotations

import copy
import os
import re

import pytest
from ansible.errors import AnsibleFilterError
from ansible.plugins.filter.core import to_nice_json
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.filter import cluster_plan as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.cluster_plan import cluster_plan
from ansible_collections.gpufleet.cluster.plugins.filter.cluster_plan_inputs import cluster_plan_inputs
from ansible_collections.gpufleet.cluster.plugins.filter.pdu_check import pdu_check
from ansible_collections.gpufleet.cluster.plugins.filter.pdu_layout import pdu_layout
from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.build import to_json

# Two 2300 W nodes in one rack, 2 PSUs each, PF 1.0: 5 A per PSU normally, 10 A after a feed loss; a 16 A breaker
# may carry 12.8 A, so one PSU per breaker. No as-built cabling.
from duo_plan import GROUPS, HOSTVARS, INVENTORY, with_node_type_name  # noqa: E402
from filter_docs import assert_documented
from nasty_input import hostile_text, near_valid  # noqa: E402


# One PCIe switch with 2 GPUs and 1 HCA (as in test_cluster_plan).
NCCL_LAYOUT = {"version": 1, "cpus": [{
    "numaid": 0, "affinity": "0-15", "arch": "x86_64", "vendor": "GenuineIntel", "familyid": 6, "modelid": 143,
    "pci": [{"busid": "0000:50:00.0", "class": "bridge", "link_speed": "gen5", "link_width": 16, "pci": [
        {"busid": "0000:52:00.0", "class": "ib", "link_speed": "gen5", "link_width": 16,
         "nic": {"net": [{"name": "mlx5_0", "dev": 0, "speed": 400000, "port": 1}]}},
        {"busid": "0000:53:00.0", "class": "gpu", "link_speed": "gen5", "link_width": 16}]}]}]}


def test_chain_as_plan_yml_runs_it():
    inputs = cluster_plan_inputs(INVENTORY, GROUPS, HOSTVARS)
    assert inputs["node_types"][0]["hardware"] == {"gpus": 0}  # from the group's first host
    assert inputs["as_built"] is None and inputs["derating"] == 0.8  # the default
    # 2 x 2300 W = 4600 W of 5000.
    assert inputs["racks"] == [{"name": "r1", "nodes": "n[1-2]", "count": 2, "loads": [], "loads_w": 0,
                               "max_power_w": 4600, "budget_w": 5000}]
    layout = pdu_layout(inputs["layout_input"])
    plan = cluster_plan(inputs, layout)
    # One PSU per breaker: 2 per feed, 4 of 6; the busiest at 10 / 12.8 A = 78.1 %.
    assert plan["summary"]["circuits_used"] == 4
    assert list(plan["files"]) == ["power.json", "power.md", "lustre.json", "lustre.md", "hostlists.json",
                                   "hostlists.md", "README.md"]
    assert plan["lustre"] == [] and plan["nccl"] == []
    assert plan["files"]["README.md"].endswith(
        "| [power.md](power.md), [power.json](power.json) | Racks at full power: r1 4600 W of 5000 W. "
        "PDU breaker layout: 4 breakers, worst 78.1 % of a limit (r1-pdu-a/cb1). |\n"
        "| [lustre.md](lustre.md), [lustre.json](lustre.json) |\n"
        "| [hostlists.md](hostlists.md), [hostlists.json](hostlists.json) | `all` = `n[1-2]`, `nodes` = `n[1-2]` |\n")
    assert all(isinstance(content, str) for content in plan["files"].values())


def test_as_built_goes_through_pdu_check():
    inventory = copy.deepcopy(INVENTORY)
    # As built: both nodes' PSU 1 on r1-pdu-a/cb1 and PSU 2 on r1-pdu-b/cb1: after a feed loss 2 x 2300 W = 20 A,
    # 156.25 % of 12.8 A; after PSU n1/2 is lost 2300 + 1150 W = 15 A. Per breaker 2 overloads: 4.
    inventory["gpufleet_plan_power"]["as_built"] = {
        "pdu": {"model": "one 16 A breaker",
                "spec": {"voltage": 230, "phases": 1, "circuits": [{"name": "cb1", "rating_a": 16}]}},
        "breakers": [{"pdu": "r1-pdu-a", "circuit": "cb1", "nodes": "n[1-2]", "psus": [1]},
                     {"pdu": "r1-pdu-b", "circuit": "cb1", "nodes": "n[1-2]", "psus": [2]}]}
    inputs = cluster_plan_inputs(inventory, GROUPS, HOSTVARS)
    check = pdu_check(inputs["as_built"]["input"], inputs["as_built"]["assignment"])
    plan = cluster_plan(inputs, pdu_layout(inputs["layout_input"]), check)
    assert plan["summary"]["as_built_violations"] == 4
    assert "As built: one 16 A breaker, cabled as" in plan["files"]["power.md"]
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.cluster_plan: .*pass the pdu_check result"):
        cluster_plan(inputs, pdu_layout(inputs["layout_input"]))
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.pdu_layout: no layout exists: rack 'r1' is out "
                                                 r"of circuits"):
        pdu_layout(cluster_plan_inputs(inventory, GROUPS, HOSTVARS, pdus="as_built")["layout_input"])


def test_plan_errors():
    inputs = cluster_plan_inputs(INVENTORY, GROUPS)
    layout = pdu_layout(inputs["layout_input"])
    for args, message in (((inputs["layout_input"], layout), "input must be the result of "
                                                             "gpufleet.cluster.cluster_plan_inputs"),
                          ((inputs, inputs), "layout must be the result of gpufleet.cluster.pdu_layout"),
                          ((inputs, layout, ["x"]),
                           "as_built must be the result of gpufleet.cluster.pdu_check or null")):
        with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.cluster_plan: " + message):
            cluster_plan(*args)
    bad = copy.deepcopy(INVENTORY)
    bad["gpufleet_plan_lustre"]["directories"] = [
        {"name": "d", "pattern": "shared_file", "clients": 0, "client_bw_gbs": 1.0, "sizes": [1]}]
    inputs = cluster_plan_inputs(bad, GROUPS)
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.cluster_plan: "
                                                 r"gpufleet_plan_lustre\.directories\[0\] \(/lus/d\)"):
        cluster_plan(inputs, layout)


@pytest.mark.parametrize("data", [{"b": [1, 2.5, None], "a": {"z": True, "y": "x"}}, [], {"k": "caf\u00e9"}])
def test_json_is_what_to_nice_json_wrote(data):
    assert to_json(data) == to_nice_json(data, indent=2) + "\n"


def test_registered_and_documented():
    assert_documented(plugin, "cluster_plan")


# ---------------------------------------------------------------- issue 13: names that become paths, missing keys
TRAVERSAL = "../../../etc/cron.d/x"


def test_lustre_directory_named_like_a_path_is_refused():
    bad = copy.deepcopy(INVENTORY)
    bad["gpufleet_plan_lustre"]["directories"] = [
        {"name": TRAVERSAL, "pattern": "shared_file", "clients": 2, "client_bw_gbs": 1.0,
         "sizes": {"p50_bytes": 1048576, "p90_bytes": 8388608, "max_bytes": 1073741824}}]
    inputs = cluster_plan_inputs(bad, GROUPS)
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.cluster_plan: "
                                                 r"gpufleet_plan_lustre\.directories\[0\]\.name"):
        cluster_plan(inputs, pdu_layout(inputs["layout_input"]))


def test_cluster_plan_missing_input_keys_are_named():
    inputs = cluster_plan_inputs(INVENTORY, GROUPS)
    layout = pdu_layout(inputs["layout_input"])
    broken = {k: v for k, v in inputs.items() if k != "lustre"}
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.cluster_plan: cluster_plan input .*\.lustre is "
                                                 r"missing"):
        cluster_plan(broken, layout)
    with pytest.raises(AnsibleFilterError, match=r"cluster_plan layout .*\.placements is missing"):
        cluster_plan(inputs, {k: v for k, v in layout.items() if k != "placements"})


@settings(max_examples=150, deadline=None)
@given(name=st.one_of(hostile_text(1, 24), near_valid(st.sampled_from(["hgx-h100", "gpu2", "a100_sxm"]))))
def test_every_file_key_stays_inside_the_plan_directory(name):
    """A node type's name becomes nccl/<name>.xml: it is refused, or the key is a plain relative path under nccl/."""
    try:
        inputs = cluster_plan_inputs(with_node_type_name(name), GROUPS, HOSTVARS)
        layout = pdu_layout(inputs["layout_input"])
        inputs["node_types"][0]["nccl_layout"] = NCCL_LAYOUT
        plan = cluster_plan(inputs, layout)
    except AnsibleFilterError as exc:
        assert "gpufleet.cluster.cluster_plan" in str(exc) and "name" in str(exc)
        return
    assert re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*", name) and name not in (".", "..")
    for key in plan["files"]:
        assert not key.startswith("/") and ".." not in key.split("/") and "\n" not in key
        assert os.path.normpath(os.path.join("/plan", key)).startswith("/plan/")
    assert "nccl/%s.xml" % name in plan["files"]
