# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The rdma_stack_* filters: thin faces over module_utils/fabric/rdma/stack.py; errors carry the filter's FQCN."""
from __future__ import annotations

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import (
    rdma_stack_conflicts, rdma_stack_ipoib, rdma_stack_memlock, rdma_stack_plan, rdma_stack_port_check,
)

MODULES = [rdma_stack_conflicts, rdma_stack_ipoib, rdma_stack_memlock, rdma_stack_plan, rdma_stack_port_check]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_documentation_names_the_filter(module):
    name = module.__name__.rsplit(".", 1)[-1]
    doc = yaml.safe_load(module.DOCUMENTATION)
    assert doc["name"] == name and doc["version_added"] == "0.1.0"
    assert doc["positional"].split(",")[0] == "_input" and doc["options"]["_input"]["required"] is True
    assert yaml.safe_load(module.EXAMPLES) and yaml.safe_load(module.RETURN)["_value"]["description"]
    assert list(module.FilterModule().filters()) == [name]


def test_plan_filter():
    plan = rdma_stack_plan.rdma_stack_plan({
        "stack": "doca", "os_label": "debian12", "architecture": "x86_64", "doca_version": "3.2.1",
        "doca_profile": "doca-ofed", "doca_repository_base": "https://mirror.example.org/doca",
        "repository_key": "https://mirror.example.org/doca/GPG-KEY-Mellanox.pub", "opensm": True})
    assert plan["repository"]["uri"] == "https://mirror.example.org/doca/3.2.1/debian12/x86_64/"
    assert plan["packages"] == ["doca-ofed", "opensm"]
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.rdma_stack_plan: rdma_doca_repository_base is empty"):
        rdma_stack_plan.rdma_stack_plan({"stack": "doca", "doca_profile": "doca-ofed"})
    with pytest.raises(AnsibleFilterError, match="input must be a dict"):
        rdma_stack_plan.rdma_stack_plan(["doca"])


def test_conflicts_filter():
    out = rdma_stack_conflicts.rdma_stack_conflicts({"rdma-core": "44.0-2"}, "mlnx_ofed")
    assert out["packages"] == ["rdma-core=44.0-2"]
    with pytest.raises(AnsibleFilterError, match="^gpufleet.cluster.rdma_stack_conflicts: rdma_stack 'rxe'"):
        rdma_stack_conflicts.rdma_stack_conflicts({}, "rxe")
    with pytest.raises(AnsibleFilterError, match="package name to version"):
        rdma_stack_conflicts.rdma_stack_conflicts({"rdma-core": 44}, "inbox")


def test_memlock_filter_takes_a_number_given_as_text():
    out = rdma_stack_memlock.rdma_stack_memlock([], {"DefaultLimitMEMLOCK": "8388608"}, "8192")
    assert out["ok"] and out["minimum_kib"] == 8192
    with pytest.raises(AnsibleFilterError, match="^gpufleet.cluster.rdma_stack_memlock: systemctl show"):
        rdma_stack_memlock.rdma_stack_memlock([], {"DefaultLimitMEMLOCK": "8M"}, 8192)
    with pytest.raises(AnsibleFilterError, match=r"list of \{path, content\}"):
        rdma_stack_memlock.rdma_stack_memlock([{"content": ""}], {}, 8192)


def test_ipoib_filter():
    out = rdma_stack_ipoib.rdma_stack_ipoib([{"name": "ib0", "address": "10.10.0.11/16"}])
    assert [f["name"] for f in out["files"]] == ["60-gpufleet-rdma-ib0.network"]
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.rdma_stack_ipoib: rdma_ipoib_interfaces\[0\].mtu"):
        rdma_stack_ipoib.rdma_stack_ipoib([{"name": "ib0", "address": "10.10.0.11/16", "mtu": 9000}])
    with pytest.raises(AnsibleFilterError, match="prefix"):
        rdma_stack_ipoib.rdma_stack_ipoib([], "a/b")


def test_port_check_filter():
    ports = [{"device": "mlx5_0", "port": 1, "state": "ACTIVE", "rate_gbps": 200, "link_layer": "InfiniBand"}]
    assert rdma_stack_port_check.rdma_stack_port_check(ports, [{"device": "mlx5_0", "rate_gbps": 200}])["ok"]
    with pytest.raises(AnsibleFilterError, match="^gpufleet.cluster.rdma_stack_port_check: rdma_expect_ports"):
        rdma_stack_port_check.rdma_stack_port_check(ports, "mlx5_0")
    with pytest.raises(AnsibleFilterError, match="expect_devices must be true or false, got 'yes' of type str$"):
        rdma_stack_port_check.rdma_stack_port_check(ports, [], "yes")
