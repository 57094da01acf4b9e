# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""fabric/roce/nic_qos.py (what roce_nic_qos does) on a fake ConnectX-7 port: mlnx_qos and dcb stand-ins that keep
state and print in the recorded formats, a fake sysfs/configfs tree; check mode, apply, idempotence, failures."""
from __future__ import annotations

import os

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce.nic_qos import NicQosError, check_params, run_module

from fake_roce_nic import (  # noqa: I100
    GIDS, NEIGHBOURS_OF_26, ROCE_V2_IPV4_INDEX, FakeDcb, FakeMlnxQos, connectx7, read,
)
from group_vars import variables  # noqa: I100


def _params(tree, **extra):
    sysfs, configfs = tree
    params = {"devices": [{"rdma_device": "mlx5_0", "port": 1, "netdev": None}], "priority": 3, "dscp": [26],
              "default_priority": 0, "tos": None, "ecn": {"np": True, "rp": True}, "tool": "auto",
              "sysfs_root": sysfs, "configfs_root": configfs, "mlnx_qos_command": "mlnx_qos", "dcb_command": "dcb"}
    params.update(extra)
    return params


def test_mlnx_qos_check_apply_idempotent(tmp_path):
    tree = connectx7(tmp_path)
    nic = FakeMlnxQos()
    check, warnings = run_module(_params(tree), nic, check_mode=True)
    assert check["changed"] is True and warnings == []
    assert nic.calls == [["/usr/bin/mlnx_qos", "-i", "eth2"]]                  # read only
    assert not os.path.isdir(os.path.join(tree[1], "rdma_cm", "mlx5_0"))        # configfs untouched
    port = check["devices"][0]
    # trust + 7 DSCPs moved off priority 3 + PFC + ECN np and rp on 3 + ToS = 11 changes.
    assert [c["setting"] for c in port["changes"]] == \
        ["trust"] + ["dscp2prio"] * 7 + ["pfc", "ecn_np", "ecn_rp", "roce_tos"]
    assert check["commands"][0] == "/usr/bin/mlnx_qos -i eth2 --trust dscp"
    assert check["commands"][-1] == "/usr/bin/mlnx_qos -i eth2 --pfc 0,0,0,1,0,0,0,0"
    assert check["diff"]["before"]["mlx5_0:1"] == {
        "trust": "pcp", "pfc_priorities": [],
        "dscp_priority": {str(d): None for d in [24, 25, 26] + NEIGHBOURS_OF_26[2:]},
        "ecn_np": [], "ecn_rp": [], "roce_tos": None}
    assert check["diff"]["after"]["mlx5_0:1"] == {
        "trust": "dscp", "pfc_priorities": [3],
        "dscp_priority": dict({str(d): 0 for d in NEIGHBOURS_OF_26}, **{"26": 3}),
        "ecn_np": [3], "ecn_rp": [3], "roce_tos": 106}
    assert check["gid_index"] == {"mlx5_0": ROCE_V2_IPV4_INDEX}
    assert check["nccl"] == {"NCCL_IB_TC": 106, "NCCL_IB_GID_INDEX": 5, "NCCL_IB_HCA": "=mlx5_0:1"}

    applied, _unused = run_module(_params(tree), nic, check_mode=False)
    assert applied["changed"] is True and applied["diff"] == check["diff"]
    # read, 9 settings, read back.
    assert nic.calls[1] == ["/usr/bin/mlnx_qos", "-i", "eth2"] and len(nic.calls) == 1 + 1 + 9 + 1
    assert nic.calls[2:11] == [["/usr/bin/mlnx_qos", "-i", "eth2", "--trust", "dscp"]] + \
        [["/usr/bin/mlnx_qos", "-i", "eth2", "--dscp2prio", "set,%d,0" % d] for d in NEIGHBOURS_OF_26] + \
        [["/usr/bin/mlnx_qos", "-i", "eth2", "--pfc", "0,0,0,1,0,0,0,0"]]
    sysfs, configfs = tree
    for point in ("roce_np", "roce_rp"):
        assert [read(os.path.join(sysfs, "class/net/eth2/ecn", point, "enable", str(p))) for p in range(8)] == \
            ["0\n"] * 3 + ["1\n"] + ["0\n"] * 4
    assert read(os.path.join(configfs, "rdma_cm/mlx5_0/ports/1/default_roce_tos")) == "106\n"

    for check_mode in (True, False):
        again, _unused = run_module(_params(tree), nic, check_mode=check_mode)
        assert again["changed"] is False and again["commands"] == []
        assert again["diff"]["before"] == again["diff"]["after"] == check["diff"]["after"]
    assert len(nic.calls) == 14                                                  # two more reads, no setting


def test_boot_commands_for_the_script(tmp_path):
    tree = connectx7(tmp_path)
    result, _unused = run_module(_params(tree), FakeMlnxQos(trust="dscp", pfc="0,0,0,1,0,0,0,0"), check_mode=True)
    boot = result["boot_commands"]
    # Full setting from a fresh driver, whatever the NIC has now: trust, 7 moves, PFC, ECN x2, mkdir, ToS.
    assert len(boot) == 13 and boot[0] == "/usr/bin/mlnx_qos -i eth2 --trust dscp"
    assert boot[-2:] == ["mkdir -p %s/rdma_cm/mlx5_0" % tree[1],
                         "echo 106 > %s/rdma_cm/mlx5_0/ports/1/default_roce_tos" % tree[1]]
    assert "echo 1 > %s/class/net/eth2/ecn/roce_np/enable/3" % tree[0] in boot


def test_dcb_check_apply_idempotent(tmp_path):
    tree = connectx7(tmp_path)
    dcb = FakeDcb()
    params = _params(tree, devices=[{"rdma_device": None, "port": None, "netdev": "eth2"}])
    result, _unused = run_module(params, dcb, check_mode=False)
    assert result["changed"] is True and result["devices"][0]["rdma_device"] == "mlx5_0"
    assert result["commands"] == [
        "/usr/sbin/dcb app replace dev eth2 dscp-prio 24:0 25:0 26:3 27:0 28:0 29:0 30:0 31:0",
        "/usr/sbin/dcb pfc set dev eth2 prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off"]
    assert result["devices"][0]["traffic_class"] == 3                           # prio-tc 3:3 of the recorded ETS
    assert dcb.app == {24: 0, 25: 0, 26: 3, 27: 0, 28: 0, 29: 0, 30: 0, 31: 0} and dcb.pfc[3] == "on"
    again, _unused = run_module(_params(tree), dcb, check_mode=False)
    assert again["changed"] is False and again["commands"] == []


def test_sysfs_tool_leaves_trust_and_pfc(tmp_path):
    tree = connectx7(tmp_path)
    params = _params(tree, tool="sysfs", ecn={"np": True, "rp": False})
    result, _unused = run_module(params, FakeMlnxQos(), check_mode=False)
    assert [c["setting"] for c in result["devices"][0]["changes"]] == ["ecn_np", "roce_tos"]
    assert result["diff"]["after"]["mlx5_0:1"] == {"ecn_np": [3], "ecn_rp": [], "roce_tos": 106}
    assert result["commands"] == [] and result["boot_commands"][0].startswith("echo 1 > ")


def test_no_ecn_sysfs_warns_and_goes_on(tmp_path):
    tree = connectx7(tmp_path, ecn=False)
    result, warnings = run_module(_params(tree, tool="sysfs"), FakeMlnxQos(), check_mode=False)
    assert result["diff"]["after"]["mlx5_0:1"] == {"ecn_np": None, "ecn_rp": None, "roce_tos": 106}
    assert len(warnings) == 1 and "has no ECN sysfs" in warnings[0] and "DCQCN" in warnings[0]


def test_failing_command_says_what_was_attempted(tmp_path):
    tree = connectx7(tmp_path)
    with pytest.raises(NicQosError) as err:
        run_module(_params(tree), FakeMlnxQos(fail="--trust"), check_mode=False)
    assert str(err.value) == ("/usr/bin/mlnx_qos -i eth2 --trust dscp exited 1 while setting mlx5_0:1 (eth2) to trust "
                              "dscp / PFC on priority 3: Error: failed to set --trust")
    assert not os.path.isdir(os.path.join(tree[1], "rdma_cm", "mlx5_0"))       # nothing after the failure


def test_tool_that_ignores_the_setting_fails(tmp_path):
    with pytest.raises(NicQosError, match=r"^mlnx_qos accepted /usr/bin/mlnx_qos -i eth2 --trust dscp; .* "
                       r"but eth2 still needs trust pcp -> dscp, "
                       r"dscp2prio\[24\] None -> 0, .*; the NIC did not take the setting$"):
        run_module(_params(connectx7(tmp_path)), FakeMlnxQos(ignore=True), check_mode=False)


def test_refusals(tmp_path):
    tree = connectx7(tmp_path)
    nic = FakeMlnxQos()
    nic.present = False
    with pytest.raises(NicQosError, match=r"tool auto: mlnx_qos \(mlnx_qos\) and dcb \(dcb\) not found"):
        run_module(_params(tree), nic, check_mode=True)
    with pytest.raises(NicQosError, match="tos 96 carries DSCP 24"):
        run_module(_params(tree, tos=96), FakeMlnxQos(), check_mode=True)
    with pytest.raises(NicQosError, match="listed twice"):
        run_module(_params(tree, devices=[{"rdma_device": "mlx5_0"}, {"netdev": "eth2"}]), FakeMlnxQos(), True)
    ib = connectx7(tmp_path / "ib", link_layer="InfiniBand")
    with pytest.raises(NicQosError, match="mlx5_0 port 1 has link layer InfiniBand, so it is not a RoCE port"):
        run_module(_params(ib), FakeMlnxQos(), check_mode=True)
    no_v4 = connectx7(tmp_path / "v6", gids=GIDS[:4])
    with pytest.raises(NicQosError, match="no RoCE v2 GID with an IPv4 address on eth2"):
        run_module(_params(no_v4), FakeMlnxQos(), check_mode=True)


# ---------------------------------------------------------------- issue 13: names refused; molecule/fabric's values pass
@pytest.mark.parametrize("change, part", [
    ({"devices": [{"rdma_device": "../../etc"}]}, "devices[0].rdma_device: '../../etc' is not allowed; expected a word"),
    ({"devices": [{"netdev": "eth2\n"}]}, "devices[0].netdev: 'eth2\\n' is not allowed; expected a Linux interface"),
    ({"devices": [{"rdma_device": "mlx5_0", "port": 0}]}, "devices[0].port=0 is below the minimum of 1"),
    ({"mlnx_qos_command": "mlnx_qos; reboot"}, "mlnx_qos_command: 'mlnx_qos; reboot' is not allowed"),
    ({"sysfs_root": "sys"}, "sysfs_root: 'sys' is not allowed; expected an absolute path"),
])
def test_check_params_refuses_names(change, part):
    params = dict({"devices": [{"rdma_device": "mlx5_0", "port": 1, "netdev": "eth2"}],
                   "mlnx_qos_command": "/usr/bin/mlnx_qos", "dcb_command": "dcb", "sysfs_root": "/sys",
                   "configfs_root": "/sys/kernel/config"}, **change)
    with pytest.raises(NicQosError) as info:
        check_params(params)
    assert part in str(info.value)


def test_check_params_passes_molecule_fabric_s_values():
    v = variables("molecule/fabric")
    check_params({"devices": v["roce_host_devices"], "mlnx_qos_command": v["roce_host_mlnx_qos_command"],
                  "dcb_command": "dcb", "sysfs_root": v["roce_host_sysfs_root"],
                  "configfs_root": v["roce_host_configfs_root"]})
