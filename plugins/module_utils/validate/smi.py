# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""nvidia-smi readers for validate.yml: `nvidia-smi -q` text and `nvidia-smi --query-gpu=... --format=csv`.

`-q` is read as an indentation tree (the approach of roles/slurm/files/gpufleet-gpu-health, which keeps its
own copy because it runs alone on the nodes). Per GPU: product, persistence, power limits (GPU Power
Readings on 535+, Power Readings before), current/application/default application clocks, ECC mode and
uncorrectable counters, remapped rows, retired pages, temperatures and the active clock event reasons.

Temperature thresholds: older drivers print absolute `GPU Shutdown Temp`/`GPU Slowdown Temp`; 535 on H100
prints margins to T.Limit instead (`GPU T.Limit Temp : 50 C` = 50 C of headroom, `GPU Shutdown T.Limit Temp
: -8 C` = shutdown 8 C past T.Limit), so T.Limit = current + margin and a threshold = T.Limit - its margin:
36 + 50 - (-8) = 94 C shutdown, 36 + 50 - (-2) = 88 C slowdown on the recorded GPU 0.
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any, Dict, List, Optional, Tuple

from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.parse import (
    ValidateParseError, is_number, text_input,
)

# Applied with fullmatch ('$' would let a trailing newline through).
_GPU_HEADER = re.compile(r"GPU ([0-9A-Fa-f]{4,8}):([0-9A-Fa-f]{2}):([0-9A-Fa-f]{2})\.([0-7])")
_KEY_VALUE = re.compile(r"(\S.*?)\s+: ?(.*)")
_VALUE = re.compile(r"(-?\d+(?:\.\d+)?)\s*(?:C|W|MHz|%|MiB)?")
_QUERY_NAME = re.compile(r"[a-z][a-z0-9_.]*")

# The power section's keys by driver generation. Before 530 ('Power Readings'): Power Draw, Power Limit (the
# management limit), Enforced Power Limit. 535 ('GPU Power Readings'): Power Draw, Requested Power Limit (the
# management limit nvidia-smi -pl sets), Current Power Limit (the limit enforced after every limiter). 580 (the
# H100 recording of 580.159.04): 'Power Draw' split into Average Power Draw (what power.draw reports) and
# Instantaneous Power Draw; the limits as on 535.
_POWER_DRAW = ("Power Draw", "Average Power Draw")
_POWER_LIMIT = ("Power Limit", "Requested Power Limit", "Current Power Limit")
_POWER_ENFORCED = ("Enforced Power Limit", "Current Power Limit")


class NvidiaSmiParseError(ValidateParseError):
    """nvidia-smi output that cannot be read."""

    tool = "nvidia-smi"


class _Node:
    __slots__ = ("value", "children")

    def __init__(self, value: Optional[str] = None) -> None:
        self.value = value
        self.children: Dict[str, "_Node"] = {}

    def get(self, *path: str) -> Optional[str]:
        node: Optional[_Node] = self
        for key in path:
            node = node.children.get(key) if node is not None else None
        return node.value if node is not None else None

    def walk(self, prefix: str = "") -> List[Tuple[str, Optional[str]]]:
        found: List[Tuple[str, Optional[str]]] = []
        for key, child in self.children.items():
            found.append((prefix + key, child.value))
            found += child.walk(prefix + key + " / ")
        return found


def _tree(text: str) -> _Node:
    """Indentation tree of `nvidia-smi -q`; the first of repeated keys wins."""
    root = _Node()
    stack: List[Tuple[int, _Node]] = [(-1, root)]
    for raw in text.expandtabs(4).splitlines():
        line = raw.rstrip()
        if not line.strip() or line.startswith("====="):
            continue
        indent = len(line) - len(line.lstrip(" "))
        match = _KEY_VALUE.fullmatch(line.strip())
        key, value = (match.group(1), match.group(2).strip()) if match else (line.strip(), None)
        while stack[-1][0] >= indent:
            stack.pop()
        node = _Node(value)
        stack[-1][1].children.setdefault(key, node)
        stack.append((indent, node))
    return root


