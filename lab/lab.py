# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The gpufleet lab: a GPU cluster of podman containers running systemd, on this machine.

    lab/lab.py images [--distro debian12|ubuntu2404] [--force]
    lab/lab.py up [--computes N] [--logins N] [--name NAME] [--inventory DIR]
    lab/lab.py status [--name NAME]
    lab/lab.py down [--name NAME] [--inventory DIR]

Images are built locally (debootstrap + `podman import` + one Containerfile layer) from the package
mirrors in this host's own apt configuration, or from LAB_DEBIAN_MIRROR / LAB_UBUNTU_MIRROR. An image
is rebuilt only when its recipe (mirror, suite, Containerfile) changes.

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
import base64
import binascii
import glob
import hashlib
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Callable, Dict, Iterable, List, NoReturn, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
STATE_DIR = os.path.join(ROOT, ".lab")
DEFAULT_INVENTORY = os.path.join(ROOT, "inventories", "lab")
IMAGE_PACKAGES_NOTE = "python3 systemd openssh-server sudo (see lab/images/node.Containerfile)"


def log(msg: str) -> None:
    print(f"lab: {msg}", flush=True)


def die(msg: str) -> NoReturn:
    print(f"lab: error: {msg}", file=sys.stderr, flush=True)
    sys.exit(1)


