# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The gpufleet.cluster.valid test (plugins/test/valid.py): thin over input_rules, documented kind by kind, an
unknown kind an AnsibleError; and, in Jinja, what `is match('^...$')` let through refused."""
from __future__ import annotations

import os
import re

import jinja2
import pytest
import yaml
from ansible.errors import AnsibleError
from ansible.plugins.test import core as ansible_tests
from hypothesis import example, given
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules
from ansible_collections.gpufleet.cluster.plugins.test import valid as valid_plugin
from ansible_collections.gpufleet.cluster.plugins.test.valid import DOCUMENTATION, EXAMPLES, RETURN, valid
from nasty_input import hostile_text, near_valid
from reference import REPO

#: One valid value per kind: every kind of input_rules.RULES must be here (test_every_kind_has_a_sample).
SAMPLES = {
    "slurm_name": "gpu01", "hostname": "head.cluster.example", "device_path": "/dev/nvidia0", "ipv4": "10.0.0.1",
    "nid": "10.0.0.1@o2ib", "ifname": "ib0", "mount_path": "/mnt/lustre", "lustre_path": "datasets/x",
    "config_key": "NCCL_IB_HCA", "plain_name": "power.json", "word": "h100", "package": "jq",
    "abs_path": "/usr/bin/dcgm-exporter", "exec_arg": "--kubernetes=false", "systemd_limit": "LimitMEMLOCK",
    "limit_value": "infinity", "line": "lab nodes are containers", "mysql_name": "slurm_acct_db",
    "url": "https://mirror.example/cuda/", "archive": "https://example.org/v2.13.tar.gz", "deb_version": "1:4.5.2-1",
    "apt_full_version": "2.27.7-1+cuda12.9", "driver_branch": "580", "driver_version": "580.95.05",
    "unix_name": "dcgm-exporter", "checksum": "sha256:" + "ab" * 32, "ip": "fd00::1", "host": "pool.ntp.org",
    "network": "10.0.1.0/24", "endpoint": "localhost:5555", "listen_address": "[::]", "dcgm_health_systems": "pmi",
    "count": "1048576", "sysctl_name": "net.ipv4.conf.eth0/100.rp_filter", "sysctl_value": "4096 87380 67108864",
    "kernel_module": "ib_ipoib", "port_guid": "0x0002c90300a1b2c3",
}

#: The Jinja environment Ansible gives a template, reduced to this one test (under its FQCN, as a role names it).
ENV = jinja2.Environment(undefined=jinja2.StrictUndefined)
ENV.tests["gpufleet.cluster.valid"] = valid
ENV.tests["match"] = ansible_tests.TestModule().tests()["match"]


def render(template: str, **values) -> str:
    return ENV.from_string(template).render(**values)


def test_the_plugin_offers_valid():
    assert valid_plugin.TestModule().tests() == {"valid": valid}


def test_documentation_lists_every_kind_and_what_it_allows():
    doc = yaml.safe_load(DOCUMENTATION)
    assert doc["name"] == "valid" and doc["positional"] == "kind"
    kind = doc["options"]["kind"]
    assert kind["choices"] == sorted(input_rules.RULES)
    described = " ".join(kind["description"])
    for name, rule in input_rules.RULES.items():
        assert "C(%s): %s." % (name, rule.allowed) in described, name
    assert yaml.safe_load(RETURN)["_value"]["type"] == "boolean"
    assert "gpufleet.cluster.valid" in " ".join(str(task) for task in yaml.safe_load(EXAMPLES))


def test_every_kind_has_a_sample():
    assert sorted(SAMPLES) == sorted(input_rules.RULES)


@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_each_kind_takes_its_sample_and_refuses_it_with_a_newline(kind):
    value = SAMPLES[kind]
    assert valid(value, kind) is True
    assert valid(value + "\n", kind) is False
    assert valid("\n" + value, kind) is False
    assert render("{{ v is gpufleet.cluster.valid(k) }}", v=value, k=kind) == "True"
    assert render("{{ v is gpufleet.cluster.valid(k) }}", v=value + "\n", k=kind) == "False"


@pytest.mark.parametrize("value", [None, 580, 5.8, True, ["580"], {"a": "580"}, b"580"])
def test_what_is_no_string_is_never_valid(value):
    assert valid(value, "driver_branch") is False


@pytest.mark.parametrize("kind", ["nope", "", "Hostname", None, 3, ["hostname"]])
def test_an_unknown_kind_is_an_ansible_error_naming_the_kinds(kind):
    with pytest.raises(AnsibleError) as err:
        valid("gpu01", kind)
    message = str(err.value)
    assert message.startswith("gpufleet.cluster.valid: unknown kind %r" % (kind,))
    assert "host, hostname, ifname, ip, ipv4," in message and "docs/input-rules.md" in message


def test_what_is_match_let_through_is_refused():
    """The issue's cases: `is match('^...$')` accepted a trailing newline; the test does not."""
    assert render("{{ '580\\n' is match('^[0-9]{3}$') }}") == "True"
    assert render("{{ '580\\n' is gpufleet.cluster.valid('driver_branch') }}") == "False"
    # A prefix check such as is match('^/') took anything after the slash.
    assert render("{{ '/usr/bin/x --y\\nExecStartPre=/bin/sh' is match('^/') }}") == "True"
    assert render("{{ '/usr/bin/x --y\\nExecStartPre=/bin/sh' is gpufleet.cluster.valid('abs_path') }}") == "False"


