# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The lab's nodes: which containers a lab has (names, addresses, groups, podman arguments), its network, and
whether a node has booted and accepts SSH."""
from __future__ import annotations

import hashlib
import subprocess
import time
from dataclasses import dataclass
from typing import Iterable, List

import common
from common import die

# Stand-in GPU device files: slurmd drops a GPU gres whose File= does not exist, so every lab GPU node gets
# /dev/nvidia0..7 as character devices mapped from /dev/null. Said in inventories/lab/group_vars/all/lab.yml.
GPU_STAND_INS = 8
# Where the controllers' shared StateSaveLocation is mounted when the lab has two (stands in for NFS).
SHARED_STATE_MOUNT = "/srv/slurmctld-state"


@dataclass
class Node:
    hostname: str
    ip: str
    groups: List[str]

    def run_args(self, lab: str, controllers: int) -> List[str]:
        # A node that reboots (systemctl reboot, ansible.builtin.reboot) comes back, as a machine does.
        args: List[str] = ["--restart", "always"]
        if "gpu_nodes" in self.groups:
            for index in range(GPU_STAND_INS):
                args += ["--device", f"/dev/null:/dev/nvidia{index}"]
            # A writable copy of the host's /sys/module, reset at every boot: a test can stand in for a loaded
            # kernel module (/sys/module/nvidia/version), which a container cannot load.
            args += ["--mount", "type=tmpfs,destination=/sys/module"]
        if "slurm_controller" in self.groups and controllers > 1:
            args += ["-v", f"{state_volume(lab)}:{SHARED_STATE_MOUNT}"]
        return args

    def spec(self, image: str, lab: str, controllers: int) -> str:
        """What this node's container is made from, hashed (its gpufleet.spec label): `up` re-creates a container
        whose label differs."""
        return hashlib.sha256(" ".join([image, self.ip, *self.run_args(lab, controllers)]).encode()).hexdigest()[:12]


def state_volume(lab: str) -> str:
    """The podman volume the controllers of a two-controller lab share."""
    return f"{lab}-slurmctld-state"


def remove_state_volume(lab: str) -> None:
    if common.podman("volume", "exists", state_volume(lab), check=False).returncode == 0:
        common.podman("volume", "rm", "-f", state_volume(lab))


def lab_subnet(name: str) -> int:
    """A /24 of 10.123.0.0/16 for each lab name, stable across runs (0 is podman's default)."""
    return 1 + int(hashlib.sha256(name.encode()).hexdigest(), 16) % 250


def plan_nodes(name: str, computes: int, logins: int, controllers: int = 1) -> List[Node]:
    net = f"10.123.{lab_subnet(name)}"
    nodes = [Node("head", f"{net}.10", ["slurm_controller", "slurm_dbd"])]
    nodes += [Node(f"head{i}", f"{net}.{9 + i}", ["slurm_controller"]) for i in range(2, controllers + 1)]
    nodes += [Node(f"login{i:02d}", f"{net}.{20 + i}", ["login_nodes"]) for i in range(1, logins + 1)]
    nodes += [Node(f"gpu{i:02d}", f"{net}.{100 + i}", ["gpu_nodes"]) for i in range(1, computes + 1)]
    return nodes


def ensure_network(name: str) -> None:
    if common.podman("network", "exists", name, check=False).returncode == 0:
        return
    net = f"10.123.{lab_subnet(name)}"
    common.podman("network", "create", "--subnet", f"{net}.0/24", "--gateway", f"{net}.1",
                  "--label", f"gpufleet.lab={name}", name)


def wait_for_ssh(nodes: Iterable[Node], key: str, name: str, timeout: float = 180.0) -> None:
    pending = list(nodes)
    deadline = time.monotonic() + timeout
    while pending:
        node = pending[0]
        proc = subprocess.run(["ssh", "-i", key, "-o", "BatchMode=yes", "-o", "ConnectTimeout=2",
                               "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                               "-o", "LogLevel=ERROR", f"root@{node.ip}", "true"],
                              check=False, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if proc.returncode == 0:
            pending.pop(0)
            continue
        if time.monotonic() > deadline:
            die(f"{node.hostname} ({node.ip}) did not accept SSH within {timeout:.0f} s: "
                f"{proc.stderr.strip()}\n" + boot_diagnostics(f"{name}-{node.hostname}"))
        time.sleep(0.5)


def boot_diagnostics(cname: str) -> str:
    """What systemd in a container says about its boot and its SSH daemon, for an error message."""
    state = common.podman("inspect", "--format", "{{.State.Status}}", cname, check=False).stdout.strip()
    lines = [f"podman state: {state}"]
    for argv in (["systemctl", "is-system-running"], ["systemctl", "--failed", "--no-legend", "--plain"],
                 ["systemctl", "status", "--no-pager", "--lines=10", "ssh.service"]):
        proc = common.podman("exec", cname, *argv, check=False)
        lines.append(f"$ {' '.join(argv)}\n{(proc.stdout + proc.stderr).strip()}")
    return "\n".join(lines)


def reusable(cname: str) -> bool:
    """A container podman calls running whose systemd answers and has not given up on SSH; one left behind
    by a killed run may have neither."""
    state = common.podman("exec", cname, "systemctl", "is-system-running", check=False).stdout.strip()
    if state not in ("initializing", "starting", "running", "degraded"):
        return False
    ssh = common.podman("exec", cname, "systemctl", "is-active", "ssh.service", check=False).stdout.strip()
    return ssh in ("active", "activating")
