# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""validate_expect on the reference inventory (inventories/h100-64) and the edge cases, plus validate_checks."""
from __future__ import annotations

import os

import pytest
import yaml

from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.checks import fio_check, judged, nccl_check
from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.expect import ExpectationError, expect

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(os.path.dirname(__file__)))))))
_INV = os.path.join(_REPO, "inventories", "h100-64", "group_vars")


def _yaml(*parts):
    with open(os.path.join(_INV, *parts), encoding="utf-8") as handle:
        return yaml.safe_load(handle)


@pytest.fixture(name="hardware")
def fixture_hardware():
    """The inventory's variables as Ansible would hand them over (the one Jinja value rendered by hand)."""
    names = _yaml("all", "hardware.yml")
    names.update({key: value for key, value in _yaml("gpu_nodes.yml").items() if key.startswith(("gpufleet_", "gpu_"))})
    names["gpufleet_plan_lustre"] = _yaml("all", "plan.yml")["gpufleet_plan_lustre"]
    profile = names["gpu_tuning_profiles"]["NVIDIA H100 80GB HBM3"]
    # The rack's GPU power cap where the plan chose one (all/plan.yml), else the TDP.
    assert profile["power_limit_w"] == ("{{ gpufleet_gpu_power_cap_w | default(none, true) "
                                        "or gpufleet_hardware.gpu_tdp_w }}")
    cap = _yaml("all", "plan.yml").get("gpufleet_gpu_power_cap_w")
    assert cap == 319
    profile["power_limit_w"] = cap or names["gpufleet_hardware"]["gpu_tdp_w"]
    return names


def test_reference_rdma_bandwidth(hardware):
    result = expect("rdma", hardware)
    # HDR: 0.9 x 200 Gb/s = 180 Gb/s = 22.5 GB/s.
    assert (result["value"], result["unit"], result["compare"]) == (180.0, "Gb/s", ">=")
    assert result["derivation"] == "90 % of 200 Gb/s (gpufleet_fabric.rate_gbps) = 180 Gb/s = 22.5 GB/s"
    assert expect("rdma", hardware, bidirectional=True)["value"] == 360.0


def test_rdma_rate_from_rdma_info_ports(hardware):
    ports = [{"device": "mlx5_0", "port": 1, "state": "ACTIVE", "rate_gbps": 400, "rate_detail": "4X NDR"},
             {"device": "mlx5_1", "port": 1, "state": "ACTIVE", "rate_gbps": 200, "rate_detail": "4X HDR"},
             {"device": "mlx5_2", "port": 1, "state": "DOWN", "rate_gbps": 10}]
    slowest = expect("rdma", hardware, rdma_info={"ports": ports})
    assert slowest["value"] == 180.0 and slowest["inputs"]["source"] == "rdma_info port mlx5_1 (4X HDR)"
    ndr = expect("rdma", hardware, rdma_info=ports, device="mlx5_0")
    assert ndr["value"] == 360.0 and ndr["derivation"].startswith("90 % of 400 Gb/s (rdma_info port mlx5_0 (4X NDR))")
    # No ACTIVE port of that device: back to the inventory's rate.
    assert expect("rdma", hardware, rdma_info=ports, device="mlx5_2")["inputs"]["source"] == "gpufleet_fabric.rate_gbps"


def test_reference_latency_ceiling(hardware):
    assert (expect("rdma_lat", hardware)["value"], expect("rdma_lat", hardware)["compare"]) == (3.0, "<=")
    assert expect("rdma_lat", hardware)["kind"] == "rdma_lat" and expect("rdma", hardware)["kind"] == "rdma"
    roce = dict(hardware, gpufleet_fabric=dict(hardware["gpufleet_fabric"], kind="roce"))
    assert expect("rdma_lat", roce)["value"] == 5.0


def test_reference_nccl(hardware):
    eight = expect("nccl", hardware, nodes=8)
    # min(450 NVLink, 8 x 200 / 8 = 200 network) = 200; 0.75 x 200 = 150 GB/s.
    assert (eight["value"], eight["unit"], eight["inputs"]["bound_gbs"]) == (150.0, "GB/s", 200.0)
    assert "network bound 8 HCAs x 200 Gb/s / 8 = 200 GB/s per node" in eight["derivation"]
    one = expect("nccl", hardware, nodes=1)
    assert (one["value"], one["inputs"]["bound_gbs"]) == (337.5, 450.0)   # 0.75 x 450
    # The recorded healthy runs against the same rule: 4x DGX A100 (8 x HDR) 191.56 >= 150 and 8x A100 alone
    # 235.26 >= 0.75 x 300 = 225.
    a100 = dict(hardware, gpufleet_hardware=dict(hardware["gpufleet_hardware"], gpu_model="A100-SXM4-40GB"))
    assert expect("nccl", a100, nodes=4)["value"] == 150.0 and expect("nccl", a100, nodes=1)["value"] == 225.0


