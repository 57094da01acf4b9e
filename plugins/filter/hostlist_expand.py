# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: hostlist_expand
version_added: 0.1.0
short_description: Expand a Slurm hostlist expression into host names
description:
  - Expands a Slurm hostlist such as C(gpu[01-04],login1) into a list of names, with Slurm's own
    rules (the same output as C(scontrol show hostnames)).
  - Zero padding is the width of a range's low bound (C(n[08-11]) gives n08 to n11); several bracket
    groups in one name give their cartesian product (C(rack[1-2]-n[01-02])).
  - Malformed input is refused with a message that says what to fix, namely an unclosed or stray
    bracket, an empty element, a reversed range such as C(n[5-3]), anything but digits inside brackets,
    or more than 100000 names.
  - Names are separated by commas only. Every name must be a Slurm name (a letter or digit, then up to
    63 letters, digits, C(.), C(_) or C(-)); blanks, newlines and other control characters, C(#), C(=)
    and the like are refused, so that no name can add a word to a C(slurm.conf) line.
positional: _input
options:
  _input:
    description:
      - A hostlist expression, or a list of them (their expansions are concatenated).
    type: raw
    required: true
  sort:
    description:
      - Return the names sorted the way Slurm sorts them and without duplicates, instead of in
        expression order.
    type: bool
    default: false
"""

EXAMPLES = r"""
- name: One task per GPU node
  ansible.builtin.debug:
    msg: "{{ item }}"
  loop: "{{ 'gpu[01-04],login1' | gpufleet.cluster.hostlist_expand }}"
  # gpu01, gpu02, gpu03, gpu04, login1

- name: Cartesian product of two bracket groups
  ansible.builtin.set_fact:
    gpufleet_rack_nodes: "{{ 'rack[1-2]-n[01-02]' | gpufleet.cluster.hostlist_expand }}"
  # [rack1-n01, rack1-n02, rack2-n01, rack2-n02]

- name: Sorted and deduplicated
  ansible.builtin.debug:
    msg: "{{ ['n3', 'n[1-3]'] | gpufleet.cluster.hostlist_expand(sort=true) }}"
  # [n1, n2, n3]
"""

RETURN = r"""
_value:
  description: The host names.
  type: list
  elements: str
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, flag, of_type

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("hostlist_expand")
def hostlist_expand(hostlist, sort=False):
    """Expand a Slurm hostlist expression (or a list of them) into host names."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist import (
        HostlistError,
        expand_hostlist,
        sort_hosts,
    )
    flag("sort", sort)
    of_type("input", hostlist, (str, list, tuple), "a hostlist string or a list of them")
    if sort:
        return sort_hosts(hostlist if isinstance(hostlist, str) else list(hostlist))
    items = [hostlist] if isinstance(hostlist, str) else list(hostlist)
    if not items:
        raise HostlistError("the list of hostlists is empty; give at least one expression")
    names = []
    for index, item in enumerate(items):
        names.extend(expand_hostlist(of_type("input[%d]" % index, item, str, "a hostlist string")))
    return names


class FilterModule:
    def filters(self):
        return {"hostlist_expand": hostlist_expand}
