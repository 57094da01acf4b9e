# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""validate/checks.py: a measurement judged with validate_expect's expectation (pass, fail, not applicable,
error), for NCCL, fio and any check."""
from __future__ import annotations

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.checks import fio_check, judged, nccl_check
from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.expect import ExpectationError, expect


def test_checks_judge_with_the_expectation(hardware):
    floor = expect("nccl", hardware, nodes=4)
    parsed = {"summary": {"largest_busbw_gbs": 191.56, "largest_size": 4294967296, "ranks": 0},
              "avg_busbw_gbs": 113.289, "wrong_total": 0, "out_of_bounds_ok": True, "hosts": []}
    result = nccl_check(parsed, floor, ["a", "b", "c", "d"])
    assert (result["status"], result["measured"], result["expected"], result["node"]) == ("pass", 191.56, 150.0, None)
    parsed["wrong_total"] = 2
    assert nccl_check(parsed, floor, ["a"])["detail"].startswith("2 wrong values")
    assert nccl_check(parsed, floor, ["a"])["status"] == "fail"
    lab = expect("lustre", {"gpufleet_hardware": {"lustre_servers": False}, "gpufleet_lustre": {"osts": 1}})
    assert judged("lustre_read", [], None, "GB/s", lab, "")["status"] == "not_applicable"
    fio = {"summary": {"read": None}, "errors": []}
    assert fio_check(fio, expect("filesystem", {}, min_gbs=1), ["lab1"])["status"] == "error"
    with pytest.raises(ExpectationError) as err:
        judged("x", [], 1.0, "", {"value": 1}, "")
    assert str(err.value) == ("expect must be a validate_expect result (a dict with applicable, value, compare), got "
                              "{'value': 1} of type dict")
