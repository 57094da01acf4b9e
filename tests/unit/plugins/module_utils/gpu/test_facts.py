# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""gpu/facts.py: what gpu_info reports, checked against the nvidia-smi captures the fake follows."""
from __future__ import annotations

import os
import re

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.gpu.nvml import nvml_session
from ansible_collections.gpufleet.cluster.plugins.module_utils.gpu.facts import (
    cuda_version_text, read_gpu, read_numa_node, read_system, watts,
)

import fake_nvml  # noqa: E402  pylint: disable=wrong-import-position
from fake_sysfs import machines  # noqa: E402  pylint: disable=wrong-import-position
from reference import outputs  # noqa: E402  pylint: disable=wrong-import-position

_NVIDIA_SMI = outputs("nvidia-smi")
H100_CAPTURE = "nvidia-smi-q.h100-80gb-hbm3-x8.535.183.01.gpud.txt"


def _capture(name):
    with open(os.path.join(_NVIDIA_SMI, name)) as handle:
        return handle.read()


def _read(fake, index, sysfs_root="/nonexistent", supported_clocks=False):
    with nvml_session(fake):
        return read_gpu(fake, index, sysfs_root, supported_clocks)


def test_h100_gpu0_facts_exactly():
    facts = _read(fake_nvml.hgx_h100(), 0)
    assert facts == {
        "index": 0, "name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-566e6f65-c38e-b12f-4824-6944218668b9",
        "pci_bus_id": "00000000:53:00.0", "pci_bus_id_sysfs": "0000:53:00.0",
        "numa_node": None,                               # /nonexistent has no sysfs
        # 81559 MiB total; 551.5 MiB reserved -> 551; 81559 - 551.5 - 0 = 81007.5 free -> 81007 (nvidia-smi's numbers).
        "memory_total_mib": 81559, "memory_used_mib": 0, "memory_reserved_mib": 551, "memory_free_mib": 81007,
        "power_draw_w": 71.97, "power_limit_w": 700.0, "power_default_limit_w": 700.0,
        "power_min_limit_w": 200.0, "power_max_limit_w": 700.0, "power_enforced_limit_w": 700.0,
        "persistence_mode": True,
        "clocks_mhz": {"current": {"graphics": 345, "sm": 345, "memory": 2619},
                       "max": {"graphics": 1980, "sm": 1980, "memory": 2619},
                       "applications": {"memory": 2619, "graphics": 1980},
                       "default_applications": {"memory": 2619, "graphics": 1980}},
        "supported_clocks": None,
        "mig_mode": {"current": False, "pending": False},
        "ecc_mode": {"current": True, "pending": True},
        "ecc_errors": {"volatile": {"corrected": 0, "uncorrected": 0}, "aggregate": {"corrected": 0, "uncorrected": 0}},
        "retired_pages": None,                           # NOT_SUPPORTED: Hopper remaps rows
        "remapped_rows": {"correctable": 0, "uncorrectable": 0, "pending": False, "failure_occurred": False},
    }


def test_busy_gpu2_memory_and_clocks():
    facts = _read(fake_nvml.hgx_h100(), 2)
    # 9221.25 MiB used; free = 81559 - 551.5 - 9221.25 = 71786.25 -> 71786, as nvidia-smi printed.
    assert (facts["memory_used_mib"], facts["memory_free_mib"]) == (9221, 71786)
    assert facts["clocks_mhz"]["current"] == {"graphics": 1980, "sm": 1980, "memory": 2619}
    assert facts["power_draw_w"] == 118.01


def test_numa_node_from_sysfs(tmp_path):
    sysfs, _procfs = machines.hgx_h100(str(tmp_path))
    fake = fake_nvml.hgx_h100()
    with nvml_session(fake):
        nodes = [read_gpu(fake, i, sysfs)["numa_node"] for i in range(8)]
    assert nodes == [0, 0, 0, 0, 1, 1, 1, 1]   # topo -m of the 8x H100: GPU0-3 node 0, GPU4-7 node 1


def test_numa_node_minus_one_and_missing_are_none(tmp_path):
    device = tmp_path / "bus" / "pci" / "devices" / "0000:53:00.0"
    device.mkdir(parents=True)
    assert read_numa_node(str(tmp_path), "00000000:53:00.0") is None        # no numa_node file
    (device / "numa_node").write_text("-1\n")
    assert read_numa_node(str(tmp_path), "00000000:53:00.0") is None        # kernel: no NUMA affinity
    (device / "numa_node").write_text("1\n")
    assert read_numa_node(str(tmp_path), "00000000:53:00.0") == 1


