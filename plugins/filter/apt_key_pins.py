# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: apt_key_pins
version_added: 0.1.0
short_description: Check a third-party apt source has its signing key and pinned fingerprints
description:
  - For a role's preflight, before any change - refuses a third-party repository without its signing key
    (C(Signed-By)), and pinned fingerprints that are missing or not full fingerprints (40 hex digits, or 64 for a
    v5/v6 key; a key ID names no key). Each refusal names the inventory variable.
  - Returns the fingerprints normalised (upper case, no blanks) for gpufleet.cluster.apt_signing_key, which
    checks the key itself with gpg when it installs it.
positional: _input, fingerprints_variable
options:
  _input:
    description: The pinned fingerprints (as gpg prints them, blanks between groups allowed).
    type: list
    elements: str
    required: true
  fingerprints_variable:
    description: The variable that holds them, named in a refusal.
    type: str
    required: true
  key:
    description: The repository's signing key - its URL, a path on the node, or the ASCII-armoured key.
    type: str
    required: true
  key_variable:
    description: The variable that holds the key, named in a refusal.
    type: str
    required: true
"""

EXAMPLES = r"""
- name: Preflight | Check the Slurm repository's key and its pinned fingerprint
  ansible.builtin.set_fact:
    __slurm_key_pins: >-
      {{ slurm_repository.fingerprints | default([]) | gpufleet.cluster.apt_key_pins('slurm_repository.fingerprints',
           key=slurm_repository.signed_by | default(''), key_variable='slurm_repository.signed_by') }}
  # ["EB693B3035CD5710E231E123A4B469963BF863CC"]
"""

RETURN = r"""
_value:
  description: The fingerprints, upper case without blanks, each once.
  type: list
  elements: str
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, of_type

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("apt_key_pins")
def apt_key_pins(fingerprints, fingerprints_variable, key=None, key_variable=None):
    """The pinned fingerprints of a third-party source, normalised; refused without its key or full fingerprints."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.apt.keys import check_trust
    of_type("fingerprints_variable", fingerprints_variable, str, "a variable name")
    of_type("key_variable", key_variable, str, "a variable name")
    return check_trust(key_variable, key, fingerprints_variable, fingerprints)


class FilterModule:
    def filters(self):
        return {"apt_key_pins": apt_key_pins}
