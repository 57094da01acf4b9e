# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
module: munge_key
version_added: 0.1.0
short_description: Create, distribute and check the MUNGE key of a Slurm cluster
description:
  - Manages the key file munged authenticates every Slurm message with. The key is binary (MUNGE accepts
    32 to 1024 bytes), so it travels base64-encoded in O(content_b64) and is written byte for byte.
  - With O(generate=true) and no O(content_b64), keeps an existing key that munged accepts, whatever its size
    (the 128-byte key C(mungekey) writes by default is kept as the 1024-byte one is), and creates O(size) random
    bytes (C(os.urandom)) only where there is no key munged would accept, or with O(rotate=true). Return it with
    O(return_content=true) to hand it to the other nodes (always with C(no_log)); in check mode RV(content_b64) is
    the key that would be written, so a role can make a key on one host and write it everywhere itself.
  - Without either, only checks the key and fails when munged would refuse it.
  - The key's bytes never appear in the diff or the results (unless O(return_content=true)); its SHA-256
    fingerprint does, so nodes sharing a key can be compared in logs.
options:
  path:
    description: The key file, an absolute path with no C(.) or C(..) part, blank or control character.
    type: path
    default: /etc/munge/munge.key
  content_b64:
    description: The key's bytes, base64-encoded (for example the RV(content_b64) of the node that generated it).
    type: str
  generate:
    description: Create a key where none valid exists. Ignored when O(content_b64) is given.
    type: bool
    default: false
  rotate:
    description:
      - With O(generate=true), make a new key even when a valid one exists (a key rotation). Every node then needs
        the new key and a restart of its munged; the caller must make sure all of them get it.
    type: bool
    default: false
  size:
    description: Bytes of a generated key.
    type: int
    default: 1024
  owner:
    description: Owner of the key file.
    type: str
    default: munge
  group:
    description: Group of the key file.
    type: str
    default: munge
  mode:
    description:
      - Permissions of the key file, an octal string; munged refuses a key that group or others can access, so only
        C('0400') and C('0600') are accepted.
    type: str
    default: '0400'
  return_content:
    description: Return the key base64-encoded in RV(content_b64). Use C(no_log) on the task.
    type: bool
    default: false
attributes:
  check_mode:
    description: Reports what would change (a new key, a replaced key, owner or mode) without writing.
  diff_mode:
    description: Shows the key's fingerprint, size, mode and owner before and after; never its bytes.
extends_documentation_fragment:
  - gpufleet.cluster.attributes
author:
  - gpufleet.cluster contributors (@gpufleet)
"""

EXAMPLES = r"""
- name: Keep the cluster's key on the first controller, creating it once
  gpufleet.cluster.munge_key:
    generate: true
    return_content: true
  register: munge_key
  no_log: true

- name: Give every other node the same key
  gpufleet.cluster.munge_key:
    content_b64: "{{ hostvars[groups['slurm_controller'][0]]['munge_key']['content_b64'] }}"
  no_log: true

- name: Work out a new key on the first controller without writing it (a rotation), to write it on every node
  gpufleet.cluster.munge_key:
    generate: true
    rotate: true
    return_content: true
  check_mode: true
  register: new_munge_key
  no_log: true
"""

RETURN = r"""
sha256:
  description: SHA-256 fingerprint of the key now in place (or that would be, in check mode).
  returned: always
  type: str
size:
  description: Length of the key in bytes.
  returned: always
  type: int
generated:
  description: Whether a new key was created.
  returned: always
  type: bool
previous_sha256:
  description: SHA-256 fingerprint of the key file found before the task, or null when there was none.
  returned: always
  type: str
previous_valid:
  description: Whether the key file found before the task had a size munged accepts (32 to 1024 bytes).
  returned: always
  type: bool
content_b64:
  description: The key, base64-encoded (in check mode, the key that would be written).
  returned: when O(return_content=true)
  type: str
