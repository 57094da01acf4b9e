# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A block of lines between two marker lines inside a file that holds other lines too (what
``ansible.builtin.blockinfile`` does), computed on text so that the config_files module can compare and write it
with every other file of its one call.

The block is found by its marker lines (``marker`` with ``{mark}`` replaced by ``begin`` and ``end``), compared
whole, line by line; every other line of the file is kept as it is. A block not there yet is added at the end of
the file; an empty block removes the block and its markers. A file with a begin marker and no end marker after it
(or the other way round, or a marker twice) is refused, never guessed at: rewriting it could cut lines that are not
the block's.
"""
from __future__ import annotations

from typing import List, Optional

__all__ = ["MarkedBlockError", "marker_lines", "with_block", "block_of", "DEFAULT_MARKER"]

DEFAULT_MARKER = "# {mark} ANSIBLE MANAGED BLOCK"


class MarkedBlockError(ValueError):
    """A marker that cannot delimit a block, or a file whose markers do not pair up."""


def marker_lines(marker: str, begin: str = "BEGIN", end: str = "END") -> List[str]:
    """The begin and end lines of the block; the marker must hold ``{mark}`` once and be one line, and the two lines
    must differ."""
    for where, text in (("marker", marker), ("marker_begin", begin), ("marker_end", end)):
        if not isinstance(text, str) or any(char in text for char in "\r\n"):
            raise MarkedBlockError("%s must be one line of text, got %r" % (where, text))
    if marker.count("{mark}") != 1:
        raise MarkedBlockError("marker must hold {mark} once (where BEGIN and END go), got %r" % marker)
    lines = [marker.replace("{mark}", begin), marker.replace("{mark}", end)]
    if lines[0] == lines[1] or not lines[0].strip():
        raise MarkedBlockError("marker_begin and marker_end must give two different, non-blank lines, got %r and %r"
                               % tuple(lines))
    return lines


def _lines(text: str) -> List[str]:
    """The lines of text split at newlines only (str.splitlines would split at form feeds and other separators too,
    and so change what it puts back); a last newline ends the last line, it does not start another."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def with_block(current: Optional[str], block: str, marker: str = DEFAULT_MARKER, begin: str = "BEGIN",
               end: str = "END") -> str:
    """The file's text with its marked block holding block's lines (current is None for a file that does not exist).
    The result ends with a newline when it holds any line."""
    first, last = marker_lines(marker, begin, end)
    lines = _lines(current or "")
    starts = [index for index, line in enumerate(lines) if line == first]
    ends = [index for index, line in enumerate(lines) if line == last]
    new = [first] + _lines(block) + [last] if block else []
    if not starts and not ends:
        result = lines + new
    elif len(starts) == 1 and len(ends) == 1 and starts[0] < ends[0]:
        result = lines[:starts[0]] + new + lines[ends[0] + 1:]
    else:
        raise MarkedBlockError("the file's markers do not pair up: %r on line(s) %s, %r on line(s) %s; one begin "
                               "line before one end line is expected (mend the file by hand)"
                               % (first, [n + 1 for n in starts] or "none", last, [n + 1 for n in ends] or "none"))
    return "".join(line + "\n" for line in result)


def block_of(current: Optional[str], marker: str = DEFAULT_MARKER, begin: str = "BEGIN",
             end: str = "END") -> Optional[str]:
    """The lines between the file's markers joined by newlines (no newline after the last), what with_block was
    given for them up to a last newline; None when the file (None) or its markers are not there, or do not pair up
    (with_block refuses such a file, so a caller that finds None and writes learns why)."""
    first, last = marker_lines(marker, begin, end)
    lines = _lines(current or "")
    starts = [index for index, line in enumerate(lines) if line == first]
    ends = [index for index, line in enumerate(lines) if line == last]
    if len(starts) != 1 or len(ends) != 1 or starts[0] > ends[0]:
        return None
    return "\n".join(lines[starts[0] + 1:ends[0]])
