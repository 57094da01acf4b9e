# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The lustre_stripe_count filter: lfs_migrate --auto-stripe's count from OST space or lfs df output,
errors under the filter's name, an error when every OST is full (issue 13), wrong types."""
from __future__ import annotations

import copy
import os

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import lustre_stripe_count as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_stripe_count import lustre_stripe_count
from filter_docs import assert_documented
from filter_refusals import refused_with
from reference import outputs
from wrong_types import assert_only_refusals


_LUSTRE = outputs("lustre")
GIB = 1024 ** 3
TEN_TIB_KIB = 10 * 1024 ** 3


def _reference(name):
    with open(os.path.join(_LUSTRE, name)) as handle:
        return handle.read()


def test_registered_and_documented():
    assert_documented(plugin, "lustre_stripe_count")


def test_stripe_count_doc_example():
    # 50 GiB: size_gib 50, 1 + isqrt(50) = 8
    assert lustre_stripe_count(50 * GIB, ost_avail_kib=[TEN_TIB_KIB] * 8) == 8


def test_stripe_count_kib_rounding():
    # 1 GiB - 1 byte: lfs_migrate's integer division gives 1048575 KiB (size_gib 0) -> 1 stripe;
    # rounding up gives 1048576 KiB = 1 GiB -> 1 + isqrt(1) = 2
    assert lustre_stripe_count(GIB - 1, ost_avail_kib=[TEN_TIB_KIB] * 8) == 1
    assert lustre_stripe_count(GIB - 1, ost_avail_kib=[TEN_TIB_KIB] * 8, round_up=True) == 2


def test_stripe_count_from_lfs_df_text():
    text = _reference("lfs-df-4fs.nersc-cray.txt")
    # /scratch2, 24 OSTs: 1 TiB -> 33 -> 24
    assert lustre_stripe_count(1024 * GIB, lfs_df=text, mount="/scratch2") == 24
    # inactive OSTs in -h output: 4 active, 100 MiB -> cap rule gives 4
    assert lustre_stripe_count(100 * 1024 * 1024, lfs_df=_reference("lfs-df-h-inactive-osts.iml-vagrant.txt")) == 4


def test_stripe_count_no_eligible_ost_and_options():
    with pytest.raises(AnsibleFilterError, match=r"lustre_stripe_count: no OST is eligible: none of the 2 OST\(s\) has "
                                                 r"min_free_kib=262144 KiB available \(the most any active OST has is "
                                                 r"1000 KiB; 1 inactive\)"):
        lustre_stripe_count(GIB, ost_avail_kib=[1000, None])
    # -X 1 GiB on 16 x 10 TiB: cap 10485 KiB, 100 MiB -> 10
    assert lustre_stripe_count(100 * 1024 * 1024, ost_avail_kib=[TEN_TIB_KIB] * 16, max_free_kib=1048576) == 10


@pytest.mark.parametrize("value, kwargs, message", [
    (-1, {"ost_avail_kib": [1]}, r"input must be a file size in bytes \(an integer >= 0\), got -1 of type int"),
    ("1G", {"ost_avail_kib": [1]}, r"got '1G' of type str"),
    (1, {}, r"give exactly one of ost_avail_kib"),
    (1, {"ost_avail_kib": [1], "lfs_df": "x"}, r"give exactly one of ost_avail_kib"),
    (1, {"ost_avail_kib": []}, r"ost_avail_kib is empty"),
    (1, {"ost_avail_kib": [1], "mount": "/x"}, r"mount only applies together with lfs_df"),
    (1, {"ost_avail_kib": [1], "round_up": "yes"}, r"round_up must be true or false"),
    (1, {"ost_avail_kib": [TEN_TIB_KIB], "cap": 0}, r"cap is 0, below the minimum of 1"),
    (1, {"lfs_df": 5}, r"lfs_df must be the text output of 'lfs df'"),
])
def test_stripe_count_errors(value, kwargs, message):
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.lustre_stripe_count: .*" + message):
        lustre_stripe_count(value, **kwargs)


def test_stripe_count_needs_mount_for_several_filesystems():
    with pytest.raises(AnsibleFilterError, match=r"covers 4 file systems"):
        lustre_stripe_count(GIB, lfs_df=_reference("lfs-df-4fs.nersc-cray.txt"))


# ---------------------------------------------------------------- issue 13: refused naming field, value and rule
def test_stripe_count_with_every_ost_full_is_an_error():
    # was: -1 (all OSTs)
    refused_with(lambda: lustre_stripe_count(50 * 2 ** 30, ost_avail_kib=[0, 0, 0, 0]),
                 "gpufleet.cluster.lustre_stripe_count", "no OST is eligible", "none of the 4 OST(s) has "
                 "min_free_kib=262144 KiB available", "the most any active OST has is 0 KiB")


# ------------------------------------------------------------------ wrong types: refused by a check, nothing else
VALID = [53687091200]
VALID_KWARGS = {"ost_avail_kib": [10737418240] * 8, "cap": 100, "min_free_kib": 262144,
                "max_free_kib": 10737418240, "round_up": False}


def test_valid_call_works():
    assert lustre_stripe_count(*copy.deepcopy(VALID), **copy.deepcopy(VALID_KWARGS)) is not None


def test_wrong_types_and_missing_keys_are_refused():
    assert_only_refusals('lustre_stripe_count', lustre_stripe_count, VALID, VALID_KWARGS)
