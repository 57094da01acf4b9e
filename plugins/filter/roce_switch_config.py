# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: roce_switch_config
version_added: 0.1.0
short_description: Render the RoCE lossless class for a SONiC, Cumulus NVUE or Arista EOS switch
description:
  - Takes one description of the lossless class (priority, DSCP list, ECN thresholds, PFC watchdog,
    RoCE ports with speed and cable length) and renders the switch configuration that makes that
    priority lossless on every listed port, with ECN on its queue and every other DSCP on the
    default priority.
  - C(sonic) returns config_db tables as sonic-cfggen writes them (DSCP_TO_TC_MAP,
    TC_TO_PRIORITY_GROUP_MAP, TC_TO_QUEUE_MAP, MAP_PFC_PRIORITY_TO_QUEUE, SCHEDULER, WRED_PROFILE,
    PORT_QOS_MAP, QUEUE, CABLE_LENGTH, BUFFER_PROFILE, BUFFER_PG, PFC_WD), all values strings and
    all maps named C(AZURE), ready to merge into config_db.json.
  - C(nvue) returns an C(nv config patch) YAML document (C(- set:)) with C(qos roce), named
    mapping, pfc, congestion-control and egress-scheduler profiles bound to each port, the
    default-global egress-queue-mapping and the PFC watchdog.
  - C(eos) returns Arista EOS configuration lines (C(qos map), the global PFC watchdog, and per
    interface C(qos trust dscp), C(priority-flow-control priority N no-drop) and the tx-queue ECN).
  - The description is validated first (ranges, DSCP duplicates, threshold order, watchdog ranges);
    a host side that disagrees with the switch (priority or DSCP) is refused, as is anything the
    chosen platform cannot express. See docs/roce-switch.md.
positional: _input, platform
options:
  _input:
    description:
      - The lossless class. Keys C(priority) (default 3), C(dscp) (default [26]), C(queue) (default
        the priority), C(default_priority) (default 0), C(lossless_bandwidth_percent) (default 50),
        C(ecn) (C(min_threshold_bytes), C(max_threshold_bytes), C(probability_percent)),
        C(pfc_watchdog) (C(detection_ms), C(restoration_ms), C(action) drop or forward), C(ports)
        (list of C(name), C(speed_gbps), C(cable_m) in whole metres or C(5m); the other port keys of
        C(gpufleet.cluster.pfc_headroom) are accepted and ignored, so one port list feeds both) and
        optionally C(headroom).
    type: dict
    required: true
  platform:
    description: The switch operating system to render for.
    type: str
    choices: [sonic, nvue, eos]
    default: sonic
  host:
    description:
      - The host (NIC) side, C({priority, dscp}). The switch must make that priority lossless and
        map every one of those DSCPs to it, or the filter fails naming both values.
    type: dict
  headroom:
    description:
      - PFC headroom per port in bytes, either a mapping C(port -> {xoff, xon, size}) or the list
        that C(gpufleet.cluster.pfc_headroom) returns (its C(xoff_bytes), C(xon_bytes) and
        C(headroom_bytes) become xoff, xon and size). Required for C(sonic)
        (BUFFER_PROFILE/BUFFER_PG); checked but not rendered for C(nvue) and C(eos).
      - A size below xoff + xon is refused (the PG's buffer must hold both).
    type: raw
"""

EXAMPLES = r"""
- name: config_db fragment for a SONiC leaf (8 x 400G, priority 3, DSCP 26), headroom from pfc_headroom
  ansible.builtin.copy:
    dest: /etc/sonic/roce_qos.json
    content: >-
      {{ gpufleet_roce_class | gpufleet.cluster.roce_switch_config('sonic', host={'priority': 3, 'dscp': 26},
         headroom=(gpufleet_roce_class.ports | gpufleet.cluster.pfc_headroom(cell_bytes=144, mtu=9216)))
         | to_nice_json }}
  # gpufleet_roce_class: {ports: [{name: Ethernet0, speed_gbps: 400, cable_m: 5}, ...]}; every other key defaults

- name: NVUE patch for a Cumulus leaf
  ansible.builtin.copy:
    dest: /tmp/roce.yaml
    content: "{{ gpufleet_roce_class | gpufleet.cluster.roce_switch_config('nvue') }}"
  # then: nv config patch /tmp/roce.yaml && nv config apply

- name: EOS lines
  ansible.builtin.set_fact:
    gpufleet_roce_eos: "{{ gpufleet_roce_class | gpufleet.cluster.roce_switch_config(platform='eos') }}"
"""

RETURN = r"""
_value:
  description:
    - C(sonic) a dict of config_db tables (table -> key -> field -> string value).
    - C(nvue) the YAML text of an C(nv config patch) file.
    - C(eos) the configuration text, one command per line.
  type: raw
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, of_type, one_of

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("roce_switch_config")
def roce_switch_config(description, platform="sonic", host=None, headroom=None):
    """Validate the lossless class and render it for ``platform``."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce.qos import (
        PLATFORMS,
        parse_lossless_class,
    )
    from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce.render import render
    of_type("input", description, dict, "a mapping describing the lossless class")
    one_of("platform", platform, PLATFORMS)
    of_type("host", host, dict, "a mapping {priority, dscp}", optional=True)
    of_type("headroom", headroom, (dict, list), "a mapping port -> {xoff, xon, size} or the list "
            "gpufleet.cluster.pfc_headroom returns", optional=True)
    return render(parse_lossless_class(description, host=host, headroom=headroom), platform)


class FilterModule:
    def filters(self):
        return {"roce_switch_config": roce_switch_config}
