# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""NCCL topology XML (the file named by NCCL_TOPO_FILE): layout model, validation, writer, parser.

A *layout* mirrors NCCL's tree with NCCL's attribute names::

    {"version": 1, "cpus": [{"numaid": 0, "affinity": "0-23", "arch": "x86_64", ...,
                             "pci": [{"busid": ..., "class": "bridge", ..., "pci": [...]}]}]}

`normalise_layout` checks it against the rules of NCCL's reader (src/graph/xml.cc, topo.cc) and
returns the same tree with every attribute as the exact string NCCL will read; `render_xml`
writes that tree with a small writer of our own (xml.etree is used only to parse).
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from typing import Any, Dict, List, Optional, Tuple


class NcclTopologyError(ValueError):
    """A layout NCCL would refuse or misread; the message names the element, the value, the rule and the fix."""


# Limits of NCCL's reader (xml.h): MAX_STR_LEN, MAX_ATTR_COUNT, MAX_SUBS.
MAX_STR_LEN = 255
MAX_ATTR_COUNT = 16
MAX_SUBS = 640
# cpu_set_t holds CPU_SETSIZE = 1024 CPUs, read as 32-bit comma groups.
MAX_CPUS = 1024

# Attribute order of each element (NCCL's own dump order); a stable order keeps diffs quiet.
ATTRS = {
    "system": ("version", "name"),
    "cpu": ("numaid", "affinity", "arch", "vendor", "familyid", "modelid", "host_hash"),
    "pci": ("busid", "class", "vendor", "device", "subsystem_vendor", "subsystem_device",
            "link_speed", "link_width"),
    "gpu": ("dev", "sm", "rank", "gdr"),
    "nvlink": ("target", "count", "tclass"),
    "c2c": ("count", "bw"),
    "pcilink": ("target",),
    "net": ("name", "dev", "speed", "port", "latency", "guid", "maxconn", "gdr", "coll"),
}
CHILDREN = {
    "system": ("cpus",),
    "cpu": ("pci",),
    "pci": ("pci", "pcilink", "gpu", "nic"),
    "gpu": ("nvlink", "c2c"),
    "nic": ("net",),
}
REQUIRED = {
    "pci": ("busid", "class", "link_speed", "link_width"),
    "gpu": ("dev", "sm", "rank", "gdr"),
    "nvlink": ("target", "count", "tclass"),
    "c2c": ("count", "bw"),
    "pcilink": ("target",),
    "net": ("dev",),
}

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

ARCHES = {"x86_64": "x86_64", "amd64": "x86_64", "arm64": "arm64", "aarch64": "arm64",
          "ppc64": "ppc64", "ppc64le": "ppc64"}
VENDORS = {"genuineintel": "GenuineIntel", "intel": "GenuineIntel", "authenticamd": "AuthenticAMD",
           "amd": "AuthenticAMD", "centaurhauls": "CentaurHauls", "shanghai": "  Shanghai  "}

# All applied with fullmatch ('$' would let a trailing newline through).
_BUSID_RE = re.compile(r"([0-9a-fA-F]{4}|[0-9a-fA-F]{8}):([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.([0-7])")
_HEXMASK_RE = re.compile(r"[0-9a-fA-F]{8}(,[0-9a-fA-F]{8})*")
_CPULIST_RE = re.compile(r"\d+(-\d+)?(,\d+(-\d+)?)*")
_SPEED_RE = re.compile(r"(\d+(?:\.\d+)?)\s*(?:GT/s)?\s*(?:PCIe)?", re.IGNORECASE)
# A guid as NCCL reads it (hex digits, optional 0x), and a latency as a plain decimal (strtof would also take
# 'nan', 'inf' and '1e3'; only finite plain decimals are written).
_GUID_RE = re.compile(r"(?:0[xX])?([0-9a-fA-F]{1,16})")
_LATENCY_RE = re.compile(r"[0-9]{1,9}(?:\.[0-9]{1,9})?")
#: NCCL reads every integer attribute with strtol into an int (xmlGetAttrInt): at most 2**31 - 1.
INT_MAX = 2 ** 31 - 1
#: The largest latency written, in microseconds (a NIC's latency is a few us; a second is far beyond).
MAX_LATENCY_US = 1e6
_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_BAD_VALUE_CHARS = set('"<>&')


