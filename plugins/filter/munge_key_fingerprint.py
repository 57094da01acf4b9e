# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: munge_key_fingerprint
version_added: 0.1.0
short_description: The SHA-256 of a munge key given base64-encoded (from a vault or a credential)
description:
  - Decodes the key as C(gpufleet.cluster.munge_key) does (base64, blanks and newlines ignored) and returns the
    SHA-256 of its bytes, the fingerprint C(munge_key) and C(node_state) report for a key file, so a role can tell
    whether a node already has the key without writing it.
  - Refuses, naming the variable, what munged would refuse (not base64, fewer than 32 or more than 1024 bytes). The
    message never shows the key.
positional: _input
options:
  _input:
    description: The key's bytes, base64-encoded.
    type: str
    required: true
  variable:
    description: The name of the variable that holds the key, for the messages.
    type: str
    default: the munge key
"""

EXAMPLES = r"""
- name: Skip the write where the node has the key already
  gpufleet.cluster.munge_key:
    path: /etc/munge/munge.key
    content_b64: "{{ slurm_munge_key }}"
  when: node.paths['/etc/munge/munge.key'].sha256 != slurm_munge_key | gpufleet.cluster.munge_key_fingerprint('slurm_munge_key')
  no_log: true
"""

RETURN = r"""
_value:
  description: The SHA-256 of the key's bytes, 64 lower-case hex digits.
  type: str
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import FilterInputError, collection_filter

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("munge_key_fingerprint")
def munge_key_fingerprint(content_b64, variable="the munge key"):
    """SHA-256 of the key's bytes; refused (naming ``variable``, never showing the key) when munged would refuse it."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.munge_key import (
        MungeKeyError, decode_key, fingerprint,
    )
    name = variable if isinstance(variable, str) and variable else "the munge key"
    if not isinstance(content_b64, str):  # its type only: the value is a secret
        raise FilterInputError("%s must be the key's bytes base64-encoded (a string), got a value of type %s"
                               % (name, type(content_b64).__name__))
    try:
        return fingerprint(decode_key(content_b64))
    except MungeKeyError as exc:
        raise FilterInputError("%s: %s" % (name, exc)) from None


class FilterModule:
    def filters(self):
        return {"munge_key_fingerprint": munge_key_fingerprint}
