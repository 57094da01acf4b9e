# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The lab's nodes: which containers a lab has (names, addresses, groups, podman arguments), its network, and
whether a node has booted and accepts SSH."""
from __future__ import annotations

import base64
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
# A bare GPU node (`lab.py up --bare NODE`) looks like a real node nothing has converged yet: no GPU device files (no
# driver), and a default memlock limit below what the lab's inventory asks (common_memlock_kib: 8192 KiB), as a real
# node's systemd default (8 MiB) is below the reference design's `unlimited`. A container's own rlimits cannot show
# that: systemd 252 gives services at least 8 MiB whatever it inherits, and the host's hard limit is 8 MiB. So a
# systemd drop-in sets the node's default to 4 MiB; the common role's own drop-in (90-gpufleet-limits.conf) comes
# after it and wins, as on a real node. `lab.py gpu-stand-ins` gives the node its device files later, as the driver's
# kernel module would.
BARE_MEMLOCK_DROP_IN = "/etc/systemd/system.conf.d/10-lab-bare-memlock.conf"
BARE_MEMLOCK_KIB = 4096
GPU_STAND_INS_UNIT = "lab-gpu-stand-ins.service"


@dataclass
class Node:
    hostname: str
    ip: str
    groups: List[str]
    bare: bool = False  # a GPU node as nothing has converged it (BARE_MEMLOCK_DROP_IN, no device files)

    def run_args(self, lab: str, controllers: int) -> List[str]:
        # A node that reboots (systemctl reboot, ansible.builtin.reboot) comes back, as a machine does.
        args: List[str] = ["--restart", "always"]
        if "gpu_nodes" in self.groups and self.bare:
            args += ["--label", "gpufleet.bare=true"]  # in the spec: a bare node is made anew, not reused
        if "gpu_nodes" in self.groups:
            for index in range(0 if self.bare else GPU_STAND_INS):
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


def plan_nodes(name: str, computes: int, logins: int, controllers: int = 1, bare: Iterable[str] = ()) -> List[Node]:
    """The lab's nodes; `bare`: GPU nodes (gpu03) made as nothing has converged them (Node.bare)."""
    bare = set(bare)
    net = f"10.123.{lab_subnet(name)}"
    nodes = [Node("head", f"{net}.10", ["slurm_controller", "slurm_dbd"])]
    nodes += [Node(f"head{i}", f"{net}.{9 + i}", ["slurm_controller"]) for i in range(2, controllers + 1)]
    nodes += [Node(f"login{i:02d}", f"{net}.{20 + i}", ["login_nodes"]) for i in range(1, logins + 1)]
    nodes += [Node(f"gpu{i:02d}", f"{net}.{100 + i}", ["gpu_nodes"], f"gpu{i:02d}" in bare)
              for i in range(1, computes + 1)]
    unknown = sorted(bare - {n.hostname for n in nodes if "gpu_nodes" in n.groups})
    if unknown:
        die(f"--bare {', '.join(unknown)}: not a GPU node of this lab (gpu01..gpu{computes:02d})")
    return nodes


def gpu_stand_ins_unit(count: int = GPU_STAND_INS) -> str:
    """The unit that gives a bare node, from now and at every boot (before slurmd), /dev/nvidia0..count-1 as links to
    /dev/null: the lab's stand-in for the device files the NVIDIA driver's kernel module makes."""
    links = " ".join(str(i) for i in range(count))
    return "\n".join([
        "# gpufleet lab (lab/lab.py gpu-stand-ins): a container cannot load the NVIDIA driver's kernel module",
        "[Unit]",
        f"Description=Lab stand-in: the NVIDIA driver's device files (/dev/nvidia0..{count - 1}, links to /dev/null)",
        "Before=slurmd.service",
        "",
        "[Service]",
        "Type=oneshot",
        "RemainAfterExit=yes",
        f"ExecStart=/bin/sh -c 'for i in {links}; do ln -sfn /dev/null /dev/nvidia$i; done'",
        "",
        "[Install]",
        "WantedBy=multi-user.target",
        ""])


def bare_memlock_drop_in() -> str:
    return "\n".join([
        "# gpufleet lab (lab/lab.py up --bare): this node's default memlock before the common role writes its own, below",
        "# the inventory's common_memlock_kib, as a real node's 8 MiB default is below `unlimited`.",
        "[Manager]",
        f"DefaultLimitMEMLOCK={BARE_MEMLOCK_KIB}K",
        ""])


def make_bare(cname: str) -> None:
    """Give the bare node cname its lower default memlock (once: a node the common role converged keeps its own)."""
    encoded = base64.b64encode(bare_memlock_drop_in().encode()).decode()
    common.podman("exec", cname, "sh", "-c",
                  f"[ -e {BARE_MEMLOCK_DROP_IN} ] || {{ mkdir -p {BARE_MEMLOCK_DROP_IN.rsplit('/', 1)[0]}"
                  f" && echo {encoded} | base64 -d > {BARE_MEMLOCK_DROP_IN} && systemctl daemon-reexec; }}")


def install_gpu_stand_ins(cname: str) -> None:
    """Install and start gpu_stand_ins_unit() in the container cname."""
    encoded = base64.b64encode(gpu_stand_ins_unit().encode()).decode()
    common.podman("exec", cname, "sh", "-c",
                  f"echo {encoded} | base64 -d > /etc/systemd/system/{GPU_STAND_INS_UNIT} && systemctl daemon-reload"
                  f" && systemctl enable --now {GPU_STAND_INS_UNIT}")


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
