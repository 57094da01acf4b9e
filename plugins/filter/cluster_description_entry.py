# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: cluster_description_entry
version_added: 0.1.0
short_description: What a rendered cluster description says about one node that the node's own variables do not
description:
  - A slice of a sliced job (AWX job slicing) holds only its own hosts and cannot recompute the cluster description;
    each node checks its own entry instead, at a cost that does not grow with the cluster
    (docs/cluster-description.md, "The rendered file").
  - Compares the node's address (C(gpufleet_ip), else C(ansible_host)), whether it is in the /etc/hosts group, the
    Slurm compute group and the RoCE host group, its Slurm node layout and gres.conf entry, and its RoCE side with
    what the description holds for it.
  - Returns a list with one sentence naming the host, what differs and how to make the description fresh; an empty
    list when the entry agrees. A description that is no mapping (not defined) or of another format gives a problem,
    not an error.
positional: _input, host, own
options:
  _input:
    description: The cluster description (gpufleet_cluster_description), as gpufleet.cluster.cluster_description makes it.
    type: raw
    required: true
  host:
    description: The node's inventory name.
    type: str
    required: true
  own:
    description: >-
      C({variables: {name: value}, defaults: {layout variable: value}, member: {hosts?: bool, compute?: bool, roce?:
      bool}}): the variables the node sets (C(gpufleet_ip), C(ansible_host), the Slurm layout variables, the RoCE
      ones), the slurm role's values of the layout variables, and whether the node's groups hold it (a key left out is
      not checked).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Check this node's entry in the cluster description
  ansible.builtin.assert:
    that: __problems | length == 0
    fail_msg: "{{ __problems | join(' ') }}"
    quiet: true
  vars:
    __problems: >-
      {{ gpufleet_cluster_description | default(none)
         | gpufleet.cluster.cluster_description_entry(inventory_hostname,
             {'variables': {'gpufleet_ip': gpufleet_ip}, 'member': {'hosts': inventory_hostname in groups['cluster']}}) }}
"""

RETURN = r"""
_value:
  description: One sentence naming the host, what differs and how to make the description fresh; empty when it agrees.
  type: list
  elements: str
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, of_type


@collection_filter("cluster_description_entry", unreadable="the cluster description or the node's variables")
def cluster_description_entry(description, host, own):
    """What the description says about ``host`` that its own variables do not."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.cluster.entry import entry_problems
    of_type("own", own, dict, "a mapping {variables, defaults, member}")
    return entry_problems(description, host, own)


class FilterModule:
    def filters(self):
        return {"cluster_description_entry": cluster_description_entry}
