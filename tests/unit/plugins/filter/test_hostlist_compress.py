# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The hostlist_compress filter: results, the round trip through hostlist_expand, errors under the filter's
name, names that would split a line (issue 13), the round-trip property with hostile names, wrong types."""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError
from hypothesis import event, given, settings, strategies as st

from ansible_collections.gpufleet.cluster.plugins.filter import hostlist_compress as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.hostlist_compress import hostlist_compress
from ansible_collections.gpufleet.cluster.plugins.filter.hostlist_expand import hostlist_expand
from filter_docs import assert_documented
from filter_refusals import refused
from slurm_lines import NAME, SPLITTING_NAMES, clean, hosts, slurm_name
from wrong_types import assert_only_refusals


def test_registered_and_documented():
    assert_documented(plugin, "hostlist_compress")


def test_compress_inventory_group():
    group = ["gpu08", "gpu01", "gpu02", "gpu03", "gpu04", "gpu05", "gpu06", "gpu07"]
    assert hostlist_compress(group) == "gpu[01-08]"


def test_compress_doc_example():
    assert hostlist_compress(["n3", "n1", "n2", "n2", "n01", "login1"]) == "login1,n[1-3,01]"


def test_round_trip_through_both_filters():
    expr = "rack[1-2]-n[01-04],login[1-2]"
    assert hostlist_compress(hostlist_expand(expr)) == "login[1-2],rack1-n[01-04],rack2-n[01-04]"
    assert hostlist_expand(hostlist_compress(hostlist_expand(expr))) == sorted(
        hostlist_expand(expr), key=lambda n: (n[:-2], n[-2:]))


@pytest.mark.parametrize("value, message", [
    ([], r"^gpufleet\.cluster\.hostlist_compress: compress_hostlist got an empty list"),
    (["n1", 5], r"^gpufleet\.cluster\.hostlist_compress: compress_hostlist item 1 must be a host name string "
                r"\(quote it, e\.g\. '5'\), got 5 of type int$"),
    (["n[1-"], r"^gpufleet\.cluster\.hostlist_compress: hostlist 'n\[1-': the bracket"),
    (7, r"^gpufleet\.cluster\.hostlist_compress: input must be a list of host names, got 7 of type int$"),
])
def test_compress_errors_name_the_filter(value, message):
    with pytest.raises(AnsibleFilterError, match=message):
        hostlist_compress(value)


# ------------------------------------------------------------------ issue 13: names that would split a line
@pytest.mark.parametrize("names, message", SPLITTING_NAMES)
def test_names_that_would_split_a_line_are_refused(names, message):
    refused(r"^gpufleet\.cluster\.hostlist_compress: " + message, hostlist_compress, names)


# ------------------------------------------------------------------ property: the round trip with hostile names
@settings(max_examples=200, deadline=None)
@given(names=st.lists(st.one_of(NAME, st.from_regex(r"[a-z]{1,3}[0-9]{1,3}", fullmatch=True)), min_size=1, max_size=8))
def test_hostlist_round_trip(names):
    plain = all(not set(n) & set("[],") for n in names)
    try:
        expression = hostlist_compress(names)
    except AnsibleFilterError as error:
        event("refused")
        assert not plain or not all(slurm_name(n) for n in names), error
        return
    if plain:
        assert all(slurm_name(n) for n in names)
        assert hostlist_expand(expression) == hosts(names)
    assert hostlist_expand(expression, sort=True) == hostlist_expand(expression)
    assert clean(expression) and " " not in expression and "=" not in expression


# ------------------------------------------------------------------ wrong types: refused by a check, nothing else
VALID = [["gpu01", "gpu02"]]


def test_valid_call_works():
    assert hostlist_compress(*VALID) is not None


def test_wrong_types_and_missing_keys_are_refused():
    assert_only_refusals('hostlist_compress', hostlist_compress, VALID)
