# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A fake pynvml at the API boundary: same function names, constants and NVMLError semantics.

``hgx_h100()`` is the 8x H100 SXM5 80GB node of the public capture
tests/fixtures/reference/outputs/nvidia-smi/nvidia-smi-q.h100-80gb-hbm3-x8.535.183.01.gpud.txt
(driver 535.183.01, CUDA 12.2): per GPU its bus id, UUID, FB memory (total 81559 MiB, reserved 551,
used 0 or 9221 on GPU 2), power draw, power limit 700 W (default 700, min 200, max 700), current
clocks (345 MHz idle SM, 1980 on the busy GPU 2, memory 2619), application and default application
clocks 2619/1980, max clocks 1980/1980/2619, persistence on, MIG off, ECC on with zero errors,
retired pages N/A (NOT_SUPPORTED: Hopper remaps rows, and so is the pending status) and 0/0 remapped
rows. Supported clocks as real NVML gave them on an H100 80GB HBM3 (driver 580.159.04, the recording
tests/fixtures/reference/outputs/nvml/nvml-calls.h100-80gb-hbm3-x1-vm.580.159.04.json): memory clocks
[2619, 1593], and with 2619 the graphics clocks 1980 down to 345 MHz in 15 MHz steps (110 clocks). The
recording does not list the graphics clocks of 1593; the same H100 answered the same 110 when asked later
(nvmlDeviceGetSupportedGraphicsClocks(h, 1593), driver 580.159.04, 2026-11-26), and so does the fake.
Graphics clocks for a memory clock the GPU lacks raise NOT_FOUND, as NVML did for 1234.

``h100_vm()`` is the recorded GPU itself (one H100 in a VM, driver 580.159.04, CUDA 13.0): every getter
answers what the recording holds, and tests/unit/plugins/test_fake_nvml_recording.py checks that it does.

``a100_mig()`` is the A100-SXM4-80GB of nvidia-smi-q-x.a100-sxm4-80gb-mig.535.54.03.telegraf.xml:
MIG on, persistence off, 100-500 W, memory 1593 MHz with graphics 1410..210 MHz in 15 MHz steps,
remapped rows N/A.

Setters behave as NVML's do (INVALID_ARGUMENT outside the constraints) and are recorded in
``setter_calls`` as (function, gpu index, *args), power in milliwatts as NVML takes it. Locked clocks
are stored but, as in NVML, no getter returns them.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Set, Tuple

MIB = 1024 * 1024
KIB = 1024

NVML_SUCCESS = 0
NVML_ERROR_UNINITIALIZED = 1
NVML_ERROR_INVALID_ARGUMENT = 2
NVML_ERROR_NOT_SUPPORTED = 3
NVML_ERROR_NO_PERMISSION = 4
NVML_ERROR_NOT_FOUND = 6
NVML_ERROR_DRIVER_NOT_LOADED = 9
NVML_ERROR_LIBRARY_NOT_FOUND = 12
NVML_ERROR_FUNCTION_NOT_FOUND = 13
NVML_ERROR_GPU_IS_LOST = 15
NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18
NVML_ERROR_UNKNOWN = 999

_ERROR_TEXT = {
    NVML_ERROR_UNINITIALIZED: "Uninitialized",
    NVML_ERROR_INVALID_ARGUMENT: "Invalid Argument",
    NVML_ERROR_NOT_SUPPORTED: "Not Supported",
    NVML_ERROR_NO_PERMISSION: "Insufficient Permissions",
    NVML_ERROR_NOT_FOUND: "Not Found",
    NVML_ERROR_DRIVER_NOT_LOADED: "Driver Not Loaded",
    NVML_ERROR_LIBRARY_NOT_FOUND: "NVML Shared Library Not Found",
    NVML_ERROR_FUNCTION_NOT_FOUND: "Function Not Found",
    NVML_ERROR_GPU_IS_LOST: "GPU is lost",
    NVML_ERROR_LIB_RM_VERSION_MISMATCH: "RM has detected an NVML/RM version mismatch.",
    NVML_ERROR_UNKNOWN: "Unknown Error",
}


