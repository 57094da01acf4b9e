# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""lustre_layout: every recorded lfs getstripe output read with exact values, desired layouts, argv, text."""
from __future__ import annotations

import os

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.layout import (
    LayoutError,
    LayoutParseError,
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
