# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Compare, validate and apply GPU settings through NVML, for the gpu_settings module (stdlib only).

The flow is read_state -> plan_all -> apply_changes. plan_all checks EVERY selected GPU before it
returns a single change, so a power limit one GPU refuses stops the run before any GPU was touched.

Read-backs: persistence mode, power limit and application clocks are read from NVML. Locked GPU
clocks are not: NVML has nvmlDeviceSetGpuLockedClocks and nvmlDeviceResetGpuLockedClocks but no
getter (see docs/gpu-settings.md), so their current value comes from gpu/clock_record's record.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import must_be
from ansible_collections.gpufleet.cluster.plugins.module_utils.gpu.nvml import (
    NVML_ERROR_NO_PERMISSION, GpuIdentity, GpuSettingsError, call, constant, error_code, optional, required,
)

RESET_WORDS = ("default", "reset")
SETTINGS_ORDER = ("persistence_mode", "power_limit", "application_clocks", "locked_clocks")


class GpuApplyError(GpuSettingsError):
    """An NVML setter failed; ``applied`` lists the changes made before it."""

    def __init__(self, message: str, applied: Sequence["Change"]):
        super().__init__(message)
        self.applied = list(applied)


class GpuPermissionError(GpuApplyError):
    """NVML answered NO_PERMISSION: the setting needs root."""


@dataclass(frozen=True)
class DesiredSettings:
    """What the task asks for; None leaves a setting alone."""
    persistence_mode: Optional[bool] = None
    power_limit_mw: Optional[int] = None
    power_limit_default: bool = False
    application_clocks: Optional[Tuple[int, int]] = None    # (memory MHz, graphics MHz), nvidia-smi -ac order
    application_clocks_default: bool = False
    locked_clocks: Optional[Tuple[int, int]] = None         # (min MHz, max MHz), nvidia-smi -lgc order
    locked_clocks_reset: bool = False

    def asks_for(self, setting: str) -> bool:
        return {
            "persistence_mode": self.persistence_mode is not None,
            "power_limit": self.power_limit_mw is not None or self.power_limit_default,
            "application_clocks": self.application_clocks is not None or self.application_clocks_default,
            "locked_clocks": self.locked_clocks is not None or self.locked_clocks_reset,
        }[setting]


@dataclass
class GpuState:
    """The settings of one GPU as read now (locked clocks: as recorded, see locked_clocks_known)."""
    gpu: GpuIdentity
    persistence_mode: Optional[bool]
    power_limit_mw: Optional[int]
    power_default_mw: Optional[int]
    power_min_mw: Optional[int]
    power_max_mw: Optional[int]
    application_clocks: Optional[Tuple[int, int]]
    default_application_clocks: Optional[Tuple[int, int]]
    supported_clocks: Optional[Dict[int, List[int]]]      # memory MHz -> graphics MHz NVML accepts with it
    max_graphics_mhz: Optional[int]
    locked_clocks_known: bool = False
    locked_clocks: Optional[Tuple[int, int]] = None       # None with locked_clocks_known: unlocked

    def view(self, setting: str) -> Any:
        """The setting as the diff and the results show it."""
        if setting == "persistence_mode":
            return self.persistence_mode
        if setting == "power_limit":
            return watts_number(self.power_limit_mw)
        if setting == "application_clocks":
            return clocks_view(self.application_clocks, "memory_mhz", "graphics_mhz")
        if not self.locked_clocks_known:
            return "unknown"
        return clocks_view(self.locked_clocks, "min_mhz", "max_mhz") or "unlocked"


@dataclass(frozen=True)
class Change:
    """One NVML setter call on one GPU."""
    gpu: GpuIdentity
    setting: str
    before: Any
    after: Any
    function: str
    args: Tuple[int, ...]

    def text(self, value: Any) -> str:
        """A before/after value for a message, with its unit."""
        if isinstance(value, dict):
            return ", ".join("%s %s" % (key.replace("_mhz", ""), number) for key, number in value.items()) + " MHz"
        return "%s W" % value if self.setting == "power_limit" and value is not None else str(value)

    def describe(self) -> str:
        return "%s on %s: %s -> %s" % (self.setting, self.gpu.label, self.text(self.before), self.text(self.after))


