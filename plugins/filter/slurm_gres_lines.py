# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: slurm_gres_lines
version_added: 0.1.0
short_description: gres.conf lines, with File= and Cores= from the GPUs' NUMA affinity
description:
  - For an entry with C(autodetect) (C(nvml) when the NVIDIA driver is present), writes
    C(NodeName=... AutoDetect=nvml).
  - For an explicit entry, groups the GPUs by NUMA node and writes one line per NUMA node, for example
    C(NodeName=compute[01-08] Name=gpu Type=h100 File=/dev/nvidia[0-3] Cores=0-51). C(Cores) are Slurm's
    logical core indexes (core 0 is the first core of socket 0), taken from C(numa_cores).
  - With C(nodes) (the same node list as the C(gpufleet.cluster.slurm_node_lines) input), refuses a node whose
    C(Gres=) count differs from the gres.conf device count, and C(Cores) beyond the node's core count.
positional: _input, nodes, version
options:
  _input:
    description: >-
      List of entries C({nodes, autodetect?, name? (default gpu), type?, gpus?: [{index, numa_node}],
      numa_cores?: {numa: '0-51'}, count?, device? (default /dev/nvidia)}). C(device) is the prefix the
      GPU index is appended to, an absolute path under C(/dev) of letters, digits, C(_), C(.), C(+) and
      C(-) that does not end in a digit; node names and C(type) are Slurm names.
    type: list
    elements: dict
    required: true
  nodes:
    description: Node list to check the counts against (optional).
    type: list
    elements: dict
    required: false
  version:
    description: Installed Slurm version.
    type: str
    default: "22.05"
"""

EXAMPLES = r"""
- name: gres.conf for the H100 nodes (GPU 0-3 on NUMA 0, 4-7 on NUMA 1)
  ansible.builtin.copy:
    dest: /etc/slurm/gres.conf
    content: "{{ gpufleet_gres | gpufleet.cluster.slurm_gres_lines(gpufleet_nodes, '22.05.8') | join('\n') }}\n"
  # NodeName=compute[01-08] Name=gpu Type=h100 File=/dev/nvidia[0-3] Cores=0-51
  # NodeName=compute[01-08] Name=gpu Type=h100 File=/dev/nvidia[4-7] Cores=52-103
"""

RETURN = r"""
_value:
  description: The gres.conf lines.
  type: list
  elements: str
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, of_type

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("slurm_gres_lines")
def slurm_gres_lines(gres, nodes=None, version="22.05"):
    """gres.conf lines, optionally checked against the slurm.conf node list."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.conf.nodes import gres_conf_lines
    of_type("input", gres, list, "a list of gres entries")
    of_type("nodes", nodes, list, "a list of node mappings", optional=True)
    of_type("version", version, str, "a string such as '22.05.8'")
    return gres_conf_lines(gres, nodes, version)


class FilterModule:
    def filters(self):
        return {"slurm_gres_lines": slurm_gres_lines}
