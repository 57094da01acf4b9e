# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The nccl_tests_parse filter: all_reduce_perf output parsed and checked against validate_expect's expectation,
errors under the filter's name, and no raw Python exception for wrong types or malformed output (issue 13)."""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import nccl_tests_parse as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.nccl_tests_parse import nccl_tests_parse
from ansible_collections.gpufleet.cluster.plugins.filter.validate_expect import validate_expect
from filter_docs import assert_documented
from validate_inputs import BAD_EXPECT, HARDWARE, TEXTS, reference_output


def test_registered_and_documented():
    doc = assert_documented(plugin, "nccl_tests_parse", options_are_arguments=True)
    assert doc["positional"] == "_input"


def test_nccl_tests_parse_with_expectation():
    expect = validate_expect("nccl", hardware=HARDWARE, nodes=4)
    text = reference_output("nccl-tests", "all_reduce_perf.4x-dgx-a100-ib.deepops.txt")
    result = nccl_tests_parse(text, expect=expect, nodes=["n4", "n1", "n2", "n3"])
    check = result["check"]
    assert (check["status"], check["measured"], check["expected"]) == ("pass", 191.56, 150.0)
    assert result["check"]["nodes"] == ["n1", "n2", "n3", "n4"] and result["check"]["node"] is None
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.nccl_tests_parse: nodes must be a list"):
        nccl_tests_parse(text, nodes="n1")


# ---------------------------------------------------------------- wrong types, missing keys, malformed output: refused
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
