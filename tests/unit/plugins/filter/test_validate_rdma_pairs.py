# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The validate_rdma_pairs filter: documented, its two steps as validate.yml calls them (step one whom to probe,
step two the rounds), and every refusal under the filter's name, validate_rdma_peer named."""
from __future__ import annotations

import pytest

from ansible_collections.gpufleet.cluster.plugins.filter import validate_rdma_pairs as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.validate_rdma_pairs import validate_rdma_pairs
from filter_docs import assert_documented
from filter_refusals import refused

INVENTORY = ["gpu01", "gpu02", "gpu09"]
PORTS = [{"device": "mlx5_0", "port": 1, "state": "ACTIVE"}, {"device": "mlx5_1", "port": 1, "state": "DOWN"}]


def test_registered_and_documented():
    doc = assert_documented(plugin, "validate_rdma_pairs")
    assert doc["positional"] == "_input"
    assert set(doc["options"]) == {"_input", "run", "inventory", "peer", "tests", "probed_info", "probed_which"}


def test_the_two_steps_of_a_limited_run():
    step = validate_rdma_pairs({"gpu09": ["mlx5_0"]}, run=["gpu09"], inventory=INVENTORY)
    assert step["probe"] == ["gpu01", "gpu02"] and step["rounds"] == []
    final = validate_rdma_pairs(
        {"gpu09": ["mlx5_0"]}, run=["gpu09"], inventory=INVENTORY, peer="", tests=["ib_write_bw"],
        probed_info=[{"item": "gpu01", "unreachable": True, "msg": "timed out"}, {"item": "gpu02", "ports": PORTS}],
        probed_which=[{"item": "gpu01", "unreachable": True, "msg": "timed out"},
                      {"item": "gpu02", "rc": 0, "stdout_lines": ["/usr/bin/ib_write_bw"]}])
    assert final["rounds"] == [[["gpu09", "gpu02"]]] and final["peer_devices"] == ["mlx5_0"]
    # peer None (an unset -e) is no peer; tests default to ib_write_bw.
    assert validate_rdma_pairs({}, run=["gpu09"], inventory=INVENTORY, peer=None)["rounds"] == []


@pytest.mark.parametrize("args, kwargs, match", [
    (["x"], {"run": [], "inventory": []}, r"^gpufleet\.cluster\.validate_rdma_pairs: input must be a dict"),
    ({}, {"run": "gpu09", "inventory": []}, r"^gpufleet\.cluster\.validate_rdma_pairs: run must be the hosts"),
    ({}, {"run": [], "inventory": None}, r"^gpufleet\.cluster\.validate_rdma_pairs: inventory must be"),
    ({}, {"run": [], "inventory": [], "peer": 3}, r"validate_rdma_pairs: peer must be validate_rdma_peer"),
    ({}, {"run": [], "inventory": [], "tests": "ib_write_bw"}, r"validate_rdma_pairs: tests must be"),
    ({}, {"run": [], "inventory": [], "probed_info": {}}, r"validate_rdma_pairs: probed_info must be"),
    ({}, {"run": [], "inventory": [], "probed_which": "x"}, r"validate_rdma_pairs: probed_which must be"),
    ({}, {"run": [], "inventory": INVENTORY, "peer": "gpu07"},
     r"^gpufleet\.cluster\.validate_rdma_pairs: validate_rdma_peer 'gpu07' is not one of the inventory's RDMA nodes"),
    ({"gpu09": ["mlx5_0"]}, {"run": ["gpu09"], "inventory": INVENTORY, "probed_info": [{"item": "gpu01", "ports": 5}],
                             "probed_which": [{"item": "gpu01", "rc": 0, "stdout_lines": ["/usr/bin/ib_write_bw"]}]},
     r"^gpufleet\.cluster\.validate_rdma_pairs: the run's RDMA nodes could not be read \(TypeError"),
])
def test_refusals_name_the_filter(args, kwargs, match):
    refused(match, validate_rdma_pairs, args if isinstance(args, (dict, list)) else args, **kwargs)