def podman(*args: str, check: bool = True, capture: bool = True, stdin=None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.setdefault("CONTAINERS_CONF", os.path.join(HERE, "containers.conf"))
    proc = subprocess.run(["podman", *args], env=env, check=False, text=True, stdin=stdin,
                          stdout=subprocess.PIPE if capture else None,
                          stderr=subprocess.PIPE if capture else None)
    if check and proc.returncode != 0:
        die(f"podman {' '.join(args)} failed (exit {proc.returncode}): {(proc.stderr or '').strip()}")
    return proc


# --------------------------------------------------------------------------------------------------
# Package mirrors: from the host's apt configuration, never written into the repository.
# --------------------------------------------------------------------------------------------------
def apt_sources() -> List[Dict[str, List[str]]]:
    """Every apt source of this host as {uris, suites}, from deb822 and one-line files."""
    sources: List[Dict[str, List[str]]] = []
    for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
        with open(path, encoding="utf-8") as fh:
            for stanza in re.split(r"\n\s*\n", fh.read()):
                fields: Dict[str, List[str]] = {}
                for line in stanza.splitlines():
                    if line.startswith("#") or ":" not in line:
                        continue
                    key, _sep, value = line.partition(":")
                    fields[key.strip().lower()] = value.split()
                if "enabled" in fields and fields["enabled"] == ["no"]:
                    continue
                if fields.get("uris") and fields.get("suites"):
                    sources.append({"uris": fields["uris"], "suites": fields["suites"]})
    for path in ["/etc/apt/sources.list", *sorted(glob.glob("/etc/apt/sources.list.d/*.list"))]:
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                words = re.sub(r"\[[^]]*\]", "", line.split("#", 1)[0]).split()
                if len(words) >= 3 and words[0] == "deb":
                    sources.append({"uris": [words[1]], "suites": [words[2]]})
    return sources


def mirror_for(suite: str, env_var: str) -> Optional[str]:
    if os.environ.get(env_var):
        return os.environ[env_var].rstrip("/")
    for src in apt_sources():
        if suite in src["suites"]:
            return src["uris"][0].rstrip("/")
    return None


@dataclass
class Distro:
    key: str
    suite: str
    mirror_env: str
    security_suite: Optional[str]
    security_env: Optional[str]
    components: str
    debootstrap_script: Optional[str]
    debootstrap_extra: List[str]

    @property
    def mirror(self) -> Optional[str]:
        return mirror_for(self.suite, self.mirror_env)

    @property
    def security_mirror(self) -> Optional[str]:
        if not self.security_suite or not self.security_env:
            return None
        return mirror_for(self.security_suite, self.security_env)

    def sources_list(self) -> str:
        lines = [f"deb {self.mirror} {self.suite} {self.components}",
                 f"deb {self.mirror} {self.suite}-updates {self.components}"]
        if self.key == "ubuntu2404":  # Ubuntu serves security updates from the same archive
            lines.append(f"deb {self.mirror} {self.suite}-security {self.components}")
        if self.security_mirror:
            lines.append(f"deb {self.security_mirror} {self.security_suite} {self.components}")
        return "\n".join(lines) + "\n"


DISTROS = {
    "debian12": Distro("debian12", "bookworm", "LAB_DEBIAN_MIRROR", "bookworm-security",
                       "LAB_DEBIAN_SECURITY_MIRROR", "main", None, []),
    # This debootstrap has no noble script; gutsy's is the generic Ubuntu one.
    "ubuntu2404": Distro("ubuntu2404", "noble", "LAB_UBUNTU_MIRROR", None, None, "main universe",
                         "/usr/share/debootstrap/scripts/gutsy", ["--no-check-gpg"]),
}


def recipe_hash(distro: Distro) -> str:
    digest = hashlib.sha256()
    digest.update(distro.sources_list().encode())
    for name in sorted(os.listdir(os.path.join(HERE, "images"))):
        with open(os.path.join(HERE, "images", name), "rb") as fh:
            digest.update(name.encode() + fh.read())
    with open(__file__, "rb") as fh:  # the base recipe (debootstrap arguments) lives here
        digest.update(re.sub(rb"(?s)^.*?# -- base recipe --(.*?)# -- end base recipe --.*$", rb"\1", fh.read()))
    return digest.hexdigest()[:12]


def image_exists(ref: str) -> bool:
    return podman("image", "exists", ref, check=False).returncode == 0


def node_image(distro_key: str) -> str:
    distro = DISTROS[distro_key]
    if not distro.mirror:
        die(f"no {distro.suite} mirror: this host's apt configuration lists none and {distro.mirror_env} is unset")
    return f"localhost/gpufleet-lab-{distro.key}:{recipe_hash(distro)}"


def build_images(distro_key: str, force: bool = False) -> str:
    distro = DISTROS[distro_key]
    ref = node_image(distro_key)
    if image_exists(ref) and not force:
        log(f"image {ref} is up to date")
        return ref
    base = ref.replace("gpufleet-lab-", "gpufleet-base-")
    started = time.monotonic()
    if force or not image_exists(base):
        # -- base recipe --
        rootfs = tempfile.mkdtemp(prefix=f"gpufleet-{distro.key}-", dir="/var/tmp")
        try:
            cmd = ["debootstrap", "--variant=minbase", *distro.debootstrap_extra,
                   distro.suite, rootfs, distro.mirror]
            if distro.debootstrap_script:
                cmd.append(distro.debootstrap_script)
            log(f"debootstrap {distro.suite} (minbase)")
            proc = subprocess.run(cmd, check=False, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if proc.returncode != 0:
                die(f"debootstrap {distro.suite} failed (exit {proc.returncode}):\n{proc.stdout[-3000:]}")
            with open(os.path.join(rootfs, "etc/apt/sources.list"), "w", encoding="utf-8") as fh:
                fh.write(distro.sources_list())
            # Containers run with --no-hosts: the cluster's /etc/hosts is the common role's to manage.
            with open(os.path.join(rootfs, "etc/hosts"), "w", encoding="utf-8") as fh:
                fh.write("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n")
            tar = subprocess.Popen(["tar", "-C", rootfs, "--numeric-owner", "-c", "."], stdout=subprocess.PIPE)
            podman("import", "-", base, stdin=tar.stdout)
            tar.wait()
        finally:
            shutil.rmtree(rootfs, ignore_errors=True)
        # -- end base recipe --
        log(f"base image {base} imported")
    log(f"building {ref} ({IMAGE_PACKAGES_NOTE})")
    podman("build", "--network", "host", "--build-arg", f"BASE={base}", "-t", ref,
           "-t", f"localhost/gpufleet-lab-{distro.key}:latest",
           "-f", os.path.join(HERE, "images", "node.Containerfile"), os.path.join(HERE, "images"))
    log(f"image {ref} built in {time.monotonic() - started:.0f} s")
    return ref


# --------------------------------------------------------------------------------------------------
# The lab itself
# --------------------------------------------------------------------------------------------------
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
            args += ["-v", f"{lab}-slurmctld-state:{SHARED_STATE_MOUNT}"]
        return args


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


def ssh_key() -> str:
    key = os.path.join(STATE_DIR, "ssh", "id_ed25519")
    if not os.path.exists(key):
        os.makedirs(os.path.dirname(key), mode=0o700, exist_ok=True)
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "gpufleet-lab", "-f", key], check=True)
    return key


