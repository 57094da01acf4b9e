# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: slurm_topology_conf
version_added: 0.1.0
short_description: topology.conf lines for a fat tree (topology/tree) or NVLink blocks (topology/block)
description:
  - C(kind=tree) takes C(leaves) (C({name, nodes, link_speed?})) and C(spines) (C({name, leaves})), or a
    generic C(switches) list (C({name, nodes?, switches?, link_speed?})), and writes
    C(SwitchName=leaf1 Nodes=compute[01-04]) and C(SwitchName=spine1 Switches=leaf[1-2]) lines.
  - Tree checks are every node in exactly one leaf, every leaf under a spine once spines exist, no
    unknown or repeated switch, no cycle, names that compress into a hostlist, and with C(nodes) every
    node of the list in the fabric and no other.
  - C(kind=block) (Slurm 23.11 and later, refused on 22.05) takes C(blocks) (C({name, nodes})) and
    C(block_sizes) and writes C(BlockName=... Nodes=...) plus C(BlockSizes=...). Block sizes are the
    base size then the base times powers of two, and need Slurm 24.05 or later (23.11 used
    C(BlockLevels)).
positional: _input, version, nodes
options:
  _input:
    description: Fabric description with C(kind) tree or block.
    type: dict
    required: true
  version:
    description: Installed Slurm version.
    type: str
    default: "22.05"
  nodes:
    description: Host names (or hostlist expressions) of all slurm.conf nodes, to cross-check.
    type: list
    elements: str
    required: false
"""

EXAMPLES = r"""
- name: topology.conf for two leaves under one spine
  ansible.builtin.copy:
    dest: /etc/slurm/topology.conf
    content: "{{ gpufleet_fabric | gpufleet.cluster.slurm_topology_conf('22.05.8', groups['gpu_nodes']) | join('\n') }}\n"
  # gpufleet_fabric:
  #   kind: tree
  #   leaves: [{name: leaf1, nodes: 'compute[01-04]'}, {name: leaf2, nodes: 'compute[05-08]'}]
  #   spines: [{name: spine1, leaves: [leaf1, leaf2]}]
  # SwitchName=leaf1 Nodes=compute[01-04]
  # SwitchName=leaf2 Nodes=compute[05-08]
  # SwitchName=spine1 Switches=leaf[1-2]
"""

RETURN = r"""
_value:
  description: The topology.conf lines.
  type: list
  elements: str
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, of_type, string_list

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("slurm_topology_conf")
def slurm_topology_conf(fabric, version="22.05", nodes=None):
    """topology.conf lines for a tree or block fabric."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.topology import topology_conf_lines
    of_type("input", fabric, dict, "a fabric mapping with kind tree or block")
    of_type("version", version, str, "a string such as '22.05.8'")
    string_list("nodes", nodes, "a list of host names", if_none=None)
    return topology_conf_lines(fabric, version, nodes)


class FilterModule:
    def filters(self):
        return {"slurm_topology_conf": slurm_topology_conf}
