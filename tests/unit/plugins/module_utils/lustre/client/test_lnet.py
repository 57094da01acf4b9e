# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""lustre_client_lnet: networks, ko2iblnd rules, lnet.conf data, modprobe lines, interface checks."""
from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.client.checks import LustreClientError
from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.client.lnet import (
    canonical_net,
    check_lnet_options,
    check_networks,
    check_observed,
    check_o2ib_tunables,
    interface_problems,
    lnet_conf,
    lnet_plan,
    modprobe_lines,
)

HDR = {"peer_credits": 32, "peer_credits_hiw": 16, "concurrent_sends": 64, "credits": 256}


def test_canonical_net_adds_the_number():
    assert [canonical_net(n) for n in ("o2ib", "o2ib0", "o2ib1", "tcp", "tcp12")] == ["o2ib0", "o2ib0", "o2ib1", "tcp0", "tcp12"]
    with pytest.raises(LustreClientError, match="'gni0' is not allowed; expected an LNet network o2ib<N> or tcp<N>"):
        canonical_net("gni0")


def test_networks_checked_and_normalised():
    nets = check_networks([{"net": "o2ib", "interfaces": ["ib0", "ib1"]}, {"net": "tcp", "interfaces": ["eth0"]}])
    assert nets == [{"net": "o2ib0", "lnd": "o2ib", "interfaces": ["ib0", "ib1"]},
                    {"net": "tcp0", "lnd": "tcp", "interfaces": ["eth0"]}]


@pytest.mark.parametrize("networks, message", [
    ([], r"is empty"),
    ([{"net": "o2ib", "interfaces": ["ib0"]}, {"net": "o2ib0", "interfaces": ["ib1"]}], r"o2ib0 is already lustre_client_lnet_networks\[0\]"),
    ([{"net": "o2ib0", "interfaces": []}], r"\(o2ib0\) has no interfaces"),
    ([{"net": "o2ib0", "interfaces": ["ib0"]}, {"net": "tcp0", "interfaces": ["ib0"]}], r"interface ib0 is already in o2ib0"),
    ([{"net": "o2ib0", "interfaces": ["a-very-long-interface"]}], r"is not allowed; expected a Linux interface name"),
    ([{"net": "o2ib0", "interfaces": ["ib0"], "cpt": 1}], r"has unknown key\(s\) 'cpt'; allowed: interfaces, net$"),
    ("o2ib0(ib0)", r"must be a list"),
])
def test_bad_networks_refused(networks, message):
    with pytest.raises(LustreClientError, match=message):
        check_networks(networks)


def test_o2ib_tunables_of_the_reference_design_pass():
    assert check_o2ib_tunables(HDR) == HDR


@pytest.mark.parametrize("tunables, message", [
    # kiblnd_tunables_setup clamps hiw into [peer_credits/2, peer_credits-1]: 32 -> [16, 31]; 8 becomes 16.
    ({"peer_credits": 32, "peer_credits_hiw": 8}, r"peer_credits_hiw 8 is outside 16-31 .* would make it 16"),
    ({"peer_credits": 32, "peer_credits_hiw": 32}, r"peer_credits_hiw 32 is outside 16-31 .* would make it 31"),
    # concurrent_sends in [peer_credits/2, 2*peer_credits]: 32 -> [16, 64]; 128 becomes 64.
    ({"peer_credits": 32, "concurrent_sends": 128}, r"concurrent_sends 128 is outside 16-64 .* would make it 64"),
    ({"peer_credits": 256}, r"peer_credits is 256; ko2iblnd takes 1-255"),
    ({"peer_credits": 128, "credits": 64}, r"peer_credits 128 is above credits 64; the kernel would lower it to 64"),
    ({"map_on_demand": 257}, r"map_on_demand 257 is above 256"),
    # fmr_pool_size >= ntx/4: ntx 2048 needs 512.
    ({"ntx": 2048, "fmr_pool_size": 511}, r"fmr_pool_size 511 is below ntx/4 \(ntx 2048\).* at least 512"),
    ({"concurrent_sends": 64}, r"sets concurrent_sends but not peer_credits"),
    ({"peer_credits": True}, r"must be a whole number, got True of type bool$"),
    ({"peercredits_hiw": 16}, r"not a ko2iblnd tunable"),
    ({"conns_per_peer": 0}, r"conns_per_peer is 0; use 1-127"),
])
def test_o2ib_tunables_the_kernel_would_change_are_refused(tunables, message):
    with pytest.raises(LustreClientError, match=message):
        check_o2ib_tunables(tunables)


@settings(max_examples=200, deadline=None)
@given(credits=st.integers(1, 255), hiw=st.integers(0, 300), sends=st.integers(0, 600))
def test_accepted_tunables_are_ones_the_kernel_keeps(credits, hiw, sends):
    # What we accept is exactly what kiblnd_tunables_setup leaves unchanged.
    kernel_keeps = credits // 2 <= hiw <= credits - 1 and credits // 2 <= sends <= 2 * credits
    try:
        check_o2ib_tunables({"peer_credits": credits, "peer_credits_hiw": hiw, "concurrent_sends": sends})
        accepted = True
    except LustreClientError:
        accepted = False
    assert accepted == kernel_keeps