def lab_containers(name: str) -> List[Dict]:
    out = podman("ps", "-a", "--filter", f"label=gpufleet.lab={name}", "--format", "json").stdout
    return json.loads(out or "[]")


# --------------------------------------------------------------------------------------------------
# Whose lab it is: the checkout that made the containers and the SSH key they let in
# --------------------------------------------------------------------------------------------------
OWNER_LABEL = "gpufleet.checkout"
KEY_LABEL = "gpufleet.key"
INVENTORY_LABEL = "gpufleet.inventory"
AUTHORIZED_KEYS = "/root/.ssh/authorized_keys"
KEY_IN_CHECKOUT = os.path.join(".lab", "ssh", "id_ed25519.pub")


def key_fingerprint(public_key: str) -> Optional[str]:
    """`SHA256:<base64>` of an OpenSSH public key line, as `ssh-keygen -l` prints it; None if it is not one."""
    fields = public_key.split()
    if len(fields) < 2:
        return None
    try:
        blob = base64.b64decode(fields[1], validate=True)
    except (binascii.Error, ValueError):
        return None
    return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")


def authorized_keys(cname: str) -> Optional[str]:
    """The authorized_keys a container lets in, read inside it (None when it is not running)."""
    proc = podman("exec", cname, "cat", AUTHORIZED_KEYS, check=False)
    return proc.stdout if proc.returncode == 0 else None


@dataclass
class Owner:
    """Who made a lab container: the checkout (absolute path) and the fingerprint of the key it lets in."""
    container: str
    checkout: Optional[str]
    key: Optional[str]
    inventory: Optional[str] = None


def container_owner(info: Dict, read: Callable[[str], Optional[str]] = authorized_keys) -> Owner:
    """The owner of one container, from its `podman inspect` record: the labels `up` sets; for a container made
    before them, the checkout from the authorized_keys file it mounts (<checkout>/.lab/ssh/id_ed25519.pub) and
    the key from what `read(container)` finds inside it (the file on the host may be a newer key by now)."""
    name = str(info.get("Name", "")).lstrip("/")
    labels = (info.get("Config") or {}).get("Labels") or {}
    checkout, key = labels.get(OWNER_LABEL), labels.get(KEY_LABEL)
    if not checkout:
        for mount in info.get("Mounts") or []:
            source = mount.get("Source") or ""
            if mount.get("Destination") == AUTHORIZED_KEYS and source.endswith(os.sep + KEY_IN_CHECKOUT):
                checkout = source[:-len(os.sep + KEY_IN_CHECKOUT)]
    if not key:
        text = read(name)
        key = key_fingerprint(text) if text else None
    return Owner(name, checkout or None, key or None, labels.get(INVENTORY_LABEL))


@dataclass
class Verdict:
    """What `up` does with the running containers of a lab name: reuse them, re-create them, or refuse."""
    action: str  # "reuse", "recreate" or "refuse"
    reason: str
    owner: Optional[Owner] = None
    remove_state: bool = False  # the Slurm state volume belongs to another checkout's lab: remove it too


def is_checkout(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "lab", "lab.py"))


