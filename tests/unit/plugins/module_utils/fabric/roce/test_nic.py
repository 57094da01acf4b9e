# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""roce_nic: the ToS byte, the desired port state, the diff and the mlnx_qos / dcb command lines."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce.nic import (
    Change, QosState, RoceNicError, boot_commands, command_line, dcb_argv, default_dscp2prio, desired_dscp2prio,
    desired_state, dscp_of_tos, ecn_of_tos, mlnx_qos_argv, nccl_environment, pfc_vector, qos_changes, tos_from_dscp,
)

# DSCPs the firmware default (DSCP >> 3) puts on priority 3 besides 26: 24, 25, 27..31.
NEIGHBOURS_OF_26 = [24, 25, 27, 28, 29, 30, 31]


# ---------------------------------------------------------------- ToS byte
def test_tos_106_is_dscp_26_with_ect0():
    # 106 = 0b01101010: upper six bits 0b011010 = 26, lower two 0b10 = ECT(0).
    assert tos_from_dscp(26) == 106
    assert (dscp_of_tos(106), ecn_of_tos(106)) == (26, 2)
    assert tos_from_dscp(26, 0) == 104 and tos_from_dscp(24, 2) == 98 and tos_from_dscp(46, 1) == 185


def test_desired_defaults_are_the_roce_convention():
    desired = desired_state()
    assert (desired.priority, desired.dscp, desired.tos, desired.default_priority) == (3, (26,), 106, 0)
    assert desired.ecn_np and desired.ecn_rp
    # tos None -> the first DSCP with ECT(0): 24 << 2 | 2 = 98.
    assert desired_state(4, [24, 26]).tos == 98


@pytest.mark.parametrize("kwargs, words", [
    ({"priority": 8}, "priority 8 is outside 0..7"),
    ({"priority": True}, "priority must be an integer in 0..7, got True of type bool; the 802.1p priority PFC pauses"),
    ({"dscp": []}, "dscp must not be empty; RoCE uses [26]"),
    ({"dscp": "26"}, "dscp must be a non-empty list of DSCP values 0..63, got '26' of type str; RoCE uses [26]"),
    ({"dscp": [26, 64]}, "dscp[1] 64 is outside 0..63"),
    ({"dscp": [26, 26]}, "dscp lists 26 twice"),
    # 104 >> 2 = 26, fine; 96 >> 2 = 24, not a RoCE DSCP.
    ({"tos": 96}, "tos 96 carries DSCP 24 (tos >> 2), which is not a RoCE DSCP [26]"),
    ({"tos": 107}, "tos 107 has the ECN bits 11 (CE"),
    ({"tos": 256}, "tos 256 is outside 0..255"),
    ({"default_priority": 3}, "default_priority 3 equals priority 3"),
    ({"ecn_np": "yes"}, "ecn.np must be true or false, got 'yes' of type str"),
    ({"ecn_rp": 1}, "ecn.rp must be true or false, got 1 of type int"),
])
def test_desired_refusals_name_value_and_fix(kwargs, words):
    with pytest.raises(RoceNicError) as err:
        desired_state(**kwargs)
    assert words in str(err.value)


def test_tos_refusal_proposes_the_right_byte():
    with pytest.raises(RoceNicError, match=r"use tos 106 \(DSCP 26 << 2 \| ECT\(0\)\)"):
        desired_state(tos=96)
    with pytest.raises(RoceNicError, match=r"use tos 106 \(ECT\(0\)\)"):
        desired_state(tos=107)


# ---------------------------------------------------------------- maps
def test_pfc_vector():
    assert pfc_vector(3) == (0, 0, 0, 1, 0, 0, 0, 0)
    assert pfc_vector(0) == (1, 0, 0, 0, 0, 0, 0, 0)


