# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The gpufleet lab: a GPU cluster of podman containers running systemd, on this machine.

    lab/lab.py images [--distro debian12|ubuntu2404] [--force]
    lab/lab.py up [--computes N] [--logins N] [--name NAME] [--inventory DIR] [--bare GPU_NODE ...]
    lab/lab.py gpu-stand-ins --name NAME GPU_NODE...
    lab/lab.py status [--name NAME]
    lab/lab.py down [--name NAME] [--inventory DIR]

Images are built locally (debootstrap + `podman import` + one Containerfile layer) from the package
mirrors in this host's own apt configuration, or from LAB_DEBIAN_MIRROR / LAB_UBUNTU_MIRROR. An image
is rebuilt only when its recipe (mirror, suite, Containerfile) changes.

A bare GPU node (`up --bare gpu03`) looks like a real node nothing has converged: no GPU device files (no driver
yet) and a default memlock limit below the inventory's (lab/nodes.py says how). `gpu-stand-ins` gives it the lab's
stand-in device files, now and at every boot, as the driver's kernel module would (tests/e2e/join.sh does, after
site.yml --check on it).

`up` and `down` are idempotent. `up` writes the inventory (hosts.yml) of the lab; `down` removes the
containers, the network and that file, and leaves no process behind.

A lab belongs to the checkout that made it: each container is labelled with that checkout's path
(gpufleet.checkout) and the fingerprint of the SSH key it lets in (gpufleet.key). Before anything else, `up`
compares them with this checkout's (containers from an older lab.py: the authorized_keys file they mount):
  - this checkout, this key: the containers are reused;
  - this checkout, another key (.lab/ssh was re-created), or a checkout that is no longer on disk: the
    lab's containers (and, for another checkout's lab, its Slurm state volume) are removed and made again;
  - another checkout that still exists: `up` stops at once, naming that checkout and the commands that
    take its lab down (`python3 <that checkout>/lab/lab.py down --name NAME`, or `podman rm -f ...`);
    or choose another lab name here (--name, LAB_NAME).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from typing import List, Optional, Sequence

import common
import images
import inventory as inventory_file
import nodes
import ownership
from common import die, log


def up(name: str, computes: int, logins: int, distro: str, inventory: str, controllers: int = 1,
       cpu_shares: Optional[int] = None, bare: Sequence[str] = ()) -> None:
    """cpu_shares: the containers' CPU weight against other containers (podman --cpu-shares; its default 1024):
    make test gives the e2e lab more, so that its steps go first while molecule's containers run beside it."""
    if cpu_shares is not None and not 2 <= cpu_shares <= 262144:
        die(f"--cpu-shares {cpu_shares} is outside 2..262144 (the kernel's range for cpu.shares)")
    if not 1 <= computes <= 64:
        die(f"--computes {computes} is outside 1..64 (this 2-core host has run 16)")
    if controllers not in (1, 2):
        die(f"--controllers {controllers}: Slurm runs one primary and at most one backup here (1 or 2)")
    started = time.monotonic()
    key = ownership.ssh_key()
    fingerprint = ownership.public_key_fingerprint(key)
    ownership.check_ownership(name, fingerprint)  # before anything else: whose lab runs under this name
    image = images.build_images(distro)
    nodes.ensure_network(name)
    planned = nodes.plan_nodes(name, computes, logins, controllers, bare)
    wanted = {f"{name}-{n.hostname}": n for n in planned}
    specs = {cname: node.spec(image, name, controllers) for cname, node in wanted.items()}
    existing = {c["Names"][0]: c for c in common.lab_containers(name)}
    for cname, info in existing.items():
        if cname not in wanted or info.get("Labels", {}).get("gpufleet.spec") != specs[cname]:
            log(f"removing {cname}")
            common.podman("rm", "-f", "-t", "2", cname)
    existing = {c["Names"][0]: c for c in common.lab_containers(name)}
    for cname, node in wanted.items():
        if cname in existing:
            if existing[cname]["State"] != "running":
                common.podman("start", cname)
            if nodes.reusable(cname):
                continue
            log(f"removing {cname}: its systemd or SSH daemon is not running (left by an interrupted run?)")
            common.podman("rm", "-f", "-t", "2", cname)
        common.podman("run", "-d", "--name", cname, "--hostname", node.hostname,
                      "--network", name, "--ip", node.ip, "--systemd=always", "--no-hosts",
                      "--label", f"gpufleet.lab={name}", "--label", f"gpufleet.groups={','.join(node.groups)}",
                      "--label", f"gpufleet.spec={specs[cname]}", *ownership.labels(fingerprint, inventory),
                      *(["--cpu-shares", str(cpu_shares)] if cpu_shares is not None else []),
                      "-v", f"{key}.pub:/root/.ssh/authorized_keys:ro", *node.run_args(name, controllers), image)
    nodes.wait_for_ssh(planned, key, name)
    for node in planned:
        if node.bare:
            nodes.make_bare(f"{name}-{node.hostname}")
    path = inventory_file.write_inventory(name, planned, key, inventory, controllers)
    os.makedirs(common.STATE_DIR, exist_ok=True)
    with open(os.path.join(common.STATE_DIR, f"{name}.json"), "w", encoding="utf-8") as fh:
        json.dump({"computes": computes, "logins": logins, "controllers": controllers, "distro": distro,
                   "inventory": path}, fh)
    log(f"lab '{name}' is up: {len(planned)} nodes ({computes} GPU nodes) in "
        f"{time.monotonic() - started:.1f} s; inventory {os.path.relpath(path, common.ROOT)}")