def lab_ownership(name: str, containers: List[Dict], checkout: str, key: str,
                  read: Optional[Callable[[str], Optional[str]]] = None,
                  exists: Optional[Callable[[str], bool]] = None) -> Verdict:
    """Decide, from `podman inspect` of a lab's containers, whether this checkout (path `checkout`, SSH key
    fingerprint `key`) may use them. Another checkout that still exists wins over everything (refuse); a
    checkout gone from disk, a different key or an unknown owner means re-create; else reuse.
    `read(container)` gives the authorized_keys inside a container (default: podman exec), `exists(path)` says
    whether a checkout is still there (default: it has lab/lab.py)."""
    exists = exists or is_checkout
    owners = [container_owner(info, read or authorized_keys) for info in containers]
    mine = os.path.realpath(checkout)
    foreign = [o for o in owners if o.checkout and os.path.realpath(o.checkout) != mine]
    living = [o for o in foreign if exists(o.checkout)]
    if living:
        other = living[0]
        names = sorted(o.container for o in owners)
        down = f"python3 {os.path.join(other.checkout, 'lab', 'lab.py')} down --name {name}"
        if other.inventory and os.path.realpath(other.inventory) != os.path.join(os.path.realpath(other.checkout),
                                                                                 "inventories", "lab"):
            down += f" --inventory {other.inventory}"
        return Verdict("refuse", (
            f"lab '{name}' belongs to another checkout, {other.checkout}: its containers let in that checkout's "
            f"SSH key ({other.key or 'unknown'}), not this one's ({key}). Either\n"
            f"  take it down from that checkout:   {down}\n"
            f"  or remove its containers:          podman rm -f {' '.join(names)}\n"
            f"  or use another lab name here:      lab/lab.py up --name NAME (make demo: LAB_NAME=NAME)"), other)
    if foreign:
        gone = sorted({o.checkout for o in foreign})
        return Verdict("recreate", f"lab '{name}' was made by {', '.join(gone)}, which no longer exists: "
                                   "re-creating its containers for this checkout", foreign[0], remove_state=True)
    unknown = [o.container for o in owners if not o.checkout]
    if unknown:
        return Verdict("recreate", f"{', '.join(sorted(unknown))}: no record of the checkout that made "
                                   f"{'them' if len(unknown) > 1 else 'it'}: re-creating lab '{name}'")
    stale = [o.container for o in owners if o.key != key]
    if stale:
        return Verdict("recreate", f"{', '.join(sorted(stale))} let in another SSH key than this checkout's "
                                   f"{key} (.lab/ssh was made again?): re-creating lab '{name}'")
    return Verdict("reuse", f"lab '{name}' belongs to this checkout" if owners else f"lab '{name}' has no containers")


def public_key_fingerprint(key: str) -> str:
    """The fingerprint of the lab key's public half (`key` is the private key's path)."""
    with open(f"{key}.pub", encoding="utf-8") as fh:
        fingerprint = key_fingerprint(fh.read())
    if not fingerprint:
        die(f"{key}.pub is not an OpenSSH public key: remove {os.path.dirname(key)} and run `up` again")
    return fingerprint


def check_ownership(name: str, fingerprint: str) -> None:
    """Apply lab_ownership to the containers of the lab `name`: stop, or remove what must be made again."""
    started = time.monotonic()
    names = [c["Names"][0] for c in lab_containers(name)]
    infos = json.loads(podman("inspect", *names).stdout or "[]") if names else []
    verdict = lab_ownership(name, infos, ROOT, fingerprint)
    if verdict.action == "refuse":
        die(verdict.reason + f"\n(checked in {time.monotonic() - started:.1f} s)")
    if verdict.action == "recreate":
        log(verdict.reason)
        for cname in names:
            log(f"removing {cname}")
            podman("rm", "-f", "-t", "2", cname)
        if verdict.remove_state and podman("volume", "exists", f"{name}-slurmctld-state", check=False).returncode == 0:
            podman("volume", "rm", "-f", f"{name}-slurmctld-state")