def test_dscp_map_moves_the_neighbours_of_26_off_the_lossless_priority():
    wanted = desired_dscp2prio(None, desired_state())
    assert wanted[26] == 3
    assert [d for d in range(64) if wanted[d] == 3] == [26]
    assert all(wanted[d] == 0 for d in NEIGHBOURS_OF_26)
    # Everything else keeps the firmware default DSCP >> 3: 46 (EF) -> 5, 8 -> 1.
    assert (wanted[46], wanted[8], wanted[63]) == (5, 1, 7)


def test_dscp_map_for_priority_4_takes_26_there_and_leaves_3_alone():
    wanted = desired_dscp2prio(default_dscp2prio(), desired_state(priority=4))
    assert wanted[26] == 4
    assert [d for d in range(64) if wanted[d] == 4] == [26]      # 32..39 (default 4) -> 0
    assert [d for d in range(64) if wanted[d] == 3] == [24, 25, 27, 28, 29, 30, 31]


# ---------------------------------------------------------------- diff and commands
def test_fresh_nic_changes_trust_map_and_pfc_in_order():
    fresh = QosState(trust="pcp", pfc=(0,) * 8)      # mlnx_qos prints no map with trust pcp
    changes = qos_changes(fresh, desired_state())
    assert [c.setting for c in changes] == ["trust"] + ["dscp2prio"] * 7 + ["pfc"]
    assert changes[0] == Change("trust", "pcp", "dscp")
    assert [(c.key, c.before, c.after) for c in changes[1:8]] == [(d, None, 0) for d in NEIGHBOURS_OF_26]
    assert changes[-1] == Change("pfc", "0,0,0,0,0,0,0,0", "0,0,0,1,0,0,0,0")
    argvs = mlnx_qos_argv("mlnx_qos", "eth2", changes)
    assert argvs[0] == ["mlnx_qos", "-i", "eth2", "--trust", "dscp"]
    assert argvs[1] == ["mlnx_qos", "-i", "eth2", "--dscp2prio", "set,24,0"]
    assert argvs[-1] == ["mlnx_qos", "-i", "eth2", "--pfc", "0,0,0,1,0,0,0,0"]
    assert len(argvs) == 9


def test_dcb_writes_the_roce_dscp_with_the_trust_change_and_pfc_by_name():
    changes = qos_changes(QosState(trust="pcp", pfc=(0,) * 6 + (1, 1)), desired_state())
    argvs = dcb_argv("dcb", "eth2", changes, desired_state())
    # 26:3 is the firmware default already, but mlx5 switches trust with the first DSCP APP entry.
    assert argvs == [
        ["dcb", "app", "replace", "dev", "eth2", "dscp-prio", "24:0", "25:0", "26:3", "27:0", "28:0", "29:0",
         "30:0", "31:0"],
        ["dcb", "pfc", "set", "dev", "eth2", "prio-pfc", "0:off", "1:off", "2:off", "3:on", "4:off", "5:off",
         "6:off", "7:off"]]


def test_set_port_needs_nothing():
    wanted = desired_dscp2prio(None, desired_state())
    done = QosState(trust="dscp", pfc=pfc_vector(3), dscp2prio=wanted)
    assert qos_changes(done, desired_state()) == []
    assert mlnx_qos_argv("mlnx_qos", "eth2", []) == [] and dcb_argv("dcb", "eth2", [], desired_state()) == []


def test_several_priorities_for_one_dscp_is_replaced():
    current = desired_dscp2prio(None, desired_state())
    current[26] = -1
    changes = qos_changes(QosState("dscp", pfc_vector(3), current), desired_state())
    assert changes == [Change("dscp2prio", -1, 3, key=26)]
    assert dcb_argv("dcb", "eth2", changes, desired_state()) == [
        ["dcb", "app", "replace", "dev", "eth2", "dscp-prio", "26:3"]]


