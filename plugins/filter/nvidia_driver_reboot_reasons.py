# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: nvidia_driver_reboot_reasons
version_added: 0.1.0
short_description: Why a GPU node must boot again before its installed NVIDIA driver works
description:
  - Compares the running kernel module (C(/sys/module/nvidia/version), empty when it is not loaded) with the
    installed NVIDIA libraries and returns the reasons for a reboot, in words; an empty list means none is needed.
  - A running module that differs from the libraries is NVML's "Driver/library version mismatch" (nvidia-smi, DCGM,
    Slurm's gres and CUDA all fail). No module loaded while nouveau holds the GPUs needs a reboot too, once nouveau
    is blacklisted.
  - The nvidia_driver role reboots only on these reasons, and only where the user allows it.
positional: _input, installed, nouveau_loaded, blacklist_path
options:
  _input:
    description: The running module's version, V('') when none is loaded.
    type: str
    required: true
  installed:
    description: The installed driver's version, upstream (V(535.309.01)) or as dpkg prints it (V(535.309.01-0+deb12u1)); V('') when none is installed.
    type: str
    required: true
  nouveau_loaded:
    description: Whether C(/sys/module/nouveau) exists.
    type: bool
    default: false
  blacklist_path:
    description: The file that blacklists nouveau, named in the reason.
    type: str
    default: /etc/modprobe.d/gpufleet-blacklist-nouveau.conf
"""

EXAMPLES = r"""
- name: Mismatch after an upgrade without a reboot
  ansible.builtin.debug:
    msg: "{{ '535.261.03' | gpufleet.cluster.nvidia_driver_reboot_reasons('535.309.01-0+deb12u1') }}"
  # ['Driver/library version mismatch: the running kernel module is 535.261.03 but the installed libraries are 535.309.01, ...']
"""

RETURN = r"""
_value:
  description: The reasons, each a sentence; empty when no reboot is needed.
  type: list
  elements: str
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, flag, of_type

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("nvidia_driver_reboot_reasons")
def nvidia_driver_reboot_reasons(running, installed, nouveau_loaded=False,
                                 blacklist_path="/etc/modprobe.d/gpufleet-blacklist-nouveau.conf"):
    """Reasons to reboot, from the running module and the installed libraries."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.gpu.driver_state import (
        reboot_reasons,
        upstream_version,
    )
    for name, value in (("running", running), ("installed", installed)):
        of_type(name, value, str, "a version string (or '')")
    of_type("blacklist_path", blacklist_path, str, "a path")
    flag("nouveau_loaded", nouveau_loaded)
    return reboot_reasons(running, upstream_version(installed.strip()), nouveau_loaded, blacklist_path)


class FilterModule:
    def filters(self):
        return {"nvidia_driver_reboot_reasons": nvidia_driver_reboot_reasons}
