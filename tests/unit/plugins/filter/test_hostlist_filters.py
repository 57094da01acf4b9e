# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The hostlist_expand and hostlist_compress filters: results, option checks, error wrapping."""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import hostlist_compress as compress_plugin
from ansible_collections.gpufleet.cluster.plugins.filter import hostlist_expand as expand_plugin
from ansible_collections.gpufleet.cluster.plugins.filter.hostlist_compress import hostlist_compress
from ansible_collections.gpufleet.cluster.plugins.filter.hostlist_expand import hostlist_expand


def test_filters_are_registered_under_their_names():
    assert expand_plugin.FilterModule().filters() == {"hostlist_expand": hostlist_expand}
    assert compress_plugin.FilterModule().filters() == {"hostlist_compress": hostlist_compress}


def test_expand_string():
    assert hostlist_expand("gpu[01-04],login1") == ["gpu01", "gpu02", "gpu03", "gpu04", "login1"]


def test_expand_list_concatenates_in_order():
    assert hostlist_expand(["n[2-3]", "n1"]) == ["n2", "n3", "n1"]


def test_expand_sorted_unique():
    # n3 twice collapses; n10 after n9 (Slurm order: digit count, then value)
    assert hostlist_expand(["n3", "n[1-3]", "n10", "n9"], sort=True) == ["n1", "n2", "n3", "n9", "n10"]


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


@pytest.mark.parametrize("value, kwargs, message", [
    ("n[5-3]", {}, r"^gpufleet\.cluster\.hostlist_expand: hostlist 'n\[5-3\]': range '5-3' .* reversed"),
    ("", {}, r"^gpufleet\.cluster\.hostlist_expand: hostlist '' is empty"),
    (42, {}, r"^gpufleet\.cluster\.hostlist_expand: input must be a hostlist string or a list"),
    ([], {}, r"^gpufleet\.cluster\.hostlist_expand: the list of hostlists is empty"),
    (["n1", None], {}, r"^gpufleet\.cluster\.hostlist_expand: input\[1\] must be a hostlist string, got None of type NoneType$"),
    ("n1", {"sort": "yes"}, r"^gpufleet\.cluster\.hostlist_expand: sort must be true or false"),
])
def test_expand_errors_name_the_filter(value, kwargs, message):
    with pytest.raises(AnsibleFilterError, match=message):
        hostlist_expand(value, **kwargs)


@pytest.mark.parametrize("value, message", [
    ([], r"^gpufleet\.cluster\.hostlist_compress: compress_hostlist got an empty list"),
    (["n1", 5], r"^gpufleet\.cluster\.hostlist_compress: compress_hostlist: item 1 is int 5"),
    (["n[1-"], r"^gpufleet\.cluster\.hostlist_compress: hostlist 'n\[1-': the bracket"),
    (7, r"^gpufleet\.cluster\.hostlist_compress: input must be a list of host names, got 7 of type int$"),
])
def test_compress_errors_name_the_filter(value, message):
    with pytest.raises(AnsibleFilterError, match=message):
        hostlist_compress(value)
