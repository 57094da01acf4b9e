# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Write a file so that it is never, not even for a moment, readable by more than its final mode allows.

Ansible's ``atomic_move`` (behind ``copy``, ``template`` and most modules that write files) renames a new file into
place with the umask's mode (0644) and changes it afterwards: for that moment a key or a password file is readable
by every local user. Here the content goes to a temporary file beside the destination that ``mkstemp`` creates
with ``O_CREAT|O_EXCL`` and mode 0600, which gets its final owner, group and mode (``fchown``, ``fchmod``) before
its first byte, and is then renamed over the destination (one ``rename``: a reader sees the old file or the new).
"""
from __future__ import annotations

import grp
import os
import pwd
import tempfile
from typing import Optional

__all__ = ["account_id", "write_with_final_mode"]


def account_id(name: Optional[str], kind: str) -> Optional[int]:
    """The id of the user or group (kind) name, a number as itself, None for None.

    Raises OSError naming the account when this node has no such user or group.
    """
    if name is None:
        return None
    if name.isdigit():
        return int(name)
    try:
        return pwd.getpwnam(name).pw_uid if kind == "user" else grp.getgrnam(name).gr_gid
    except KeyError:
        raise OSError("there is no %s %r on this node" % (kind, name)) from None


def write_with_final_mode(dest: str, data: bytes, mode: int, uid: int, gid: int, prefix: str = ".ansible_tmp") -> None:
    """Replace dest with data, owned uid:gid with the permission bits mode from before the first byte is written.

    Raises OSError (the temporary file removed) when any step fails; dest is then left as it was.
    """
    fd, tmp = tempfile.mkstemp(prefix=prefix, dir=os.path.dirname(dest) or ".")
    try:
        try:
            info = os.fstat(fd)
            if (info.st_uid, info.st_gid) != (uid, gid):
                os.fchown(fd, uid, gid)
            os.fchmod(fd, mode)  # after fchown, which clears set-user-ID and set-group-ID bits
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, dest)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
