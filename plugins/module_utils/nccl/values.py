# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""NCCL topology XML's values: each attribute's spellings read and written as the exact string NCCL's reader takes
(busids, integers, guids, latencies, PCI ids and classes, link speeds and widths), and CPU sets (cpulists, the
kernel's cpumaps, affinities).

The layout those values sit in, its writer and its reader are :mod:`.topology`'s; both raise
:class:`NcclTopologyError`.
"""

from __future__ import annotations

import math
import re
from typing import Any, Optional, Tuple


class NcclTopologyError(ValueError):
    """A layout NCCL would refuse or misread; the message names the element, the value, the rule and the fix."""


# cpu_set_t holds CPU_SETSIZE = 1024 CPUs, read as 32-bit comma groups.
MAX_CPUS = 1024

CLASS_SHORTHANDS = {
    "gpu": 0x030200, "3d": 0x030200, "vga": 0x030000,
    "ib": 0x020700, "infiniband": 0x020700,
    "nic": 0x020000, "ethernet": 0x020000, "eth": 0x020000,
    "bridge": 0x060400, "switch": 0x060400, "nvswitch": 0x068000,
}
# Classes NCCL's kvDictPciClass knows exactly; anything else outside 0x02/0x03 silently becomes "PCI".
EXACT_CLASSES = {0x060400: "bridge", 0x080100: "bridge", 0x068000: "nvswitch", 0x068001: "cpu"}

# GT/s -> string as the kernel (>= 5.7) writes max_link_speed; NCCL's kvDictPciGen matches these.
SPEED_STRINGS = {2.5: "2.5 GT/s PCIe", 5.0: "5.0 GT/s PCIe", 8.0: "8.0 GT/s PCIe",
                 16.0: "16.0 GT/s PCIe", 32.0: "32.0 GT/s PCIe", 64.0: "64.0 GT/s PCIe"}
LEGACY_SPEED_STRINGS = {"2.5 GT/s": 2.5, "5 GT/s": 5.0, "8 GT/s": 8.0, "16 GT/s": 16.0, "32 GT/s": 32.0}
GEN_GTS = {1: 2.5, 2: 5.0, 3: 8.0, 4: 16.0, 5: 32.0, 6: 64.0}
LINK_WIDTHS = (1, 2, 4, 8, 12, 16, 32)

# All applied with fullmatch ('$' would let a trailing newline through).
_BUSID_RE = re.compile(r"([0-9a-fA-F]{4}|[0-9a-fA-F]{8}):([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.([0-7])")
_HEXMASK_RE = re.compile(r"[0-9a-fA-F]{8}(,[0-9a-fA-F]{8})*")
_CPULIST_RE = re.compile(r"\d+(-\d+)?(,\d+(-\d+)?)*")
_SPEED_RE = re.compile(r"(\d+(?:\.\d+)?)\s*(?:GT/s)?\s*(?:PCIe)?", re.IGNORECASE)
# A guid as NCCL reads it (hex digits, optional 0x), and a latency as a plain decimal (strtof would also take
# 'nan', 'inf' and '1e3'; only finite plain decimals are written).
_GUID_RE = re.compile(r"(?:0[xX])?([0-9a-fA-F]{1,16})")
_LATENCY_RE = re.compile(r"[0-9]{1,9}(?:\.[0-9]{1,9})?")
#: The largest latency written, in microseconds (a NIC's latency is a few us; a second is far beyond).
MAX_LATENCY_US = 1e6


# ---------------------------------------------------------------- scalar normalisers

def fail(where: str, msg: str) -> NcclTopologyError:
    """The error ``<where>: <msg>``, for the caller to raise."""
    return NcclTopologyError("%s: %s" % (where, msg))


def normalise_busid(value: Any, where: str = "busid") -> str:
    """'0000:3B:00.0' or nvidia-smi's '00000000:3B:00.0' -> '0000:3b:00.0' (NCCL compares busids as strings)."""
    m = _BUSID_RE.fullmatch(value.strip(" ")) if isinstance(value, str) else None
    if m is None or int(m.group(1), 16) > 0xFFFF or int(m.group(3), 16) > 0x1F:
        raise fail(where, "busid %r is not a PCI address; NCCL needs dddd:bb:dd.f in hex (domain <= ffff, "
                          "device 00-1f, function 0-7), e.g. '0000:3b:00.0'" % (value,))
    return "%04x:%s:%s.%s" % (int(m.group(1), 16), m.group(2).lower(), m.group(3).lower(), m.group(4))


def parse_int(value: Any, where: str, lo: Optional[int] = None, hi: Optional[int] = None,
              allow_bool: bool = False) -> int:
    """int, decimal string or 0x-hex string (NCCL reads ints with strtol(.., 0))."""
    if isinstance(value, bool) and not allow_bool:
        raise fail(where, "got boolean %r; write a number" % (value,))
    if isinstance(value, int):
        n = int(value)
    elif isinstance(value, str) and re.fullmatch(r" *-?\d+ *", value):
        n = int(value)
    elif isinstance(value, str) and re.fullmatch(r" *0[xX][0-9a-fA-F]+ *", value):
        n = int(value, 16)
    else:
        raise fail(where, "%r is not an integer; write e.g. 16 or '0x10'" % (value,))
    if (lo is not None and n < lo) or (hi is not None and n > hi):
        raise fail(where, "%d is outside %s..%s" % (n, lo, hi))
    return n


def guid_value(text: str) -> int:
    """The number NCCL makes of a guid attribute's text: hexadecimal, with or without 0x.

    NCCL reads guid in ncclTopoAddNet (src/graph/topo.cc), not with xml.h's xmlGetAttrUint64 (strtoull base 0):
    up to v2.27.7-1 with sscanf(str, "0x%lx", &asic), which needs the 0x and leaves asic at 0 without it; from
    v2.28.7-1 (commit ae7aed19) with strtoull(str, NULL, 16), which reads '10' as 0x10 = 16 and takes '0x10' alike.
    NCCL writes it with '%#lx' (xmlInitAttrUint64, src/graph/xml.h). So a bare '10' (AWS's p5.48xl file writes
    0..31) is sixteen to every NCCL that reads it, and is written as 0x10, which every version reads the same.
    """
    match = _GUID_RE.fullmatch(text.strip(" "))
    if match is None:
        raise ValueError(text)
    return int(match.group(1), 16)


def format_guid(value: Any, where: str) -> str:
    """A guid as NCCL reads it (guid_value) -> '0x..' (lower case). A YAML integer is that number (10 -> 0xa); a
    string is read as NCCL reads it, hexadecimal ('10' -> 0x10)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if not 0 <= value <= 2 ** 64 - 1:
            raise fail(where, "guid %d is outside 0..2**64-1" % value)
        return "0x%x" % value
    try:
        return "0x%x" % guid_value(value)
    except (TypeError, ValueError, AttributeError):
        raise fail(where, "guid %r is not a 64-bit id; allowed: an integer, or up to 16 hex digits with or without "
                          "0x (NCCL reads the text as hexadecimal: '10' is 0x10)" % (value,))


def format_latency(value: Any, where: str) -> str:
    """latency (microseconds, read with strtof): a finite plain decimal 0..MAX_LATENCY_US, written as given."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise fail(where, "latency %r is not a number; allowed: a decimal 0..%g (microseconds)"
                   % (value, MAX_LATENCY_US))
    if isinstance(value, str):
        text = value.strip(" ")
        if not _LATENCY_RE.fullmatch(text):
            raise fail(where, "latency %r is not a plain decimal; allowed: digits with an optional fraction, "
                              "0..%g (microseconds; no nan, inf or exponent)" % (value, MAX_LATENCY_US))
        number = float(text)
    else:
        number = float(value)
        text = repr(number) if isinstance(value, float) else str(value)
    if not math.isfinite(number) or not 0 <= number <= MAX_LATENCY_US:
        raise fail(where, "latency %r is not a finite number 0..%g (microseconds)" % (value, MAX_LATENCY_US))
    if "e" in text.lower():
        text = ("%.9f" % number).rstrip("0").rstrip(".")
        if float(text) != number:  # e.g. 1.45e-260 would be written as 0: refuse rather than change it
            raise fail(where, "latency %r cannot be written as a plain decimal with up to 9 fraction digits "
                              "(it would read back as %s); allowed: a decimal 0..%g (microseconds)"
                       % (value, text, MAX_LATENCY_US))
    return text


