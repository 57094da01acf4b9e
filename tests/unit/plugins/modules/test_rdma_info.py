# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""gpufleet.cluster.rdma_info on a fake sysfs of the recorded H100 node and with fake tools."""
from __future__ import annotations

import os
import stat

import pytest
import yaml

from ansible_collections.gpufleet.cluster.plugins.modules import rdma_info as module
from ansible_collections.gpufleet.cluster.plugins.modules.rdma_info import ModuleFailure, _order, run_module

import fake_rdma_sysfs as sysfs_tree  # noqa: E402
from reference import FIXTURES, outputs  # noqa: E402  pylint: disable=wrong-import-position
from module_results import module_doc  # noqa: E402  pylint: disable=wrong-import-position

_IB = outputs("infiniband")
_FIXTURES = os.path.join(FIXTURES, "rdma")
IB_NDR = ["mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"]


def _reference(name):
    with open(os.path.join(_IB, name)) as handle:
        return handle.read()


class FakeRunner:
    """tools: name -> (rc, stdout, stderr); a tool not listed is not installed."""

    def __init__(self, tools):
        self.tools, self.calls = tools, []

    def which(self, name):
        return "/usr/sbin/" + name if name in self.tools else None

    def run(self, argv):
        self.calls.append(argv)
        return self.tools[os.path.basename(argv[0])]


def _params(**extra):
    params = {"sources": ["auto"], "sysfs_root": "/sys", "fail_on_down": False}
    params.update(extra)
    return params


# ---------------------------------------------------------------- sysfs

def test_h100_sysfs_eight_ndr_and_one_roce(run_main, tmp_path):
    root = sysfs_tree.h100_ndr(tmp_path)
    result = run_main(module, {"sysfs_root": root})
    assert result["changed"] is False and "failed" not in result
    assert [d["name"] for d in result["devices"]] == ["mlx5_0", "mlx5_1", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6",
                                                      "mlx5_9", "mlx5_10", "mlx5_11"]
    assert result["summary"] == {"devices": 9, "ports": 9, "active": 9,
                                 "active_by_link_layer": {"Ethernet": 1, "InfiniBand": 8}, "not_active": []}
    assert result["msg"] == "9 RDMA device(s), 9 port(s): 9 ACTIVE (Ethernet 1, InfiniBand 8)"
    assert result["sources_used"] == ["sysfs"] and result["sources_missing"] == [] and result["source_errors"] == []
    mlx5_0 = result["devices"][0]
    assert (mlx5_0["ca_type"], mlx5_0["firmware"], mlx5_0["node_guid"], mlx5_0["numa_node"], mlx5_0["pci_address"]) == \
        ("MT4129", "28.39.1002", "0x946dae0300cde72c", 0, "0000:18:00.0")
    port = mlx5_0["ports"][0]
    # lid 0x4b = 75, sm_lid 0x14e = 334; GID 0 fe80::946d:ae03:00cd:e72c -> port GUID 0x946dae0300cde72c.
    assert (port["port"], port["state"], port["phys_state"], port["rate_gbps"], port["rate_detail"], port["link_layer"],
            port["base_lid"], port["sm_lid"], port["port_guid"], port["netdev"]) == \
        (1, "ACTIVE", "LinkUp", 400, "4X NDR", "InfiniBand", 75, 334, "0x946dae0300cde72c", "ibp24s0")
    roce = [p for p in result["ports"] if p["link_layer"] == "Ethernet"]
    assert [(p["device"], p["netdev"], p["rate_gbps"], p["base_lid"], p["numa_node"]) for p in roce] == \
        [("mlx5_1", "ens7f0np0", 100, 0, 0)]
    assert [p["numa_node"] for p in result["ports"]] == [0, 0, 0, 0, 0, 1, 1, 1, 1]


def test_fail_on_down_names_the_ports(run_main, tmp_path):
    polling = {"state": "1: DOWN", "phys_state": "2: Polling", "lid": "0xffff"}  # an IB port without cable
    root = sysfs_tree.h100_ndr(tmp_path, full=True, overrides={"mlx5_4": polling})
    result = run_main(module, {"sysfs_root": root, "fail_on_down": True})
    assert result["failed"] is True
    assert result["msg"] == ("4 of 12 RDMA port(s) not ACTIVE: mlx5_2/1 (DOWN, Disabled), mlx5_4/1 (DOWN, Polling), "
                             "mlx5_7/1 (DOWN, Disabled), mlx5_8/1 (DOWN, Disabled); fail_on_down is true")
    assert result["summary"]["active_by_link_layer"] == {"Ethernet": 1, "InfiniBand": 7}
    entry = result["summary"]["not_active"][1]
    assert (entry["device"], entry["link_layer"]) == ("mlx5_4", "InfiniBand")
    assert entry["reason"].startswith("no link (physical state Polling)")
    assert len(result["devices"]) == 12  # the facts come with the failure
    assert run_main(module, {"sysfs_root": root})["summary"]["active"] == 8  # without fail_on_down: reported only