def _num(value: Optional[str]) -> Optional[float]:
    match = _VALUE.fullmatch(value.strip()) if value else None
    return float(match.group(1)) if match else None


def _int(value: Optional[str]) -> Optional[int]:
    found = _num(value)
    return None if found is None else int(found)


def _first(node: _Node, keys: Tuple[str, ...]) -> Optional[float]:
    """The first of ``keys`` that holds a number (N/A is skipped)."""
    for key in keys:
        found = _num(node.get(key))
        if found is not None:
            return found
    return None


def _yes(value: Optional[str]) -> Optional[bool]:
    return value == "Yes" if value in ("Yes", "No") else None


def _uncorrectable(section: Optional[_Node]) -> Optional[int]:
    """Sum of the `... Uncorrectable ...` counters (H100: DRAM/SRAM; V100: Double Bit / Total)."""
    if section is None:
        return None
    counts = [_int(child.value) for key, child in section.children.items() if "Uncorrectable" in key]
    total = _int(section.get("Double Bit", "Total"))
    values = [count for count in counts + [total] if count is not None]
    return sum(values) if values else None


def _temperatures(temp: Optional[_Node]) -> Dict[str, Optional[int]]:
    out: Dict[str, Optional[int]] = {"temperature_c": None, "slowdown_c": None, "shutdown_c": None}
    if temp is None:
        return out
    current = _int(temp.get("GPU Current Temp"))
    out.update(temperature_c=current, shutdown_c=_int(temp.get("GPU Shutdown Temp")),
               slowdown_c=_int(temp.get("GPU Slowdown Temp")))
    if out["shutdown_c"] is not None and out["slowdown_c"] is not None:
        return out
    margins: Dict[str, Optional[int]] = {"current": None, "shutdown": None, "slowdown": None}
    for key, child in temp.children.items():
        if key in ("GPU T.Limit Temp", "GPU Current T.Limit Temp"):
            margins["current"] = _int(child.value)
        elif key.startswith("GPU Shutdown T.Limit Temp"):
            margins["shutdown"] = _int(child.value)
        elif key.startswith("GPU Slowdown T.Limit Temp"):
            margins["slowdown"] = _int(child.value)
    if current is not None and margins["current"] is not None:
        tlimit = current + margins["current"]
        if margins["shutdown"] is not None:
            out["shutdown_c"] = tlimit - margins["shutdown"]
        if margins["slowdown"] is not None:
            out["slowdown_c"] = tlimit - margins["slowdown"]
    return out


def _gpu(index: int, bus_id: str, node: _Node) -> Dict[str, Any]:
    power = node.children.get("GPU Power Readings") or node.children.get("Power Readings") or _Node()
    ecc = node.children.get("ECC Errors")
    rows = node.children.get("Remapped Rows")
    pages = node.children.get("Retired Pages")
    pending_pages = None
    if pages is not None:
        for key in ("Pending Page Blacklist", "Pending Page Retirement", "Pending"):
            if _yes(pages.get(key)) is not None:
                pending_pages = _yes(pages.get(key))
                break
    events = node.children.get("Clocks Event Reasons") or node.children.get("Clocks Throttle Reasons")
    gpu: Dict[str, Any] = {
        "index": index,
        "bus_id": bus_id,
        "name": node.get("Product Name"),
        "uuid": node.get("GPU UUID"),
        "persistence_mode": node.get("Persistence Mode"),
        "power_limit_w": _first(power, _POWER_LIMIT),
        "power_enforced_limit_w": _first(power, _POWER_ENFORCED),
        "power_default_limit_w": _num(power.get("Default Power Limit")),
        "power_max_limit_w": _num(power.get("Max Power Limit")),
        "power_draw_w": _first(power, _POWER_DRAW),
        "power_draw_instant_w": _num(power.get("Instantaneous Power Draw")),
        "clocks_mhz": {"graphics": _int(node.get("Clocks", "Graphics")), "memory": _int(node.get("Clocks", "Memory"))},
        "application_clocks_mhz": {"graphics": _int(node.get("Applications Clocks", "Graphics")),
                                   "memory": _int(node.get("Applications Clocks", "Memory"))},
        "default_application_clocks_mhz": {"graphics": _int(node.get("Default Applications Clocks", "Graphics")),
                                           "memory": _int(node.get("Default Applications Clocks", "Memory"))},
        "ecc_mode": node.get("ECC Mode", "Current"),
        "ecc_volatile_uncorrectable": _uncorrectable(ecc.children.get("Volatile") if ecc else None),
        "ecc_aggregate_uncorrectable": _uncorrectable(ecc.children.get("Aggregate") if ecc else None),
        "remapped_rows_pending": None if rows is None else _yes(rows.get("Pending")),
        "remapped_rows_failure": None if rows is None else _yes(rows.get("Remapping Failure Occurred")),
        "retired_pages_pending": pending_pages,
        "clock_events_active": [] if events is None else
        [key.rsplit(" / ", 1)[-1] for key, value in events.walk() if value == "Active"],
    }
    gpu.update(_temperatures(node.children.get("Temperature")))
    return gpu


