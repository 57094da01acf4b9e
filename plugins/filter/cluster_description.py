# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: cluster_description
version_added: 0.1.0
short_description: The cluster description (addresses, the /etc/hosts block, Slurm lines, RoCE host sides), once per run
description:
  - Computes, in time linear in the number of hosts, what each node's layers need to know about the other hosts,
    from a compact extract of the inventory (only the variables each host sets), so that no host re-reads every other
    host's variables (docs/cluster-description.md).
  - Every host's address (C(gpufleet_ip), else C(ansible_host)); with C(hosts_group), the /etc/hosts block of those
    hosts (sorted by name) and the hosts the common role's preflight refuses (no address, an address that is no IP,
    a name that is no host name).
  - With C(slurm), the compute nodes' layouts as the slurm role reads them, the cluster's size, and the NodeName=,
    PartitionName=, gres.conf and topology.conf lines, checked as gpufleet.cluster.slurm_node_lines,
    gpufleet.cluster.slurm_gres_lines and gpufleet.cluster.slurm_topology_conf check them.
  - With C(roce), each RoCE host's side (PFC priority and DSCP) and each different side once.
positional: _input
options:
  _input:
    description: >-
      C({hosts: {name: {variable: value}}, hosts_group?: [names] or null, domain?: str, slurm?: {controllers,
      computes, defaults, partitions, release, topology}, roce?: {hosts, vars: {priority, dscp}}}). C(hosts) holds,
      for every host a part names, only the variables that host sets (C(gpufleet_ip), C(ansible_host), the
      C(slurm_node_*) and C(slurm_gpu_*) layout variables, C(gpufleet_roce_class), C(roce_host_enabled) and the
      variables C(roce.vars) names).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: The cluster description, once for the run
  ansible.builtin.set_fact:
    cluster: >-
      {{ {'hosts': {'gpu01': {'gpufleet_ip': '10.0.0.1'}, 'gpu02': {'ansible_host': '10.0.0.2'}},
          'hosts_group': ['gpu01', 'gpu02'], 'domain': ''} | gpufleet.cluster.cluster_description }}
  run_once: true
  # cluster.addresses: {gpu01: 10.0.0.1, gpu02: 10.0.0.2}
  # cluster.hosts.block: "10.0.0.1        gpu01\n10.0.0.2        gpu02"
"""

RETURN = r"""
_value:
  description: The cluster description.
  type: dict
  contains:
    version:
      description: The description's format (1).
      type: int
    addresses:
      description: Every host's address, by name.
      type: dict
    hosts:
      description: >-
        With hosts_group - C(group) (null when the inventory has no such group), C(sorted) ([{name, address}]),
        C(block) (the /etc/hosts block's text), C(missing), C(bad_addresses) ([{host, address}]), C(bad_names).
      type: dict
    slurm:
      description: >-
        With slurm - C(release), C(partitions), C(topology) (the inputs the lines are for), C(controllers),
        C(computes), C(nodes) and C(gres) (slurm_node_lines' and slurm_gres_lines' inputs), C(size) ({nodes, cpus,
        gpus}), C(node_conf) ({node_lines, partition_lines, lines}), C(gres_lines), C(topology_lines).
      type: dict
    roce:
      description: With roce - C(group), C(vars), C(sides) ([{source, priority, dscp}]), C(distinct) ([{priority, dscp, sources}]).
      type: dict
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, of_type


@collection_filter("cluster_description", unreadable="the inventory extract")
def cluster_description(inputs):
    """The cluster description of a compact inventory extract."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.cluster.description import describe
    of_type("input", inputs, dict, "a mapping with hosts and the parts to describe")
    return describe(inputs)


class FilterModule:
    def filters(self):
        return {"cluster_description": cluster_description}
