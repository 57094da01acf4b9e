# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""module_utils/lustre/layout_parse.py: every refusal of parse_getstripe word for word (line number, field, value),
numbers lfs prints in hex or as 2**64 - 1, the `(Default)` prefix of `-v`, quoted and empty values, self-extending
components, and YAML components opened by their `componentN:` label (tests that kill the mutants `make mutation`
found alive, docs/testing.md). Texts marked SYNTHETIC follow the printf formats described in docs/lfs-stripe.md; the
recorded outputs are read in test_layout.py."""

from __future__ import annotations

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.layout_parse import (
    LayoutParseError,
    parse_getstripe,
)


M = 1048576
COMPOSITE = ("  lcm_layout_gen:  0\n  lcm_entry_count: 1\n    lcme_id:             N/A\n    lcme_flags:          0\n"
             "    lcme_extent.e_start: 0\n")


def _refusal(text):
    with pytest.raises(LayoutParseError) as caught:
        parse_getstripe(text)
    return str(caught.value)


@pytest.mark.parametrize("text,message", [
    (7, "lfs getstripe output must be text, got 7 of type int"),
    ("", "no layout in the lfs getstripe output (it is empty)"),
    ("/mnt/lustre/dir\n", "no layout in the lfs getstripe output (only the line '/mnt/lustre/dir')"),
    ("stripe_count:  1\nerror: something odd\n", "line 2 'error: something odd' is not a 'key: value' line of lfs getstripe"),
    ("stripe_count:  1 colour: blue\n", "line 1: unexpected key 'colour' in lfs getstripe output"),
    ("stripe_count:  x stripe_size:   1048576\n", "line 1: stripe_count is 'x', not an integer"),
    ("lcm_entry_count: two\n", "line 1: lcm_entry_count is 'two', not an integer"),
    ("  lcm_layout_gen:  0\n    lcme_flags:          0\n", "line 2: lcme_flags comes before any lcme_id"),
    ("  lcm_layout_gen:  0\n      stripe_count:  1\n", "line 2: stripe_count comes before any component"),
    (COMPOSITE.replace("e_start: 0", "e_start: zero"), "line 5: lcme_extent.e_start is 'zero', not an integer"),
    (COMPOSITE + "    lcme_extent.e_end:   end\n", "line 6: lcme_extent.e_end is 'end', not an integer"),
    ("stripe_count:  1 stripe_size:   1048576\n\nstripe_count:  2 stripe_size:   1048576\n",
     "line 3: a second stripe_count: the output holds more than one layout; run lfs getstripe -d on one directory"),
    ("stripe_count:  1 stripe_size:   1048576\n" + COMPOSITE,
     "the output mixes a plain and a composite layout; run lfs getstripe -d on one directory"),
    (COMPOSITE.replace("entry_count: 1", "entry_count: 2") + "    lcme_extent.e_end:   EOF\n      stripe_count: 1 stripe_size: 1048576\n",
     "lcm_entry_count is 2 but 1 component(s) follow; the output is cut short"),
    # the first component ends at 4 MiB (its extent is printed as bytes), the second at EOF
    ("  lcm_entry_count: 2\n    lcme_id: 1\n    lcme_extent.e_start: 0\n    lcme_extent.e_end: 4194304\n"
     "      lmm_stripe_count: 1\n    lcme_id: 2\n    lcme_extent.e_start: 4194304\n    lcme_extent.e_end: EOF\n",
     "component 0 (0-4194304) has no stripe_size in the lfs getstripe output"),
    (COMPOSITE + "    lcme_extent.e_end:   EOF\n      pattern: raid0\n",
     "component 0 (0-EOF) has no stripe_count or stripe_size in the lfs getstripe output"),
])
def test_each_refusal_word_for_word(text, message):
    assert _refusal(text) == message


@pytest.mark.parametrize("printed,value", [("0x10", 16), ("0X10", 16), ("-0x1", -1), ("4", 4), ("-1", -1),
                                           ("08", 8)])
def test_integers_lfs_prints_in_hex_or_decimal(printed, value):
    # lfs prints unsupported patterns and some generations in hex; int(x, 0) would refuse "08", so hex only
    parsed = parse_getstripe("stripe_count:  %s stripe_size:   1048576 stripe_offset: %s\n" % (printed, printed))
    assert (parsed.components[0].stripe_count, parsed.components[0].stripe_offset) == (value, value)


@pytest.mark.parametrize("printed,end", [("EOF", -1), ("eof", -1), ("18446744073709551615", -1), ("-1", -1),
                                         ("268435456", 268435456)])
def test_extent_end_eof_spellings(printed, end):
    # LUSTRE_EOF = 2**64 - 1 is EOF whether lfs prints it as "EOF" or as the number
    text = COMPOSITE + "    lcme_extent.e_end:   %s\n      stripe_count: 2 stripe_size: 1048576\n" % printed
    assert parse_getstripe(text).components[0].end == end


def test_verbose_default_prefix_is_dropped():
    # SYNTHETIC: `lfs getstripe -d -v` marks the default layout "(Default)"
    parsed = parse_getstripe("/mnt/lustre/dir\n(Default) stripe_count:  4 stripe_size:   4194304 stripe_offset: -1\n")
    assert parsed.path == "/mnt/lustre/dir"
    assert (parsed.components[0].stripe_count, parsed.components[0].stripe_size) == (4, 4 * M)


def test_quoted_empty_and_x_values():
    # a quoted pool loses its quotes (and only them: a pool may contain X); a field with no value is ""
    parsed = parse_getstripe("stripe_count:  1 stripe_size:   1048576 pool: 'XflashX'\n")
    assert parsed.components[0].pool == "XflashX"
    assert parse_getstripe("stripe_count:  1 stripe_size:   1048576 pool:\n").components[0].pool == ""


def test_empty_flags_are_no_flags():
    text = COMPOSITE.replace("lcme_flags:          0", "lcme_flags:") + (
        "    lcme_extent.e_end:   EOF\n      stripe_count: 1 stripe_size: 1048576\n")
    assert parse_getstripe(text).components[0].flags == []


def test_pool_printed_twice_is_one_layout():
    # the pool is the one field a plain layout may print twice (lmm_pool and pool); the last one counts
    parsed = parse_getstripe("stripe_count:  1 stripe_size:   1048576 pool: flash\npool: flash\n")
    assert [c.pool for c in parsed.components] == ["flash"]


def test_a_skipped_key_does_not_hide_the_keys_after_it():
    # SYNTHETIC: layout_gen (-g) between the other fields of a directory's one-line layout
    parsed = parse_getstripe("stripe_count:  2 stripe_size:   1048576 layout_gen: 3 stripe_offset: 5 pool: fast\n")
    comp = parsed.components[0]
    assert (comp.stripe_count, comp.stripe_size, comp.stripe_offset, comp.pool) == (2, M, 5, "fast")


def test_self_extending_component_takes_its_extension_size():
    # SEL (Lustre 2.13+): an extension component prints extension_size instead of stripe_size
    text = ("  lcm_entry_count: 2\n"
            "    lcme_id: 1\n    lcme_flags: init\n    lcme_extent.e_start: 0\n    lcme_extent.e_end: 67108864\n"
            "      lmm_stripe_count: 1\n      lmm_stripe_size: 1048576\n"
            "    lcme_id: 2\n    lcme_flags: extension\n    lcme_extent.e_start: 67108864\n    lcme_extent.e_end: EOF\n"
            "      lmm_stripe_count: 0\n      lmm_extension_size: 67108864\n")
    first, second = parse_getstripe(text).components
    assert (first.flags, first.stripe_size, first.extension_size) == (["init"], M, None)
    assert (second.flags, second.stripe_size, second.extension_size) == (["extension"], 64 * M, 64 * M)


def test_extension_flag_keeps_a_printed_stripe_size():
    text = COMPOSITE.replace("lcme_flags:          0", "lcme_flags: extension") + (
        "    lcme_extent.e_end:   EOF\n      stripe_count: 1 stripe_size: 1048576 extension_size: 67108864\n")
    assert parse_getstripe(text).components[0].stripe_size == M


def test_yaml_component_labels_open_components_without_lcme_id():
    # SYNTHETIC: `--yaml` with only extents and sizes asked for prints componentN: labels and no lcme_id
    text = ("component0:\n  lcme_extent.e_start: 0\n  lcme_extent.e_end: 4194304\n  sub_layout:\n"
            "    stripe_count: 1\n    stripe_size: 1048576\n"
            "component1:\n  lcme_extent.e_start: 4194304\n  lcme_extent.e_end: EOF\n  sub_layout:\n"
            "    stripe_count: -1\n    stripe_size: 4194304\n")
    parsed = parse_getstripe(text)
    assert parsed.composite is True
    assert [(c.comp_id, c.start, c.end, c.stripe_count, c.stripe_size) for c in parsed.components] == [
        (None, 0, 4 * M, 1, M), (None, 4 * M, -1, -1, 4 * M)]


def test_object_lines_in_braces_are_skipped():
    # SYNTHETIC: an object line printed without its "- N:" prefix is an object, not a key: value line
    text = ("lmm_stripe_count:  1\nlmm_stripe_size:   1048576\nlmm_objects:\n"
            "{ l_ost_idx: 0, l_fid: [0x100000000:0x2:0x0] }\n")
    comp = parse_getstripe(text).components[0]
    assert (comp.stripe_count, comp.stripe_size) == (1, M)
