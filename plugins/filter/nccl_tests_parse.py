# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: nccl_tests_parse
version_added: 0.1.0
short_description: Parse nccl-tests (all_reduce_perf) output, optionally judge its bus bandwidth
description:
  - Reads the C(# nThread) line, the C(# Rank) lines (hosts and GPUs that took part), the result table (old
    C(error) and new C(#wrong)/C(root) layouts, C(srun --label) prefixes, NCCL INFO lines in between), the
    C(# Out of bounds values) and C(# Avg bus bandwidth) lines.
  - With O(expect) (a C(validate_expect) kind nccl result) adds C(check) judged on the busbw of the largest
    size (best of out-of-place and in-place); wrong values or out of bounds values fail it whatever the speed.
positional: _input
options:
  _input:
    description: The test's stdout (srun output included).
    type: str
    required: true
  expect:
    description: Expectation from C(validate_expect) (kind nccl).
    type: dict
  nodes:
    description: Nodes of the run (the report shows them; a multi-node result drains nobody).
    type: list
    elements: str
  check:
    description: Check name in the report.
    type: str
    default: nccl_all_reduce
"""

EXAMPLES = r"""
- name: All-reduce over every GPU node
  ansible.builtin.set_fact:
    nccl_result: >-
      {{ nccl_run.stdout | gpufleet.cluster.nccl_tests_parse(
           expect=('nccl' | gpufleet.cluster.validate_expect(hardware=validate_hardware, nodes=groups['gpu_nodes'] | length)),
           nodes=groups['gpu_nodes']) }}
"""

RETURN = r"""
_value:
  description:
    - C(params), C(ranks) (rank, group, pid, host, device, bus_id, name), C(hosts), C(gpus_per_host),
      C(srun_labels), C(rows) (size, count, type, redop, root, out_of_place and in_place with time_us,
      algbw_gbs, busbw_gbs and wrong or error), C(avg_busbw_gbs), C(out_of_bounds), C(out_of_bounds_ok),
      C(wrong_total), C(notes), C(summary) (largest_size, largest_busbw_gbs, peak_busbw_gbs, ranks, hosts)
      and, with O(expect), C(check).
  type: dict
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, of_type, string_list

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("nccl_tests_parse", unreadable="the output or expect")
def nccl_tests_parse(text, expect=None, nodes=None, check="nccl_all_reduce"):
    """Parsed nccl-tests output (+ check with expect)."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.checks import nccl_check
    from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.nccl import parse_nccl_tests
    of_type("input", text, str, "the nccl-tests output text")
    string_list("nodes", nodes, "a list of node names", if_none=None)
    parsed = parse_nccl_tests(text)
    if expect is not None:
        parsed["check"] = nccl_check(parsed, expect, sorted(nodes or parsed["hosts"]), check)
    return parsed


class FilterModule:
    def filters(self):
        return {"nccl_tests_parse": nccl_tests_parse}
