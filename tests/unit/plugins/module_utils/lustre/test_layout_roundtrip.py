# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Round trips: desired layout -> lfs setstripe argv -> what lfs getstripe -d prints -> the same layout.

The "lfs" here is a model: setstripe() reads the argv as lfs does (a component without -p takes the
previous component's pool, '-p none' clears it) and getstripe_d() prints a directory's default layout
with the printf formats of lov_dump_user_lmm_header() / lov_dump_comp_v1_entry() (liblustreapi.c),
plain and --yaml, as lfs 2.12+ prints them for 'lfs getstripe -d'.
"""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.layout import (
    desired_layout,
    layouts_equal,
    parse_size,
    read_layout,
    setstripe_argv,
)

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
