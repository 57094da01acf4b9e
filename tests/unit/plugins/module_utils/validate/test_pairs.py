# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""validate/pairs.py: who runs perftest against whom, and the peer outside a --limit run (issue 28: validating one
node failed rdma_bw "not paired"). The candidates' ports are real: rdma_info's ports of recorded ibstat outputs of
two H100 nodes (tests/fixtures/reference/outputs/infiniband: twelve ports all ACTIVE, and one with mlx5_2, mlx5_7
and mlx5_8 DOWN), as the role's probe registers them."""
from __future__ import annotations

import os

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.rdma.parse import merge, parse_ibstat
from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.pairs import (
    CANDIDATES,
    NOT_PAIRED,
    PairsError,
    rdma_pairs,
)
from reference import outputs

TESTS = ["ib_write_bw", "ib_write_lat"]
WHICH = ["/usr/bin/ib_write_bw", "/usr/bin/ib_write_lat"]
RAILS = ["mlx5_%d" % n for n in range(12)]
INVENTORY = ["gpu01", "gpu02", "gpu03", "gpu04", "gpu05", "gpu09"]


def _ports(name):
    """rdma_info's `ports` (flat, each with its device) of a recorded ibstat output."""
    with open(os.path.join(outputs("infiniband"), name), encoding="utf-8") as handle:
        devices = merge([parse_ibstat(handle.read())])
    return [dict(port, device=device["name"]) for device in devices for port in device["ports"]]


ALL_ACTIVE = _ports("ibstat.h100-cx7-roce-all-active.gpud.txt")
SOME_DOWN = _ports("ibstat.h100-cx7-ib-ndr-some-down.gpud.txt")
UNREACHABLE = {"unreachable": True, "changed": False,
               "msg": "Failed to connect to the host via ssh: ssh: connect to host 10.0.1.12 port 22: No route to host"}


def info(node, ports=None, **result):
    """One item of the rdma_info probe loop's results."""
    return dict({"item": node, "changed": False, "failed": False, "ports": ports or []}, **result)


def which(node, found=None, **result):
    """One item of the `which` probe loop's results."""
    lines = WHICH if found is None else found
    return dict({"item": node, "rc": 0 if len(lines) == len(TESTS) else 1, "stdout_lines": lines, "failed": False},
                **result)


def plan(ready, run, inventory=None, peer="", **probed):
    return rdma_pairs(ready, run, INVENTORY if inventory is None else inventory, peer, TESTS, **probed)


def test_recorded_ports_as_expected():
    active = sorted({p["device"] for p in SOME_DOWN if p["state"] == "ACTIVE"})
    assert len({p["device"] for p in ALL_ACTIVE if p["state"] == "ACTIVE"}) == 12
    assert sorted(set(RAILS) - set(active)) == ["mlx5_2", "mlx5_7", "mlx5_8"]


def test_one_node_asks_to_probe_the_first_rdma_nodes_outside_the_run():
    step = plan({"gpu09": RAILS}, ["gpu09"])
    assert step["probe"] == ["gpu01", "gpu02", "gpu03"] and len(step["probe"]) == CANDIDATES
    assert step["rounds"] == [] and step["unpaired"] == {}


def test_one_node_gets_the_healthy_peer_sharing_the_most_rails():
    # gpu01 unreachable, gpu02 has three rails DOWN, gpu03 has all twelve ACTIVE: gpu03 is the peer.
    result = plan({"gpu09": RAILS}, ["gpu09"],
                  probed_info=[info("gpu01", **UNREACHABLE), info("gpu02", SOME_DOWN), info("gpu03", ALL_ACTIVE)],
                  probed_which=[which("gpu01", **UNREACHABLE), which("gpu02"), which("gpu03")])
    assert result["rounds"] == [[["gpu09", "gpu03"]]]
    assert (result["peer"], result["peer_outside"], result["peer_source"]) == ("gpu03", True, "inventory")
    assert result["peer_devices"] == sorted(RAILS) and result["untested_rails"] == {} and result["unpaired"] == {}
    assert result["summary"] == ("against peer gpu03 (the first healthy RDMA node of the inventory, outside this run), "
                                 "one node at a time")


def test_equal_peers_inventory_order_wins():
    result = plan({"gpu09": ["mlx5_0", "mlx5_1"]}, ["gpu09"],
                  probed_info=[info("gpu01", SOME_DOWN), info("gpu02", ALL_ACTIVE), info("gpu03", ALL_ACTIVE)],
                  probed_which=[which("gpu01"), which("gpu02"), which("gpu03")])
    assert result["peer"] == "gpu01"


