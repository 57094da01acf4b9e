# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: dpkg_installed
version_added: 0.1.0
short_description: The installed packages and their versions, from one dpkg-query call
description:
  - Reads the output of
    C(dpkg-query --show --showformat='${Package} ${db:Status-Status} ${Version}\\n' PKG...) and returns the
    packages dpkg reports as C(installed), each with its version. Packages in another state
    (C(config-files), C(not-installed), C(half-installed)) and packages dpkg has never seen (no line) are left
    out, so C(wanted | difference(result | list)) is what apt still has to install.
  - Roles ask dpkg first because it answers in milliseconds, where the apt module loads the whole package cache.
  - Fields may be separated by spaces or tabs. A line of any other shape is refused, naming the line.
positional: _input
options:
  _input:
    description: The command's C(stdout_lines) (or its C(stdout)).
    type: raw
    required: true
"""

EXAMPLES = r"""
- name: Read which of the packages are installed
  ansible.builtin.command:
    argv: [dpkg-query, --show, "--showformat=${Package} ${db:Status-Status} ${Version}\n", slurmd, munge]
  register: dpkg
  changed_when: false
  failed_when: dpkg.rc not in [0, 1]

- name: Install only what is missing
  ansible.builtin.apt:
    name: [slurmd, munge]
  when: "['slurmd', 'munge'] | difference(dpkg.stdout_lines | gpufleet.cluster.dpkg_installed | list) | length > 0"
  # {"munge": "0.5.15-2", "slurmd": "22.05.8-4+deb12u3"} once both are installed
"""

RETURN = r"""
_value:
  description: Package name to version (with its epoch, as dpkg prints it), for the installed packages only.
  type: dict
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, require

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("dpkg_installed")
def dpkg_installed(output):
    """Package -> version for the packages dpkg-query reports as installed."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.apt.dpkg_status import (
        installed_versions,
    )
    if isinstance(output, str):
        output = output.splitlines()
    require(isinstance(output, (list, tuple)) and all(isinstance(line, str) for line in output), "input", output,
            "dpkg-query's stdout_lines (a list of strings) or stdout")
    return installed_versions(output)


class FilterModule:
    def filters(self):
        return {"dpkg_installed": dpkg_installed}
