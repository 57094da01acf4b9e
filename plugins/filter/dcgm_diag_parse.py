# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: dcgm_diag_parse
version_added: 0.1.0
short_description: Parse and judge dcgmi diag -r N output
description:
  - 'Reads the C(| Diagnostic | Result |) table of C(dcgmi diag) (DCGM 2 to 4, wrapped cells, per-GPU
    C(Fail - GPU: 0) continuation rows, Error/Warning/Info message rows) and judges it as the Slurm GPU health
    check does (docs/gpu-health.md) - the same algorithm, kept in module_utils because that script runs alone
    on the nodes.'
  - Returns C(check), a validate_report entry (C(dcgm_diag)) that fails when any test failed or errored.
  - Fails when dcgmi could not reach nv-hostengine or printed no diagnostic table.
positional: _input
options:
  _input:
    description: dcgmi diag's stdout.
    type: str
    required: true
  node:
    description: The node the diagnostic ran on.
    type: str
"""

EXAMPLES = r"""
- name: Level 2 diagnostic of this node
  ansible.builtin.set_fact:
    dcgm_result: "{{ dcgm_run.stdout | gpufleet.cluster.dcgm_diag_parse(node=inventory_hostname) }}"
"""

RETURN = r"""
_value:
  description: C(metadata), C(rows) (section, test, result, gpus, detail, message), C(gpu_count), C(failures),
    C(warnings), C(notes), C(passed) and C(check).
  type: dict
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, of_type

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("dcgm_diag_parse", unreadable="the output")
def dcgm_diag_parse(text, node=None):
    """Parsed and judged dcgmi diag output."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.dcgm import dcgm_verdict
    of_type("input", text, str, "the dcgmi diag output text")
    of_type("node", node, str, "a node name", optional=True)
    return dcgm_verdict(text, node)


class FilterModule:
    def filters(self):
        return {"dcgm_diag_parse": dcgm_diag_parse}
