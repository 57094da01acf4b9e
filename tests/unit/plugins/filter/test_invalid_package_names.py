# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""invalid_package_names, and the preflight task of each role that takes extra packages (common, dcgm,
lustre_client, nvidia_driver): the task's own expressions, rendered with Jinja as the role writes them."""
from __future__ import annotations

import json
import os
import re

import jinja2
import pytest
import yaml
from ansible.errors import AnsibleFilterError
from hypothesis import given
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.filter.invalid_package_names import (
    FilterModule,
    invalid_package_names,
)
from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import is_refusal
from nasty_input import hostile_numbers, hostile_text, near_valid

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..")
FQCN = "gpufleet.cluster.invalid_package_names"
DOCUMENTED = re.compile(r"[a-z0-9][a-z0-9+.-]{1,127}")
NAMES = st.from_regex(r"[a-z0-9][a-z0-9+.-]{1,30}", fullmatch=True)
TASK = "Preflight | Check the extra packages are package names"
ROLES = {"common": "common_packages_extra", "dcgm": "dcgm_packages_extra",
         "lustre_client": "lustre_client_packages_extra", "nvidia_driver": "nvidia_driver_packages_extra"}
# Roles whose input checks are one problem list (issue 29): the task, and the variables that hold the entries
# refused and the message listed for them.
MERGED = {
    "common": ("Preflight | Check the values written to chrony.conf, /etc/hosts, sysctl.d and the limits files",
               "__common_bad_packages", "__common_extra_message"),
    "dcgm": ("Preflight | Check the switched-off steps, the DCGM choices, the exporter's settings and where things "
             "listen", "__dcgm_bad_packages", "__dcgm_extra_message"),
    "lustre_client": ("Preflight | Check the switched-off steps, the repository and packages, the locking mode, LNet, "
                      "mounts and directories", "__lustre_client_bad_packages", "__lustre_client_extra_message"),
    "nvidia_driver": ("Preflight | Check the driver source, branch and kernel modules, the extra packages and the "
                      "steps turned off", "__nvidia_driver_bad_packages", "__nvidia_driver_extra_message"),
}


def test_the_entries_that_are_not_package_names_in_order():
    given_names = ["libnvidia-ml1", "--admindir=/tmp/x", "g++", "jq=1.6-2.1", "foo*", "x", "Foo", "a b", "jq\n",
                   "lustre-dev", 12, None]
    assert invalid_package_names(given_names) == ["--admindir=/tmp/x", "jq=1.6-2.1", "foo*", "x", "Foo", "a b",
                                                  "jq\n", 12, None]


def test_all_good_or_empty_is_empty():
    assert invalid_package_names(["libnvidia-ml1", "g++", "datacenter-gpu-manager-4-dev"]) == []
    assert invalid_package_names([]) == [] and invalid_package_names(()) == []


@pytest.mark.parametrize("entry", [1, 1.5, True, None, b"jq", ["jq"], {"name": "jq"}])
def test_an_entry_that_is_not_a_string_is_returned_as_it_is(entry):
    assert invalid_package_names(["jq", entry]) == [entry]


@pytest.mark.parametrize("value, shown", [
    (None, "None of type NoneType"), ("jq", "'jq' of type str"), ({"jq": 1}, "{'jq': 1} of type dict"),
    (5, "5 of type int"), (b"jq", "b'jq' of type bytes"), ("x" * 200, "'xxx.*\\.\\.\\. of type str"),
])
def test_input_that_is_not_a_list_is_refused_naming_the_filter(value, shown):
    with pytest.raises(AnsibleFilterError, match=r"^%s: input must be a list of package names, got %s$"
                       % (re.escape(FQCN), shown)):
        invalid_package_names(value)


def test_registered_under_its_name():
    assert FilterModule().filters() == {"invalid_package_names": invalid_package_names}


_ENTRY = st.one_of(NAMES, near_valid(NAMES), hostile_text(), hostile_numbers(), st.binary(max_size=4),
                   st.lists(NAMES, max_size=2), st.dictionaries(NAMES, NAMES, max_size=2))


