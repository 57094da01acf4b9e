# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""No raw Python exception escapes the validate parse and report filters (issue 13): wrong types, missing keys,
malformed output and expectations become AnsibleFilterError naming the filter."""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter.dcgm_diag_parse import dcgm_diag_parse
from ansible_collections.gpufleet.cluster.plugins.filter.fio_parse import fio_parse
from ansible_collections.gpufleet.cluster.plugins.filter.nccl_tests_parse import nccl_tests_parse
from ansible_collections.gpufleet.cluster.plugins.filter.perftest_parse import perftest_parse
from ansible_collections.gpufleet.cluster.plugins.filter.validate_report import validate_report

BAD_EXPECT = [{"applicable": True, "value": "x", "compare": ">="}, {"applicable": True, "value": None, "compare": ">="},
              {"applicable": True, "value": float("nan"), "compare": ">="}, {"applicable": True, "value": 1, "compare": "~"},
              {"value": 1}, "x", [1], 5]
TEXTS = [None, 5, b"bytes", ["x"], {"x": 1}, "", "\n", "garbage\x00\n", "#  Rank  0 Group  0 Pid 1 on n1 device 0 [x]\n",
         "# Avg bus bandwidth    : nan\n"]


@pytest.mark.parametrize("text", TEXTS)
def test_nccl_tests_parse(text):
    with pytest.raises(AnsibleFilterError, match="^gpufleet.cluster.nccl_tests_parse: "):
        nccl_tests_parse(text)


@pytest.mark.parametrize("expect", BAD_EXPECT)
@pytest.mark.parametrize("nodes", [None, "n1", [5]])
def test_nccl_tests_parse_expect_and_nodes(expect, nodes):
    text = "# Avg bus bandwidth    : 100.5\n"
    try:
        nccl_tests_parse(text, expect=expect, nodes=nodes)
    except AnsibleFilterError as exc:
        assert str(exc).startswith("gpufleet.cluster.nccl_tests_parse: ")


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("node", [None, 5, ["n1"]])
def test_dcgm_diag_parse(text, node):
    try:
        dcgm_diag_parse(text, node)
    except AnsibleFilterError as exc:
        assert str(exc).startswith("gpufleet.cluster.dcgm_diag_parse: ")


@pytest.mark.parametrize("text", TEXTS)
def test_perftest_parse(text):
    with pytest.raises(AnsibleFilterError, match="^gpufleet.cluster.perftest_parse: "):
        perftest_parse(text)


@pytest.mark.parametrize("data", TEXTS + ["{}", "[]", '{"jobs": 5}', '{"jobs": [5]}', '{"jobs": [{"read": 5}]}',
                                          {"jobs": [{"read": {"bw_bytes": "x"}}]}, {"jobs": None}])
def test_fio_parse(data):
    with pytest.raises(AnsibleFilterError, match="^gpufleet.cluster.fio_parse: "):
        fio_parse(data)


@pytest.mark.parametrize("expect", BAD_EXPECT)
@pytest.mark.parametrize("direction", ["read", "sideways", ["read"]])
def test_fio_parse_expect(expect, direction):
    data = {"jobs": [{"jobname": "j", "read": {"bw_bytes": 1000000000, "io_bytes": 1, "runtime": 1000}}]}
    try:
        fio_parse(data, expect=expect, direction=direction)
    except AnsibleFilterError as exc:
        assert str(exc).startswith("gpufleet.cluster.fio_parse: ")


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
