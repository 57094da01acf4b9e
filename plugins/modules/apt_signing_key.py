# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
module: apt_signing_key
version_added: 0.1.0
short_description: Install an apt repository's signing key only when gpg finds it is the pinned key
description:
  - Takes a repository signing key - a URL, a file on the target, or the ASCII-armoured text - and lists what it
    holds with C(gpg --show-keys --with-colons), in a scratch home directory (no keyring of the target is read or
    written).
  - The key is installed into O(dest_dir) only when it holds at least one primary key, every primary key in it is
    one of O(fingerprints) (full fingerprints, 40 hex digits), and none is revoked or expired. Otherwise the task
    fails, names O(variable), and installs nothing (an existing key file is left as it is).
  - The file is C(<dest_dir>/<name>.asc) for an armoured key and C(<dest_dir>/<name>.gpg) for a binary one, as apt
    tells them apart by name; the other of the two is removed. Point the source's C(Signed-By) at RV(dest).
  - Needs C(gpg) on the target (Debian and Ubuntu package C(gpg)). In check mode on a target without it the key is
    fetched but not checked, and the task says so (a real run fails there).
author:
  - gpufleet.cluster contributors (@gpufleet)
options:
  key:
    description:
      - The key - an C(https://), C(http://) or C(file://) URL (fetched by the target), an absolute path on the
        target, or the ASCII-armoured key itself (C(-----BEGIN PGP PUBLIC KEY BLOCK-----)).
      - A key fetched over plain HTTP is as safe as one over HTTPS here, since the fingerprint decides.
    type: str
    required: true
  fingerprints:
    description:
      - The full fingerprints of the keys the repository may be signed with (C(gpg --show-keys) prints them;
        blanks between groups are allowed). Every primary key in the file must be one of them.
    type: list
    elements: str
    required: true
  name:
    description: The key file's name without extension (letters, digits, C(.), C(_), C(-)).
    type: str
    required: true
  dest_dir:
    description: Where the key file is written (root-owned, mode 0644).
    type: path
    default: /etc/apt/keyrings
  variable:
    description: The inventory variable that gave the key, named in every refusal.
    type: str
    default: key
  timeout:
    description: Seconds to wait for a key given as a URL.
    type: int
    default: 30
attributes:
  check_mode:
    description: Fetches and checks the key, and reports whether the key file would change, writing nothing.
  diff_mode:
    description: The key file before and after.
extends_documentation_fragment:
  - gpufleet.cluster.attributes
"""

EXAMPLES = r"""
- name: Install the DOCA repository key, pinned
  gpufleet.cluster.apt_signing_key:
    key: https://linux.mellanox.com/public/repo/doca/GPG-KEY-Mellanox.pub
    fingerprints: ["2A4E 7A0B 3C0D 8C89 4A4E  8FAF A2F5 2B57 5D0E 8CFA"]  # example: pin the vendor's published one
    name: gpufleet-doca
    variable: rdma_repository_key
  register: doca_key

- name: Add the repository, trusted with that key only
  ansible.builtin.deb822_repository:
    name: gpufleet-doca
    uris: [https://linux.mellanox.com/public/repo/doca/3.2.1/debian12/x86_64/]
    suites: [./]
    signed_by: "{{ doca_key.dest }}"
"""

RETURN = r"""
dest:
  description: The key file (C(.asc) or C(.gpg)); what C(Signed-By) names.
  returned: always
  type: str
  sample: /etc/apt/keyrings/gpufleet-doca.asc
verified:
  description: Whether gpg checked the key (false only in check mode on a target without gpg).
  returned: always
  type: bool
keys:
  description: The primary keys in the file, as gpg lists them.
  returned: when verified
  type: list
  elements: dict
  contains:
    fingerprint:
      description: The full fingerprint.
      type: str
    key_id:
      description: The long key ID.
      type: str
    validity:
      description: gpg's validity field (C(-) unknown, C(r) revoked, C(e) expired).
      type: str
    uids:
      description: The user IDs.
      type: list
      elements: str
    subkeys:
      description: The subkeys' fingerprints.
      type: list
      elements: str
"""

import os
import re
import shutil
import tempfile
from typing import Any, Dict, List, Optional

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_bytes, to_native, to_text
from ansible.module_utils.urls import fetch_url
from ansible_collections.gpufleet.cluster.plugins.module_utils.apt.keys import (
    AptKeyError,
    check_pinned,
    is_armoured,
    parse_colons,
    pinned_fingerprints,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.commands import CommandRunner

ARGUMENT_SPEC: Dict[str, Any] = {
    "key": {"type": "str", "required": True, "no_log": False},
    "fingerprints": {"type": "list", "elements": "str", "required": True},
    "name": {"type": "str", "required": True},
    "dest_dir": {"type": "path", "default": "/etc/apt/keyrings"},
    "variable": {"type": "str", "default": "key"},
    "timeout": {"type": "int", "default": 30},
}
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
URL_RE = re.compile(r"(https?|file)://\S+")
MAX_KEY_BYTES = 1 << 20


def describe_key(key: str) -> str:
    """How the key is named in messages: its URL or path, or 'the armoured text'."""
    return key if URL_RE.fullmatch(key) or key.startswith("/") else "the armoured key text"


def read_key(module: AnsibleModule, key: str, variable: str) -> bytes:
    """The key's bytes, from its URL, its path on the target, or the text itself."""
    if key.lstrip().startswith("-----BEGIN PGP"):
        return to_bytes(key.strip() + "\n")
    if key.startswith("/"):
        try:
            with open(key, "rb") as handle:
                return handle.read(MAX_KEY_BYTES + 1)
        except OSError as err:
            module.fail_json(msg=f"apt_signing_key: {variable}: reading the key file {key} failed: {to_native(err)}")
    if not URL_RE.fullmatch(key):
        module.fail_json(msg=f"apt_signing_key: {variable} must be an https://, http:// or file:// URL, an absolute "
                             "path on the node, or the ASCII-armoured key (-----BEGIN PGP PUBLIC KEY BLOCK-----), "
                             f"got {key[:80]!r}")
    response, info = fetch_url(module, key, timeout=module.params["timeout"])
    if response is None or (not key.startswith("file://") and info.get("status") != 200):
        module.fail_json(msg=f"apt_signing_key: {variable}: fetching {key} failed: HTTP {info.get('status')} "
                             f"{info.get('msg', '')}; nothing was installed")
    return response.read(MAX_KEY_BYTES + 1)


def list_keys(module: AnsibleModule, gpg: str, data: bytes, variable: str, what: str) -> List[Any]:
    """gpg's listing of the key, from a scratch home directory, parsed."""
    scratch = tempfile.mkdtemp(prefix="gpufleet-key-")
    try:
        os.chmod(scratch, 0o700)
        path = os.path.join(scratch, "key")
        with open(path, "wb") as handle:
            handle.write(data)
        rc, out, err = CommandRunner(module).run(
            [gpg, "--batch", "--no-tty", "--no-default-keyring", "--homedir", scratch, "--show-keys",
             "--with-colons", "--with-fingerprint", path])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if rc != 0:
        module.fail_json(msg=f"apt_signing_key: {variable}: gpg cannot read {what} as an OpenPGP public key "
                             f"(rc {rc}: {err.strip()}); nothing was installed")
    return parse_colons(out)


def read_current(path: str) -> Optional[bytes]:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def install(module: AnsibleModule, dest: str, other: str, data: bytes, diff: Dict[str, str]) -> bool:
    """Write the key file (atomically, 0644) and remove the other extension's; whether anything changed."""
    have = read_current(dest)
    changed = have != data or os.path.exists(other)
    if have != data:
        diff.update({"before_header": dest if have is not None else f"{dest} (absent)", "after_header": dest,
                     "before": to_text(have or b"", errors="surrogate_or_replace"),
                     "after": to_text(data, errors="surrogate_or_replace") if is_armoured(data)
                     else "(binary key, %d bytes)\n" % len(data)})
    if module.check_mode:
        return changed
    try:
        if have != data:
            os.makedirs(os.path.dirname(dest), mode=0o755, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".ansible_tmp", dir=os.path.dirname(dest))
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(data)
                os.chmod(tmp, 0o644)
                module.atomic_move(tmp, dest, unsafe_writes=False)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
        if os.path.exists(other):
            os.unlink(other)
        args = module.load_file_common_arguments({"path": dest, "mode": "0644"})
        changed = module.set_fs_attributes_if_different(args, changed)
    except OSError as err:
        module.fail_json(msg=f"apt_signing_key: writing {dest} failed: {to_native(err)}")
    return changed


def main() -> None:
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    params = module.params
    variable = params["variable"]
    if not NAME_RE.fullmatch(params["name"]):
        module.fail_json(msg=f"apt_signing_key: name must be letters, digits, '.', '_' and '-' (a file name), "
                             f"got {params['name'][:80]!r}")
    try:
        pinned = pinned_fingerprints(f"{variable} fingerprints", params["fingerprints"])
    except AptKeyError as err:
        module.fail_json(msg=f"apt_signing_key: {err}")
    what = f"{variable} ({describe_key(params['key'])})"
    data = read_key(module, params["key"], variable)
    if len(data) > MAX_KEY_BYTES:
        module.fail_json(msg=f"apt_signing_key: {what} is over {MAX_KEY_BYTES} bytes, not a key; nothing was installed")
    extension, other_extension = (".asc", ".gpg") if is_armoured(data) else (".gpg", ".asc")
    dest = os.path.join(params["dest_dir"], params["name"] + extension)
    other = os.path.join(params["dest_dir"], params["name"] + other_extension)
    gpg = CommandRunner(module).which("gpg")
    result: Dict[str, Any] = {"dest": dest, "verified": gpg is not None}
    if gpg is None:
        if not module.check_mode:
            module.fail_json(msg=f"apt_signing_key: gpg is not installed on this node, so {what} cannot be checked "
                                 "against its pinned fingerprint; install the gpg package first. Nothing was "
                                 "installed.", **result)
        module.warn(f"{what} was not checked: gpg is not installed yet (a real run installs it first)")
        module.exit_json(changed=True, **result)
    try:
        keys = check_pinned(list_keys(module, gpg, data, variable, what), pinned, what)
    except AptKeyError as err:
        module.fail_json(msg=f"apt_signing_key: {err}", **result)
    diff: Dict[str, str] = {}
    changed = install(module, dest, other, data, diff)
    result["keys"] = [key.as_dict() for key in keys]
    module.exit_json(changed=changed, diff=diff if diff else {}, **result)


if __name__ == "__main__":
    main()
