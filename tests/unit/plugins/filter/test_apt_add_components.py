# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The apt_add_components filter: the stanzas the nvidia_driver role writes, input checks (issue 13: what a
deb822 field cannot hold), the module_utils errors under the filter's name, the property that a stanza parses
back, wrong types."""
from __future__ import annotations

import json

import pytest
from ansible.errors import AnsibleFilterError
from hypothesis import event, given, settings, strategies as st

from ansible_collections.gpufleet.cluster.plugins.filter import apt_add_components as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.apt_add_components import apt_add_components
from ansible_collections.gpufleet.cluster.plugins.module_utils.apt.sources import FIELD_RULES, parse_deb822
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.input_rules import CONTROL_RE
from apt_files import BAD_FILE_LISTS, CUDA_KEYRING, DEBIAN, LAB_IMAGE
from filter_docs import assert_documented
from filter_refusals import refused
from nasty_input import hostile_text, near_valid
from wrong_types import assert_only_refusals

OWN = "/etc/apt/sources.list.d/gpufleet-debian-nonfree.sources"
BOOKWORM = ["bookworm", "bookworm-updates", "bookworm-security"]
NONFREE = ["contrib", "non-free", "non-free-firmware"]
FAST = settings(max_examples=200, deadline=None)


def test_registered_and_documented():
    assert_documented(plugin, "apt_add_components")


def test_apt_add_components_as_the_role_calls_it():
    plan = apt_add_components([LAB_IMAGE], suites=BOOKWORM, components=NONFREE, uris=[], exclude=[OWN])
    assert [(s["uris"], s["suites"], s["components"], s["options"]) for s in plan] == [
        (["http://mirror.example.org/debian"], ["bookworm", "bookworm-updates"], NONFREE, {}),
        (["http://mirror.example.org/debian-security"], ["bookworm-security"], NONFREE, {}),
    ]
    assert plan[1]["deb822"] == ("Types: deb\nURIs: http://mirror.example.org/debian-security\n"
                                 "Suites: bookworm-security\nComponents: contrib non-free non-free-firmware\n")
    assert plan[0]["types"] == ["deb"] and plan[0]["sources"] == ["/etc/apt/sources.list:1", "/etc/apt/sources.list:2"]
    json.dumps(plan)


def test_apt_add_components_ignores_the_file_it_wrote():
    first = apt_add_components([LAB_IMAGE], suites=BOOKWORM, components=NONFREE)
    written = {"path": OWN, "content": "\n".join(s["deb822"] for s in first)}
    assert apt_add_components([LAB_IMAGE, written], suites=BOOKWORM, components=NONFREE, exclude=[OWN]) == first
    assert apt_add_components([LAB_IMAGE, written], suites=BOOKWORM, components=NONFREE) == []


@pytest.mark.parametrize("files", BAD_FILE_LISTS)
def test_bad_file_lists_are_refused(files):
    with pytest.raises(AnsibleFilterError) as err:
        apt_add_components(files, BOOKWORM, NONFREE)
    assert str(err.value).startswith("gpufleet.cluster.apt_add_components: ")
    assert "path" in str(err.value)


@pytest.mark.parametrize("kwargs, name", [
    ({"suites": "bookworm", "components": NONFREE}, "suites"),
    ({"suites": BOOKWORM, "components": [""]}, "components"),
    ({"suites": BOOKWORM, "components": NONFREE, "uris": "http://x"}, "uris"),
    ({"suites": BOOKWORM, "components": NONFREE, "exclude": [None]}, "exclude"),
])
def test_apt_add_components_checks_its_lists(kwargs, name):
    with pytest.raises(AnsibleFilterError) as err:
        apt_add_components([LAB_IMAGE], **kwargs)
    assert str(err.value).startswith("gpufleet.cluster.apt_add_components: %s must be a list" % name)


def test_apt_add_components_needs_suites_and_components():
    with pytest.raises(AnsibleFilterError, match="must each name at least one"):
        apt_add_components([LAB_IMAGE], suites=[], components=NONFREE)


def test_module_utils_errors_carry_the_filter_name():
    with pytest.raises(AnsibleFilterError) as err:
        apt_add_components([CUDA_KEYRING], suites=BOOKWORM, components=NONFREE)
    assert str(err.value).startswith(
        "gpufleet.cluster.apt_add_components: no enabled 'deb' source of this host serves the release 'bookworm'")


# ------------------------------------------------------------------ issue 13: what a deb822 field cannot hold
@pytest.mark.parametrize("field, value, shown, allowed", [
    ("suites", ["bookworm\n"], r"suites\[0\]: 'bookworm\\n'", r"expected a suite of letters"),
    ("suites", ["bookworm updates"], r"suites\[0\]: 'bookworm updates'", r"expected a suite"),
    ("components", ["contrib non-free"], r"components\[0\]: 'contrib non-free'", r"expected a component"),
    ("components", ["contrib\nEnabled: no"], r"components\[0\]: 'contrib\\nEnabled: no'", r"expected a component"),
    ("components", ["#contrib"], r"components\[0\]: '#contrib'", r"expected a component"),
    ("uris", ["http://deb.debian.org/debian\nSigned-By: /tmp/k"], r"uris\[0\]: "
                                                                  r"'http://deb\.debian\.org/debian\\nSigned-By: "
                                                                  r"/tmp/k'",
     r"expected a URI: a scheme"),
    ("uris", ["http://deb.debian.org/ debian"], r"uris\[0\]: 'http://deb\.debian\.org/ debian'", r"expected a URI"),
    ("uris", ["deb.debian.org/debian"], r"uris\[0\]: 'deb\.debian\.org/debian'", r"expected a URI"),
])
def test_apt_add_components_refuses_what_a_deb822_field_cannot_hold(field, value, shown, allowed):
    args = {"suites": ["bookworm"], "components": ["contrib"], "uris": ["http://deb.debian.org/debian"]}
    args[field] = value
    refused(r"^gpufleet\.cluster\.apt_add_components: %s is not allowed; %s" % (shown, allowed),
            apt_add_components, [DEBIAN], **args)


def test_apt_add_components_refuses_a_host_uri_with_a_blank():
    cdrom = {"path": "/etc/apt/sources.list", "content": 'deb "cdrom:[Debian GNU/Linux 12]/" bookworm main\n'}
    refused(r"the URI of the host's entry /etc/apt/sources\.list:1: 'cdrom:\[Debian GNU/Linux 12\]/' is not allowed",
            apt_add_components, [cdrom], ["bookworm"], ["contrib"])


def test_apt_add_components_still_plans_the_lab():
    stanza = apt_add_components([DEBIAN], ["bookworm", "bookworm-updates"], ["contrib", "non-free"])[0]
    assert stanza["deb822"] == ("Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-updates\n"
                                "Components: contrib non-free\nSigned-By: "
                                "/usr/share/keyrings/debian-archive-keyring.gpg\n")


# ------------------------------------------------------------------ property: refused, or a stanza that parses back
def _apt_valid(kind, value):
    pattern, _allowed = FIELD_RULES[kind]
    return bool(pattern.fullmatch(value)) and "#" not in value


@FAST
@given(suites=st.lists(st.one_of(st.sampled_from(["bookworm", "bookworm-updates"]), hostile_text(1, 10)),
                       min_size=1, max_size=2, unique=True),
       components=st.lists(st.one_of(st.sampled_from(["contrib", "non-free"]), near_valid(st.just("contrib")),
                                     hostile_text(1, 10)), min_size=1, max_size=2, unique=True),
       uri=st.one_of(st.just("http://deb.debian.org/debian"), near_valid(st.just("http://deb.debian.org/debian")),
                     hostile_text(1, 16)))
def test_apt_stanzas_are_refused_or_parse_back(suites, components, uri):
    valid = (all(_apt_valid("suite", s) and not s.endswith("/") for s in suites)
             and all(_apt_valid("component", c) for c in components) and _apt_valid("uri", uri))
    try:
        stanzas = apt_add_components([], suites, components, [uri])
    except AnsibleFilterError as error:
        event("refused")
        assert not valid, error
        assert str(error).startswith("gpufleet.cluster.apt_add_components: ")
        return
    assert valid and len(stanzas) == 1
    text = stanzas[0]["deb822"]
    assert all(not CONTROL_RE.search(line) for line in text.splitlines())
    back = parse_deb822(text, "gpufleet.sources")
    assert len(back) == 1
    assert (list(back[0].uris), list(back[0].suites), list(back[0].components)) == ([uri], suites, components)


# ------------------------------------------------------------------ wrong types: refused by a check, nothing else
VALID = [[DEBIAN], ["bookworm", "bookworm-updates"], ["contrib"], [], []]


def test_valid_call_works():
    assert apt_add_components(*VALID) is not None


def test_wrong_types_and_missing_keys_are_refused():
    assert_only_refusals("apt_add_components", apt_add_components, VALID)
