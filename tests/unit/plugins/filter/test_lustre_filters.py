# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The lustre_stripe_count, lustre_stripe_plan and lustre_pfl_layout filters."""
from __future__ import annotations

import os

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import lustre_pfl_layout as pfl_plugin
from ansible_collections.gpufleet.cluster.plugins.filter import lustre_stripe_count as count_plugin
from ansible_collections.gpufleet.cluster.plugins.filter import lustre_stripe_plan as plan_plugin
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_pfl_layout import lustre_pfl_layout
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_stripe_count import lustre_stripe_count
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_stripe_plan import lustre_stripe_plan
from reference import outputs

_LUSTRE = outputs("lustre")
GIB = 1024 ** 3
TEN_TIB_KIB = 10 * 1024 ** 3


def _reference(name):
    with open(os.path.join(_LUSTRE, name)) as handle:
        return handle.read()


def test_filters_are_registered():
    assert count_plugin.FilterModule().filters() == {"lustre_stripe_count": lustre_stripe_count}
    assert plan_plugin.FilterModule().filters() == {"lustre_stripe_plan": lustre_stripe_plan}
    assert pfl_plugin.FilterModule().filters() == {"lustre_pfl_layout": lustre_pfl_layout}


# ---------------------------------------------------------------- lustre_stripe_count
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


# ---------------------------------------------------------------- lustre_stripe_plan
def test_stripe_plan_reference_design():
    plan = lustre_stripe_plan(8, ost_bw_gbs=10.0, clients=64, client_bw_gbs=1.5)
    assert (plan["stripe_count"], plan["stripe_size"], plan["aggregate_gbs"], plan["limiting_factor"]) == (
        8, 1048576, 80.0, "ost_bandwidth")


def test_stripe_plan_file_per_process():
    plan = lustre_stripe_plan(8, ost_bw_gbs=5.0, clients=3, client_bw_gbs=2.0, pattern="file_per_process")
    assert plan["stripe_count"] == 3 and plan["lfs_setstripe_args"] == ["-c", "3", "-S", "1M"]


@pytest.mark.parametrize("kwargs, message", [
    ({"clients": 64, "client_bw_gbs": 1.5}, r"missing required option\(s\) ost_bw_gbs"),
    ({"ost_bw_gbs": 1.0, "clients": 64, "client_bw_gbs": 1.5, "stripe_count": 16},
     r"stripe_count 16 asks for more stripes than the 8 OSTs"),
    ({"ost_bw_gbs": 1.0, "clients": 64, "client_bw_gbs": 1.5, "stripe_size": 100000},
     r"not a multiple of 64 KiB"),
    ({"ost_bw_gbs": 1.0, "clients": 64, "client_bw_gbs": 1.5, "pattern": 3}, r"pattern must be a string"),
])
def test_stripe_plan_errors(kwargs, message):
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.lustre_stripe_plan: .*" + message):
        lustre_stripe_plan(8, **kwargs)


# ---------------------------------------------------------------- lustre_pfl_layout
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
