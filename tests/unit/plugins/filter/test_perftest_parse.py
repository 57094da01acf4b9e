# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The perftest_parse filter: perftest output parsed and checked against validate_expect's expectation, errors
under the filter's name, and no raw Python exception for wrong types or malformed output (issue 13)."""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import perftest_parse as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.perftest_parse import perftest_parse
from ansible_collections.gpufleet.cluster.plugins.filter.validate_expect import validate_expect
from filter_docs import assert_documented
from validate_inputs import HARDWARE, TEXTS, reference_output


def test_registered_and_documented():
    doc = assert_documented(plugin, "perftest_parse", options_are_arguments=True)
    assert doc["positional"] == "_input"


def test_perftest_parse_with_expectation():
    expect = validate_expect("rdma", hardware=HARDWARE)
    text = reference_output("perftest", "ib_write_bw-ib-a-loopback-interleaved.superbench.txt")
    result = perftest_parse(text, expect=expect, nodes=["compute01"])
    # 23240.68 MiB/s = 194.957 Gb/s >= 180.
    assert result["check"]["status"] == "pass" and result["check"]["measured"] == 194.957
    assert result["check"]["node"] == "compute01" and result["check"]["check"] == "rdma_bw"
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.perftest_parse: perftest line 1: result row"):
        perftest_parse(" 2 1000 1.0 1.0 0.1\n")
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.perftest_parse: input must be"):
        perftest_parse(None)
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.perftest_parse: expect must be"):
        perftest_parse(text, expect={"value": 1})


# ---------------------------------------------------------------- wrong types, missing keys, malformed output: refused
@pytest.mark.parametrize("text", TEXTS)
def test_perftest_parse(text):
    with pytest.raises(AnsibleFilterError, match="^gpufleet.cluster.perftest_parse: "):
        perftest_parse(text)
