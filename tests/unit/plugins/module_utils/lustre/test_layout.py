# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""module_utils/lustre/layout.py: every recorded lfs getstripe output read with exact values, desired layouts, argv,
text; every refusal of desired_layout (plain and PFL components) and setstripe_argv word for word, the normalised
layout's defaults and its text (tests that kill the mutants `make mutation` found alive, docs/testing.md); and round
trips: desired layout -> lfs setstripe argv -> what lfs getstripe -d prints -> the same layout.

The "lfs" of the round trips is a model: setstripe() reads the argv as lfs does (a component without -p takes the
previous component's pool, '-p none' clears it) and getstripe_d() prints a directory's default layout with the printf
formats of lov_dump_user_lmm_header() / lov_dump_comp_v1_entry() (liblustreapi.c), plain and --yaml, as lfs 2.12+
prints them for 'lfs getstripe -d'.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings, strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.layout import (
    LayoutError,
    LayoutParseError,
    component_text,
    delete_argv,
    desired_layout,
    differences,
    layout_text,
    layouts_equal,
    parse_size,
    read_layout,
    setstripe_argv,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.layout_parse import parse_getstripe
from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.striping import pfl_layout

from reference import outputs


_LUSTRE = outputs("lustre")
M = 1048576


def _reference(name):
    with open(os.path.join(_LUSTRE, name)) as handle:
        return handle.read()


def _c(start, end, count, size, pool="", pattern="raid0", offset=-1):
    return {"start": start, "end": end, "stripe_count": count, "stripe_size": size, "pool": pool,
            "pattern": pattern, "stripe_offset": offset}


def _tuples(text):
    return [(c.comp_id, c.mirror_id, c.flags) for c in parse_getstripe(text).components]


# ---------------------------------------------------------------- the recorded outputs, one by one
def test_dir_plain_default_lustre_2_10():
    # "stripe_count:  1 stripe_size:   1048576 stripe_offset: -1": 2.10 prints no pattern for
    # directories, so whether the directory has its own layout cannot be told (is_set None).
    text = _reference("getstripe-d-dir-plain.lustre-manual.txt")
    parsed = parse_getstripe(text)
    assert parsed.path == "/mnt/testfs/pfldir" and parsed.composite is False
    assert read_layout(text) == {"is_set": None, "mirror_count": 1, "components": [_c(0, -1, 1, M)]}


def test_dir_composite_default():
    # ends 268435456 = 256M, 17179869184 = 16G; -1 stripes; 4194304 = 4M on the last component
    text = _reference("getstripe-dir-default-pfl.lustre-manual.txt")
    parsed = parse_getstripe(text)
    assert (parsed.path, parsed.composite, parsed.entry_count, parsed.layout_gen) == ("/mnt/testfs/pfldir", True, 3, 0)
    assert _tuples(text) == [("N/A", None, [])] * 3  # lcme_flags 0 = no flag
    assert read_layout(text) == {"is_set": True, "mirror_count": 1, "components": [
        _c(0, 256 * M, 1, M), _c(256 * M, 16384 * M, 4, M), _c(16384 * M, -1, -1, 4 * M)]}
    assert layout_text(read_layout(text)) == "0-256M: 1 x 1M\n256M-16G: 4 x 1M\n16G-EOF: all x 4M\n"


def test_yaml_plain_file():
    text = _reference("getstripe-yaml-plain.lustre-manual.txt")
    assert parse_getstripe(text).path == "/mnt/testfs/norm_to_comp"  # the l_fid line is skipped, not a key
    # lmm_pattern 1 is raid0 (2.10 printed the number); 131072 = 128K; offset = first object's OST 7
    assert read_layout(text) == {"is_set": True, "mirror_count": 1, "components": [_c(0, -1, 1, 131072, offset=7)]}


@pytest.mark.parametrize("name,path,count,offset", [
    ("getstripe-file-2stripes.csc-puhti.txt", "my_file", 2, 11),
    ("getstripe-file-4stripes.csc-puhti.txt", "experiments/new_file", 4, 6),
])
def test_plain_files_with_obdidx_table(name, path, count, offset):
    text = _reference(name)
    assert parse_getstripe(text).path == path
    assert read_layout(text) == {"is_set": True, "mirror_count": 1, "components": [_c(0, -1, count, M, offset=offset)]}


def test_pfl_partly_instantiated():
    # -E 4M -c 1 -E 64M -c 4 -E -1 -c -1 -i 4: only the first component has objects (flags init)
    text = _reference("getstripe-pfl-3comp-partly-instantiated.lustre-manual.txt")
    assert parse_getstripe(text).layout_gen == 3
    assert _tuples(text) == [("1", None, ["init"]), ("2", None, []), ("3", None, [])]
    assert read_layout(text)["components"] == [
        _c(0, 4 * M, 1, M, offset=0), _c(4 * M, 64 * M, 4, M), _c(64 * M, -1, -1, M, offset=4)]


def test_pfl_instantiated():
    text = _reference("getstripe-pfl-3comp-instantiated.lustre-manual.txt")
    assert parse_getstripe(text).layout_gen == 5
    assert [c[2] for c in _tuples(text)] == [["init"]] * 3
    # after 128 MB written the last component got 8 objects (all OSTs of that lab), starting on OST 4
    assert read_layout(text)["components"] == [
        _c(0, 4 * M, 1, M, offset=0), _c(4 * M, 64 * M, 4, M, offset=1), _c(64 * M, -1, 8, M, offset=4)]


def test_flr_three_mirrors_with_pools():
    text = _reference("getstripe-flr-3mirror-pfl.lustre-manual.txt")
    layout = read_layout(text)
    assert layout["mirror_count"] == 3 and len(layout["components"]) == 6
    # lcme_id = mirror_id << 16 | n: 65537 = 0x10001, 131075 = 0x20003, 196613 = 0x30005
    assert _tuples(text) == [("65537", "1", ["init", "prefer"]), ("65538", "1", ["prefer"]),
                             ("131075", "2", ["init", "prefer"]), ("131076", "2", []),
                             ("196613", "3", ["init"]), ("196614", "3", [])]
    assert layout["components"] == [
        _c(0, 4 * M, 1, M, "flash", offset=1), _c(4 * M, -1, 2, M, "flash"),
        _c(0, 16 * M, 4, 8 * M, "archive", offset=4), _c(16 * M, -1, 6, 8 * M, "archive"),
        _c(0, 32 * M, 1, 8 * M, offset=0), _c(32 * M, -1, -1, 8 * M)]
    assert layout_text(layout).splitlines()[2] == "mirror 2: 0-16M: 4 x 8M pool archive offset 4"
    # a mirrored layout is never the desired one (the module sets one mirror)
    assert differences(layout, desired_layout(1, "1M")) == ["3 mirror(s) instead of 1"]


def test_data_on_mdt():
    text = _reference("getstripe-dom-2comp.lustre-manual.txt")
    layout = read_layout(text)
    # the DoM component prints lmm_stripe_count 0 and lmm_pattern mdt; 1048576 = 1M on the MDT
    assert layout["components"] == [_c(0, M, 0, M, pattern="mdt", offset=2), _c(M, -1, 2, 4 * M, offset=0)]
    assert layout_text(layout) == "0-1M: mdt x 1M offset 2\n1M-EOF: 2 x 4M offset 0\n"


def test_composite_with_compression_fields():
    text = _reference("getstripe-composite-compress.csc-roihu.txt")
    parsed = parse_getstripe(text)
    assert (parsed.mirror_count, parsed.entry_count, parsed.layout_gen) == (1, 1, 1)
    assert _tuples(text) == [("1", "0", ["init", "compress"])]
    # lcme_compr_* lines are not layout parameters; the pattern keeps its compress flag so it never
    # equals a plain raid0 desired layout
    assert read_layout(text)["components"] == [_c(0, -1, 1, 4 * M, pattern="raid0,compress", offset=0)]


# ---------------------------------------------------------------- formats only described (docs/lfs-stripe.md)
def test_modern_dir_outputs():
    # SYNTHETIC (no recording of this format in tests/fixtures/reference): lfs 2.12+ -d on a directory: no path line,
    # pattern printed; the pool follows the offset
    plain = "stripe_count:  4 stripe_size:   4194304 pattern:       raid0 stripe_offset: -1 pool:          flash\n\n"
    assert read_layout(plain) == {"is_set": True, "mirror_count": 1, "components": [_c(0, -1, 4, 4 * M, "flash")]}
    # no default layout: lfs fakes one with the file system's count and size and pattern 0
    unset = "stripe_count:  1 stripe_size:   1048576 pattern:       0 stripe_offset: -1\n\n"
    assert read_layout(unset) == {"is_set": False, "mirror_count": 1, "components": [_c(0, -1, 1, M)]}
    assert layout_text(read_layout(unset)) == "(no default layout; the file system default applies: 0-EOF: 1 x 1M)\n"


@pytest.mark.parametrize("text,why", [
    ("", "no layout in the lfs getstripe output (it is empty)"),
    ("/mnt/lustre/dir\n", "no layout in the lfs getstripe output (only the line '/mnt/lustre/dir')"),
    ("  lcm_layout_gen:  0\n  lcm_entry_count: 2\n    lcme_id:             N/A\n    lcme_extent.e_start: 0\n"
     "    lcme_extent.e_end:   EOF\n      stripe_count:  1 stripe_size:   1048576\n",
     "lcm_entry_count is 2 but 1 component(s) follow"),
    ("stripe_count:  1 stripe_size:   1048576\nstripe_count:  2 stripe_size:   1048576\n", "more than one layout"),
    ("stripe_count:  x stripe_size:   1048576\n", "stripe_count is 'x', not an integer"),
    ("stripe_count:  1 stripe_offset: -1\n", "has no stripe_size"),
    ("stripe_count:  1\nerror: something odd\n", "is not a 'key: value' line"),
])
def test_unreadable_output(text, why):
    with pytest.raises(LayoutParseError, match=why.replace("(", r"\(").replace(")", r"\)")):
        read_layout(text)


# ---------------------------------------------------------------- sizes
@pytest.mark.parametrize("value,expected", [
    (4194304, 4194304), ("4194304", 4194304), ("1M", M), ("64K", 65536), ("64k", 65536), ("1G", 1024 * M),
    ("2T", 2 * 1024 ** 4), ("1MiB", M), (0, 0),
])
def test_parse_size(value, expected):
    assert parse_size(value, "size") == expected


@pytest.mark.parametrize("value", ["EOF", "eof", "-1", -1])
def test_parse_size_eof(value):
    assert parse_size(value, "end", eof=True) == -1
    if value != "-1" and value != -1:
        with pytest.raises(LayoutError, match="is not a size"):
            parse_size(value, "end")


@pytest.mark.parametrize("value,why", [
    ("1.5M", "is not a size"), (True, "a boolean"), (-5, "sizes are bytes >= 0"), (1.0, "must be an integer"),
])
def test_parse_size_refuses(value, why):
    with pytest.raises(LayoutError, match=why):
        parse_size(value, "stripe_size")


# ---------------------------------------------------------------- desired layouts
def test_desired_plain_and_filter_components():
    assert desired_layout(8, "4M", "flash") == {
        "is_set": True, "mirror_count": 1, "components": [_c(0, -1, 8, 4 * M, "flash")]}
    # the lustre_pfl_layout filter's components go in as they are (start keys, -1 end, bytes)
    sizes = {"p50_bytes": 10485760, "p90_bytes": 524288000, "max_bytes": 53687091200}
    comps = pfl_layout(sizes, 8)["components"]
    assert desired_layout(components=comps)["components"] == [
        _c(0, 64 * M, 1, M), _c(64 * M, 1024 * M, 4, M), _c(1024 * M, -1, 8, 4 * M)]
    mixed = [{"end": "64M", "stripe_count": 1, "stripe_size": "1M"}, {"end": "eof", "stripe_count": -1,
                                                                      "stripe_size": 4194304, "pool": "none"}]
    assert desired_layout(components=mixed)["components"] == [_c(0, 64 * M, 1, M), _c(64 * M, -1, -1, 4 * M)]
    # a top-level pool (the lustre_client role passes {components, pool}) fills components without their own
    assert [c["pool"] for c in desired_layout(components=mixed, pool="flash")["components"]] == ["flash", ""]
    assert [c["pool"] for c in desired_layout(components=comps, pool="hdd")["components"]] == ["hdd"] * 3


@pytest.mark.parametrize("kwargs,why", [
    ({"stripe_count": 4, "stripe_size": "1000K"}, "stripe_size 1024000 bytes is not a multiple of 64 KiB "
                                                  r"\(65536\); lfs refuses it, use 960K or 1M"),
    ({"stripe_count": 4, "stripe_size": "4G"}, "is not below 4 GiB; lfs accepts at most 4294901760"),
    ({"stripe_count": 0, "stripe_size": "1M"}, "stripe_count is 0, which lfs reads as 'the file system default'"),
    ({"stripe_count": -2, "stripe_size": "1M"}, r"stripe_count is -2; lfs accepts -1 \(all OSTs\) or 1..2000"),
    ({"stripe_count": 2001, "stripe_size": "1M"}, "stripe_count is 2001, above Lustre's limit of 2000"),
    ({"stripe_count": 4, "stripe_size": 0}, "stripe_size is 0"),
    ({"stripe_count": 4}, "a plain layout needs both stripe_count and stripe_size"),
    ({"stripe_count": 4, "stripe_size": "1M", "pool": "lustre.flash"}, "without the 'fsname.' prefix"),
    ({"stripe_count": 4, "stripe_size": "1M", "pool": "a_pool_name_too_long"}, "1-15 letters"),
    ({"components": [], "stripe_count": 1}, "give either components or stripe_count/stripe_size, not both"),
    ({"components": []}, "components is empty"),
    ({"components": [{"end": "64M", "stripe_count": 1, "stripe_size": "1M"}]},
     r"the last component ends at 67108864 \(64M\), not at eof"),
    ({"components": [{"end": "64M", "stripe_count": 1, "stripe_size": "1M"},
                     {"end": "32M", "stripe_count": 2, "stripe_size": "1M"},
                     {"end": "eof", "stripe_count": 4, "stripe_size": "1M"}]},
     r"components\[1\].end 33554432 is not above its start 67108864; extent ends must increase"),
    ({"components": [{"end": "6M", "stripe_count": 1, "stripe_size": "4M"},
                     {"end": -1, "stripe_count": 2, "stripe_size": "4M"}]},
     r"components\[0\].end 6291456 \(6M\) is not a multiple of its stripe_size 4M; lfs refuses it, use 8M"),
    ({"components": [{"end": -1, "stripe_count": 1, "stripe_size": "1M"},
                     {"end": -1, "stripe_count": 1, "stripe_size": "1M"}]},
     "follows a component that already ends at eof"),
    ({"components": [{"start": 0, "end": "64M", "stripe_count": 1, "stripe_size": "1M"},
                     {"start": "32M", "end": -1, "stripe_count": 1, "stripe_size": "1M"}]},
     r"components\[1\].start is 33554432 but the previous component ends at 67108864"),
    ({"components": [{"end": -1, "stripe_count": 1}]}, r"components\[0\] lacks stripe_size"),
    ({"components": [{"end": -1, "stripe_count": 1, "stripe_size": "1M", "offset": 3}]}, "unknown key"),
    ({"components": {"end": -1}}, "components must be a list"),
])
def test_desired_refusals(kwargs, why):
    with pytest.raises(LayoutError, match=why):
        desired_layout(**kwargs)


# ---------------------------------------------------------------- equality
def test_equality_is_exact_for_what_was_given():
    pfl = read_layout(_reference("getstripe-dir-default-pfl.lustre-manual.txt"))
    want = desired_layout(components=[{"end": "256M", "stripe_count": 1, "stripe_size": "1M"},
                                      {"end": "16G", "stripe_count": 4, "stripe_size": 1048576},
                                      {"end": "eof", "stripe_count": -1, "stripe_size": "4M"}])
    assert layouts_equal(pfl, want)
    other = desired_layout(components=[{"end": "256M", "stripe_count": 1, "stripe_size": "1M", "pool": "flash"},
                                       {"end": "16G", "stripe_count": 4, "stripe_size": "1M"},
                                       {"end": "eof", "stripe_count": 8, "stripe_size": "4M"}])
    assert differences(pfl, other) == ["component 0 pool '' instead of 'flash'",
                                       "component 2 stripe_count -1 instead of 8"]
    # 2.10's plain -d output cannot say whether the layout is the directory's own: values decide
    old = read_layout(_reference("getstripe-d-dir-plain.lustre-manual.txt"))
    assert layouts_equal(old, desired_layout(1, "1M")) and not layouts_equal(old, desired_layout(1, "4M"))
    unset = read_layout("stripe_count:  1 stripe_size:   1048576 pattern:       0 stripe_offset: -1\n")
    assert differences(unset, desired_layout(1, "1M")) == [
        "the directory has no default layout of its own (it inherits the file system default)"]
    # a plain layout and a one-component composite covering 0..EOF are the same placement
    assert layouts_equal(read_layout("stripe_count:  2 stripe_size:   1048576 pattern:       raid0 "
                                     "stripe_offset: -1\n"),
                         desired_layout(components=[{"end": "eof", "stripe_count": 2, "stripe_size": "1M"}]))


# ---------------------------------------------------------------- argv
def test_setstripe_argv():
    assert setstripe_argv("lfs", desired_layout(8, "4194304", "flash"), "/l/d", False) == [
        "lfs", "setstripe", "-c", "8", "-S", "4M", "-p", "flash", "/l/d"]
    assert setstripe_argv("lfs", desired_layout(-1, "1M"), "/l/d", False) == [
        "lfs", "setstripe", "-c", "-1", "-S", "1M", "/l/d"]
    pfl = desired_layout(components=[{"end": "64M", "stripe_count": 1, "stripe_size": "1M", "pool": "flash"},
                                     {"end": "1G", "stripe_count": 4, "stripe_size": "1M"},
                                     {"end": "eof", "stripe_count": -1, "stripe_size": "4M", "pool": "hdd"}])
    # the second component has no pool after one with a pool: -p none, or lfs copies 'flash' over
    assert setstripe_argv("/usr/bin/lfs", pfl, "/l/d", True) == [
        "/usr/bin/lfs", "setstripe", "-E", "64M", "-c", "1", "-S", "1M", "-p", "flash",
        "-E", "1G", "-c", "4", "-S", "1M", "-p", "none", "-E", "-1", "-c", "-1", "-S", "4M", "-p", "hdd", "/l/d"]
    assert delete_argv("lfs", "/l/d") == ["lfs", "setstripe", "-d", "/l/d"]
    with pytest.raises(LayoutError, match="a plain layout is one component"):
        setstripe_argv("lfs", pfl, "/l/d", False)


def test_layout_text():
    assert layout_text(desired_layout(-1, "4M", "flash")) == "0-EOF: all x 4M pool flash\n"
    assert layout_text({"is_set": False, "mirror_count": 1, "components": []}) == "(no default layout)\n"
    assert layout_text(None) == "(no default layout)\n"


# ---------------------------------------------------------------- refusals word for word, defaults and text

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


# ---------------------------------------------------------------- round trips through a model of lfs setstripe and lfs getstripe -d

K64 = 65536


def setstripe(argv):
    """Components [(end, count, size, pool)] that 'lfs setstripe ARGS DIR' stores as DIR's default."""
    args = argv[2:-1]
    comps, current = [], None
    i = 0
    while i < len(args):
        flag, value = args[i], args[i + 1]
        if flag == "-E":
            pool = comps[-1]["pool"] if comps else ""
            current = {"end": parse_size(value, "end", eof=True), "count": None, "size": None, "pool": pool}
            comps.append(current)
        else:
            if current is None:  # plain layout
                current = {"end": -1, "count": None, "size": None, "pool": ""}
                comps.append(current)
            key = {"-c": "count", "-S": "size", "-p": "pool"}[flag]
            current[key] = int(value) if key == "count" else parse_size(value, "size") if key == "size" else value
            if key == "pool" and value == "none":
                current["pool"] = ""
        i += 2
    return comps, "-E" in args


def getstripe_d(comps, composite, yaml):
    """Text of 'lfs getstripe -d [--yaml] DIR' for a directory default layout."""
    def sub(comp, indent):
        fields = ["%sstripe_count:  %d" % (indent, comp["count"]), "%sstripe_size:   %d" % (indent, comp["size"]),
                  "%spattern:       raid0" % indent, "%sstripe_offset: -1" % indent]
        if comp["pool"]:
            fields.append("%spool:          %s" % (indent, comp["pool"]))
        return ("\n" if yaml else " ").join(fields) + "\n\n"

    if not composite:
        return sub(comps[0], "")
    out = "  lcm_layout_gen:    0\n  lcm_mirror_count:  1\n  lcm_entry_count:   %d\n" % len(comps)
    start = 0
    for index, comp in enumerate(comps):
        if yaml:
            out += "  component%d:\n" % index
        out += ("    lcme_id:             N/A\n    lcme_mirror_id:      N/A\n    lcme_flags:          0\n"
                "    lcme_extent.e_start: %d\n    lcme_extent.e_end:   %s\n"
                % (start, "EOF" if comp["end"] == -1 else comp["end"]))
        if yaml:
            out += "    sub_layout:\n"
        out += sub(comp, "      ")
        start = comp["end"]
    return out


def test_model_prints_the_recorded_2_10_composite_format_plus_newer_fields():
    # The recorded 2.10 capture has the same lines minus lcm_mirror_count, lcme_mirror_id and pattern.
    text = getstripe_d([{"end": 268435456, "count": 1, "size": 1048576, "pool": ""},
                        {"end": -1, "count": -1, "size": 4194304, "pool": ""}], True, False)
    assert text.splitlines()[8] == ("      stripe_count:  1       stripe_size:   1048576       pattern:       raid0"
                                    "       stripe_offset: -1")
    assert read_layout(text)["components"][1]["start"] == 268435456


_SIZES = st.integers(1, 64).map(lambda k: k * K64) | st.sampled_from([1048576, 4194304, 16777216, 4294901760])
_COUNTS = st.sampled_from([-1, 1, 2, 4, 8, 16, 2000]) | st.integers(1, 2000)
_POOLS = st.sampled_from(["", "", "flash", "hdd_pool", "nvme-0"])


@st.composite
def _components(draw):
    n = draw(st.integers(1, 4))
    comps, end = [], 0
    for index in range(n):
        size = draw(_SIZES)
        comp = {"stripe_count": draw(_COUNTS), "stripe_size": draw(st.sampled_from([size, _human(size)])),
                "pool": draw(_POOLS)}
        if index == n - 1:
            comp["end"] = draw(st.sampled_from([-1, "eof", "EOF", "-1"]))
        else:
            end = (end // size + draw(st.integers(1, 64))) * size  # above start, a multiple of the stripe size
            comp["end"] = draw(st.sampled_from([end, _human(end)]))
        comps.append(comp)
    return comps


def _human(num_bytes):
    for suffix, factor in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if num_bytes % factor == 0:
            return "%d%s" % (num_bytes // factor, suffix)
    return str(num_bytes)


@settings(max_examples=200, deadline=None)
@given(_components(), st.booleans())
def test_pfl_round_trip(comps, yaml):
    want = desired_layout(components=comps)
    argv = setstripe_argv("lfs", want, "/lustre/dir", True)
    stored, composite = setstripe(argv)
    got = read_layout(getstripe_d(stored, composite, yaml))
    assert got == want and layouts_equal(got, want)


@settings(max_examples=200, deadline=None)
@given(_COUNTS, _SIZES, _POOLS, st.booleans())
def test_plain_round_trip(count, size, pool, yaml):
    want = desired_layout(count, _human(size), pool)
    argv = setstripe_argv("lfs", want, "/lustre/dir", False)
    stored, composite = setstripe(argv)
    assert composite is False
    got = read_layout(getstripe_d(stored, composite, yaml))
    assert got == want


@settings(max_examples=100, deadline=None)
@given(_components())
def test_pool_is_never_carried_over_by_lfs(comps):
    # Without '-p none' lfs would copy a pool onto the next component; the argv prevents it.
    want = desired_layout(components=comps)
    stored, _out = setstripe(setstripe_argv("lfs", want, "/d", True))
    assert [c["pool"] for c in stored] == [c["pool"] for c in want["components"]]
