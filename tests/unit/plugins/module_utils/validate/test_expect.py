# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""validate/expect.py on the reference inventory (inventories/h100-64, the `hardware` fixture of conftest.py) and the
edge cases; then every refusal and derivation in full, the tests `make mutation` asked for (docs/testing.md)."""
from __future__ import annotations

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.expect import (
    ExpectationError,
    expect,
    expect_filesystem,
    expect_lustre,
    expect_rdma,
    na,
)


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


# ---------------------------------------------------------------- every refusal and derivation in full
LUSTRE = {"osts": 16, "oss": 4, "mountpoint": "/lustre"}
PLAN = {"ost_bw_gbs": 5}
NAN_HINT = "; NaN, infinity, 0 and negative numbers would make every run pass or every run fail"


def test_not_applicable_has_every_field():
    assert na("lustre", "Lustre servers") == {
        "kind": "lustre", "applicable": False, "reason": "not applicable: no Lustre servers", "value": None,
        "unit": None, "compare": None, "derivation": "not applicable: no Lustre servers", "inputs": {}}
    assert na("gpu", "gpu_tuning profile", {"model": "X"})["inputs"] == {"model": "X"}


def test_filesystem_floor_given_with_its_path():
    assert expect_filesystem(2, "/scratch") == {
        "kind": "filesystem", "applicable": True, "value": 2.0, "unit": "GB/s", "compare": ">=",
        "derivation": "read from /scratch at least 2 GB/s (min_gbs, set for the lab's local disk)",
        "inputs": {"path": "/scratch"}}


def test_filesystem_floor_without_a_path():
    result = expect("filesystem", {}, min_gbs=0.5)
    assert result["derivation"] == "read from the local mount at least 0.5 GB/s (min_gbs, set for the lab's local disk)"
    assert result["inputs"] == {"path": None}
    assert result["value"] == 0.5


@pytest.mark.parametrize("bad, shown", [(0, "0 of type int"), (-1, "-1 of type int"), ("2", "'2' of type str"),
                                        (True, "True of type bool"), (None, "None of type NoneType")])
def test_filesystem_floor_refusals(bad, shown):
    with pytest.raises(ExpectationError) as err:
        expect_filesystem(bad)
    assert str(err.value) == "min_gbs must be the floor in GB/s (a finite number > 0, 0.001..10000000), got %s" % shown


def test_lustre_floor_is_80_percent_of_the_osts():
    # 16 OSTs x 5 GB/s = 80 GB/s; 80 % of it = 64 GB/s.
    hardware = {"gpufleet_hardware": {"lustre_servers": True}, "gpufleet_lustre": LUSTRE, "gpufleet_plan_lustre": PLAN}
    result = expect_lustre(hardware)
    assert result["value"] == pytest.approx(64.0)
    assert {k: v for k, v in result.items() if k != "value"} == {
        "kind": "lustre", "applicable": True, "unit": "GB/s", "compare": ">=",
        "derivation": "80 % of 16 OSTs on 4 OSS x 5 GB/s (gpufleet_plan_lustre.ost_bw_gbs) = 0.8 x 80 = 64 GB/s "
                      "aggregate read",
        "inputs": {"osts": 16.0, "oss": 4, "ost_bw_gbs": 5.0, "fraction": 0.8, "mountpoint": "/lustre"}}


def test_lustre_without_oss_count_or_node_description():
    # No gpufleet_hardware at all: the node description is optional; no oss: the derivation names none.
    hardware = {"gpufleet_lustre": {"osts": 2}, "gpufleet_plan_lustre": {"ost_bw_gbs": 10}}
    result = expect_lustre(hardware, fraction=0.5)
    assert result["applicable"] is True
    assert result["value"] == 10.0
    assert result["derivation"] == ("50 % of 2 OSTs x 10 GB/s (gpufleet_plan_lustre.ost_bw_gbs) = 0.5 x 20 = 10 GB/s "
                                    "aggregate read")


def test_lustre_not_applicable_without_servers_or_file_system():
    servers = {"gpufleet_hardware": {"lustre_servers": False}, "gpufleet_lustre": LUSTRE}
    assert expect_lustre(servers) == na("lustre", "Lustre servers (gpufleet_hardware.lustre_servers is false)")
    assert expect_lustre(servers)["kind"] == "lustre"
    assert expect_lustre({})["reason"] == "not applicable: no Lustre file system (gpufleet_lustre is not set)"


@pytest.mark.parametrize("lustre, plan, fraction, said", [
    (LUSTRE, PLAN, 0, "fraction must be a fraction in [0.01, 1], got 0 of type int; e.g. 0.9"),
    ({"osts": 0}, PLAN, 0.8, "gpufleet_lustre.osts must be a whole number 1..100000, got 0 of type int"),
    (LUSTRE, {"ost_bw_gbs": "fast"}, 0.8, "gpufleet_plan_lustre.ost_bw_gbs must be a finite number > 0 "
     "(0.001..10000000), got 'fast' of type str" + NAN_HINT),
])
def test_lustre_refusals_name_the_variable(lustre, plan, fraction, said):
    hardware = {"gpufleet_lustre": lustre, "gpufleet_plan_lustre": plan}
    with pytest.raises(ExpectationError) as err:
        expect_lustre(hardware, fraction=fraction)
    assert str(err.value) == said


@pytest.mark.parametrize("rdma_info, kind", [("mlx5_0", "str"), (7, "int"), ({"ports": "mlx5_0"}, "dict")])
def test_rdma_info_that_is_not_a_port_list_is_refused(rdma_info, kind):
    hardware = {"gpufleet_fabric": {"kind": "roce", "rate_gbps": 400}}
    with pytest.raises(ExpectationError) as err:
        expect_rdma(hardware, rdma_info=rdma_info)
    assert str(err.value) == "rdma_info must be the rdma_info module's result or its ports list, got %r of type %s" % (
        rdma_info, kind)


H100 = "NVIDIA H100 80GB HBM3"


def test_gpu_profile_with_power_and_clocks():
    hardware = {"gpufleet_hardware": {"gpus": 8},
                "gpu_tuning_profiles": {H100: {"power_limit_w": 700, "application_clocks": [2619, 1980]}}}
    source = "gpu_tuning_profiles['NVIDIA H100 80GB HBM3']"
    assert expect("gpu", hardware, model=H100) == {
        "kind": "gpu", "applicable": True, "value": 700, "unit": "W", "compare": "==",
        "derivation": "power limit 700 W, application clocks memory 2619 / graphics 1980 MHz from " + source,
        "power_limit_w": 700, "application_clocks_mhz": {"memory": 2619, "graphics": 1980}, "locked_clocks": None,
        "inputs": {"model": H100, "source": source}}


def test_gpu_profile_with_overrides_and_default_clocks():
    # No gpufleet_hardware: optional. The override's "600" (a string from YAML) is 600 W.
    hardware = {"gpu_tuning_profiles": {"M": {"power_limit_w": "default", "application_clocks": "default",
                                              "locked_clocks": [1980, 1980]}},
                "gpu_tuning_profile_overrides": {"M": {"power_limit_w": "600"}}}
    result = expect("gpu", hardware, model="M")
    assert result["value"] == 600.0 and result["power_limit_w"] == 600.0
    assert result["derivation"] == ("power limit 600 W, application clocks = the defaults from "
                                    "gpu_tuning_profiles['M'] + overrides")
    assert result["application_clocks_mhz"] == "default"
    assert result["locked_clocks"] == [1980, 1980]
    assert result["inputs"] == {"model": "M", "source": "gpu_tuning_profiles['M'] + overrides"}


def test_gpu_node_profile_default_power_only():
    result = expect("gpu", {"gpu_tuning_node_profile": {"power_limit_w": "default"}})
    assert result["derivation"] == "power limit = the board's default from gpu_tuning_node_profile"
    assert result["value"] == "default"
    assert result["application_clocks_mhz"] is None
    assert result["inputs"] == {"model": None, "source": "gpu_tuning_node_profile"}


def test_gpu_node_profile_that_sets_neither():
    result = expect("gpu", {"gpu_tuning_node_profile": {"locked_clocks": [1410, 1410]}})
    assert result["derivation"] == "nothing set from gpu_tuning_node_profile"
    assert result["value"] is None and result["applicable"] is True


def test_gpu_not_applicable_cases():
    assert expect("gpu", {"gpufleet_hardware": {"gpus": 0}}) == na("gpu", "GPUs (gpufleet_hardware.gpus is 0)")
    assert expect("gpu", {"gpufleet_hardware": {"gpus": 0}})["kind"] == "gpu"
    assert expect("gpu", {}, model="M") == {
        "kind": "gpu", "applicable": False, "reason": "not applicable: no gpu_tuning profile for 'M' (only persistence "
        "mode is set)", "value": None, "unit": None, "compare": None,
        "derivation": "not applicable: no gpu_tuning profile for 'M' (only persistence mode is set)",
        "inputs": {"model": "M"}}


@pytest.mark.parametrize("profile, said", [
    ({"power_limit_w": "lots"}, "gpu_tuning_node_profile.power_limit_w (watts or default) must be a finite number > 0 "
     "(0.001..10000), got 'lots' of type str" + NAN_HINT),
    ({"application_clocks": [1]},
     "gpu_tuning_node_profile.application_clocks must be [memory_mhz, graphics_mhz], got [1] of type list"),
    ({"application_clocks": "max"},
     "gpu_tuning_node_profile.application_clocks must be [memory_mhz, graphics_mhz] or default, got 'max' of type str"),
])
def test_gpu_refusals_name_the_variable(profile, said):
    with pytest.raises(ExpectationError) as err:
        expect("gpu", {"gpu_tuning_node_profile": profile})
    assert str(err.value) == said


def test_gpu_needs_a_model_without_a_node_profile():
    with pytest.raises(ExpectationError) as err:
        expect("gpu", {})
    assert str(err.value) == ("model is required unless gpu_tuning_node_profile is set (the GPU name as nvidia-smi "
                              "prints it, e.g. 'NVIDIA H100 80GB HBM3')")


# ---------------------------------------------------------------- rdma and nccl, whole results
FABRIC_IB = {"kind": "infiniband", "rate_gbps": 400}
NODE = {"gpus": 8, "gpu_model": "H100 SXM", "rdma_hcas": 8}


def test_rdma_floor_from_the_fabric_rate():
    # 90 % of 400 Gb/s = 360 Gb/s = 45 GB/s.
    result = expect_rdma({"gpufleet_fabric": {"kind": "roce", "rate_gbps": "400"}})
    assert result["value"] == pytest.approx(360.0)
    assert {k: v for k, v in result.items() if k != "value"} == {
        "kind": "rdma", "applicable": True, "unit": "Gb/s", "compare": ">=",
        "derivation": "90 % of 400 Gb/s (gpufleet_fabric.rate_gbps) = 360 Gb/s = 45 GB/s",
        "inputs": {"rate_gbps": 400.0, "source": "gpufleet_fabric.rate_gbps", "fraction": 0.9, "bidirectional": False}}


def test_rdma_floor_bidirectional_from_the_slowest_active_port():
    ports = [{"state": "ACTIVE", "rate_gbps": 200, "device": "mlx5_1", "rate_detail": "4X HDR"},
             {"state": "ACTIVE", "rate_gbps": 400, "device": "mlx5_0"}]
    result = expect_rdma({"gpufleet_fabric": FABRIC_IB}, rdma_info={"ports": ports}, bidirectional=True)
    # 90 % of 200 Gb/s x 2 = 360 Gb/s.
    assert result["value"] == pytest.approx(360.0)
    assert result["derivation"] == ("90 % of 200 Gb/s (rdma_info port mlx5_1 (4X HDR)) x 2 directions (bidirectional "
                                    "test) = 360 Gb/s = 45 GB/s")
    assert result["inputs"] == {"rate_gbps": 200.0, "source": "rdma_info port mlx5_1 (4X HDR)", "fraction": 0.9,
                                "bidirectional": True}
    one = expect_rdma({"gpufleet_fabric": FABRIC_IB}, rdma_info=ports, device="mlx5_0", fraction=0.5)
    assert one["value"] == 200.0
    assert one["derivation"] == "50 % of 400 Gb/s (rdma_info port mlx5_0) = 200 Gb/s = 25 GB/s"


def test_rdma_latency_ceiling_whole_result():
    assert expect("rdma_lat", {"gpufleet_fabric": {"kind": "infiniband"}}) == {
        "kind": "rdma_lat", "applicable": True, "value": 3.0, "unit": "usec", "compare": "<=",
        "derivation": "ib_write_lat t_typical (2 bytes, one-way = half the round trip) at most 3 usec on infiniband "
                      "(gpufleet_fabric.kind)",
        "inputs": {"fabric_kind": "infiniband"}}


def test_rdma_not_applicable_without_hcas_keeps_its_kind():
    hardware = {"gpufleet_hardware": {"rdma_hcas": 0}, "gpufleet_fabric": FABRIC_IB}
    assert expect("rdma", hardware) == na("rdma", "RDMA HCAs (gpufleet_hardware.rdma_hcas is 0)")
    assert expect("rdma", hardware)["kind"] == "rdma"
    assert expect("rdma_lat", hardware)["kind"] == "rdma_lat"


@pytest.mark.parametrize("hardware, options, said", [
    ({}, {}, "gpufleet_fabric must be a dict, got None of type NoneType; see docs/inventory.md; pass it in hardware="),
    ({"gpufleet_fabric": {"kind": "ethernet"}}, {},
     "gpufleet_fabric.kind must be infiniband or roce, got 'ethernet' of type str"),
    ({"gpufleet_fabric": FABRIC_IB}, {"metric": "bandwidth"}, "metric must be bw or lat, got 'bandwidth' of type str"),
    ({"gpufleet_fabric": {"kind": "roce"}}, {}, "gpufleet_fabric.rate_gbps must be a finite number > 0 "
     "(0.001..10000000), got None of type NoneType" + NAN_HINT),
    ({"gpufleet_fabric": {"kind": "roce", "rate_gbps": 0}}, {}, "gpufleet_fabric.rate_gbps must be a finite number > 0 "
     "(0.001..10000000), got 0 of type int" + NAN_HINT),
    ({"gpufleet_fabric": FABRIC_IB}, {"fraction": 0},
     "fraction must be a fraction in [0.01, 1], got 0 of type int; e.g. 0.9"),
    ({"gpufleet_fabric": FABRIC_IB}, {"fraction": 1.5},
     "fraction must be a fraction in [0.01, 1], got 1.5 of type float; e.g. 0.9"),
    ({"gpufleet_fabric": FABRIC_IB}, {"fraction": "0.9"},
     "fraction must be a fraction in [0.01, 1], got '0.9' of type str; e.g. 0.9"),
])
def test_rdma_refusals_whole_message(hardware, options, said):
    with pytest.raises(ExpectationError) as err:
        expect_rdma(hardware, **options)
    assert str(err.value) == said


def test_rdma_edge_values_accepted():
    assert expect_rdma({"gpufleet_fabric": {"kind": "roce", "rate_gbps": 1}})["value"] == pytest.approx(0.9)
    assert expect_rdma({"gpufleet_fabric": FABRIC_IB}, fraction=1)["value"] == 400.0


def test_nccl_one_node_is_bound_by_nvlink():
    # H100 SXM: 450 GB/s per GPU unidirectional; 75 % = 337.5 GB/s.
    result = expect("nccl", {"gpufleet_hardware": NODE, "gpufleet_fabric": FABRIC_IB}, nodes=1)
    assert result == {
        "kind": "nccl", "applicable": True, "value": 337.5, "unit": "GB/s", "compare": ">=",
        "derivation": "NVLink bound 450 GB/s per GPU (H100 SXM, unidirectional); busbw at the largest size >= 75 % of "
                      "min = 0.75 x 450 = 337.5 GB/s (1 node x 8 GPUs)",
        "inputs": {"nodes": 1, "gpus_per_node": 8, "nvlink_gbs": 450.0, "fraction": 0.75, "bound_gbs": 450.0}}


def test_nccl_two_nodes_are_bound_by_the_network():
    # 8 HCAs x 400 Gb/s / 8 = 400 GB/s per node < 450 NVLink; 75 % of 400 = 300 GB/s.
    result = expect("nccl", {"gpufleet_hardware": NODE, "gpufleet_fabric": FABRIC_IB}, nodes=2)
    assert result == {
        "kind": "nccl", "applicable": True, "value": 300.0, "unit": "GB/s", "compare": ">=",
        "derivation": "NVLink bound 450 GB/s per GPU (H100 SXM, unidirectional); network bound 8 HCAs x 400 Gb/s / 8 = "
                      "400 GB/s per node (a ring crosses each node boundary over all HCAs at once); busbw at the "
                      "largest size >= 75 % of min = 0.75 x 400 = 300 GB/s (2 nodes x 8 GPUs)",
        "inputs": {"nodes": 2, "gpus_per_node": 8, "nvlink_gbs": 450.0, "fraction": 0.75, "hcas": 8,
                   "rate_gbps": 400.0, "network_gbs": 400.0, "bound_gbs": 400.0}}


def test_nccl_network_bound_uses_the_measured_port_rate():
    # The ports run at 200 Gb/s: 8 x 200 / 8 = 200 GB/s per node; 75 % = 150 GB/s.
    ports = [{"state": "ACTIVE", "rate_gbps": 200, "device": "mlx5_0"}]
    result = expect("nccl", {"gpufleet_hardware": NODE, "gpufleet_fabric": FABRIC_IB}, nodes=2, rdma_info=ports)
    assert result["value"] == 150.0
    assert result["inputs"]["rate_gbps"] == 200.0 and result["inputs"]["network_gbs"] == 200.0


def test_nccl_single_gpu_node_and_given_nvlink_without_model():
    result = expect("nccl", {"gpufleet_hardware": {"gpus": 1}}, nodes=1, nvlink=300, fraction=0.5)
    assert result["value"] == 150.0
    assert result["derivation"] == ("NVLink bound 300 GB/s per GPU (nvlink_gbs, unidirectional); busbw at the largest "
                                    "size >= 50 % of min = 0.5 x 300 = 150 GB/s (1 node x 1 GPUs)")


def test_nccl_not_applicable_cases():
    no_gpus = {"gpufleet_hardware": {"gpus": 0}}
    assert expect("nccl", no_gpus, nodes=1) == na("nccl", "GPUs (gpufleet_hardware.gpus is 0)")
    assert expect("nccl", no_gpus, nodes=1)["kind"] == "nccl"
    no_hcas = {"gpufleet_hardware": dict(NODE, rdma_hcas=0), "gpufleet_fabric": FABRIC_IB}
    result = expect("nccl", no_hcas, nodes=2)
    assert result == na("nccl", "RDMA HCAs for a 2-node run (gpufleet_hardware.rdma_hcas is 0)")
    assert result["kind"] == "nccl"
    assert result["reason"] == "not applicable: no RDMA HCAs for a 2-node run (gpufleet_hardware.rdma_hcas is 0)"


@pytest.mark.parametrize("node, options, said", [
    (NODE, {"nodes": "2"}, "nodes must be the number of nodes in the run (an integer 1..100000), got '2' of type str"),
    (NODE, {"nodes": 1, "fraction": 2}, "fraction must be a fraction in [0.01, 1], got 2 of type int; e.g. 0.9"),
    (dict(NODE, gpu_model="Quadro RTX"), {"nodes": 1},
     "no NVLink bandwidth known for gpufleet_hardware.gpu_model 'Quadro RTX' (known: A100-SXM, B200, GB200, H100-SXM, "
     "H200-SXM); pass nvlink_gbs=<per-GPU unidirectional GB/s>"),
    ({"gpus": 8}, {"nodes": 1},
     "no NVLink bandwidth known for gpufleet_hardware.gpu_model '' (known: A100-SXM, B200, GB200, H100-SXM, "
     "H200-SXM); pass nvlink_gbs=<per-GPU unidirectional GB/s>"),
    (dict(NODE, rdma_hcas="eight"), {"nodes": 2},
     "gpufleet_hardware.rdma_hcas must be a whole number 1..1024, got 'eight' of type str"),
])
def test_nccl_refusals_whole_message(node, options, said):
    with pytest.raises(ExpectationError) as err:
        expect("nccl", {"gpufleet_hardware": node, "gpufleet_fabric": FABRIC_IB}, **options)
    assert str(err.value) == said


def test_expect_passes_options_to_lustre():
    hardware = {"gpufleet_lustre": {"osts": 2}, "gpufleet_plan_lustre": {"ost_bw_gbs": 10}}
    assert expect("lustre", hardware, fraction=0.5)["value"] == 10.0


@pytest.mark.parametrize("kind, hardware, said", [
    ("rdma", [], "hardware must be a dict of the inventory variables (gpufleet_fabric, gpufleet_hardware, ...), got [] "
     "of type list"),
    ("disk", {}, "kind must be one of rdma, rdma_lat, nccl, lustre, filesystem, gpu, got 'disk' of type str"),
])
def test_expect_refusals_whole_message(kind, hardware, said):
    with pytest.raises(ExpectationError) as err:
        expect(kind, hardware)
    assert str(err.value) == said


def test_an_impossible_port_rate_is_not_the_tested_port():
    # 1e308 Gb/s is finite, but x 2 directions it is not: such a port is ignored like a port without a rate, and the
    # floor comes from the fabric's rate. With it every number printed in a derivation is finite.
    ports = [{"state": "ACTIVE", "rate_gbps": 1e308, "device": "mlx5_9"},
             {"state": "ACTIVE", "rate_gbps": 10000001, "device": "mlx5_9"}]
    result = expect_rdma({"gpufleet_fabric": FABRIC_IB}, rdma_info=ports, device="mlx5_9", bidirectional=True)
    assert result["inputs"]["source"] == "gpufleet_fabric.rate_gbps"
    assert result["derivation"] == ("90 % of 400 Gb/s (gpufleet_fabric.rate_gbps) x 2 directions (bidirectional test) "
                                    "= 720 Gb/s = 90 GB/s")
    at_most = expect_rdma({"gpufleet_fabric": FABRIC_IB}, rdma_info=[{"state": "ACTIVE", "rate_gbps": 10000000}])
    assert at_most["inputs"]["rate_gbps"] == 10000000.0


# The input rules' edges and messages (the mutation run of 2026-11-27 on the grown validation code).
def test_the_edges_of_each_number_rule_are_accepted():
    from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.expect import (
        MAX_COUNT, MAX_NUMBER, MIN_FRACTION, MIN_NUMBER, count, positive_number)
    assert positive_number(MIN_NUMBER, "x") == MIN_NUMBER and positive_number(MAX_NUMBER, "x") == MAX_NUMBER
    assert count(0, "x") == 0 and count("0", "x") == 0 and count(MAX_COUNT, "x") == MAX_COUNT
    assert expect_rdma({"gpufleet_fabric": FABRIC_IB}, fraction=MIN_FRACTION)["value"] == pytest.approx(4.0)
    assert expect_filesystem(MIN_NUMBER)["value"] == MIN_NUMBER and expect_filesystem(MAX_NUMBER)["value"] == MAX_NUMBER
    h100 = {"gpufleet_hardware": {"gpus": 8, "gpu_model": "H100-SXM"}}
    assert expect("nccl", h100, nodes=MAX_COUNT)["kind"] == "nccl"  # not refused


def test_a_port_rate_of_zero_is_no_rate_and_one_below_a_gigabit_is_one():
    ports = [{"state": "ACTIVE", "rate_gbps": 0, "device": "mlx5_0"}]
    source = expect_rdma({"gpufleet_fabric": FABRIC_IB}, rdma_info=ports)["inputs"]["source"]
    assert source == "gpufleet_fabric.rate_gbps"
    ports = [{"state": "ACTIVE", "rate_gbps": 0.5, "device": "mlx5_0"}]
    assert expect_rdma({"gpufleet_fabric": FABRIC_IB}, rdma_info=ports)["inputs"]["rate_gbps"] == 0.5


@pytest.mark.parametrize("clocks, said", [
    ([0, 1980],
     "gpu_tuning_profiles['M'].application_clocks[0] (memory MHz) must be a whole number 1..100000, got 0 of type int"),
    ([2619, 0],
     "gpu_tuning_profiles['M'].application_clocks[1] (graphics MHz) must be a whole number 1..100000, got 0 of "
     "type int"),
])
def test_an_application_clock_of_zero_is_refused(clocks, said):
    with pytest.raises(ExpectationError) as caught:
        expect("gpu", {"gpu_tuning_profiles": {"M": {"power_limit_w": 700, "application_clocks": clocks}}}, model="M")
    assert str(caught.value) == said


def test_an_application_clock_of_one_mhz_is_accepted():
    result = expect("gpu", {"gpu_tuning_profiles": {"M": {"power_limit_w": 700, "application_clocks": [1, 1]}}},
                    model="M")
    assert result["application_clocks_mhz"] == {"memory": 1, "graphics": 1}


@pytest.mark.parametrize("call, said", [
    (lambda: expect_rdma({"gpufleet_fabric": FABRIC_IB}, device=5),
     "device must be an RDMA device name such as mlx5_0, got 5 of type int"),
    (lambda: expect_rdma({"gpufleet_fabric": FABRIC_IB}, bidirectional="yes"),
     "bidirectional must be true or false, got 'yes' of type str"),
    (lambda: expect_filesystem(1, path=7), "path must be the mount's path, got 7 of type int"),
    (lambda: expect(7, {}), "kind must be one of rdma, rdma_lat, nccl, lustre, filesystem, gpu, got 7 of type int"),
    (lambda: expect("disk", {}),
     "kind must be one of rdma, rdma_lat, nccl, lustre, filesystem, gpu, got 'disk' of type str"),
    # rdma_lat passes its options on: a device that is not a name is refused there too.
    (lambda: expect("rdma_lat", {"gpufleet_fabric": FABRIC_IB}, device=5),
     "device must be an RDMA device name such as mlx5_0, got 5 of type int"),
])
def test_each_refusal_word_for_word(call, said):
    with pytest.raises(ExpectationError) as caught:
        call()
    assert str(caught.value) == said


def test_docs_reference_power_is_the_inventorys(hardware):
    """docs/validate.md's reference figure for the GPU power limit is the one the inventory derives (the rack's GPU
    power cap), not a number of its own (issue 28: it said 700 W while the inventory caps GPUs at 319 W)."""
    import os
    docs = os.path.join(os.path.dirname(__file__), *[os.pardir] * 5, "docs", "validate.md")
    with open(docs, encoding="utf-8") as handle:
        row = next(line for line in handle if line.startswith("| `gpu` |"))
    watts = expect("gpu", hardware, model="NVIDIA H100 80GB HBM3")["power_limit_w"]
    assert "**%d W**, the rack's GPU power cap (`gpufleet_gpu_power_cap_w`" % watts in row
    assert "**700 W**" not in row
