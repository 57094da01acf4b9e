# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The validate.yml filters: registration, documented options = arguments, results and FQCN errors."""
from __future__ import annotations

import importlib
import inspect
import os

import pytest
import yaml
from ansible.errors import AnsibleFilterError
from reference import outputs

_OUT = outputs()
NAMES = ["perftest_parse", "nccl_tests_parse", "fio_parse", "dcgm_diag_parse", "nvidia_smi_parse",
         "validate_expect", "validate_report"]
HARDWARE = {"gpufleet_fabric": {"kind": "infiniband", "rate_gbps": 200},
            "gpufleet_hardware": {"gpus": 8, "gpu_model": "H100-SXM5-80GB", "rdma_hcas": 8, "lustre_servers": True},
            "gpufleet_lustre": {"osts": 8, "oss": 4}, "gpufleet_plan_lustre": {"ost_bw_gbs": 10.0},
            "gpu_tuning_profiles": {"NVIDIA H100 80GB HBM3": {"power_limit_w": 700, "application_clocks": [2619, 1980]}}}


def _plugin(name):
    return importlib.import_module("ansible_collections.gpufleet.cluster.plugins.filter." + name)


def _reference(*parts):
    with open(os.path.join(_OUT, *parts), encoding="utf-8") as handle:
        return handle.read()


@pytest.mark.parametrize("name", NAMES)
def test_registered_and_documented(name):
    module = _plugin(name)
    function = getattr(module, name)
    assert module.FilterModule().filters() == {name: function}
    doc = yaml.safe_load(module.DOCUMENTATION)
    assert doc["name"] == name and doc["version_added"] == "0.1.0" and doc["positional"] == "_input"
    yaml.safe_load(module.EXAMPLES)
    assert "_value" in yaml.safe_load(module.RETURN)
    params = list(inspect.signature(function).parameters)
    documented = set(doc["options"]) - {"_input"}
    if name == "validate_expect":   # kind options arrive as **options
        assert documented - {"hardware"} >= {"nodes", "fraction", "rdma_info", "model", "min_gbs"}
    else:
        assert documented == set(params[1:])


def test_perftest_parse_with_expectation():
    expect = _plugin("validate_expect").validate_expect("rdma", hardware=HARDWARE)
    text = _reference("perftest", "ib_write_bw-ib-a-loopback-interleaved.superbench.txt")
    result = _plugin("perftest_parse").perftest_parse(text, expect=expect, nodes=["compute01"])
    # 23240.68 MiB/s = 194.957 Gb/s >= 180.
    assert result["check"]["status"] == "pass" and result["check"]["measured"] == 194.957
    assert result["check"]["node"] == "compute01" and result["check"]["check"] == "rdma_bw"
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.perftest_parse: perftest line 1: result row"):
        _plugin("perftest_parse").perftest_parse(" 2 1000 1.0 1.0 0.1\n")
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.perftest_parse: input must be"):
        _plugin("perftest_parse").perftest_parse(None)
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.perftest_parse: expect must be"):
        _plugin("perftest_parse").perftest_parse(text, expect={"value": 1})


def test_nccl_tests_parse_with_expectation():
    expect = _plugin("validate_expect").validate_expect("nccl", hardware=HARDWARE, nodes=4)
    text = _reference("nccl-tests", "all_reduce_perf.4x-dgx-a100-ib.deepops.txt")
    result = _plugin("nccl_tests_parse").nccl_tests_parse(text, expect=expect, nodes=["n4", "n1", "n2", "n3"])
    assert (result["check"]["status"], result["check"]["measured"], result["check"]["expected"]) == ("pass", 191.56, 150.0)
    assert result["check"]["nodes"] == ["n1", "n2", "n3", "n4"] and result["check"]["node"] is None
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.nccl_tests_parse: nodes must be a list"):
        _plugin("nccl_tests_parse").nccl_tests_parse(text, nodes="n1")


def test_fio_parse_with_expectation():
    data = {"jobs": [{"jobname": "r", "groupid": 0, "error": 0,
                      "read": {"io_bytes": 2000000000, "bw_bytes": 1000000000, "iops": 1907.3, "runtime": 2000}}]}
    expect = _plugin("validate_expect").validate_expect("filesystem", hardware={}, min_gbs=0.5, path="/var/tmp")
    result = _plugin("fio_parse").fio_parse(data, expect=expect, nodes=["lab-gpu1"])
    assert result["check"]["status"] == "pass" and result["check"]["measured"] == 1.0   # 2e9 B over 2 s
    assert result["check"]["check"] == "storage_read"
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.fio_parse: direction must be"):
        _plugin("fio_parse").fio_parse(data, direction="up")
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.fio_parse: fio line 1: no JSON"):
        _plugin("fio_parse").fio_parse("nothing")


def test_dcgm_and_nvidia_smi_parse():
    dcgm = _plugin("dcgm_diag_parse").dcgm_diag_parse(
        _reference("dcgm", "dcgmi-diag-r3-fragment-row-remap-pending.ml-engineering.txt"), node="compute03")
    assert dcgm["check"]["status"] == "fail" and dcgm["check"]["node"] == "compute03"
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.dcgm_diag_parse: dcgmi diag line 1"):
        _plugin("dcgm_diag_parse").dcgm_diag_parse("1 GPU found.\n")
    expect = _plugin("validate_expect").validate_expect("gpu", hardware=HARDWARE, model="NVIDIA H100 80GB HBM3")
    smi = _plugin("nvidia_smi_parse").nvidia_smi_parse(
        _reference("nvidia-smi", "nvidia-smi-q.h100-80gb-hbm3-x8.535.183.01.gpud.txt"), node="compute01",
        expect=expect, expected_count=8)
    assert len(smi["gpus"]) == 8 and {check["status"] for check in smi["checks"]} == {"pass"}
    csv = _plugin("nvidia_smi_parse").nvidia_smi_parse("index, name\n0, NVIDIA H100 80GB HBM3\n", format="csv")
    assert csv == {"gpus": [{"index": 0, "name": "NVIDIA H100 80GB HBM3"}]}
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.nvidia_smi_parse: format must be one of q, csv, got 'xml' of type str$"):
        _plugin("nvidia_smi_parse").nvidia_smi_parse("", format="xml")


def test_validate_expect_and_report():
    expect = _plugin("validate_expect").validate_expect
    assert expect("lustre", hardware=HARDWARE)["value"] == 64.0
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.validate_expect: kind lustre takes no option nodes"):
        expect("lustre", hardware=HARDWARE, nodes=2)
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.validate_expect: input must be one of"):
        expect("disk", hardware=HARDWARE)
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.validate_expect: hardware must be a dict"):
        expect("rdma")
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.validate_expect: no NVLink bandwidth known"):
        expect("nccl", hardware=dict(HARDWARE, gpufleet_hardware={"gpus": 4, "gpu_model": "L4"}), nodes=1)
    assert expect("nccl", hardware=dict(HARDWARE, gpufleet_hardware={"gpus": 4, "gpu_model": "L4"}), nodes=1,
                  nvlink_gbs=32.0)["value"] == 24.0
    out = _plugin("validate_report").validate_report(
        [{"check": "slurm_job", "nodes": ["a", "b"], "status": "pass", "measured": 2, "expected": 2, "unit": "nodes"}],
        cluster="lab")
    assert out["failed"] is False and out["drain"] == [] and out["html"].startswith("<!DOCTYPE html>")
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.validate_report: results\[0\] \(x\).status"):
        _plugin("validate_report").validate_report([{"check": "x", "status": "ok"}])
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.validate_report: input must be a list"):
        _plugin("validate_report").validate_report("x")