# ---------------------------------------------------------------- scalar normalisers

def _fail(where: str, msg: str) -> NcclTopologyError:
    return NcclTopologyError("%s: %s" % (where, msg))


def normalise_busid(value: Any, where: str = "busid") -> str:
    """'0000:3B:00.0' or nvidia-smi's '00000000:3B:00.0' -> '0000:3b:00.0' (NCCL compares busids as strings)."""
    m = _BUSID_RE.fullmatch(value.strip(" ")) if isinstance(value, str) else None
    if m is None or int(m.group(1), 16) > 0xFFFF or int(m.group(3), 16) > 0x1F:
        raise _fail(where, "busid %r is not a PCI address; NCCL needs dddd:bb:dd.f in hex (domain <= ffff, "
                           "device 00-1f, function 0-7), e.g. '0000:3b:00.0'" % (value,))
    return "%04x:%s:%s.%s" % (int(m.group(1), 16), m.group(2).lower(), m.group(3).lower(), m.group(4))


def parse_int(value: Any, where: str, lo: Optional[int] = None, hi: Optional[int] = None,
              allow_bool: bool = False) -> int:
    """int, decimal string or 0x-hex string (NCCL reads ints with strtol(.., 0))."""
    if isinstance(value, bool) and not allow_bool:
        raise _fail(where, "got boolean %r; write a number" % (value,))
    if isinstance(value, int):
        n = int(value)
    elif isinstance(value, str) and re.fullmatch(r" *-?\d+ *", value):
        n = int(value)
    elif isinstance(value, str) and re.fullmatch(r" *0[xX][0-9a-fA-F]+ *", value):
        n = int(value, 16)
    else:
        raise _fail(where, "%r is not an integer; write e.g. 16 or '0x10'" % (value,))
    if (lo is not None and n < lo) or (hi is not None and n > hi):
        raise _fail(where, "%d is outside %s..%s" % (n, lo, hi))
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
            raise _fail(where, "guid %d is outside 0..2**64-1" % value)
        return "0x%x" % value
    try:
        return "0x%x" % guid_value(value)
    except (TypeError, ValueError, AttributeError):
        raise _fail(where, "guid %r is not a 64-bit id; allowed: an integer, or up to 16 hex digits with or without "
                           "0x (NCCL reads the text as hexadecimal: '10' is 0x10)" % (value,))


