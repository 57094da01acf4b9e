# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The rdma_stack_ipoib filter: IPoIB interfaces as networkd files, errors under the filter's name, names and
keys refused (issue 13), the inventories' values, wrong types."""
from __future__ import annotations

import copy
import ipaddress

import jinja2.nativetypes
import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import rdma_stack_ipoib as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.rdma_stack_ipoib import rdma_stack_ipoib
from filter_docs import assert_documented
from filter_refusals import refused_with
from group_vars import SOURCES, variables
from reference_inventory import groups_of, load
from wrong_types import assert_only_refusals


def test_registered_and_documented():
    assert_documented(plugin, "rdma_stack_ipoib")


def test_ipoib_filter():
    out = rdma_stack_ipoib([{"name": "ib0", "address": "10.10.0.11/16"}])
    assert [f["name"] for f in out["files"]] == ["60-gpufleet-rdma-ib0.network"]
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.rdma_stack_ipoib: rdma_ipoib_interfaces\[0\].mtu"):
        rdma_stack_ipoib([{"name": "ib0", "address": "10.10.0.11/16", "mtu": 9000}])
    with pytest.raises(AnsibleFilterError, match="prefix"):
        rdma_stack_ipoib([], "a/b")


# ---------------------------------------------------------------- issue 13: refused naming field, value and rule
@pytest.mark.parametrize("interface, parts", [
    ({"name": "ib0\n", "address": "10.10.0.11/16"}, ("rdma_interfaces[0].name", "'ib0\\n'")),
    ({"name": "ib0", "address": "10.10.0.11/16", "pkey": "0x8001\n"}, ("pkey '0x8001\\n'", "control characters")),
    ({"name": "ib0", "address": "10.10.0.11/16", "pkey": 1.5}, ("pkey 1.5 must be a partition key",)),
])
def test_ipoib_values_refused(interface, parts):
    parts = tuple(p.replace("rdma_interfaces", "rdma_ipoib_interfaces") for p in parts)
    refused_with(lambda: rdma_stack_ipoib([interface]), "gpufleet.cluster.rdma_stack_ipoib", *parts)


def test_ipoib_prefix_must_be_a_plain_name():
    refused_with(lambda: rdma_stack_ipoib([{"name": "ib0", "address": "10.10.0.11/16"}], prefix="60-x\n"),
                 "prefix: '60-x\\n' is not allowed; expected a plain file name")


# ---------------------------------------------------------------- the reference, lab and molecule/fabric values
@pytest.mark.parametrize("source", sorted(SOURCES))
def test_inventory_values_render(source):
    assert rdma_stack_ipoib(variables(source).get("rdma_ipoib_interfaces") or []) is not None


def test_reference_gpu_nodes_get_an_ipv4_address_on_ib0_in_the_lustre_fabric():
    # Issue 28: h100-64 runs LNet o2ib0 on ib0 but gave ib0 no address, so the Lustre mount failed. Each GPU node's
    # rdma_ipoib_interfaces (group_vars/gpu_nodes.yml, from its gpufleet_ipoib_ip in hosts.yml) must give ib0 an
    # IPv4 address of its own, in the subnet of the MGS NIDs the mounts name.
    tree = load("hosts.yml")
    hosts = tree["all"]["children"]["cluster"]["children"]["gpu_nodes"]["hosts"]
    assert sorted(hosts) == groups_of(tree)["gpu_nodes"] and len(hosts) == 8
    template = load("group_vars", "gpu_nodes.yml")["rdma_ipoib_interfaces"]
    lnet = load("group_vars", "all", "lustre_client.yml")
    assert lnet["lustre_client_lnet_networks"] == [{"net": "o2ib0", "interfaces": ["ib0"]}]
    mgs = [ipaddress.ip_address(nid.split("@")[0]) for mount in lnet["lustre_client_mounts"] for nid in mount["mgs_nids"]]
    env = jinja2.nativetypes.NativeEnvironment()
    seen = set()
    for name, hostvars in hosts.items():
        rendered = [{k: env.from_string(v).render(hostvars) if isinstance(v, str) else v for k, v in item.items()}
                    for item in template]
        plan = rdma_stack_ipoib(rendered)
        (ib0,) = [item for item in plan["interfaces"] if item["link"] == "ib0"]
        address = ipaddress.ip_interface(ib0["address"])
        assert address.version == 4, name
        assert all(nid in address.network for nid in mgs), (name, address)
        assert address.ip not in seen and address.ip not in mgs, (name, address)
        seen.add(address.ip)


# ------------------------------------------------------------------ wrong types: refused by a check, nothing else
VALID = [[{"name": "ib0", "address": "10.10.0.11/16", "mtu": 2044,
           "mode": "datagram", "pkey": "0x8001"}]]
VALID_KWARGS = {"prefix": "60-gpufleet-rdma"}


def test_valid_call_works():
    assert rdma_stack_ipoib(*copy.deepcopy(VALID), **copy.deepcopy(VALID_KWARGS)) is not None


def test_wrong_types_and_missing_keys_are_refused():
    assert_only_refusals('rdma_stack_ipoib', rdma_stack_ipoib, VALID, VALID_KWARGS)