def clocks_view(pair: Optional[Tuple[int, int]], first: str, second: str) -> Optional[Dict[str, int]]:
    return None if pair is None else {first: pair[0], second: pair[1]}


def watts_number(milliwatts: Optional[int]) -> Any:
    """Milliwatts as the watts the options take: 700000 -> 700, 350500 -> 350.5."""
    if milliwatts is None:
        return None
    return milliwatts // 1000 if milliwatts % 1000 == 0 else milliwatts / 1000.0


def watts_text(milliwatts: Optional[int]) -> Optional[str]:
    """700000 -> '700 W', 350500 -> '350.5 W' (NVML counts in milliwatts)."""
    if milliwatts is None:
        return None
    if milliwatts % 1000 == 0:
        return "%d W" % (milliwatts // 1000)
    return "%s W" % ("%.3f" % (milliwatts / 1000.0)).rstrip("0")


def describe_clocks(values: Sequence[int]) -> str:
    """A clock list as runs, highest first: 1980, 1965 ... 345 -> '1980..345 MHz in 15 MHz steps (110 values)'."""
    ordered = sorted(set(values), reverse=True)
    parts, i = [], 0
    while i < len(ordered):
        j = i + 1
        if j < len(ordered):
            step = ordered[i] - ordered[j]
            while j + 1 < len(ordered) and ordered[j] - ordered[j + 1] == step:
                j += 1
        if j - i + 1 >= 3:
            parts.append("%d..%d MHz in %d MHz steps" % (ordered[i], ordered[j], step))
            i = j + 1
        else:
            parts.append("%d MHz" % ordered[i])
            i += 1
    suffix = " (%d values)" % len(ordered) if len(ordered) > 2 else ""
    return (", ".join(parts) or "none") + suffix


# ---------------------------------------------------------------- reading the task's options

def _is_reset(value: Any) -> bool:
    return isinstance(value, str) and value.strip(" ").lower() in RESET_WORDS


#: Far above any GPU's clocks and power limits, so that no conversion overflows.
MAX_MHZ = 100000
MAX_WATTS = 100000
# Whole MHz as text (blanks around allowed, nothing else: '2619\n' and '²' are refused), and watts.
_WHOLE = re.compile(r" *([0-9]{1,9}) *")
_DECIMAL = re.compile(r" *([0-9]{1,9}(?:\.[0-9]{1,6})?) *")


def _mhz(value: Any, what: str) -> int:
    match = _WHOLE.fullmatch(value) if isinstance(value, str) else None
    if isinstance(value, bool) or not (isinstance(value, int) or match):
        raise must_be(what, value, "whole MHz (1..%d)" % MAX_MHZ, GpuSettingsError)
    number = int(match.group(1)) if match else value
    if not 0 < number <= MAX_MHZ:
        raise GpuSettingsError("%s must be above 0 MHz and at most %d, got %d" % (what, MAX_MHZ, number))
    return number


def _watts(value: Any) -> int:
    """power_limit in W (int, finite float or decimal text) -> milliwatts."""
    match = _DECIMAL.fullmatch(value) if isinstance(value, str) else None
    if isinstance(value, bool) or not (isinstance(value, (int, float)) or match):
        raise must_be("power_limit", value, "watts (for example 500) or 'default'", GpuSettingsError)
    number = float(match.group(1)) if match else value
    if not math.isfinite(number) or not 0 < number <= MAX_WATTS:
        raise GpuSettingsError("power_limit must be above 0 W and at most %d W (a finite number), got %r"
                               % (MAX_WATTS, value))
    return int(round(number * 1000))


def _clock_pair(value: Any, name: str, keys: Tuple[str, str], single_ok: bool) -> Tuple[int, int]:
    """[a, b], 'a,b' or {keys[0]: a, keys[1]: b} (and one number for min = max where single_ok)."""
    if isinstance(value, dict):
        unknown = set(value) - set(keys)
        if unknown or len(value) != 2:
            raise GpuSettingsError("%s takes the keys %s and %s, got %s" % (name, keys[0], keys[1], sorted(value)))
        items = [value[keys[0]], value[keys[1]]]
    elif isinstance(value, str) and "," in value:
        items = value.split(",")
    elif isinstance(value, (list, tuple)):
        items = list(value)
    elif single_ok:
        items = [value, value]
    else:
        items = [value]
    if len(items) != 2:
        raise GpuSettingsError("%s needs two clocks (%s, %s) or 'default', got %r" % (name, keys[0], keys[1], value))
    return (_mhz(items[0], "%s %s" % (name, keys[0])), _mhz(items[1], "%s %s" % (name, keys[1])))


def parse_desired(persistence_mode: Optional[bool] = None, power_limit: Any = None,
                  application_clocks: Any = None, locked_clocks: Any = None) -> DesiredSettings:
    """Module options -> DesiredSettings; power in W (int, float or numeric text) becomes milliwatts."""
    power_mw, power_default = None, False
    if _is_reset(power_limit):
        power_default = True
    elif power_limit is not None:
        power_mw = _watts(power_limit)
        if power_mw <= 0:
            raise GpuSettingsError("power_limit must be above 0 W, got %r" % (power_limit,))
    app, app_default = None, False
    if _is_reset(application_clocks):
        app_default = True
    elif application_clocks is not None:
        app = _clock_pair(application_clocks, "application_clocks", ("memory_mhz", "graphics_mhz"), False)
    locked, locked_reset = None, False
    if _is_reset(locked_clocks):
        locked_reset = True
    elif locked_clocks is not None:
        locked = _clock_pair(locked_clocks, "locked_clocks", ("min_mhz", "max_mhz"), True)
        if locked[0] > locked[1]:
            raise GpuSettingsError("locked_clocks min_mhz %d is above max_mhz %d; give min <= max"
                                   % (locked[0], locked[1]))
    return DesiredSettings(persistence_mode=persistence_mode, power_limit_mw=power_mw,
                           power_limit_default=power_default, application_clocks=app,
                           application_clocks_default=app_default, locked_clocks=locked,
                           locked_clocks_reset=locked_reset)


# ---------------------------------------------------------------- reading the GPU

def _app_pair(nvml: Any, what: str, function: str, handle: Any) -> Optional[Tuple[int, int]]:
    memory = optional(nvml, what, function, handle, constant(nvml, "NVML_CLOCK_MEM", 2))
    graphics = optional(nvml, what, function, handle, constant(nvml, "NVML_CLOCK_GRAPHICS", 0))
    return None if memory is None or graphics is None else (memory, graphics)


def read_state(nvml: Any, gpu: GpuIdentity) -> GpuState:
    """Read the settings gpu_settings manages (locked clocks are filled in from the record later)."""
    what = gpu.label
    handle = required(nvml, what, "nvmlDeviceGetHandleByIndex", gpu.index)
    persistence = optional(nvml, what, "nvmlDeviceGetPersistenceMode", handle)
    constraints = optional(nvml, what, "nvmlDeviceGetPowerManagementLimitConstraints", handle)
    memory_clocks = optional(nvml, what, "nvmlDeviceGetSupportedMemoryClocks", handle)
    supported = None
    if memory_clocks is not None:
        supported = {}
        for memory in memory_clocks:
            graphics = optional(nvml, what, "nvmlDeviceGetSupportedGraphicsClocks", handle, memory)
            supported[memory] = sorted(graphics or [], reverse=True)
    return GpuState(
        gpu=gpu,
        persistence_mode=None if persistence is None else bool(persistence),
        power_limit_mw=optional(nvml, what, "nvmlDeviceGetPowerManagementLimit", handle),
        power_default_mw=optional(nvml, what, "nvmlDeviceGetPowerManagementDefaultLimit", handle),
        power_min_mw=None if constraints is None else constraints[0],
        power_max_mw=None if constraints is None else constraints[1],
        application_clocks=_app_pair(nvml, what, "nvmlDeviceGetApplicationsClock", handle),
        default_application_clocks=_app_pair(nvml, what, "nvmlDeviceGetDefaultApplicationsClock", handle),
        supported_clocks=supported,
        max_graphics_mhz=optional(nvml, what, "nvmlDeviceGetMaxClockInfo", handle,
                                  constant(nvml, "NVML_CLOCK_GRAPHICS", 0)),
    )


# ---------------------------------------------------------------- validating and planning

def graphics_range(state: GpuState) -> Tuple[Optional[int], Optional[int]]:
    """Lowest and highest graphics clock the GPU supports with any memory clock (MHz)."""
    clocks = [g for graphics in (state.supported_clocks or {}).values() for g in graphics]
    if clocks:
        return min(clocks), max(clocks)
    return None, state.max_graphics_mhz


GPU = "{gpu}"   # stands for the GPU's label in problem texts, so plan_all can name several GPUs in one


def _problems(state: GpuState, desired: DesiredSettings) -> List[str]:
    """validate's texts with {gpu} in place of the GPU's label."""
    problems = []
    if desired.persistence_mode is not None and state.persistence_mode is None:
        problems.append("%s does not report persistence mode (NVML: not supported; it exists on Linux only)" % GPU)
    if desired.asks_for("power_limit"):
        if state.power_min_mw is None or state.power_max_mw is None or state.power_limit_mw is None:
            problems.append("%s does not support power limits (NVML reports no power management limit constraints)"
                            % GPU)
        elif desired.power_limit_default and state.power_default_mw is None:
            problems.append("%s reports no default power limit; give power_limit in watts" % GPU)
        elif desired.power_limit_mw is not None and not (
                state.power_min_mw <= desired.power_limit_mw <= state.power_max_mw):
            problems.append("power_limit %s is outside the power limit constraints of %s: min %s, max %s; choose a "
                            "value in that range or 'default' (%s)"
                            % (watts_text(desired.power_limit_mw), GPU, watts_text(state.power_min_mw),
                               watts_text(state.power_max_mw), watts_text(state.power_default_mw)))
    if desired.asks_for("application_clocks"):
        problems.extend(_application_clock_problems(state, desired))
    if desired.locked_clocks is not None:
        low, high = graphics_range(state)
        wanted_low, wanted_high = desired.locked_clocks
        if (low is not None and wanted_low < low) or (high is not None and wanted_high > high):
            problems.append("locked_clocks %d..%d MHz is outside the supported graphics clock range of %s: %s..%s MHz; "
                            "choose min_mhz and max_mhz within it"
                            % (wanted_low, wanted_high, GPU, "?" if low is None else low, high))
    return problems


def _application_clock_problems(state: GpuState, desired: DesiredSettings) -> List[str]:
    if state.application_clocks is None or not state.supported_clocks:
        return ["%s does not support application clocks (NVML: not supported); leave application_clocks unset "
                "or use locked_clocks" % GPU]
    if desired.application_clocks_default:
        if state.default_application_clocks is None:
            return ["%s reports no default application clocks" % GPU]
        return []
    memory, graphics = desired.application_clocks
    if memory not in state.supported_clocks:
        return ["application_clocks memory_mhz %d is not supported by %s: the supported memory clocks are %s"
                % (memory, GPU, describe_clocks(list(state.supported_clocks)))]
    if graphics not in state.supported_clocks[memory]:
        return ["application_clocks graphics_mhz %d is not supported with memory_mhz %d by %s: the supported "
                "graphics clocks for memory %d MHz are %s"
                % (graphics, memory, GPU, memory, describe_clocks(state.supported_clocks[memory]))]
    return []


def validate(state: GpuState, desired: DesiredSettings) -> List[str]:
    """Every reason this GPU cannot take ``desired``; empty when it can."""
    return [problem.replace(GPU, state.gpu.label) for problem in _problems(state, desired)]


def plan_settings(state: GpuState, desired: DesiredSettings) -> List[Change]:
    """The setter calls that take this GPU from ``state`` to ``desired``; [] when it is there already."""
    problems = validate(state, desired)
    if problems:
        raise GpuSettingsError("; ".join(problems))
    plan = []

    def change(setting: str, after: Any, function: str, *args: int) -> None:
        plan.append(Change(state.gpu, setting, state.view(setting), after, function, tuple(args)))

    if desired.persistence_mode is not None and desired.persistence_mode != state.persistence_mode:
        change("persistence_mode", desired.persistence_mode, "nvmlDeviceSetPersistenceMode",
               1 if desired.persistence_mode else 0)
    if desired.asks_for("power_limit"):
        # NVML has no "reset power limit": the default is set like any other value, in milliwatts.
        wanted = state.power_default_mw if desired.power_limit_default else desired.power_limit_mw
        if wanted != state.power_limit_mw:
            change("power_limit", watts_number(wanted), "nvmlDeviceSetPowerManagementLimit", wanted)
    if desired.application_clocks_default and state.application_clocks != state.default_application_clocks:
        change("application_clocks", clocks_view(state.default_application_clocks, "memory_mhz", "graphics_mhz"),
               "nvmlDeviceResetApplicationsClocks")
    elif desired.application_clocks is not None and desired.application_clocks != state.application_clocks:
        change("application_clocks", clocks_view(desired.application_clocks, "memory_mhz", "graphics_mhz"),
               "nvmlDeviceSetApplicationsClocks", *desired.application_clocks)
    if desired.locked_clocks_reset and (not state.locked_clocks_known or state.locked_clocks is not None):
        change("locked_clocks", "unlocked", "nvmlDeviceResetGpuLockedClocks")
    elif desired.locked_clocks is not None and (not state.locked_clocks_known
                                                or state.locked_clocks != desired.locked_clocks):
        change("locked_clocks", clocks_view(desired.locked_clocks, "min_mhz", "max_mhz"),
               "nvmlDeviceSetGpuLockedClocks", *desired.locked_clocks)
    return plan


def plan_all(states: Sequence[GpuState], desired: DesiredSettings) -> List[Change]:
    """plan_settings for every GPU, refusing the lot if any GPU cannot take it.

    The refusal names every problem once, with every GPU it applies to (eight identical H100s that
    refuse 750 W make one sentence naming eight GPUs, not eight sentences).
    """
    grouped: Dict[str, List[str]] = {}
    for state in states:
        for problem in _problems(state, desired):
            grouped.setdefault(problem, []).append(state.gpu.label)
    if grouped:
        raise GpuSettingsError("; ".join(problem.replace(GPU, ", ".join(labels)) for problem, labels in grouped.items()))
    return [change for state in states for change in plan_settings(state, desired)]


def persistence_warnings(states: Sequence[GpuState], desired: DesiredSettings) -> List[str]:
    """Settings NVML forgets when the driver unloads: warn where persistence mode is and stays off."""
    volatile = [s for s in ("power_limit", "application_clocks", "locked_clocks") if desired.asks_for(s)]
    if not volatile or desired.persistence_mode:
        return []
    return ["%s has persistence mode off: the driver may unload when no process uses the GPU and forget %s; "
            "set persistence_mode: true or run nvidia-persistenced" % (s.gpu.label, ", ".join(volatile))
            for s in states if s.persistence_mode is False]


# ---------------------------------------------------------------- applying

def apply_changes(nvml: Any, plan: Sequence[Change]) -> List[Change]:
    """Call the setters in plan order; returns the changes made, raises GpuApplyError at the first refusal."""
    applied: List[Change] = []
    for change in plan:
        handle = required(nvml, change.gpu.label, "nvmlDeviceGetHandleByIndex", change.gpu.index)
        done = "; changes made before it: %s" % ("; ".join(c.describe() for c in applied) if applied else "none")
        try:
            call(nvml, change.function, handle, *change.args)
        except GpuSettingsError as exc:       # the installed nvidia-ml-py lacks the setter
            raise GpuApplyError("setting %s on %s failed: %s%s" % (change.setting, change.gpu.label, exc, done),
                                applied) from exc
        except Exception as exc:  # pylint: disable=broad-except
            code = error_code(nvml, exc)
            if code is None:
                raise
            if code == NVML_ERROR_NO_PERMISSION:
                raise GpuPermissionError("setting %s to %s on %s needs root: NVML %s answered %s (code %s); run the "
                                         "task with become: true%s" % (change.setting, change.text(change.after),
                                                                       change.gpu.label, change.function, exc, code, done),
                                         applied) from exc
            raise GpuApplyError("setting %s to %s on %s failed: NVML %s answered %s (code %s)%s"
                                % (change.setting, change.text(change.after), change.gpu.label, change.function, exc,
                                   code, done),
                                applied) from exc
        applied.append(change)
    return applied