def test_lnet_options_refuse_networks():
    assert check_lnet_options({"lnet_retry_count": 2, "lnet_health_sensitivity": True}) == {
        "lnet_retry_count": "2", "lnet_health_sensitivity": "1"}
    for key in ("networks", "ip2nets", "routes"):
        with pytest.raises(LustreClientError, match="would describe LNet's networks a second time"):
            check_lnet_options({key: "o2ib0(ib0)"})
    with pytest.raises(LustreClientError, match="modprobe splits on blanks"):
        check_lnet_options({"lnet_peer_discovery_disabled": "1 2"})


def test_lnet_conf_matches_lustres_example_shape():
    # lustre/conf/lnet.conf (lustre-release): net type, local NI(s), interfaces {0: ib0}, tunables, lnd tunables.
    nets = check_networks([{"net": "o2ib1", "interfaces": ["ib0", "ib1"]}, {"net": "tcp0", "interfaces": ["eth0"]}])
    data = lnet_conf(nets, {"credits": 256, "peer_credits": 32, "peer_credits_hiw": 16, "concurrent_sends": 64})
    text = yaml.safe_dump(data, sort_keys=False)
    assert yaml.safe_load(text) == {"net": [
        {"net type": "o2ib1", "local NI(s)": [
            {"interfaces": {0: "ib0"}, "tunables": {"peer_credits": 32, "credits": 256}, "lnd tunables": {"concurrent_sends": 64}},
            {"interfaces": {0: "ib1"}, "tunables": {"peer_credits": 32, "credits": 256}, "lnd tunables": {"concurrent_sends": 64}}]},
        {"net type": "tcp0", "local NI(s)": [{"interfaces": {0: "eth0"}}]}]}
    # peer_credits_hiw is not in lnet.conf: lnetctl import does not read it (yaml_extract_o2ib_tun).
    assert "hiw" not in text
    # The tunables come out in one order whatever order they were given in.
    assert list(data["net"][0]["local NI(s)"][0]["tunables"]) == ["peer_credits", "credits"]


def test_modprobe_lines_sorted_and_only_with_o2ib():
    assert modprobe_lines(HDR, {"lnet_retry_count": "2"}) == [
        "options ko2iblnd concurrent_sends=64 credits=256 peer_credits=32 peer_credits_hiw=16",
        "options lnet lnet_retry_count=2"]
    tcp_only = lnet_plan([{"net": "tcp0", "interfaces": ["eth0"]}], HDR, {})
    assert tcp_only["modprobe_lines"] == [] and tcp_only["o2ib"] is False


def test_interface_problems():
    nets = check_networks([{"net": "o2ib0", "interfaces": ["ib0", "eth2", "eth3"]}, {"net": "tcp0", "interfaces": ["eth9"]}])
    observed = {"ib0": {"exists": True, "type": 32, "rdma": True},       # IPoIB
                "eth2": {"exists": True, "type": 1, "rdma": True},       # RoCE
                "eth3": {"exists": True, "type": 1, "rdma": False},      # plain Ethernet
                "eth9": {"exists": False}}
    assert interface_problems(nets, observed) == [
        "o2ib0: interface eth3 is Ethernet without an RDMA device, but o2ib needs an IPoIB interface (type 32) or a "
        "RoCE one (Ethernet with an RDMA device); use the IPoIB/RoCE interface, or tcp0 as the fallback",
        "tcp0: interface eth9 does not exist on this node; fix the name or the network configuration"]


def test_interface_problems_o2ib_needs_an_ipv4_address():
    # Issue 28: LNet's o2ib NID is the interface's IPv4 address; ib0 without one passed, and the mount failed.
    nets = check_networks([{"net": "o2ib0", "interfaces": ["ib0", "eth2"]}, {"net": "tcp0", "interfaces": ["eth0"]}])
    ipoib, roce = {"exists": True, "type": 32, "rdma": True}, {"exists": True, "type": 1, "rdma": True}
    observed = check_observed({"ib0": dict(ipoib, addresses=["fe80::1/64"]), "eth2": dict(roce, addresses=[]),
                               "eth0": {"exists": True, "type": 1, "addresses": []}})
    assert interface_problems(nets, observed) == [
        "o2ib0: interface ib0 has no IPv4 address (only fe80::1), and none is given to it in this run; o2ib names "
        "this node by that address (<address>@o2ib0) and cannot start without one, so the mount fails. Give ib0 an "
        "IPv4 address: rdma_ipoib_interfaces [{name: ib0, address: <IPv4>/<prefix>}] in the node's inventory (the "
        "rdma role writes it; docs/lustre-client.md shows a per-node scheme), or the site's own network "
        "configuration",
        "o2ib0: interface eth2 has no IPv4 address, and none is given to it in this run; o2ib names this node by "
        "that address (<address>@o2ib0) and cannot start without one, so the mount fails. Give eth2 an IPv4 "
        "address: rdma_ipoib_interfaces [{name: eth2, address: <IPv4>/<prefix>}] in the node's inventory (the rdma "
        "role writes it; docs/lustre-client.md shows a per-node scheme), or the site's own network configuration"]
    # An IPv4 address now (10.10.1.11) or one the rdma role gives in this run (with its prefix) is enough; without
    # addresses (not read) nothing is checked; tcp is not checked.
    given = check_observed({"ib0": dict(ipoib, addresses=["fe80::1", "10.10.1.11/16"]),
                            "eth2": dict(roce, addresses=["10.20.0.5"]), "eth0": {"exists": True, "type": 1}})
    assert interface_problems(nets, given) == []
    assert interface_problems(nets, check_observed({"ib0": ipoib, "eth2": roce, "eth0": {"exists": True}})) == []