def test_subnet_manager_missing_is_init(tmp_path):
    root = sysfs_tree.h100_ndr(tmp_path, overrides={"mlx5_9": {"state": "2: INIT", "lid": "0x0", "sm_lid": "0x0"}})
    result, failure = run_module(_params(sysfs_root=root), FakeRunner({}))
    assert failure is None
    assert [(p["device"], p["state"], p["phys_state"]) for p in result["summary"]["not_active"]] == \
        [("mlx5_9", "INIT", "LinkUp")]
    assert "not configured by a subnet manager" in result["summary"]["not_active"][0]["reason"]


def test_no_device_at_all(run_main, tmp_path):
    os.makedirs(str(tmp_path / "sys" / "class"))
    result = run_main(module, {"sysfs_root": str(tmp_path / "sys"), "fail_on_down": True})
    assert "failed" not in result and result["devices"] == [] and result["ports"] == []
    assert result["summary"] == {"devices": 0, "ports": 0, "active": 0, "active_by_link_layer": {}, "not_active": []}
    assert result["msg"] == ("no RDMA device found: %s/sys/class/infiniband is empty or missing and no tool (sysfs) "
                             "listed one; is the HCA driver (mlx5_ib, ib_core) loaded?" % tmp_path)


def test_soft_roce_and_dual_port_function(tmp_path):
    tree = sysfs_tree.RdmaSysfs(str(tmp_path / "sys"))
    tree.soft_roce("rxe0", "eth0", "0x505400fffe000001")
    # A ConnectX-3 style function with two ports and two IPoIB netdevs told apart by dev_port.
    port = {"state": "4: ACTIVE", "phys_state": "5: LinkUp", "rate": "56 Gb/sec (4X FDR)", "link_layer": "InfiniBand"}
    tree.hca("mlx4_0", "0000:81:00.0", -1, {"node_guid": "0002:c903:00a5:95c0"}, {1: port, 2: port},
             {"ib0": 0, "ib1": 1, "ib0.8001": 0})
    result, _failure = run_module(_params(sysfs_root=str(tmp_path / "sys")), FakeRunner({}))
    mlx4, rxe = result["devices"]
    assert [p["netdev"] for p in mlx4["ports"]] == ["ib0", "ib1"]
    assert (mlx4["numa_node"], mlx4["pci_address"], mlx4["ports"][0]["rate_gbps"]) == (None, "0000:81:00.0", 56)
    assert (rxe["name"], rxe["pci_address"], rxe["ports"][0]["netdev"], rxe["ports"][0]["port_guid"]) == \
        ("rxe0", None, "eth0", "0x505400fffe000001")


def test_roce_lag_netdev_comes_from_gid_zero(tmp_path):
    tree = sysfs_tree.RdmaSysfs(str(tmp_path / "sys"))
    port = {"state": "4: ACTIVE", "phys_state": "5: LinkUp", "link_layer": "Ethernet", "gid_attrs/ndevs/0": "bond0"}
    tree.hca("mlx5_bond_0", "0000:1f:00.0", 0, {}, {1: port}, {"ens7f0np0": 0})
    result, _failure = run_module(_params(sysfs_root=str(tmp_path / "sys")), FakeRunner({}))
    assert result["ports"][0]["netdev"] == "bond0"  # not the PCI function's own ens7f0np0


def test_unparsable_sysfs_value_is_reported_not_fatal(tmp_path):
    root = sysfs_tree.h100_ndr(tmp_path)
    with open(os.path.join(root, "class", "infiniband", "mlx5_3", "ports", "1", "rate"), "w") as handle:
        handle.write("fast\n")
    result, _failure = run_module(_params(sysfs_root=root), FakeRunner({}))
    assert len(result["source_errors"]) == 1 and "mlx5_3/ports/1/rate: rate 'fast' is not" in result["source_errors"][0]
    assert result["devices"][2]["ports"][0]["rate_gbps"] is None and result["summary"]["active"] == 9


# ---------------------------------------------------------------- sources and tools

def test_auto_reads_only_sysfs_for_another_tree(tmp_path):
    runner = FakeRunner({"ibstat": (0, "", "")})
    result, _failure = run_module(_params(sysfs_root=sysfs_tree.h100_ndr(tmp_path)), runner)
    assert result["sources_used"] == ["sysfs"] and runner.calls == []
    assert _order(["auto"], "/sys/") == ["sysfs", "ibstat", "ibstatus", "ibv_devinfo", "rdma", "ibdev2netdev"]
    with pytest.raises(ModuleFailure, match=r"auto cannot be combined"):
        _order(["auto", "ibstat"], "/sys")


