# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: rack_power_fit
version_added: 0.2.0
short_description: Whether each rack's worst-case power fits its budget, how many nodes do, and the GPU cap that would
description:
  - Per rack, C(draw_w) is the sum of the C(max_power_w) of its nodes and its other loads (switches, head node, storage).
  - C(max_nodes) is how many of the rack's nodes (all of one node type) fit beside its loads at full power.
  - C(gpu_power_cap_w) is the highest per-GPU power limit at which all the rack's nodes fit,
    C((budget_w - loads - sum(node max_power_w - gpus x gpu_power_w)) / sum(gpus)) rounded down to a whole watt; it is
    null when the rack fits without a cap and when the cap would be below C(gpu_min_power_w) (then only fewer nodes
    per rack will do).
  - Arithmetic is exact, so at C(gpu_power_cap_w) the rack fits and at one watt more it does not.
  - See C(docs/power.md), "Rack budgets".
positional: _input
options:
  _input:
    description:
      - C(racks), a list of C({name, budget_w, nodes, loads}); C(nodes) a list of C({name, max_power_w, gpus, gpu_power_w,
        gpu_min_power_w}) (C(max_power_w) the whole node's maximum input power), C(loads) a list of C({name, max_power_w}).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Two 10.2 kW H100 nodes and a 650 W switch in a 15 kW rack
  ansible.builtin.debug:
    msg: "{{ {'racks': [rack]} | gpufleet.cluster.rack_power_fit }}"
  vars:
    rack:
      name: r01
      budget_w: 15000
      nodes:
        - {name: gpu01, max_power_w: 10200, gpus: 8, gpu_power_w: 700, gpu_min_power_w: 200}
        - {name: gpu02, max_power_w: 10200, gpus: 8, gpu_power_w: 700, gpu_min_power_w: 200}
      loads: [{name: leaf1, max_power_w: 650}]
# -> [{name: r01, draw_w: 21050, budget_w: 15000, fits: false, over_w: 6050, max_nodes: 1, gpu_power_cap_w: 321}]
#    (15000 - 650 - 2 x (10200 - 8 x 700)) / 16 = 321.9, rounded down
"""

RETURN = r"""
_value:
  description: One entry per rack, in input order.
  type: list
  elements: dict
  contains:
    name: {description: The rack., type: str}
    draw_w: {description: Sum of the nodes' and loads' max_power_w., type: float}
    budget_w: {description: The rack's budget., type: float}
    fits: {description: C(draw_w <= budget_w)., type: bool}
    over_w: {description: "C(draw_w - budget_w) when it does not fit, else 0.", type: float}
    max_nodes: {description: How many of the rack's nodes fit beside its loads at full power., type: int}
    gpu_power_cap_w:
      description: Highest whole-watt GPU limit at which all nodes fit; null when not needed or below gpu_min_power_w.
      type: int
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("rack_power_fit")
def rack_power_fit(data):
    """Per rack: whether its worst-case power fits its budget, how many nodes do, and the GPU cap that would."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.power.fit import (
        rack_power_fit as _fit,
    )
    return _fit(data)


class FilterModule:
    def filters(self):
        return {"rack_power_fit": rack_power_fit}
