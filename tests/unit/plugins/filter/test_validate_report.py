# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The validate_report filter: the JSON and HTML report of the check results, errors under the filter's name,
and no raw Python exception for wrong types (issue 13)."""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import validate_report as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.validate_report import validate_report
from filter_docs import assert_documented


def test_registered_and_documented():
    doc = assert_documented(plugin, "validate_report", options_are_arguments=True)
    assert doc["positional"] == "_input"


def test_report_and_errors():
    out = validate_report(
        [{"check": "slurm_job", "nodes": ["a", "b"], "status": "pass", "measured": 2, "expected": 2, "unit": "nodes"}],
        cluster="lab")
    assert out["failed"] is False and out["drain"] == [] and out["html"].startswith("<!DOCTYPE html>")
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.validate_report: results\[0\] \(x\).status"):
        validate_report([{"check": "x", "status": "ok"}])
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.validate_report: input must be a list"):
        validate_report("x")


# ---------------------------------------------------------------- wrong types, missing keys, malformed output: refused
@pytest.mark.parametrize("results", [None, "x", 5, [None], [5], [{}], [{"check": 5}], [{"check": "x", "status": "odd"}],
                                     [{"check": "x", "measured": float("nan"), "status": "pass"}],
                                     [{"check": "x", "measured": 1, "expected": {"value": "x", "compare": ">="}}],
                                     [{"check": "x", "measured": 1, "expected": {"value": 1, "compare": "~"}}],
                                     [{"check": "x", "measured": [1], "status": "pass"}],
                                     [{"check": "x", "node": "a b", "status": "fail"}],
                                     [{"check": "x", "unknown": 1, "status": "pass"}]])
def test_validate_report(results):
    with pytest.raises(AnsibleFilterError, match="^gpufleet.cluster.validate_report: "):
        validate_report(results)


@pytest.mark.parametrize("kwargs", [{"cluster": 5}, {"generated": []}, {"title": {"a": 1}}])
def test_validate_report_options(kwargs):
    with pytest.raises(AnsibleFilterError, match="^gpufleet.cluster.validate_report: "):
        validate_report([{"check": "x", "status": "pass"}], **kwargs)