def normalise_hex_id(value: Any, where: str) -> str:
    """PCI vendor/device ids: 0x10de, '10DE', '0x10de' -> '0x10de' (as sysfs writes them)."""
    if isinstance(value, str) and re.fullmatch(r"\s*[0-9a-fA-F]{4}\s*", value):
        value = "0x" + value.strip()
    return "0x%04x" % parse_int(value, where, 0, 0xFFFF)


def parse_class(value: Any, where: str) -> int:
    """Class code from a shorthand (gpu, ib, nic, bridge, ...), an int, or 4/6 hex digits."""
    if isinstance(value, str):
        text = value.strip().lower()
        if text in CLASS_SHORTHANDS:
            return CLASS_SHORTHANDS[text]
        digits = text[2:] if text.startswith("0x") else text
        if re.fullmatch(r"[0-9a-f]{6}", digits):
            code = int(digits, 16)
        elif re.fullmatch(r"[0-9a-f]{4}", digits):  # lspci's '0302' = base class + subclass
            code = int(digits, 16) << 8
        else:
            code = -1
    elif isinstance(value, int) and not isinstance(value, bool):
        code = value
    else:
        code = -1
    if code in EXACT_CLASSES or (0 <= code <= 0xFFFFFF and (code >> 16) in (0x02, 0x03)):
        return code
    raise fail(where, "class %r is not one NCCL understands (0x060400 bridge, 0x068000 NVSwitch, 0x03xxxx GPU, "
                      "0x02xxxx NIC); NCCL would treat it as a PCIe switch. Use one of %s or a hex code"
               % (value, ", ".join(sorted(CLASS_SHORTHANDS))))