def format_latency(value: Any, where: str) -> str:
    """latency (microseconds, read with strtof): a finite plain decimal 0..MAX_LATENCY_US, written as given."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise _fail(where, "latency %r is not a number; allowed: a decimal 0..%g (microseconds)"
                    % (value, MAX_LATENCY_US))
    if isinstance(value, str):
        text = value.strip(" ")
        if not _LATENCY_RE.fullmatch(text):
            raise _fail(where, "latency %r is not a plain decimal; allowed: digits with an optional fraction, "
                               "0..%g (microseconds; no nan, inf or exponent)" % (value, MAX_LATENCY_US))
        number = float(text)
    else:
        number = float(value)
        text = repr(number) if isinstance(value, float) else str(value)
    if not math.isfinite(number) or not 0 <= number <= MAX_LATENCY_US:
        raise _fail(where, "latency %r is not a finite number 0..%g (microseconds)" % (value, MAX_LATENCY_US))
    if "e" in text.lower():
        text = ("%.9f" % number).rstrip("0").rstrip(".")
        if float(text) != number:  # e.g. 1.45e-260 would be written as 0: refuse rather than change it
            raise _fail(where, "latency %r cannot be written as a plain decimal with up to 9 fraction digits "
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
    raise _fail(where, "class %r is not one NCCL understands (0x060400 bridge, 0x068000 NVSwitch, 0x03xxxx GPU, "
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
        raise _fail(where, "link_speed %r is not a PCIe rate; use GT/s (2.5, 5, 8, 16, 32, 64), 'gen1'..'gen6' "
                           "or the kernel's string such as '32.0 GT/s PCIe'" % (value,))
    return SPEED_STRINGS[gts]


def normalise_link_width(value: Any, where: str = "link_width") -> str:
    if isinstance(value, str):
        value = value.strip().lower().strip("x")
    width = parse_int(value, where)
    if width not in LINK_WIDTHS:
        raise _fail(where, "link_width %d is not a PCIe width; use one of %s" % (width, LINK_WIDTHS))
    return str(width)


# ---------------------------------------------------------------- CPU sets

def parse_cpulist(text: str, where: str = "affinity") -> int:
    """'0-47,96-143' -> bit mask (bit n = CPU n)."""
    mask = 0
    for part in text.split(","):
        lo, _sep, hi = part.partition("-")
        first, last = int(lo), int(hi or lo)
        if last < first or last >= MAX_CPUS:
            raise _fail(where, "CPU range %r is reversed or beyond CPU %d (NCCL's cpu_set_t holds %d CPUs)"
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
                raise _fail(where, "cpumap %r has CPUs beyond %d; NCCL's cpu_set_t holds %d"
                            % (value, MAX_CPUS - 1, MAX_CPUS))
            return mask, text.lower()
        if _CPULIST_RE.fullmatch(text):
            return parse_cpulist(text, where), None
        if re.fullmatch(r"0[xX][0-9a-fA-F]+", text):
            value = int(text, 16)
        else:
            raise _fail(where, "affinity %r is neither a cpumap ('0000ffff,ffffffff': 8 hex digits per 32 CPUs) "
                               "nor a CPU list ('0-23,48-71')" % (value,))
    if isinstance(value, list) and all(isinstance(c, int) and not isinstance(c, bool) for c in value):
        value = parse_cpulist(",".join(str(c) for c in value), where) if value else 0
    if not isinstance(value, int) or isinstance(value, bool) or value < 0 or value >> MAX_CPUS:
        raise _fail(where, "affinity %r must be a cpumap string, a CPU list, a list of CPU ids or a mask below "
                           "2**%d" % (value, MAX_CPUS))
    return value, None


# ---------------------------------------------------------------- layout validation

def _check_keys(node: Any, tag: str, where: str) -> Dict[str, Any]:
    if not isinstance(node, dict):
        raise _fail(where, "a %s must be a mapping, got %s" % (tag, type(node).__name__))
    for key, value in node.items():
        if isinstance(value, str) and _CONTROL_RE.search(value):
            raise _fail(where, "%s %r holds a control character (a newline, tab ...); NCCL reads the value raw. "
                               "Allowed: printable characters only" % (key, value))
    allowed = ATTRS.get(tag, ()) + CHILDREN.get(tag, ())
    unknown = sorted(str(k) for k in node if k not in allowed)
    if unknown:
        raise _fail(where, "unknown key(s) %s for a %s; allowed: %s" % (", ".join(unknown), tag, ", ".join(allowed)))
    missing = [k for k in REQUIRED.get(tag, ()) if node.get(k) is None]
    if missing:
        raise _fail(where, "%s is missing required attribute(s) %s (NCCL's reader needs them)"
                    % (tag, ", ".join(missing)))
    return node


def _list_of(node: Dict[str, Any], key: str, where: str) -> List[Any]:
    items = node.get(key) or []
    if not isinstance(items, list):
        raise _fail(where, "%s must be a list, got %s" % (key, type(items).__name__))
    if len(items) > MAX_SUBS:
        raise _fail(where, "%d %s children; NCCL's reader allows %d per element" % (len(items), key, MAX_SUBS))
    return items


def _check_value(where: str, key: str, value: str) -> str:
    if len(value) > MAX_STR_LEN:
        raise _fail(where, "%s is %d characters; NCCL's reader stops at %d" % (key, len(value), MAX_STR_LEN))
    if any(c in _BAD_VALUE_CHARS or not " " <= c <= "~" for c in value):
        raise _fail(where, "%s %r holds a quote, <, >, & or a non-printable character; NCCL reads values raw "
                           "(no entities), so remove it" % (key, value))
    return value


def _scalar(tag: str, key: str, value: Any, where: str) -> str:
    """One attribute of one element -> NCCL's string."""
    w = "%s %s" % (where, key)
    if key in ("busid", "target"):
        return normalise_busid(value, w)
    if key in ("class", "tclass"):
        return "0x%06x" % parse_class(value, w)
    if key in ("vendor", "device", "subsystem_vendor", "subsystem_device") and tag == "pci":
        return normalise_hex_id(value, w)
    if key == "link_speed":
        return normalise_link_speed(value, w)
    if key == "link_width":
        return normalise_link_width(value, w)
    if key == "version":
        if parse_int(value, w) != 1:
            raise _fail(w, "NCCL reads only topology version 1, got %r" % (value,))
        return "1"
    if key in ("gdr", "coll"):
        return str(parse_int(value, w, 0, 1, allow_bool=True))
    if isinstance(value, str) and _CONTROL_RE.search(value):
        raise _fail(w, "%r holds a control character (a newline, tab ...); NCCL reads the value raw. Allowed: "
                       "printable characters only" % (value,))
    if key == "guid":
        return format_guid(value, w)
    if key == "latency":
        return format_latency(value, w)
    if key in ("name", "host_hash", "arch", "vendor"):
        if not isinstance(value, (str, int)) or isinstance(value, bool) or str(value) == "":
            raise _fail(w, "%r must be a non-empty string" % (value,))
        return _check_value(where, key, str(value))
    lo = -1 if key == "numaid" else 0
    return str(parse_int(value, w, lo, INT_MAX))


