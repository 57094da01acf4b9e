# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The rdma_stack_port_check filter: the expected ports against those found, errors under the filter's name,
wrong types."""
from __future__ import annotations

import copy

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import rdma_stack_port_check as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.rdma_stack_port_check import rdma_stack_port_check
from filter_docs import assert_documented
from wrong_types import assert_only_refusals


def test_registered_and_documented():
    assert_documented(plugin, "rdma_stack_port_check")


def test_port_check_filter():
    ports = [{"device": "mlx5_0", "port": 1, "state": "ACTIVE", "rate_gbps": 200, "link_layer": "InfiniBand"}]
    assert rdma_stack_port_check(ports, [{"device": "mlx5_0", "rate_gbps": 200}])["ok"]
    with pytest.raises(AnsibleFilterError, match="^gpufleet.cluster.rdma_stack_port_check: rdma_expect_ports"):
        rdma_stack_port_check(ports, "mlx5_0")
    with pytest.raises(AnsibleFilterError, match="expect_devices must be true or false, got 'yes' of type str$"):
        rdma_stack_port_check(ports, [], "yes")


# ------------------------------------------------------------------ wrong types: refused by a check, nothing else
VALID = [[{"device": "mlx5_0", "port": 1, "state": "ACTIVE", "rate_gbps": 400,
           "link_layer": "InfiniBand"}]]
VALID_KWARGS = {"expected": [{"device": "mlx5_0", "port": 1, "state": "ACTIVE", "rate_gbps": 400,
                              "link_layer": "InfiniBand"}], "expect_devices": True}


def test_valid_call_works():
    assert rdma_stack_port_check(*copy.deepcopy(VALID), **copy.deepcopy(VALID_KWARGS)) is not None


def test_wrong_types_and_missing_keys_are_refused():
    assert_only_refusals('rdma_stack_port_check', rdma_stack_port_check, VALID, VALID_KWARGS)
