# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""NCCL topology XML (the file named by NCCL_TOPO_FILE): the layout model, its validation, the writer and the reader.

A *layout* mirrors NCCL's tree with NCCL's attribute names::

    {"version": 1, "cpus": [{"numaid": 0, "affinity": "0-23", "arch": "x86_64", ...,
                             "pci": [{"busid": ..., "class": "bridge", ..., "pci": [...]}]}]}

`normalise_layout` checks it against the rules of NCCL's reader (src/graph/xml.cc, topo.cc) and
returns the same tree with every attribute as the exact string NCCL will read (each value through :mod:`.values`);
`render_xml` writes that tree with a small writer of our own (xml.etree is used only to parse).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any, Dict, List, Optional, Tuple

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import must_be, unknown_keys
from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.values import (
    NcclTopologyError,
    class_kind,
    fail,
    format_cpulist,
    format_cpumask,
    format_guid,
    format_latency,
    guid_value,
    mask_groups,
    normalise_busid,
    normalise_hex_id,
    normalise_link_speed,
    normalise_link_width,
    parse_affinity,
    parse_class,
    parse_int,
    speed_gts,
)

# Limits of NCCL's reader (xml.h): MAX_STR_LEN, MAX_ATTR_COUNT, MAX_SUBS.
MAX_STR_LEN = 255
MAX_ATTR_COUNT = 16
MAX_SUBS = 640

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

ARCHES = {"x86_64": "x86_64", "amd64": "x86_64", "arm64": "arm64", "aarch64": "arm64",
          "ppc64": "ppc64", "ppc64le": "ppc64"}
VENDORS = {"genuineintel": "GenuineIntel", "intel": "GenuineIntel", "authenticamd": "AuthenticAMD",
           "amd": "AuthenticAMD", "centaurhauls": "CentaurHauls", "shanghai": "  Shanghai  "}

#: NCCL reads every integer attribute with strtol into an int (xmlGetAttrInt): at most 2**31 - 1.
INT_MAX = 2 ** 31 - 1
_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_BAD_VALUE_CHARS = set('"<>&')


# ---------------------------------------------------------------- layout validation

def _check_keys(node: Any, tag: str, where: str) -> Dict[str, Any]:
    if not isinstance(node, dict):
        raise must_be("%s: a %s" % (where, tag), node, "a mapping", NcclTopologyError)
    for key, value in node.items():
        if isinstance(value, str) and _CONTROL_RE.search(value):
            raise fail(where, "%s %r holds a control character (a newline, tab ...); NCCL reads the value raw. "
                              "Allowed: printable characters only" % (key, value))
    unknown_keys("%s: a %s" % (where, tag), node, ATTRS.get(tag, ()) + CHILDREN.get(tag, ()), NcclTopologyError)
    missing = [k for k in REQUIRED.get(tag, ()) if node.get(k) is None]
    if missing:
        raise fail(where, "%s is missing required attribute(s) %s (NCCL's reader needs them)"
                   % (tag, ", ".join(missing)))
    return node


def _list_of(node: Dict[str, Any], key: str, where: str) -> List[Any]:
    items = node.get(key) or []
    if not isinstance(items, list):  # a list as YAML and JSON give it (not a tuple)
        raise must_be("%s: %s" % (where, key), items, "a list", NcclTopologyError)
    if len(items) > MAX_SUBS:
        raise fail(where, "%d %s children; NCCL's reader allows %d per element" % (len(items), key, MAX_SUBS))
    return items


