# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: fio_parse
version_added: 0.1.0
short_description: Parse fio --output-format=json, optionally judge its throughput
description:
  - Per job and per group C(io_bytes), C(bw_bytes) (bytes/s), C(iops) and C(runtime) (ms) for read, write and
    trim. A group's throughput is fio's group figure, sum(io_bytes) x 1000 / max(runtime_ms).
  - Notes fio prints before the JSON are kept in C(notes).
  - With O(expect) (a C(validate_expect) kind lustre or filesystem result) adds C(check) judged on the best
    group's throughput in O(direction), in GB/s (1e9 bytes/s); a job with a non-zero C(error) fails it.
positional: _input
options:
  _input:
    description: fio's stdout, or the JSON already parsed (a dict).
    type: raw
    required: true
  expect:
    description: Expectation from C(validate_expect).
    type: dict
  nodes:
    description: Node(s) the measurement belongs to.
    type: list
    elements: str
  direction:
    description: Which direction the check reads.
    type: str
    choices: [read, write, trim]
    default: read
  check:
    description: Check name in the report; default C(storage_<direction>).
    type: str
"""

EXAMPLES = r"""
- name: Read throughput of the lab's local mount
  ansible.builtin.set_fact:
    fs_result: >-
      {{ fio_run.stdout | gpufleet.cluster.fio_parse(
           expect=('filesystem' | gpufleet.cluster.validate_expect(hardware={}, min_gbs=0.2, path='/var/tmp')),
           nodes=[inventory_hostname]) }}
"""

RETURN = r"""
_value:
  description: C(version), C(notes), C(jobs), C(groups), C(errors), C(summary) (per direction, the best group)
    and, with O(expect), C(check).
  type: dict
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import (
    collection_filter,
    of_type,
    one_of,
    string_list,
)

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("fio_parse", unreadable="the output or expect")
def fio_parse(data, expect=None, nodes=None, direction="read", check=None):
    """Parsed fio JSON (+ check with expect)."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.checks import fio_check
    from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.fio import DIRECTIONS, parse_fio
    of_type("input", data, (str, dict), "fio's JSON output (text or dict)")
    one_of("direction", direction, DIRECTIONS)
    string_list("nodes", nodes, "a list of node names", if_none=None)
    parsed = parse_fio(data)
    if expect is not None:
        parsed["check"] = fio_check(parsed, expect, list(nodes or []), direction, check)
    return parsed


class FilterModule:
    def filters(self):
        return {"fio_parse": fio_parse}
