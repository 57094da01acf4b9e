# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: invalid_package_names
version_added: 0.1.0
short_description: The entries of a package list that are not Debian package names
description:
  - Returns the entries of a list that are not Debian package names (Debian policy 5.6.1), in their order, so a
    role's preflight can refuse them, naming each, before the names reach C(dpkg-query) and C(apt).
  - A package name is 2 to 128 lower-case letters, digits, C(+), C(-) and C(.), starting with a letter or digit,
    matched in full (a trailing newline is refused too). Anything else would change what the command does, or
    ask about another package than the one meant; a leading C(-) is read as an option (C(--admindir=/tmp/x)),
    C(=) as a version (C(jq=1.6-2.1)), C(*) or C(?) as a pattern, C(/) as a release, a blank splits the name.
  - Entries that are not strings (a number, a mapping, null) are not package names and are returned as they are.
  - This is the collection's C(package) input rule (docs/input-rules.md), the one the rdma role's
    C(rdma_packages_extra) and the dpkg_installed filter use.
positional: _input
options:
  _input:
    description: The package names, as the user gave them (for example C(dcgm_packages_extra)).
    type: list
    elements: raw
    required: true
"""

EXAMPLES = r"""
- name: Preflight | Check the extra packages are package names
  ansible.builtin.assert:
    that: __bad | length == 0
    fail_msg: >-
      dcgm_packages_extra holds {{ __bad | map('to_json') | join(', ') }}: each entry must be a Debian package name
      (lower-case letters, digits, '+', '-' and '.', starting with a letter or digit), with no version, option or space.
    quiet: true
  vars:
    __bad: "{{ dcgm_packages_extra | gpufleet.cluster.invalid_package_names }}"

- name: The entries refused, in order
  ansible.builtin.debug:
    msg: "{{ ['libnvidia-ml1', '--admindir=/tmp/x', 'g++', 'jq=1.6-2.1', 'foo*', 12] | gpufleet.cluster.invalid_package_names }}"
  # ['--admindir=/tmp/x', 'jq=1.6-2.1', 'foo*', 12]
"""

RETURN = r"""
_value:
  description: The entries that are not Debian package names, as given and in the input's order; empty when all are.
  type: list
  elements: raw
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("invalid_package_names")
def invalid_package_names(names):
    """The entries of ``names`` that are not Debian package names (input_rules' ``package`` kind)."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.common.input_rules import invalid_entries
    return invalid_entries("package", names, what="package names")


class FilterModule:
    def filters(self):
        return {"invalid_package_names": invalid_package_names}
