# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The hostlist_expand filter: results, option checks, errors under the filter's name, names that would split
a line (issue 13), wrong types."""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import hostlist_expand as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.hostlist_expand import hostlist_expand
from filter_docs import assert_documented
from filter_refusals import refused
from slurm_lines import SPLITTING_NAMES
from wrong_types import assert_only_refusals


def test_registered_and_documented():
    assert_documented(plugin, "hostlist_expand")


def test_expand_string():
    assert hostlist_expand("gpu[01-04],login1") == ["gpu01", "gpu02", "gpu03", "gpu04", "login1"]


def test_expand_list_concatenates_in_order():
    assert hostlist_expand(["n[2-3]", "n1"]) == ["n2", "n3", "n1"]


def test_expand_sorted_unique():
    # n3 twice collapses; n10 after n9 (Slurm order: digit count, then value)
    assert hostlist_expand(["n3", "n[1-3]", "n10", "n9"], sort=True) == ["n1", "n2", "n3", "n9", "n10"]


@pytest.mark.parametrize("value, kwargs, message", [
    ("n[5-3]", {}, r"^gpufleet\.cluster\.hostlist_expand: hostlist 'n\[5-3\]': range '5-3' .* reversed"),
    ("", {}, r"^gpufleet\.cluster\.hostlist_expand: hostlist '' is empty"),
    (42, {}, r"^gpufleet\.cluster\.hostlist_expand: input must be a hostlist string or a list"),
    ([], {}, r"^gpufleet\.cluster\.hostlist_expand: the list of hostlists is empty"),
    (["n1", None], {}, r"^gpufleet\.cluster\.hostlist_expand: input\[1\] must be a hostlist string, got None of type "
                       r"NoneType$"),
    ("n1", {"sort": "yes"}, r"^gpufleet\.cluster\.hostlist_expand: sort must be true or false"),
])
def test_expand_errors_name_the_filter(value, kwargs, message):
    with pytest.raises(AnsibleFilterError, match=message):
        hostlist_expand(value, **kwargs)


# ------------------------------------------------------------------ issue 13: names that would split a line
@pytest.mark.parametrize("names, message", SPLITTING_NAMES)
def test_names_that_would_split_a_line_are_refused(names, message):
    refused(r"^gpufleet\.cluster\.hostlist_expand: " + message, hostlist_expand, names)
    refused(r"^gpufleet\.cluster\.hostlist_expand: " + message, hostlist_expand, names[0])


# ------------------------------------------------------------------ wrong types: refused by a check, nothing else
VALID = ["gpu[01-02]", False]


def test_valid_call_works():
    assert hostlist_expand(*VALID) is not None


def test_wrong_types_and_missing_keys_are_refused():
    assert_only_refusals('hostlist_expand', hostlist_expand, VALID)
