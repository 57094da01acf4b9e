# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: nvidia_smi_parse
version_added: 0.1.0
short_description: Parse nvidia-smi -q or --query-gpu CSV, optionally check clocks, power, ECC and thermal state
description:
  - O(format=q) reads C(nvidia-smi -q) per GPU - power limits, current/application/default application clocks,
    ECC mode and uncorrectable counters, remapped rows, retired pages, temperature and its slowdown/shutdown
    thresholds (absolute, or from the T.Limit margins of 535+ drivers), active clock event reasons.
  - Power of every driver generation - C(power_draw_w) from C(Power Draw) (before 580) or C(Average Power Draw)
    (580+, with C(power_draw_instant_w) from C(Instantaneous Power Draw)); C(power_limit_w) the limit set
    (C(Power Limit), or C(Requested Power Limit) on 535+) and C(power_enforced_limit_w) the limit in force
    (C(Enforced Power Limit), or C(Current Power Limit) on 535+). The C(gpu_power_limit) check needs both to
    equal the expectation.
  - O(format=csv) reads C(nvidia-smi --query-gpu=... --format=csv[,nounits]) into dicts keyed by the query names,
    numbers as numbers and C([N/A]) as null.
  - With O(format=q), C(checks) holds validate_report entries - C(gpu_count) (with O(expected_count)),
    C(gpu_power_limit) and C(gpu_clocks) (with O(expect) from C(validate_expect) kind gpu), C(gpu_ecc),
    C(gpu_thermal).
positional: _input
options:
  _input:
    description: nvidia-smi's stdout.
    type: str
    required: true
  format:
    description: Which output it is.
    type: str
    choices: [q, csv]
    default: q
  node:
    description: The node the output comes from.
    type: str
  expect:
    description: Expectation from C(validate_expect) kind gpu (power limit and application clocks).
    type: dict
  expected_count:
    description: GPUs the node should have (gpufleet_hardware.gpus).
    type: int
"""

EXAMPLES = r"""
- name: Clocks, power, ECC and thermal state of this node's GPUs
  ansible.builtin.set_fact:
    gpu_result: >-
      {{ smi_q.stdout | gpufleet.cluster.nvidia_smi_parse(node=inventory_hostname,
           expected_count=gpufleet_hardware.gpus,
           expect=('gpu' | gpufleet.cluster.validate_expect(hardware=validate_hardware, model='NVIDIA H100 80GB HBM3'))) }}
"""

RETURN = r"""
_value:
  description: C(gpus) (a list of dicts) and, with O(format=q), C(checks).
  type: dict
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import (
    collection_filter,
    of_type,
    one_of,
    require,
)

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("nvidia_smi_parse", unreadable="the output or expect")
def nvidia_smi_parse(text, format="q", node=None, expect=None, expected_count=None):
    """Parsed nvidia-smi output (+ GPU checks for -q)."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.gpu import gpu_checks
    from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.smi import (
        parse_nvidia_smi_q,
        parse_query_gpu_csv,
    )
    of_type("input", text, str, "nvidia-smi's output text")
    one_of("format", format, ("q", "csv"))
    require(expected_count is None or (not isinstance(expected_count, bool) and isinstance(expected_count, int)),
            "expected_count", expected_count, "an integer")
    of_type("expect", expect, dict, "a validate_expect result", optional=True)
    if format == "csv":
        return {"gpus": parse_query_gpu_csv(text)}
    gpus = parse_nvidia_smi_q(text)
    return {"gpus": gpus, "checks": gpu_checks(gpus, expect, node, expected_count)}


class FilterModule:
    def filters(self):
        return {"nvidia_smi_parse": nvidia_smi_parse}