def _attrs(tag: str, node: Dict[str, Any], where: str) -> Dict[str, str]:
    return {k: _check_value(where, k, _scalar(tag, k, node[k], where)) for k in ATTRS[tag] if node.get(k) is not None}


def _normalise_pci(node: Any, parent: str, index: int, seen: Dict[str, str]) -> Dict[str, Any]:
    _check_keys(node, "pci", "%s > pci #%d" % (parent, index))
    where = "%s > pci[%s]" % (parent, normalise_busid(node["busid"], "%s > pci #%d" % (parent, index)))
    out = _attrs("pci", node, where)  # type: Dict[str, Any]
    busid = out["busid"]
    if busid in seen:
        raise _fail(where, "busid %s appears twice (first at %s); NCCL keys devices by busid, keep one"
                    % (busid, seen[busid]))
    seen[busid] = where
    kind = class_kind(int(out["class"], 16))
    if node.get("pci") or node.get("pcilink"):
        if kind != "bridge":
            raise _fail(where, "class %s (%s) has child pci/pcilink elements; NCCL only follows children of "
                               "bridges (0x060400), so nest them under the switch instead" % (out["class"], kind))
        out["pci"] = [_normalise_pci(c, where, i, seen) for i, c in enumerate(_list_of(node, "pci", where))]
        out["pcilink"] = [_attrs("pcilink", _check_keys(c, "pcilink", where), where)
                          for c in _list_of(node, "pcilink", where)]
    if node.get("gpu") is not None:
        if kind != "gpu":
            raise _fail(where, "a gpu element under class %s; only 0x03xxxx devices are GPUs" % out["class"])
        gpu = _check_keys(node["gpu"], "gpu", where + " > gpu")
        out["gpu"] = _attrs("gpu", gpu, where + " > gpu")
        for sub in ("nvlink", "c2c"):
            out["gpu"][sub] = [_attrs(sub, _check_keys(c, sub, where + " > gpu > " + sub), where + " > gpu > " + sub)
                               for c in _list_of(gpu, sub, where)]
    if node.get("nic") is not None:
        if kind != "nic":
            raise _fail(where, "a nic element under class %s; only 0x02xxxx devices are NICs" % out["class"])
        nic = _check_keys(node["nic"], "nic", where + " > nic")
        nets = [_attrs("net", _check_keys(c, "net", "%s > nic > net #%d" % (where, i)), where + " > nic > net")
                for i, c in enumerate(_list_of(nic, "net", where))]
        out["nic"] = {"net": nets}
    return out


