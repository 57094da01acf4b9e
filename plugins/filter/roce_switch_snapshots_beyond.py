# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: roce_switch_snapshots_beyond
version_added: 0.1.0
short_description: The switch snapshots older than the newest ones to keep
description:
  - The roce_switch role keeps, on the switch, a dated copy of what a push overwrites - SONiC's
    C(config_db.<date>.running.json) and C(config_db.<date>.saved.json), EOS's C(gpufleet-roce-<date>.cfg) on
    flash (the date in UTC, C(YYYYMMDDTHHMMSSZ)).
  - Given the names or paths a listing found, returns the snapshots beyond the newest O(keep) of each kind, oldest
    first, for deletion. Names of any other shape are never returned.
positional: _input, keep
options:
  _input:
    description: File names or paths (C(find)'s paths, or the words of C(dir flash:)).
    type: list
    elements: str
    required: true
  keep:
    description: How many of each kind to keep, 1 to 100.
    type: int
    required: true
"""

EXAMPLES = r"""
- name: Delete the snapshots beyond the newest 10
  ansible.builtin.file:
    path: "{{ item }}"
    state: absent
  loop: "{{ found.files | map(attribute='path') | gpufleet.cluster.roce_switch_snapshots_beyond(10) }}"
"""

RETURN = r"""
_value:
  description: The snapshots to delete, oldest first, as given.
  type: list
  elements: str
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("roce_switch_snapshots_beyond")
def roce_switch_snapshots_beyond(names, keep):
    """The snapshots beyond the newest ``keep`` of each kind."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce.snapshots import beyond
    return beyond(names, keep)


class FilterModule:
    def filters(self):
        return {"roce_switch_snapshots_beyond": roce_switch_snapshots_beyond}
