# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
module: gpu_info
version_added: 0.1.0
short_description: Read NVIDIA GPU facts through NVML
description:
  - Reads, for every GPU (or those named in O(gpus)), what a cluster operator checks before trusting a node
    with jobs - identity (index, model, UUID, PCI bus id, NUMA node), memory, power limits, persistence mode,
    clocks, MIG and ECC mode, ECC error totals, retired pages and remapped rows - and the driver, NVML and
    CUDA driver versions.
  - Talks to the driver through NVML (C(libnvidia-ml.so.1)) with the C(pynvml) module of nvidia-ml-py, the way
    C(nvidia-smi -q) does, without parsing its text.
  - A feature a GPU does not support (NVML answers C(NVML_ERROR_NOT_SUPPORTED)) is returned as V(null), never
    as a failure; an H100 has RV(gpus[].retired_pages=null) because it remaps rows instead.
  - The NUMA node comes from sysfs (C(/sys/bus/pci/devices/<bus id>/numa_node)), not NVML.
  - NVML cannot read locked GPU clocks back. RV(gpus[].locked_clocks) reports what
    M(gpufleet.cluster.gpu_settings) recorded in O(state_file) during the current boot, and V(unknown) otherwise.
options:
  gpus:
    description:
      - The GPUs to report, each as an index (V(0)), a UUID (V(GPU-566e6f65-c38e-b12f-4824-6944218668b9)) or a
        PCI bus id (V(0000:53:00.0), V(00000000:53:00.0) or V(53:00.0)).
      - Leave it out to report every GPU. A value matching no GPU fails the task.
    type: list
    elements: str
  supported_clocks:
    description:
      - Also return RV(gpus[].supported_clocks), every memory clock and the graphics clocks supported with it.
        The list is long (110 graphics clocks on an H100), so it is off by default.
    type: bool
    default: false
  sysfs_root:
    description: Root of the sysfs tree the NUMA node is read from; point it at a copy to test.
    type: path
    default: /sys
  state_file:
    description: The record of locked clocks M(gpufleet.cluster.gpu_settings) keeps; only read.
    type: path
    default: /var/lib/gpufleet/gpu-locked-clocks.json
extends_documentation_fragment:
  - gpufleet.cluster.attributes.info_module
requirements:
  - nvidia-ml-py (the C(pynvml) module) on the managed node
  - an NVIDIA driver (it installs NVML, C(libnvidia-ml.so.1))
seealso:
  - module: gpufleet.cluster.gpu_settings
author:
  - gpufleet.cluster contributors (@gpufleet)
"""

EXAMPLES = r"""
- name: Read every GPU
  gpufleet.cluster.gpu_info:
  register: gpu

- name: Every GPU must be an H100 with ECC on and no row remapping pending
  ansible.builtin.assert:
    that:
      - gpu.gpus | length == 8
      - gpu.gpus | map(attribute='name') | unique == ['NVIDIA H100 80GB HBM3']
      - gpu.gpus | map(attribute='ecc_mode.current') | unique == [true]
      - gpu.gpus | selectattr('remapped_rows.pending', 'defined') | selectattr('remapped_rows.pending') | length == 0

- name: The supported clocks of one GPU, by bus id
  gpufleet.cluster.gpu_info:
    gpus: ['0000:53:00.0']
    supported_clocks: true
