# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: rdma_stack_port_check
version_added: 0.1.0
short_description: The node's RDMA ports (gpufleet.cluster.rdma_info) against the ports the site expects
description:
  - Each expected C({device, port, state, rate_gbps, link_layer}) (port 1 and state ACTIVE by default; rate and link
    layer checked when given) is looked up in rdma_info's C(ports); every port that is missing or differs is named.
  - With no RDMA device at all, C(expect_devices=true) is itself a mismatch; with C(expect_devices=false) and no
    expected ports the result says "no RDMA devices found; rdma_expect_ports is empty".
positional: _input, expected, expect_devices
options:
  _input:
    description: rdma_info's C(ports).
    type: list
    elements: dict
    required: true
  expected:
    description: rdma_expect_ports.
    type: list
    elements: dict
    required: true
  expect_devices:
    description: Whether a node without RDMA devices is a failure.
    type: bool
    default: true
"""

EXAMPLES = r"""
- name: Check the ports
  ansible.builtin.assert:
    that: check.ok
    fail_msg: "{{ check.msg }}"
  vars:
    check: "{{ hca.ports | gpufleet.cluster.rdma_stack_port_check([{'device': 'mlx5_0', 'rate_gbps': 400}]) }}"
"""

RETURN = r"""
_value:
  description: C(ok), C(mismatches) (one sentence each), C(checked), C(found) (ports on the node) and C(msg).
  type: dict
"""

from collections.abc import Mapping

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, flag, require

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("rdma_stack_port_check")
def rdma_stack_port_check(ports, expected, expect_devices=True):
    """Expected ports against the ones found."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.rdma.stack import port_check
    require(isinstance(ports, (list, tuple)) and all(isinstance(p, Mapping) for p in ports), "input", ports,
            "rdma_info's ports (a list of dicts)")
    flag("expect_devices", expect_devices)
    return port_check([dict(p) for p in ports], expected, expect_devices)


class FilterModule:
    def filters(self):
        return {"rdma_stack_port_check": rdma_stack_port_check}