class NVMLError(Exception):
    """As pynvml's: NVMLError(code) is an instance of the subclass for that code, with ``.value``."""
    _by_code: Dict[int, type] = {}

    def __new__(cls, value=None):
        klass = NVMLError._by_code.get(value, NVMLError) if cls is NVMLError else cls
        obj = Exception.__new__(klass)
        obj.value = value
        return obj

    def __init__(self, *args):
        super().__init__(self.value)

    def __str__(self):
        return _ERROR_TEXT.get(self.value, "NVML Error with code %s" % self.value)


def _subclass(name: str, code: int) -> type:
    def new(cls, *args):
        return NVMLError.__new__(cls, code)
    klass = type(name, (NVMLError,), {"__new__": new})
    NVMLError._by_code[code] = klass
    return klass


NVMLError_InvalidArgument = _subclass("NVMLError_InvalidArgument", NVML_ERROR_INVALID_ARGUMENT)
NVMLError_NotSupported = _subclass("NVMLError_NotSupported", NVML_ERROR_NOT_SUPPORTED)
NVMLError_NoPermission = _subclass("NVMLError_NoPermission", NVML_ERROR_NO_PERMISSION)
NVMLError_NotFound = _subclass("NVMLError_NotFound", NVML_ERROR_NOT_FOUND)
NVMLError_DriverNotLoaded = _subclass("NVMLError_DriverNotLoaded", NVML_ERROR_DRIVER_NOT_LOADED)
NVMLError_LibraryNotFound = _subclass("NVMLError_LibraryNotFound", NVML_ERROR_LIBRARY_NOT_FOUND)
NVMLError_FunctionNotFound = _subclass("NVMLError_FunctionNotFound", NVML_ERROR_FUNCTION_NOT_FOUND)
NVMLError_GpuIsLost = _subclass("NVMLError_GpuIsLost", NVML_ERROR_GPU_IS_LOST)


@dataclass
class Memory:
    total: int
    free: int
    used: int
    reserved: Optional[int] = None
    version: Optional[int] = None


@dataclass
class PciInfo:
    """pynvml's nvmlPciInfo_t fields (names as pynvml spells them)."""

    busId: str  # noqa: N815 (pynvml's field name)
    busIdLegacy: str  # noqa: N815
    domain: int
    bus: int
    device: int
    pciDeviceId: int  # noqa: N815 (device id << 16 | vendor id)
    pciSubSystemId: int  # noqa: N815 (subsystem device << 16 | subsystem vendor)


@dataclass
class FakeGpu:
    name: str
    uuid: str
    bus_id: str
    total_b: int
    reserved_b: int
    used_b: int
    power_draw_mw: int
    power_limit_mw: int
    power_default_mw: int
    power_min_mw: int
    power_max_mw: int
    persistence: int
    clocks: Dict[str, int]                      # current graphics/sm/memory
    max_clocks: Dict[str, int]
    app_clocks: Tuple[int, int]                 # (memory, graphics)
    default_app_clocks: Tuple[int, int]
    supported: Dict[int, List[int]]             # memory -> graphics, highest first
    mig: Optional[Tuple[int, int]]              # None: NOT_SUPPORTED
    ecc_mode: Optional[Tuple[int, int]]
    ecc_errors: Dict[Tuple[int, int], int] = field(default_factory=dict)   # (error type, counter) -> count
    remapped_rows: Optional[Tuple[int, int, int, int]] = (0, 0, 0, 0)
    unsupported: Set[str] = field(default_factory=set)                      # getters answering NOT_SUPPORTED
    locked: Optional[Tuple[int, int]] = None                                # what SetGpuLockedClocks stored
    pci_ids: Tuple[int, int] = (0x233010DE, 0x16C110DE)                      # (pciDeviceId, pciSubSystemId)
    retired_pending: Optional[int] = None                                   # None: NOT_SUPPORTED (rows remapped)


class Handle:
    def __init__(self, index: int):
        self.index = index


