# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: cluster_plan_inputs
version_added: 0.1.0
short_description: Assemble the power checks' inputs of playbooks/plan.yml from the inventory
description:
  - First stage of C(playbooks/plan.yml) (C(docs/plan.md)). Reads the inventory's planning variables and returns the
    rack report, the rack placement check, the input of P(gpufleet.cluster.pdu_layout#filter) and, when the design's
    as-built cabling is described, the input and assignment of P(gpufleet.cluster.pdu_check#filter).
  - One node per host of each node type's group (its C(power) plus C(name) and C(rack)); one PDU per rack and feed,
    named C(<rack>-pdu-<feed in lower case>); the as-built breakers expanded to one C({node, psu, pdu, circuit}) per PSU.
  - Hands the rest of the inventory (Lustre directories, node types with their C(gpufleet_hardware), groups) on, as
    plain data, to P(gpufleet.cluster.cluster_plan#filter).
  - Racks hold more than GPU nodes, C(gpufleet_plan_power.racks[].loads) (C(name), C(max_power_w), C(psus),
    C(psus_required), optional C(psu_rating_w), C(power_factor)) are laid out and counted like nodes. Racks given without
    C(nodes) get the node types' hosts spread evenly over them.
  - Rack budgets, P(gpufleet.cluster.rack_power_fit#filter) at full power. A rack over budget is an error in
    C(power_budget.errors) unless C(gpufleet_power_cap) is C(rack_budget) and a cap exists; the cap then lowers every GPU
    node's C(max_power_w) in the layout input by C(gpus x (gpu_power_w - cap)). A node type's C(power.max_power_w) below its
    C(components) is refused; one equal to its GPUs' power alone gives a warning.
  - Node type names become file names and are refused unless they are plain names.
positional: _input, groups, hostvars
options:
  _input:
    description:
      - The inventory variables C(gpufleet_plan_node_types), C(gpufleet_plan_power), C(gpufleet_plan_lustre),
        C(gpufleet_lustre), C(gpufleet_power) and optionally C(gpufleet_cluster_name), C(gpufleet_power_cap) (C(none) or
        C(rack_budget)) and C(gpufleet_gpu_power_cap_w) (the cap the inventory pins for gpu_tuning; must equal the computed
        one), as a dict keyed by those names.
    type: dict
    required: true
  groups:
    description: The magic variable C(groups), each inventory group's hosts.
    type: dict
    required: true
  hostvars:
    description:
      - The magic variable C(hostvars). Only C(gpufleet_hardware) of the first host of each node type's group is read
        (C(gpus) and C(rdma_hcas) are checked against the NCCL topology).
    type: dict
    required: false
  pdus:
    description: The PDUs to lay the racks out on, C(gpufleet_plan_power.pdu) or the design's C(as_built.pdu).
    type: str
    choices: [planned, as_built]
    default: planned
"""

EXAMPLES = r"""
- name: Assemble the plan's inputs
  ansible.builtin.set_fact:
    plan_inputs: "{{ plan_inventory | gpufleet.cluster.cluster_plan_inputs(groups, hostvars) }}"
  vars:
    plan_inventory:
      gpufleet_plan_node_types: "{{ gpufleet_plan_node_types }}"
      gpufleet_plan_power: "{{ gpufleet_plan_power }}"
      gpufleet_plan_lustre: "{{ gpufleet_plan_lustre }}"
      gpufleet_lustre: "{{ gpufleet_lustre }}"
      gpufleet_power: "{{ gpufleet_power }}"

- name: Lay out the PSUs
  ansible.builtin.set_fact:
    plan_layout: "{{ plan_inputs.layout_input | gpufleet.cluster.pdu_layout }}"
"""

RETURN = r"""
_value:
  description: The inputs; everything in it is plain data.
  type: dict
  contains:
    name:
      description: C(gpufleet_cluster_name), or C(cluster).
      type: str
    pdus:
      description: The O(pdus) option.
      type: str
    derating:
      description: C(gpufleet_plan_power.derating), default 0.8.
      type: float
    pdu_model:
      description: C(model) (text, or null) and C(input_rating_a) (or null) of the PDU the layout is planned on.
      type: dict
    placement:
      description:
        - Hosts C(not_in_a_rack), C(in_no_node_type), C(in_two_racks) and C(in_two_node_types); all empty when every
          host of the node types' groups sits in exactly one rack.
      type: dict
    racks:
      description: Per rack C(name), C(nodes) (hostlist), C(count), C(loads) (names), C(loads_w), C(max_power_w) (nodes and
        loads as planned, after any cap) and C(budget_w) (null when the rack is not in C(gpufleet_power.racks)).
      type: list
      elements: dict
    power_budget:
      description:
        - C(choice) (C(gpufleet_power_cap)), C(fit) (P(gpufleet.cluster.rack_power_fit#filter) of every rack with a budget, at
          full power), C(gpu_power_cap_w) (the cap applied, or null), C(errors) (racks over budget without a way out, or a
          pinned cap that differs) and C(warnings).
      type: dict
    layout_input:
      description: The P(gpufleet.cluster.pdu_layout#filter) input (C(nodes), C(pdus), C(derating), C(imbalance_limit)).
      type: dict
    as_built:
      description: Null, or C(pdu_model), C(input) (a P(gpufleet.cluster.pdu_check#filter) input) and C(assignment).
      type: dict
    lustre:
      description: C(fsname), C(mountpoint), C(osts), C(ost_bw_gbs) and the C(directories) to plan.
      type: dict
    node_types:
      description: Per node type C(name), C(group), C(hosts), C(nccl_layout) and C(hardware).
      type: list
      elements: dict
    groups:
      description: Every inventory group's hosts.
      type: dict
"""

from collections.abc import Mapping

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, of_type, one_of

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("cluster_plan_inputs", unreadable="the inventory variables",
                   hint="pass the inventory variables docs/plan.md lists unchanged")
def cluster_plan_inputs(inventory, groups, hostvars=None, pdus="planned"):
    """Filter entry point: check the argument types, read gpufleet_hardware from hostvars, assemble the inputs."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.inputs import (
        PDU_KINDS,
        plain,
        plan_inputs,
    )
    of_type("input", inventory, Mapping, "a dict of the inventory's gpufleet_* variables")
    of_type("groups", groups, Mapping, "the 'groups' magic variable (a dict)")
    of_type("hostvars", hostvars, Mapping, "the 'hostvars' magic variable (a dict)", optional=True)
    one_of("pdus", pdus, PDU_KINDS)
    data = plain(inventory)
    groups = {str(name): [str(h) for h in hosts] for name, hosts in groups.items()}
    hardware = {}
    for node_type in data.get("gpufleet_plan_node_types") or []:
        hosts = groups.get(node_type.get("group")) if isinstance(node_type, dict) else None
        if hostvars is not None and hosts and hosts[0] in hostvars:
            hardware[node_type["group"]] = plain(hostvars[hosts[0]].get("gpufleet_hardware") or {})
    return plan_inputs(data, groups, hardware, pdus)


class FilterModule:
    def filters(self):
        return {"cluster_plan_inputs": cluster_plan_inputs}
