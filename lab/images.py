# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The lab's node images, built here: `lab/lab.py images`, and `up` before it starts a container.

Images are built locally (debootstrap + `podman import` + one Containerfile layer from lab/images/) from the
package mirrors in this host's own apt configuration, or from LAB_DEBIAN_MIRROR / LAB_UBUNTU_MIRROR. An image is
rebuilt only when its recipe (mirror, suite, the files in lab/images/, the base recipe below) changes: its tag is
a hash of them.
"""
from __future__ import annotations

import glob
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from typing import Dict, List, Optional

import common
from common import die, log

IMAGE_PACKAGES_NOTE = "python3 systemd openssh-server sudo (see lab/images/node.Containerfile)"


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
    for name in sorted(os.listdir(os.path.join(common.HERE, "images"))):
        with open(os.path.join(common.HERE, "images", name), "rb") as fh:
            digest.update(name.encode() + fh.read())
    with open(__file__, "rb") as fh:  # the base recipe (debootstrap arguments) lives here
        digest.update(re.sub(rb"(?s)^.*?# -- base recipe --(.*?)# -- end base recipe --.*$", rb"\1", fh.read()))
    return digest.hexdigest()[:12]


def image_exists(ref: str) -> bool:
    return common.podman("image", "exists", ref, check=False).returncode == 0


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
            common.podman("import", "-", base, stdin=tar.stdout)
            tar.wait()
        finally:
            shutil.rmtree(rootfs, ignore_errors=True)
        # -- end base recipe --
        log(f"base image {base} imported")
    log(f"building {ref} ({IMAGE_PACKAGES_NOTE})")
    recipe = os.path.join(common.HERE, "images")
    common.podman("build", "--network", "host", "--build-arg", f"BASE={base}", "-t", ref,
                  "-t", f"localhost/gpufleet-lab-{distro.key}:latest",
                  "-f", os.path.join(recipe, "node.Containerfile"), recipe)
    log(f"image {ref} built in {time.monotonic() - started:.0f} s")
    return ref
