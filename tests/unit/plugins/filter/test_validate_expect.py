# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The validate_expect filter: the expectation of each check kind from the inventory, errors under the filter's
name, and its input rules (issue 13): a threshold of NaN, infinity, 0 or a negative number would make every run
pass or every run fail; 'eight' GPUs raised ValueError. Each is refused naming the field, value and what is
allowed, and every threshold produced is a finite number > 0."""
from __future__ import annotations

import math

import pytest
from ansible.errors import AnsibleFilterError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.filter import validate_expect as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.validate_expect import validate_expect
from filter_docs import assert_documented
from nasty_input import hostile_numbers
from validate_inputs import HARDWARE as REFERENCE_HARDWARE


HARDWARE = {
    "gpufleet_fabric": {"kind": "infiniband", "rate_gbps": 200},
    "gpufleet_hardware": {"gpus": 8, "gpu_model": "H100-SXM5-80GB", "rdma_hcas": 8, "lustre_servers": True},
    "gpufleet_lustre": {"osts": 40, "oss": 10, "mountpoint": "/lustre"},
    "gpufleet_plan_lustre": {"ost_bw_gbs": 3.5},
    "gpu_tuning_profiles": {"NVIDIA H100 80GB HBM3": {"power_limit_w": 700, "application_clocks": [2619, 1980]}},
}


def test_registered_and_documented():
    doc = assert_documented(plugin, "validate_expect")
    assert doc["positional"] == "_input"
    # kind options arrive as **options
    assert set(doc["options"]) - {"_input", "hardware"} >= {"nodes", "fraction", "rdma_info", "model", "min_gbs"}


def test_expectations_and_errors():
    hardware, l4 = REFERENCE_HARDWARE, dict(REFERENCE_HARDWARE, gpufleet_hardware={"gpus": 4, "gpu_model": "L4"})
    assert validate_expect("lustre", hardware=hardware)["value"] == 64.0
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.validate_expect: kind lustre takes no option "
                                                 r"nodes"):
        validate_expect("lustre", hardware=hardware, nodes=2)
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.validate_expect: input must be one of"):
        validate_expect("disk", hardware=hardware)
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.validate_expect: hardware must be a dict"):
        validate_expect("rdma")
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.validate_expect: no NVLink bandwidth known"):
        validate_expect("nccl", hardware=l4, nodes=1)
    assert validate_expect("nccl", hardware=l4, nodes=1, nvlink_gbs=32.0)["value"] == 24.0


def hw(**changes):
    out = {key: dict(value) for key, value in HARDWARE.items()}
    for path, value in changes.items():
        name, key = path.split("__")
        out[name][key] = value
    return out


def refused(match, *args, **kwargs):
    with pytest.raises(AnsibleFilterError, match=match) as info:
        validate_expect(*args, **kwargs)
    assert str(info.value).startswith("gpufleet.cluster.validate_expect: ")


@pytest.mark.parametrize("value", [-5, 0, float("nan"), float("inf"), -float("inf"), "nan", "inf", "-5", True,
                                   "fast", 1e300])
def test_nvlink_gbs_must_be_a_finite_positive_number(value):
    # nvlink_gbs: -5 made every run pass (floor -3.75 GB/s), NaN every run fail.
    refused(r"nvlink_gbs must be a finite number > 0 \(0.001..100000\), got .* of type \w+; NaN, infinity, 0 and "
            r"negative",
            "nccl", hardware=HARDWARE, nodes=1, nvlink_gbs=value)


def test_nvlink_gbs_given_is_used():
    assert validate_expect("nccl", hardware=HARDWARE, nodes=1, nvlink_gbs=300)["value"] == 225.0
    assert validate_expect("nccl", hardware=HARDWARE, nodes=1, nvlink_gbs="300")["value"] == 225.0


@pytest.mark.parametrize("value", [-200, 0, float("nan"), float("inf"), "nan", "inf", "200\n", "1e3", None, [200]])
def test_fabric_rate_must_be_a_finite_positive_number(value):
    refused(r"gpufleet_fabric.rate_gbps must be a finite number > 0 \(.*\), got .* of type \w+; NaN", "rdma",
            hardware=hw(gpufleet_fabric__rate_gbps=value))


@pytest.mark.parametrize("value", ["eight", 8.5, -1, True, "8\n", [8], 2000])
def test_gpus_must_be_a_whole_number(value):
    # 'eight' raised a raw ValueError from int().
    refused(r"gpufleet_hardware.gpus must be a whole number 0..1024, got .* of type \w+$", "nccl",
            hardware=hw(gpufleet_hardware__gpus=value), nodes=1)


def test_gpus_as_text_is_read():
    assert validate_expect("nccl", hardware=hw(gpufleet_hardware__gpus="8"), nodes=1)["inputs"]["gpus_per_node"] == 8


@pytest.mark.parametrize("value", ["eight", 2.5, -8, "nan"])
def test_hcas_must_be_a_whole_number(value):
    refused(r"gpufleet_hardware.rdma_hcas must be a whole number 1..1024, got .* of type \w+$", "nccl",
            hardware=hw(gpufleet_hardware__rdma_hcas=value), nodes=2)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 0, -1, "1"])
def test_filesystem_floor_must_be_finite_and_positive(value):
    refused(r"min_gbs must be the floor in GB/s \(a finite number > 0, .*\), got .* of type \w+$", "filesystem",
            hardware={},
            min_gbs=value)


@pytest.mark.parametrize("field, value", [("gpufleet_plan_lustre__ost_bw_gbs", float("nan")),
                                          ("gpufleet_plan_lustre__ost_bw_gbs", -3.5),
                                          ("gpufleet_lustre__osts", "forty"), ("gpufleet_lustre__osts", 0)])
def test_lustre_inputs(field, value):
    refused(field.replace("__", ".") + " must be a ", "lustre", hardware=hw(**{field: value}))


@pytest.mark.parametrize("profile, message", [
    ({"power_limit_w": float("nan")},
     r"power_limit_w \(watts or default\) must be a finite number > 0 \(.*\), got nan of type float"),
    ({"power_limit_w": -700}, r"power_limit_w \(watts or default\) must be .*, got -700 of type int"),
    ({"power_limit_w": "nan"}, r"power_limit_w \(watts or default\) must be .*, got 'nan' of type str"),
    ({"application_clocks": ["x", 1980]},
     r"application_clocks\[0\] \(memory MHz\) must be a whole number 1..100000, got 'x' of type str"),
    ({"application_clocks": [2619, 1980.5]},
     r"application_clocks\[1\] \(graphics MHz\) must be a whole number 1..100000, got 1980.5 of type float"),
])
def test_gpu_profile_numbers(profile, message):
    hardware = hw()
    hardware["gpu_tuning_profiles"] = {"NVIDIA H100 80GB HBM3": profile}
    refused(message, "gpu", hardware=hardware, model="NVIDIA H100 80GB HBM3")


@pytest.mark.parametrize("args, kwargs", [
    ((["nccl"],), {"hardware": HARDWARE}), ((None,), {"hardware": HARDWARE}), (("nccl",), {"hardware": None}),
    (("nccl",), {"hardware": HARDWARE, "nodes": "2"}), (("nccl",), {"hardware": HARDWARE, "nodes": 1, "fraction": "x"}),
    (("rdma",), {"hardware": hw(gpufleet_fabric__kind=["roce"])}), (("rdma",), {"hardware": {"gpufleet_fabric": []}}),
    (("rdma",), {"hardware": HARDWARE, "rdma_info": 5}), (("rdma",), {"hardware": HARDWARE, "device": 5}),
    (("rdma",), {"hardware": HARDWARE, "bidirectional": "yes"}), (("gpu",), {"hardware": HARDWARE, "model": 5}),
    (("gpu",), {"hardware": dict(HARDWARE, gpu_tuning_profiles=[1])}),
    (("lustre",), {"hardware": dict(HARDWARE, gpufleet_lustre="x")}), (("nccl",), {"hardware": HARDWARE, "x": 1}),
    (("filesystem",), {"hardware": {}, "min_gbs": 1, "path": 5}), (("filesystem",), {"hardware": {}}),
])
def test_wrong_types_are_clear_errors(args, kwargs):
    with pytest.raises(AnsibleFilterError, match="^gpufleet.cluster.validate_expect: "):
        validate_expect(*args, **kwargs)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rate=hostile_numbers(), gpus=hostile_numbers(), hcas=hostile_numbers(), nvlink=hostile_numbers(),
       nodes=st.one_of(hostile_numbers(), st.integers(min_value=1, max_value=64)),
       fraction=st.one_of(hostile_numbers(), st.floats(min_value=0.01, max_value=1)))
def test_property_thresholds_are_finite_and_positive_or_refused(rate, gpus, hcas, nvlink, nodes, fraction):
    hardware = hw(gpufleet_fabric__rate_gbps=rate, gpufleet_hardware__gpus=gpus, gpufleet_hardware__rdma_hcas=hcas)
    options = {"nodes": nodes, "fraction": fraction}
    if nvlink is not None:
        options["nvlink_gbs"] = nvlink
    for kind, opts in (("nccl", options), ("rdma", {"fraction": fraction})):
        try:
            result = validate_expect(kind, hardware=hardware, **opts)
        except AnsibleFilterError as exc:
            assert str(exc).startswith("gpufleet.cluster.validate_expect: ")
            continue
        if result["applicable"]:
            assert isinstance(result["value"], float) and math.isfinite(result["value"]) and result["value"] > 0
