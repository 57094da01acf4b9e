# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""gpu/settings.py: option parsing, validation before any change, plans, idempotence, setters, permissions."""
from __future__ import annotations


import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.gpu.nvml import (
    GpuSettingsError, list_gpus, nvml_session,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.gpu.settings import (
    DesiredSettings, GpuApplyError, GpuPermissionError, apply_changes, describe_clocks, parse_desired,
    persistence_warnings, plan_all, plan_settings, read_state, validate, watts_number, watts_text,
)

import fake_nvml  # noqa: E402  pylint: disable=wrong-import-position

GPU0 = "GPU 0 (GPU-566e6f65-c38e-b12f-4824-6944218668b9, 00000000:53:00.0)"
GPU5 = "GPU 5 (GPU-06db64f6-6181-5a90-cf95-5ce52a58c4e5, 00000000:A8:00.0)"


def _states(fake):
    """Read every GPU's settings (as gpu_settings does before planning)."""
    with nvml_session(fake):
        return [read_state(fake, gpu) for gpu in list_gpus(fake)]


def _apply(fake, plan):
    with nvml_session(fake):
        return apply_changes(fake, plan)


# ---------------------------------------------------------------- parsing the options
@pytest.mark.parametrize("value,expected", [
    (500, DesiredSettings(power_limit_mw=500000)),
    ("350.5", DesiredSettings(power_limit_mw=350500)),
    (299.9996, DesiredSettings(power_limit_mw=300000)),        # NVML takes whole milliwatts: rounded
    ("Default", DesiredSettings(power_limit_default=True)),
    ("reset", DesiredSettings(power_limit_default=True)),
])
def test_power_limit_forms(value, expected):
    assert parse_desired(power_limit=value) == expected


@pytest.mark.parametrize("value,words", [
    (True, r"^power_limit must be watts \(for example 500\) or 'default', got True of type bool$"),
    ("fast", r"^power_limit must be watts \(for example 500\) or 'default', got 'fast' of type str$"),
    (-5, "above 0 W"),
    ([500], r"^power_limit must be watts \(for example 500\) or 'default', got \[500\] of type list$")])
def test_power_limit_refused_forms(value, words):
    with pytest.raises(GpuSettingsError, match=words):
        parse_desired(power_limit=value)


@pytest.mark.parametrize("value", [[2619, 1980], ["2619", "1980"], "2619,1980", {"memory_mhz": 2619, "graphics_mhz": 1980}])
def test_application_clock_forms(value):
    assert parse_desired(application_clocks=value).application_clocks == (2619, 1980)


@pytest.mark.parametrize("value,words", [
    ([2619], "needs two clocks"),
    (2619, "needs two clocks"),
    ({"memory": 2619, "graphics": 1980}, "takes the keys memory_mhz and graphics_mhz"),
    ([True, 1980], r"^application_clocks memory_mhz must be whole MHz \(1\.\.100000\), got True of type bool$"),
    ([2619, 0], "application_clocks graphics_mhz must be above 0 MHz"),
    ([2619, 1980.5], r"^application_clocks graphics_mhz must be whole MHz \(1\.\.100000\), got 1980\.5 of type float$"),
])
def test_application_clock_refused_forms(value, words):
    with pytest.raises(GpuSettingsError, match=words):
        parse_desired(application_clocks=value)


@pytest.mark.parametrize("value,expected", [
    ([1410, 1980], (1410, 1980)), (1410, (1410, 1410)), ("1410", (1410, 1410)), ("1005,1410", (1005, 1410)),
    ({"min_mhz": 1005, "max_mhz": 1410}, (1005, 1410)),
])
def test_locked_clock_forms(value, expected):
    assert parse_desired(locked_clocks=value).locked_clocks == expected


def test_locked_clock_reset_and_min_above_max():
    assert parse_desired(locked_clocks="reset") == DesiredSettings(locked_clocks_reset=True)
    with pytest.raises(GpuSettingsError, match="locked_clocks min_mhz 1980 is above max_mhz 1410; give min <= max"):
        parse_desired(locked_clocks=[1980, 1410])


def test_describe_clocks():
    assert describe_clocks(fake_nvml.H100_GRAPHICS) == "1980..345 MHz in 15 MHz steps (110 values)"
    assert describe_clocks([2619]) == "2619 MHz"
    assert describe_clocks([405, 1593, 1215]) == "1593 MHz, 1215 MHz, 405 MHz (3 values)"
    assert describe_clocks([1500, 1980, 1965, 1950]) == "1980..1950 MHz in 15 MHz steps, 1500 MHz (4 values)"


def test_watts_text_and_number():
    assert [watts_text(v) for v in (700000, 350500, 350050, None)] == ["700 W", "350.5 W", "350.05 W", None]
    assert [watts_number(v) for v in (700000, 350500, None)] == [700, 350.5, None]


# ---------------------------------------------------------------- plans
def test_power_limit_plan_for_the_node_in_milliwatts():
    fake = fake_nvml.hgx_h100()
    plan = plan_all(_states(fake), parse_desired(power_limit=500))
    assert [(c.gpu.index, c.function, c.args, c.before, c.after) for c in plan] == [
        (i, "nvmlDeviceSetPowerManagementLimit", (500000,), 700, 500) for i in range(8)]
    assert plan[0].describe() == "power_limit on %s: 700 W -> 500 W" % GPU0
    assert fake.setter_calls == []      # planning (what check mode does) calls no setter


def test_plan_order_on_one_gpu_and_idempotence():
    fake = fake_nvml.a100_mig()         # persistence off, 500 W, application clocks 1593/1275
    desired = parse_desired(persistence_mode=True, power_limit=400, application_clocks=[1593, 1410],
                            locked_clocks=[1005, 1410])
    plan = plan_all(_states(fake), desired)
    assert [(c.setting, c.function, c.args) for c in plan] == [
        ("persistence_mode", "nvmlDeviceSetPersistenceMode", (1,)),     # first, so the rest survive idle periods
        ("power_limit", "nvmlDeviceSetPowerManagementLimit", (400000,)),
        ("application_clocks", "nvmlDeviceSetApplicationsClocks", (1593, 1410)),   # memory first, as NVML takes it
        ("locked_clocks", "nvmlDeviceSetGpuLockedClocks", (1005, 1410)),
    ]
    applied = _apply(fake, plan)
    assert applied == plan
    assert fake.setter_calls == [("nvmlDeviceSetPersistenceMode", 0, 1), ("nvmlDeviceSetPowerManagementLimit", 0, 400000),
                                 ("nvmlDeviceSetApplicationsClocks", 0, 1593, 1410),
                                 ("nvmlDeviceSetGpuLockedClocks", 0, 1005, 1410)]
    states = _states(fake)
    states[0].locked_clocks_known, states[0].locked_clocks = True, (1005, 1410)   # what the state file records
    assert plan_all(states, desired) == []                                       # second run: nothing to do


def test_defaults_reset_what_differs_only():
    fake = fake_nvml.hgx_h100()
    fake.gpus[3].power_limit_mw = 450000
    fake.gpus[6].app_clocks = (2619, 1410)
    plan = plan_all(_states(fake), parse_desired(power_limit="default", application_clocks="default"))
    # No NVML call resets the power limit: the default (700 W) is set as a value.
    assert [(c.gpu.index, c.function, c.args, c.after) for c in plan] == [
        (3, "nvmlDeviceSetPowerManagementLimit", (700000,), 700),
        (6, "nvmlDeviceResetApplicationsClocks", (), {"memory_mhz": 2619, "graphics_mhz": 1980}),
    ]
    _apply(fake, plan)
    assert (fake.gpus[3].power_limit_mw, fake.gpus[6].app_clocks) == (700000, (2619, 1980))
    assert plan_all(_states(fake), parse_desired(power_limit="default", application_clocks="default")) == []


def test_locked_clocks_against_the_record():
    states = _states(fake_nvml.hgx_h100())[:2]
    lock, reset = parse_desired(locked_clocks=[1410, 1410]), parse_desired(locked_clocks="reset")
    # No record in this boot: unknown, so both are applied (once; the record then makes them idempotent).
    assert [(c.before, c.function) for c in plan_all(states, lock)] == [("unknown", "nvmlDeviceSetGpuLockedClocks")] * 2
    assert [(c.before, c.after) for c in plan_all(states, reset)] == [("unknown", "unlocked")] * 2
    states[0].locked_clocks_known, states[0].locked_clocks = True, (1410, 1410)
    states[1].locked_clocks_known, states[1].locked_clocks = True, None
    assert [(c.gpu.index, c.before, c.after) for c in plan_all(states, lock)] == [
        (1, "unlocked", {"min_mhz": 1410, "max_mhz": 1410})]
    assert [(c.gpu.index, c.before, c.function) for c in plan_all(states, reset)] == [
        (0, {"min_mhz": 1410, "max_mhz": 1410}, "nvmlDeviceResetGpuLockedClocks")]


def test_persistence_mode_off_is_planned_and_warned_about():
    fake = fake_nvml.a100_mig()
    states = _states(fake)
    assert persistence_warnings(states, parse_desired(power_limit=400)) == [
        "GPU 0 (GPU-513536b6-7d19-9063-b049-1e69664bb298, 00000000:01:00.0) has persistence mode off: the driver may "
        "unload when no process uses the GPU and forget power_limit; set persistence_mode: true or run "
        "nvidia-persistenced"]
    assert persistence_warnings(states, parse_desired(persistence_mode=True, power_limit=400)) == []
    assert persistence_warnings(_states(fake_nvml.hgx_h100()), parse_desired(power_limit=400)) == []


# ---------------------------------------------------------------- refusals, before any setter on any GPU
def test_power_limit_outside_one_gpus_constraints_stops_every_gpu():
    fake = fake_nvml.hgx_h100()
    fake.gpus[5].power_max_mw = 600000      # one board with a lower ceiling
    with pytest.raises(GpuSettingsError) as info:
        plan_all(_states(fake), parse_desired(power_limit=650))
    assert str(info.value) == ("power_limit 650 W is outside the power limit constraints of %s: min 200 W, max 600 W; "
                               "choose a value in that range or 'default' (700 W)" % GPU5)
    assert fake.setter_calls == []


def test_identical_refusals_are_one_sentence_naming_every_gpu():
    with pytest.raises(GpuSettingsError) as info:
        plan_all(_states(fake_nvml.hgx_h100()), parse_desired(power_limit=150))
    msg = str(info.value)
    assert msg.startswith("power_limit 150 W is outside the power limit constraints of %s, GPU 1 (" % GPU0)
    assert msg.count("power_limit 150 W") == 1 and msg.count("GPU-") == 8
    assert msg.endswith("00000000:CA:00.0): min 200 W, max 700 W; choose a value in that range or 'default' (700 W)")


def test_unsupported_application_clocks_list_what_is_supported():
    states = _states(fake_nvml.hgx_h100())[:1]
    with pytest.raises(GpuSettingsError) as info:
        plan_all(states, parse_desired(application_clocks=[2619, 1985]))
    assert str(info.value) == ("application_clocks graphics_mhz 1985 is not supported with memory_mhz 2619 by %s: the "
                               "supported graphics clocks for memory 2619 MHz are 1980..345 MHz in 15 MHz steps "
                               "(110 values)" % GPU0)
    with pytest.raises(GpuSettingsError) as info:
        plan_all(states, parse_desired(application_clocks=[1215, 1410]))    # an A100 40GB pair on an H100
    assert str(info.value) == ("application_clocks memory_mhz 1215 is not supported by %s: the supported memory clocks "
                               "are 2619 MHz, 1593 MHz" % GPU0)


def test_locked_clocks_outside_the_graphics_range_are_refused():
    states = _states(fake_nvml.hgx_h100())[:1]
    for pair in ([300, 1980], [345, 2100]):
        with pytest.raises(GpuSettingsError) as info:
            plan_all(states, parse_desired(locked_clocks=pair))
        assert str(info.value) == ("locked_clocks %d..%d MHz is outside the supported graphics clock range of %s: "
                                   "345..1980 MHz; choose min_mhz and max_mhz within it" % (pair[0], pair[1], GPU0))


def test_features_a_gpu_lacks_are_refused():
    fake = fake_nvml.hgx_h100()
    gpu = fake.gpus[0]
    gpu.unsupported |= {"nvmlDeviceGetPowerManagementLimitConstraints", "nvmlDeviceGetApplicationsClock",
                        "nvmlDeviceGetPersistenceMode"}
    state = _states(fake)[0]
    problems = validate(state, parse_desired(persistence_mode=True, power_limit=500, application_clocks=[2619, 1980]))
    assert problems == [
        "%s does not report persistence mode (NVML: not supported; it exists on Linux only)" % GPU0,
        "%s does not support power limits (NVML reports no power management limit constraints)" % GPU0,
        "%s does not support application clocks (NVML: not supported); leave application_clocks unset or use "
        "locked_clocks" % GPU0,
    ]
    with pytest.raises(GpuSettingsError):
        plan_settings(state, parse_desired(power_limit=500))


# ---------------------------------------------------------------- applying
def test_no_permission_names_the_setting_and_gpu():
    fake = fake_nvml.hgx_h100()
    fake.denied = {"*"}                 # not root
    plan = plan_all(_states(fake), parse_desired(power_limit=500))
    with pytest.raises(GpuPermissionError) as info:
        _apply(fake, plan)
    assert str(info.value) == ("setting power_limit to 500 W on %s needs root: NVML nvmlDeviceSetPowerManagementLimit "
                               "answered Insufficient Permissions (code 4); run the task with become: true; changes "
                               "made before it: none" % GPU0)
    assert info.value.applied == [] and fake.gpus[0].power_limit_mw == 700000


def test_a_refusal_halfway_reports_what_was_already_applied():
    fake = fake_nvml.hgx_h100()
    fake.denied = {"nvmlDeviceSetGpuLockedClocks"}
    plan = plan_all(_states(fake)[:1], parse_desired(power_limit=500, locked_clocks=[1410, 1410]))
    with pytest.raises(GpuPermissionError) as info:
        _apply(fake, plan)
    assert [c.setting for c in info.value.applied] == ["power_limit"]
    assert str(info.value).startswith("setting locked_clocks to min 1410, max 1410 MHz on %s needs root" % GPU0)
    assert str(info.value).endswith("changes made before it: power_limit on %s: 700 W -> 500 W" % GPU0)


def test_other_nvml_refusals_are_apply_errors():
    fake = fake_nvml.hgx_h100()
    plan = plan_all(_states(fake)[:1], parse_desired(power_limit=500))
    fake.gpus[0].power_max_mw = 400000      # the board changed its mind between planning and setting
    with pytest.raises(GpuApplyError) as info:
        _apply(fake, plan)
    assert not isinstance(info.value, GpuPermissionError)
    assert "failed: NVML nvmlDeviceSetPowerManagementLimit answered Invalid Argument (code 2)" in str(info.value)


# ---------------------------------------------------------------- properties
@settings(max_examples=200, deadline=None)
@given(milliwatts=st.integers(200000, 700000))
def test_any_power_limit_in_range_is_planned_once_per_gpu_then_idempotent(milliwatts):
    fake = fake_nvml.hgx_h100()
    desired = parse_desired(power_limit=milliwatts / 1000.0)
    assert desired.power_limit_mw == milliwatts
    plan = plan_all(_states(fake), desired)
    expected = [] if milliwatts == 700000 else [(i, (milliwatts,)) for i in range(8)]
    assert [(c.gpu.index, c.args) for c in plan] == expected
    _apply(fake, plan)
    assert [g.power_limit_mw for g in fake.gpus] == [milliwatts] * 8
    assert plan_all(_states(fake), desired) == []


@settings(max_examples=200, deadline=None)
@given(milliwatts=st.one_of(st.integers(1, 199999), st.integers(700001, 2000000)))
def test_any_power_limit_outside_is_refused_without_a_setter(milliwatts):
    fake = fake_nvml.hgx_h100()
    with pytest.raises(GpuSettingsError, match="is outside the power limit constraints of GPU 0 .*min 200 W, max 700 W"):
        plan_all(_states(fake), parse_desired(power_limit=milliwatts / 1000.0))
    assert fake.setter_calls == []


@settings(max_examples=200, deadline=None)
@given(graphics=st.integers(1, 3000))
def test_application_clocks_accepted_exactly_when_supported(graphics):
    fake = fake_nvml.hgx_h100()
    states = _states(fake)[:1]
    desired = parse_desired(application_clocks=[2619, graphics])
    if graphics in fake_nvml.H100_GRAPHICS:     # 345 <= graphics <= 1980 and graphics = 345 mod 15
        plan = plan_all(states, desired)
        assert len(plan) == (0 if graphics == 1980 else 1)
    else:
        with pytest.raises(GpuSettingsError, match="graphics_mhz %d is not supported" % graphics):
            plan_all(states, desired)


@settings(max_examples=200, deadline=None)
@given(low=st.integers(1, 2500), high=st.integers(1, 2500))
def test_locked_clocks_accepted_exactly_within_345_to_1980(low, high):
    low, high = min(low, high), max(low, high)
    fake = fake_nvml.hgx_h100()
    states = _states(fake)[:1]
    desired = parse_desired(locked_clocks=[low, high])
    if 345 <= low and high <= 1980:
        plan = plan_all(states, desired)
        assert [(c.function, c.args) for c in plan] == [("nvmlDeviceSetGpuLockedClocks", (low, high))]
        _apply(fake, plan)
        assert fake.gpus[0].locked == (low, high)
    else:
        with pytest.raises(GpuSettingsError, match="outside the supported graphics clock range"):
            plan_all(states, desired)
        assert fake.setter_calls == []


def test_a_setter_missing_from_old_pynvml_is_an_apply_error():
    fake = fake_nvml.hgx_h100()
    plan = plan_all(_states(fake)[:2], parse_desired(locked_clocks=[1410, 1410]))
    fake.nvmlDeviceSetGpuLockedClocks = None      # as if nvidia-ml-py predated locked clocks
    with pytest.raises(GpuApplyError) as info:
        _apply(fake, plan)
    assert str(info.value) == ("setting locked_clocks on %s failed: the installed nvidia-ml-py has no "
                               "nvmlDeviceSetGpuLockedClocks; upgrade nvidia-ml-py; changes made before it: none" % GPU0)
    assert info.value.applied == []
