# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""MUNGE keys: what munged accepts, and how one key file compares with the wanted one.

Limits follow MUNGE's src/libcommon/munge_defs.h (MUNGE_KEY_LEN_MIN_BYTES = 32,
MUNGE_KEY_LEN_MAX_BYTES = 1024); munged refuses a key readable or writable by group or others.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import os
import stat
from typing import Dict, List, Optional

KEY_MIN_BYTES = 32
KEY_MAX_BYTES = 1024


class MungeKeyError(ValueError):
    """A key that munged would refuse, or input that cannot become a key."""


def decode_key(content_b64: str) -> bytes:
    """The key bytes of a base64 string; refuses what munged would refuse."""
    try:
        key = base64.b64decode("".join(content_b64.split()), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise MungeKeyError(
            f"the munge key is not valid base64 ({exc}); give the key file's bytes base64-encoded") from exc
    check_length(len(key))
    return key


def check_length(size: int) -> None:
    if not KEY_MIN_BYTES <= size <= KEY_MAX_BYTES:
        raise MungeKeyError(
            f"a munge key of {size} bytes is outside what munged accepts ({KEY_MIN_BYTES} to {KEY_MAX_BYTES} bytes); "
            f"generate a new one (1024 random bytes)")


def new_key(size: int = KEY_MAX_BYTES) -> bytes:
    check_length(size)
    return os.urandom(size)


def fingerprint(key: bytes) -> str:
    """A SHA-256 of the key: safe to log, the same on every node that shares the key."""
    return hashlib.sha256(key).hexdigest()


def key_file_problems(path: str) -> List[str]:
    """Why munged would refuse the key file at path (empty when it would accept it)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return [f"{path} does not exist"]
    problems = []
    if not stat.S_ISREG(info.st_mode):
        problems.append(f"{path} is not a regular file")
        return problems
    if info.st_mode & 0o077:
        problems.append(
            f"{path} has mode {stat.S_IMODE(info.st_mode):04o}: munged refuses a key group or others can access")
    if not KEY_MIN_BYTES <= info.st_size <= KEY_MAX_BYTES:
        problems.append(f"{path} holds {info.st_size} bytes, outside {KEY_MIN_BYTES}..{KEY_MAX_BYTES}")
    return problems


def describe(path: str) -> Optional[Dict[str, object]]:
    """What diff mode shows of a key file: never its bytes."""
    try:
        with open(path, "rb") as fh:
            key = fh.read(KEY_MAX_BYTES + 1)
        info = os.stat(path)
    except FileNotFoundError:
        return None
    return {"sha256": fingerprint(key), "size": len(key), "mode": f"{stat.S_IMODE(info.st_mode):04o}",
            "uid": info.st_uid, "gid": info.st_gid}
