# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""input_rules' `package` kind: a Debian package name (policy 5.6.1), the names that go to dpkg-query and apt."""
from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules as rules
from ansible_collections.gpufleet.cluster.plugins.module_utils.apt.dpkg_status import DpkgStatusError, installed_versions
from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.rdma.stack import RdmaStackError, stack_plan
from nasty_input import hostile_text, near_valid

# What docs/input-rules.md and the roles' messages promise, written out here rather than read from the rule.
DOCUMENTED = re.compile(r"[a-z0-9][a-z0-9+.-]{1,127}")
NAMES = st.from_regex(r"[a-z0-9][a-z0-9+.-]{1,40}", fullmatch=True)


class OwnError(ValueError):
    pass


@pytest.mark.parametrize("name", [
    "libnvidia-ml1", "g++", "jq", "0ad", "datacenter-gpu-manager-4-cuda13", "lustre-client-modules-6.1.0-37-amd64",
    "libstdc++6", "python3.11", "a" + "b" * 127,  # 128 characters, the bound
])
def test_package_names_pass(name):
    assert rules.check("package", "dcgm_packages_extra[0]", name) == name
    assert rules.is_valid("package", name)


@pytest.mark.parametrize("name, why", [
    ("x", "policy 5.6.1: at least two characters"),
    ("-o", "an option of dpkg-query and apt"),
    ("--admindir=/x", "dpkg-query would read another database"),
    ("jq=1.6-2.1", "apt reads a version"),
    ("foo*", "apt reads a pattern"),
    ("foo?", "a pattern too"),
    ("jq/bookworm", "apt reads a release"),
    ("libc6:amd64", "an architecture qualifier, not a name"),
    ("Foo", "upper case"),
    ("a b", "two arguments once split"),
    ("jq\n", "a trailing newline ($ would let it through)"),
    ("jq\t", "a tab"),
    ("", "empty"),
    ("+foo", "starts with '+'"),
    (".foo", "starts with '.'"),
    ("caf\u00e9", "not ASCII"),
    ("a" + "b" * 128, "129 characters"),
])
def test_what_is_not_a_package_name_is_refused_naming_field_and_value(name, why):
    with pytest.raises(OwnError) as err:
        rules.check("package", "dcgm_packages_extra[3]", name, OwnError)
    message = str(err.value)
    assert message.startswith("dcgm_packages_extra[3]: "), why
    assert repr(name)[:40] in message and "is not allowed; expected a Debian package name" in message, why
    assert not rules.is_valid("package", name), why


@pytest.mark.parametrize("value", [None, 12, 1.5, True, b"jq", ["jq"], {"name": "jq"}])
def test_non_strings_are_refused_by_type(value):
    with pytest.raises(OwnError, match=r"^pkg must be a string \(a Debian package name"):
        rules.check("package", "pkg", value, OwnError)
    assert not rules.is_valid("package", value)


def test_the_rule_is_the_documented_pattern_and_says_why():
    rule = rules.RULES["package"]
    assert rule.pattern.pattern == DOCUMENTED.pattern and rule.max_length == 128
    assert "dpkg-query" in rule.why and "'-'" in rule.why and "'='" in rule.why and "'*'" in rule.why


@given(st.one_of(hostile_text(min_size=0, max_size=40), near_valid(NAMES), NAMES))
def test_accepted_exactly_when_the_documented_pattern_matches_in_full(value):
    assert rules.is_valid("package", value) == bool(DOCUMENTED.fullmatch(value))


@given(st.lists(st.one_of(NAMES, hostile_text(), near_valid(NAMES), st.integers(), st.none()), max_size=8))
def test_invalid_entries_are_the_refused_ones_in_order(values):
    assert rules.invalid_entries("package", values) == [
        value for value in values if not (isinstance(value, str) and DOCUMENTED.fullmatch(value))]


# The two users of the rule that had their own pattern keep their messages.
def test_rdma_packages_extra_uses_the_rule():
    settings = {"stack": "inbox", "inbox_packages": ["rdma-core"], "extra_packages": ["perftest", "--force-yes"]}
    with pytest.raises(RdmaStackError, match=r"^rdma_packages_extra must be a list of Debian package names, got "):
        stack_plan(settings)
    settings["extra_packages"] = ["jq\n"]
    with pytest.raises(RdmaStackError, match="rdma_packages_extra"):
        stack_plan(settings)


@pytest.mark.parametrize("name", ["Slurmd", "x", "jq=1", "-o"])
def test_dpkg_status_reads_only_package_names(name):
    with pytest.raises(DpkgStatusError, match=r"package %s is not a Debian package name" % re.escape(repr(name))):
        installed_versions(["%s installed 1.0-1" % name])
    assert installed_versions(["g++ installed 4:12.2.0-3"]) == {"g++": "4:12.2.0-3"}
