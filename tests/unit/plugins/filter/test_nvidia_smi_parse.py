# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The nvidia_smi_parse filter: nvidia-smi -q and --query-gpu output parsed, the GPU checks against
validate_expect's expectation, errors under the filter's name."""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import nvidia_smi_parse as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.nvidia_smi_parse import nvidia_smi_parse
from ansible_collections.gpufleet.cluster.plugins.filter.validate_expect import validate_expect
from filter_docs import assert_documented
from validate_inputs import HARDWARE, reference_output


def test_registered_and_documented():
    doc = assert_documented(plugin, "nvidia_smi_parse", options_are_arguments=True)
    assert doc["positional"] == "_input"


def test_parse_checks_and_errors():
    expect = validate_expect("gpu", hardware=HARDWARE, model="NVIDIA H100 80GB HBM3")
    smi = nvidia_smi_parse(
        reference_output("nvidia-smi", "nvidia-smi-q.h100-80gb-hbm3-x8.535.183.01.gpud.txt"), node="compute01",
        expect=expect, expected_count=8)
    assert len(smi["gpus"]) == 8 and {check["status"] for check in smi["checks"]} == {"pass"}
    csv = nvidia_smi_parse("index, name\n0, NVIDIA H100 80GB HBM3\n", format="csv")
    assert csv == {"gpus": [{"index": 0, "name": "NVIDIA H100 80GB HBM3"}]}
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.nvidia_smi_parse: format must be one of q, csv, "
                                                 r"got 'xml' of type str$"):
        nvidia_smi_parse("", format="xml")
