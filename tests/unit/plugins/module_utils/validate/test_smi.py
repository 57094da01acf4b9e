# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""validate/smi.py (and the checks of validate/gpu.py on what it reads) against the recorded 8x H100 nvidia-smi -q and
the --query-gpu CSV; then two driver generations: 535 writes 'Power Draw', 580 'Average Power Draw' and
'Instantaneous Power Draw'; both write 'Current Power Limit' (enforced) and 'Requested Power Limit' (the one set).
Read from the real recordings in tests/fixtures/reference/outputs/nvidia-smi/, values checked by hand."""
from __future__ import annotations

import os

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter.nvidia_smi_parse import nvidia_smi_parse
from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.gpu import gpu_checks
from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.smi import (
    NvidiaSmiParseError, parse_nvidia_smi_q, parse_query_gpu_csv,
)
from reference import outputs

_SMI = outputs("nvidia-smi")
H100_Q = "nvidia-smi-q.h100-80gb-hbm3-x8.535.183.01.gpud.txt"
EXPECT = {"applicable": True, "power_limit_w": 700.0, "application_clocks_mhz": {"memory": 2619, "graphics": 1980},
          "derivation": "power limit 700 W, application clocks memory 2619 / graphics 1980 MHz"}


def _reference(name):
    with open(os.path.join(_SMI, name), encoding="utf-8") as handle:
        return handle.read()


def _by_check(results):
    return {result["check"]: result for result in results}


def test_h100_q_values():
    gpus = parse_nvidia_smi_q(_reference(H100_Q))
    assert [gpu["bus_id"] for gpu in gpus] == ["0000:%s:00.0" % bus for bus in
                                               ("53", "64", "75", "86", "97", "a8", "b9", "ca")]
    gpu0 = gpus[0]
    assert gpu0["name"] == "NVIDIA H100 80GB HBM3" and gpu0["persistence_mode"] == "Enabled"
    assert (gpu0["power_limit_w"], gpu0["power_default_limit_w"], gpu0["power_max_limit_w"], gpu0["power_draw_w"]) == \
        (700.0, 700.0, 700.0, 71.97)
    assert gpu0["application_clocks_mhz"] == {"graphics": 1980, "memory": 2619}
    assert gpu0["clocks_mhz"] == {"graphics": 345, "memory": 2619}
    assert (gpu0["ecc_mode"], gpu0["ecc_volatile_uncorrectable"], gpu0["ecc_aggregate_uncorrectable"]) == \
        ("Enabled", 0, 0)
    assert (gpu0["remapped_rows_pending"], gpu0["remapped_rows_failure"], gpu0["retired_pages_pending"]) == \
        (False, False, None)
    # 535 prints T.Limit margins: 36 C now, 50 C of headroom, shutdown at -8, slowdown at -2:
    # T.Limit = 36 + 50 = 86, shutdown 86 + 8 = 94 C, slowdown 86 + 2 = 88 C.
    assert (gpu0["temperature_c"], gpu0["shutdown_c"], gpu0["slowdown_c"]) == (36, 94, 88)
    assert [gpu["temperature_c"] for gpu in gpus] == [36, 37, 39, 39, 38, 36, 37, 35]
    assert gpus[2]["clock_events_active"] == ["SW Power Cap", "HW Power Brake Slowdown", "SW Thermal Slowdown"]


def test_recorded_node_passes_the_tuning_profile():
    results = _by_check(gpu_checks(parse_nvidia_smi_q(_reference(H100_Q)), EXPECT, "compute01", 8))
    assert sorted(results) == ["gpu_clocks", "gpu_count", "gpu_ecc", "gpu_power_limit", "gpu_thermal"]
    assert all(result["status"] == "pass" for result in results.values())
    assert (results["gpu_power_limit"]["measured"], results["gpu_power_limit"]["expected"]) == (700.0, 700.0)
    assert (results["gpu_clocks"]["measured"], results["gpu_clocks"]["expected"]) == ("2619/1980", "2619/1980")
    # Hottest GPU 39 C against the lowest slowdown threshold 88 C.
    assert (results["gpu_thermal"]["measured"], results["gpu_thermal"]["expected"]) == (39, 88)


def test_failures_are_named_per_gpu():
    text = _reference(H100_Q)
    # GPU 0's remapped rows pending, GPU 0 at 500 W: the first occurrences in the file belong to GPU 0.
    text = text.replace("        Pending                           : No", "        Pending                           : Yes", 1)
    text = text.replace("        Current Power Limit               : 700.00 W",
                        "        Current Power Limit               : 500.00 W", 1)
    text = text.replace("        GPU Current Temp                  : 36 C", "        GPU Current Temp                  : 90 C", 1)
    results = _by_check(gpu_checks(parse_nvidia_smi_q(text), EXPECT, "compute01", 8))
    assert results["gpu_ecc"]["status"] == "fail"
    assert results["gpu_ecc"]["detail"] == "GPU 0 (0000:53:00.0): row remap pending"
    # 'Current Power Limit' is the enforced limit (535+); the requested one stays 700 W.
    assert results["gpu_power_limit"]["detail"] == ("GPU 0 (0000:53:00.0): power limit 700.0 W but 500.0 W enforced "
                                                    "(another limiter caps it), expected 700.0 W")
    assert results["gpu_power_limit"]["measured"] == 500.0
    # 90 C with T.Limit margins unchanged: T.Limit 140, shutdown 148, slowdown 142 - the margins are relative,
    # so raising only the current temperature moves the thresholds too; the hottest is reported.
    assert results["gpu_thermal"]["measured"] == 90 and results["gpu_thermal"]["status"] == "pass"
    missing = _by_check(gpu_checks(parse_nvidia_smi_q(text), None, "compute01", 9))
    assert missing["gpu_count"]["detail"] == "8 GPUs found, expected 9" and "gpu_power_limit" not in missing


def test_absolute_thresholds_and_hw_slowdown():
    text = ("GPU 00000000:3B:00.0\n    Product Name : Tesla V100\n    Temperature\n        GPU Current Temp : 86 C\n"
            "        GPU Shutdown Temp : 90 C\n        GPU Slowdown Temp : 87 C\n    Clocks Throttle Reasons\n"
            "        HW Slowdown : Active\n    ECC Errors\n        Volatile\n            Double Bit\n"
            "                Total : 2\n")
    gpu = parse_nvidia_smi_q(text)[0]
    assert (gpu["temperature_c"], gpu["shutdown_c"], gpu["slowdown_c"], gpu["ecc_volatile_uncorrectable"]) == \
        (86, 90, 87, 2)
    results = _by_check(gpu_checks([gpu], None, "old01"))
    # 86 >= 90 - 5: within 5 C of shutdown; HW Slowdown active.
    assert results["gpu_thermal"]["detail"] == ("GPU 0 (0000:3b:00.0): 86 C within 5 C of shutdown 90 C; "
                                                "GPU 0 (0000:3b:00.0): HW Slowdown active")
    assert results["gpu_ecc"]["detail"] == "GPU 0 (0000:3b:00.0): 2 volatile uncorrectable ECC errors"


def test_query_gpu_csv():
    text = _reference("query-gpu-name-busid-vbios.8xH100.ml-engineering.csv")
    # The capture keeps the author's `[...]` elision line: not nvidia-smi output, so it is refused by line.
    with pytest.raises(NvidiaSmiParseError) as info:
        parse_query_gpu_csv(text)
    assert str(info.value) == "nvidia-smi line 3: 1 fields, expected 3 (name, pci.bus_id, vbios_version): '[...]'"
    rows = parse_query_gpu_csv(text.replace("[...]\n", ""))
    assert rows == [{"name": "NVIDIA H100 80GB HBM3", "pci.bus_id": "00000000:04:00.0", "vbios_version": "96.00.89.00.01"},
                    {"name": "NVIDIA H100 80GB HBM3", "pci.bus_id": "00000000:8B:00.0", "vbios_version": "96.00.89.00.01"}]


def test_query_gpu_csv_units_and_missing_values():
    text = ("index, power.limit [W], clocks.applications.graphics [MHz], temperature.gpu, ecc.errors.uncorrected.volatile.total\n"
            "0, 700.00 W, 1980 MHz, 36, 0\n1, [N/A], 1980 MHz, 37, [Not Supported]\n")
    assert parse_query_gpu_csv(text) == [
        {"index": 0, "power.limit": 700.0, "clocks.applications.graphics": 1980, "temperature.gpu": 36,
         "ecc.errors.uncorrected.volatile.total": 0},
        {"index": 1, "power.limit": None, "clocks.applications.graphics": 1980, "temperature.gpu": 37,
         "ecc.errors.uncorrected.volatile.total": None}]


def test_errors():
    with pytest.raises(NvidiaSmiParseError, match=r"^nvidia-smi line 1: no 'GPU 00000000:BB:DD.F' section"):
        parse_nvidia_smi_q("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n")
    with pytest.raises(NvidiaSmiParseError, match="line 1: not a --query-gpu header"):
        parse_query_gpu_csv("NVIDIA H100 80GB HBM3, 00000000:04:00.0\n")
    with pytest.raises(NvidiaSmiParseError, match="empty output"):
        parse_query_gpu_csv("\n")
    with pytest.raises(NvidiaSmiParseError) as info:
        parse_nvidia_smi_q(None)
    assert str(info.value) == "nvidia-smi: input must be the text of nvidia-smi -q, got None of type NoneType"
    with pytest.raises(NvidiaSmiParseError) as info:
        parse_query_gpu_csv(["name"])
    assert str(info.value) == ("nvidia-smi: input must be the CSV text of nvidia-smi --query-gpu, got ['name'] of "
                               "type list")


# ---------------------------------------------------------------- two driver generations: 535 and 580
def test_driver_580_h100_vm():
    (gpu,) = parse_nvidia_smi_q(_reference("nvidia-smi-q.h100-80gb-hbm3-x1-vm.580.159.04.txt"))
    # GPU Power Readings: Average 72.59 W, Instantaneous 73.49 W, Current/Requested/Default/Max 700 W.
    assert (gpu["power_draw_w"], gpu["power_draw_instant_w"]) == (72.59, 73.49)
    assert (gpu["power_limit_w"], gpu["power_enforced_limit_w"], gpu["power_default_limit_w"],
            gpu["power_max_limit_w"]) == (700.0, 700.0, 700.0, 700.0)
    assert (gpu["bus_id"], gpu["name"], gpu["persistence_mode"]) == ("0000:00:06.0", "NVIDIA H100 80GB HBM3", "Enabled")
    assert gpu["application_clocks_mhz"] == {"graphics": 1980, "memory": 2619}
    assert gpu["clocks_mhz"] == {"graphics": 345, "memory": 2619}
    # T.Limit = 42 + 45 = 87 C; shutdown 87 - (-8) = 95 C, slowdown 87 - (-2) = 89 C.
    assert (gpu["temperature_c"], gpu["shutdown_c"], gpu["slowdown_c"]) == (42, 95, 89)
    assert (gpu["ecc_mode"], gpu["ecc_volatile_uncorrectable"], gpu["ecc_aggregate_uncorrectable"]) == ("Enabled", 0, 0)
    assert (gpu["remapped_rows_pending"], gpu["remapped_rows_failure"], gpu["retired_pages_pending"]) == \
        (False, False, None)
    assert gpu["clock_events_active"] == ["Idle"]


def test_driver_535_h100_x8():
    gpus = parse_nvidia_smi_q(_reference("nvidia-smi-q.h100-80gb-hbm3-x8.535.183.01.gpud.txt"))
    assert len(gpus) == 8 and gpus[0]["bus_id"] == "0000:53:00.0"
    # GPU 0: Power Draw 71.97 W, Current/Requested 700 W; 535 has no instantaneous reading.
    assert (gpus[0]["power_draw_w"], gpus[0]["power_draw_instant_w"]) == (71.97, None)
    assert (gpus[0]["power_limit_w"], gpus[0]["power_enforced_limit_w"]) == (700.0, 700.0)
    assert gpus[1]["power_draw_w"] == 68.88


@pytest.mark.parametrize("name", ["nvidia-smi-q.h100-80gb-hbm3-x1-vm.580.159.04.txt",
                                  "nvidia-smi-q.h100-80gb-hbm3-x8.535.183.01.gpud.txt"])
def test_the_power_check_passes_on_both_generations(name):
    checks = {c["check"]: c for c in nvidia_smi_parse(_reference(name), expect=EXPECT, node="n1")["checks"]}
    assert (checks["gpu_power_limit"]["status"], checks["gpu_power_limit"]["measured"]) == ("pass", 700.0)


def test_old_driver_keys_and_a_capped_limit():
    # Before 530: 'Power Readings' with Power Limit / Enforced Power Limit; a platform cap shows as the enforced one.
    old = ("GPU 00000000:53:00.0\n    Product Name : Tesla V100\n    Power Readings\n        Power Draw : 41.50 W\n"
           "        Power Limit : 300.00 W\n        Enforced Power Limit : 250.00 W\n")
    (gpu,) = parse_nvidia_smi_q(old)
    assert (gpu["power_draw_w"], gpu["power_limit_w"], gpu["power_enforced_limit_w"]) == (41.5, 300.0, 250.0)
    capped = ("GPU 00000000:53:00.0\n    GPU Power Readings\n        Average Power Draw : N/A\n"
              "        Current Power Limit : 500.00 W\n        Requested Power Limit : 700.00 W\n")
    (gpu,) = parse_nvidia_smi_q(capped)
    assert (gpu["power_draw_w"], gpu["power_limit_w"], gpu["power_enforced_limit_w"]) == (None, 700.0, 500.0)


@pytest.mark.parametrize("args, kwargs", [((None,), {}), ((5,), {}), ((["x"],), {}), (("",), {}), (("x",), {}),
                                          (("x",), {"format": "xml"}), (("x",), {"format": ["q"]}),
                                          (("x",), {"expected_count": "8"}), (("x",), {"expect": "700"}),
                                          (("a,b\n1",), {"format": "csv"}),
                                          (("GPU 00000000:53:00.0\n",),
                                           {"expect": {"applicable": True, "power_limit_w": "x"}}),
                                          (("GPU 00000000:53:00.0\n",),
                                           {"expect": {"applicable": True, "power_limit_w": float("nan")}})])
def test_wrong_types_are_clear_errors(args, kwargs):
    with pytest.raises(AnsibleFilterError, match="^gpufleet.cluster.nvidia_smi_parse: "):
        nvidia_smi_parse(*args, **kwargs)
