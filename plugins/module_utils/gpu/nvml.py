# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""NVML plumbing shared by gpu_info and gpu_settings (runs on the target; stdlib only).

Every function takes the ``nvml`` object as its first argument, the ``pynvml`` module of nvidia-ml-py in
production and a fake with the same names in the tests. The modules get the real one from
:func:`load_pynvml`, the one import guard, which imports it only when called. What this file relies on is
the public surface of pynvml:

* ``nvml.NVMLError`` is raised by every call, with ``.value`` set to an ``NVML_ERROR_*`` code
  (3 NOT_SUPPORTED, 4 NO_PERMISSION, 9 DRIVER_NOT_LOADED, 12 LIBRARY_NOT_FOUND,
  13 FUNCTION_NOT_FOUND, 18 LIB_RM_VERSION_MISMATCH);
* strings come back as ``str`` from nvidia-ml-py 11.515 on and as ``bytes`` before it.
"""

from __future__ import annotations

import contextlib
import re
import traceback
from dataclasses import dataclass
from typing import Any, Iterator, List, Optional, Sequence, Tuple

#: The package that provides pynvml, as the module's failure names it when pynvml cannot be imported.
PYNVML_PACKAGE = "nvidia-ml-py"

NVML_ERROR_NOT_SUPPORTED = 3
NVML_ERROR_NO_PERMISSION = 4
NVML_ERROR_DRIVER_NOT_LOADED = 9
NVML_ERROR_LIBRARY_NOT_FOUND = 12
NVML_ERROR_FUNCTION_NOT_FOUND = 13
NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18

# A feature the GPU or the installed driver lacks: reported as null, never as a failure.
ABSENT_CODES = (NVML_ERROR_NOT_SUPPORTED, NVML_ERROR_FUNCTION_NOT_FOUND)

_INIT_FIXES = {
    NVML_ERROR_LIBRARY_NOT_FOUND: "libnvidia-ml.so.1 is not installed; install the NVIDIA driver on this host "
                                  "(NVML ships with it) or run this task only on GPU nodes",
    NVML_ERROR_DRIVER_NOT_LOADED: "the nvidia kernel module is not loaded; load it (modprobe nvidia) or reboot "
                                  "after installing the driver",
    NVML_ERROR_LIB_RM_VERSION_MISMATCH: "the NVML library and the loaded kernel module come from different driver "
                                        "versions; reboot (or reload the nvidia modules) after a driver upgrade",
    NVML_ERROR_NO_PERMISSION: "this user may not open /dev/nvidia*; run the task with become: true",
}


def load_pynvml() -> Tuple[Any, Optional[str]]:
    """(the pynvml module, None), or (None, the ImportError's traceback) when nvidia-ml-py is not installed."""
    try:
        import pynvml
    except ImportError:
        return None, traceback.format_exc()
    return pynvml, None


class GpuSettingsError(ValueError):
    """A GPU cannot be read or set as asked; the message names the GPU, the value, the limit and the fix."""


class NvmlUnavailableError(GpuSettingsError):
    """NVML could not be initialised: no driver, no library, or a library/driver mismatch."""


@dataclass(frozen=True)
class GpuIdentity:
    index: int
    uuid: str
    pci_bus_id: str      # as NVML prints it: 8 hex digits of domain, upper case ("00000000:53:00.0")
    name: str

    @property
    def label(self) -> str:
        """How messages name a GPU: index, UUID and bus id, so any of the three finds it."""
        return "GPU %d (%s, %s)" % (self.index, self.uuid, self.pci_bus_id)


def text(value: Any) -> str:
    """pynvml strings: bytes before nvidia-ml-py 11.515, str after."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def error_code(nvml: Any, exc: BaseException) -> Optional[int]:
    """The NVML_ERROR_* code of an exception pynvml raised, None for any other exception."""
    error_class = getattr(nvml, "NVMLError", None)
    if error_class is not None and isinstance(exc, error_class):
        return getattr(exc, "value", None)
    return None


def constant(nvml: Any, name: str, default: int) -> int:
    """An NVML_* constant; the numbers are part of NVML's ABI, so the default is the same value."""
    return getattr(nvml, name, default)


def call(nvml: Any, function: str, *args: Any) -> Any:
    """Call ``nvml.<function>(*args)``; a function this pynvml lacks reads as FUNCTION_NOT_FOUND."""
    fn = getattr(nvml, function, None)
    if fn is None:
        raise GpuSettingsError("the installed nvidia-ml-py has no %s; upgrade nvidia-ml-py" % function)
    return fn(*args)


def optional(nvml: Any, what: str, function: str, *args: Any) -> Any:
    """Call an NVML getter; None when the GPU or driver does not support it (never an error).

    Any other NVML failure (GPU lost, driver error) is raised with ``what`` (the GPU) named.
    """
    if getattr(nvml, function, None) is None:
        return None  # an older nvidia-ml-py: the feature is as absent as NOT_SUPPORTED
    try:
        return call(nvml, function, *args)
    except Exception as exc:  # pylint: disable=broad-except
        code = error_code(nvml, exc)
        if code in ABSENT_CODES:
            return None
        if code is None:
            raise
        raise GpuSettingsError("reading %s of %s failed: NVML %s (%s)" % (function, what, exc, code)) from exc


def required(nvml: Any, what: str, function: str, *args: Any) -> Any:
    """Call an NVML getter whose answer cannot be missing; every NVML failure names the GPU."""
    try:
        return call(nvml, function, *args)
    except Exception as exc:  # pylint: disable=broad-except
        code = error_code(nvml, exc)
        if code is None:
            raise
        raise GpuSettingsError("reading %s of %s failed: NVML %s (%s)" % (function, what, exc, code)) from exc


@contextlib.contextmanager
def nvml_session(nvml: Any) -> Iterator[Any]:
    """nvmlInit ... nvmlShutdown, turning an init failure into a message that says how to fix it."""
    try:
        nvml.nvmlInit()
    except Exception as exc:  # pylint: disable=broad-except
        code = error_code(nvml, exc)
        if code is None:
            raise
        fix = _INIT_FIXES.get(code, "check that the NVIDIA driver is installed and nvidia-smi works")
        raise NvmlUnavailableError("NVML could not be initialised (%s, code %s): %s" % (exc, code, fix)) from exc
    try:
        yield nvml
    finally:
        try:
            nvml.nvmlShutdown()
        except Exception:  # pylint: disable=broad-except
            pass  # the answers are already read; a failing shutdown must not hide them


# domain (4 or 8 hex digits, optional), bus, device, function; applied with fullmatch (no trailing newline).
_BUS_ID = re.compile(r"(?:([0-9a-f]{4}|[0-9a-f]{8}):)?([0-9a-f]{2}):([0-9a-f]{2})\.([0-7])")


def sysfs_bus_id(bus_id: str) -> str:
    """A PCI address in the form of /sys/bus/pci/devices: ``00000000:53:00.0`` -> ``0000:53:00.0``.

    Accepts NVML's 8-digit domain, sysfs' 4-digit domain, and ``bus:device.function`` (domain 0).
    """
    value = text(bus_id).strip(" ").lower()
    match = _BUS_ID.fullmatch(value)
    if match is None:
        raise GpuSettingsError("%r is not a PCI bus id; write it as 0000:53:00.0 (domain:bus:device.function, hex)"
                               % (bus_id,))
    domain = int(match.group(1), 16) if match.group(1) else 0
    numbers = (int(match.group(2), 16), int(match.group(3), 16), int(match.group(4), 16))
    if numbers[1] > 0x1F:
        raise GpuSettingsError("%r is not a PCI bus id: bus <= ff, device <= 1f, function <= 7" % (bus_id,))
    return "%04x:%02x:%02x.%x" % ((domain,) + numbers)


def list_gpus(nvml: Any) -> List[GpuIdentity]:
    """Every GPU NVML sees, in NVML index order (PCI bus order)."""
    count = required(nvml, "the system", "nvmlDeviceGetCount")
    gpus = []
    for index in range(count):
        what = "GPU %d" % index
        handle = required(nvml, what, "nvmlDeviceGetHandleByIndex", index)
        pci = required(nvml, what, "nvmlDeviceGetPciInfo", handle)
        gpus.append(GpuIdentity(index=index,
                                uuid=text(required(nvml, what, "nvmlDeviceGetUUID", handle)),
                                pci_bus_id=text(pci.busId),
                                name=text(required(nvml, what, "nvmlDeviceGetName", handle))))
    return gpus


def select_gpus(gpus: Sequence[GpuIdentity], selectors: Optional[Sequence[Any]]) -> List[GpuIdentity]:
    """The GPUs named by index (``3``), UUID (``GPU-566e...``) or PCI bus id (any of sysfs_bus_id's forms).

    None or an empty list means every GPU. A selector matching no GPU is refused with the GPUs there are.
    """
    if not selectors:
        return list(gpus)
    chosen = set()
    unknown = []
    for selector in selectors:
        match = _match(gpus, selector)
        if match is None:
            shown = str(selector)
            unknown.append(repr(selector) if re.search("[\x00-\x1f\x7f-\x9f]", shown) else shown)
        else:
            chosen.add(match.index)
    if unknown:
        there = "; ".join("%d %s %s" % (g.index, g.uuid, g.pci_bus_id) for g in gpus) or "none"
        raise GpuSettingsError("no GPU matches %s; give an index, a UUID or a PCI bus id of the GPUs here: %s"
                               % (", ".join(unknown), there))
    return [g for g in gpus if g.index in chosen]


def _match(gpus: Sequence[GpuIdentity], selector: Any) -> Optional[GpuIdentity]:
    if isinstance(selector, bool):
        return None
    value = str(selector).strip(" ")
    if re.fullmatch(r"[0-9]{1,4}", value):
        return next((g for g in gpus if g.index == int(value)), None)
    if value.upper().startswith(("GPU-", "MIG-")):
        return next((g for g in gpus if g.uuid.lower() == value.lower()), None)
    try:
        wanted = sysfs_bus_id(value)
    except GpuSettingsError:
        return None
    return next((g for g in gpus if sysfs_bus_id(g.pci_bus_id) == wanted), None)
