# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What node_state says of a path (type, owner, group, mode, a regular file's SHA-256), of a file holding a secret
(whether it has the SHA-256 given, never its own), and of a marked block in a file (the SHA-256 of its lines)."""
from __future__ import annotations

import grp
import hashlib
import hmac
import os
import pwd
import stat
from typing import Any, Dict, Optional

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.marked_blocks import block_of

__all__ = ["block_state", "path_state", "read_text", "secret_state", "sha256_of"]


def sha256_of(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def read_text(path: str) -> Optional[str]:
    """A UTF-8 file's text, or None when it does not exist (any other failure raises)."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def path_state(path: str, digest: bool = True) -> Dict[str, Any]:
    """Type, owner, group and mode of a path (symbolic links followed); with digest, a regular file's SHA-256."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return {"exists": False, "isdir": False}
    try:
        owner = pwd.getpwuid(info.st_uid).pw_name
    except KeyError:
        owner = str(info.st_uid)
    try:
        group = grp.getgrgid(info.st_gid).gr_name
    except KeyError:
        group = str(info.st_gid)
    state = {"exists": True, "isdir": stat.S_ISDIR(info.st_mode), "owner": owner, "group": group,
             "mode": "%04o" % stat.S_IMODE(info.st_mode)}
    if digest and stat.S_ISREG(info.st_mode):
        state["sha256"] = sha256_of(path)
    return state


def secret_state(path: str, sha256: str) -> Dict[str, Any]:
    """What path_state says of a file holding a secret, with whether its content has the SHA-256 given instead of
    the hash itself."""
    state = path_state(path, digest=False)
    is_file = state["exists"] and stat.S_ISREG(os.stat(path).st_mode)
    state["matches"] = bool(is_file and hmac.compare_digest(sha256_of(path), sha256))
    return state


def block_state(entry: Dict[str, Any]) -> Dict[str, Any]:
    """Whether the file holds the marked block, and the SHA-256 of its lines."""
    text = read_text(entry["path"])
    found = block_of(text, entry["marker"], entry["marker_begin"], entry["marker_end"])
    state: Dict[str, Any] = {"exists": text is not None, "found": found is not None}
    if found is not None:
        state["sha256"] = hashlib.sha256(found.encode("utf-8")).hexdigest()
    return state
