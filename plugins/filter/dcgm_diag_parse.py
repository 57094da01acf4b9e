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

from ansible.errors import AnsibleFilterError

# The engineering core is imported inside the filter: to find one filter, ansible imports the collection's filter
# files in turn, in every worker it forks, so a top-level import here would cost every task (docs/performance.md).

_FQCN = "gpufleet.cluster.dcgm_diag_parse"


def dcgm_diag_parse(text, node=None):
    """Parsed and judged dcgmi diag output."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.dcgm import dcgm_verdict
    from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.parse import ValidateParseError
    if not isinstance(text, str):
        raise AnsibleFilterError("%s: input must be the dcgmi diag output text, got %s" % (_FQCN, type(text).__name__))
    if node is not None and not isinstance(node, str):
        raise AnsibleFilterError("%s: node must be a node name, got %r" % (_FQCN, node))
    try:
        return dcgm_verdict(text, node)
    except ValidateParseError as exc:
        raise AnsibleFilterError("%s: %s" % (_FQCN, exc))
    except (TypeError, ValueError, AttributeError, KeyError, IndexError, OverflowError) as exc:
        raise AnsibleFilterError("%s: the output could not be read (%s: %s); see the filter's documentation for what it takes"
                                 % (_FQCN, type(exc).__name__, exc))


class FilterModule:
    def filters(self):
        return {"dcgm_diag_parse": dcgm_diag_parse}
