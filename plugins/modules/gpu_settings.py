# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
module: gpu_settings
version_added: 0.1.0
short_description: Set NVIDIA GPU persistence mode, power limit, application clocks and locked clocks through NVML
description:
  - Reads each selected GPU's settings through NVML, changes only those that differ from what the task asks
    for, and reads them back afterwards. What C(nvidia-smi -pm), C(-pl), C(-ac)/C(-rac) and C(-lgc)/C(-rgc)
    do by hand, idempotently and for a whole node at once.
  - Every GPU is checked before any GPU is changed. A power limit outside a GPU's minimum/maximum, an
    application clock pair the GPU does not support, or locked clocks outside its graphics clock range fail the
    task with the GPU, the value and the allowed values named, and nothing is set on any GPU.
  - The settings are lost at reboot and when the driver unloads. Keep persistence mode on (O(persistence_mode=true)
    or C(nvidia-persistenced)) and run this at boot, for example from the role that installs the driver.
  - NVML cannot read locked GPU clocks back. The module records the locked clocks it applies, per GPU UUID and
    boot, in O(state_file) and compares against that record; a GPU with no record from this boot is
    V(unknown) and gets O(locked_clocks) applied (once per boot). Clocks locked by hand with
    C(nvidia-smi -lgc) are not seen. See docs/gpu-settings.md.
  - Setters need root; NVML's C(NVML_ERROR_NO_PERMISSION) fails the task saying which setting on which GPU.