_CLOCK_KEYS = {0: "graphics", 1: "sm", 2: "memory"}
H100_GRAPHICS = list(range(1980, 344, -15))     # 1980, 1965, ... 345: 110 clocks
A100_GRAPHICS = list(range(1410, 209, -15))     # 1410 ... 210: 81 clocks, as the A100 XML lists them

# (bus id, UUID, FB used in bytes, power draw mW, SM clock MHz) of the capture, GPU 0..7.
H100_GPUS = (
    ("00000000:53:00.0", "GPU-566e6f65-c38e-b12f-4824-6944218668b9", 0, 71970, 345),
    ("00000000:64:00.0", "GPU-9930d717-21dd-7692-054e-3d0a2bae76b5", 0, 68880, 345),
    ("00000000:75:00.0", "GPU-973565ff-45cf-12ea-4e91-33386720f7bb", 9221 * MIB + 256 * KIB, 118010, 1980),
    ("00000000:86:00.0", "GPU-6b932a61-abfd-5ea1-b26a-7dea7f2fa601", 0, 72910, 345),
    ("00000000:97:00.0", "GPU-726d356b-f548-bbfd-c81e-b9c68f2f1587", 0, 71680, 345),
    ("00000000:A8:00.0", "GPU-06db64f6-6181-5a90-cf95-5ce52a58c4e5", 0, 71690, 345),
    ("00000000:B9:00.0", "GPU-a5271aa6-4cdb-28c7-0ef5-5da271d0caae", 0, 69440, 345),
    ("00000000:CA:00.0", "GPU-7e78e6c8-c71c-66c7-9ded-f8836cecab32", 0, 74760, 345),
)


