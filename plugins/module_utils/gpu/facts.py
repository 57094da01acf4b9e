# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Per-GPU facts read through NVML, for the gpu_info module (runs on the target; stdlib only).

Units: memory in MiB (bytes // 2**20, as nvidia-smi rounds), power in W (NVML's milliwatts / 1000),
clocks in MHz. A feature the GPU does not support (NVML_ERROR_NOT_SUPPORTED) is None, so an H100
answers ``retired_pages: null`` (it remaps rows instead) and a MIG-less GPU ``mig_mode: null``.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from typing import Any, Dict, List, Optional

from ansible_collections.gpufleet.cluster.plugins.module_utils.gpu.nvml import (
    GpuIdentity, constant, optional, required, sysfs_bus_id, text,
)

MIB = 1024 * 1024
_CLOCK_TYPES = (("graphics", "NVML_CLOCK_GRAPHICS", 0), ("sm", "NVML_CLOCK_SM", 1), ("memory", "NVML_CLOCK_MEM", 2))


@dataclass
class GpuFacts:
    index: int
    name: str
    uuid: str
    pci_bus_id: str                        # NVML form, 00000000:53:00.0
    pci_bus_id_sysfs: str                  # sysfs form, 0000:53:00.0
    numa_node: Optional[int]               # None where sysfs says -1 (no NUMA affinity) or has no file
    memory_total_mib: Optional[int]
    memory_used_mib: Optional[int]
    memory_reserved_mib: Optional[int]     # None with nvidia-ml-py or drivers older than memory v2
    memory_free_mib: Optional[int]
    power_draw_w: Optional[float]
    power_limit_w: Optional[float]
    power_default_limit_w: Optional[float]
    power_min_limit_w: Optional[float]
    power_max_limit_w: Optional[float]
    power_enforced_limit_w: Optional[float]
    persistence_mode: Optional[bool]
    clocks_mhz: Dict[str, Any]             # current/max: graphics, sm, memory; applications/default_applications
    supported_clocks: Optional[List[Dict[str, Any]]]
    mig_mode: Optional[Dict[str, bool]]
    ecc_mode: Optional[Dict[str, bool]]
    ecc_errors: Optional[Dict[str, Dict[str, Optional[int]]]]
    retired_pages: Optional[Dict[str, Any]]
    remapped_rows: Optional[Dict[str, Any]]


def watts(milliwatts: Optional[int]) -> Optional[float]:
    """NVML's milliwatts as watts (700000 -> 700.0); None stays None."""
    return None if milliwatts is None else milliwatts / 1000.0


def cuda_version_text(version: Optional[int]) -> Optional[str]:
    """nvmlSystemGetCudaDriverVersion's integer as nvidia-smi prints it: 12020 -> '12.2', 11080 -> '11.8'."""
    if version is None:
        return None
    return "%d.%d" % (version // 1000, (version % 1000) // 10)


def read_numa_node(sysfs_root: str, pci_bus_id: str) -> Optional[int]:
    """``<sysfs_root>/bus/pci/devices/<0000:53:00.0>/numa_node``; None when absent or -1."""
    path = os.path.join(sysfs_root, "bus", "pci", "devices", sysfs_bus_id(pci_bus_id), "numa_node")
    try:
        with open(path) as handle:
            node = int(handle.read().strip())
    except (OSError, ValueError):
        return None
    return node if node >= 0 else None


def read_system(nvml: Any) -> Dict[str, Any]:
    """Driver, NVML and CUDA driver versions (CUDA as '12.2' and as NVML's integer 12020)."""
    cuda = optional(nvml, "the system", "nvmlSystemGetCudaDriverVersion")
    driver = optional(nvml, "the system", "nvmlSystemGetDriverVersion")
    nvml_version = optional(nvml, "the system", "nvmlSystemGetNVMLVersion")
    return {
        "driver_version": None if driver is None else text(driver),
        "nvml_version": None if nvml_version is None else text(nvml_version),
        "cuda_driver_version": cuda_version_text(cuda),
        "cuda_driver_version_int": cuda,
    }


def _memory(nvml: Any, what: str, handle: Any) -> Dict[str, Optional[int]]:
    info = None
    # nvmlMemory_v2 (0x02000028 in pynvml) asks for the struct that reports reserved memory apart from used.
    if getattr(nvml, "nvmlMemory_v2", None) is not None:
        try:
            info = optional(nvml, what, "nvmlDeviceGetMemoryInfo", handle, nvml.nvmlMemory_v2)
        except TypeError:
            info = None  # a pynvml whose nvmlDeviceGetMemoryInfo takes no version
    if info is None:
        info = optional(nvml, what, "nvmlDeviceGetMemoryInfo", handle)
    if info is None:
        return {"total": None, "used": None, "reserved": None, "free": None}
    reserved = getattr(info, "reserved", None)
    return {"total": info.total // MIB, "used": info.used // MIB, "free": info.free // MIB,
            "reserved": None if reserved is None else reserved // MIB}


def _clocks(nvml: Any, what: str, handle: Any) -> Dict[str, Any]:
    current, maximum = {}, {}
    for key, name, default in _CLOCK_TYPES:
        kind = constant(nvml, name, default)
        current[key] = optional(nvml, what, "nvmlDeviceGetClockInfo", handle, kind)
        maximum[key] = optional(nvml, what, "nvmlDeviceGetMaxClockInfo", handle, kind)
    result: Dict[str, Any] = {"current": current, "max": maximum}
    for key, function in (("applications", "nvmlDeviceGetApplicationsClock"),
                          ("default_applications", "nvmlDeviceGetDefaultApplicationsClock")):
        result[key] = {
            "memory": optional(nvml, what, function, handle, constant(nvml, "NVML_CLOCK_MEM", 2)),
            "graphics": optional(nvml, what, function, handle, constant(nvml, "NVML_CLOCK_GRAPHICS", 0)),
        }
    return result


def read_supported_clocks(nvml: Any, what: str, handle: Any) -> Optional[List[Dict[str, Any]]]:
    """Per supported memory clock, the graphics clocks NVML accepts with it (both MHz, highest first)."""
    memory_clocks = optional(nvml, what, "nvmlDeviceGetSupportedMemoryClocks", handle)
    if memory_clocks is None:
        return None
    table = []
    for memory in sorted(memory_clocks, reverse=True):
        graphics = optional(nvml, what, "nvmlDeviceGetSupportedGraphicsClocks", handle, memory)
        table.append({"memory_mhz": memory, "graphics_mhz": None if graphics is None else sorted(graphics, reverse=True)})
    return table


def _pair(value: Any) -> Optional[Dict[str, bool]]:
    """NVML's [current, pending] enable states as booleans."""
    if value is None:
        return None
    current, pending = value
    return {"current": bool(current), "pending": bool(pending)}


def _ecc_errors(nvml: Any, what: str, handle: Any) -> Dict[str, Dict[str, Optional[int]]]:
    counters = {}
    for counter, name, default in (("volatile", "NVML_VOLATILE_ECC", 0), ("aggregate", "NVML_AGGREGATE_ECC", 1)):
        counters[counter] = {
            kind: optional(nvml, what, "nvmlDeviceGetTotalEccErrors", handle,
                           constant(nvml, type_name, type_default), constant(nvml, name, default))
            for kind, type_name, type_default in (("corrected", "NVML_MEMORY_ERROR_TYPE_CORRECTED", 0),
                                                  ("uncorrected", "NVML_MEMORY_ERROR_TYPE_UNCORRECTED", 1))
        }
    return counters


def _retired_pages(nvml: Any, what: str, handle: Any) -> Optional[Dict[str, Any]]:
    """Page retirement (before Ampere); None on GPUs that remap rows instead."""
    single = optional(nvml, what, "nvmlDeviceGetRetiredPages", handle,
                      constant(nvml, "NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS", 0))
    double = optional(nvml, what, "nvmlDeviceGetRetiredPages", handle,
                      constant(nvml, "NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR", 1))
    if single is None and double is None:
        return None
    pending = optional(nvml, what, "nvmlDeviceGetRetiredPagesPendingStatus", handle)
    return {"single_bit_ecc": None if single is None else len(list(single)),
            "double_bit_ecc": None if double is None else len(list(double)),
            "pending": None if pending is None else bool(pending)}


def _remapped_rows(nvml: Any, what: str, handle: Any) -> Optional[Dict[str, Any]]:
    rows = optional(nvml, what, "nvmlDeviceGetRemappedRows", handle)
    if rows is None:
        return None
    correctable, uncorrectable, pending, failure = rows
    return {"correctable": correctable, "uncorrectable": uncorrectable, "pending": bool(pending),
            "failure_occurred": bool(failure)}


def read_gpu(nvml: Any, index: int, sysfs_root: str = "/sys", supported_clocks: bool = False) -> Dict[str, Any]:
    """Everything gpu_info reports about GPU ``index``, as a JSON-able dict (see GpuFacts)."""
    what = "GPU %d" % index
    handle = required(nvml, what, "nvmlDeviceGetHandleByIndex", index)
    identity = GpuIdentity(index=index,
                           uuid=text(required(nvml, what, "nvmlDeviceGetUUID", handle)),
                           pci_bus_id=text(required(nvml, what, "nvmlDeviceGetPciInfo", handle).busId),
                           name=text(required(nvml, what, "nvmlDeviceGetName", handle)))
    what = identity.label
    memory = _memory(nvml, what, handle)
    constraints = optional(nvml, what, "nvmlDeviceGetPowerManagementLimitConstraints", handle)
    power_min, power_max = (None, None) if constraints is None else constraints
    persistence = optional(nvml, what, "nvmlDeviceGetPersistenceMode", handle)
    ecc_mode = _pair(optional(nvml, what, "nvmlDeviceGetEccMode", handle))
    facts = GpuFacts(
        index=index,
        name=identity.name,
        uuid=identity.uuid,
        pci_bus_id=identity.pci_bus_id,
        pci_bus_id_sysfs=sysfs_bus_id(identity.pci_bus_id),
        numa_node=read_numa_node(sysfs_root, identity.pci_bus_id),
        memory_total_mib=memory["total"],
        memory_used_mib=memory["used"],
        memory_reserved_mib=memory["reserved"],
        memory_free_mib=memory["free"],
        power_draw_w=watts(optional(nvml, what, "nvmlDeviceGetPowerUsage", handle)),
        power_limit_w=watts(optional(nvml, what, "nvmlDeviceGetPowerManagementLimit", handle)),
        power_default_limit_w=watts(optional(nvml, what, "nvmlDeviceGetPowerManagementDefaultLimit", handle)),
        power_min_limit_w=watts(power_min),
        power_max_limit_w=watts(power_max),
        power_enforced_limit_w=watts(optional(nvml, what, "nvmlDeviceGetEnforcedPowerLimit", handle)),
        persistence_mode=None if persistence is None else bool(persistence),
        clocks_mhz=_clocks(nvml, what, handle),
        supported_clocks=read_supported_clocks(nvml, what, handle) if supported_clocks else None,
        mig_mode=_pair(optional(nvml, what, "nvmlDeviceGetMigMode", handle)),
        ecc_mode=ecc_mode,
        # ECC counters are meaningless (and NOT_SUPPORTED) with ECC off; then they are None too.
        ecc_errors=_ecc_errors(nvml, what, handle) if ecc_mode is not None else None,
        retired_pages=_retired_pages(nvml, what, handle),
        remapped_rows=_remapped_rows(nvml, what, handle),
    )
    return asdict(facts)