options:
  gpus:
    description:
      - The GPUs to set, each as an index (V(0)), a UUID (V(GPU-566e6f65-c38e-b12f-4824-6944218668b9)) or a
        PCI bus id (V(0000:53:00.0), V(00000000:53:00.0) or V(53:00.0)). Leave it out for every GPU.
      - A value matching no GPU fails the task before any change.
    type: list
    elements: str
  persistence_mode:
    description: Turn persistence mode on or off (C(nvidia-smi -pm)). Leave it out to keep it as it is.
    type: bool
  power_limit:
    description:
      - Power limit in watts (V(500), V(350.5)), or V(default) for the GPU's default limit (C(nvidia-smi -pl)).
      - Must lie within the GPU's power limit constraints (200-700 W on an H100 SXM5).
    type: raw
  application_clocks:
    description:
      - Application clocks as V([memory_mhz, graphics_mhz]) (the order of C(nvidia-smi -ac)), as a dict with
        C(memory_mhz) and C(graphics_mhz), or V(default) to reset them (C(nvidia-smi -rac)).
      - The pair must be one the GPU supports; M(gpufleet.cluster.gpu_info) with O(gpufleet.cluster.gpu_info#module:supported_clocks=true)
        lists them.
    type: raw
  locked_clocks:
    description:
      - Lock the graphics clock into a range, as V([min_mhz, max_mhz]) or a dict with C(min_mhz) and C(max_mhz)
        (one number locks min = max), or V(reset) to unlock (C(nvidia-smi -lgc) / C(-rgc)).
      - Both ends must lie within the GPU's supported graphics clocks (345-1980 MHz on an H100 SXM5).
    type: raw
  state_file:
    description:
      - Where the locked clocks this module applied are recorded (JSON, mode 0644, written only outside check
        mode), because NVML cannot read them back.
    type: path
    default: /var/lib/gpufleet/gpu-locked-clocks.json
attributes:
  check_mode:
    description: Reads the GPUs and reports what would change; calls no NVML setter and writes no state file.
  diff_mode:
    description: Shows, per GPU (keyed by PCI bus id), the settings asked for before and after.
extends_documentation_fragment:
  - gpufleet.cluster.attributes
requirements:
  - nvidia-ml-py (the C(pynvml) module) on the managed node
  - an NVIDIA driver (it installs NVML, C(libnvidia-ml.so.1))
  - root on the managed node to change anything
seealso:
  - module: gpufleet.cluster.gpu_info
author:
  - gpufleet.cluster contributors (@gpufleet)
"""

EXAMPLES = r"""
- name: Persistence on and a 500 W cap on every GPU
  gpufleet.cluster.gpu_settings:
    persistence_mode: true
    power_limit: 500
  become: true

- name: Lock the graphics clock of two GPUs for a benchmark
  gpufleet.cluster.gpu_settings:
    gpus: ['0', 'GPU-9930d717-21dd-7692-054e-3d0a2bae76b5']
    locked_clocks: [1410, 1410]
  become: true

- name: Back to defaults
  gpufleet.cluster.gpu_settings:
    power_limit: default
    application_clocks: default
    locked_clocks: reset
  become: true
"""

RETURN = r"""
gpus:
  description: One entry per selected GPU, in NVML index order.
  returned: success
  type: list
  elements: dict
  contains:
    index:
      description: NVML index.
      type: int
      sample: 0
    uuid:
      description: GPU UUID.
      type: str
      sample: GPU-566e6f65-c38e-b12f-4824-6944218668b9
    pci_bus_id:
      description: PCI bus id as NVML prints it.
      type: str
      sample: '00000000:53:00.0'
    name:
      description: Model name.
      type: str
      sample: NVIDIA H100 80GB HBM3
    changed:
      description: Whether a setting of this GPU changed (would change, in check mode).
      type: bool
    changes:
      description: The changes, each with C(setting), C(before), C(after) and the NVML C(function) called.
      type: list
      elements: dict
      sample: [{setting: power_limit, before: 700, after: 500, function: nvmlDeviceSetPowerManagementLimit}]
    settings:
      description:
        - The settings asked for, as read back after the change (as planned, in check mode) -
          C(persistence_mode), C(power_limit) in W, C(application_clocks) (C(memory_mhz), C(graphics_mhz)) and
          C(locked_clocks) (C(min_mhz), C(max_mhz), V(unlocked) or V(unknown)).
      type: dict
      sample: {persistence_mode: true, power_limit: 500}
    power_limit_range_w:
      description: The power limits the GPU accepts, C(min) and C(max) in W, and its C(default).
      type: dict
      sample: {min: 200, max: 700, default: 700}
"""

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from ansible_collections.gpufleet.cluster.plugins.module_utils.gpu.nvml import (
    PYNVML_PACKAGE, GpuSettingsError, list_gpus, load_pynvml, nvml_session, select_gpus,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.gpu.settings import (
    SETTINGS_ORDER, GpuApplyError, apply_changes, parse_desired, persistence_warnings, plan_all, read_state,
    watts_number,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.gpu.clock_record import (
    empty_state, load_locked_state, locked_record, read_boot_id, record_applied, save_locked_state,
)

ARGUMENT_SPEC = {
    "gpus": {"type": "list", "elements": "str"},
    "persistence_mode": {"type": "bool"},
    "power_limit": {"type": "raw"},
    "application_clocks": {"type": "raw"},
    "locked_clocks": {"type": "raw"},
    "state_file": {"type": "path", "default": "/var/lib/gpufleet/gpu-locked-clocks.json"},
}


class ModuleFailure(Exception):
    """A failure to report through fail_json; ``changed`` says whether some GPU was changed before it."""

    def __init__(self, msg, changed=False):
        super().__init__(msg)
        self.changed = changed


def _boot_id():
    return read_boot_id()


def _read_states(nvml, gpus, record, boot_id):
    states = [read_state(nvml, gpu) for gpu in gpus]
    for state in states:
        state.locked_clocks_known, state.locked_clocks = locked_record(record, state.gpu.uuid, boot_id)
    return states


def _views(state, wanted, plan=()):
    """The settings asked for, as before (no plan) or after the plan's changes of this GPU."""
    view = {setting: state.view(setting) for setting in wanted}
    for change in plan:
        if change.gpu.index == state.gpu.index:
            view[change.setting] = change.after
    return view


def run_module(params, check_mode, nvml, boot_id):
    """Everything but the Ansible plumbing; returns the result dict or raises ModuleFailure."""
    try:
        desired = parse_desired(params["persistence_mode"], params["power_limit"], params["application_clocks"],
                                params["locked_clocks"])
    except GpuSettingsError as exc:
        raise ModuleFailure("gpu_settings: %s" % exc)
    wanted = [setting for setting in SETTINGS_ORDER if desired.asks_for(setting)]
    warnings = []
    try:
        record = load_locked_state(params["state_file"])
    except GpuSettingsError as exc:
        if desired.asks_for("locked_clocks"):
            raise ModuleFailure("gpu_settings: %s" % exc)
        warnings.append("locked_clocks are reported as unknown: %s" % exc)
        record = empty_state()
    try:
        with nvml_session(nvml):
            gpus = select_gpus(list_gpus(nvml), params["gpus"])
            states = _read_states(nvml, gpus, record, boot_id)
            try:
                plan = plan_all(states, desired)
            except GpuSettingsError as exc:
                raise ModuleFailure("gpu_settings changed no GPU: %s" % exc)
            warnings.extend(persistence_warnings(states, desired))
            after_states = states
            if plan and not check_mode:
                try:
                    applied = apply_changes(nvml, plan)
                except GpuApplyError as exc:
                    msg = "gpu_settings: %s" % exc
                    try:
                        _record(params["state_file"], record, exc.applied, boot_id)
                    except GpuSettingsError as record_exc:
                        msg += "; and %s" % record_exc
                    raise ModuleFailure(msg, changed=bool(exc.applied))
                try:
                    record = _record(params["state_file"], record, applied, boot_id)
                except GpuSettingsError as exc:
                    raise ModuleFailure("gpu_settings: %s" % exc, changed=True)
                after_states = _read_states(nvml, gpus, record, boot_id)
                # NVML accepted every call; a value that still differs was adjusted by the driver.
                for change in plan_all(after_states, desired):
                    warnings.append("NVML accepted %s %s on %s, but it reads back %s" % (
                        change.setting, change.text(change.after), change.gpu.label, change.text(change.before)))
    except GpuSettingsError as exc:
        raise ModuleFailure("gpu_settings: %s" % exc)

    results, before, after = [], {}, {}
    for state, now in zip(states, after_states):
        changes = [c for c in plan if c.gpu.index == state.gpu.index]
        before[state.gpu.pci_bus_id] = _views(state, wanted)
        after[state.gpu.pci_bus_id] = _views(state, wanted, plan)
        results.append({
            "index": state.gpu.index, "uuid": state.gpu.uuid, "pci_bus_id": state.gpu.pci_bus_id,
            "name": state.gpu.name, "changed": bool(changes),
            "changes": [{"setting": c.setting, "before": c.before, "after": c.after, "function": c.function}
                        for c in changes],
            "settings": _views(state, wanted, plan) if check_mode else _views(now, wanted),
            "power_limit_range_w": {"min": watts_number(state.power_min_mw), "max": watts_number(state.power_max_mw),
                                    "default": watts_number(state.power_default_mw)},
        })
    return {"changed": bool(plan), "gpus": results, "diff": {"before": before, "after": after}, "warnings": warnings}


def _record(path, record, applied, boot_id):
    """Write the locked clocks among ``applied`` into the state file; the record as it now stands."""
    if not any(change.setting == "locked_clocks" for change in applied):
        return record
    updated = record_applied(record, applied, boot_id)
    save_locked_state(path, updated)
    return updated


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    nvml, import_error = load_pynvml()  # tests put a fake here
    if nvml is None:
        module.fail_json(msg=missing_required_lib(PYNVML_PACKAGE), exception=import_error)
    try:
        result = run_module(module.params, module.check_mode, nvml, _boot_id())
    except ModuleFailure as exc:
        module.fail_json(msg=str(exc), changed=exc.changed)
    for warning in result.pop("warnings"):
        module.warn(warning)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
