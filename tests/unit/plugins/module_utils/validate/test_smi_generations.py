# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""nvidia-smi -q of two driver generations (issue 13): 535 writes 'Power Draw', 580 'Average Power Draw' and
'Instantaneous Power Draw'; both write 'Current Power Limit' (enforced) and 'Requested Power Limit' (the one set).
Read from the real recordings in tests/fixtures/reference/outputs/nvidia-smi/, values checked by hand."""
from __future__ import annotations

import os

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter.nvidia_smi_parse import nvidia_smi_parse
from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.smi import parse_nvidia_smi_q

_SMI = os.path.join(os.path.dirname(os.path.dirname(__file__)), "..", "..", "..", "fixtures", "reference", "outputs", "nvidia-smi")
EXPECT = {"applicable": True, "power_limit_w": 700.0, "application_clocks_mhz": {"memory": 2619, "graphics": 1980},
          "derivation": "power limit 700 W, application clocks memory 2619 / graphics 1980 MHz"}


def _read(name):
    with open(os.path.join(_SMI, name), encoding="utf-8") as handle:
        return handle.read()


def test_driver_580_h100_vm():
    (gpu,) = parse_nvidia_smi_q(_read("nvidia-smi-q.h100-80gb-hbm3-x1-vm.580.159.04.txt"))
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
    gpus = parse_nvidia_smi_q(_read("nvidia-smi-q.h100-80gb-hbm3-x8.535.183.01.gpud.txt"))
    assert len(gpus) == 8 and gpus[0]["bus_id"] == "0000:53:00.0"
    # GPU 0: Power Draw 71.97 W, Current/Requested 700 W; 535 has no instantaneous reading.
    assert (gpus[0]["power_draw_w"], gpus[0]["power_draw_instant_w"]) == (71.97, None)
    assert (gpus[0]["power_limit_w"], gpus[0]["power_enforced_limit_w"]) == (700.0, 700.0)
    assert gpus[1]["power_draw_w"] == 68.88


@pytest.mark.parametrize("name", ["nvidia-smi-q.h100-80gb-hbm3-x1-vm.580.159.04.txt",
                                  "nvidia-smi-q.h100-80gb-hbm3-x8.535.183.01.gpud.txt"])
def test_the_power_check_passes_on_both_generations(name):
    checks = {c["check"]: c for c in nvidia_smi_parse(_read(name), expect=EXPECT, node="n1")["checks"]}
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