def _normalise_cpu(node: Any, where: str, seen: Dict[str, str]) -> Tuple[Dict[str, Any], int, Optional[str]]:
    _check_keys(node, "cpu", where)
    if node.get("numaid") is None:
        raise _fail(where, "cpu is missing numaid (NCCL's reader needs it); use the NUMA node number")
    out = _attrs("cpu", {k: v for k, v in node.items() if k != "affinity"}, where)  # type: Dict[str, Any]
    where = "cpu[numaid=%s]" % out["numaid"]
    if "arch" not in out:
        raise _fail(where, "missing arch; NCCL needs one of x86_64, arm64, ppc64")
    arch = ARCHES.get(out["arch"].lower())
    if arch is None:
        raise _fail(where, "arch %r is unknown to NCCL; use x86_64, arm64 or ppc64" % out["arch"])
    out["arch"] = arch
    if arch == "x86_64":
        vendor = VENDORS.get(out.get("vendor", "").strip().lower())
        if vendor is None:
            raise _fail(where, "x86 CPU needs vendor GenuineIntel or AuthenticAMD (got %r); NCCL picks its bandwidth "
                               "model from it" % out.get("vendor"))
        out["vendor"] = vendor
        # topo.cc reads familyid+modelid for Intel/Zhaoxin and familyid for AMD; a missing one aborts the load.
        needed = ("familyid",) if vendor == "AuthenticAMD" else ("familyid", "modelid")
        missing = [k for k in needed if k not in out]
        if missing:
            raise _fail(where, "%s CPU needs %s (from /proc/cpuinfo 'cpu family' and 'model')"
                        % (vendor.strip(), " and ".join(missing)))
    mask, text = (0, None)
    if node.get("affinity") is not None:
        mask, text = parse_affinity(node["affinity"], where + " affinity")
        if mask == 0:
            raise _fail(where, "affinity is empty; a NUMA node with devices must own CPUs, or leave affinity out")
    out["pci"] = [_normalise_pci(c, where, i, seen) for i, c in enumerate(_list_of(node, "pci", where))]
    return out, mask, text


def normalise_layout(layout: Any) -> Dict[str, Any]:
    """Validate a layout and return it with every attribute as the exact string NCCL will read."""
    _check_keys(layout, "system", "system")
    out = _attrs("system", dict(layout, version=layout.get("version", 1)), "system")  # type: Dict[str, Any]
    cpus = _list_of(layout, "cpus", "system")
    if not cpus:
        raise _fail("system", "cpus is empty; a topology needs at least one cpu (NUMA node)")
    seen = {}  # type: Dict[str, str]
    done = [_normalise_cpu(c, "cpu #%d" % i, seen) for i, c in enumerate(cpus)]
    numaids, owner, groups = {}, 0, 1
    for cpu, mask, text in done:
        if cpu["numaid"] in numaids:
            raise _fail("cpu[numaid=%s]" % cpu["numaid"], "numaid appears twice; give each NUMA node one cpu")
        numaids[cpu["numaid"]] = mask
        if mask & owner:
            raise _fail("cpu[numaid=%s]" % cpu["numaid"], "affinity shares CPUs %s with another NUMA node; "
                        "each CPU belongs to one node" % format_cpulist(mask & owner))
        owner |= mask
        groups = max(groups, len(text.split(",")) if text else mask_groups(mask))
    out["cpus"] = []
    for cpu, mask, text in done:
        if mask:
            # Computed masks share one width, as the kernel writes every node's cpumap with nr_cpu_ids bits.
            cpu["affinity"] = _check_value("cpu[numaid=%s]" % cpu["numaid"], "affinity",
                                           text or format_cpumask(mask, groups))
        out["cpus"].append(cpu)
    return out


# ---------------------------------------------------------------- writer