def test_rails_the_peer_lacks_are_named_not_skipped():
    result = plan({"gpu09": RAILS[:8]}, ["gpu09"],
                  probed_info=[info("gpu01", **UNREACHABLE), info("gpu02", SOME_DOWN), info("gpu03", [])],
                  probed_which=[which("gpu01", **UNREACHABLE), which("gpu02"), which("gpu03")])
    assert result["peer"] == "gpu02" and result["untested_rails"] == {"gpu09": ["mlx5_2", "mlx5_7"]}


def test_no_rdma_node_outside_the_run_is_not_run_not_a_failure():
    for inventory in (["gpu09"], ["gpu08", "gpu09"]):
        result = plan({"gpu09": RAILS}, ["gpu08", "gpu09"], inventory)
        assert result["probe"] == [] and result["rounds"] == []
        assert result["unpaired"]["gpu09"]["status"] == "not_applicable"
        assert result["unpaired"]["gpu09"]["detail"].startswith(NOT_PAIRED + ": no other RDMA node in this run")


def test_no_healthy_candidate_is_an_error_naming_each_reason():
    result = plan({"gpu09": RAILS}, ["gpu09"],
                  probed_info=[info("gpu01", **UNREACHABLE), info("gpu02", ALL_ACTIVE),
                               info("gpu03", [], failed=True, msg="no RDMA device found")],
                  probed_which=[which("gpu01", **UNREACHABLE), which("gpu02", ["/usr/bin/ib_write_bw"]), which("gpu03")])
    entry = result["unpaired"]["gpu09"]
    assert result["rounds"] == [] and entry["status"] == "error"
    for part in ("no healthy peer outside this run among gpu01, gpu02, gpu03",
                 "gpu01: unreachable: Failed to connect", "gpu02: perftest missing: ib_write_lat",
                 "gpu03: rdma_info failed: no RDMA device found", "set validate_rdma_peer"):
        assert part in entry["detail"], (part, entry["detail"])
    no_port = plan({"gpu09": RAILS}, ["gpu09"], inventory=["gpu01", "gpu09"], probed_info=[info("gpu01", [])],
                   probed_which=[which("gpu01")])
    assert "gpu01: no ACTIVE RDMA port" in no_port["unpaired"]["gpu09"]["detail"]
    other_rails = plan({"gpu09": ["mlx5_20"]}, ["gpu09"], inventory=["gpu01", "gpu09"],
                       probed_info=[info("gpu01", ALL_ACTIVE)], probed_which=[which("gpu01")])
    assert "gpu01: no ACTIVE port on a rail of gpu09 (mlx5_20)" in other_rails["unpaired"]["gpu09"]["detail"]


def test_a_peer_not_probed_is_no_peer():
    result = plan({"gpu09": RAILS}, ["gpu09"], probed_info=[], probed_which=[])
    assert "gpu01: not probed (rdma_info)" in result["unpaired"]["gpu09"]["detail"]


def test_validate_rdma_peer_outside_the_run():
    ready = {"gpu09": RAILS, "gpu05": RAILS}
    assert plan(ready, ["gpu05", "gpu09"], peer="gpu02")["probe"] == ["gpu02"]
    result = plan(ready, ["gpu05", "gpu09"], peer="gpu02", probed_info=[info("gpu02", SOME_DOWN)],
                  probed_which=[which("gpu02")])
    # Every node against the peer, one at a time (the peer's perftest ports are one set).
    assert result["rounds"] == [[["gpu05", "gpu02"]], [["gpu09", "gpu02"]]]
    assert (result["peer_outside"], result["peer_source"]) == (True, "validate_rdma_peer")
    assert result["untested_rails"] == {"gpu05": ["mlx5_2", "mlx5_7", "mlx5_8"], "gpu09": ["mlx5_2", "mlx5_7", "mlx5_8"]}
    assert "(validate_rdma_peer, outside this run)" in result["summary"]
    down = plan(ready, ["gpu05", "gpu09"], peer="gpu02", probed_info=[info("gpu02", **UNREACHABLE)],
                probed_which=[which("gpu02", **UNREACHABLE)])
    assert down["rounds"] == [] and set(down["unpaired"]) == {"gpu05", "gpu09"}
    assert down["unpaired"]["gpu05"]["status"] == "error"
    assert down["unpaired"]["gpu05"]["detail"].startswith(
        "not paired: validate_rdma_peer gpu02 (outside this run) cannot serve: unreachable: Failed to connect")


