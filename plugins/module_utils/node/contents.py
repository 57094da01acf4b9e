# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The content of small files (a kernel table under /proc, a one-line setting, a drop-in) read in node_state's one
call, in place of an ``ansible.builtin.slurp`` task per file. Never for a file holding a secret: the content is in
the result, and so in the log (node_state's ``secrets`` compares such a file without returning it).
"""
from __future__ import annotations

import base64
import glob
import os
import stat
from typing import Any, Dict, List

__all__ = ["ContentError", "DEFAULT_LIMIT", "read_content", "read_glob_contents"]

#: The most bytes a file read for its content may hold by default (64 KiB).
DEFAULT_LIMIT = 65536


class ContentError(ValueError):
    """A file too large to return, or one that is not a regular file."""


def read_content(path: str, limit: int) -> Dict[str, Any]:
    """A file's content: ``exists``, ``size`` (bytes read) and ``content`` - text when it is UTF-8 (``encoding``
    ``text``), else base64 (``encoding`` ``base64``). A file over limit bytes is refused, never cut: /proc files
    say they hold 0 bytes, so the bytes read are counted, not the size stat gives."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return {"exists": False}
    if stat.S_ISDIR(info.st_mode):
        raise ContentError("%s is a directory, not a file to read" % path)
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise ContentError("%s holds more than %d bytes (contents_limit); node_state returns only small files"
                           % (path, limit))
    try:
        return {"exists": True, "size": len(data), "encoding": "text", "content": data.decode("utf-8")}
    except UnicodeDecodeError:
        return {"exists": True, "size": len(data), "encoding": "base64", "content": base64.b64encode(data).decode()}


def read_glob_contents(patterns: List[str], limit: int) -> Dict[str, Dict[str, Dict[str, Any]]]:
    """Each pattern's matches (sorted), each with its content as read_content gives it. A pattern that matches
    nothing has no entries (not an error); a match that cannot be read raises (OSError, ContentError)."""
    return {pattern: {path: read_content(path, limit) for path in sorted(glob.glob(pattern))} for pattern in patterns}
