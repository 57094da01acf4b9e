# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: pdu_check
version_added: 0.1.0
short_description: Check an existing PSU to breaker assignment against normal operation, feed loss and PSU loss
description:
  - Evaluates an assignment of node PSUs to PDU branch circuits in every scenario, normal operation, loss of each feed
    and loss of each single PSU, with each node's load shared equally among its live PSUs.
  - Reports every circuit with its normal and worst-case current and power, and lists violations with numbers; overloads
    (circuit, scenario, amps, watts, limit, fix), nodes that go down (fewer live PSUs than the node's C(psus_required)),
    phase imbalance above the C(imbalance_limit) of O(_input), and structural problems (PSU unassigned or assigned twice, PDU in
    another rack, unknown node, PSU, PDU or circuit).
  - Takes the same input as P(gpufleet.cluster.pdu_layout#filter); see C(docs/power.md).
positional: _input, assignment
options:
  _input:
    description:
      - The power description, exactly as for P(gpufleet.cluster.pdu_layout#filter). It may carry the assignment
        under the key C(assignment) instead of the positional argument.
    type: dict
    required: true
  assignment:
    description:
      - List of C({node, psu, pdu, circuit}) dicts, PSUs numbered from 1. The whole result of
        P(gpufleet.cluster.pdu_layout#filter) is accepted too (its C(placements) are used).
    type: raw
    required: false
"""

EXAMPLES = r"""
- name: Check the cabling as built
  ansible.builtin.set_fact:
    power_check: "{{ power | gpufleet.cluster.pdu_check(as_built) }}"
  vars:
    as_built:
      - {node: gpu01, psu: 1, pdu: r01-pdu-a, circuit: cb1}
      - {node: gpu01, psu: 2, pdu: r01-pdu-a, circuit: cb1}
      - {node: gpu01, psu: 3, pdu: r01-pdu-b, circuit: cb1}
      - {node: gpu01, psu: 4, pdu: r01-pdu-b, circuit: cb1}

- name: Fail with the first violation
  ansible.builtin.assert:
    that: power_check.ok
    fail_msg: "{{ power_check.violations[0].message }}; fix: {{ power_check.violations[0].fix }}"
  when: power_check.violations | length > 0
"""

RETURN = r"""
_value:
  description: Result of the check.
  type: dict
  contains:
    ok:
      description: True when there are no violations.
      type: bool
    violations:
      description:
        - Each has C(type) (C(overload), C(psu_overload) (a node's live PSUs carry more than C(psu_rating_w) each),
          C(node_down), C(imbalance), C(unassigned_psu), C(duplicate_psu), C(wrong_rack), C(unknown_node), C(unknown_psu),
          C(unknown_pdu), C(unknown_circuit)), a C(message) with the numbers and a C(fix).
        - Overloads also carry C(pdu), C(circuit), C(rack), C(feed), C(scenario), C(amps), C(watts), C(limit_a), C(utilisation).
      type: list
      elements: dict
    circuits:
      description: Same per-circuit report as P(gpufleet.cluster.pdu_layout#filter).
      type: list
      elements: dict
    pdus:
      description: Same per-PDU report as P(gpufleet.cluster.pdu_layout#filter).
      type: list
      elements: dict
    psu_loads:
      description: Per node, C(node), C(node_type), C(rating_w), C(normal_w), C(worst_w), C(worst_scenario), C(live_psus).
      type: list
      elements: dict
    summary:
      description: C(violations), C(scenarios), C(circuits_used), C(circuits_available), C(worst_circuit), C(worst_utilisation).
      type: dict
"""

from collections.abc import Mapping

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, of_type

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("pdu_check")
def pdu_check(data, assignment=None):
    """Filter entry point: check the input types; the checks of the core refuse the rest."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.power.scenarios import check_assignment
    of_type("input", data, Mapping, "a dict with 'nodes' and 'pdus'")
    of_type("assignment", assignment, (list, Mapping), "a list of {node, psu, pdu, circuit} dicts", optional=True)
    return check_assignment(data, assignment)


class FilterModule:
    def filters(self):
        return {"pdu_check": pdu_check}