def parse_nvidia_smi_q(text: str) -> List[Dict[str, Any]]:
    """The GPUs of `nvidia-smi -q`, in its index order."""
    text_input(text, "the text of nvidia-smi -q", NvidiaSmiParseError)
    gpus: List[Dict[str, Any]] = []
    for key, node in _tree(text).children.items():
        match = _GPU_HEADER.fullmatch(key)
        if match:
            domain, bus, device, function = match.groups()
            bus_id = "%04x:%s:%s.%s" % (int(domain, 16), bus.lower(), device.lower(), function)
            gpus.append(_gpu(len(gpus), bus_id, node))
    if not gpus:
        first = text.strip().splitlines()[0] if text.strip() else ""
        raise NvidiaSmiParseError("no 'GPU 00000000:BB:DD.F' section (expected nvidia-smi -q output)", 1, first)
    return gpus


def parse_query_gpu_csv(text: str) -> List[Dict[str, Any]]:
    """`nvidia-smi --query-gpu=a,b --format=csv[,nounits]` as dicts keyed by the query names.

    Units come from the header (`power.limit [W]`) or follow the value (`700.00 W`); numbers are returned as
    numbers and `[N/A]` / `[Not Supported]` as None. Every row must have the header's field count."""
    text_input(text, "the CSV text of nvidia-smi --query-gpu", NvidiaSmiParseError)
    lines = [(lineno, line) for lineno, line in enumerate(text.splitlines(), 1) if line.strip()]
    if not lines:
        raise NvidiaSmiParseError("empty output (expected a CSV header line from --format=csv)")
    header_no, header = lines[0]
    names = [re.sub(r"\s*\[[^\]]*\]$", "", name.strip()) for name in next(csv.reader(io.StringIO(header)))]
    if not all(_QUERY_NAME.fullmatch(name) for name in names):
        raise NvidiaSmiParseError("not a --query-gpu header (expected names such as name, pci.bus_id, "
                                  "power.limit [W]; use --format=csv, not noheader)", header_no, header)
    rows: List[Dict[str, Any]] = []
    for lineno, line in lines[1:]:
        cells = [cell.strip() for cell in next(csv.reader(io.StringIO(line)))]
        if len(cells) != len(names):
            raise NvidiaSmiParseError("%d fields, expected %d (%s)" % (len(cells), len(names), ", ".join(names)),
                                      lineno, line)
        rows.append({name: _csv_value(cell) for name, cell in zip(names, cells)})
    return rows


def _csv_value(cell: str) -> Any:
    if cell.startswith("[") and cell.endswith("]"):
        return None   # [N/A], [Not Supported], [Unknown Error]
    parts = cell.split()
    if len(parts) == 2 and is_number(parts[0]) and parts[1] in ("W", "MHz", "MiB", "%", "C"):
        return float(parts[0]) if "." in parts[0] else int(parts[0])
    if is_number(cell) and not re.match(r"0\d", cell):
        return float(cell) if "." in cell or "e" in cell.lower() else int(cell)
    return cell
