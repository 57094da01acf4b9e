# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The record of the locked GPU clocks gpu_settings applied (stdlib only).

NVML sets locked clocks (nvmlDeviceSetGpuLockedClocks, nvmlDeviceResetGpuLockedClocks) but has no
call that reads them back, so gpu_settings remembers what it applied, per GPU UUID, in a small JSON
file and compares against that. A reboot or a driver reload drops locked clocks, so every entry
carries the kernel's boot id: an entry from another boot is "unknown", never trusted, and the next
run applies the wanted value again. What this record cannot see: ``nvidia-smi -lgc``/``-rgc`` run by
hand, and a driver reload without a reboot (see docs/gpu-settings.md).

File format (version 1)::

    {"version": 1,
     "gpus": {"GPU-566e6f65-...": {"boot_id": "...", "pci_bus_id": "00000000:53:00.0",
                                    "locked_clocks": [1410, 1410]}}}   # null = reset (unlocked)
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any, Dict, Optional, Sequence, Tuple

from ansible_collections.gpufleet.cluster.plugins.module_utils.gpu.nvml import GpuSettingsError
from ansible_collections.gpufleet.cluster.plugins.module_utils.gpu.settings import Change

STATE_VERSION = 1
BOOT_ID_PATH = "/proc/sys/kernel/random/boot_id"


def read_boot_id(path: str = BOOT_ID_PATH) -> Optional[str]:
    """This boot's id (a UUID the kernel draws at boot); None where there is no such file."""
    try:
        with open(path) as handle:
            return handle.read().strip() or None
    except OSError:
        return None


def empty_state() -> Dict[str, Any]:
    return {"version": STATE_VERSION, "gpus": {}}


def load_locked_state(path: str) -> Dict[str, Any]:
    """The record at ``path``; an empty one when the file does not exist yet."""
    if not os.path.exists(path):
        return empty_state()
    fix = "remove it; the next run applies locked_clocks again and rewrites it"
    try:
        with open(path) as handle:
            state = json.load(handle)
    except (OSError, ValueError) as exc:
        raise GpuSettingsError("cannot read the locked-clock record %s (%s); %s" % (path, exc, fix)) from None
    if not isinstance(state, dict) or state.get("version") != STATE_VERSION or not isinstance(state.get("gpus"), dict):
        raise GpuSettingsError("%s is not a version %d locked-clock record of gpufleet.cluster.gpu_settings; %s"
                               % (path, STATE_VERSION, fix))
    return state


def locked_record(state: Dict[str, Any], uuid: str, boot_id: Optional[str]) -> Tuple[bool, Optional[Tuple[int, int]]]:
    """(known, (min, max) or None for unlocked). Unknown when never recorded or recorded in another boot."""
    entry = state["gpus"].get(uuid)
    if not isinstance(entry, dict) or entry.get("boot_id") != boot_id:
        return False, None
    value = entry.get("locked_clocks")
    if value is None:
        return True, None
    try:
        low, high = (int(v) for v in value)
    except (TypeError, ValueError):
        return False, None  # a hand-edited entry: distrust it, the wanted value gets applied again
    return True, (low, high)


def locked_view(state: Dict[str, Any], uuid: str, boot_id: Optional[str]) -> Any:
    """What results show: {'min_mhz', 'max_mhz'}, 'unlocked', or 'unknown' (no record from this boot)."""
    known, clocks = locked_record(state, uuid, boot_id)
    if not known:
        return "unknown"
    return "unlocked" if clocks is None else {"min_mhz": clocks[0], "max_mhz": clocks[1]}


def record_applied(state: Dict[str, Any], applied: Sequence[Change], boot_id: Optional[str]) -> Dict[str, Any]:
    """A copy of ``state`` with the locked-clock changes in ``applied`` written in."""
    gpus = dict(state["gpus"])
    for change in applied:
        if change.setting != "locked_clocks":
            continue
        gpus[change.gpu.uuid] = {
            "boot_id": boot_id,
            "pci_bus_id": change.gpu.pci_bus_id,
            "locked_clocks": list(change.args) if change.function == "nvmlDeviceSetGpuLockedClocks" else None,
        }
    return {"version": STATE_VERSION, "gpus": gpus}


def save_locked_state(path: str, state: Dict[str, Any]) -> None:
    """Write the record atomically, mode 0644, creating its directory (0755) when missing."""
    directory = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(directory, mode=0o755, exist_ok=True)
        handle, tmp = tempfile.mkstemp(prefix=".gpu-locked-clocks.", dir=directory)
        try:
            with os.fdopen(handle, "w") as out:
                json.dump(state, out, indent=2, sort_keys=True)
                out.write("\n")
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
    except OSError as exc:
        raise GpuSettingsError("the locked clocks were set, but recording them in %s failed (%s); the next run will "
                               "apply them again: make %s writable or choose another state_file"
                               % (path, exc, directory)) from None
