# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: rdma_stack_plan
version_added: 0.1.0
short_description: The packages and the apt repository for the chosen RDMA stack (inbox, DOCA-OFED or MLNX_OFED)
description:
  - C(inbox) installs the distribution's rdma-core packages and adds no repository.
  - C(doca) and C(mlnx_ofed) install one metapackage (C(doca-ofed), C(doca-roce), C(mlnx-ofed-all), ...) from the
    vendor's flat apt repository C(<base>/<version>/<os label>/<arch label>/) with suite C(./), the layout of
    NVIDIA's C(https://linux.mellanox.com/public/repo/doca) and C(.../mlnx_ofed) and of their mirrors. The
    architecture label is C(x86_64), or C(arm64-sbsa) (DOCA) / C(arm64) (MLNX_OFED) on aarch64.
  - A vendor stack without its repository base or signing key (URL or ASCII-armored text) is refused, naming the
    variable to set.
positional: _input
options:
  _input:
    description:
      - The settings, C({stack, os_label, architecture, inbox_packages, doca_version, doca_profile,
        doca_repository_base, mlnx_ofed_version, mlnx_ofed_profile, mlnx_ofed_repository_base, repository_key,
        opensm, extra_packages}).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Plan DOCA-OFED 3.2.1 from a mirror on Ubuntu 24.04 x86_64
  ansible.builtin.set_fact:
    plan: >-
      {{ {'stack': 'doca', 'os_label': 'ubuntu24.04', 'architecture': 'x86_64', 'doca_version': '3.2.1',
          'doca_profile': 'doca-ofed', 'doca_repository_base': 'https://mirror.example.org/doca',
          'repository_key': 'https://mirror.example.org/doca/GPG-KEY-Mellanox.pub'} | gpufleet.cluster.rdma_stack_plan }}
  # plan.repository.uri == "https://mirror.example.org/doca/3.2.1/ubuntu24.04/x86_64/", plan.packages == ["doca-ofed"]
"""

RETURN = r"""
_value:
  description:
    - C(stack), C(packages) (to install, in order, without duplicates), C(repository) (null for inbox, else
      C({name, uri, suites, signed_by}) where C(signed_by) is C(url) or C(text)) and C(other_stacks).
  type: dict
"""

from collections.abc import Mapping

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, of_type

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("rdma_stack_plan")
def rdma_stack_plan(settings):
    """Packages and repository for the chosen stack."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.rdma.stack import stack_plan
    of_type("input", settings, Mapping, "a dict of settings")
    return stack_plan(dict(settings))


class FilterModule:
    def filters(self):
        return {"rdma_stack_plan": rdma_stack_plan}