def test_boot_commands_set_everything_from_a_fresh_driver():
    lines = boot_commands("mlnx_qos", "/usr/bin/mlnx_qos", "eth2", desired_state(),
                          {"np": "/sys/class/net/eth2/ecn/roce_np/enable",
                           "rp": "/sys/class/net/eth2/ecn/roce_rp/enable"},
                          ("/sys/kernel/config/rdma_cm/mlx5_0", "ports/1/default_roce_tos"))
    assert lines[0] == "/usr/bin/mlnx_qos -i eth2 --trust dscp"
    assert lines[8] == "/usr/bin/mlnx_qos -i eth2 --pfc 0,0,0,1,0,0,0,0"
    assert lines[9:] == [
        "echo 1 > /sys/class/net/eth2/ecn/roce_np/enable/3",
        "echo 1 > /sys/class/net/eth2/ecn/roce_rp/enable/3",
        "mkdir -p /sys/kernel/config/rdma_cm/mlx5_0",
        "echo 106 > /sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos"]
    # sysfs tool, no ECN sysfs: only the ToS.
    assert boot_commands("sysfs", "", "eth2", desired_state(), {"np": None, "rp": None},
                         ("/c/rdma_cm/mlx5_0", "ports/1/default_roce_tos")) == [
        "mkdir -p /c/rdma_cm/mlx5_0", "echo 106 > /c/rdma_cm/mlx5_0/ports/1/default_roce_tos"]


def test_command_line_quotes():
    assert command_line(["mlnx_qos", "-i", "eth 2"]) == "mlnx_qos -i 'eth 2'"


def test_nccl_environment():
    env = nccl_environment(desired_state(), [("mlx5_0", 1), ("mlx5_1", 1)], {"mlx5_0": 3, "mlx5_1": 3})
    assert env == {"NCCL_IB_TC": 106, "NCCL_IB_GID_INDEX": 3, "NCCL_IB_HCA": "=mlx5_0:1,mlx5_1:1"}
    assert nccl_environment(desired_state(), [("a", 1), ("b", 1)], {"a": 3, "b": 5})["NCCL_IB_GID_INDEX"] is None


# ---------------------------------------------------------------- properties
maps = st.lists(st.integers(0, 7), min_size=64, max_size=64).map(lambda v: dict(enumerate(v)))
classes = st.tuples(st.integers(0, 7), st.lists(st.integers(0, 63), min_size=1, max_size=4, unique=True),
                    st.integers(0, 7)).filter(lambda t: t[0] != t[2])


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 63), st.sampled_from([0, 1, 2]))
def test_tos_round_trip(dscp, ecn):
    tos = tos_from_dscp(dscp, ecn)
    assert 0 <= tos <= 255 and (dscp_of_tos(tos), ecn_of_tos(tos)) == (dscp, ecn)
    assert desired_state(dscp=[dscp], tos=tos).tos == tos


@settings(max_examples=200, deadline=None)
@given(classes, st.one_of(st.none(), maps))
def test_desired_map_isolates_the_lossless_priority(cls, current):
    priority, dscps, default = cls
    desired = desired_state(priority, dscps, default_priority=default)
    wanted = desired_dscp2prio(current, desired)
    assert sorted(d for d in range(64) if wanted[d] == priority) == sorted(dscps)
    assert sum(pfc_vector(priority)) == 1 and pfc_vector(priority)[priority] == 1
    # Applying the changes gives a state with nothing left to change (one run converges).
    state = QosState(trust="pcp" if current is None else "dscp", pfc=(0,) * 8, dscp2prio=current)
    changes = qos_changes(state, desired)
    after = default_dscp2prio()
    after.update(current or {})
    after.update({c.key: c.after for c in changes if c.setting == "dscp2prio"})
    assert qos_changes(QosState("dscp", pfc_vector(priority), after), desired) == []
    # DSCPs that were neither RoCE nor on the lossless priority are untouched.
    base = current or default_dscp2prio()
    assert all(wanted[d] == base[d] for d in range(64) if d not in dscps and base[d] != priority)
