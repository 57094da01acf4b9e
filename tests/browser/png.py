# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A minimal PNG reader (stdlib only) for the browser check: 8-bit greyscale, RGB or RGBA, not interlaced, which is
what Chromium's --screenshot writes. Enough to tell a rendered page from a blank one."""

from __future__ import annotations

import struct
import zlib
from typing import List, Tuple

SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}  # colour type -> samples per pixel


class PngError(ValueError):
    """The file is not a PNG this reader understands."""


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def read_png(data: bytes) -> Tuple[int, int, int, List[bytearray]]:
    """(width, height, channels, rows of unfiltered bytes)."""
    if data[:8] != SIGNATURE:
        raise PngError("not a PNG: the signature is %r" % data[:8])
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + length
    if header is None:
        raise PngError("no IHDR chunk")
    width, height, depth, colour, _comp, _filter, interlace = header
    if depth != 8 or colour not in CHANNELS or interlace:
        raise PngError("unsupported PNG: bit depth %d, colour type %d, interlace %d" % (depth, colour, interlace))
    bpp = CHANNELS[colour]
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    rows: List[bytearray] = []
    prev = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        ftype, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if ftype == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif ftype == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 0xFF
        elif ftype == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif ftype == 4:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                up_left = prev[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + _paeth(left, prev[i], up_left)) & 0xFF
        elif ftype != 0:
            raise PngError("row %d has unknown filter type %d" % (y, ftype))
        rows.append(line)
        prev = line
    return width, height, bpp, rows


def pixel_stats(data: bytes) -> Tuple[int, int, float, float]:
    """(width, height, ink, colour): the shares of pixels that are not near white (any text or drawing) and that
    are clearly coloured (channels more than 60 apart: the bars and boxes of the drawings). A blank page is 0, 0."""
    width, height, bpp, rows = read_png(data)
    inked = coloured = 0
    for row in rows:
        for x in range(0, width * bpp, bpp):
            pixel = row[x:x + min(bpp, 3)]
            low = min(pixel)
            if low < 240:
                inked += 1
                if bpp >= 3 and max(pixel) - low > 60:
                    coloured += 1
    total = float(width * height)
    return width, height, inked / total, coloured / total


def write_png(width: int, rows: List[bytes]) -> bytes:
    """RGB rows (3 bytes per pixel) as a PNG, unfiltered (tests, and crops of a screenshot to look at)."""
    raw = b"".join(b"\x00" + bytes(r) for r in rows)

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, len(rows), 8, 2, 0, 0, 0)
    return SIGNATURE + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")
