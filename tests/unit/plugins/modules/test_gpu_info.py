# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""gpufleet.cluster.gpu_info run through main() on the fake 8x H100 node."""
from __future__ import annotations

import json
import os
import sys

import pytest
import yaml

from ansible_collections.gpufleet.cluster.plugins.module_utils.gpu.nvml import GpuSettingsError
from ansible_collections.gpufleet.cluster.plugins.modules import gpu_info as module

_UNIT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if _UNIT not in sys.path:
    sys.path.insert(0, _UNIT)
import fake_nvml  # noqa: E402  pylint: disable=wrong-import-position
from module_results import assert_options_match_spec, warnings  # noqa: E402  pylint: disable=wrong-import-position
from fake_sysfs import machines  # noqa: E402  pylint: disable=wrong-import-position

BOOT = "3f1c9a52-6a2e-4a8e-9a52-0d1b7c3e5f10"


@pytest.fixture
def run_main(run_main_warned):
    """These modules warn: read their warnings from the result."""
    return run_main_warned


@pytest.fixture
def node(monkeypatch):
    fake = fake_nvml.hgx_h100()
    monkeypatch.setattr(module, "load_pynvml", lambda: (fake, None))
    monkeypatch.setattr(module, "_boot_id", lambda: BOOT)
    return fake


@pytest.fixture
def args(tmp_path):
    sysfs, _procfs = machines.hgx_h100(str(tmp_path))
    return {"sysfs_root": sysfs, "state_file": str(tmp_path / "gpu-locked-clocks.json")}


def test_reports_every_gpu(run_main, node, args):
    result = run_main(module, args)
    assert result["changed"] is False and result["gpu_count"] == 8
    assert (result["driver_version"], result["nvml_version"], result["cuda_driver_version"],
            result["cuda_driver_version_int"]) == ("535.183.01", "12.535.183.01", "12.2", 12020)
    gpus = result["gpus"]
    assert [g["pci_bus_id_sysfs"] for g in gpus] == ["0000:53:00.0", "0000:64:00.0", "0000:75:00.0", "0000:86:00.0",
                                                     "0000:97:00.0", "0000:a8:00.0", "0000:b9:00.0", "0000:ca:00.0"]
    assert [g["numa_node"] for g in gpus] == [0, 0, 0, 0, 1, 1, 1, 1]
    assert [g["memory_used_mib"] for g in gpus] == [0, 0, 9221, 0, 0, 0, 0, 0]
    assert {g["power_limit_w"] for g in gpus} == {700.0} and {g["power_min_limit_w"] for g in gpus} == {200.0}
    assert all(g["retired_pages"] is None and g["supported_clocks"] is None for g in gpus)
    assert {g["locked_clocks"] for g in gpus} == {"unknown"}     # no gpu_settings record yet
    assert node.setter_calls == [] and node.initialised == 0    # read only; NVML shut down again


def test_selected_gpus_with_supported_clocks(run_main, node, args):
    result = run_main(module, dict(args, gpus=["0000:CA:00.0", "1"], supported_clocks=True))
    assert [g["index"] for g in result["gpus"]] == [1, 7] and result["gpu_count"] == 8
    assert result["gpus"][1]["supported_clocks"][0]["graphics_mhz"][:3] == [1980, 1965, 1950]


def test_check_mode_reads_the_same(run_main, node, args):
    assert run_main(module, dict(args, _ansible_check_mode=True)) == run_main(module, args)


def test_locked_clocks_come_from_the_gpu_settings_record(run_main, node, args):
    record = {"version": 1, "gpus": {
        "GPU-566e6f65-c38e-b12f-4824-6944218668b9": {"boot_id": BOOT, "locked_clocks": [1410, 1410]},
        "GPU-9930d717-21dd-7692-054e-3d0a2bae76b5": {"boot_id": BOOT, "locked_clocks": None},
        "GPU-973565ff-45cf-12ea-4e91-33386720f7bb": {"boot_id": "an-earlier-boot", "locked_clocks": [1005, 1005]},
    }}
    with open(args["state_file"], "w") as handle:
        json.dump(record, handle)
    gpus = run_main(module, args)["gpus"]
    assert [g["locked_clocks"] for g in gpus[:4]] == [{"min_mhz": 1410, "max_mhz": 1410}, "unlocked", "unknown", "unknown"]


def test_a_broken_record_is_a_warning_not_a_failure(run_main, node, args):
    with open(args["state_file"], "w") as handle:
        handle.write("{broken")
    result = run_main(module, args)
    assert "failed" not in result and {g["locked_clocks"] for g in result["gpus"]} == {"unknown"}
    assert warnings(result)[0].startswith("locked_clocks are reported as unknown: cannot read the locked-clock record")


def test_an_unknown_gpu_fails(run_main, node, args):
    result = run_main(module, dict(args, gpus=["9"]))
    assert result["failed"] is True
    assert result["msg"].startswith("reading the GPUs through NVML failed: no GPU matches 9; give an index, a UUID")


def test_no_driver_fails_with_the_fix(run_main, node, args):
    node.init_error = fake_nvml.NVML_ERROR_LIBRARY_NOT_FOUND
    result = run_main(module, args)
    assert result["failed"] is True
    assert result["msg"] == ("reading the GPUs through NVML failed: NVML could not be initialised (NVML Shared Library "
                             "Not Found, code 12): libnvidia-ml.so.1 is not installed; install the NVIDIA driver on "
                             "this host (NVML ships with it) or run this task only on GPU nodes")


def test_no_pynvml_fails_naming_the_package(run_main, monkeypatch, args):
    monkeypatch.setattr(module, "load_pynvml", lambda: (None, "Traceback: ImportError"))
    result = run_main(module, args)
    assert result["failed"] is True and "nvidia-ml-py" in result["msg"]
    assert "Failed to import the required Python library" in result["msg"]


def test_documentation_matches_argument_spec():
    doc = assert_options_match_spec(module)
    assert doc["attributes"]["check_mode"]["support"] == "full" and doc["attributes"]["diff_mode"]["support"] == "none"
    returned = yaml.safe_load(module.RETURN)
    facts = set(returned["gpus"]["contains"])
    fake = fake_nvml.hgx_h100()
    fake.nvmlInit()
    from ansible_collections.gpufleet.cluster.plugins.module_utils.gpu.facts import read_gpu
    assert facts == set(read_gpu(fake, 0)) | {"locked_clocks"}    # every fact is documented, and only those


# ---------------------------------------------------------------- input rules: a GPU selector named
@pytest.mark.parametrize("selector", ["0\n", "GPU-566e6f65-c38e-b12f-4824-6944218668b9\n", "00000000:53:00.0\n",
                                      "0000:5_3:00.0", "٣", "", "x"])
def test_gpu_selectors_refused(tmp_path, selector):
    with pytest.raises(GpuSettingsError, match="no GPU matches"):
        module.run_module({"gpus": [selector], "supported_clocks": False, "sysfs_root": str(tmp_path),
                           "state_file": str(tmp_path / "locked.json")}, fake_nvml.hgx_h100(), "boot")
