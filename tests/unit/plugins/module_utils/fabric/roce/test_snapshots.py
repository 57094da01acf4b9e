# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The snapshots a switch keeps: only the role's own names, each kind its newest `keep`."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce.snapshots import SnapshotError, beyond

D = "/etc/gpufleet/backup/"


def sonic(date, kind):
    return "%sconfig_db.%s.%s.json" % (D, date, kind)


def test_each_kind_keeps_its_newest():
    names = [sonic("20261129T050000Z", "running"), sonic("20261129T050000Z", "saved"),
             sonic("20261128T050000Z", "running"), sonic("20261127T050000Z", "running"),
             sonic("20261128T050000Z", "saved")]
    assert beyond(names, 2) == [sonic("20261127T050000Z", "running")]
    assert beyond(names, 1) == [sonic("20261127T050000Z", "running"), sonic("20261128T050000Z", "running"),
                                sonic("20261128T050000Z", "saved")]
    assert beyond(names, 3) == []


def test_eos_flash_listing_words():
    # The words of `dir flash:` on EOS 4.31: attributes, size, date and the name, among the switch's own files.
    listing = """Directory of flash:/

       -rwx   1007       Nov 28 05:00  gpufleet-roce-20261128T050000Z.cfg
       -rwx   1007       Nov 29 05:00  gpufleet-roce-20261129T050000Z.cfg
       -rwx   1007       Nov 27 05:00  gpufleet-roce-20261127T050000Z.cfg
       -rwx   2210       Nov 01 00:00  startup-config
       -rwx   1007       Nov 01 00:00  gpufleet-roce-manual.cfg

3957354496 bytes total (3150000000 bytes free)
"""
    assert beyond(listing.split(), 1) == ["gpufleet-roce-20261127T050000Z.cfg", "gpufleet-roce-20261128T050000Z.cfg"]


@pytest.mark.parametrize("name", ["startup-config", "config_db.json", "config_db.20261129T050000Z.json",
                                  "config_db.20261129T0500Z.running.json", "gpufleet-roce-20261129T050000Z.cfg.bak",
                                  "x-gpufleet-roce-20261129T050000Z.cfg", "config_db.20261129T050000Z.saved.json\n"])
def test_other_names_are_never_returned(name):
    assert beyond([name, name.replace("2026", "2025")], 1) == []


def test_two_directories_are_two_kinds():
    names = [sonic("20261129T050000Z", "running"), "/other/config_db.20261128T050000Z.running.json"]
    assert beyond(names, 1) == []


@pytest.mark.parametrize("names, keep, message", [
    ([], 0, r"^keep must be an integer in 1..100|^keep 0 is outside 1..100"),
    ([], True, r"^keep must be an integer in 1..100"),
    ("config_db.20261129T050000Z.running.json", 1, r"^names must be a list"),
    ([3], 1, r"^names\[0\] must be a file name or path"),
])
def test_refusals(names, keep, message):
    with pytest.raises(SnapshotError, match=message):
        beyond(names, keep)


@given(st.lists(st.integers(min_value=0, max_value=40), max_size=30), st.integers(min_value=1, max_value=10))
def test_the_newest_keep_survive(days, keep):
    names = ["gpufleet-roce-202611%02dT000000Z.cfg" % (day % 28 + 1) for day in days]
    gone = beyond(names, keep)
    kept = sorted(set(names) - set(gone))
    assert len(kept) == min(keep, len(set(names)))
    assert all(g < k for g in gone for k in kept)
