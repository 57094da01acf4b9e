# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: rdma_stack_conflicts
version_added: 0.1.0
short_description: Which RDMA stacks a node has installed, and which of them conflict with the one wanted
description:
  - Reads the output of gpufleet.cluster.dpkg_installed (package to version) and sorts the packages into stacks.
    DOCA-OFED - any C(doca-*) package; MLNX_OFED - C(mlnx-ofed-*) or C(ofed-scripts) where no C(doca-*) is
    installed (DOCA brings C(mlnx-ofed-kernel-dkms) too); inbox - C(rdma-core), C(ibverbs-providers),
    C(ibverbs-utils), C(infiniband-diags) or C(rdmacm-utils) at a distribution version. The vendor stacks ship
    those same names at versions containing C(mlnx) (C(2410mlnx54-1.2410068)), which count for the vendor stack.
  - The vendor stacks replace rdma-core's libraries, so a node that has another stack than the wanted one is a
    switch that needs an explicit decision.
positional: _input, stack
options:
  _input:
    description: Installed packages, name to version (gpufleet.cluster.dpkg_installed's result).
    type: dict
    required: true
  stack:
    description: The wanted stack, C(inbox), C(doca) or C(mlnx_ofed).
    type: str
    required: true
"""

EXAMPLES = r"""
- name: Refuse a stack switch
  ansible.builtin.assert:
    that: conflicts.packages | length == 0
  vars:
    conflicts: "{{ dpkg.stdout_lines | gpufleet.cluster.dpkg_installed | gpufleet.cluster.rdma_stack_conflicts('doca') }}"
  # {"rdma-core": "44.0-2"} -> conflicts.conflicting == {"inbox": ["rdma-core=44.0-2"]}
"""

RETURN = r"""
_value:
  description:
    - C(installed) (every stack found, to its C(name=version) list), C(conflicting) (the same for the stacks other
      than the wanted one) and C(packages) (the conflicting packages, one flat list).
  type: dict
"""

from collections.abc import Mapping

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, require

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("rdma_stack_conflicts")
def rdma_stack_conflicts(installed, stack):
    """Installed stacks other than the wanted one."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.rdma.stack import stack_conflicts
    require(isinstance(installed, Mapping) and all(isinstance(k, str) and isinstance(v, str)
                                                   for k, v in installed.items()),
            "input", installed, "a dict of package name to version (dpkg_installed's result)")
    return stack_conflicts(stack, dict(installed))


class FilterModule:
    def filters(self):
        return {"rdma_stack_conflicts": rdma_stack_conflicts}