def class_kind(code: int) -> str:
    """'gpu', 'nic', 'bridge', 'nvswitch' or 'cpu' -- the node type NCCL derives from the class prefix."""
    if code in EXACT_CLASSES:
        return EXACT_CLASSES[code]
    return "gpu" if code >> 16 == 0x03 else "nic"


def speed_gts(text: str) -> Optional[float]:
    """Leading GT/s number of a link_speed string ('32.0 GT/s PCIe' -> 32.0), None when absent."""
    m = re.match(r"\s*(\d+(?:\.\d+)?)\s*GT/s", text or "")
    return float(m.group(1)) if m else None


def normalise_link_speed(value: Any, where: str = "link_speed") -> str:
    """16, 'gen4', '16 GT/s', '16.0 GT/s PCIe' -> a string NCCL's kvDictPciGen matches.

    Exact kernel strings (new '16.0 GT/s PCIe' and pre-5.7 '16 GT/s') are kept verbatim; anything
    else becomes the new form, because NCCL matches by prefix and '16.0 GT/s' alone would fall back
    to its 8 GT/s default.
    """
    gts = None  # type: Optional[float]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        gts = float(value)
    elif isinstance(value, str):
        text = value.strip()
        if text in SPEED_STRINGS.values() or text in LEGACY_SPEED_STRINGS:
            return text
        gen = re.fullmatch(r"gen\s*([1-6])", text, re.IGNORECASE)
        m = _SPEED_RE.fullmatch(text)
        if gen:
            gts = GEN_GTS[int(gen.group(1))]
        elif m:
            gts = float(m.group(1))
    if gts not in SPEED_STRINGS:
        raise fail(where, "link_speed %r is not a PCIe rate; use GT/s (2.5, 5, 8, 16, 32, 64), 'gen1'..'gen6' "
                          "or the kernel's string such as '32.0 GT/s PCIe'" % (value,))
    return SPEED_STRINGS[gts]