def test_supported_clocks_on_request():
    table = _read(fake_nvml.hgx_h100(), 0, supported_clocks=True)["supported_clocks"]
    # As the real H100 answered (tests/fixtures/reference/outputs/nvml/): memory clocks 2619 and 1593.
    assert [row["memory_mhz"] for row in table] == [2619, 1593]
    graphics = table[0]["graphics_mhz"]
    # 1980 down to 345 in 15 MHz steps: (1980 - 345) / 15 + 1 = 110 clocks.
    assert (len(graphics), graphics[0], graphics[1], graphics[-1]) == (110, 1980, 1965, 345)


def test_a100_mig_node_features():
    facts = _read(fake_nvml.a100_mig(), 0, supported_clocks=True)
    assert facts["mig_mode"] == {"current": True, "pending": True}
    assert facts["persistence_mode"] is False
    assert facts["remapped_rows"] is None                  # XML: <remapped_rows>N/A</remapped_rows>
    assert (facts["power_min_limit_w"], facts["power_max_limit_w"]) == (100.0, 500.0)
    assert (facts["memory_total_mib"], facts["memory_reserved_mib"], facts["memory_used_mib"],
            facts["memory_free_mib"]) == (81920, 869, 50, 80999)
    # 1410 down to 210 in 15 MHz steps = 81 clocks, as the XML lists them.
    assert len(facts["supported_clocks"][0]["graphics_mhz"]) == 81


@pytest.mark.parametrize("getter,keys", [
    ("nvmlDeviceGetPowerManagementLimitConstraints", ("power_min_limit_w", "power_max_limit_w")),
    ("nvmlDeviceGetPersistenceMode", ("persistence_mode",)),
    ("nvmlDeviceGetEccMode", ("ecc_mode", "ecc_errors")),
    ("nvmlDeviceGetMigMode", ("mig_mode",)),
    ("nvmlDeviceGetMemoryInfo", ("memory_total_mib", "memory_used_mib", "memory_reserved_mib", "memory_free_mib")),
    ("nvmlDeviceGetPowerUsage", ("power_draw_w",)),
    ("nvmlDeviceGetApplicationsClock", ()),
])
def test_not_supported_features_are_none_never_errors(getter, keys):
    fake = fake_nvml.hgx_h100()
    fake.gpus[4].unsupported.add(getter)
    facts = _read(fake, 4)
    for key in keys:
        assert facts[key] is None, key
    if getter == "nvmlDeviceGetApplicationsClock":
        assert facts["clocks_mhz"]["applications"] == {"memory": None, "graphics": None}
        assert facts["clocks_mhz"]["default_applications"] == {"memory": 2619, "graphics": 1980}
    assert facts["uuid"] == "GPU-726d356b-f548-bbfd-c81e-b9c68f2f1587"   # the rest is still read


def test_ecc_error_totals_by_counter_and_type():
    fake = fake_nvml.hgx_h100()
    # (error type, counter type): corrected=0/uncorrected=1, volatile=0/aggregate=1
    fake.gpus[5].ecc_errors = {(0, 0): 3, (1, 0): 1, (0, 1): 17, (1, 1): 2}
    assert _read(fake, 5)["ecc_errors"] == {"volatile": {"corrected": 3, "uncorrected": 1},
                                            "aggregate": {"corrected": 17, "uncorrected": 2}}


def test_memory_v1_when_pynvml_has_no_v2():
    fake = fake_nvml.hgx_h100()
    fake.nvmlMemory_v2 = None     # nvidia-ml-py before 11.510: one memory struct, used includes reserved
    facts = _read(fake, 0)
    assert (facts["memory_used_mib"], facts["memory_reserved_mib"], facts["memory_free_mib"]) == (551, None, 81007)


def test_old_pynvml_bytes_are_decoded():
    fake = fake_nvml.hgx_h100()
    gpu = fake.gpus[0]
    gpu.name, gpu.uuid, gpu.bus_id = gpu.name.encode(), gpu.uuid.encode(), gpu.bus_id.encode()
    fake.driver = fake.driver.encode()
    facts = _read(fake, 0)
    assert (facts["name"], facts["uuid"], facts["pci_bus_id_sysfs"]) == (
        "NVIDIA H100 80GB HBM3", "GPU-566e6f65-c38e-b12f-4824-6944218668b9", "0000:53:00.0")
    with nvml_session(fake):
        assert read_system(fake)["driver_version"] == "535.183.01"


def test_system_versions():
    fake = fake_nvml.hgx_h100()
    with nvml_session(fake):
        assert read_system(fake) == {"driver_version": "535.183.01", "nvml_version": "12.535.183.01",
                                     "cuda_driver_version": "12.2", "cuda_driver_version_int": 12020}


@pytest.mark.parametrize("number,version", [(12020, "12.2"), (11080, "11.8"), (12040, "12.4"), (13000, "13.0"),
                                            (None, None)])
