# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: plan_report_html
version_added: 0.1.0
short_description: The plan of playbooks/plan.yml as one self-contained HTML page with drawings
description:
  - Draws the result of P(gpufleet.cluster.cluster_plan#filter) as one HTML document (C(report.html) of
    C(playbooks/plan.yml), C(docs/plan.md) "The report").
  - "Sections: a summary; per rack an elevation (nodes stacked in hostlist order, each PSU labelled with its feed and
    breaker) with its PDUs; per PDU every breaker's normal and worst single-failure load as bars against its
    continuous limit (rating x derating) and its rating, and the phase balance (L1/L2/L3, neutral, worst line against
    the PDU input); the same for the as-built cabling; the Lustre directories with each progressive file layout as a
    ladder; the NCCL topology of every node type as a PCIe tree; the Slurm topology tree; the hostlists."
  - The numbers are those of C(power.json), C(lustre.json) and C(hostlists.json) in C(plan.files), the NCCL trees are
    read back from the C(nccl/*.xml) files.
  - Inline CSS and inline SVG only, no script and no external URL, every text escaped. The same input gives the same
    bytes, so writing it with M(ansible.builtin.copy) reports no change on an unchanged inventory.
positional: _input, name, topology
options:
  _input:
    description: The result of P(gpufleet.cluster.cluster_plan#filter).
    type: dict
    required: true
  name:
    description: The cluster name, for the title (C(cluster_plan_inputs) returns it as C(name)).
    type: str
    default: cluster
  topology:
    description:
      - The fabric's Slurm topology (C(gpufleet_fabric.topology)) in the form P(gpufleet.cluster.slurm_topology_conf#filter)
        takes (C(kind) tree with C(leaves) and C(spines) or C(switches), or C(kind) block with C(blocks)).
      - Null draws no Slurm topology and says so.
    type: dict
    required: false
"""

EXAMPLES = r"""
- name: Write the HTML report
  ansible.builtin.copy:
    dest: "{{ plan_dir }}/report.html"
    content: "{{ plan | gpufleet.cluster.plan_report_html(plan_inputs.name, gpufleet_fabric.topology | default(none)) }}"
    mode: "0644"
"""

RETURN = r"""
_value:
  description: The HTML document (UTF-8 text, C(<!DOCTYPE html>) first, one trailing newline).
  type: str
"""

from collections.abc import Mapping

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, of_type, require

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("plan_report_html")
def plan_report_html(plan, name="cluster", topology=None):
    """Filter entry point: check the argument types, then draw the plan."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.inputs import plain
    from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.report.page import report_from_plan
    require(isinstance(plan, Mapping) and isinstance(plan.get("files"), Mapping), "input", plan,
            "the result of gpufleet.cluster.cluster_plan (a dict with files)")
    require(isinstance(name, str) and name, "name", name, "a non-empty string (the cluster name)")
    of_type("topology", topology, Mapping, "gpufleet_fabric.topology (a dict with kind tree or block) or null",
            optional=True)
    return report_from_plan(plain(plan), str(name), None if topology is None else plain(topology))


class FilterModule:
    def filters(self):
        return {"plan_report_html": plan_report_html}
