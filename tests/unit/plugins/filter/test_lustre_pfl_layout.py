# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The lustre_pfl_layout filter: progressive file layouts with their lfs setstripe command, its defaults, errors
under the filter's name, sizes and paths refused (issue 13), the property that the command parses back, wrong types."""
from __future__ import annotations

import copy
import inspect
import shlex

import pytest
from ansible.errors import AnsibleFilterError
from hypothesis import given, strategies as st

from ansible_collections.gpufleet.cluster.plugins.filter import lustre_pfl_layout as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_pfl_layout import lustre_pfl_layout
from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.layout import parse_size
from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.striping import (
    DEFAULT_STRIPE_SIZE,
    MAX_EXTENT_END,
    MIB,
)
from filter_docs import assert_documented
from filter_refusals import refused_with
from render_properties import FAST, number, text
from wrong_types import assert_only_refusals


def test_registered_and_documented():
    assert_documented(plugin, "lustre_pfl_layout")


def test_defaults_are_stripings():
    # Written out in the signature: the filter file imports no module_utils up front (docs/performance.md).
    defaults = {name: p.default for name, p in inspect.signature(lustre_pfl_layout).parameters.items()}
    assert (defaults["stripe_size"], defaults["last_stripe_size"], defaults["first_extent_min"]) == (
        DEFAULT_STRIPE_SIZE, 4 * MIB, 64 * MIB)


def test_pfl_layout_doc_example():
    layout = lustre_pfl_layout({"p50_bytes": 10485760, "p90_bytes": 524288000, "max_bytes": 53687091200},
                               ost_count=8, path="/lustre/ckpt")
    assert layout["command"] == "lfs setstripe -E 64M -c 1 -S 1M -E 1G -c 4 -S 1M -E -1 -c 8 -S 4M /lustre/ckpt"
    assert layout["lfs_setstripe_args"] == [
        "-E", "64M", "-c", "1", "-S", "1M", "-E", "1G", "-c", "4", "-S", "1M", "-E", "-1", "-c", "8", "-S", "4M"]


def test_pfl_layout_from_list():
    layout = lustre_pfl_layout((4096, 8192, 2 * 1024 * 1024), ost_count=2)
    assert layout["lfs_setstripe_args"] == ["-E", "64M", "-c", "1", "-S", "1M", "-E", "-1", "-c", "2", "-S", "4M"]


@pytest.mark.parametrize("sizes, kwargs, message", [
    ([1], {}, r"ost_count is required"),
    ([-5], {"ost_count": 8}, r"file size \[0\] is -5, below the minimum of 0"),
    ([1], {"ost_count": 8, "stripe_size": 3 * 1024 * 1024 * 1024 * 2}, r"above Lustre's limit of 4 GiB"),
    ({"p50_bytes": 1}, {"ost_count": 8}, r"lacks p90_bytes, max_bytes"),
])
def test_pfl_layout_errors(sizes, kwargs, message):
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.lustre_pfl_layout: .*" + message):
        lustre_pfl_layout(sizes, **kwargs)


# ---------------------------------------------------------------- issue 13: refused naming field, value and rule
def test_pfl_sizes_of_2_to_the_64_refused():
    # was: -E 16777216T, which lfs's own size parser refuses
    refused_with(lambda: lustre_pfl_layout({"p50_bytes": 1, "p90_bytes": 2 ** 64, "max_bytes": 2 ** 64}, ost_count=8),
                 "gpufleet.cluster.lustre_pfl_layout", "p90_bytes is 18446744073709551616, above the maximum of "
                 "9223372036854775807")
    refused_with(lambda: lustre_pfl_layout([1, 2 ** 64], ost_count=8), "file size [1] is 18446744073709551616")


def test_pfl_ladder_beyond_the_largest_file_refused():
    refused_with(lambda: lustre_pfl_layout([1], ost_count=8, first_extent_min=2 ** 62),
                 "component 2 would end at 73786976294838206464 bytes (67108864T), beyond 9223372036854775808 "
                 "(8388608T)")
    # the largest end that is allowed: 2**63 exactly
    layout = lustre_pfl_layout({"p50_bytes": 1, "p90_bytes": 2 ** 63 - 1, "max_bytes": 2 ** 63 - 1}, ost_count=16)
    assert layout["lfs_setstripe_args"][:8] == ["-E", "64M", "-c", "1", "-S", "1M", "-E", "8388608T"]


@pytest.mark.parametrize("path, parts", [
    ("-c", ("path: '-c' is not allowed; expected a directory path that does not start with '-'",)),
    ("--yaml", ("path: '--yaml' is not allowed",)),
    ("/lustre/ckpt\n", ("path: '/lustre/ckpt\\n' is not allowed",)),
    ("/lustre/my ckpt", ("path: '/lustre/my ckpt' is not allowed; expected an absolute path",)),
    ("../etc", ("path: '../etc' is not allowed",)),
])
def test_pfl_path_refused(path, parts):
    # was: "lfs setstripe -E 64M -c 1 ... -c" (the path read as an option)
    refused_with(lambda: lustre_pfl_layout([1], ost_count=8, path=path), *parts)


@pytest.mark.parametrize("path", ["/lustre/ckpt", "ckpt/run-1", "/mnt/lustre/a+b.c"])
def test_pfl_path_parses_back(path):
    layout = lustre_pfl_layout([1], ost_count=8, path=path)
    argv = shlex.split(layout["command"])
    assert argv == ["lfs", "setstripe"] + layout["lfs_setstripe_args"] + [path]


# ---------------------------------------------------------------- property: refused, or lines that parse back
@FAST
@given(st.lists(number(st.integers(0, 2 ** 66)), min_size=1, max_size=4), number(st.integers(1, 3000)),
       text("/lustre/ckpt", "/mnt/lustre/datasets", "ckpt", "-c"))
def test_pfl_command_parses_back(sizes, osts, path):
    try:
        layout = lustre_pfl_layout(sizes, ost_count=osts, path=path)
    except AnsibleFilterError as exc:
        assert "gpufleet.cluster.lustre_pfl_layout" in str(exc)
        return
    argv = shlex.split(layout["command"])
    assert argv == ["lfs", "setstripe"] + layout["lfs_setstripe_args"] + [path]
    assert not path.startswith("-")
    ends = [parse_size(argv[i + 1], "end", eof=True) for i, word in enumerate(argv) if word == "-E"]
    assert ends == [c["end"] for c in layout["components"]] and ends[-1] == -1
    assert all(0 < end <= MAX_EXTENT_END for end in ends[:-1])


# ------------------------------------------------------------------ wrong types: refused by a check, nothing else
VALID = [{"p50_bytes": 10485760, "p90_bytes": 524288000, "max_bytes": 2 ** 36}]
VALID_KWARGS = {"ost_count": 8, "stripe_size": 1048576, "last_stripe_size": 4194304,
                "first_extent_min": 67108864, "path": "/lustre/ckpt"}


def test_valid_call_works():
    assert lustre_pfl_layout(*copy.deepcopy(VALID), **copy.deepcopy(VALID_KWARGS)) is not None


def test_wrong_types_and_missing_keys_are_refused():
    assert_only_refusals('lustre_pfl_layout', lustre_pfl_layout, VALID, VALID_KWARGS)