@given(st.one_of(st.lists(_ENTRY, max_size=8), st.tuples(_ENTRY, _ENTRY), _ENTRY))
def test_only_a_filter_error_ever_escapes_and_exactly_the_non_names_come_back(value):
    try:
        result = invalid_package_names(value)
    except AnsibleFilterError as err:
        assert not isinstance(value, (list, tuple)) and str(err).startswith(FQCN + ": ")
        assert is_refusal(err.__context__)  # input_rules refused it, not the filter's fallback
    else:
        assert isinstance(value, (list, tuple))
        assert result == [entry for entry in value if not (isinstance(entry, str) and DOCUMENTED.fullmatch(entry))]


# ------------------------------------------------------------------ the roles' preflight tasks
def _preflight(role):
    with open(os.path.join(ROOT, "roles", role, "tasks", "preflight.yml"), encoding="utf-8") as handle:
        tasks = yaml.safe_load(handle)
    index = [task.get("name") for task in tasks].index(MERGED[role][0] if role in MERGED else TASK)
    return tasks[:index], tasks[index]


def _environment():
    env = jinja2.Environment(undefined=jinja2.StrictUndefined)
    env.filters[FQCN] = invalid_package_names
    env.filters["to_json"] = json.dumps
    return env


def _run(role, extra):
    """The task's `that` and `fail_msg`, with its own vars, for `<role>_packages_extra: extra`."""
    task = _preflight(role)[1]
    env = _environment()
    context = {ROLES[role]: extra}
    if role in MERGED:  # the problem list's entry for the extra packages: refused when any entry is refused
        _name, bad, message = MERGED[role]
        context[bad] = env.compile_expression(task["vars"][bad].strip()[2:-2])(**context)
        return not context[bad], " ".join(env.from_string(task["vars"][message]).render(**context).split())
    for name, expression in task["vars"].items():
        context[name] = env.compile_expression(expression.strip()[2:-2])(**context)
    that = task["ansible.builtin.assert"]["that"]
    passed = all(env.compile_expression(check)(**context) for check in (that if isinstance(that, list) else [that]))
    return passed, " ".join(env.from_string(task["ansible.builtin.assert"]["fail_msg"]).render(**context).split())


@pytest.mark.parametrize("role", sorted(ROLES))
def test_each_role_refuses_what_is_not_a_package_name_naming_it(role):
    var = ROLES[role]
    assert _run(role, [])[0] is True
    assert _run(role, ["libnvidia-ml1", "g++", "lustre-dev"])[0] is True
    passed, message = _run(role, ["jq", "--admindir=/tmp/x", "jq=1.6-2.1", "foo*", "jq\n", 12])
    assert passed is False
    assert message.startswith('%s holds "--admindir=/tmp/x", "jq=1.6-2.1", "foo*", "jq\\n", 12: each entry must be a '
                              "Debian package name (lower-case letters, digits, '+', '-' and '.', starting with a "
                              "letter or digit), with no version, option or space; " % var), message


def test_common_keeps_the_message_the_e2e_looks_for():
    # tests/e2e/refusals.sh: refused "common_packages_extra holds \"jq=1.6-2.1\""
    assert 'common_packages_extra holds "jq=1.6-2.1"' in _run("common", ["jq=1.6-2.1"])[1]


@pytest.mark.parametrize("role", sorted(ROLES))
def test_each_role_checks_before_anything_runs(role):
    """Only the OS check and other asserts come before the task: nothing has been read, written or installed (a
    set_fact run once for the run works out values on the controller, as common's cluster description)."""
    before, task = _preflight(role)
    assert task["ansible.builtin.assert"]["quiet"] is True and "when" not in task
    kinds = [next(key for key in earlier if key.startswith("ansible.builtin.")) for earlier in before]
    assert all(earlier.get("run_once") is True for earlier in before if "ansible.builtin.set_fact" in earlier)
    assert [kind for kind in kinds if kind != "ansible.builtin.set_fact"] == (
        ["ansible.builtin.import_role"] + ["ansible.builtin.assert"] * (len(before) - 1 - kinds.count("ansible.builtin.set_fact")))
