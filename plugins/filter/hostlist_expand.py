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

from ansible.errors import AnsibleFilterError

# The engineering core is imported inside the filter: to find one filter, ansible imports the collection's filter
# files in turn, in every worker it forks, so a top-level import here would cost every task (docs/performance.md).

_FQCN = "gpufleet.cluster.hostlist_expand"


def hostlist_expand(hostlist, sort=False):
    """Expand a Slurm hostlist expression (or a list of them) into host names."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist import (
        HostlistError,
        expand_hostlist,
        sort_hosts,
    )
    if not isinstance(sort, bool):
        raise AnsibleFilterError("%s: sort must be true or false, got %r" % (_FQCN, sort))
    if not isinstance(hostlist, (str, list, tuple)):
        raise AnsibleFilterError(
            "%s: input must be a hostlist string or a list of them, got %s %r"
            % (_FQCN, type(hostlist).__name__, hostlist)
        )
    try:
        if sort:
            return sort_hosts(hostlist if isinstance(hostlist, str) else list(hostlist))
        items = [hostlist] if isinstance(hostlist, str) else list(hostlist)
        if not items:
            raise HostlistError("the list of hostlists is empty; give at least one expression")
        names = []
        for index, item in enumerate(items):
            if not isinstance(item, str):
                raise HostlistError("item %d is %s %r, not a hostlist string" % (index, type(item).__name__, item))
            names.extend(expand_hostlist(item))
        return names
    except HostlistError as exc:
        raise AnsibleFilterError("%s: %s" % (_FQCN, exc))


class FilterModule:
    def filters(self):
        return {"hostlist_expand": hostlist_expand}
