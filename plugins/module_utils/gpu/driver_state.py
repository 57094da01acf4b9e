# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Does a GPU node need a reboot for its NVIDIA driver? The running kernel module against the installed libraries.

The running module's version is /sys/module/nvidia/version (empty: not loaded); the libraries' is the upstream
part of the installed libnvidia-ml package's version (535.309.01 of 535.309.01-0+deb12u1).
"""
from __future__ import annotations

import re
from typing import List

from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules

# Applied with fullmatch, after stripping the trailing newline /sys/module/nvidia/version ends with.
_VERSION = re.compile(r"[0-9]+(\.[0-9]+){1,2}")


class DriverStateError(ValueError):
    """A version that is not a driver version."""


def upstream_version(debian_version: str) -> str:
    """535.309.01 of '535.309.01-0+deb12u1' or '1:580.65.06-1'; '' stays ''."""
    if not debian_version:
        return ""
    without_epoch = debian_version.split(":", 1)[1] if ":" in debian_version else debian_version
    return without_epoch.rsplit("-", 1)[0] if "-" in without_epoch else without_epoch


def _checked(name: str, version: str) -> str:
    version = (version or "").strip()
    if version and not _VERSION.fullmatch(version):
        raise DriverStateError("%s %r is not a driver version such as 535.309.01: read it from "
                               "/sys/module/nvidia/version or the libnvidia-ml package" % (name, version))
    return version


def reboot_reasons(running: str, installed: str, nouveau_loaded: bool, blacklist_path: str) -> List[str]:
    """Why the node must boot again before the installed driver works (empty list: it need not)."""
    input_rules.check("mount_path", "blacklist_path", blacklist_path, DriverStateError)
    running = _checked("running module version", running)
    installed = _checked("installed library version", installed)
    reasons = []
    if running and installed and running != installed:
        reasons.append("Driver/library version mismatch: the running kernel module is %s but the installed "
                       "libraries are %s, so NVML (nvidia-smi, DCGM, Slurm, CUDA) fails until the node boots the "
                       "new module." % (running, installed))
    if not running and installed and nouveau_loaded:
        reasons.append("nouveau holds the GPUs, so nvidia %s cannot load; it is blacklisted (%s) from the next "
                       "boot on." % (installed, blacklist_path))
    return reasons