def normalise_link_width(value: Any, where: str = "link_width") -> str:
    if isinstance(value, str):
        value = value.strip().lower().strip("x")
    width = parse_int(value, where)
    if width not in LINK_WIDTHS:
        raise fail(where, "link_width %d is not a PCIe width; use one of %s" % (width, LINK_WIDTHS))
    return str(width)


# ---------------------------------------------------------------- CPU sets

def parse_cpulist(text: str, where: str = "affinity") -> int:
    """'0-47,96-143' -> bit mask (bit n = CPU n)."""
    mask = 0
    for part in text.split(","):
        lo, _sep, hi = part.partition("-")
        first, last = int(lo), int(hi or lo)
        if last < first or last >= MAX_CPUS:
            raise fail(where, "CPU range %r is reversed or beyond CPU %d (NCCL's cpu_set_t holds %d CPUs)"
                       % (part, MAX_CPUS - 1, MAX_CPUS))
        mask |= ((1 << (last - first + 1)) - 1) << first
    return mask


def format_cpulist(mask: int) -> str:
    """Bit mask -> '0-47,96-143' (for messages and docs)."""
    parts, cpu = [], 0
    while mask >> cpu:
        if (mask >> cpu) & 1:
            start = cpu
            while (mask >> (cpu + 1)) & 1:
                cpu += 1
            parts.append(str(start) if start == cpu else "%d-%d" % (start, cpu))
        cpu += 1
    return ",".join(parts)


def mask_groups(mask: int) -> int:
    """32-bit groups needed to write the mask (at least one)."""
    return max(1, (mask.bit_length() + 31) // 32)


def format_cpumask(mask: int, groups: int = 0) -> str:
    """Bit mask -> the kernel's cpumap text: 8 hex digits per 32 CPUs, highest group first, comma-separated."""
    groups = max(groups, mask_groups(mask))
    return ",".join("%08x" % ((mask >> (32 * g)) & 0xFFFFFFFF) for g in reversed(range(groups)))


def parse_affinity(value: Any, where: str = "affinity") -> Tuple[int, Optional[str]]:
    """Returns (mask, verbatim text or None).

    A string of 8-hex-digit comma groups is a cpumap and is kept as written, lower-cased because NCCL's
    hexToInt stops at 'A'-'F'; a CPU list
    ('0-23,48-71'), a list of CPU ids, an int or a '0x..' string is a set to be formatted later.
    """
    if isinstance(value, str):
        text = value.strip()
        if _HEXMASK_RE.fullmatch(text):
            mask = int(text.replace(",", ""), 16)
            if mask >> MAX_CPUS:
                raise fail(where, "cpumap %r has CPUs beyond %d; NCCL's cpu_set_t holds %d"
                           % (value, MAX_CPUS - 1, MAX_CPUS))
            return mask, text.lower()
        if _CPULIST_RE.fullmatch(text):
            return parse_cpulist(text, where), None
        if re.fullmatch(r"0[xX][0-9a-fA-F]+", text):
            value = int(text, 16)
        else:
            raise fail(where, "affinity %r is neither a cpumap ('0000ffff,ffffffff': 8 hex digits per 32 CPUs) "
                              "nor a CPU list ('0-23,48-71')" % (value,))
    if isinstance(value, list) and all(isinstance(c, int) and not isinstance(c, bool) for c in value):
        value = parse_cpulist(",".join(str(c) for c in value), where) if value else 0
    if not isinstance(value, int) or isinstance(value, bool) or value < 0 or value >> MAX_CPUS:
        raise fail(where, "affinity %r must be a cpumap string, a CPU list, a list of CPU ids or a mask below "
                          "2**%d" % (value, MAX_CPUS))
    return value, None