def down(name: str, inventory: str) -> None:
    names = [info["Names"][0] for info in common.lab_containers(name)]
    if names:  # one call: podman stops and removes them in parallel
        log(f"removing {', '.join(sorted(names))}")
        first = common.podman("rm", "-f", "-t", "2", *names, check=False)
        # A container that exits on its own while podman escalates to SIGKILL is left behind, stopped ("container
        # state improper: stopped"): a second removal takes it; whatever is still there then fails loudly.
        left = [info["Names"][0] for info in common.lab_containers(name)] if first.returncode != 0 else []
        if left:
            said = (first.stderr or "").strip().splitlines()
            log(f"podman rm failed ({said[-1] if said else f'exit {first.returncode}'}); "
                f"removing {', '.join(sorted(left))} again")
            time.sleep(1)
            common.podman("rm", "-f", "-t", "2", *left)
    if common.podman("network", "exists", name, check=False).returncode == 0:
        common.podman("network", "rm", "-f", name)
    nodes.remove_state_volume(name)
    for path in [os.path.join(inventory, "hosts.yml"), os.path.join(common.STATE_DIR, f"{name}.json")]:
        if os.path.exists(path):
            os.remove(path)
    # Facts cached for containers that no longer exist would mislead the next run.
    shutil.rmtree(os.path.join(common.ROOT, ".cache", "facts"), ignore_errors=True)
    log(f"lab '{name}' is down")


def gpu_stand_ins(name: str, hostnames: Sequence[str]) -> None:
    """Stand-in GPU device files on bare GPU nodes, from now and at every boot (nodes.gpu_stand_ins_unit)."""
    running = {info["Names"][0]: info for info in common.lab_containers(name)}
    for hostname in hostnames:
        cname = f"{name}-{hostname}"
        groups = running.get(cname, {}).get("Labels", {}).get("gpufleet.groups", "").split(",")
        if "gpu_nodes" not in groups:
            die(f"{hostname} is not a GPU node of the lab '{name}'")
        nodes.install_gpu_stand_ins(cname)
        log(f"{hostname}: /dev/nvidia0..{nodes.GPU_STAND_INS - 1} (links to /dev/null) from now and at every boot")


def status(name: str) -> int:
    containers = common.lab_containers(name)
    if not containers:
        log(f"lab '{name}' is down (no containers)")
        return 0
    print(f"{'container':28} {'state':10} {'systemd':12} groups")
    for info in sorted(containers, key=lambda c: c["Names"][0]):
        cname = info["Names"][0]
        state = info["State"]
        systemd = "-"
        if state == "running":
            systemd = common.podman("exec", cname, "systemctl", "is-system-running", check=False).stdout.strip()
        print(f"{cname:28} {state:10} {systemd:12} {info.get('Labels', {}).get('gpufleet.groups', '')}")
    infos = json.loads(common.podman("inspect", *[c["Names"][0] for c in containers]).stdout or "[]")
    owners = sorted({o.checkout or "unknown (made before lab.py recorded it)"
                     for o in map(ownership.container_owner, infos)})
    log(f"lab '{name}' was made by the checkout {', '.join(owners)}")
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    p_img = sub.add_parser("images", help="build the lab images (cached by recipe)")
    p_img.add_argument("--distro", choices=sorted(images.DISTROS), default="debian12")
    p_img.add_argument("--force", action="store_true")
    sub.add_parser("ssh-key", help="make the lab's SSH key (.lab/ssh) if missing and print its path "
                                   "(molecule uses it too)")
    p_gpu = sub.add_parser("gpu-stand-ins", help="give bare GPU nodes the stand-in device files a driver would make")
    p_gpu.add_argument("--name", default=os.environ.get("LAB_NAME", "gpufleet-lab"))
    p_gpu.add_argument("nodes", nargs="+", metavar="GPU_NODE")
    for cmd in ("up", "down", "status"):
        p = sub.add_parser(cmd)
        p.add_argument("--name", default=os.environ.get("LAB_NAME", "gpufleet-lab"))
        p.add_argument("--inventory", default=os.environ.get("LAB_INVENTORY", common.DEFAULT_INVENTORY))
        if cmd == "up":
            p.add_argument("--computes", type=int, default=int(os.environ.get("LAB_COMPUTES", "2")))
            p.add_argument("--logins", type=int, default=1)
            p.add_argument("--controllers", type=int, default=int(os.environ.get("LAB_CONTROLLERS", "1")),
                           help="2 adds a backup Slurm controller (head2) sharing a state volume with head")
            p.add_argument("--distro", choices=sorted(images.DISTROS), default="debian12")
            p.add_argument("--cpu-shares", type=int, default=None,
                           help="CPU weight of the new containers against other containers (podman's default 1024)")
            p.add_argument("--bare", action="append", default=[], metavar="GPU_NODE",
                           help="make this GPU node bare: no GPU device files, a default memlock below the "
                                "inventory's (see gpu-stand-ins)")
    args = parser.parse_args(argv)
    if args.cmd == "images":
        if args.distro != "debian12" and not images.DISTROS[args.distro].mirror:
            log(f"skipping {args.distro}: no {images.DISTROS[args.distro].suite} mirror configured "
                f"(set {images.DISTROS[args.distro].mirror_env})")
            return 0
        images.build_images(args.distro, args.force)
    elif args.cmd == "ssh-key":
        print(ownership.ssh_key())
    elif args.cmd == "up":
        up(args.name, args.computes, args.logins, args.distro, args.inventory, args.controllers, args.cpu_shares,
           args.bare)
    elif args.cmd == "gpu-stand-ins":
        gpu_stand_ins(args.name, args.nodes)
    elif args.cmd == "down":
        down(args.name, args.inventory)
    else:
        return status(args.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