"""

RETURN = r"""
gpus:
  description: One entry per GPU reported, in NVML index order. Values a GPU does not support are null.
  returned: success
  type: list
  elements: dict
  contains:
    index:
      description: NVML index (PCI bus order).
      type: int
      sample: 0
    name:
      description: Model name.
      type: str
      sample: NVIDIA H100 80GB HBM3
    uuid:
      description: GPU UUID.
      type: str
      sample: GPU-566e6f65-c38e-b12f-4824-6944218668b9
    pci_bus_id:
      description: PCI bus id as NVML and nvidia-smi print it.
      type: str
      sample: '00000000:53:00.0'
    pci_bus_id_sysfs:
      description: The same bus id as sysfs names the device.
      type: str
      sample: '0000:53:00.0'
    numa_node:
      description: NUMA node of the GPU's PCI device; null when sysfs reports none (-1).
      type: int
      sample: 0
    memory_total_mib:
      description: Frame buffer size in MiB.
      type: int
      sample: 81559
    memory_used_mib:
      description: Memory allocated by processes in MiB (NVML memory v2; with v1 it includes the reserved part).
      type: int
      sample: 0
    memory_reserved_mib:
      description: Memory the driver reserves in MiB; null where NVML memory v2 is not available.
      type: int
      sample: 551
    memory_free_mib:
      description: Free memory in MiB.
      type: int
      sample: 81007
    power_draw_w:
      description: Power draw now, W.
      type: float
      sample: 71.97
    power_limit_w:
      description: Power limit set, W.
      type: float
      sample: 700.0
    power_default_limit_w:
      description: Default power limit, W.
      type: float
      sample: 700.0
    power_min_limit_w:
      description: Lowest power limit the GPU accepts, W.
      type: float
      sample: 200.0
    power_max_limit_w:
      description: Highest power limit the GPU accepts, W.
      type: float
      sample: 700.0
    power_enforced_limit_w:
      description: Power limit in force (the lowest of all limits), W.
      type: float
      sample: 700.0
    persistence_mode:
      description: Whether persistence mode is on.
      type: bool
      sample: true
    clocks_mhz:
      description:
        - C(current) and C(max) clocks (C(graphics), C(sm), C(memory)), and C(applications) and
          C(default_applications) clocks (C(memory), C(graphics)), all MHz.
      type: dict
      sample: {current: {graphics: 345, sm: 345, memory: 2619}, max: {graphics: 1980, sm: 1980, memory: 2619},
               applications: {memory: 2619, graphics: 1980}, default_applications: {memory: 2619, graphics: 1980}}
    supported_clocks:
      description: Per supported memory clock, C(memory_mhz) and the C(graphics_mhz) list; null unless O(supported_clocks=true).
      type: list
      elements: dict
    mig_mode:
      description: MIG mode C(current) and C(pending) (true = enabled); null on GPUs without MIG.
      type: dict
      sample: {current: false, pending: false}
    ecc_mode:
      description: ECC mode C(current) and C(pending); null on GPUs without ECC.
      type: dict
      sample: {current: true, pending: true}
    ecc_errors:
      description: C(volatile) (since the driver loaded) and C(aggregate) (lifetime) totals of C(corrected) and C(uncorrected) errors.
      type: dict
      sample: {volatile: {corrected: 0, uncorrected: 0}, aggregate: {corrected: 0, uncorrected: 0}}
    retired_pages:
      description: Retired page counts C(single_bit_ecc), C(double_bit_ecc) and C(pending); null on GPUs that remap rows.
      type: dict
    remapped_rows:
      description: Remapped rows C(correctable), C(uncorrectable), C(pending) and C(failure_occurred); null where not supported.
      type: dict
      sample: {correctable: 0, uncorrectable: 0, pending: false, failure_occurred: false}
    locked_clocks:
      description:
        - Locked GPU clocks as recorded by M(gpufleet.cluster.gpu_settings) in this boot - a dict with C(min_mhz)
          and C(max_mhz), V(unlocked), or V(unknown) (never recorded, recorded in an earlier boot, or no record).
          NVML itself cannot read them back.
      type: raw
      sample: unknown
gpu_count:
  description: How many GPUs NVML sees on the node (all of them, whatever O(gpus) selects).
  returned: success
  type: int
  sample: 8
driver_version:
  description: NVIDIA driver version.
  returned: success
  type: str
  sample: 535.183.01
nvml_version:
  description: NVML library version.
  returned: success
  type: str
  sample: 12.535.183.01
cuda_driver_version:
  description: Highest CUDA version the driver supports, as nvidia-smi prints it.
  returned: success
  type: str
  sample: '12.2'
cuda_driver_version_int:
  description: The same as NVML's integer (1000 * major + 10 * minor).
  returned: success
  type: int
  sample: 12020
"""

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from ansible_collections.gpufleet.cluster.plugins.module_utils.gpu.nvml import (
    PYNVML_PACKAGE, GpuSettingsError, list_gpus, load_pynvml, nvml_session, select_gpus,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.gpu.facts import read_gpu, read_system
from ansible_collections.gpufleet.cluster.plugins.module_utils.gpu.clock_record import (
    empty_state, load_locked_state, locked_view, read_boot_id,
)

ARGUMENT_SPEC = {
    "gpus": {"type": "list", "elements": "str"},
    "supported_clocks": {"type": "bool", "default": False},
    "sysfs_root": {"type": "path", "default": "/sys"},
    "state_file": {"type": "path", "default": "/var/lib/gpufleet/gpu-locked-clocks.json"},
}


def _boot_id():
    return read_boot_id()


def run_module(params, nvml, boot_id):
    """The result dict; raises GpuSettingsError with the reason when NVML cannot answer."""
    warnings = []
    try:
        record = load_locked_state(params["state_file"])
    except GpuSettingsError as exc:
        warnings.append("locked_clocks are reported as unknown: %s" % exc)
        record = empty_state()
    with nvml_session(nvml):
        every = list_gpus(nvml)
        chosen = select_gpus(every, params["gpus"])
        gpus = [read_gpu(nvml, gpu.index, params["sysfs_root"], params["supported_clocks"]) for gpu in chosen]
        result = dict(read_system(nvml), changed=False, gpu_count=len(every), gpus=gpus)
    for facts in gpus:
        facts["locked_clocks"] = locked_view(record, facts["uuid"], boot_id)
    result["warnings"] = warnings
    return result


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    nvml, import_error = load_pynvml()  # tests put a fake here
    if nvml is None:
        module.fail_json(msg=missing_required_lib(PYNVML_PACKAGE), exception=import_error)
    try:
        result = run_module(module.params, nvml, _boot_id())
    except GpuSettingsError as exc:
        module.fail_json(msg="reading the GPUs through NVML failed: %s" % exc)
    for warning in result.pop("warnings"):
        module.warn(warning)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
