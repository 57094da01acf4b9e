# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The rdma_stack_plan filter: packages and repository of the chosen RDMA stack, errors under the filter's name,
trailing newlines refused (issue 13), the inventories' values, wrong types."""
from __future__ import annotations

import copy

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import rdma_stack_plan as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.rdma_stack_plan import rdma_stack_plan
from filter_docs import assert_documented
from filter_refusals import refused_with
from group_vars import SOURCES, variables
from wrong_types import assert_only_refusals


def test_registered_and_documented():
    assert_documented(plugin, "rdma_stack_plan")


def test_plan_filter():
    plan = rdma_stack_plan({
        "stack": "doca", "os_label": "debian12", "architecture": "x86_64", "doca_version": "3.2.1",
        "doca_profile": "doca-ofed", "doca_repository_base": "https://mirror.example.org/doca",
        "repository_key": "https://mirror.example.org/doca/GPG-KEY-Mellanox.pub", "opensm": True})
    assert plan["repository"]["uri"] == "https://mirror.example.org/doca/3.2.1/debian12/x86_64/"
    assert plan["packages"] == ["doca-ofed", "opensm"]
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.rdma_stack_plan: rdma_doca_repository_base is "
                                                 r"empty"):
        rdma_stack_plan({"stack": "doca", "doca_profile": "doca-ofed"})
    with pytest.raises(AnsibleFilterError, match="input must be a dict"):
        rdma_stack_plan(["doca"])


# ---------------------------------------------------------------- issue 13: refused naming field, value and rule
DOCA = {"stack": "doca", "os_label": "ubuntu24.04", "architecture": "x86_64", "doca_version": "3.2.1",
        "doca_profile": "doca-ofed", "doca_repository_base": "https://mirror.example.org/doca",
        "repository_key": "https://mirror.example.org/doca/GPG-KEY-Mellanox.pub"}


@pytest.mark.parametrize("key, value, part", [
    ("doca_repository_base", "https://mirror.example.org/doca\n", "is not an http(s) URL"),
    ("doca_repository_base", "https://mirror.example.org/doca#x", "is not an http(s) URL"),
    ("doca_version", "3.2.1\n", "rdma_doca_version '3.2.1\\n' must be a release"),
    ("os_label", "ubuntu24.04\n", "the repository's OS folder 'ubuntu24.04\\n'"),
    ("doca_profile", "doca-ofed\n", "rdma_doca_profile 'doca-ofed\\n' is not a doca metapackage"),
])
def test_rdma_plan_trailing_newlines_refused(key, value, part):
    refused_with(lambda: rdma_stack_plan(dict(DOCA, **{key: value})), "gpufleet.cluster.rdma_stack_plan", part)


# ---------------------------------------------------------------- the reference, lab and molecule/fabric values
@pytest.mark.parametrize("source", sorted(SOURCES))
def test_inventory_values_render(source):
    v = variables(source)
    if v.get("rdma_stack") != "inbox":
        plan = rdma_stack_plan({"stack": v["rdma_stack"], "os_label": "ubuntu24.04", "architecture": "x86_64",
                                "doca_version": v.get("rdma_doca_version"), "doca_profile": v.get("rdma_doca_profile"),
                                "doca_repository_base": v.get("rdma_doca_repository_base"),
                                "repository_key": v.get("rdma_repository_key")})
        assert plan["repository"]["uri"].startswith("https://")


# ------------------------------------------------------------------ wrong types: refused by a check, nothing else
VALID = [{"stack": "doca", "os_label": "ubuntu24.04", "architecture": "x86_64",
          "doca_version": "3.2.1", "doca_profile": "doca-ofed",
          "doca_repository_base": "https://mirror.example.org/doca",
          "repository_key": "https://mirror.example.org/doca/GPG-KEY-Mellanox.pub",
          "extra_packages": ["perftest"], "opensm": False}]
VALID_KWARGS = {}


def test_valid_call_works():
    assert rdma_stack_plan(*copy.deepcopy(VALID), **copy.deepcopy(VALID_KWARGS)) is not None


def test_wrong_types_and_missing_keys_are_refused():
    assert_only_refusals('rdma_stack_plan', rdma_stack_plan, VALID, VALID_KWARGS)
