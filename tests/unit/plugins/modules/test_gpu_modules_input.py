# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""gpu_settings and gpu_info input rules (issue 13): every malformed option is a clear failure naming the option,
the value and what is allowed; no raw exception (OverflowError from an infinite power limit, ValueError from '²')
and no value with a trailing newline slips through a strip()."""
from __future__ import annotations

import pytest

import fake_nvml
from ansible_collections.gpufleet.cluster.plugins.modules import gpu_info, gpu_settings
from ansible_collections.gpufleet.cluster.plugins.module_utils.gpu.nvml import GpuSettingsError


def settings_params(tmp_path, **options):
    params = {"gpus": None, "persistence_mode": None, "power_limit": None, "application_clocks": None,
              "locked_clocks": None, "state_file": str(tmp_path / "locked.json")}
    params.update(options)
    return params


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 1e308, -1, 0, "x", "700\n", "nan", "700W", "²",
                                   [700], {"w": 700}, True, 2 ** 70])
def test_power_limit_refused(tmp_path, value):
    with pytest.raises(gpu_settings.ModuleFailure, match=r"power_limit must be (watts|above 0 W)") as info:
        gpu_settings.run_module(settings_params(tmp_path, power_limit=value), True, fake_nvml.hgx_h100(), "boot")
    assert repr(value)[:20] in str(info.value) or str(value) in str(info.value)


@pytest.mark.parametrize("option, value", [
    ("application_clocks", "2619,1980\n"), ("application_clocks", ["²", 1980]), ("application_clocks", [2619.5, 1980]),
    ("application_clocks", [float("nan"), 1980]), ("application_clocks", [2 ** 70, 1980]), ("application_clocks", "x"),
    ("application_clocks", [1, 2, 3]), ("application_clocks", {"memory": 1}), ("application_clocks", True),
    ("locked_clocks", "reset\n"), ("locked_clocks", [float("nan"), 1]), ("locked_clocks", {"a": 1}),
    ("locked_clocks", [2 ** 70, 2 ** 71]),
])
def test_clocks_refused(tmp_path, option, value):
    with pytest.raises(gpu_settings.ModuleFailure, match=option):
        gpu_settings.run_module(settings_params(tmp_path, **{option: value}), True, fake_nvml.hgx_h100(), "boot")


def test_clocks_as_text_with_blanks_are_read(tmp_path):
    result = gpu_settings.run_module(settings_params(tmp_path, application_clocks="2619, 1980", power_limit=" 700 "),
                                     True, fake_nvml.hgx_h100(), "boot")
    assert result["changed"] is False


@pytest.mark.parametrize("selector", ["0\n", "GPU-566e6f65-c38e-b12f-4824-6944218668b9\n", "00000000:53:00.0\n",
                                      "0000:5_3:00.0", "٣", "", "x"])
def test_gpu_selectors_refused(tmp_path, selector):
    with pytest.raises(gpu_settings.ModuleFailure, match="no GPU matches"):
        gpu_settings.run_module(settings_params(tmp_path, gpus=[selector], power_limit=700), True,
                                fake_nvml.hgx_h100(), "boot")
    with pytest.raises(GpuSettingsError, match="no GPU matches"):
        gpu_info.run_module({"gpus": [selector], "supported_clocks": False, "sysfs_root": str(tmp_path),
                             "state_file": str(tmp_path / "locked.json")}, fake_nvml.hgx_h100(), "boot")


def test_a_selector_with_a_newline_is_shown_escaped(tmp_path):
    with pytest.raises(gpu_settings.ModuleFailure, match=r"no GPU matches '0\\n'; give an index"):
        gpu_settings.run_module(settings_params(tmp_path, gpus=["0\n"], power_limit=700), True,
                                fake_nvml.hgx_h100(), "boot")