def _element(tag: str, node: Dict[str, Any]) -> Tuple[str, List[Tuple[str, str]], List[Any]]:
    attrs = [(k, node[k]) for k in ATTRS.get(tag, ()) if k in node]
    kids = []  # type: List[Any]
    if tag == "system":
        kids = [_element("cpu", c) for c in node["cpus"]]
    elif tag == "cpu":
        kids = [_element("pci", c) for c in node["pci"]]
    elif tag == "pci":
        kids = [_element("pci", c) for c in node.get("pci", [])]
        kids += [_element("pcilink", c) for c in node.get("pcilink", [])]
        kids += [_element("gpu", node["gpu"])] if "gpu" in node else []
        kids += [_element("nic", node["nic"])] if "nic" in node else []
    elif tag == "gpu":
        kids = [_element("nvlink", c) for c in node.get("nvlink", [])]
        kids += [_element("c2c", c) for c in node.get("c2c", [])]
    elif tag == "nic":
        kids = [_element("net", c) for c in node.get("net", [])]
    return tag, attrs, kids


def _write(elem: Tuple[str, List[Tuple[str, str]], List[Any]], indent: int, out: List[str]) -> None:
    tag, attrs, kids = elem
    # One line per tag, single spaces, double quotes, no space before '/>': exactly what xmlGetNode tokenises.
    head = " " * indent + "<" + tag + "".join(' %s="%s"' % kv for kv in attrs)
    if not kids:
        out.append(head + "/>")
        return
    out.append(head + ">")
    for kid in kids:
        _write(kid, indent + 2, out)
    out.append(" " * indent + "</%s>" % tag)


def render_xml(layout: Any) -> str:
    """Validated layout -> NCCL topology XML (2-space indent, LF, no declaration, trailing newline)."""
    norm = normalise_layout(layout)
    lines = []  # type: List[str]
    _write(_element("system", norm), 0, lines)
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- parser

def _from_element(elem: ET.Element, where: str) -> Dict[str, Any]:
    tag = elem.tag
    node = dict(elem.attrib)  # type: Dict[str, Any]
    for kid in elem:
        if not isinstance(kid.tag, str):
            continue  # comments
        if kid.tag == "cpu" and tag == "system":
            node.setdefault("cpus", []).append(_from_element(kid, where + " > cpu"))
        elif kid.tag in ("gpu", "nic") and tag == "pci":
            node[kid.tag] = _from_element(kid, where + " > " + kid.tag)
        elif kid.tag in CHILDREN.get(tag, ()):
            node.setdefault(kid.tag, []).append(_from_element(kid, where + " > " + kid.tag))
        else:
            raise _fail(where, "element <%s> under <%s> is not part of the layout model" % (kid.tag, tag))
    return node


def layout_from_xml(text: str) -> Dict[str, Any]:
    """NCCL topology XML -> layout dict (attribute values as written; comments dropped)."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise NcclTopologyError("topology XML does not parse: %s" % exc)
    if root.tag != "system":
        raise NcclTopologyError("topology XML root is <%s>; NCCL expects <system version=\"1\">" % root.tag)
    return _from_element(root, "system")


def _canonical_value(tag: str, key: str, value: str) -> Any:
    if key in ("busid", "target"):
        return value.lower()
    if key == "guid":
        return guid_value(value)  # as NCCL reads it, see guid_value
    if key in ("class", "tclass", "device", "subsystem_vendor", "subsystem_device") or (
            key == "vendor" and tag == "pci"):
        return int(value, 16)
    if key == "link_speed":
        return speed_gts(value)
    if key == "affinity":
        return parse_affinity(value)[0]
    if re.fullmatch(r"-?\d+", value):
        return int(value)
    return value


def canonical_tree(text: str) -> Tuple[Any, ...]:
    """Comparable form of a topology file: elements with normalised attributes, siblings sorted.

    Two files are equivalent for NCCL when their canonical trees are equal: '16 GT/s' equals
    '16.0 GT/s PCIe', '0x10DE' equals '0x10de', and cpumaps compare as CPU sets.
    """
    def walk(elem: ET.Element) -> Tuple[Any, ...]:
        attrs = tuple(sorted((k, _canonical_value(elem.tag, k, v)) for k, v in elem.attrib.items()))
        kids = sorted((walk(k) for k in elem if isinstance(k.tag, str)), key=repr)
        return (elem.tag, attrs, tuple(kids))
    return walk(ET.fromstring(text))