"""

import base64
import os
import re

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.file_rules import (
    FileRuleError,
    absolute_path,
    account,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.final_mode_write import (
    account_id,
    write_with_final_mode,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.munge_key import (
    KEY_MAX_BYTES,
    KEY_MIN_BYTES,
    MungeKeyError,
    check_length,
    decode_key,
    describe,
    fingerprint,
    key_file_problems,
    new_key,
)

ARGUMENT_SPEC = {
    "path": {"type": "path", "default": "/etc/munge/munge.key"},
    "content_b64": {"type": "str", "no_log": True},
    "generate": {"type": "bool", "default": False},
    "rotate": {"type": "bool", "default": False},
    "size": {"type": "int", "default": 1024},
    "owner": {"type": "str", "default": "munge"},
    "group": {"type": "str", "default": "munge"},
    "mode": {"type": "str", "default": "0400"},
    "return_content": {"type": "bool", "default": False},
}


def _summary(info):
    if info is None:
        return "(no key)\n"
    return f"sha256={info['sha256']} size={info['size']} mode={info['mode']} uid={info['uid']} gid={info['gid']}\n"


def check_params(module: AnsibleModule) -> None:
    """Refuse a path, owner, group or mode munged (or this module) should never get, before anything is read."""
    params = module.params
    try:
        absolute_path("path", params["path"])
        account("owner", params["owner"])
        account("group", params["group"])
        if not isinstance(params["mode"], str) or not re.fullmatch(r"0?[0-7]{3}|[0-7]{4}", params["mode"]):
            raise FileRuleError("mode: %r is not allowed; expected an octal mode such as '0400'" % (params["mode"],))
        bits = int(params["mode"], 8)
        if bits & 0o077 or not bits & 0o400:
            raise FileRuleError("mode: %r is not allowed; munged refuses a key that group or others can access and "
                                "must read it, so expected '0400' or '0600'" % (params["mode"],))
    except FileRuleError as exc:
        module.fail_json(msg=f"munge_key: refusing to manage {params['path']!r}: {exc}")


def run_module(module: AnsibleModule) -> dict:
    params = module.params
    check_params(module)
    path = params["path"]
    current = None
    if os.path.exists(path):
        try:
            with open(path, "rb") as fh:
                current = fh.read(KEY_MAX_BYTES + 1)
        except OSError as exc:
            module.fail_json(msg=f"reading the munge key {path} failed: {exc}")
    current_ok = current is not None and KEY_MIN_BYTES <= len(current) <= KEY_MAX_BYTES

    generated = False
    try:
        if params["content_b64"]:
            wanted = decode_key(params["content_b64"])
        elif params["generate"]:
            check_length(params["size"])
            if current_ok and not params["rotate"]:
                wanted = current  # any size munged accepts: a valid key is replaced only on a rotation
            else:
                wanted = new_key(params["size"])
                generated = True
        elif current_ok:
            wanted = current
        else:
            why = "; ".join(key_file_problems(path))
            module.fail_json(msg=f"checking the munge key {path}: munged would refuse it: {why}; "
                                 "give content_b64 or generate: true")
    except MungeKeyError as exc:
        module.fail_json(msg=f"setting the munge key {path}: {exc}")

    before = describe(path)
    changed = wanted != current
    if changed and not module.check_mode:
        # The key has its owner, group and mode before its first byte and is renamed into place (atomic_move would
        # give a new key file the umask's 0644 for a moment before the mode is set).
        try:
            write_with_final_mode(path, wanted, int(params["mode"], 8), account_id(params["owner"], "user"),
                                  account_id(params["group"], "group"), prefix=".munge.key.")
        except OSError as exc:
            module.fail_json(msg=f"writing the munge key {path} failed: {exc}")
    file_args = module.load_file_common_arguments(params)
    file_args["path"] = path
    if os.path.exists(path):  # in check mode a key not yet written has no attributes to compare
        changed = module.set_fs_attributes_if_different(file_args, changed)
    if module.check_mode:
        after = {"sha256": fingerprint(wanted), "size": len(wanted), "mode": params["mode"],
                 "uid": params["owner"], "gid": params["group"]}
    else:
        after = describe(path)
    result = {
        "changed": changed,
        "sha256": fingerprint(wanted),
        "size": len(wanted),
        "generated": generated,
        "previous_sha256": fingerprint(current) if current is not None else None,
        "previous_valid": current_ok,
        "diff": {"before": _summary(before), "after": _summary(after)},
    }
    if params["return_content"]:
        result["content_b64"] = base64.b64encode(wanted).decode("ascii")
    return result


def main() -> None:
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    try:
        result = run_module(module)
    except (OSError, MungeKeyError) as exc:
        module.fail_json(msg=f"munge_key: managing the key file {module.params['path']} failed: {exc}")
    module.exit_json(**result)


if __name__ == "__main__":
    main()
