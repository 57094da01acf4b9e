# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The lustre_stripe_plan filter: stripe count and size for a shared file or file-per-process pattern, its
default stripe size, errors under the filter's name, huge values refused with a range (issue 13), wrong types."""
from __future__ import annotations

import copy
import inspect

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import lustre_stripe_plan as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_stripe_plan import lustre_stripe_plan
from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.striping import DEFAULT_STRIPE_SIZE
from filter_docs import assert_documented
from filter_refusals import refused_with
from wrong_types import assert_only_refusals


def test_registered_and_documented():
    assert_documented(plugin, "lustre_stripe_plan")


def test_default_stripe_size_is_stripings():
    # Written out in the signature: the filter file imports no module_utils up front (docs/performance.md).
    assert inspect.signature(lustre_stripe_plan).parameters["stripe_size"].default == DEFAULT_STRIPE_SIZE


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


# ---------------------------------------------------------------- issue 13: refused naming field, value and rule
@pytest.mark.parametrize("kwargs, parts", [
    ({"client_bw_gbs": 1e308}, ("client_bw_gbs is 1e+308 GB/s; it must be a finite number above 0 and at most "
                                "100000 GB/s",)),
    ({"ost_bw_gbs": 1e308}, ("ost_bw_gbs is 1e+308 GB/s",)),
    ({"clients": 10 ** 400}, ("clients is", "above the maximum of 1000000000")),
])
def test_stripe_plan_huge_values_refused_with_a_range(kwargs, parts):
    # was: OverflowError: integer division result too large for a float
    args = dict({"ost_bw_gbs": 10.0, "clients": 64, "client_bw_gbs": 1.5}, **kwargs)
    refused_with(lambda: lustre_stripe_plan(8, **args), "gpufleet.cluster.lustre_stripe_plan", *parts)


# ------------------------------------------------------------------ wrong types: refused by a check, nothing else
VALID = [8]
VALID_KWARGS = {"ost_bw_gbs": 10.0, "clients": 64, "client_bw_gbs": 1.5, "pattern": "file_per_process",
                "files": 4, "stripe_size": 1048576}


def test_valid_call_works():
    assert lustre_stripe_plan(*copy.deepcopy(VALID), **copy.deepcopy(VALID_KWARGS)) is not None


def test_wrong_types_and_missing_keys_are_refused():
    assert_only_refusals('lustre_stripe_plan', lustre_stripe_plan, VALID, VALID_KWARGS)