def test_ibstat_panic_with_ibstatus_and_missing_tools():
    runner = FakeRunner({"ibstat": (255, _reference("ibstat.a100-cx6-hdr-ibpanic-exit255.gpud.txt"), ""),
                         "ibstatus": (0, _reference("ibstatus.a100-cx6-hdr.gpud.txt"), "")})
    result, _failure = run_module(_params(sources=["ibstat", "ibstatus", "rdma", "ibv_devinfo"]), runner)
    assert runner.calls == [["/usr/sbin/ibstat"], ["/usr/sbin/ibstatus"]]
    assert result["sources_used"] == ["ibstat", "ibstatus"] and result["sources_missing"] == ["rdma", "ibv_devinfo"]
    assert result["source_errors"] == [
        "ibstat exited with status 255: ibpanic: [1400444] main: stat of IB device 'mlx5_8' failed: No such file "
        "or directory (the 8 device(s) printed before are used)"]
    assert [d["name"] for d in result["devices"]] == ["mlx5_%d" % i for i in range(9)]
    mlx5_8 = result["devices"][8]
    assert mlx5_8["sources"] == ["ibstatus"] and mlx5_8["ca_type"] is None
    assert mlx5_8["ports"][0]["link_layer"] == "Ethernet"
    mlx5_0 = result["devices"][0]
    # ibstat gives the CA facts, ibstatus adds the rate's width and generation.
    assert (mlx5_0["ca_type"], mlx5_0["ports"][0]["rate_detail"], mlx5_0["ports"][0]["sources"]) == \
        ("MT4124", "4X HDR", ["ibstat", "ibstatus"])
    assert result["summary"]["active_by_link_layer"] == {"Ethernet": 1, "InfiniBand": 8}


def test_rdma_and_ibdev2netdev_fill_netdevs(tmp_path):
    with open(os.path.join(_FIXTURES, "rdma-link-show.cx5-roce-host.spiderpool.txt")) as handle:
        link = handle.read()
    runner = FakeRunner({"rdma": (0, link, ""), "ibv_devinfo": (255, "", "No IB devices found\n")})
    result, _failure = run_module(_params(sources=["rdma", "ibv_devinfo"]), runner)
    assert runner.calls == [["/usr/sbin/rdma", "link", "show"], ["/usr/sbin/ibv_devinfo"]]
    assert result["source_errors"] == []  # "No IB devices found" is an answer, not a failure
    assert [(p["device"], p["netdev"], p["link_layer"]) for p in result["ports"]] == \
        [("mlx5_0", "ens6f0np0", "Ethernet"), ("mlx5_1", "ens6f1np1", "Ethernet")]
    down = FakeRunner({"ibdev2netdev": (0, _reference("ibdev2netdev.roce-2port.nvidia-cloud-native-stack.txt"), "")})
    result, _failure = run_module(_params(sources=["ibdev2netdev"]), down)
    # ibdev2netdev gives no port state: both ports count as not ACTIVE for lack of information.
    assert [p["reason"] for p in result["summary"]["not_active"]] == ["no source reported the port state"] * 2


def test_real_commands_through_path(run_main, tmp_path, monkeypatch):
    """main() finds the tools on PATH and runs them: an ibstat that panics (exit 255) and an ibstatus."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    scripts = {"ibstat": "cat '%s'\nexit 255\n" % os.path.join(_IB, "ibstat.a100-cx6-hdr-ibpanic-exit255.gpud.txt"),
               "ibstatus": "cat '%s'\n" % os.path.join(_IB, "ibstatus.a100-cx6-hdr.gpud.txt")}
    _reference("ibstatus.a100-cx6-hdr.gpud.txt")
    for name, body in scripts.items():
        path = bindir / name
        path.write_text("#!/bin/sh\n" + body)
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", "%s:%s" % (bindir, os.environ.get("PATH", "")))
    result = run_main(module, {"sources": ["ibstat", "ibstatus"], "_ansible_check_mode": True})
    assert result["changed"] is False and "failed" not in result
    assert result["sources_used"] == ["ibstat", "ibstatus"]
    assert result["source_errors"][0].startswith("ibstat exited with status 255: ibpanic:")
    assert result["msg"] == "9 RDMA device(s), 9 port(s): 9 ACTIVE (Ethernet 1, InfiniBand 8)"


def test_bad_option_is_refused_by_ansible(run_main):
    result = run_main(module, {"sources": ["ibstat", "perfquery"]})
    assert result["failed"] is True and "perfquery" in result["msg"]


def test_documentation_matches_argument_spec():
    doc = module_doc(module)
    options = doc["options"]
    assert set(options) == set(module.ARGUMENT_SPEC)
    for name, spec in module.ARGUMENT_SPEC.items():
        for key in ("type", "default", "choices", "elements"):
            assert options[name].get(key) == spec.get(key), (name, key)
    assert doc["attributes"]["check_mode"]["support"] == "full" and doc["attributes"]["diff_mode"]["support"] == "none"
    assert set(yaml.safe_load(module.RETURN)) == {"devices", "ports", "summary", "sources_used", "sources_missing",
                                                  "source_errors", "msg"}
