# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""cluster/addresses.py: the addresses, the /etc/hosts block and the hosts the common preflight refuses, equal to
what the per-host templates they replace rendered (cluster_reference, by Ansible's templar)."""
from __future__ import annotations

from hypothesis import example, given, settings, strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.cluster.addresses import (
    address, addresses, hosts_part)
from cluster_reference import HOSTS_BLOCK, hosts_checks, render

NAMES = st.sampled_from(["gpu01", "gpu02", "GPU03", "head", "login-1", "bad_name", "x" * 64, "a.b"])
ADDRESSES = st.sampled_from(["10.0.0.1", "fd00::1", "10.0.0.2\n10.9.9.9 evil", "", "node.example", "300.1.1.1"])
HOST = st.fixed_dictionaries({}, optional={"gpufleet_ip": ADDRESSES, "ansible_host": ADDRESSES})
INVENTORY = st.dictionaries(NAMES, HOST, max_size=6)


def test_address_and_addresses():
    hosts = {"a": {"gpufleet_ip": "10.0.0.1", "ansible_host": "192.0.2.1"}, "b": {"ansible_host": "10.0.0.2"},
             "c": {}}
    assert [address(hosts[name]) for name in "abc"] == ["10.0.0.1", "10.0.0.2", ""]
    assert addresses(hosts) == {"a": "10.0.0.1", "b": "10.0.0.2"}


def test_hosts_part_example():
    hosts = {"gpu02": {"gpufleet_ip": "10.0.0.2"}, "Head": {"ansible_host": "10.0.0.1"},
             "bad_name": {"gpufleet_ip": "10.0.0.2\n10.9.9.9 evil"}, "gpu01": {"ansible_host": "node1"}}
    part = hosts_part(hosts, ["gpu02", "Head", "bad_name", "gpu01"], "cluster.example")
    assert part["block"] == ("10.0.0.2\n10.9.9.9 evil bad_name.cluster.example bad_name\n"
                             "node1           gpu01.cluster.example gpu01\n"
                             "10.0.0.2        gpu02.cluster.example gpu02\n"
                             "10.0.0.1        Head.cluster.example Head\n")
    assert [entry["name"] for entry in part["sorted"]] == ["bad_name", "gpu01", "gpu02", "Head"]
    assert part["missing"] == ["gpu01"]
    assert part["bad_addresses"] == [{"host": "bad_name", "address": "10.0.0.2\n10.9.9.9 evil"},
                                     {"host": "gpu01", "address": "node1"}]
    assert part["bad_names"] == ["bad_name"]
    assert part["group"] == ["gpu02", "Head", "bad_name", "gpu01"]


def test_no_group():
    part = hosts_part({"a": {}}, None, "")
    assert part == {"group": None, "sorted": [], "block": "", "missing": [], "bad_addresses": [], "bad_names": []}


@settings(max_examples=60)
@given(INVENTORY, st.sampled_from(["", "cluster.example", "bad domain"]), st.randoms(use_true_random=False))
@example({"b": {"ansible_host": "10.0.0.2"}, "a": {"gpufleet_ip": "10.0.0.1"}}, "", None)
def test_the_part_is_what_the_templates_rendered(hosts, domain, rand):
    group = list(hosts)
    if rand is not None:
        rand.shuffle(group)
    variables = {"groups": {"cluster": group}, "common_hosts_group": "cluster", "common_hosts_domain": domain,
                 "hostvars": hosts}
    part = hosts_part(hosts, group, domain)
    found = hosts_checks(variables)
    assert {key: part[key] for key in found} == found
    # The block as hosts.yml rendered it, for the hosts that have an address (the preflight refuses the others).
    # (An empty group rendered None there, "" here.)
    if hosts and all("gpufleet_ip" in host or "ansible_host" in host for host in hosts.values()):
        assert part["block"] == render(HOSTS_BLOCK, variables)
