# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The collection's input rules (module_utils/common/input_rules.py); then the `package` kind, a Debian package name
(policy 5.6.1), as the names that go to dpkg-query and apt (dpkg_status, the rdma stack) meet it."""
from __future__ import annotations

import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.apt.dpkg_status import (
    DpkgStatusError, installed_versions,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules as rules
from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.rdma.stack import RdmaStackError, stack_plan
from nasty_input import HOSTILE, hostile_text, near_valid


class OwnError(ValueError):
    pass


@pytest.mark.parametrize("kind, value", [
    ("slurm_name", "gpu01"), ("slurm_name", "batch"), ("slurm_name", "a.b_c-d"),
    ("hostname", "gpu01"), ("hostname", "head.cluster.example"), ("hostname", "n-1"),
    ("device_path", "/dev/nvidia"), ("device_path", "/dev/infiniband/uverbs"),
    ("ipv4", "10.0.0.1"), ("ipv4", "255.255.255.255"),
    ("nid", "10.0.0.1@o2ib"), ("nid", "192.168.1.2@tcp0"), ("nid", "10.1.2.3@o2ib12"),
    ("ifname", "ib0"), ("ifname", "eth0.100"), ("ifname", "enp65s0f0np0"),
    ("mount_path", "/"), ("mount_path", "/mnt/lustre"), ("mount_path", "/lustre/training"),
    ("lustre_path", "datasets"), ("lustre_path", "checkpoints/run-1"),
    ("config_key", "SlurmctldPort"), ("config_key", "NCCL_IB_HCA"),
    ("plain_name", "hgx-h100"), ("plain_name", "power.json"), ("word", "h100"),
    ("abs_path", "/usr/bin/dcgm-exporter"), ("exec_arg", "--kubernetes=false"), ("exec_arg", "-d"),
    ("exec_arg", "[::1]:9400"), ("systemd_limit", "LimitMEMLOCK"), ("limit_value", "infinity"),
    ("limit_value", "65536:infinity"), ("limit_value", "8M"), ("line", "lab nodes are containers; no #1"),
    ("mysql_name", "slurm_acct_db"), ("url", "https://mirror.example/cuda/ubuntu2404/x86_64/"),
    ("url", "file:///srv/mirror"), ("url", "file:/srv/slurm-mirror"),  # sources.list(5) writes file:/path
    ("archive", "https://example.org/nccl-tests/v2.13.tar.gz"),
    ("archive", "files/nccl-tests.tgz"), ("deb_version", "1:4.5.2-1"), ("deb_version", "4.5.2"),
    ("deb_version", "23.11.4"), ("apt_full_version", "2.27.7-1+cuda12.9"), ("driver_branch", "580"),
    ("driver_version", "580.95.05"), ("driver_version", "580.95"), ("unix_name", "dcgm-exporter"),
    ("checksum", "sha256:" + "0" * 64), ("ip", "10.0.0.1"), ("ip", "fd00::1"), ("host", "pool.ntp.org"),
    ("host", "fd00::1"), ("network", "10.0.1.0/24"), ("network", "all"), ("network", "fd00::/64"),
    ("endpoint", "localhost:5555"), ("endpoint", "[::1]:5555"), ("endpoint", "unix:///run/dcgm.sock"),
    ("listen_address", ""), ("listen_address", "[::]"), ("listen_address", "0.0.0.0"),
    ("dcgm_health_systems", "a"), ("dcgm_health_systems", "pmi"),
])
def test_valid_values_pass(kind, value):
    assert rules.check(kind, "field", value) == value
    assert rules.is_valid(kind, value)


@pytest.mark.parametrize("kind, value", [
    ("slurm_name", "batch\n"), ("slurm_name", "n1 NodeAddr=10.0.0.9"), ("slurm_name", "n#1"),
    ("slurm_name", "n[1-2]"), ("slurm_name", ""), ("slurm_name", "a" * 65), ("slurm_name", "-x"),
    ("hostname", "gpu01\n"), ("hostname", "gpu_01"), ("hostname", "-gpu"), ("hostname", "gpu-"),
    ("hostname", "a..b"), ("hostname", ""),
    ("device_path", "/dev/nvidia#"), ("device_path", "/dev/nvidia,Cores=1"), ("device_path", "None"),
    ("device_path", "/dev/../etc/passwd"), ("device_path", "/dev/"), ("device_path", "/dev/nvidia\n"),
    ("ipv4", "256.0.0.1"), ("ipv4", "10.0.0"), ("ipv4", "10.0.0.1\n"), ("ipv4", "010.0.0.1"),
    ("nid", "10.0.0.1@o2ib\n"), ("nid", "10.0.0.1@gni"), ("nid", "10.0.0.1"), ("nid", "host@tcp"),
    ("ifname", "ib0\n"), ("ifname", "a" * 16), ("ifname", "ib0:1"), ("ifname", "ib 0"), ("ifname", "ib/0"),
    ("mount_path", "/mnt/lustre "), ("mount_path", "mnt"), ("mount_path", "/mnt/"), ("mount_path", "/mnt/../etc"),
    ("mount_path", "/mnt//x"), ("mount_path", "/mnt/\u00e9"),
    ("lustre_path", "../../../etc/cron.d/x"), ("lustre_path", "/abs"), ("lustre_path", "a/./b"), ("lustre_path", "a b"),
    ("config_key", "NCCL_IB_HCA\n"), ("config_key", "A=B"), ("config_key", "1A"),
    ("plain_name", "../x"), ("plain_name", ".."), ("plain_name", "a/b"), ("plain_name", ".hidden"),
    ("plain_name", "-rf"), ("word", "h100\n"), ("word", "a b"),
    ("abs_path", "usr/bin/x"), ("abs_path", "/usr/bin/x y"), ("abs_path", "/a/../b"), ("abs_path", "/"),
    ("exec_arg", "--a b"), ("exec_arg", "%h"), ("exec_arg", "$PATH"), ("exec_arg", "a;b"), ("exec_arg", "'x'"),
    ("exec_arg", "x\nExecStartPre=/bin/sh"), ("systemd_limit", "ExecStartPre"), ("systemd_limit", "LimitNOFILE\n"),
    ("limit_value", "infinity\nExecStartPre=/bin/true"), ("limit_value", "1 2"), ("line", "reason\nExecStartPre=x"),
    ("line", " padded"), ("line", "ends in \\"), ("line", ""), ("mysql_name", "slurm.db"), ("mysql_name", "db`x"),
    ("mysql_name", "a-b"), ("url", "http://x y"), ("url", "ftp:/x"), ("url", "https://x/#frag"),
    ("archive", "nccl.zip"), ("archive", "../x.tgz"), ("deb_version", "4.5.2\n"), ("deb_version", "4.*"),
    ("deb_version", "4"), ("apt_full_version", "2.27.7"), ("driver_branch", "580\n"), ("driver_branch", "58"),
    ("driver_version", "580.x"), ("driver_version", "580"), ("unix_name", "Root"), ("checksum", "sha256:abc"),
    ("checksum", "md5:" + "0" * 32), ("ip", "10.0.0.256"), ("ip", "host"), ("host", "a b"), ("host", "x#"),
    ("network", "10.0.0.0/24 deny"), ("network", "10.0.0.0/129"), ("endpoint", "localhost"),
    ("endpoint", "localhost:0"), ("endpoint", "localhost:65536"), ("endpoint", "unix://relative"),
    ("listen_address", "::"), ("listen_address", "0.0.0.0:9400"), ("dcgm_health_systems", "az"),
    ("dcgm_health_systems", "pmitndxp"),
])
def test_invalid_values_are_refused_with_the_field_and_value(kind, value):
    with pytest.raises(OwnError) as err:
        rules.check(kind, "nodes[2].name", value, OwnError)
    assert "nodes[2].name" in str(err.value)
    assert repr(value)[:40] in str(err.value)
    assert not rules.is_valid(kind, value)


@pytest.mark.parametrize("value", [None, 5, 1.5, b"gpu01", ["gpu01"], {"a": 1}])
def test_non_strings_are_refused_by_type(value):
    with pytest.raises(rules.InputRuleError, match=r"host must be a string \(DNS labels"):
        rules.check("hostname", "host", value)


@given(st.sampled_from(sorted(rules.RULES)), hostile_text(min_size=1))
def test_no_rule_accepts_a_control_character_or_line_break(kind, value):
    """Whatever the kind, an accepted value holds no line break, comment or separator character (beyond the
    separators the kind says it lets through, because the place its value lands does not split on them)."""
    if rules.is_valid(kind, value):
        assert not rules.CONTROL_RE.search(value)
        assert not set(value) & (set("\n\r\t #=,;\"'`$\\[]{}()") - set(rules.RULES[kind].lets_through))
        assert "\\" not in value
        assert value == value.strip()


@given(st.sampled_from(sorted(rules.RULES)), st.sampled_from(["gpu01", "ib0", "/mnt/lustre", "a"]))
def test_a_trailing_newline_never_passes(kind, value):
    assert not rules.is_valid(kind, value + "\n")


def test_free_text():
    assert rules.free_text("source", "roce_host: DSCP 26") == "roce_host: DSCP 26"
    for bad in ("line\nnext", "nul\x00", "esc\x1b[0m", "   ", ""):
        with pytest.raises(OwnError, match="source"):
            rules.free_text("source", bad, OwnError)
    with pytest.raises(OwnError, match="none of '#'"):
        rules.free_text("value", "22 # comment", OwnError, forbid="#")
    assert rules.free_text("comment", "", allow_empty=True) == ""
    with pytest.raises(OwnError, match="at most 4"):
        rules.free_text("x", "hello", OwnError, max_length=4)


@given(hostile_text())
def test_free_text_property(value):
    try:
        rules.free_text("t", value, forbid="#,")
    except rules.InputRuleError:
        assert rules.CONTROL_RE.search(value) or set(value) & set("#,") or not value.strip() or len(value) > 1024
    else:
        assert "\n" not in value and "#" not in value


def test_numbers():
    assert rules.integer("gpus", 8, minimum=1) == 8
    assert rules.number("nvlink_gbs", 370.5, minimum=0, exclusive_minimum=True) == 370.5
    assert rules.port("SlurmctldPort", 6817) == 6817
    for bad, message in ((True, "whole number"), ("8", "whole number"), (8.0, "whole number"),
                         (0, "below the minimum of 1"), (2**70, "above the maximum")):
        with pytest.raises(OwnError, match=message):
            rules.integer("gpus", bad, OwnError, minimum=1, maximum=2**63)
    for bad, message in ((math.nan, "finite"), (math.inf, "finite"), (-math.inf, "finite"),
                         ("eight", "must be a number"), (None, "must be a number"), (False, "must be a number"),
                         (0, "must be above 0"), (-5, "must be above 0")):
        with pytest.raises(OwnError, match=message):
            rules.number("nvlink_gbs", bad, OwnError, minimum=0, exclusive_minimum=True)
    for bad in (0, -1, 65536, "6817", 6817.0):
        with pytest.raises(OwnError, match="SlurmctldPort"):
            rules.port("SlurmctldPort", bad, OwnError)
    assert rules.boolean("default", True) is True
    with pytest.raises(OwnError, match="true or false"):
        rules.boolean("default", "yes", OwnError)


def test_mappings():
    node = {"name": "gpu01", "cpus": 8}
    assert rules.mapping("nodes[0]", node, required=("name",), optional=("cpus",)) is node
    assert rules.require("nodes[0]", node, "name") == "gpu01"
    with pytest.raises(OwnError, match=r"nodes\[0\] is missing 'sockets' \(it has: cpus, name\)"):
        rules.mapping("nodes[0]", node, OwnError, required=("name", "sockets"))
    with pytest.raises(OwnError, match=r"unknown key\(s\) 'cpus'; allowed: name"):
        rules.mapping("nodes[0]", node, OwnError, required=("name",), optional=())
    with pytest.raises(OwnError, match="must be a mapping, got 'gpu01' of type str"):
        rules.mapping("nodes[0]", "gpu01", OwnError)


def test_string_lists():
    assert rules.string_list("interfaces", ["ib0", "ib1"], "ifname") == ["ib0", "ib1"]
    with pytest.raises(OwnError, match=r"interfaces\[1\]"):
        rules.string_list("interfaces", ["ib0", "ib1\n"], "ifname", OwnError)
    with pytest.raises(OwnError, match="listed twice"):
        rules.string_list("interfaces", ["ib0", "ib0"], "ifname", OwnError)
    with pytest.raises(OwnError, match="must not be empty"):
        rules.string_list("interfaces", [], "ifname", OwnError)
    with pytest.raises(OwnError, match="must be a list"):
        rules.string_list("interfaces", "ib0", "ifname", OwnError)


def test_every_rule_documents_itself():
    for kind, rule in rules.RULES.items():
        assert rule.kind == kind and rule.allowed and rule.why
        assert "\n" not in rule.allowed


def test_hostile_alphabet_covers_the_issue_cases():
    for char in "\n#=\"' \x00\x1b":
        assert char in HOSTILE


# ---------------------------------------------------------------- the package kind: a Debian package name
# What docs/input-rules.md and the roles' messages promise, written out here rather than read from the rule.
DOCUMENTED = re.compile(r"[a-z0-9][a-z0-9+.-]{1,127}")
NAMES = st.from_regex(r"[a-z0-9][a-z0-9+.-]{1,40}", fullmatch=True)


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
def test_non_strings_are_refused_as_packages_by_type(value):
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
