# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the roce_host role leaves on the lab GPU node: the recorded RoCE NIC set, the NCCL environment, the unit."""
import json
import os
import sys


sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))), "tests", "molecule"))
from lab_host import hosts  # noqa: E402  (shared by the scenarios)

testinfra_hosts = hosts("all")  # over SSH (tests/molecule/lab_host.py)

LAB = "/opt/gpufleet-lab/roce"
ECN = LAB + "/sys/class/net/eth2/ecn"
NCCL_ENV = "/etc/gpufleet/nccl-roce.conf"
SCRIPT = "/etc/gpufleet/roce-qos.sh"
UNIT = "/etc/systemd/system/gpufleet-roce-qos.service"
QOS = LAB + "/bin/mlnx_qos"
# The firmware default map puts DSCP 24..31 on priority 3; all but RoCE's 26 move to priority 0.
MOVED = [24, 25, 27, 28, 29, 30, 31]
SETTINGS = ["-i eth2 --trust dscp"] + ["-i eth2 --dscp2prio set,%d,0" % d for d in MOVED] + \
    ["-i eth2 --pfc 0,0,0,1,0,0,0,0"]


def _key_values(text):
    return dict(line.split("=", 1) for line in text.splitlines() if line and not line.startswith("#"))


def test_ecn_on_the_lossless_priority_only(host):
    for point in ("roce_np", "roce_rp"):
        flags = [host.file(f"{ECN}/{point}/enable/{p}").content_string.strip() for p in range(8)]
        assert flags == ["0", "0", "0", "1", "0", "0", "0", "0"], point


def test_default_roce_tos_is_106(host):
    # 106 = 26 << 2 | 0b10: DSCP 26 with ECT(0).
    tos = host.file(LAB + "/config/rdma_cm/mlx5_0/ports/1/default_roce_tos")
    assert tos.content_string == "106\n"
    assert host.file(LAB + "/config/rdma_cm/mlx5_0").is_directory


def test_mlnx_qos_set_each_setting_once(host):
    """converge set trust, moved 7 DSCPs and set PFC; idempotence and check only read (-i eth2 alone)."""
    calls = host.file(LAB + "/mlnx_qos.log").content_string.splitlines()
    settings = [c for c in calls if c != "-i eth2"]
    assert settings == SETTINGS
    assert len(calls) - len(settings) >= 4        # converge's read and read-back, idempotence's and check's reads


def test_mlnx_qos_now_prints_trust_dscp_pfc3(host):
    out = host.check_output(f"{QOS} -i eth2")
    assert "Priority trust state: dscp" in out
    assert "prio:3 dscp:26," in out
    assert "prio:0 dscp:31,30,29,28,27,25,24,07,06,05,04,03,02,01,00," in out
    assert "enabled     0   0   0   1   0   0   0   0" in out
    state = json.loads(host.file(LAB + "/state/mlnx_qos-eth2.json").content_string)
    assert state["pfc"] == [0, 0, 0, 1, 0, 0, 0, 0] and [d for d in range(64) if state["dscp2prio"][d] == 3] == [26]


def test_nccl_environment_file(host):
    env_file = host.file(NCCL_ENV)
    assert env_file.user == "root" and env_file.group == "root" and env_file.mode == 0o644
    text = env_file.content_string
    assert text.startswith("#")                   # ansible_managed
    # prepare put ::ffff:10.10.1.11 as RoCE v2 on eth2 at index 5 (after link-local and IPv6, v1 and v2 each).
    assert _key_values(text) == {"NCCL_IB_TC": "106", "NCCL_IB_GID_INDEX": "5", "NCCL_IB_HCA": "=mlx5_0:1"}
    assert "mlx5_0 10.10.1.11" in text


def test_boot_script(host):
    script = host.file(SCRIPT)
    assert script.user == "root" and script.mode == 0o755
    assert host.run(f"bash -n {SCRIPT}").rc == 0
    lines = [line for line in script.content_string.splitlines() if line and not line.startswith("#")]
    assert lines[0] == "set -euo pipefail"
    assert lines[1:10] == [f"{QOS} {s}" for s in SETTINGS]
    assert lines[10:] == [
        f"echo 1 > {ECN}/roce_np/enable/3",
        f"echo 1 > {ECN}/roce_rp/enable/3",
        f"mkdir -p {LAB}/config/rdma_cm/mlx5_0",
        f"echo 106 > {LAB}/config/rdma_cm/mlx5_0/ports/1/default_roce_tos"]


def test_unit_enabled_and_ordered(host):
    unit = host.file(UNIT)
    assert unit.mode == 0o644 and unit.content_string.startswith("#")
    text = unit.content_string
    assert "ExecStart=/bin/bash /etc/gpufleet/roce-qos.sh" in text
    assert "After=sys-subsystem-net-devices-eth2.device" in text
    assert "Before=network-pre.target slurmd.service" in text
    assert host.service("gpufleet-roce-qos.service").is_enabled
    verify = host.run("systemd-analyze verify /etc/systemd/system/gpufleet-roce-qos.service")
    # systemd-analyze also reports on the container's other units; nothing it says may concern ours.
    assert [line for line in verify.stderr.splitlines() if "gpufleet-roce-qos" in line] == [], verify.stderr


def test_boot_script_reapplies_the_same_state(host):
    """Run last: what the unit does at boot leaves the port as the role set it."""
    before = host.file(LAB + "/state/mlnx_qos-eth2.json").content_string
    assert host.run(f"bash {SCRIPT}").rc == 0
    assert host.file(LAB + "/state/mlnx_qos-eth2.json").content_string == before
    assert host.file(LAB + "/config/rdma_cm/mlx5_0/ports/1/default_roce_tos").content_string == "106\n"
    assert host.file(LAB + "/mlnx_qos.log").content_string.splitlines()[-9:] == SETTINGS