def test_reference_lustre_and_gpu(hardware):
    lustre = expect("lustre", hardware)
    assert lustre["value"] == 64.0   # 0.8 x 8 OSTs x 10 GB/s
    assert lustre["derivation"] == ("80 % of 8 OSTs on 4 OSS x 10 GB/s (gpufleet_plan_lustre.ost_bw_gbs) = 0.8 x 80 "
                                    "= 64 GB/s aggregate read")
    gpu = expect("gpu", hardware, model="NVIDIA H100 80GB HBM3")
    # The reference rack holds its eight nodes only with the GPUs capped at 319 W (docs/power.md, "Rack budgets").
    assert (gpu["power_limit_w"], gpu["application_clocks_mhz"]) == (319, {"memory": 2619, "graphics": 1980})


def test_not_applicable_in_the_lab():
    lab = {"gpufleet_fabric": {"kind": "infiniband", "rate_gbps": 200},
           "gpufleet_hardware": {"gpus": 0, "rdma_hcas": 0, "lustre_servers": False}}
    for kind, what in (("rdma", "no RDMA HCAs"), ("nccl", "no GPUs"), ("lustre", "no Lustre file system"),
                       ("gpu", "no GPUs")):
        result = expect(kind, lab)
        assert result["applicable"] is False and result["value"] is None
        assert result["reason"].startswith("not applicable: " + what)
    assert expect("filesystem", lab, min_gbs=0.2, path="/var/tmp")["value"] == 0.2
    assert expect("rdma_lat", lab)["kind"] == "rdma_lat" and expect("rdma_lat", lab)["applicable"] is False


def test_profile_variants(hardware):
    hardware["gpu_tuning_profile_overrides"] = {"NVIDIA H100 80GB HBM3": {"power_limit_w": 500}}
    assert expect("gpu", hardware, model="NVIDIA H100 80GB HBM3")["power_limit_w"] == 500
    hardware["gpu_tuning_node_profile"] = {"power_limit_w": "default", "application_clocks": "default"}
    node = expect("gpu", hardware)
    assert node["power_limit_w"] == "default" and node["derivation"].endswith("from gpu_tuning_node_profile")
    assert expect("gpu", dict(hardware, gpu_tuning_node_profile={}), model="Other")["applicable"] is False


def test_errors_name_the_variable(hardware):
    with pytest.raises(ExpectationError, match=r"^gpufleet_fabric\.rate_gbps must be a finite number > 0 "
                                               r"\(0\.001\.\.10000000\), got None of type NoneType; NaN"):
        expect("rdma", dict(hardware, gpufleet_fabric={"kind": "infiniband"}))
    with pytest.raises(ExpectationError, match=r"^gpufleet_fabric\.kind must be infiniband or roce, got 'ethernet'"):
        expect("rdma", dict(hardware, gpufleet_fabric={"kind": "ethernet", "rate_gbps": 100}))
    with pytest.raises(ExpectationError, match=r"no NVLink bandwidth known for gpufleet_hardware.gpu_model 'L40S'"):
        expect("nccl", dict(hardware, gpufleet_hardware=dict(hardware["gpufleet_hardware"], gpu_model="L40S")), nodes=1)
    with pytest.raises(ExpectationError, match=r"^nodes must be the number of nodes in the run \(an integer "
                                               r"1\.\.100000\), got 0 of type int$"):
        expect("nccl", hardware, nodes=0)
    with pytest.raises(ExpectationError, match=r"^fraction must be a fraction in \[0\.01, 1\], got 1\.5 of type float; "
                                               r"e\.g\. 0\.9$"):
        expect("rdma", hardware, fraction=1.5)
    with pytest.raises(ExpectationError, match=r"^kind must be one of rdma, .*, gpu, got 'disk' of type str$"):
        expect("disk", hardware)
    with pytest.raises(ExpectationError, match="model is required"):
        expect("gpu", hardware)


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
    with pytest.raises(ExpectationError, match="expect must be a validate_expect result"):
        judged("x", [], 1.0, "", {"value": 1}, "")
