# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: hostlist_compress
version_added: 0.1.0
short_description: Compress host names into a Slurm hostlist expression
description:
  - Turns a list of host names into the shortest Slurm hostlist, sorted and without duplicates, as
    Slurm's C(hostlist_uniq) and C(hostlist_ranged_string) would write it (for example for
    C(NodeName=) and C(Nodes=) in slurm.conf, or C(Switches=)/C(Nodes=) in topology.conf).
  - Names are grouped by prefix (everything before the trailing digits), numbers are merged into
    ranges, and zero padding is kept apart (C(n1) and C(n01) are different hosts and do not merge).
    Names without trailing digits are kept as written.
  - The result is canonical; expanding it gives the sorted, duplicate-free input.
  - Every name must be a Slurm name (a letter or digit, then up to 63 letters, digits, C(.), C(_) or
    C(-)); a name holding a blank, newline, C(#) or C(=) is refused.
positional: _input
options:
  _input:
    description:
      - A list of host names; items may themselves be hostlist expressions. A single string is read as
        a hostlist expression and re-compressed.
    type: raw
    required: true
"""

EXAMPLES = r"""
- name: NodeName line from the inventory group
  ansible.builtin.debug:
    msg: "NodeName={{ groups['gpu_nodes'] | gpufleet.cluster.hostlist_compress }}"
  # with gpu01..gpu08 in the group: NodeName=gpu[01-08]

- name: Sorting, deduplication and padding
  ansible.builtin.debug:
    msg: "{{ ['n3', 'n1', 'n2', 'n2', 'n01', 'login1'] | gpufleet.cluster.hostlist_compress }}"
  # login1,n[1-3,01]
"""

RETURN = r"""
_value:
  description: The hostlist expression.
  type: str
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, of_type

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("hostlist_compress")
def hostlist_compress(names):
    """Compress host names into a sorted, deduplicated Slurm hostlist expression."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist import compress_hostlist
    of_type("input", names, (str, list, tuple), "a list of host names")
    return compress_hostlist(names if isinstance(names, str) else list(names))


class FilterModule:
    def filters(self):
        return {"hostlist_compress": hostlist_compress}
