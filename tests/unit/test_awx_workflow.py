# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""awx/configure.yml's converge workflow and the templates it runs, as awx/vars/main.yml sets them (the objects
themselves are made against the AWX stand-in by tests/local/awx/run.sh)."""
from __future__ import annotations

import os

import jinja2
import yaml

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _load(rel):
    with open(os.path.join(REPO, rel), encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def _render(value, variables):
    """Each string rendered with the site's variables until it no longer changes (names refer to names)."""
    if isinstance(value, str):
        for _round in range(5):
            value = jinja2.Environment(undefined=jinja2.StrictUndefined).from_string(value).render(**variables)
        return value
    if isinstance(value, list):
        return [_render(v, variables) for v in value]
    if isinstance(value, dict):
        return {k: _render(v, variables) for k, v in value.items()}
    return value


SETTINGS = _load("awx/vars/main.yml")
PLAY = _load("awx/configure.yml")[0]
VARIABLES = dict(SETTINGS, **{k: v for k, v in PLAY["vars"].items() if k.startswith("__gpufleet_awx_workflow")})
TEMPLATES = {t["name"]: t for t in _render(SETTINGS["gpufleet_awx_job_templates"], VARIABLES)}


def _task(name_start):
    found = [t for t in PLAY["tasks"] if t["name"].startswith(name_start)]
    assert len(found) == 1, name_start
    return found[0]


def test_the_workflow_is_one_chain_sync_cluster_nodes_finalize():
    nodes = _render(PLAY["vars"]["__gpufleet_awx_workflow_nodes"], VARIABLES)
    assert [n["identifier"] for n in nodes] == ["project-sync", "inventory-sync", "cluster", "nodes", "finalize"]
    # Each node's success edge is the next node; the last has none.
    assert [n["next"] for n in nodes] == [["inventory-sync"], ["cluster"], ["nodes"], ["finalize"], []]
    assert nodes[0]["runs"] == SETTINGS["gpufleet_awx_project"]
    assert nodes[1]["runs"] == "h100-64 from gpufleet.cluster"  # the inventory source configure.yml makes
    assert [TEMPLATES[n["runs"]]["playbook"] for n in nodes[2:]] == [
        "playbooks/cluster.yml", "playbooks/nodes.yml", "playbooks/finalize.yml"]


def test_failure_stops_the_workflow_and_hand_made_edges_are_removed():
    task = _task("The converge workflow's nodes")["awx.awx.workflow_job_template_node"]
    # No failure or always path (a failed step fails the workflow there), given as empty lists so that the module
    # removes one added by hand; the nodes are made last step first, so every edge names a node that exists.
    assert task["failure_nodes"] == [] and task["always_nodes"] == []
    assert task["success_nodes"] == "{{ item.next }}"
    loop = _task("The converge workflow's nodes")["loop"]
    assert loop == "{{ __gpufleet_awx_workflow_nodes | reverse | list }}"
    workflow = _task("The converge workflow (")["awx.awx.workflow_job_template"]
    assert workflow["name"] == "{{ gpufleet_awx_workflow }}" and workflow["destroy_current_nodes"] is False
    assert not any(v for k, v in workflow.items() if k.startswith("ask_"))


def test_only_the_node_job_is_sliced_and_the_workflow_bears_no_template_name():
    sliced = {name: t["job_slice_count"] for name, t in TEMPLATES.items() if str(t["job_slice_count"]) != "1"}
    assert sliced == {"h100-64 nodes": "8"}
    assert SETTINGS["gpufleet_awx_node_job_slices"] == 8
    assert TEMPLATES["h100-64 nodes"]["forks"] == str(SETTINGS["gpufleet_awx_node_job_forks"])
    assert PLAY["vars"]["__gpufleet_awx_sliceable"] == ["playbooks/nodes.yml"]
    # A job whose workflow job is named after its own template is taken for a slice (roles/os_support).
    assert _render(SETTINGS["gpufleet_awx_workflow"], VARIABLES) == "h100-64 converge workflow"
    assert "h100-64 converge workflow" not in TEMPLATES
    # The cluster-wide steps: no limit prompt, one job.
    for name in ("h100-64 cluster", "h100-64 finalize"):
        assert TEMPLATES[name]["ask_limit_on_launch"] is False and TEMPLATES[name]["job_slice_count"] == 1


def test_configure_checks_the_slice_counts_and_the_workflow_names_before_any_change():
    names = [t["name"] for t in PLAY["tasks"]]
    first_change = names.index("Organization")
    assert names.index("Check only the node job runs sliced") < first_change
    assert names.index("Check the converge workflow and its jobs") < first_change
    check = _task("Check only the node job runs sliced")["ansible.builtin.assert"]["that"]
    assert "item.playbook in __gpufleet_awx_sliceable" in check and "int == 1" in check
