# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Tests that kill mutants `make mutation MODULES=lustre_layout` found alive (docs/testing.md).

Every refusal of desired_layout (plain and PFL components) and setstripe_argv word for word (the option's path,
the value, the limit and the fix), and the normalised layout's defaults (pattern, offset) and its text.
"""
from __future__ import annotations

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.layout import (
    LayoutError,
    component_text,
    desired_layout,
    differences,
    layout_text,
    read_layout,
    setstripe_argv,
)

M = 1048576


def _refusal(call, *args, **kwargs):
    with pytest.raises(LayoutError) as caught:
        call(*args, **kwargs)
    return str(caught.value)


def _pfl(*items):
    return {"components": list(items)}


@pytest.mark.parametrize("kwargs,message", [
    ({"stripe_count": 1}, "a plain layout needs both stripe_count and stripe_size (got stripe_count); or give components"),
    ({"stripe_size": "1M"}, "a plain layout needs both stripe_count and stripe_size (got stripe_size); or give components"),
    ({}, "a plain layout needs both stripe_count and stripe_size (got neither); or give components"),
    ({"stripe_count": 1, "components": []}, "give either components or stripe_count/stripe_size, not both"),
    ({"stripe_count": "x", "stripe_size": "1M"}, "stripe_count must be an integer (-1 = all OSTs), got 'x' of type str"),
    ({"stripe_count": 1.0, "stripe_size": "1M"}, "stripe_count must be an integer (-1 = all OSTs), got 1.0 of type float"),
    ({"stripe_count": True, "stripe_size": "1M"}, "stripe_count must be an integer (-1 = all OSTs), got True of type bool"),
    ({"stripe_count": " 4 ", "stripe_size": "1M", "pool": 7}, "pool must be a string, got 7 of type int"),
    ({"stripe_count": 1, "stripe_size": "0"},
     "stripe_size is 0, which lfs reads as 'the file system default'; give the size, e.g. '1M'"),
    ({"stripe_count": 1, "stripe_size": "1M", "pool": "a" * 16},
     "pool 'aaaaaaaaaaaaaaaa' is not an OST pool name lfs stores as given: use 1-15 letters, digits, '_' or '-' "
     "without the 'fsname.' prefix ('' = no pool)"),
    ({"components": "0-EOF"}, "components must be a list of {end, stripe_count, stripe_size[, pool]} dicts, got '0-EOF' of type str"),
    ({"components": None, "stripe_count": None}, "a plain layout needs both stripe_count and stripe_size (got neither); "
                                                 "or give components"),
    ({"components": [], "pool": 3}, "pool must be a string, got 3 of type int"),
    ({"components": [7]}, "components[0] must be a dict {end, stripe_count, stripe_size[, pool]}, got 7 of type int"),
    ({"components": [{"end": -1, "stripe_count": 1, "stripe_size": "1M", "pool": 5}]},
     "components[0].pool must be a string, got 5 of type int"),
    ({"components": [{"end": -1, "stripe_count": "many", "stripe_size": "1M"}]},
     "components[0].stripe_count must be an integer (-1 = all OSTs), got 'many' of type str"),
    ({"components": [{"end": "x", "stripe_count": 1, "stripe_size": "1M"}]},
     "components[0].end 'x' is not a size; use bytes or a number with K, M, G or T (binary units), e.g. '1M' or "
     "'4194304', or 'eof'"),
    ({"components": [{"end": -1, "stripe_count": 1, "stripe_size": "1x"}]},
     "components[0].stripe_size '1x' is not a size; use bytes or a number with K, M, G or T (binary units), e.g. "
     "'1M' or '4194304'"),
    ({"components": [{"start": "x", "end": -1, "stripe_count": 1, "stripe_size": "1M"}]},
     "components[0].start 'x' is not a size; use bytes or a number with K, M, G or T (binary units), e.g. '1M' or "
     "'4194304'"),
    ({"components": [{"end": 4 * M, "stripe_count": 1, "stripe_size": "1M"}, {"end": 2 * M, "stripe_count": 1,
                                                                              "stripe_size": "1M"}]},
     "components[1].end 2097152 is not above its start 4194304; extent ends must increase"),
    ({"components": [{"end": 4 * M, "stripe_count": 1, "stripe_size": "1M"}, {"end": 4 * M, "stripe_count": 1,
                                                                              "stripe_size": "1M"}]},
     "components[1].end 4194304 is not above its start 4194304; extent ends must increase"),
    ({"components": [{"end": 2 ** 64, "stripe_count": 1, "stripe_size": "1M"}]},
     "components[0].end 18446744073709551616 (16777216T) is beyond 9223372036854775808 (8388608T): Linux file "
     "offsets stop at 2**63 - 1, so no file reaches it (lfs refuses 16777216T, 2**64, outright); use eof (-1) for the "
     "last component"),
    ({"components": [{"end": "64M", "stripe_count": 1, "stripe_size": "1M"}]},
     "the last component ends at 67108864 (64M), not at eof; end it with -1 or 'eof' so files can grow past it"),
    ({"components": []}, "components is empty; give at least one component ending at eof (-1)"),
    ({"components": 5}, "components must be a list of {end, stripe_count, stripe_size[, pool]} dicts, got 5 of type int"),
    ({"components": [{"end": -1, "stripe_count": 1, "stripe_size": "1M", "size": 1, "colour": 2}]},
     "components[0] has unknown key(s) 'colour', 'size'; allowed: end, pool, start, stripe_count, stripe_size"),
    ({"components": [{"end": -1}]}, "components[0] lacks stripe_count, stripe_size"),
    ({"components": [{"start": "1M", "end": -1, "stripe_count": 1, "stripe_size": "1M"}]},
     "components[0].start is 1048576 but the previous component ends at 0; components must be contiguous from 0 "
     "(start may be left out)"),
    ({"components": [{"end": -1, "stripe_count": 1, "stripe_size": "1M"}, {"end": -1, "stripe_count": 1,
                                                                           "stripe_size": "1M"}]},
     "components[1] follows a component that already ends at eof; eof must be the last end"),
    ({"components": [{"end": "3M", "stripe_count": 1, "stripe_size": "2M"}]},
     "components[0].end 3145728 (3M) is not a multiple of its stripe_size 2M; lfs refuses it, use 4M"),
    ({"components": [{"end": -5, "stripe_count": 1, "stripe_size": "1M"}]},
     "components[0].end is -5; sizes are bytes >= 0 (or -1 for EOF)"),
    ({"stripe_count": 0, "stripe_size": "1M"},
     "stripe_count is 0, which lfs reads as 'the file system default'; give the count (1..2000) or -1 for all OSTs"),
    ({"stripe_count": -2, "stripe_size": "1M"}, "stripe_count is -2; lfs accepts -1 (all OSTs) or 1..2000"),
    ({"stripe_count": 2001, "stripe_size": "1M"},
     "stripe_count is 2001, above Lustre's limit of 2000 stripes per component; use at most 2000 or -1 for all OSTs"),
    # only spaces around a count or size are dropped: a tab, or letters, are not part of one
    ({"stripe_count": "\t4", "stripe_size": "1M"}, "stripe_count must be an integer (-1 = all OSTs), got '\\t4' of type str"),
    ({"stripe_count": "X4X", "stripe_size": "1M"}, "stripe_count must be an integer (-1 = all OSTs), got 'X4X' of type str"),
    ({"stripe_count": 1, "stripe_size": "\t1M"},
     "stripe_size '\\t1M' is not a size; use bytes or a number with K, M, G or T (binary units), e.g. '1M' or '4194304'"),
    ({"stripe_count": 1, "stripe_size": "X1MX"},
     "stripe_size 'X1MX' is not a size; use bytes or a number with K, M, G or T (binary units), e.g. '1M' or '4194304'"),
    ({"stripe_count": 1, "stripe_size": True}, "stripe_size is True, a boolean; give bytes or a size like '1M'"),
    ({"stripe_count": 1, "stripe_size": 1.5}, "stripe_size must be an integer or a size string like '1M', got 1.5 of type float"),
    ({"stripe_count": 1, "stripe_size": -65536}, "stripe_size is -65536; sizes are bytes >= 0"),
    ({"stripe_count": 1, "stripe_size": "100K"},
     "stripe_size 102400 bytes is not a multiple of 64 KiB (65536); lfs refuses it, use 64K or 128K"),
    ({"stripe_count": 1, "stripe_size": "4G"},
     "stripe_size 4294967296 bytes is not below 4 GiB; lfs accepts at most 4294901760 (4G - 64K), 1M-16M is usual"),
    ({"stripe_count": 1, "stripe_size": "1M", "pool": "ignore"},
     "pool 'ignore' is not an OST pool name lfs stores as given: use 1-15 letters, digits, '_' or '-' without the "
     "'fsname.' prefix ('' = no pool)"),
])
def test_desired_layout_refusals_word_for_word(kwargs, message):
    assert _refusal(desired_layout, **kwargs) == message


def test_components_take_the_layout_pool_unless_they_name_their_own():
    layout = desired_layout(pool="flash", components=[
        {"end": "64M", "stripe_count": 1, "stripe_size": "1M"},
        {"end": "eof", "stripe_count": "-1", "stripe_size": "4M", "pool": "none"}])
    assert [(c["start"], c["end"], c["stripe_count"], c["stripe_size"], c["pool"]) for c in layout["components"]] == [
        (0, 64 * M, 1, M, "flash"), (64 * M, -1, -1, 4 * M, "")]
    # a component may end at 2**63 (8388608T), the last offset a file can reach
    assert desired_layout(components=[{"end": 2 ** 63, "stripe_count": 1, "stripe_size": "1M"},
                                      {"end": -1, "stripe_count": 1, "stripe_size": "1M"}])["components"][1]["start"] == 2 ** 63
    # a count given as text with spaces around it is read
    assert desired_layout(stripe_count=" 4 ", stripe_size="1M")["components"][0]["stripe_count"] == 4
    # the longest pool name lfs stores (15 characters) is accepted
    assert desired_layout(stripe_count=1, stripe_size="1M", pool="p" * 15)["components"][0]["pool"] == "p" * 15


def test_setstripe_argv_refuses_a_plain_layout_that_is_not_one_component_to_eof():
    one_to_64m = {"components": [{"start": 0, "end": 64 * M, "stripe_count": 1, "stripe_size": M, "pool": ""}]}
    assert _refusal(setstripe_argv, "lfs", one_to_64m, "/mnt/d", False) == (
        "a plain layout is one component 0..EOF; use composite=True for 1")


def test_composite_pattern_zero_is_raid0_and_missing_offset_is_minus_one():
    # SYNTHETIC: a component printed with pattern 0 and no stripe_offset (a directory template)
    text = ("  lcm_layout_gen:  0\n  lcm_entry_count: 1\n    lcme_id:             N/A\n    lcme_flags:          0\n"
            "    lcme_extent.e_start: 0\n    lcme_extent.e_end:   EOF\n"
            "      stripe_count:  2       stripe_size:   1048576       pattern:       0\n")
    assert read_layout(text)["components"] == [{"start": 0, "end": -1, "stripe_count": 2, "stripe_size": M, "pool": "",
                                                "pattern": "raid0", "stripe_offset": -1}]


@pytest.mark.parametrize("pattern,text", [
    ("raid0,overstriped", "0-EOF: 8 x 1M pool fast (raid0,overstriped) offset 3"),
    ("extension", "0-EOF: 8 x 1M pool fast (extension) offset 3"),
    ("raid0", "0-EOF: 8 x 1M pool fast offset 3"),
])
def test_component_text_names_other_patterns(pattern, text):
    comp = {"start": 0, "end": -1, "stripe_count": 8, "stripe_size": M, "pool": "fast", "pattern": pattern,
            "stripe_offset": 3}
    assert component_text(comp) == text


def _comp(start, end, count=1, size=M, pool=""):
    return {"start": start, "end": end, "stripe_count": count, "stripe_size": size, "pool": pool, "pattern": "raid0",
            "stripe_offset": -1}


def test_layout_text_numbers_two_mirrors_and_joins_an_inherited_layout():
    two = {"is_set": True, "mirror_count": 2, "components": [_comp(0, 4 * M), _comp(4 * M, -1), _comp(0, -1, 2)]}
    assert layout_text(two) == "mirror 1: 0-4M: 1 x 1M\nmirror 1: 4M-EOF: 1 x 1M\nmirror 2: 0-EOF: 2 x 1M\n"
    inherited = {"is_set": False, "mirror_count": 1, "components": [_comp(0, 4 * M), _comp(4 * M, -1, -1)]}
    assert layout_text(inherited) == (
        "(no default layout; the file system default applies: 0-4M: 1 x 1M; 4M-EOF: all x 1M)\n")


def test_differences_in_component_count():
    current = {"is_set": True, "mirror_count": 1, "components": [_comp(0, 4 * M), _comp(4 * M, -1)]}
    desired = {"is_set": True, "mirror_count": 1, "components": [_comp(0, -1)]}
    assert differences(current, desired) == ["2 component(s) instead of 1"]


def test_self_extending_component_reads_as_pattern_extension():
    # SEL (Lustre 2.13+): the extension component's pattern is "extension", so it never equals a raid0 component
    text = ("  lcm_entry_count: 2\n"
            "    lcme_id: 1\n    lcme_flags: init\n    lcme_extent.e_start: 0\n    lcme_extent.e_end: 67108864\n"
            "      lmm_stripe_count: 1\n      lmm_stripe_size: 1048576\n      lmm_pattern: raid0\n"
            "    lcme_id: 2\n    lcme_flags: extension\n    lcme_extent.e_start: 67108864\n    lcme_extent.e_end: EOF\n"
            "      lmm_stripe_count: 0\n      lmm_extension_size: 67108864\n      lmm_pattern: raid0\n")
    assert [c["pattern"] for c in read_layout(text)["components"]] == ["raid0", "extension"]
