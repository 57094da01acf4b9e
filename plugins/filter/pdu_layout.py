# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: pdu_layout
version_added: 0.1.0
short_description: Assign every node PSU to a PDU branch circuit so the rack survives a feed or PSU loss
description:
  - Places every PSU of every node on a branch circuit of a PDU in the node's rack.
  - A node's PSUs are spread round-robin over the rack's feeds so that it keeps at least its C(psus_required)
    PSUs after the loss of any one feed.
  - Every circuit stays within C(rating_a x derating) in normal operation, after the loss of any one feed (every PSU on
    that feed's PDUs dead, each affected node's load re-shared over its live PSUs) and after the loss of any one PSU.
  - Current on a circuit is the sum of its PSUs' watts divided by C(V x PF); a wye line-to-neutral circuit sees the
    line-to-line C(voltage) divided by the square root of 3, a line-to-line circuit sees C(voltage). Three-phase line
    currents are phasor sums, for delta C(I_L1 = I_12 - I_31).
  - First-fit decreasing over the worst-case size of each PSU; a circuit is opened only when no opened one fits, and
    among fitting circuits the one giving the best phase balance is used. When the C(imbalance_limit) of O(_input) is set and the
    fewest-circuits layout exceeds it, the rack is laid out again phase-first (possibly with more circuits).
  - Fails, naming the rack, feed and missing watts and amps, when no layout exists, and naming the node, the scenario
    and the watts when the PSUs left in a scenario cannot carry a node within C(psu_rating_w).
  - See C(docs/power.md) for the formulas and a worked example.
positional: _input
options:
  _input:
    description:
      - The power description. Keys C(nodes) (list of dicts with C(name), C(rack), C(max_power_w), C(psus),
        C(psus_required), optional C(power_factor) default 0.95, optional C(psu_rating_w) (each PSU's rating, refused when a
        PSU would carry more in any scenario) and optional C(node_type) (named in messages)), C(pdus) (list of dicts with C(name), C(rack), C(feed),
        C(voltage), C(phases) 1 or 3, C(wiring) wye or delta for three-phase, C(circuits) list of C(name), C(rating_a),
        C(phase) L1/L2/L3 or L1-L2/L2-L3/L3-L1), optional C(derating) (default 0.8) and C(imbalance_limit) (NEMA fraction).
      - For a three-phase PDU C(voltage) is the nominal line-to-line voltage.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Plan the breaker layout of one rack with A and B feeds
  ansible.builtin.set_fact:
    rack_power: "{{ power | gpufleet.cluster.pdu_layout }}"
  vars:
    power:
      nodes:
        - {name: gpu01, rack: r01, max_power_w: 5600, psus: 4, psus_required: 2}
        - {name: gpu02, rack: r01, max_power_w: 5600, psus: 4, psus_required: 2}
      pdus:
        - name: r01-pdu-a
          rack: r01
          feed: A
          voltage: 400
          phases: 3
          wiring: wye
          circuits:
            - {name: cb1, rating_a: 32, phase: L1}
            - {name: cb2, rating_a: 32, phase: L2}
            - {name: cb3, rating_a: 32, phase: L3}
        - name: r01-pdu-b
          rack: r01
          feed: B
          voltage: 400
          phases: 3
          wiring: wye
          circuits:
            - {name: cb1, rating_a: 32, phase: L1}
            - {name: cb2, rating_a: 32, phase: L2}
            - {name: cb3, rating_a: 32, phase: L3}

- name: Show where each PSU goes
  ansible.builtin.debug:
    msg: "{{ item.node }} PSU{{ item.psu }} -> {{ item.pdu }} {{ item.circuit }}"
  loop: "{{ rack_power.placements }}"
"""

RETURN = r"""
_value:
  description: The layout and its evaluation under every failure scenario.
  type: dict
  contains:
    placements:
      description: One C({node, psu, pdu, circuit}) per PSU (PSUs numbered from 1), sorted by node and PSU.
      type: list
      elements: dict
    circuits:
      description:
        - One entry per circuit (used or not) with C(pdu), C(circuit), C(rack), C(feed), C(phase), C(voltage), C(rating_a),
          C(limit_a), C(psus), C(used), C(normal_a), C(normal_w), C(worst_a), C(worst_w), C(worst_scenario) (such as
          C(feed A lost) or C(PSU gpu03/2 lost)) and C(utilisation) (C(worst_a / limit_a)).
      type: list
      elements: dict
    pdus:
      description:
        - One entry per PDU with C(line_currents_a) in normal operation, C(neutral_a) (wye only), C(imbalance) (NEMA, three-phase
          only), C(worst_line_a) and C(worst_line_scenario).
      type: list
      elements: dict
    psu_loads:
      description:
        - One entry per node with C(node), C(node_type), C(rating_w), C(normal_w) (watts per PSU in normal operation),
          C(worst_w), C(worst_scenario) and C(live_psus) (the PSUs left in that scenario).
      type: list
      elements: dict
    racks:
      description: Per rack, C(circuits_used) and C(circuits_available) per feed.
      type: list
      elements: dict
    summary:
      description: C(nodes), C(psus), C(scenarios), C(circuits_used), C(circuits_available), C(worst_circuit), C(worst_utilisation).
      type: dict
"""

from collections.abc import Mapping

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, of_type

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("pdu_layout")
def pdu_layout(data):
    """Filter entry point: check the input type; the layout's own checks refuse the rest."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.power.layout import plan_layout
    of_type("input", data, Mapping, "a dict with 'nodes' and 'pdus'")
    return plan_layout(data)


class FilterModule:
    def filters(self):
        return {"pdu_layout": pdu_layout}