def test_validate_rdma_peer_in_the_run():
    ready = {"gpu01": RAILS, "gpu02": RAILS, "gpu03": RAILS}
    result = plan(ready, ["gpu01", "gpu02", "gpu03"], peer="gpu02")
    assert result["probe"] == [] and result["rounds"] == [[["gpu01", "gpu02"]], [["gpu03", "gpu02"]]]
    assert (result["peer"], result["peer_outside"]) == ("gpu02", False)
    # The peer is in the run but cannot take part: every node says so, none is run against it.
    lame = plan({"gpu01": RAILS, "gpu03": RAILS}, ["gpu01", "gpu02", "gpu03"], peer="gpu02")
    assert lame["rounds"] == [] and lame["unpaired"]["gpu01"] == {
        "status": "error", "detail": "not paired: validate_rdma_peer gpu02 cannot take part (no ACTIVE RDMA port or "
                                     "perftest missing on it)"}


def test_whole_run_pairs_among_itself_and_probes_nobody():
    ready = {name: RAILS for name in ("gpu03", "gpu01", "gpu02", "gpu04", "gpu05")}
    result = plan(ready, INVENTORY)
    assert result["probe"] == []
    assert result["rounds"] == [[["gpu01", "gpu02"], ["gpu03", "gpu04"]], [["gpu05", "gpu01"]]]
    assert result["peer"] == "" and result["unpaired"] == {}
    # A slice of two: its own pair, no peer outside.
    assert plan({"gpu04": RAILS, "gpu05": RAILS}, ["gpu04", "gpu05"])["rounds"] == [[["gpu04", "gpu05"]]]
    # In-run pairs name the rails one end lacks.
    assert plan({"gpu01": RAILS, "gpu02": RAILS[:10]}, ["gpu01", "gpu02"])["untested_rails"] == {
        "gpu01": ["mlx5_10", "mlx5_11"]}
    assert plan({}, ["gpu01"])["rounds"] == [] and plan({}, ["gpu01"])["probe"] == []


@pytest.mark.parametrize("peer, match", [
    ("gpu42", r"^validate_rdma_peer 'gpu42' is not one of the inventory's RDMA nodes \(GPU nodes with "
              r"gpufleet_hardware.rdma_hcas > 0: gpu01, gpu02, gpu03, gpu04, gpu05, gpu09\); leave it empty"),
    ("gpu01\n", r"^validate_rdma_peer must be a node name \(letters, digits, '\.', '_' and '-'\), got 'gpu01\\n'"),
    ("gpu01 -x", r"^validate_rdma_peer must be a node name"),
    (7, r"^validate_rdma_peer must be a node name .* got 7 of type int"),
])
def test_validate_rdma_peer_refused_naming_it(peer, match):
    with pytest.raises(PairsError, match=match):
        plan({}, ["gpu01"], peer=peer)


def test_inventory_list_cut_in_the_message():
    many = ["n%02d" % n for n in range(20)]
    with pytest.raises(PairsError, match=r"n00, n01, .*n09, \.\.\.\); leave"):
        rdma_pairs({}, ["n00"], many, "gpu42")


@pytest.mark.parametrize("kwargs, match", [
    ({"ready": ["gpu01"]}, r"^ready must be a dict of node -> its ACTIVE RDMA devices"),
    ({"ready": {"gpu01": "mlx5_0"}}, r"^ready\[gpu01\] must be a list"),
    ({"ready": {"gpu 01": []}}, r"^ready key must be a node name"),
    ({"run": "gpu01"}, r"^run must be a list"),
    ({"inventory": ["gpu01", None]}, r"^inventory\[1\] must be a node name"),
    ({"tests": ["ib_write_bw;rm"]}, r"^tests\[0\]: 'ib_write_bw;rm' is not allowed; expected a word"),
    ({"probed_info": {"gpu01": {}}}, r"^probed_info must be a list"),
    ({"probed_info": [{"ports": []}], "probed_which": []}, r"^probed_info\[0\]\.item must be a node name"),
    ({"probed_info": [], "probed_which": ["x"]}, r"^probed_which\[0\] must be a registered loop result"),
])
def test_bad_inputs_refused_naming_them(kwargs, match):
    args = dict({"ready": {"gpu09": RAILS}, "run": ["gpu09"], "inventory": INVENTORY, "peer": "", "tests": TESTS},
                **kwargs)
    with pytest.raises(PairsError, match=match):
        rdma_pairs(**args)