def test_a_list_is_checked_entry_by_entry_with_reject():
    args = ["--kubernetes=false", "-d", "x\nExecStartPre=/bin/sh", "a b"]
    assert render("{{ a | reject('gpufleet.cluster.valid', 'exec_arg') | list }}", a=args) == str(args[2:])


def test_an_unknown_kind_fails_the_template():
    with pytest.raises(AnsibleError, match="unknown kind 'hostnme'"):
        render("{{ 'gpu01' is gpufleet.cluster.valid('hostnme') }}")


@given(st.sampled_from(sorted(input_rules.RULES)), hostile_text())
@example("exec_arg", "a\nb")
@example("line", "why\\")
def test_valid_is_input_rules_is_valid(kind, value):
    assert valid(value, kind) is input_rules.is_valid(kind, value)
    if valid(value, kind):
        assert not input_rules.CONTROL_RE.search(value) and value == value.strip()


@given(st.sampled_from(sorted(SAMPLES)).flatmap(lambda kind: st.tuples(st.just(kind), near_valid(
    st.just(SAMPLES[kind])))))
def test_a_sample_spoiled_by_a_hostile_character_passes_only_if_the_rule_takes_it(case):
    kind, value = case
    rule = input_rules.RULES[kind]
    if valid(value, kind):
        assert rule.pattern.fullmatch(value) and len(value) <= rule.max_length
        assert not set(value) & (set("\n\r\t #=,;\"'`$\\[]{}()") - set(rule.lets_through))
    else:
        assert not rule.pattern.fullmatch(value) or input_rules.CONTROL_RE.search(value) or (
            len(value) > rule.max_length)


def test_the_kinds_the_roles_use_exist():
    """Every `valid('<kind>')` in roles/ and playbooks/ names a kind (an unknown one would fail at run time)."""
    used = set()
    for top in ("roles", "playbooks"):
        for folder, _dirs, files in os.walk(os.path.join(REPO, top)):
            for name in files:
                if name.endswith((".yml", ".j2")):
                    with open(os.path.join(folder, name), encoding="utf-8") as handle:
                        used |= set(re.findall(r"gpufleet\.cluster\.valid['\"]?(?:\(|, *)'([a-z_0-9]+)'",
                                               handle.read()))
    assert used, "no role uses the test"
    assert used <= set(input_rules.RULES), sorted(used - set(input_rules.RULES))


def test_every_test_plugin_has_its_test_module():
    """As for the filters (tests/unit/test_filter_tests.py): plugins/test/<name>.py has tests/unit/plugins/test/
    test_<name>.py, and nothing else lives there."""
    plugins = sorted(name[:-3] for name in os.listdir(os.path.join(REPO, "plugins", "test")) if name.endswith(".py"))
    here = sorted(name for name in os.listdir(os.path.dirname(os.path.abspath(__file__)))
                  if name.endswith(".py"))
    assert "valid" in plugins and here == ["test_%s.py" % name for name in plugins]
