# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""validate_dcgm against the recorded dcgmi outputs, and agreement with the Slurm health check's own copy."""
from __future__ import annotations

import dataclasses
import importlib.machinery
import importlib.util
import os
import sys

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.dcgm import (
    DcgmDiagParseError, dcgm_verdict, judge_dcgm, parse_dcgm_diag,
)
from reference import REPO, outputs

_DCGM = outputs("dcgm")
_SCRIPT = os.path.join(REPO, "roles", "slurm", "files", "gpufleet-gpu-health")
DIAGS = ["dcgmi-diag-r1-deployment-fail.deepops.txt",
         "dcgmi-diag-r2-fragment-memory-fail-thermal-warning.ml-engineering.txt",
         "dcgmi-diag-r2.p4de-8xA100.dcgm-3.3.3.awsome.txt",
         "dcgmi-diag-r3-fragment-row-remap-pending.ml-engineering.txt"]


def _reference(name):
    with open(os.path.join(_DCGM, name), encoding="utf-8") as handle:
        return handle.read()


def test_all_pass_dcgm_3_p4de():
    result = dcgm_verdict(_reference("dcgmi-diag-r2.p4de-8xA100.dcgm-3.3.3.awsome.txt"), "gpu01")
    assert result["metadata"] == {"DCGM Version": "3.3.3", "Driver Version Detected": "535.104.12",
                                  "GPU Device IDs Detected": "20b2,20b2,20b2,20b2,20b2,20b2,20b2,20b2"}
    assert result["gpu_count"] == 8 and result["passed"] == 11
    assert {"section": "Integration", "test": "PCIe", "result": "Pass", "gpus": [], "detail": "All",
            "message": ""} in result["rows"]
    assert result["failures"] == [] and result["warnings"] == []
    assert result["check"] == {"check": "dcgm_diag", "node": "gpu01", "status": "pass", "measured": 0, "expected": 0,
                               "unit": "failed tests", "detail": "11 tests passed (DCGM 3.3.3)"}


def test_deployment_failures_dcgm_2():
    result = dcgm_verdict(_reference("dcgmi-diag-r1-deployment-fail.deepops.txt"))
    # Page Retirement is a memory item and goes first; the other four keep the table's order.
    assert result["failures"] == ["Page Retirement: failed", "Persistence Mode: failed",
                                  "Environment Variables: failed", "Graphics Processes: failed", "Inforom: failed"]
    assert result["passed"] == 4 and result["gpu_count"] is None
    assert result["check"]["status"] == "fail" and result["check"]["measured"] == 5


def test_memory_failure_with_wrapped_thermal_warning():
    result = dcgm_verdict(_reference("dcgmi-diag-r2-fragment-memory-fail-thermal-warning.ml-engineering.txt"))
    rows = result["rows"]
    assert [(row["result"], row["gpus"]) for row in rows] == [("Pass", [1, 2, 3, 4, 5, 6, 7]), ("Fail", [0]),
                                                              ("Warning", [0])]
    assert rows[2]["message"].startswith("GPU 0 Thermal violations totaling 13.3 seconds started at 9.7 seconds")
    assert result["failures"] == ["GPU Memory: GPU 0 failed (warning: GPU 0 Thermal violations totaling 13.3 seconds "
                                  "started at 9.7 seconds into the test for GPU 0)"]


def test_row_remap_pending_error_row():
    diag = parse_dcgm_diag(_reference("dcgmi-diag-r3-fragment-row-remap-pending.ml-engineering.txt"))
    assert diag["rows"] == [{"section": "Deployment", "test": "Deployment", "result": "Error", "gpus": [3], "detail": "",
                             "message": "GPU 3 has uncorrectable memory errors and row remappings are pending"}]
    assert judge_dcgm(diag)[0] == ["Deployment: GPU 3 has uncorrectable memory errors and row remappings are pending"]


def test_not_a_diag_and_hostengine_down():
    with pytest.raises(DcgmDiagParseError) as info:
        parse_dcgm_diag(_reference("dcgmi-discovery-l.1gpu-quadro-rtx6000.nvidia-cloud-native-docs.txt"))
    assert str(info.value) == ("dcgmi diag line 1: no '| Diagnostic | Result |' table (expected dcgmi diag -r N "
                               "output): '1 GPU found.'")
    with pytest.raises(DcgmDiagParseError, match=r"^dcgmi diag line 2: dcgmi could not reach nv-hostengine"):
        parse_dcgm_diag("\nError: unable to establish a connection to the specified host: localhost\n")
    with pytest.raises(DcgmDiagParseError) as info:
        parse_dcgm_diag(b"bytes")
    assert str(info.value) == "dcgmi diag: input must be the text output of dcgmi diag, got b'bytes' of type bytes"


def _script():
    if not os.path.isfile(_SCRIPT):
        pytest.fail("the Slurm health check script is not in this checkout")
    loader = importlib.machinery.SourceFileLoader("gpufleet_gpu_health_validate", _SCRIPT)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    sys.modules[loader.name] = module   # dataclasses look their module up while the script loads
    loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", DIAGS)
def test_same_reading_as_the_slurm_health_check(name):
    # The script keeps its own copy of the parser (it runs alone on the nodes): both must agree.
    script = _script()
    text = _reference(name)
    theirs = script.parse_dcgm_diag(text)
    ours = parse_dcgm_diag(text)
    assert ours["metadata"] == theirs.metadata
    assert ours["rows"] == [dataclasses.asdict(row) for row in theirs.rows]
    assert judge_dcgm(ours) == script.judge_dcgm(theirs)
