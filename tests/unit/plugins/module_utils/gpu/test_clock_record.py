# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""gpu_nvml_state: the record of locked clocks NVML cannot read back, trusted only within one boot."""
from __future__ import annotations

import json
import os
import stat

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.gpu.nvml import GpuIdentity, GpuSettingsError
from ansible_collections.gpufleet.cluster.plugins.module_utils.gpu.settings import Change
from ansible_collections.gpufleet.cluster.plugins.module_utils.gpu.clock_record import (
    empty_state, load_locked_state, locked_record, locked_view, read_boot_id, record_applied, save_locked_state,
)

GPU0 = GpuIdentity(0, "GPU-566e6f65-c38e-b12f-4824-6944218668b9", "00000000:53:00.0", "NVIDIA H100 80GB HBM3")
GPU1 = GpuIdentity(1, "GPU-9930d717-21dd-7692-054e-3d0a2bae76b5", "00000000:64:00.0", "NVIDIA H100 80GB HBM3")
BOOT = "3f1c9a52-6a2e-4a8e-9a52-0d1b7c3e5f10"


def _lock(gpu, low, high):
    return Change(gpu, "locked_clocks", "unknown", {"min_mhz": low, "max_mhz": high}, "nvmlDeviceSetGpuLockedClocks",
                  (low, high))


def _unlock(gpu):
    return Change(gpu, "locked_clocks", "unknown", "unlocked", "nvmlDeviceResetGpuLockedClocks", ())


def test_boot_id(tmp_path):
    path = tmp_path / "boot_id"
    path.write_text(BOOT + "\n")
    assert read_boot_id(str(path)) == BOOT
    assert read_boot_id(str(tmp_path / "absent")) is None


def test_round_trip_writes_0644_json_in_a_new_directory(tmp_path):
    path = str(tmp_path / "var" / "lib" / "gpufleet" / "gpu-locked-clocks.json")
    power = Change(GPU1, "power_limit", 700, 500, "nvmlDeviceSetPowerManagementLimit", (500000,))
    state = record_applied(load_locked_state(path), [_lock(GPU0, 1410, 1410), power, _unlock(GPU1)], BOOT)
    save_locked_state(path, state)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o644
    assert stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode) & 0o755 == 0o755
    with open(path) as handle:
        assert json.load(handle) == {"version": 1, "gpus": {
            GPU0.uuid: {"boot_id": BOOT, "pci_bus_id": "00000000:53:00.0", "locked_clocks": [1410, 1410]},
            GPU1.uuid: {"boot_id": BOOT, "pci_bus_id": "00000000:64:00.0", "locked_clocks": None},
        }}                                   # the power change is not recorded: NVML reads it back itself
    again = load_locked_state(path)
    assert locked_record(again, GPU0.uuid, BOOT) == (True, (1410, 1410))
    assert locked_record(again, GPU1.uuid, BOOT) == (True, None)
    assert (locked_view(again, GPU0.uuid, BOOT), locked_view(again, GPU1.uuid, BOOT)) == (
        {"min_mhz": 1410, "max_mhz": 1410}, "unlocked")


def test_a_record_from_another_boot_or_gpu_is_unknown():
    state = record_applied(empty_state(), [_lock(GPU0, 1005, 1410)], BOOT)
    assert locked_record(state, GPU0.uuid, "another-boot") == (False, None)   # a reboot dropped the lock
    assert locked_record(state, GPU1.uuid, BOOT) == (False, None)             # never recorded
    assert locked_view(state, GPU0.uuid, "another-boot") == "unknown"


def test_later_changes_replace_earlier_ones():
    state = record_applied(empty_state(), [_lock(GPU0, 1005, 1410)], BOOT)
    state = record_applied(state, [_unlock(GPU0)], BOOT)
    assert locked_record(state, GPU0.uuid, BOOT) == (True, None)


def test_a_hand_edited_entry_is_distrusted():
    state = {"version": 1, "gpus": {GPU0.uuid: {"boot_id": BOOT, "locked_clocks": ["fast", 2]}}}
    assert locked_record(state, GPU0.uuid, BOOT) == (False, None)


def test_missing_file_is_an_empty_record(tmp_path):
    assert load_locked_state(str(tmp_path / "none.json")) == {"version": 1, "gpus": {}}


@pytest.mark.parametrize("content,words", [
    ("{not json", "cannot read the locked-clock record"),
    ('{"version": 2, "gpus": {}}', "is not a version 1 locked-clock record of gpufleet.cluster.gpu_settings"),
    ('[1, 2]', "is not a version 1 locked-clock record"),
])
def test_a_broken_file_is_refused_with_the_fix(tmp_path, content, words):
    path = tmp_path / "gpu-locked-clocks.json"
    path.write_text(content)
    with pytest.raises(GpuSettingsError) as info:
        load_locked_state(str(path))
    assert words in str(info.value) and str(path) in str(info.value)
    assert str(info.value).endswith("remove it; the next run applies locked_clocks again and rewrites it")


def test_an_unwritable_place_says_what_was_done_and_how_to_fix_it(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(GpuSettingsError) as info:
        save_locked_state(str(blocker / "gpu-locked-clocks.json"), empty_state())
    assert str(info.value).startswith("the locked clocks were set, but recording them in %s failed" % (blocker / "gpu-locked-clocks.json"))
    assert "make %s writable or choose another state_file" % blocker in str(info.value)
