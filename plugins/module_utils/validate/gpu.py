# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""GPU state checks of validate.yml: power limit and application clocks as configured, ECC and thermal state.

Input: the GPUs of smi.parse_nvidia_smi_q (one node) and expect.expect_gpu's expectation.
Output: one check result per check for the node (validate_report's entry format), naming the GPUs that fail.
The ECC and thermal verdicts are those of the Slurm health check (docs/gpu-health.md): volatile uncorrectable
ECC errors, pending or failed row remapping, pending page retirement, HW (thermal) slowdown active, or a
temperature within 5 C of shutdown fail; at or above the slowdown threshold fails here too, because a
validation run expects an idle or just-loaded GPU well below it.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import must_be
from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.expect import ExpectationError

SHUTDOWN_MARGIN_C = 5
POWER_TOLERANCE_W = 1.0   # nvidia-smi prints 700.00 W; NVML rounds milliwatts


def _label(gpu: Dict[str, Any]) -> str:
    return "GPU %s (%s)" % (gpu.get("index"), gpu.get("bus_id"))


def _result(check: str, node: Optional[str], bad: List[str], measured: Any, expected: Any, unit: Optional[str],
            ok_detail: str) -> Dict[str, Any]:
    return {"check": check, "node": node, "status": "fail" if bad else "pass", "measured": measured,
            "expected": expected, "unit": unit, "detail": "; ".join(bad) if bad else ok_detail}


def _power(gpus: List[Dict[str, Any]], expect: Dict[str, Any], node: Optional[str]) -> Optional[Dict[str, Any]]:
    wanted = expect.get("power_limit_w")
    if wanted is None:
        return None
    if wanted != "default" and (isinstance(wanted, bool) or not isinstance(wanted, (int, float))
                                or not math.isfinite(wanted) or wanted <= 0):
        raise must_be("expect.power_limit_w", wanted, "watts (a finite number > 0) or default", ExpectationError,
                      "as validate_expect kind gpu returns it")
    bad, seen = [], []
    for gpu in gpus:
        target = gpu.get("power_default_limit_w") if wanted == "default" else float(wanted)
        # power_limit_w is the limit set (nvidia-smi -pl, gpu_tuning), power_enforced_limit_w the one in force after
        # every limiter (nvidia-smi's 'Current Power Limit'); both must be the profile's.
        have = gpu.get("power_limit_w")
        enforced = gpu.get("power_enforced_limit_w")
        seen.append(enforced if enforced is not None else have)
        if have is None or target is None or abs(have - target) > POWER_TOLERANCE_W:
            bad.append("%s: power limit %s W, expected %s W" % (_label(gpu), have, target))
        elif enforced is not None and abs(enforced - target) > POWER_TOLERANCE_W:
            bad.append("%s: power limit %s W but %s W enforced (another limiter caps it), expected %s W"
                       % (_label(gpu), have, enforced, target))
    measured = min((value for value in seen if value is not None), default=None)
    expected = wanted if wanted == "default" else float(wanted)
    return _result("gpu_power_limit", node, bad, measured, expected, "W",
                   "%d GPUs at %s W" % (len(gpus), measured))


def power_cap_check(gpus: List[Dict[str, Any]], cap_w: Any, node: Optional[str] = None) -> Dict[str, Any]:
    """gpu_power_cap: the limit every GPU enforces equals the plan's GPU power cap (gpufleet_gpu_power_cap_w,
    docs/power.md "Rack budgets"). The enforced limit is nvidia-smi's "Enforced Power Limit"; where a driver does
    not report it, its current power limit, and the detail says so."""
    cap = float(cap_w)
    bad, seen, fallback = [], [], []
    for gpu in gpus:
        have = gpu.get("power_enforced_limit_w")
        if have is None and gpu.get("power_limit_w") is not None:
            have = gpu.get("power_limit_w")
            fallback.append(str(gpu.get("index")))
        seen.append(have)
        if have is None or abs(have - cap) > POWER_TOLERANCE_W:
            bad.append("%s: enforced power limit %s W, the rack's GPU power cap is %s W" % (_label(gpu), have, cap_w))
    if not gpus:
        bad.append("no GPU found to check against the rack's GPU power cap of %s W" % cap_w)
    measured = max((value for value in seen if value is not None), default=None)
    note = "" if not fallback else " (GPU %s: no enforced limit reported, current limit used)" % ", ".join(fallback)
    return _result("gpu_power_cap", node, bad, measured, cap, "W",
                   "%d GPUs enforce the rack's GPU power cap of %s W%s" % (len(gpus), cap_w, note))


def _clocks(gpus: List[Dict[str, Any]], expect: Dict[str, Any], node: Optional[str]) -> Optional[Dict[str, Any]]:
    wanted = expect.get("application_clocks_mhz")
    if wanted is None:
        return None
    bad = []
    for gpu in gpus:
        target = gpu.get("default_application_clocks_mhz") if wanted == "default" else wanted
        have = gpu.get("application_clocks_mhz") or {}
        if not target or have.get("memory") != target.get("memory") or have.get("graphics") != target.get("graphics"):
            bad.append("%s: application clocks %s/%s MHz, expected %s/%s MHz (memory/graphics)"
                       % (_label(gpu), have.get("memory"), have.get("graphics"),
                          (target or {}).get("memory"), (target or {}).get("graphics")))
    first = gpus[0].get("application_clocks_mhz") or {} if gpus else {}
    expected = wanted if wanted == "default" else "%d/%d" % (wanted["memory"], wanted["graphics"])
    return _result("gpu_clocks", node, bad, "%s/%s" % (first.get("memory"), first.get("graphics")), expected,
                   "MHz", "%d GPUs at memory/graphics %s MHz" % (len(gpus), expected))


def _ecc(gpus: List[Dict[str, Any]], node: Optional[str]) -> Dict[str, Any]:
    bad, total = [], 0
    for gpu in gpus:
        found = []
        volatile = gpu.get("ecc_volatile_uncorrectable") or 0
        total += volatile
        if volatile:
            found.append("%d volatile uncorrectable ECC errors" % volatile)
        if gpu.get("remapped_rows_pending"):
            found.append("row remap pending")
        if gpu.get("remapped_rows_failure"):
            found.append("row remap failure")
        if gpu.get("retired_pages_pending"):
            found.append("page retirement pending")
        if gpu.get("ecc_mode") == "Disabled":
            found.append("ECC disabled")
        if found:
            bad.append("%s: %s" % (_label(gpu), ", ".join(found)))
    aggregate = sum(gpu.get("ecc_aggregate_uncorrectable") or 0 for gpu in gpus)
    return _result("gpu_ecc", node, bad, total, 0, "volatile uncorrectable errors",
                   "%d GPUs: no volatile uncorrectable errors, no pending remaps%s"
                   % (len(gpus), "" if not aggregate else " (%d aggregate uncorrectable in the past)" % aggregate))


def _thermal(gpus: List[Dict[str, Any]], node: Optional[str]) -> Dict[str, Any]:
    bad, hottest, slowdown = [], None, None
    for gpu in gpus:
        temp, down, off = gpu.get("temperature_c"), gpu.get("slowdown_c"), gpu.get("shutdown_c")
        if temp is not None and (hottest is None or temp > hottest):
            hottest = temp
        if down is not None and (slowdown is None or down < slowdown):
            slowdown = down
        events = gpu.get("clock_events_active") or []
        if temp is not None and off is not None and temp >= off - SHUTDOWN_MARGIN_C:
            bad.append("%s: %d C within %d C of shutdown %d C" % (_label(gpu), temp, SHUTDOWN_MARGIN_C, off))
        elif temp is not None and down is not None and temp >= down:
            bad.append("%s: %d C at or above slowdown %d C" % (_label(gpu), temp, down))
        for event in ("HW Slowdown", "HW Thermal Slowdown"):
            if event in events:
                bad.append("%s: %s active" % (_label(gpu), event))
    return _result("gpu_thermal", node, bad, hottest, slowdown, "C",
                   "%d GPUs, hottest %s C, below slowdown %s C" % (len(gpus), hottest, slowdown))


def gpu_checks(gpus: List[Dict[str, Any]], expect: Optional[Dict[str, Any]], node: Optional[str] = None,
               expected_count: Optional[int] = None) -> List[Dict[str, Any]]:
    """gpu_count (when expected_count is given), gpu_power_limit, gpu_clocks, gpu_power_cap (when the expectation
    carries the plan's power_cap_w), gpu_ecc, gpu_thermal."""
    results: List[Dict[str, Any]] = []
    if expected_count is not None:
        results.append(_result("gpu_count", node, [] if len(gpus) == expected_count else
                               ["%d GPUs found, expected %d" % (len(gpus), expected_count)],
                               len(gpus), expected_count, "GPUs", "%d GPUs found" % len(gpus)))
    if expect is not None and expect.get("applicable"):
        for made in (_power(gpus, expect, node), _clocks(gpus, expect, node)):
            if made is not None:
                made["derivation"] = expect.get("derivation")
                results.append(made)
    if expect is not None and expect.get("power_cap_w") is not None:
        results.append(power_cap_check(gpus, expect["power_cap_w"], node))
    results.append(_ecc(gpus, node))
    results.append(_thermal(gpus, node))
    return results
