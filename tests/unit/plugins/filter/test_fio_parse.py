# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fio_parse filter: fio's JSON parsed and checked against validate_expect's expectation, errors under the
filter's name, and no raw Python exception for wrong types or malformed output (issue 13)."""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import fio_parse as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.fio_parse import fio_parse
from ansible_collections.gpufleet.cluster.plugins.filter.validate_expect import validate_expect
from filter_docs import assert_documented
from validate_inputs import BAD_EXPECT, TEXTS


def test_registered_and_documented():
    doc = assert_documented(plugin, "fio_parse", options_are_arguments=True)
    assert doc["positional"] == "_input"


def test_fio_parse_with_expectation():
    data = {"jobs": [{"jobname": "r", "groupid": 0, "error": 0,
                      "read": {"io_bytes": 2000000000, "bw_bytes": 1000000000, "iops": 1907.3, "runtime": 2000}}]}
    expect = validate_expect("filesystem", hardware={}, min_gbs=0.5, path="/var/tmp")
    result = fio_parse(data, expect=expect, nodes=["lab-gpu1"])
    assert result["check"]["status"] == "pass" and result["check"]["measured"] == 1.0   # 2e9 B over 2 s
    assert result["check"]["check"] == "storage_read"
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.fio_parse: direction must be"):
        fio_parse(data, direction="up")
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.fio_parse: fio line 1: no JSON"):
        fio_parse("nothing")


# ---------------------------------------------------------------- wrong types, missing keys, malformed output: refused
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
