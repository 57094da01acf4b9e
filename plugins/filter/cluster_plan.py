# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: cluster_plan
version_added: 0.1.0
short_description: Every file of playbooks/plan.yml (power, Lustre, NCCL, hostlists, index) as path and content
description:
  - Second stage of C(playbooks/plan.yml) (C(docs/plan.md)). Takes the inputs from
    P(gpufleet.cluster.cluster_plan_inputs#filter) and the results of P(gpufleet.cluster.pdu_layout#filter) and
    P(gpufleet.cluster.pdu_check#filter) on them.
  - Plans every Lustre directory with both the stripe plan and the progressive file layout
    (C(lustre_stripe_plan), C(lustre_pfl_layout)), renders the NCCL topology of every node type that has an
    C(nccl_layout) and hosts (C(nccl_topology_xml)), and compresses every group's hosts into a Slurm hostlist.
  - Returns the content of C(power.json), C(power.md), C(lustre.json), C(lustre.md), C(nccl/<node type>.xml),
    C(hostlists.json), C(hostlists.md) and C(README.md), by path relative to the plan directory. Nothing is timestamped, so
    the same inventory gives the same bytes.
positional: _input, layout, as_built
options:
  _input:
    description: The result of P(gpufleet.cluster.cluster_plan_inputs#filter).
    type: dict
    required: true
  layout:
    description: The result of P(gpufleet.cluster.pdu_layout#filter) on C(_input.layout_input).
    type: dict
    required: true
  as_built:
    description:
      - The result of P(gpufleet.cluster.pdu_check#filter) on C(_input.as_built.input) and C(_input.as_built.assignment).
      - Required when C(_input.as_built) is not null, ignored otherwise.
    type: dict
    required: false
"""

EXAMPLES = r"""
- name: Compute the plan
  ansible.builtin.set_fact:
    plan: "{{ plan_inputs | gpufleet.cluster.cluster_plan(plan_layout, plan_as_built | default(none)) }}"

- name: Write every file of the plan
  ansible.builtin.copy:
    dest: "{{ plan_dir }}/{{ item.key }}"
    content: "{{ item.value }}"
    mode: "0644"
  loop: "{{ plan.files | dict2items }}"
  loop_control:
    label: "{{ item.key }}"
"""

RETURN = r"""
_value:
  description: The plan.
  type: dict
  contains:
    files:
      description: Content (str) by path relative to the plan directory, in the order the playbook writes them.
      type: dict
    lustre:
      description: Per directory C(path), C(apply) (from the inventory) and the C(command) to run.
      type: list
      elements: dict
    nccl:
      description:
        - Per node type C(name), C(group), C(file), C(hosts) (hostlist), C(gpus) and C(nets) in its topology, and
          C(hardware_gpus) and C(hardware_hcas) from its group's C(gpufleet_hardware) (null when not given).
      type: list
      elements: dict
    summary:
      description: C(circuits_used), C(as_built_violations) (null without as-built cabling), C(lustre_directories),
        C(nccl_files) and C(hostlists) (group to hostlist, C('') for an empty group).
      type: dict
"""

from collections.abc import Mapping

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, require

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("cluster_plan", unreadable="the plan's inputs",
                   hint="pass the results of cluster_plan_inputs, pdu_layout and pdu_check unchanged")
def cluster_plan(inputs, layout, as_built=None):
    """Filter entry point: check the argument types, plan Lustre, NCCL and hostlists, render every file."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.build import build_plan
    from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.inputs import plain
    require(isinstance(inputs, Mapping) and "layout_input" in inputs, "input", inputs,
            "the result of gpufleet.cluster.cluster_plan_inputs")
    require(isinstance(layout, Mapping) and "circuits" in layout, "layout", layout,
            "the result of gpufleet.cluster.pdu_layout")
    require(as_built is None or (isinstance(as_built, Mapping) and "violations" in as_built), "as_built", as_built,
            "the result of gpufleet.cluster.pdu_check or null")
    return build_plan(plain(inputs), plain(layout), None if as_built is None else plain(as_built))


class FilterModule:
    def filters(self):
        return {"cluster_plan": cluster_plan}
