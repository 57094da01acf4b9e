# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The reference design's inventory (inventories/h100-64) as playbooks/plan.yml sees it, for tests.

Groups come from hosts.yml (children included); the few templates of plan.yml (`gpufleet_plan_gpus`, the HCA
speed) are rendered with the inventory's own values, as Ansible would render them.
"""
from __future__ import annotations

import os

import jinja2.nativetypes
import yaml

INVENTORY = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))),
                         "inventories", "h100-64")


def load(*parts):
    """One YAML file of the inventory, e.g. load("group_vars", "all", "plan.yml")."""
    with open(os.path.join(INVENTORY, *parts)) as handle:
        return yaml.safe_load(handle)


def groups_of(tree, out=None):
    """{group: [hosts]} from a YAML inventory, children included."""
    out = {} if out is None else out
    for name, body in (tree or {}).items():
        body = body or {}
        hosts = list((body.get("hosts") or {}).keys())
        groups_of(body.get("children"), out)
        for child in body.get("children") or {}:
            hosts += [h for h in out.get(child, []) if h not in hosts]
        out[name] = out.get(name, []) + [h for h in hosts if h not in out.get(name, [])]
    return out


def plan_inventory():
    """(variables, groups, GPU node hardware): group_vars/all with plan.yml rendered, as plan.yml reads them."""
    groups = groups_of(load("hosts.yml"))
    node_hw = load("group_vars", "gpu_nodes.yml")["gpufleet_hardware"]
    context = dict(load("group_vars", "all", "hardware.yml"), **load("group_vars", "all", "cluster.yml"))
    context["gpufleet_plan_gpus"] = len(groups["gpu_nodes"]) * node_hw["gpus"]  # 8 x 8 = 64
    env = jinja2.nativetypes.NativeEnvironment()

    def render(value):
        if isinstance(value, dict):
            return {k: render(v) for k, v in value.items()}
        if isinstance(value, list):
            return [render(v) for v in value]
        return env.from_string(value).render(context) if isinstance(value, str) and "{{" in value else value

    plan = load("group_vars", "all", "plan.yml")
    plan.pop("gpufleet_plan_gpus")  # its template reads hostvars; context holds its value
    return dict(context, **render(plan)), groups, node_hw
