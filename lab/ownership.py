# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Whose lab it is: the lab's SSH key (.lab/ssh), and the checkout that made a lab's containers and the key they
let in, which `up` checks before anything else.

Each container is labelled with the checkout's path (gpufleet.checkout), the fingerprint of the SSH key it lets in
(gpufleet.key) and the inventory `up` wrote (gpufleet.inventory); containers from a lab.py older than these labels
are known by the authorized_keys file they mount and the key inside them. lab/lab.py's docstring says what `up`
does with each verdict.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import subprocess
import time
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional

import common
import nodes
from common import die, log


OWNER_LABEL = "gpufleet.checkout"
KEY_LABEL = "gpufleet.key"
INVENTORY_LABEL = "gpufleet.inventory"
AUTHORIZED_KEYS = "/root/.ssh/authorized_keys"
KEY_IN_CHECKOUT = os.path.join(".lab", "ssh", "id_ed25519.pub")


def ssh_key() -> str:
    """The lab's private key (.lab/ssh/id_ed25519), made if missing; every lab of this checkout lets it in."""
    key = os.path.join(common.STATE_DIR, "ssh", "id_ed25519")
    if not os.path.exists(key):
        os.makedirs(os.path.dirname(key), mode=0o700, exist_ok=True)
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "gpufleet-lab", "-f", key], check=True)
    return key


def labels(fingerprint: str, inventory: str) -> List[str]:
    """podman's --label arguments that record, on a container `up` makes, this checkout, the fingerprint of the key
    it lets in and the inventory written for it: what container_owner reads back."""
    return ["--label", f"{OWNER_LABEL}={os.path.realpath(common.ROOT)}", "--label", f"{KEY_LABEL}={fingerprint}",
            "--label", f"{INVENTORY_LABEL}={os.path.abspath(inventory)}"]


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
    proc = common.podman("exec", cname, "cat", AUTHORIZED_KEYS, check=False)
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
    names = [c["Names"][0] for c in common.lab_containers(name)]
    infos = json.loads(common.podman("inspect", *names).stdout or "[]") if names else []
    verdict = lab_ownership(name, infos, common.ROOT, fingerprint)
    if verdict.action == "refuse":
        die(verdict.reason + f"\n(checked in {time.monotonic() - started:.1f} s)")
    if verdict.action == "recreate":
        log(verdict.reason)
        for cname in names:
            log(f"removing {cname}")
            common.podman("rm", "-f", "-t", "2", cname)
        if verdict.remove_state:
            nodes.remove_state_volume(name)
