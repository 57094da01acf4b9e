# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""gpu/nvml.py: the pynvml import guard, NVML session and error mapping, bus id forms, GPU selection, against
the fake 8x H100 node."""
from __future__ import annotations

import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.gpu.nvml import (
    PYNVML_PACKAGE, GpuSettingsError, NvmlUnavailableError, list_gpus, load_pynvml, nvml_session, optional,
    select_gpus, sysfs_bus_id, text,
)

import fake_nvml  # noqa: E402  pylint: disable=wrong-import-position


@pytest.fixture
def node():
    fake = fake_nvml.hgx_h100()
    fake.nvmlInit()
    yield fake


# ---------------------------------------------------------------- the fake keeps pynvml's error semantics
def test_fake_nvml_error_maps_codes_to_subclasses_like_pynvml():
    err = fake_nvml.NVMLError(fake_nvml.NVML_ERROR_NOT_SUPPORTED)
    assert isinstance(err, fake_nvml.NVMLError_NotSupported) and err.value == 3 and str(err) == "Not Supported"
    assert fake_nvml.NVMLError_NoPermission().value == 4
    assert isinstance(fake_nvml.NVMLError_NoPermission(), fake_nvml.NVMLError)


# ---------------------------------------------------------------- the one pynvml import guard
def test_load_pynvml_returns_the_installed_module(monkeypatch):
    fake = fake_nvml.hgx_h100()
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    assert load_pynvml() == (fake, None)


def test_load_pynvml_without_nvidia_ml_py_returns_the_import_traceback(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)  # import pynvml raises ImportError
    nvml, why = load_pynvml()
    assert nvml is None and why.startswith("Traceback") and "ModuleNotFoundError" in why and "import pynvml" in why
    assert PYNVML_PACKAGE == "nvidia-ml-py"


# ---------------------------------------------------------------- session
def test_session_initialises_and_shuts_down(node):
    node.nvmlShutdown()
    with nvml_session(node):
        assert node.initialised == 1
    assert node.initialised == 0


@pytest.mark.parametrize("code,words", [
    (12, "libnvidia-ml.so.1 is not installed; install the NVIDIA driver"),
    (9, "the nvidia kernel module is not loaded; load it (modprobe nvidia)"),
    (18, "reboot (or reload the nvidia modules) after a driver upgrade"),
    (999, "check that the NVIDIA driver is installed and nvidia-smi works"),
])
def test_session_names_the_fix_when_nvml_cannot_start(code, words):
    fake = fake_nvml.hgx_h100()
    fake.init_error = code
    with pytest.raises(NvmlUnavailableError) as info:
        with nvml_session(fake):
            pass  # pragma: no cover
    assert "NVML could not be initialised" in str(info.value) and words in str(info.value)
    assert "code %d" % code in str(info.value)


def test_session_shuts_down_when_the_body_fails(node):
    node.nvmlShutdown()
    with pytest.raises(RuntimeError):
        with nvml_session(node):
            raise RuntimeError("boom")
    assert node.initialised == 0


# ---------------------------------------------------------------- getters
def test_optional_turns_not_supported_and_missing_functions_into_none(node):
    handle = node.nvmlDeviceGetHandleByIndex(0)
    assert optional(node, "GPU 0", "nvmlDeviceGetRetiredPages", handle, 0) is None     # NOT_SUPPORTED on H100
    assert optional(node, "GPU 0", "nvmlDeviceGetGpuLockedClocks", handle) is None      # no such NVML call
    assert optional(node, "GPU 0", "nvmlDeviceGetPowerManagementLimit", handle) == 700000


def test_optional_names_the_gpu_for_other_nvml_errors(node):
    def lost(handle):
        raise fake_nvml.NVMLError(fake_nvml.NVML_ERROR_GPU_IS_LOST)
    node.nvmlDeviceGetPowerUsage = lost
    with pytest.raises(GpuSettingsError, match=r"reading nvmlDeviceGetPowerUsage of GPU 3 failed: NVML GPU is lost \(15\)"):
        optional(node, "GPU 3", "nvmlDeviceGetPowerUsage", node.nvmlDeviceGetHandleByIndex(3))


def test_text_accepts_old_pynvml_bytes():
    assert text(b"NVIDIA H100 80GB HBM3") == "NVIDIA H100 80GB HBM3" and text("535.183.01") == "535.183.01"


# ---------------------------------------------------------------- bus ids
@pytest.mark.parametrize("given_id,sysfs", [
    ("00000000:53:00.0", "0000:53:00.0"),      # NVML / nvidia-smi
    ("0000:CA:00.0", "0000:ca:00.0"),          # upper case hex
    ("ca:00.0", "0000:ca:00.0"),               # no domain: domain 0
    ("00010000:01:00.0", "10000:01:00.0"),     # a VMD domain keeps its fifth digit, as sysfs prints it
])
def test_sysfs_bus_id_forms(given_id, sysfs):
    assert sysfs_bus_id(given_id) == sysfs


@pytest.mark.parametrize("bad", ["53", "0000:53:00", "zz:00.0", "0000:53:20.0", "0000:53:00.8", "1:2:3:4.0"])
def test_sysfs_bus_id_refuses_what_is_no_pci_address(bad):
    with pytest.raises(GpuSettingsError, match="not a PCI bus id"):
        sysfs_bus_id(bad)


@settings(max_examples=200, deadline=None)
@given(domain=st.integers(0, 0xFFFF), bus=st.integers(0, 0xFF), dev=st.integers(0, 0x1F), fn=st.integers(0, 7))
def test_nvml_and_sysfs_forms_name_the_same_device(domain, bus, dev, fn):
    nvml_form = "%08X:%02X:%02X.%X" % (domain, bus, dev, fn)
    sysfs_form = "%04x:%02x:%02x.%x" % (domain, bus, dev, fn)
    assert sysfs_bus_id(nvml_form) == sysfs_bus_id(sysfs_form) == sysfs_form


# ---------------------------------------------------------------- selection
def test_list_gpus_in_pci_order(node):
    gpus = list_gpus(node)
    assert [g.pci_bus_id for g in gpus] == ["00000000:53:00.0", "00000000:64:00.0", "00000000:75:00.0",
                                            "00000000:86:00.0", "00000000:97:00.0", "00000000:A8:00.0",
                                            "00000000:B9:00.0", "00000000:CA:00.0"]
    assert gpus[7].uuid == "GPU-7e78e6c8-c71c-66c7-9ded-f8836cecab32"
    assert gpus[0].label == "GPU 0 (GPU-566e6f65-c38e-b12f-4824-6944218668b9, 00000000:53:00.0)"


def test_select_by_index_uuid_and_bus_id_in_any_form(node):
    gpus = list_gpus(node)
    chosen = select_gpus(gpus, ["7", "gpu-973565ff-45cf-12ea-4e91-33386720f7bb", "0000:53:00.0", "a8:00.0",
                                "00000000:53:00.0"])
    # index 7, GPU 2 by UUID (case-insensitive), GPU 0 twice (sysfs and NVML form), GPU 5 by short bus id.
    assert [g.index for g in chosen] == [0, 2, 5, 7]


def test_select_nothing_means_every_gpu(node):
    assert [g.index for g in select_gpus(list_gpus(node), None)] == list(range(8))
    assert [g.index for g in select_gpus(list_gpus(node), [])] == list(range(8))


def test_unknown_selectors_are_refused_listing_the_gpus_there_are(node):
    with pytest.raises(GpuSettingsError) as info:
        select_gpus(list_gpus(node), ["8", "GPU-00000000-0000-0000-0000-000000000000", "0000:54:00.0", "0"])
    msg = str(info.value)
    assert msg.startswith("no GPU matches 8, GPU-00000000-0000-0000-0000-000000000000, 0000:54:00.0;")
    assert "0 GPU-566e6f65-c38e-b12f-4824-6944218668b9 00000000:53:00.0" in msg
    assert "7 GPU-7e78e6c8-c71c-66c7-9ded-f8836cecab32 00000000:CA:00.0" in msg
