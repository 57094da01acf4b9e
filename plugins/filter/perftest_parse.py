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

from ansible.errors import AnsibleFilterError

# The engineering core is imported inside the filter: to find one filter, ansible imports the collection's filter
# files in turn, in every worker it forks, so a top-level import here would cost every task (docs/performance.md).

_FQCN = "gpufleet.cluster.perftest_parse"


def perftest_parse(text, expect=None, nodes=None, check=None):
    """Parsed perftest output (+ check with expect)."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.checks import perftest_check
    from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.expect import ExpectationError
    from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.parse import ValidateParseError
    from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.perftest import parse_perftest
    if not isinstance(text, str):
        raise AnsibleFilterError("%s: input must be the perftest output text, got %s" % (_FQCN, type(text).__name__))
    if nodes is not None and (not isinstance(nodes, list) or not all(isinstance(n, str) for n in nodes)):
        raise AnsibleFilterError("%s: nodes must be a list of node names, got %r" % (_FQCN, nodes))
    try:
        parsed = parse_perftest(text)
        if expect is not None:
            parsed["check"] = perftest_check(parsed, expect, list(nodes or []), check)
    except (ValidateParseError, ExpectationError) as exc:
        raise AnsibleFilterError("%s: %s" % (_FQCN, exc))
    except (TypeError, ValueError, AttributeError, KeyError, IndexError, OverflowError) as exc:
        raise AnsibleFilterError("%s: the output or expect could not be read (%s: %s); see the filter's documentation for what it takes"
                                 % (_FQCN, type(exc).__name__, exc))
    return parsed


class FilterModule:
    def filters(self):
        return {"perftest_parse": perftest_parse}
