# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: roce_qos_check
version_added: 0.1.0
short_description: Check the RoCE lossless class against the host side and return it with its maps
description:
  - Validates the lossless-class description that C(gpufleet.cluster.roce_switch_config) renders
    (priority 0..7, DSCP 0..63 without duplicates, ECN minimum not above maximum, watchdog inside
    the range every supported switch accepts, ports with a known speed and a cable length) and
    fills in the defaults.
  - With C(host), refuses a NIC side whose PFC priority or RoCE DSCP the switch would not treat as
    lossless, naming both values (for example C(host priority 3 / switch priority 4)).
  - With C(platform), also refuses what that switch cannot express, so a play can fail before it
    touches any device.
  - Returns the description and the two maps every platform renders, so host-side roles can take
    the DSCP and priority from the same source.
positional: _input
options:
  _input:
    description: The lossless class (see C(gpufleet.cluster.roce_switch_config)).
    type: dict
    required: true
  host:
    description: The host (NIC) side, C({priority, dscp}).
    type: dict
  headroom:
    description:
      - PFC headroom per port in bytes, a mapping C(port -> {xoff, xon, size}) or the list that
        C(gpufleet.cluster.pfc_headroom) returns.
    type: raw
  platform:
    description: Also check the limits of this switch operating system.
    type: str
    choices: [sonic, nvue, eos]
"""

EXAMPLES = r"""
- name: Fail early if the NICs and the switches disagree
  ansible.builtin.set_fact:
    gpufleet_roce: "{{ gpufleet_roce_class | gpufleet.cluster.roce_qos_check(host={'priority': 3, 'dscp': [26]}) }}"
  # gpufleet_roce.dscp_to_priority[26] == 3, gpufleet_roce.pfc_priorities == [3]
"""

RETURN = r"""
_value:
  description: The checked class and its derived maps.
  type: dict
  contains:
    lossless_class:
      description: The description with every default filled in.
      type: dict
    dscp_to_priority:
      description: 64 integers; item N is the priority DSCP N is mapped to.
      type: list
      elements: int
    priority_to_queue:
      description: 8 integers; item N is the egress queue of priority N.
      type: list
      elements: int
    pfc_priorities:
      description: The priorities with PFC on (only the lossless priority).
      type: list
      elements: int
    ecn_queues:
      description: The egress queues with ECN marking (only the lossless queue).
      type: list
      elements: int
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, of_type, one_of

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("roce_qos_check")
def roce_qos_check(description, host=None, headroom=None, platform=None):
    """Validate the lossless class (and the host side); return it with its maps."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce.qos import (
        PLATFORMS,
        check_platform,
        dscp_to_priority,
        parse_lossless_class,
        priority_to_queue,
    )
    of_type("input", description, dict, "a mapping describing the lossless class")
    of_type("host", host, dict, "a mapping {priority, dscp}", optional=True)
    of_type("headroom", headroom, (dict, list), "a mapping port -> {xoff, xon, size} or the list "
            "gpufleet.cluster.pfc_headroom returns", optional=True)
    one_of("platform", platform, PLATFORMS, optional=True)
    cls = parse_lossless_class(description, host=host, headroom=headroom)
    if platform is not None:
        check_platform(cls, platform)
    dscp_map, queues = dscp_to_priority(cls), priority_to_queue(cls)
    return {
        "lossless_class": cls.as_dict(),
        "dscp_to_priority": [dscp_map[d] for d in range(64)],
        "priority_to_queue": [queues[p] for p in range(8)],
        "pfc_priorities": [cls.priority],
        "ecn_queues": [cls.queue],
    }


class FilterModule:
    def filters(self):
        return {"roce_qos_check": roce_qos_check}
