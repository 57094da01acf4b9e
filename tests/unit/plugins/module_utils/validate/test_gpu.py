# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""validate/gpu.py: validate.yml's gpu_power_cap check, every GPU enforces the power plan's GPU cap (docs/power.md)."""
from __future__ import annotations

from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.gpu import gpu_checks, power_cap_check
from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.smi import parse_nvidia_smi_q
from reference import outputs

RECORDED = outputs("nvidia-smi", "nvidia-smi-q.h100-80gb-hbm3-x8.535.183.01.gpud.txt")


def _recorded_gpus():
    with open(RECORDED, encoding="utf-8") as handle:
        return parse_nvidia_smi_q(handle.read())


def test_recorded_node_at_700_w_passes_a_700_w_cap_and_fails_the_319_w_cap():
    gpus = _recorded_gpus()
    assert len(gpus) == 8
    ok = power_cap_check(gpus, 700, "compute01")
    assert ok["status"] == "pass" and ok["measured"] == 700.0 and ok["expected"] == 700.0
    bad = power_cap_check(gpus, 319, "compute01")
    assert bad["status"] == "fail" and bad["check"] == "gpu_power_cap" and bad["node"] == "compute01"
    assert bad["detail"].count("power limit 700.0 W, the rack's GPU power cap is 319 W") == 8
    assert bad["detail"].startswith("GPU 0 (")


def test_enforced_limit_is_preferred_and_one_gpu_off_fails():
    gpus = [{"index": i, "bus_id": "b%d" % i, "power_enforced_limit_w": 319.0, "power_limit_w": 700.0} for i in range(8)]
    assert power_cap_check(gpus, 319, "n")["status"] == "pass"
    gpus[5]["power_enforced_limit_w"] = 700.0
    result = power_cap_check(gpus, 319, "n")
    assert result["status"] == "fail" and result["detail"] == "GPU 5 (b5): enforced power limit 700.0 W, the rack's GPU power cap is 319 W"


def test_no_limit_reported_and_no_gpus_fail():
    assert power_cap_check([{"index": 0, "bus_id": "b"}], 319)["status"] == "fail"
    assert power_cap_check([], 319)["detail"] == "no GPU found to check against the rack's GPU power cap of 319 W"


def test_gpu_checks_run_the_cap_only_when_the_plan_sets_one():
    gpus = [{"index": 0, "bus_id": "b", "power_enforced_limit_w": 319.0}]
    names = [r["check"] for r in gpu_checks(gpus, {"applicable": False, "power_cap_w": 319})]
    assert names == ["gpu_power_cap", "gpu_ecc", "gpu_thermal"]
    assert [r["check"] for r in gpu_checks(gpus, {"applicable": False, "power_cap_w": None})] == ["gpu_ecc", "gpu_thermal"]