def ensure_network(name: str) -> None:
    if podman("network", "exists", name, check=False).returncode == 0:
        return
    net = f"10.123.{lab_subnet(name)}"
    podman("network", "create", "--subnet", f"{net}.0/24", "--gateway", f"{net}.1",
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
            die(f"{node.hostname} ({node.ip}) did not accept SSH within {timeout:.0f} s: {proc.stderr.strip()}\n"
                + boot_diagnostics(f"{name}-{node.hostname}"))
        time.sleep(0.5)


def boot_diagnostics(cname: str) -> str:
    """What systemd in a container says about its boot and its SSH daemon, for an error message."""
    lines = [f"podman state: {podman('inspect', '--format', '{{.State.Status}}', cname, check=False).stdout.strip()}"]
    for argv in (["systemctl", "is-system-running"], ["systemctl", "--failed", "--no-legend", "--plain"],
                 ["systemctl", "status", "--no-pager", "--lines=10", "ssh.service"]):
        proc = podman("exec", cname, *argv, check=False)
        lines.append(f"$ {' '.join(argv)}\n{(proc.stdout + proc.stderr).strip()}")
    return "\n".join(lines)


def reusable(cname: str) -> bool:
    """A container podman calls running whose systemd answers and has not given up on SSH; one left behind
    by a killed run may have neither."""
    state = podman("exec", cname, "systemctl", "is-system-running", check=False).stdout.strip()
    if state not in ("initializing", "starting", "running", "degraded"):
        return False
    ssh = podman("exec", cname, "systemctl", "is-active", "ssh.service", check=False).stdout.strip()
    return ssh in ("active", "activating")


def write_inventory(name: str, nodes: List[Node], key: str, inventory: str, controllers: int = 1) -> str:
    groups: Dict[str, List[Node]] = {}
    for node in nodes:
        for group in node.groups:
            groups.setdefault(group, []).append(node)
    lines = [
        f"# Generated by lab/lab.py for the lab '{name}': do not edit, run `make lab-up` again.",
        "# Lab nodes are podman containers: their hardware is described in group_vars/all/lab.yml.",
        "all:",
        "  vars:",
        "    ansible_user: root",
        f"    ansible_ssh_private_key_file: {key}",
        "    # Lab containers get fresh host keys whenever they are re-created.",
        "    ansible_ssh_common_args: -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR",
        "    # The lab image's Python: no interpreter discovery on every node in every run.",
        "    ansible_python_interpreter: /usr/bin/python3",
        f"    gpufleet_lab_name: {name}",
        *(["    # Two controllers share this podman volume, standing in for NFS.",
           f"    slurm_state_save_location: {SHARED_STATE_MOUNT}"] if controllers > 1 else []),
        "  children:",
        "    cluster:",
        "      children:",
    ]
    for group in ["slurm_controller", "slurm_dbd", "login_nodes", "gpu_nodes"]:
        lines.append(f"        {group}:")
        lines.append("          hosts:")
        for node in groups.get(group, []):
            lines.append(f"            {node.hostname}:")
            lines.append(f"              ansible_host: {node.ip}")
            lines.append(f"              gpufleet_ip: {node.ip}")
    lines += [
        "    lustre_clients:",
        "      children:",
        "        gpu_nodes:",
        "        login_nodes:",
        "    # The lab has no switches to configure.",
        "    rdma_switches:",
        "      hosts: {}",
    ]
    os.makedirs(inventory, exist_ok=True)
    secrets_path = os.path.join(inventory, "group_vars", "all", "lab_secrets.yml")
    if os.path.abspath(inventory) != os.path.abspath(DEFAULT_INVENTORY):
        # A second lab (the tests') gets the same lab description as the default one, and keeps its secrets:
        # a new database password on every `up` would rotate it under a running slurmdbd.
        kept = read_secrets(secrets_path)
        target = os.path.join(inventory, "group_vars")
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(os.path.join(DEFAULT_INVENTORY, "group_vars"), target,
                        ignore=shutil.ignore_patterns(os.path.basename(secrets_path)))
        write_secrets(secrets_path, kept)
    path = os.path.join(inventory, "hosts.yml")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    write_secrets(secrets_path)
    return path


def read_secrets(path: str) -> Optional[str]:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except FileNotFoundError:
        return None


def write_secrets(path: str, content: Optional[str] = None) -> None:
    """The lab's own secrets, random per lab, 0600, never committed (a vault file on a real cluster).
    An existing file is kept; `content` restores one read before its folder was replaced."""
    if os.path.exists(path):
        return
    if content is None:
        content = ("---\n# Generated by lab/lab.py: random secrets of this lab only.\n"
                   f"slurm_db_password: {secrets.token_urlsafe(24)}\n")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(content)


def up(name: str, computes: int, logins: int, distro: str, inventory: str, controllers: int = 1,
       cpu_shares: Optional[int] = None) -> None:
    """cpu_shares: the containers' CPU weight against other containers (podman --cpu-shares; its default 1024):
    make test gives the e2e lab more, so that its steps go first while molecule's containers run beside it."""
    if cpu_shares is not None and not 2 <= cpu_shares <= 262144:
        die(f"--cpu-shares {cpu_shares} is outside 2..262144 (the kernel's range for cpu.shares)")
    if not 1 <= computes <= 64:
        die(f"--computes {computes} is outside 1..64 (this 2-core host has run 16)")
    if controllers not in (1, 2):
        die(f"--controllers {controllers}: Slurm runs one primary and at most one backup here (1 or 2)")
    started = time.monotonic()
    key = ssh_key()
    fingerprint = public_key_fingerprint(key)
    check_ownership(name, fingerprint)  # before anything else: whose lab runs under this name
    image = build_images(distro)
    ensure_network(name)
    nodes = plan_nodes(name, computes, logins, controllers)
    wanted = {f"{name}-{n.hostname}": n for n in nodes}
    specs = {cname: hashlib.sha256(" ".join([image, node.ip, *node.run_args(name, controllers)]).encode()).hexdigest()[:12]
             for cname, node in wanted.items()}
    existing = {c["Names"][0]: c for c in lab_containers(name)}
    for cname, info in existing.items():
        if cname not in wanted or info.get("Labels", {}).get("gpufleet.spec") != specs[cname]:
            log(f"removing {cname}")
            podman("rm", "-f", "-t", "2", cname)
    existing = {c["Names"][0]: c for c in lab_containers(name)}
    for cname, node in wanted.items():
        if cname in existing:
            if existing[cname]["State"] != "running":
                podman("start", cname)
            if reusable(cname):
                continue
            log(f"removing {cname}: its systemd or SSH daemon is not running (left by an interrupted run?)")
            podman("rm", "-f", "-t", "2", cname)
        podman("run", "-d", "--name", cname, "--hostname", node.hostname,
               "--network", name, "--ip", node.ip, "--systemd=always", "--no-hosts",
               "--label", f"gpufleet.lab={name}", "--label", f"gpufleet.groups={','.join(node.groups)}",
               "--label", f"gpufleet.spec={specs[cname]}",
               "--label", f"{OWNER_LABEL}={os.path.realpath(ROOT)}", "--label", f"{KEY_LABEL}={fingerprint}",
               "--label", f"{INVENTORY_LABEL}={os.path.abspath(inventory)}",
               *(["--cpu-shares", str(cpu_shares)] if cpu_shares is not None else []),
               "-v", f"{key}.pub:/root/.ssh/authorized_keys:ro", *node.run_args(name, controllers), image)
    wait_for_ssh(nodes, key, name)
    path = write_inventory(name, nodes, key, inventory, controllers)
    os.makedirs(STATE_DIR, exist_ok=True)
    with open(os.path.join(STATE_DIR, f"{name}.json"), "w", encoding="utf-8") as fh:
        json.dump({"computes": computes, "logins": logins, "controllers": controllers, "distro": distro,
                   "inventory": path}, fh)
    log(f"lab '{name}' is up: {len(nodes)} nodes ({computes} GPU nodes) in "
        f"{time.monotonic() - started:.1f} s; inventory {os.path.relpath(path, ROOT)}")


def down(name: str, inventory: str) -> None:
    names = [info["Names"][0] for info in lab_containers(name)]
    if names:  # one call: podman stops and removes them in parallel
        log(f"removing {', '.join(sorted(names))}")
        podman("rm", "-f", "-t", "2", *names)
    if podman("network", "exists", name, check=False).returncode == 0:
        podman("network", "rm", "-f", name)
    if podman("volume", "exists", f"{name}-slurmctld-state", check=False).returncode == 0:
        podman("volume", "rm", "-f", f"{name}-slurmctld-state")
    for path in [os.path.join(inventory, "hosts.yml"), os.path.join(STATE_DIR, f"{name}.json")]:
        if os.path.exists(path):
            os.remove(path)
    # Facts cached for containers that no longer exist would mislead the next run.
    shutil.rmtree(os.path.join(ROOT, ".cache", "facts"), ignore_errors=True)
    log(f"lab '{name}' is down")


def status(name: str) -> int:
    containers = lab_containers(name)
    if not containers:
        log(f"lab '{name}' is down (no containers)")
        return 0
    print(f"{'container':28} {'state':10} {'systemd':12} groups")
    for info in sorted(containers, key=lambda c: c["Names"][0]):
        cname = info["Names"][0]
        state = info["State"]
        systemd = "-"
        if state == "running":
            systemd = podman("exec", cname, "systemctl", "is-system-running", check=False).stdout.strip()
        print(f"{cname:28} {state:10} {systemd:12} {info.get('Labels', {}).get('gpufleet.groups', '')}")
    infos = json.loads(podman("inspect", *[c["Names"][0] for c in containers]).stdout or "[]")
    owners = sorted({o.checkout or "unknown (made before lab.py recorded it)" for o in map(container_owner, infos)})
    log(f"lab '{name}' was made by the checkout {', '.join(owners)}")
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    p_img = sub.add_parser("images", help="build the lab images (cached by recipe)")
    p_img.add_argument("--distro", choices=sorted(DISTROS), default="debian12")
    p_img.add_argument("--force", action="store_true")
    sub.add_parser("ssh-key", help="make the lab's SSH key (.lab/ssh) if missing and print its path (molecule uses it too)")
    for cmd in ("up", "down", "status"):
        p = sub.add_parser(cmd)
        p.add_argument("--name", default=os.environ.get("LAB_NAME", "gpufleet-lab"))
        p.add_argument("--inventory", default=os.environ.get("LAB_INVENTORY", DEFAULT_INVENTORY))
        if cmd == "up":
            p.add_argument("--computes", type=int, default=int(os.environ.get("LAB_COMPUTES", "2")))
            p.add_argument("--logins", type=int, default=1)
            p.add_argument("--controllers", type=int, default=int(os.environ.get("LAB_CONTROLLERS", "1")),
                           help="2 adds a backup Slurm controller (head2) sharing a state volume with head")
            p.add_argument("--distro", choices=sorted(DISTROS), default="debian12")
            p.add_argument("--cpu-shares", type=int, default=None,
                           help="CPU weight of the new containers against other containers (podman's default 1024)")
    args = parser.parse_args(argv)
    if args.cmd == "images":
        if args.distro != "debian12" and not DISTROS[args.distro].mirror:
            log(f"skipping {args.distro}: no {DISTROS[args.distro].suite} mirror configured "
                f"(set {DISTROS[args.distro].mirror_env})")
            return 0
        build_images(args.distro, args.force)
    elif args.cmd == "ssh-key":
        print(ssh_key())
    elif args.cmd == "up":
        up(args.name, args.computes, args.logins, args.distro, args.inventory, args.controllers, args.cpu_shares)
    elif args.cmd == "down":
        down(args.name, args.inventory)
    else:
        return status(args.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
