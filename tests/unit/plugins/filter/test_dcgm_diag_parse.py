# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The dcgm_diag_parse filter: dcgmi diag output parsed and judged, errors under the filter's name, and no raw
Python exception for wrong types or malformed output (issue 13)."""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import dcgm_diag_parse as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.dcgm_diag_parse import dcgm_diag_parse
from filter_docs import assert_documented
from validate_inputs import TEXTS, reference_output


def test_registered_and_documented():
    doc = assert_documented(plugin, "dcgm_diag_parse", options_are_arguments=True)
    assert doc["positional"] == "_input"


def test_parse_and_errors():
    dcgm = dcgm_diag_parse(
        reference_output("dcgm", "dcgmi-diag-r3-fragment-row-remap-pending.ml-engineering.txt"), node="compute03")
    assert dcgm["check"]["status"] == "fail" and dcgm["check"]["node"] == "compute03"
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.dcgm_diag_parse: dcgmi diag line 1"):
        dcgm_diag_parse("1 GPU found.\n")


# ---------------------------------------------------------------- wrong types, missing keys, malformed output: refused
@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("node", [None, 5, ["n1"]])
def test_dcgm_diag_parse(text, node):
    try:
        dcgm_diag_parse(text, node)
    except AnsibleFilterError as exc:
        assert str(exc).startswith("gpufleet.cluster.dcgm_diag_parse: ")
