# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""gpufleet.cluster.gpu_settings run through main() on the fake 8x H100 node: check, apply, idempotence; then its input
rules: every malformed option is a clear failure naming the option, the value and what is allowed; no raw exception
(OverflowError from an infinite power limit, ValueError from '²') and no value with a trailing newline slips through
a strip()."""
from __future__ import annotations

import json
import os
import stat
import sys

import pytest
import yaml

from ansible_collections.gpufleet.cluster.plugins.modules import gpu_settings as module

_UNIT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if _UNIT not in sys.path:
    sys.path.insert(0, _UNIT)
import fake_nvml  # noqa: E402  pylint: disable=wrong-import-position
from module_results import assert_options_match_spec, warnings  # noqa: E402  pylint: disable=wrong-import-position

BOOT = "3f1c9a52-6a2e-4a8e-9a52-0d1b7c3e5f10"
GPU0_UUID = "GPU-566e6f65-c38e-b12f-4824-6944218668b9"
BUSES = ["00000000:53:00.0", "00000000:64:00.0", "00000000:75:00.0", "00000000:86:00.0", "00000000:97:00.0",
         "00000000:A8:00.0", "00000000:B9:00.0", "00000000:CA:00.0"]


class Node:
    """The fake node with the module pointed at it; ``boot`` can change to model a reboot."""

    def __init__(self, fake, monkeypatch):
        self.fake, self.boot = fake, BOOT
        monkeypatch.setattr(module, "load_pynvml", lambda: (self.fake, None))
        monkeypatch.setattr(module, "_boot_id", lambda: self.boot)


@pytest.fixture
def run_main(run_main_warned):
    """These modules warn: read their warnings from the result."""
    return run_main_warned


@pytest.fixture
def node(monkeypatch):
    return Node(fake_nvml.hgx_h100(), monkeypatch)


@pytest.fixture
def args(tmp_path):
    return {"state_file": str(tmp_path / "lib" / "gpufleet" / "gpu-locked-clocks.json")}


def test_power_limit_check_apply_then_idempotent(run_main, node, args):
    task = dict(args, power_limit=500, _ansible_diff=True)
    check = run_main(module, dict(task, _ansible_check_mode=True))
    assert check["changed"] is True and node.fake.setter_calls == []          # check mode: no setter
    assert check["diff"]["before"] == {bus: {"power_limit": 700} for bus in BUSES}
    assert check["diff"]["after"] == {bus: {"power_limit": 500} for bus in BUSES}
    assert check["gpus"][0]["changes"] == [{"setting": "power_limit", "before": 700, "after": 500,
                                            "function": "nvmlDeviceSetPowerManagementLimit"}]
    assert check["gpus"][0]["settings"] == {"power_limit": 500}               # as planned
    assert check["gpus"][0]["power_limit_range_w"] == {"min": 200, "max": 700, "default": 700}

    applied = run_main(module, task)
    assert applied["changed"] is True
    # NVML takes milliwatts: 500 W -> 500000, once per GPU, in index order.
    assert node.fake.setter_calls == [("nvmlDeviceSetPowerManagementLimit", i, 500000) for i in range(8)]
    assert [g["settings"] for g in applied["gpus"]] == [{"power_limit": 500}] * 8   # read back from NVML
    assert warnings(applied) == []

    for mode in (True, False):
        again = run_main(module, dict(task, _ansible_check_mode=mode))
        assert again["changed"] is False and again["diff"]["before"] == again["diff"]["after"]
        assert all(g["changed"] is False and g["changes"] == [] for g in again["gpus"])
    assert len(node.fake.setter_calls) == 8                                    # the idempotent runs set nothing


def test_selected_gpus_only(run_main, node, args):
    result = run_main(module, dict(args, gpus=[GPU0_UUID, "0000:ca:00.0"], application_clocks=[2619, 1410]))
    assert [g["index"] for g in result["gpus"]] == [0, 7]
    assert node.fake.setter_calls == [("nvmlDeviceSetApplicationsClocks", 0, 2619, 1410),
                                      ("nvmlDeviceSetApplicationsClocks", 7, 2619, 1410)]
    assert [g.app_clocks for g in node.fake.gpus] == [(2619, 1410)] + [(2619, 1980)] * 6 + [(2619, 1410)]
    reset = run_main(module, dict(args, application_clocks="default"))
    assert [g["index"] for g in reset["gpus"] if g["changed"]] == [0, 7]
    assert node.fake.setter_calls[2:] == [("nvmlDeviceResetApplicationsClocks", 0), ("nvmlDeviceResetApplicationsClocks", 7)]


def test_locked_clocks_are_recorded_and_compared_per_boot(run_main, node, args):
    task = dict(args, gpus=["0", "1"], locked_clocks=[1410, 1410], _ansible_diff=True)
    check = run_main(module, dict(task, _ansible_check_mode=True))
    assert check["changed"] is True and not os.path.exists(args["state_file"])   # check mode writes no record
    assert check["diff"]["before"] == {BUSES[0]: {"locked_clocks": "unknown"}, BUSES[1]: {"locked_clocks": "unknown"}}

    run_main(module, task)
    assert node.fake.setter_calls == [("nvmlDeviceSetGpuLockedClocks", 0, 1410, 1410),
                                      ("nvmlDeviceSetGpuLockedClocks", 1, 1410, 1410)]
    assert stat.S_IMODE(os.stat(args["state_file"]).st_mode) == 0o644
    with open(args["state_file"]) as handle:
        assert json.load(handle)["gpus"][GPU0_UUID] == {"boot_id": BOOT, "pci_bus_id": BUSES[0],
                                                        "locked_clocks": [1410, 1410]}

    again = run_main(module, task)
    assert again["changed"] is False and len(node.fake.setter_calls) == 2
    assert again["gpus"][0]["settings"] == {"locked_clocks": {"min_mhz": 1410, "max_mhz": 1410}}

    node.boot = "a-new-boot"                # the reboot dropped the lock; the record must not be trusted
    node.fake.gpus[0].locked = node.fake.gpus[1].locked = None
    rebooted = run_main(module, task)
    assert rebooted["changed"] is True and rebooted["diff"]["before"][BUSES[0]] == {"locked_clocks": "unknown"}
    assert node.fake.gpus[0].locked == (1410, 1410) and len(node.fake.setter_calls) == 4

    unlocked = run_main(module, dict(task, locked_clocks="reset"))
    assert unlocked["changed"] is True and node.fake.gpus[0].locked is None
    assert run_main(module, dict(task, locked_clocks="reset"))["changed"] is False


def test_bad_power_limit_on_one_gpu_changes_no_gpu(run_main, node, args):
    node.fake.gpus[5].power_max_mw = 600000
    result = run_main(module, dict(args, persistence_mode=False, power_limit=650))
    assert result["failed"] is True and result["changed"] is False
    assert result["msg"] == ("gpu_settings changed no GPU: power_limit 650 W is outside the power limit constraints of "
                             "GPU 5 (GPU-06db64f6-6181-5a90-cf95-5ce52a58c4e5, 00000000:A8:00.0): min 200 W, max 600 W; "
                             "choose a value in that range or 'default' (700 W)")
    assert node.fake.setter_calls == []     # not even the persistence change the other GPUs could take


def test_bad_application_clocks_list_the_supported_ones(run_main, node, args):
    result = run_main(module, dict(args, gpus=["0"], application_clocks={"memory_mhz": 2619, "graphics_mhz": 2000}))
    assert result["failed"] is True and node.fake.setter_calls == []
    assert result["msg"].endswith("the supported graphics clocks for memory 2619 MHz are 1980..345 MHz in 15 MHz steps "
                                  "(110 values)")


def test_bad_locked_clocks_name_the_range(run_main, node, args):
    result = run_main(module, dict(args, locked_clocks=[200, 1980]))
    assert result["failed"] is True and node.fake.setter_calls == []
    assert "locked_clocks 200..1980 MHz is outside the supported graphics clock range of GPU 0 (" in result["msg"]
    assert "00000000:CA:00.0): 345..1980 MHz" in result["msg"]


@pytest.mark.parametrize("options,words", [
    ({"power_limit": "lots"},
     "gpu_settings: power_limit must be watts (for example 500) or 'default', got 'lots' of type str"),
    ({"locked_clocks": [1980, 345]}, "gpu_settings: locked_clocks min_mhz 1980 is above max_mhz 345"),
    ({"gpus": ["8"], "power_limit": 500}, "gpu_settings: no GPU matches 8; give an index, a UUID or a PCI bus id"),
])
def test_bad_options_fail_before_nvml_changes_anything(run_main, node, args, options, words):
    result = run_main(module, dict(args, **options))
    assert result["failed"] is True and result["msg"].startswith(words) and node.fake.setter_calls == []


def test_not_root_needs_root(run_main, node, args):
    node.fake.denied = {"*"}
    result = run_main(module, dict(args, gpus=["3"], persistence_mode=False))
    assert result["failed"] is True and result["changed"] is False
    assert result["msg"] == ("gpu_settings: setting persistence_mode to False on GPU 3 (GPU-6b932a61-abfd-5ea1-b26a-"
                             "7dea7f2fa601, 00000000:86:00.0) needs root: NVML nvmlDeviceSetPersistenceMode answered "
                             "Insufficient Permissions (code 4); run the task with become: true; changes made before "
                             "it: none")


def test_a_refusal_halfway_reports_changed_and_records_what_was_locked(run_main, node, args):
    node.fake.denied = {"nvmlDeviceSetApplicationsClocks"}
    result = run_main(module, dict(args, gpus=["0"], locked_clocks=[1005, 1410], application_clocks=[2619, 1410]))
    # Order per GPU: persistence, power, application clocks, locked clocks: the refusal comes before the lock.
    assert result["failed"] is True and result["changed"] is False and not os.path.exists(args["state_file"])
    node.fake.denied = {"nvmlDeviceSetGpuLockedClocks"}
    result = run_main(module, dict(args, gpus=["0"], power_limit=600, locked_clocks=[1005, 1410]))
    assert result["failed"] is True and result["changed"] is True
    assert "changes made before it: power_limit on GPU 0 (%s, %s): 700 W -> 600 W" % (GPU0_UUID, BUSES[0]) in result["msg"]


def test_persistence_off_warns_for_volatile_settings(run_main, monkeypatch, args):
    node = Node(fake_nvml.a100_mig(), monkeypatch)
    result = run_main(module, dict(args, power_limit=400))
    assert node.fake.setter_calls == [("nvmlDeviceSetPowerManagementLimit", 0, 400000)]
    assert warnings(result) == [
        "GPU 0 (GPU-513536b6-7d19-9063-b049-1e69664bb298, 00000000:01:00.0) has persistence mode off: the driver may "
        "unload when no process uses the GPU and forget power_limit; set persistence_mode: true or run "
        "nvidia-persistenced"]
    fixed = run_main(module, dict(args, power_limit=400, persistence_mode=True))
    assert warnings(fixed) == [] and node.fake.setter_calls[-1] == ("nvmlDeviceSetPersistenceMode", 0, 1)


def test_a_value_the_driver_adjusts_is_reported(run_main, node, args):
    def clamp(handle, limit_mw):
        node.fake.setter_calls.append(("nvmlDeviceSetPowerManagementLimit", handle.index, limit_mw))
        node.fake.gpus[handle.index].power_limit_mw = 650000     # e.g. a PSU or chassis cap below the request
    node.fake.nvmlDeviceSetPowerManagementLimit = clamp
    result = run_main(module, dict(args, gpus=["0"], power_limit=500))
    assert result["changed"] is True and result["gpus"][0]["settings"] == {"power_limit": 650}
    assert warnings(result) == ["NVML accepted power_limit 500 W on GPU 0 (%s, %s), but it reads back 650 W"
                                % (GPU0_UUID, BUSES[0])]


def test_nothing_asked_reports_without_changing(run_main, node, args):
    result = run_main(module, dict(args, _ansible_diff=True))
    assert result["changed"] is False and len(result["gpus"]) == 8 and result["gpus"][0]["settings"] == {}
    assert node.fake.setter_calls == []


def test_no_pynvml_fails_naming_the_package(run_main, monkeypatch, args):
    monkeypatch.setattr(module, "load_pynvml", lambda: (None, "Traceback: ImportError"))
    result = run_main(module, dict(args, power_limit=500))
    assert result["failed"] is True and "nvidia-ml-py" in result["msg"]


def test_no_driver_fails_with_the_fix(run_main, node, args):
    node.fake.init_error = fake_nvml.NVML_ERROR_DRIVER_NOT_LOADED
    result = run_main(module, dict(args, power_limit=500))
    assert result["failed"] is True
    assert result["msg"] == ("gpu_settings: NVML could not be initialised (Driver Not Loaded, code 9): the nvidia kernel "
                             "module is not loaded; load it (modprobe nvidia) or reboot after installing the driver")


def test_documentation_matches_argument_spec():
    doc = assert_options_match_spec(module)
    assert doc["attributes"]["check_mode"]["support"] == "full" and doc["attributes"]["diff_mode"]["support"] == "full"
    for example in yaml.safe_load(module.EXAMPLES):
        assert set(example["gpufleet.cluster.gpu_settings"]) <= set(module.ARGUMENT_SPEC)


def test_locked_clocks_set_but_not_recordable_fail_as_changed(run_main, node, tmp_path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    result = run_main(module, {"gpus": ["0"], "locked_clocks": [1410, 1410],
                               "state_file": str(blocker / "gpu-locked-clocks.json")})
    assert result["failed"] is True and result["changed"] is True and node.fake.gpus[0].locked == (1410, 1410)
    assert result["msg"].startswith("gpu_settings: the locked clocks were set, but recording them in")


# ---------------------------------------------------------------- input rules: every malformed option named
def settings_params(tmp_path, **options):
    params = {"gpus": None, "persistence_mode": None, "power_limit": None, "application_clocks": None,
              "locked_clocks": None, "state_file": str(tmp_path / "locked.json")}
    params.update(options)
    return params


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 1e308, -1, 0, "x", "700\n", "nan", "700W", "²",
                                   [700], {"w": 700}, True, 2 ** 70])
def test_power_limit_refused(tmp_path, value):
    with pytest.raises(module.ModuleFailure, match=r"power_limit must be (watts|above 0 W)") as info:
        module.run_module(settings_params(tmp_path, power_limit=value), True, fake_nvml.hgx_h100(), "boot")
    assert repr(value)[:20] in str(info.value) or str(value) in str(info.value)


@pytest.mark.parametrize("option, value", [
    ("application_clocks", "2619,1980\n"), ("application_clocks", ["²", 1980]), ("application_clocks", [2619.5, 1980]),
    ("application_clocks", [float("nan"), 1980]), ("application_clocks", [2 ** 70, 1980]), ("application_clocks", "x"),
    ("application_clocks", [1, 2, 3]), ("application_clocks", {"memory": 1}), ("application_clocks", True),
    ("locked_clocks", "reset\n"), ("locked_clocks", [float("nan"), 1]), ("locked_clocks", {"a": 1}),
    ("locked_clocks", [2 ** 70, 2 ** 71]),
])
def test_clocks_refused(tmp_path, option, value):
    with pytest.raises(module.ModuleFailure, match=option):
        module.run_module(settings_params(tmp_path, **{option: value}), True, fake_nvml.hgx_h100(), "boot")


def test_clocks_as_text_with_blanks_are_read(tmp_path):
    result = module.run_module(settings_params(tmp_path, application_clocks="2619, 1980", power_limit=" 700 "),
                               True, fake_nvml.hgx_h100(), "boot")
    assert result["changed"] is False


@pytest.mark.parametrize("selector", ["0\n", "GPU-566e6f65-c38e-b12f-4824-6944218668b9\n", "00000000:53:00.0\n",
                                      "0000:5_3:00.0", "٣", "", "x"])
def test_gpu_selectors_refused(tmp_path, selector):
    with pytest.raises(module.ModuleFailure, match="no GPU matches"):
        module.run_module(settings_params(tmp_path, gpus=[selector], power_limit=700), True,
                          fake_nvml.hgx_h100(), "boot")


def test_a_selector_with_a_newline_is_shown_escaped(tmp_path):
    with pytest.raises(module.ModuleFailure, match=r"no GPU matches '0\\n'; give an index"):
        module.run_module(settings_params(tmp_path, gpus=["0\n"], power_limit=700), True,
                          fake_nvml.hgx_h100(), "boot")