def test_cuda_version_text(number, version):
    assert cuda_version_text(number) == version


def test_watts():
    assert (watts(700000), watts(71970), watts(None)) == (700.0, 71.97, None)


# ---------------------------------------------------------------- the fake against the real capture
def _blocks(capture):
    return re.split(r"\n(?=GPU 0000)", capture)[1:]


def _field(block, label):
    return re.search(r"\n\s+%s\s+: (.+)" % re.escape(label), block).group(1).strip()


def test_fake_h100_node_matches_the_nvidia_smi_capture():
    capture = _capture(H100_CAPTURE)
    blocks = _blocks(capture)
    assert len(blocks) == 8 and "Driver Version                            : 535.183.01" in capture
    assert "CUDA Version                              : 12.2" in capture
    fake = fake_nvml.hgx_h100()
    for index, block in enumerate(blocks):
        facts = _read(fake, index)
        assert block.split("\n")[0] == "GPU " + facts["pci_bus_id"]
        assert _field(block, "Product Name") == facts["name"]
        assert _field(block, "GPU UUID") == facts["uuid"]
        assert _field(block, "Minor Number") == str(index)
        fb = re.search(r"FB Memory Usage\n\s+Total\s+: (\d+) MiB\n\s+Reserved\s+: (\d+) MiB\n\s+Used\s+: (\d+) MiB\n"
                       r"\s+Free\s+: (\d+) MiB", block).groups()
        assert tuple(int(v) for v in fb) == (facts["memory_total_mib"], facts["memory_reserved_mib"],
                                             facts["memory_used_mib"], facts["memory_free_mib"])
        power = re.search(r"GPU Power Readings\n\s+Power Draw\s+: ([\d.]+) W\n\s+Current Power Limit\s+: ([\d.]+) W\n"
                          r"\s+Requested Power Limit\s+: [\d.]+ W\n\s+Default Power Limit\s+: ([\d.]+) W\n"
                          r"\s+Min Power Limit\s+: ([\d.]+) W\n\s+Max Power Limit\s+: ([\d.]+) W", block).groups()
        assert tuple(float(v) for v in power) == (facts["power_draw_w"], facts["power_limit_w"],
                                                  facts["power_default_limit_w"], facts["power_min_limit_w"],
                                                  facts["power_max_limit_w"])
        clocks = re.search(r"\n    Clocks\n\s+Graphics\s+: (\d+) MHz\n\s+SM\s+: (\d+) MHz\n\s+Memory\s+: (\d+) MHz",
                           block).groups()
        assert [int(v) for v in clocks] == [facts["clocks_mhz"]["current"][k] for k in ("graphics", "sm", "memory")]
        for title, key in (("Applications Clocks", "applications"), ("Default Applications Clocks", "default_applications")):
            pair = re.search(r"\n    %s\n\s+Graphics\s+: (\d+) MHz\n\s+Memory\s+: (\d+) MHz" % title, block).groups()
            assert [int(v) for v in pair] == [facts["clocks_mhz"][key]["graphics"], facts["clocks_mhz"][key]["memory"]]
        maximum = re.search(r"\n    Max Clocks\n\s+Graphics\s+: (\d+) MHz\n\s+SM\s+: (\d+) MHz\n\s+Memory\s+: (\d+) MHz",
                            block).groups()
        assert [int(v) for v in maximum] == [facts["clocks_mhz"]["max"][k] for k in ("graphics", "sm", "memory")]
        assert _field(block, "Persistence Mode") == ("Enabled" if facts["persistence_mode"] else "Disabled")
        mig = re.search(r"MIG Mode\n\s+Current\s+: (\w+)\n\s+Pending\s+: (\w+)", block).groups()
        assert mig == ("Disabled", "Disabled") and facts["mig_mode"] == {"current": False, "pending": False}
        ecc = re.search(r"ECC Mode\n\s+Current\s+: (\w+)\n\s+Pending\s+: (\w+)", block).groups()
        assert ecc == ("Enabled", "Enabled") and facts["ecc_mode"] == {"current": True, "pending": True}
        assert re.search(r"Retired Pages\n\s+Single Bit ECC\s+: N/A", block) and facts["retired_pages"] is None
        rows = re.search(r"Remapped Rows\n\s+Correctable Error\s+: (\d+)\n\s+Uncorrectable Error\s+: (\d+)\n"
                         r"\s+Pending\s+: (\w+)\n\s+Remapping Failure Occurred\s+: (\w+)", block).groups()
        assert rows == ("0", "0", "No", "No") and facts["remapped_rows"] == {
            "correctable": 0, "uncorrectable": 0, "pending": False, "failure_occurred": False}
