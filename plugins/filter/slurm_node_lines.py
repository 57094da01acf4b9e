# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: slurm_node_lines
version_added: 0.1.0
short_description: slurm.conf NodeName and PartitionName lines from a node list
description:
  - Groups nodes with identical hardware into one C(NodeName=) line under a compressed hostlist
    (C(NodeName=compute[01-08] CPUs=104 ... Gres=gpu:h100:8 Feature=h100,ib)).
  - Checks each node with Slurm's rules, so C(cpus) must equal C(sockets * cores_per_socket *
    threads_per_core) (C(sockets) is the node total; C(boards), default 1, must divide it),
    C(real_memory) (MiB) and gres counts must be positive, names must be plain host names, and
    C(extra) keys must be NodeName options of the release.
  - With C(partitions), also writes C(PartitionName=) lines and refuses a partition naming an unknown
    node, a node in no partition, and two default partitions.
positional: _input, partitions, version
options:
  _input:
    description: >-
      List of nodes C({name, cpus?, boards?, sockets, cores_per_socket, threads_per_core,
      real_memory, gres?: [{type, model?, count}], features?: [...], weight?, extra?: {}}).
    type: list
    elements: dict
    required: true
  partitions:
    description: >-
      List of partitions C({name, nodes (hostlist, list or ALL), default?, max_time?, state?, extra?}).
    type: list
    elements: dict
    required: false
  version:
    description: Installed Slurm version (for the NodeName/PartitionName keys allowed in C(extra)).
    type: str
    default: "22.05"
"""

EXAMPLES = r"""
- name: Node and partition lines for slurm.conf
  ansible.builtin.set_fact:
    gpufleet_slurm_nodes: "{{ gpufleet_nodes | gpufleet.cluster.slurm_node_lines(gpufleet_partitions, '22.05.8') }}"
  # node_lines: [NodeName=compute[01-08] CPUs=104 Sockets=2 CoresPerSocket=52 ThreadsPerCore=1
  #              RealMemory=2063937 Gres=gpu:h100:8 Feature=h100,ib]
  # partition_lines: [PartitionName=gpu Nodes=compute[01-08] Default=YES MaxTime=2-00:00:00 State=UP]
"""

RETURN = r"""
_value:
  description: The slurm.conf lines.
  type: dict
  contains:
    node_lines:
      description: NodeName lines, one per group of identical nodes, in host order.
      type: list
      elements: str
    partition_lines:
      description: PartitionName lines in input order (empty without partitions).
      type: list
      elements: str
    lines:
      description: node_lines followed by partition_lines.
      type: list
      elements: str
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, of_type

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("slurm_node_lines")
def slurm_node_lines(nodes, partitions=None, version="22.05"):
    """NodeName (and PartitionName) lines for slurm.conf."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.conf.nodes import (
        node_lines,
        partition_lines,
    )
    of_type("input", nodes, list, "a list of node mappings")
    of_type("partitions", partitions, list, "a list of mappings", optional=True)
    of_type("version", version, str, "a string such as '22.05.8'")
    nodes_out = node_lines(nodes, version)
    parts_out = partition_lines(partitions, nodes, version) if partitions is not None else []
    return {"node_lines": nodes_out, "partition_lines": parts_out, "lines": nodes_out + parts_out}


class FilterModule:
    def filters(self):
        return {"slurm_node_lines": slurm_node_lines}
