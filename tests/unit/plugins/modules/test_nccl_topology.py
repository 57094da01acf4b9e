# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import os
import re
import stat
import sys
import xml.etree.ElementTree as ET

import pytest
import yaml


from ansible_collections.gpufleet.cluster.plugins.modules import nccl_topology as module
from ansible_collections.gpufleet.cluster.plugins.modules.nccl_topology import ModuleFailure, run_module

_UNIT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if _UNIT not in sys.path:
    sys.path.insert(0, _UNIT)
from fake_sysfs import machines  # noqa: E402
from fake_sysfs.nccl_reader import nccl_read  # noqa: E402
from module_results import assert_options_match_spec  # noqa: E402  pylint: disable=wrong-import-position


@pytest.fixture
def box(tmp_path):
    sysfs, procfs = machines.hgx_h100(str(tmp_path))
    return {"sysfs_root": sysfs, "procfs_root": procfs, "dest": str(tmp_path / "topo.xml")}


def _params(box, **extra):
    params = {"dest": None, "sysfs_root": "/sys", "procfs_root": "/proc", "include_nics": True,
              "include_ethernet": False, "mode": "0644", "owner": None, "group": None}
    params.update(box)
    params.update(extra)
    return params


# ---------------------------------------------------------------- run_module

def test_writes_the_h100_topology(box):
    result = run_module(_params(box))
    assert result["changed"] is True
    with open(box["dest"]) as handle:
        text = handle.read()
    assert text == result["xml"]
    assert stat.S_IMODE(os.stat(box["dest"]).st_mode) == 0o644
    assert result["diff"] == {"before": "", "after": text, "before_header": "(absent)", "after_header": box["dest"]}

    root = ET.fromstring(text)
    cpus = root.findall("cpu")
    switches = root.findall("cpu/pci")
    gpus = [p for p in root.iter("pci") if p.get("class") == "0x030200"]
    nics = [p for p in root.iter("pci") if p.get("class") == "0x020700"]
    assert (len(cpus), len(switches), len(gpus), len(nics), len(root.findall(".//net"))) == (2, 4, 8, 8, 8)
    # Nesting: system > cpu > switch (upstream port) > endpoint; 2 switches per NUMA node, 2+2 per switch.
    assert [len(c.findall("pci")) for c in cpus] == [2, 2]
    assert all(len(s.findall("pci")) == 4 for s in switches)
    assert all(s.get("class") == "0x060400" and s.get("vendor") == "0x1000" for s in switches)
    # GPU0-3 under NUMA 0, GPU4-7 under NUMA 1 (topo-m.8xH100 NUMA affinity column).
    assert [p.get("busid") for p in cpus[0].iter("pci") if p.get("class") == "0x030200"] == \
        ["0000:53:00.0", "0000:64:00.0", "0000:75:00.0", "0000:86:00.0"]
    busids = [p.get("busid") for p in root.iter("pci")]
    assert len(busids) == 20 and all(re.fullmatch(r"[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]", b) for b in busids)
    assert "0000:a8:00.0" in busids and "0000:A8:00.0" not in text
    assert {p.get("link_speed") for p in root.iter("pci")} == {"32.0 GT/s PCIe"}
    assert {p.get("link_width") for p in root.iter("pci")} == {"16"}
    # cpumaps for CPUs 0-51 and 52-103 with nr_cpu_ids = 104 (4 groups of 32).
    assert [c.get("affinity") for c in cpus] == ["00000000,00000000,000fffff,ffffffff",
                                                 "000000ff,ffffffff,fff00000,00000000"]
    assert nccl_read(text)[0][0] == "system"


def test_second_run_is_idempotent(box):
    assert run_module(_params(box))["changed"] is True
    mtime = os.stat(box["dest"]).st_mtime_ns
    again = run_module(_params(box))
    assert again["changed"] is False and "diff" not in again
    assert os.stat(box["dest"]).st_mtime_ns == mtime


def test_check_mode_does_not_write(box):
    result = run_module(_params(box), check_mode=True)
    assert result["changed"] is True and result["diff"]["after"] == result["xml"]
    assert not os.path.exists(box["dest"])


def test_check_mode_reports_a_change_in_the_tree(box, tmp_path):
    run_module(_params(box))
    # A NIC port goes down: its net element (and the dev numbers after it) disappear.
    state = os.path.join(box["sysfs_root"], "class", "infiniband", "mlx5_3", "ports", "1", "state")
    with open(state, "w") as handle:
        handle.write("1: DOWN\n")
    before = open(box["dest"]).read()
    result = run_module(_params(box), check_mode=True)
    assert result["changed"] is True and result["diff"]["before"] == before
    assert 'name="mlx5_3"' in before and 'name="mlx5_3"' not in result["xml"]
    assert '<net name="mlx5_4" dev="3"' in result["xml"]
    assert open(box["dest"]).read() == before


def test_mode_is_enforced(box):
    run_module(_params(box))
    os.chmod(box["dest"], 0o600)
    result = run_module(_params(box))
    assert result["changed"] is True and stat.S_IMODE(os.stat(box["dest"]).st_mode) == 0o644
    assert run_module(_params(box, mode="0640"), check_mode=True)["changed"] is True
    assert stat.S_IMODE(os.stat(box["dest"]).st_mode) == 0o644


def test_without_dest_only_returns(box):
    result = run_module(_params(box, dest=None))
    assert result["changed"] is False and "dest" not in result and result["xml"].startswith('<system version="1">')
    assert result["layout"]["cpus"][1]["numaid"] == 1


@pytest.mark.parametrize("dest, words", [
    ("dir", "it is a directory"),
    ("missing/topo.xml", "does not exist; create it first"),
])
def test_bad_dest(box, tmp_path, dest, words):
    (tmp_path / "dir").mkdir()
    with pytest.raises(ModuleFailure, match=words):
        run_module(_params(box, dest=str(tmp_path / dest)))


def test_bad_sysfs_root(box, tmp_path):
    with pytest.raises(ModuleFailure, match=r"could not build the NCCL topology from sysfs_root=.*cannot list"):
        run_module(_params(box, sysfs_root=str(tmp_path / "nowhere")))


# ---------------------------------------------------------------- through main()

def test_main_writes_then_reports_no_change(box, run_main):
    first = run_main(module, box)
    assert first["changed"] is True and os.path.exists(box["dest"])
    assert stat.S_IMODE(os.stat(box["dest"]).st_mode) == 0o644
    assert len(first["devices"]) == 20 and first["devices"][0]["busid"] == "0000:50:00.0"
    second = run_main(module, box)
    assert second["changed"] is False
    third = run_main(module, dict(box, mode="u=rw,g=r,o="))  # symbolic modes go through AnsibleModule
    assert third["changed"] is True and stat.S_IMODE(os.stat(box["dest"]).st_mode) == 0o640


def test_main_check_mode(box, run_main):
    result = run_main(module, dict(box, _ansible_check_mode=True, _ansible_diff=True))
    assert result["changed"] is True and not os.path.exists(box["dest"])


def test_main_failure(box, tmp_path, run_main):
    result = run_main(module, dict(box, sysfs_root=str(tmp_path / "nowhere")))
    assert result["failed"] is True and "could not build the NCCL topology" in result["msg"]


def test_documentation_matches_argument_spec():
    docs = assert_options_match_spec(module)["attributes"]
    assert docs["check_mode"]["support"] == "full" and docs["diff_mode"]["support"] == "full"
    yaml.safe_load(module.EXAMPLES)
    assert set(yaml.safe_load(module.RETURN)) == {"xml", "layout", "devices", "rdma_ports", "dest"}