class FakeNvml:
    """The pynvml module as the code under test sees it."""

    NVMLError = NVMLError
    NVMLError_InvalidArgument = NVMLError_InvalidArgument
    NVMLError_NotSupported = NVMLError_NotSupported
    NVMLError_NoPermission = NVMLError_NoPermission
    NVMLError_NotFound = NVMLError_NotFound
    NVMLError_DriverNotLoaded = NVMLError_DriverNotLoaded
    NVMLError_LibraryNotFound = NVMLError_LibraryNotFound
    NVML_ERROR_NOT_SUPPORTED = NVML_ERROR_NOT_SUPPORTED
    NVML_ERROR_NO_PERMISSION = NVML_ERROR_NO_PERMISSION
    NVML_ERROR_NOT_FOUND = NVML_ERROR_NOT_FOUND
    NVML_ERROR_LIBRARY_NOT_FOUND = NVML_ERROR_LIBRARY_NOT_FOUND
    NVML_FEATURE_DISABLED = 0
    NVML_FEATURE_ENABLED = 1
    NVML_CLOCK_GRAPHICS = 0
    NVML_CLOCK_SM = 1
    NVML_CLOCK_MEM = 2
    NVML_MEMORY_ERROR_TYPE_CORRECTED = 0
    NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1
    NVML_VOLATILE_ECC = 0
    NVML_AGGREGATE_ECC = 1
    NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0
    NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR = 1
    nvmlMemory_v2 = 0x02000028

    def __init__(self, gpus: List[FakeGpu], driver: str, cuda: int):
        self.gpus = gpus
        self.driver = driver
        self.cuda = cuda
        self.init_error: Optional[int] = None
        self.denied: Set[str] = set()          # setters answering NO_PERMISSION ("*" for all: not root)
        self.setter_calls: List[Tuple[Any, ...]] = []
        self.initialised = 0

    # ------------------------------------------------------------ library
    def nvmlInit(self):
        if self.init_error is not None:
            raise NVMLError(self.init_error)
        self.initialised += 1

    def nvmlShutdown(self):
        self._ready()
        self.initialised -= 1

    def _ready(self):
        if self.initialised <= 0:
            raise NVMLError(NVML_ERROR_UNINITIALIZED)

    def _gpu(self, handle: Handle, getter: str) -> FakeGpu:
        self._ready()
        gpu = self.gpus[handle.index]
        if getter in gpu.unsupported:
            raise NVMLError(NVML_ERROR_NOT_SUPPORTED)
        return gpu

    def nvmlSystemGetDriverVersion(self):
        self._ready()
        return self.driver

    def nvmlSystemGetNVMLVersion(self):
        self._ready()
        return "%d.%s" % (self.cuda // 1000, self.driver)    # 12.535.183.01, as NVML 12 prints it

    def nvmlSystemGetCudaDriverVersion(self):
        self._ready()
        return self.cuda

    def nvmlDeviceGetCount(self):
        self._ready()
        return len(self.gpus)

    def nvmlDeviceGetHandleByIndex(self, index):
        self._ready()
        if not 0 <= index < len(self.gpus):
            raise NVMLError(NVML_ERROR_INVALID_ARGUMENT)
        return Handle(index)

    # ------------------------------------------------------------ getters
    def nvmlDeviceGetName(self, handle):
        return self._gpu(handle, "nvmlDeviceGetName").name

    def nvmlDeviceGetUUID(self, handle):
        return self._gpu(handle, "nvmlDeviceGetUUID").uuid

    def nvmlDeviceGetPciInfo(self, handle):
        gpu = self._gpu(handle, "nvmlDeviceGetPciInfo")
        text = gpu.bus_id.decode() if isinstance(gpu.bus_id, bytes) else gpu.bus_id   # old pynvml: bytes
        domain, bus, rest = text.split(":")
        return PciInfo(busId=gpu.bus_id, busIdLegacy="%04x:%s:%s" % (int(domain, 16), bus, rest),
                       domain=int(domain, 16), bus=int(bus, 16), device=int(rest.split(".")[0], 16),
                       pciDeviceId=gpu.pci_ids[0], pciSubSystemId=gpu.pci_ids[1])

    def nvmlDeviceGetMemoryInfo(self, handle, version=None):
        gpu = self._gpu(handle, "nvmlDeviceGetMemoryInfo")
        free = gpu.total_b - gpu.reserved_b - gpu.used_b
        if version is not None and version == self.nvmlMemory_v2:
            return Memory(total=gpu.total_b, free=free, used=gpu.used_b, reserved=gpu.reserved_b, version=version)
        return Memory(total=gpu.total_b, free=free, used=gpu.total_b - free)   # v1: used includes reserved

    def nvmlDeviceGetPowerUsage(self, handle):
        return self._gpu(handle, "nvmlDeviceGetPowerUsage").power_draw_mw

    def nvmlDeviceGetPowerManagementLimit(self, handle):
        return self._gpu(handle, "nvmlDeviceGetPowerManagementLimit").power_limit_mw

    def nvmlDeviceGetPowerManagementDefaultLimit(self, handle):
        return self._gpu(handle, "nvmlDeviceGetPowerManagementDefaultLimit").power_default_mw

    def nvmlDeviceGetPowerManagementLimitConstraints(self, handle):
        gpu = self._gpu(handle, "nvmlDeviceGetPowerManagementLimitConstraints")
        return [gpu.power_min_mw, gpu.power_max_mw]

    def nvmlDeviceGetEnforcedPowerLimit(self, handle):
        return self._gpu(handle, "nvmlDeviceGetEnforcedPowerLimit").power_limit_mw

    def nvmlDeviceGetPersistenceMode(self, handle):
        return self._gpu(handle, "nvmlDeviceGetPersistenceMode").persistence

    def nvmlDeviceGetClockInfo(self, handle, clock_type):
        return self._gpu(handle, "nvmlDeviceGetClockInfo").clocks[_CLOCK_KEYS[clock_type]]

    def nvmlDeviceGetMaxClockInfo(self, handle, clock_type):
        return self._gpu(handle, "nvmlDeviceGetMaxClockInfo").max_clocks[_CLOCK_KEYS[clock_type]]

    def nvmlDeviceGetApplicationsClock(self, handle, clock_type):
        memory, graphics = self._gpu(handle, "nvmlDeviceGetApplicationsClock").app_clocks
        return memory if clock_type == self.NVML_CLOCK_MEM else graphics

    def nvmlDeviceGetDefaultApplicationsClock(self, handle, clock_type):
        memory, graphics = self._gpu(handle, "nvmlDeviceGetDefaultApplicationsClock").default_app_clocks
        return memory if clock_type == self.NVML_CLOCK_MEM else graphics

    def nvmlDeviceGetSupportedMemoryClocks(self, handle):
        return sorted(self._gpu(handle, "nvmlDeviceGetSupportedMemoryClocks").supported, reverse=True)

    def nvmlDeviceGetSupportedGraphicsClocks(self, handle, memory):
        gpu = self._gpu(handle, "nvmlDeviceGetSupportedGraphicsClocks")
        if memory not in gpu.supported:
            raise NVMLError(NVML_ERROR_NOT_FOUND)   # as real NVML answered for 1234 MHz on the H100
        return list(gpu.supported[memory])

    def nvmlDeviceGetMigMode(self, handle):
        gpu = self._gpu(handle, "nvmlDeviceGetMigMode")
        if gpu.mig is None:
            raise NVMLError(NVML_ERROR_NOT_SUPPORTED)
        return list(gpu.mig)

    def nvmlDeviceGetEccMode(self, handle):
        gpu = self._gpu(handle, "nvmlDeviceGetEccMode")
        if gpu.ecc_mode is None:
            raise NVMLError(NVML_ERROR_NOT_SUPPORTED)
        return list(gpu.ecc_mode)

    def nvmlDeviceGetTotalEccErrors(self, handle, error_type, counter_type):
        return self._gpu(handle, "nvmlDeviceGetTotalEccErrors").ecc_errors.get((error_type, counter_type), 0)

    def nvmlDeviceGetRetiredPages(self, handle, cause):
        self._gpu(handle, "nvmlDeviceGetRetiredPages")
        raise NVMLError(NVML_ERROR_NOT_SUPPORTED)     # both captures: "N/A" (A100 and H100 remap rows)

    def nvmlDeviceGetRetiredPagesPendingStatus(self, handle):
        gpu = self._gpu(handle, "nvmlDeviceGetRetiredPagesPendingStatus")
        if gpu.retired_pending is None:
            raise NVMLError(NVML_ERROR_NOT_SUPPORTED)   # the H100 recording: Not Supported
        return gpu.retired_pending

    def nvmlDeviceGetRemappedRows(self, handle):
        gpu = self._gpu(handle, "nvmlDeviceGetRemappedRows")
        if gpu.remapped_rows is None:
            raise NVMLError(NVML_ERROR_NOT_SUPPORTED)
        return gpu.remapped_rows

    # ------------------------------------------------------------ setters
    def _setter(self, name: str, handle: Handle, *args: Any) -> FakeGpu:
        gpu = self._gpu(handle, name)
        if "*" in self.denied or name in self.denied:
            raise NVMLError(NVML_ERROR_NO_PERMISSION)
        self.setter_calls.append((name, handle.index) + args)
        return gpu

    def nvmlDeviceSetPersistenceMode(self, handle, mode):
        gpu = self._setter("nvmlDeviceSetPersistenceMode", handle, mode)
        if mode not in (0, 1):
            raise NVMLError(NVML_ERROR_INVALID_ARGUMENT)
        gpu.persistence = mode

    def nvmlDeviceSetPowerManagementLimit(self, handle, limit_mw):
        gpu = self._setter("nvmlDeviceSetPowerManagementLimit", handle, limit_mw)
        if not gpu.power_min_mw <= limit_mw <= gpu.power_max_mw:
            raise NVMLError(NVML_ERROR_INVALID_ARGUMENT)
        gpu.power_limit_mw = limit_mw

    def nvmlDeviceSetApplicationsClocks(self, handle, memory, graphics):
        gpu = self._setter("nvmlDeviceSetApplicationsClocks", handle, memory, graphics)
        if graphics not in gpu.supported.get(memory, ()):
            raise NVMLError(NVML_ERROR_INVALID_ARGUMENT)
        gpu.app_clocks = (memory, graphics)

    def nvmlDeviceResetApplicationsClocks(self, handle):
        gpu = self._setter("nvmlDeviceResetApplicationsClocks", handle)
        gpu.app_clocks = gpu.default_app_clocks

    def nvmlDeviceSetGpuLockedClocks(self, handle, low, high):
        gpu = self._setter("nvmlDeviceSetGpuLockedClocks", handle, low, high)
        clocks = [g for graphics in gpu.supported.values() for g in graphics]
        if low > high or low < min(clocks) or high > max(clocks):
            raise NVMLError(NVML_ERROR_INVALID_ARGUMENT)
        gpu.locked = (low, high)

    def nvmlDeviceResetGpuLockedClocks(self, handle):
        gpu = self._setter("nvmlDeviceResetGpuLockedClocks", handle)
        gpu.locked = None


def _h100(bus_id: str, uuid: str, used_b: int, draw_mw: int, sm_mhz: int) -> FakeGpu:
    return FakeGpu(
        name="NVIDIA H100 80GB HBM3", uuid=uuid, bus_id=bus_id,
        # 81559 MiB total; 551.5 MiB reserved so free reads 81007 MiB as nvidia-smi printed (71786 on GPU 2).
        total_b=81559 * MIB, reserved_b=551 * MIB + 512 * KIB, used_b=used_b,
        power_draw_mw=draw_mw, power_limit_mw=700000, power_default_mw=700000,
        power_min_mw=200000, power_max_mw=700000, persistence=1,
        clocks={"graphics": sm_mhz, "sm": sm_mhz, "memory": 2619},
        max_clocks={"graphics": 1980, "sm": 1980, "memory": 2619},
        app_clocks=(2619, 1980), default_app_clocks=(2619, 1980),
        supported={2619: list(H100_GRAPHICS), 1593: list(H100_GRAPHICS)}, mig=(0, 0), ecc_mode=(1, 1),
    )


def hgx_h100() -> FakeNvml:
    """The 8x H100 80GB HBM3 node of the gpud capture, driver 535.183.01, CUDA 12.2."""
    return FakeNvml([_h100(*row) for row in H100_GPUS], driver="535.183.01", cuda=12020)


def h100_vm() -> FakeNvml:
    """The one H100 80GB HBM3 of the NVML recording (a VM, driver 580.159.04, CUDA 13.0), value for value."""
    gpu = _h100("00000000:00:06.0", "GPU-0b81b345-76c7-7718-a3eb-f381bdb2899f", 0, 100806, 345)
    # 85520809984 B total, 503316480 reserved, 0 used: v1 used = total - free = the reserved part.
    gpu.total_b, gpu.reserved_b = 85520809984, 503316480
    # One corrected error since the counters were last cleared (aggregate), none this boot.
    gpu.ecc_errors = {(0, 1): 1}
    return FakeNvml([gpu], driver="580.159.04", cuda=13000)


def a100_mig() -> FakeNvml:
    """The one A100-SXM4-80GB of the telegraf capture: MIG on, persistence off, driver 535.54.03."""
    gpu = FakeGpu(
        name="NVIDIA A100-SXM4-80GB", uuid="GPU-513536b6-7d19-9063-b049-1e69664bb298", bus_id="00000000:01:00.0",
        # 81920 MiB total, 869 reserved, 50 used, 80999 free as the XML prints them (sub-MiB parts invented).
        total_b=81920 * MIB, reserved_b=869 * MIB + 768 * KIB, used_b=50 * MIB + 768 * KIB, power_draw_mw=67030,
        power_limit_mw=500000, power_default_mw=500000, power_min_mw=100000, power_max_mw=500000, persistence=0,
        clocks={"graphics": 1275, "sm": 1275, "memory": 1593}, max_clocks={"graphics": 1410, "sm": 1410, "memory": 1593},
        app_clocks=(1593, 1275), default_app_clocks=(1593, 1275), supported={1593: list(A100_GRAPHICS)},
        mig=(1, 1), ecc_mode=(1, 1), remapped_rows=None, pci_ids=(0x20B210DE, 0x147F10DE),
    )
    return FakeNvml([gpu], driver="535.54.03", cuda=12020)


def clone(fake: FakeNvml) -> FakeNvml:
    """An independent copy (hypothesis examples must not share GPU state)."""
    return copy.deepcopy(fake)