def _check_value(where: str, key: str, value: str) -> str:
    if len(value) > MAX_STR_LEN:
        raise fail(where, "%s is %d characters; NCCL's reader stops at %d" % (key, len(value), MAX_STR_LEN))
    if any(c in _BAD_VALUE_CHARS or not " " <= c <= "~" for c in value):
        raise fail(where, "%s %r holds a quote, <, >, & or a non-printable character; NCCL reads values raw "
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
            raise fail(w, "NCCL reads only topology version 1, got %r" % (value,))
        return "1"
    if key in ("gdr", "coll"):
        return str(parse_int(value, w, 0, 1, allow_bool=True))
    if isinstance(value, str) and _CONTROL_RE.search(value):
        raise fail(w, "%r holds a control character (a newline, tab ...); NCCL reads the value raw. Allowed: "
                      "printable characters only" % (value,))
    if key == "guid":
        return format_guid(value, w)
    if key == "latency":
        return format_latency(value, w)
    if key in ("name", "host_hash", "arch", "vendor"):
        if not isinstance(value, (str, int)) or isinstance(value, bool) or str(value) == "":
            raise fail(w, "%r must be a non-empty string" % (value,))
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
        raise fail(where, "busid %s appears twice (first at %s); NCCL keys devices by busid, keep one"
                   % (busid, seen[busid]))
    seen[busid] = where
    kind = class_kind(int(out["class"], 16))
    if node.get("pci") or node.get("pcilink"):
        if kind != "bridge":
            raise fail(where, "class %s (%s) has child pci/pcilink elements; NCCL only follows children of "
                              "bridges (0x060400), so nest them under the switch instead" % (out["class"], kind))
        out["pci"] = [_normalise_pci(c, where, i, seen) for i, c in enumerate(_list_of(node, "pci", where))]
        out["pcilink"] = [_attrs("pcilink", _check_keys(c, "pcilink", where), where)
                          for c in _list_of(node, "pcilink", where)]
    if node.get("gpu") is not None:
        if kind != "gpu":
            raise fail(where, "a gpu element under class %s; only 0x03xxxx devices are GPUs" % out["class"])
        gpu = _check_keys(node["gpu"], "gpu", where + " > gpu")
        out["gpu"] = _attrs("gpu", gpu, where + " > gpu")
        for sub in ("nvlink", "c2c"):
            out["gpu"][sub] = [_attrs(sub, _check_keys(c, sub, where + " > gpu > " + sub), where + " > gpu > " + sub)
                               for c in _list_of(gpu, sub, where)]
    if node.get("nic") is not None:
        if kind != "nic":
            raise fail(where, "a nic element under class %s; only 0x02xxxx devices are NICs" % out["class"])
        nic = _check_keys(node["nic"], "nic", where + " > nic")
        nets = [_attrs("net", _check_keys(c, "net", "%s > nic > net #%d" % (where, i)), where + " > nic > net")
                for i, c in enumerate(_list_of(nic, "net", where))]
        out["nic"] = {"net": nets}
    return out


def _normalise_cpu(node: Any, where: str, seen: Dict[str, str]) -> Tuple[Dict[str, Any], int, Optional[str]]:
    _check_keys(node, "cpu", where)
    if node.get("numaid") is None:
        raise fail(where, "cpu is missing numaid (NCCL's reader needs it); use the NUMA node number")
    out = _attrs("cpu", {k: v for k, v in node.items() if k != "affinity"}, where)  # type: Dict[str, Any]
    where = "cpu[numaid=%s]" % out["numaid"]
    if "arch" not in out:
        raise fail(where, "missing arch; NCCL needs one of x86_64, arm64, ppc64")
    arch = ARCHES.get(out["arch"].lower())
    if arch is None:
        raise fail(where, "arch %r is unknown to NCCL; use x86_64, arm64 or ppc64" % out["arch"])
    out["arch"] = arch
    if arch == "x86_64":
        vendor = VENDORS.get(out.get("vendor", "").strip().lower())
        if vendor is None:
            raise fail(where, "x86 CPU needs vendor GenuineIntel or AuthenticAMD (got %r); NCCL picks its bandwidth "
                              "model from it" % out.get("vendor"))
        out["vendor"] = vendor
        # topo.cc reads familyid+modelid for Intel/Zhaoxin and familyid for AMD; a missing one aborts the load.
        needed = ("familyid",) if vendor == "AuthenticAMD" else ("familyid", "modelid")
        missing = [k for k in needed if k not in out]
        if missing:
            raise fail(where, "%s CPU needs %s (from /proc/cpuinfo 'cpu family' and 'model')"
                       % (vendor.strip(), " and ".join(missing)))
    mask, text = (0, None)
    if node.get("affinity") is not None:
        mask, text = parse_affinity(node["affinity"], where + " affinity")
        if mask == 0:
            raise fail(where, "affinity is empty; a NUMA node with devices must own CPUs, or leave affinity out")
    out["pci"] = [_normalise_pci(c, where, i, seen) for i, c in enumerate(_list_of(node, "pci", where))]
    return out, mask, text


def normalise_layout(layout: Any) -> Dict[str, Any]:
    """Validate a layout and return it with every attribute as the exact string NCCL will read."""
    _check_keys(layout, "system", "system")
    out = _attrs("system", dict(layout, version=layout.get("version", 1)), "system")  # type: Dict[str, Any]
    cpus = _list_of(layout, "cpus", "system")
    if not cpus:
        raise fail("system", "cpus is empty; a topology needs at least one cpu (NUMA node)")
    seen = {}  # type: Dict[str, str]
    done = [_normalise_cpu(c, "cpu #%d" % i, seen) for i, c in enumerate(cpus)]
    numaids, owner, groups = {}, 0, 1
    for cpu, mask, text in done:
        if cpu["numaid"] in numaids:
            raise fail("cpu[numaid=%s]" % cpu["numaid"], "numaid appears twice; give each NUMA node one cpu")
        numaids[cpu["numaid"]] = mask
        if mask & owner:
            raise fail("cpu[numaid=%s]" % cpu["numaid"], "affinity shares CPUs %s with another NUMA node; "
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
            raise fail(where, "element <%s> under <%s> is not part of the layout model" % (kid.tag, tag))
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
