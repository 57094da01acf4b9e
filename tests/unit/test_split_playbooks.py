# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""site.yml is cluster.yml + nodes.yml + finalize.yml (docs/day2.md, "The cluster job, the node job and finalize"):
every layer still reaches the hosts its own playbook (playbooks/<role>.yml) names, in the layers' order, and the node
job stays slice-safe (no task of its own reaching another host, the slice-safe flag, free strategy, one added task)."""
from __future__ import annotations

import os
import re

import yaml
from reference import REPO

# The layers in the order site.yml ran them before the split (RoCE switches before the RoCE hosts).
LAYERS = ["common", "rdma", "nvidia_driver", "gpu_tuning", "dcgm", "roce_switch", "roce_host", "nccl",
          "lustre_client", "slurm"]
WHEN = re.compile(r"^inventory_hostname in groups\['(\w+)'\] \| default\(\[\]\)$")


def plays(name):
    with open(os.path.join(REPO, "playbooks", name), encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def layer_hosts(role):
    """The hosts of the layer's own playbook (its last play: roce_switch.yml's first is its preflight)."""
    return plays(role + ".yml")[-1]["hosts"]


def role_groups(play):
    """[(role, the group its when: names)] of a play's roles, in order."""
    out = []
    for entry in play["roles"]:
        match = WHEN.match(entry["when"])
        assert match, entry
        assert entry["tags"] == [entry["role"].rsplit(".", 1)[1]]
        out.append((entry["role"].rsplit(".", 1)[1], match.group(1)))
    return out


def test_site_imports_the_three_jobs_in_order():
    assert [play["ansible.builtin.import_playbook"] for play in plays("site.yml")] == [
        "cluster.yml", "nodes.yml", "finalize.yml"]
    assert plays("site.yml")[0]["vars"] == {"gpufleet_site_run": True}


def test_every_layer_reaches_the_hosts_of_its_own_playbook_in_order():
    controllers = plays("cluster.yml")[-1]
    [nodes] = plays("nodes.yml")
    host_layers = [role for role in LAYERS if role != "roce_switch"]
    for play in (controllers, nodes):
        assert role_groups(play) == [(role, layer_hosts(role)) for role in host_layers]
    # The two plays share no host and cover every host: controllers and accounting here, the others there.
    assert controllers["hosts"] == "slurm_controller:slurm_dbd"
    assert nodes["hosts"] == "{{ gpufleet_nodes_hosts | default('cluster:lustre_clients:!slurm_controller:!slurm_dbd') }}"


def test_switches_before_any_roce_host_and_the_description_checked_first():
    cluster = plays("cluster.yml")
    assert cluster[0]["tasks"][0]["ansible.builtin.import_tasks"] == "tasks/cluster_description.yml"
    assert cluster[0]["any_errors_fatal"] is True and cluster[0]["tags"] == ["always"]
    assert [play.get("ansible.builtin.import_playbook") for play in cluster].index("roce_switch.yml") < len(cluster) - 1


def test_the_node_job_is_slice_safe():
    [nodes] = plays("nodes.yml")
    assert nodes["vars"]["gpufleet_slice_safe"] is True
    assert nodes["strategy"] == "{{ gpufleet_nodes_strategy | default('free') }}"
    assert "max_fail_percentage" not in nodes and "any_errors_fatal" not in nodes  # the free strategy ignores both
    [check] = nodes["pre_tasks"]
    assert "ansible.builtin.assert" in check and check["tags"] == ["always"]
    assert not {"run_once", "delegate_to"} & set(check)
    assert "cluster_description_entry" in check["vars"]["__gpufleet_node_problems"]
