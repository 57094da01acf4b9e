# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: perftest_parse
version_added: 0.1.0
short_description: Parse ib_write_bw / ib_send_bw / ib_write_lat / ib_send_lat output, optionally judge it
description:
  - Reads perftest's text output (server and client tables, C(--report_gbits), C(-a) sweeps, bidirectional,
    rdma_cm, warnings inside the table) into settings, rows and a summary. Bandwidths are also given in Gb/s
    (C(bw_average_gbps)); perftest's MB/sec is MiB/s (x 1048576 x 8 / 1e9).
  - With O(expect) (a C(gpufleet.cluster.validate_expect) result) adds C(check), a validate_report entry
    judged on the average bandwidth at the largest size (bw tests) or t_typical of the smallest (latency tests).
positional: _input
options:
  _input:
    description: The tool's stdout.
    type: str
    required: true
  expect:
    description: Expectation from C(validate_expect) (kind rdma or rdma_lat).
    type: dict
  nodes:
    description: Node(s) the result belongs to (a result with one node can lead to its drain).
    type: list
    elements: str
  check:
    description: Check name in the report; default C(rdma_bw) or C(rdma_lat).
    type: str
"""

EXAMPLES = r"""
- name: Judge one HCA's write bandwidth against 90 % of the link rate
  ansible.builtin.set_fact:
    rdma_result: >-
      {{ ib_write_bw.stdout | gpufleet.cluster.perftest_parse(
           expect=('rdma' | gpufleet.cluster.validate_expect(hardware=validate_hardware)),
           nodes=[inventory_hostname], check='rdma_bw_mlx5_0') }}
"""

RETURN = r"""
_value:
  description:
    - C(test), C(verb), C(kind) (bw or lat), C(bidirectional), C(device), C(link_type), C(rdma_cm), C(settings),
      C(unit), C(columns), C(rows), C(tables) (one per side), C(warnings), C(summary) and, with O(expect), C(check).
  type: dict
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, of_type, string_list

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("perftest_parse", unreadable="the output or expect")
def perftest_parse(text, expect=None, nodes=None, check=None):
    """Parsed perftest output (+ check with expect)."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.checks import perftest_check
    from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.perftest import parse_perftest
    of_type("input", text, str, "the perftest output text")
    string_list("nodes", nodes, "a list of node names", if_none=None)
    parsed = parse_perftest(text)
    if expect is not None:
        parsed["check"] = perftest_check(parsed, expect, list(nodes or []), check)
    return parsed


class FilterModule:
    def filters(self):
        return {"perftest_parse": perftest_parse}
