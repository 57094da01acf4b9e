# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Parse what the RDMA tools print into one model of HCAs and ports (stdlib only, runs on the target).

Tools and the shape they print (see docs/rdma-info.md for worked examples):

* ``ibstat`` (infiniband-diags): ``CA 'mlx5_0'`` blocks, ``Port N:`` sub-blocks, decimal LIDs, ``Rate: 400``;
  it stops with ``ibpanic: ... stat of IB device 'mlx5_8' failed`` (exit 255) on a device it cannot read;
* ``ibstatus``: ``Infiniband device 'mlx5_0' port 1 status:`` blocks, hexadecimal LIDs, ``4: ACTIVE``;
* ``ibv_devinfo`` (rdma-core): ``hca_id:`` blocks, ``PORT_ACTIVE (4)``, colon-grouped GUIDs;
* ``rdma link show`` (iproute2): one line per port, ``link mlx5_0/1 ...`` or the older ``0/1: mlx5_0/1: ...``,
  ``subnet_prefix``/``lid`` only on InfiniBand ports (the kernel fills them for IB link layers only);
* ``ibdev2netdev`` (MLNX_OFED): ``mlx5_0 port 1 ==> ens192f0 (Up)``.

Every value is normalised to one spelling: state ``ACTIVE``/``DOWN``/``INIT``/``ARMED``, physical state
``LinkUp``/``Polling``/``Disabled``..., link layer ``InfiniBand``/``Ethernet``, GUIDs ``0x`` + 16 hex digits,
rate in Gb/s as a number. ``merge`` combines readings (earlier sources win) and ``summarise`` counts them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from typing import Any, Callable, Dict, List, Optional, Tuple, Union


class RdmaParseError(ValueError):
    """A tool's output or a sysfs value cannot be read; the message names the value and what was expected."""


Number = Union[int, float]

PORT_STATES = ("NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER")  # IBTA PortState codes 0-5
PHYS_STATES = {1: "Sleep", 2: "Polling", 3: "Disabled", 4: "PortConfigurationTraining", 5: "LinkUp",
               6: "LinkErrorRecovery", 7: "PhyTest"}
# Spellings without case, spaces or underscores -> code. rdma(8) prints ARMED for code 4 (its table) and
# LINK_ERROR_RECOVER for 6.
_PHYS_NAMES = {"sleep": 1, "polling": 2, "disabled": 3, "portconfigurationtraining": 4, "armed": 4, "linkup": 5,
               "linkerrorrecovery": 6, "linkerrorrecover": 6, "phytest": 7,
               "portconfigurationtrainning": 4}  # sic, ibv_devinfo -v
# Lane speed in Gb/s as ibv_devinfo -v prints it -> the IBTA name (FDR10 prints as 10.0 and reads as QDR).
_LANE_SPEEDS = {2.5: "SDR", 5.0: "DDR", 10.0: "QDR", 14.0: "FDR", 25.0: "EDR", 50.0: "HDR", 100.0: "NDR", 200.0: "XDR"}


@dataclass
class Port:
    number: int
    state: Optional[str] = None
    phys_state: Optional[str] = None
    rate_gbps: Optional[Number] = None
    rate_detail: Optional[str] = None      # "4X NDR": width and generation, when the source prints them
    link_layer: Optional[str] = None
    base_lid: Optional[int] = None
    sm_lid: Optional[int] = None
    lmc: Optional[int] = None
    port_guid: Optional[str] = None
    gid0: Optional[str] = None
    capability_mask: Optional[str] = None
    netdev: Optional[str] = None


@dataclass
class Device:
    name: str
    ca_type: Optional[str] = None
    firmware: Optional[str] = None
    hardware_version: Optional[str] = None
    board_id: Optional[str] = None
    vendor_part_id: Optional[int] = None
    node_guid: Optional[str] = None
    sys_image_guid: Optional[str] = None
    numa_node: Optional[int] = None
    pci_address: Optional[str] = None
    ports: Dict[int, Port] = field(default_factory=dict)

    def port(self, number: int) -> Port:
        return self.ports.setdefault(number, Port(number))


@dataclass
class Reading:
    """What one source said: devices by name, and the problems it reported (ibpanic lines, errors)."""
    source: str
    devices: Dict[str, Device] = field(default_factory=dict)
    problems: List[str] = field(default_factory=list)

    def device(self, name: str) -> Device:
        return self.devices.setdefault(name, Device(name))


# ---------------------------------------------------------------- value normalisers

def natural_key(name: str) -> Tuple[Any, ...]:
    """mlx5_2 before mlx5_10."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name))


def norm_state(text: str) -> str:
    """'4: ACTIVE', 'Active', 'PORT_ACTIVE (4)', 'ACTIVE', '4' -> 'ACTIVE'; 'Initializing' -> 'INIT'."""
    value = re.sub(r"\s*\(\d+\)\Z", "", text.strip())
    value = re.sub(r"^\d+:\s*", "", value).strip().upper().replace(" ", "_")
    if value.isdigit():
        code = int(value)
        if code >= len(PORT_STATES):
            raise RdmaParseError("port state %r is not a code 0-%d nor a name; expected e.g. '4: ACTIVE'"
                                 % (text, len(PORT_STATES) - 1))
        return PORT_STATES[code]
    if value.startswith("PORT_"):
        value = value[len("PORT_"):]
    if not value:
        raise RdmaParseError("port state %r is empty; expected e.g. 'ACTIVE'" % (text,))
    return {"INITIALIZING": "INIT", "ACTIVE_DEFERRED": "ACTIVE_DEFER"}.get(value, value)


def norm_phys_state(text: str) -> str:
    """'5: LinkUp', 'LinkUp', 'LINK_UP', 'LINK_UP (5)' -> 'LinkUp'; an unknown spelling is kept as printed."""
    value = text.strip()
    code = re.match(r"^(\d+):", value) or re.search(r"\((\d+)\)\Z", value)
    if code and int(code.group(1)) in PHYS_STATES:
        return PHYS_STATES[int(code.group(1))]
    name = re.sub(r"^\d+:\s*|\s*\(\d+\)\Z", "", value)
    key = re.sub(r"[^a-z]", "", name.lower())
    if not key:
        raise RdmaParseError("physical state %r is empty; expected e.g. 'LinkUp'" % (text,))
    return PHYS_STATES[_PHYS_NAMES[key]] if key in _PHYS_NAMES else name


def norm_link_layer(text: str) -> Optional[str]:
    key = text.strip().lower()
    if key in ("infiniband", "ib"):
        return "InfiniBand"
    if key in ("ethernet", "eth"):
        return "Ethernet"
    return None if key in ("", "unknown", "unspecified") else text.strip()


def _number(value: float) -> Number:
    return int(value) if value == int(value) else value


def parse_rate(text: str) -> Tuple[Number, Optional[str]]:
    """'400 Gb/sec (4X NDR)' -> (400, '4X NDR'); ibstat's '400' -> (400, None); '2.5 Gb/sec (1X SDR)' -> 2.5."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(?:Gb/sec|Gb/s|Gbps)?\s*(?:\((.*)\))?\s*", text)
    if not match:
        raise RdmaParseError("rate %r is not '<Gb/s> [Gb/sec (<width>X <speed>)]'; expected e.g. '400 Gb/sec (4X NDR)'"
                             % (text,))
    detail = match.group(2).strip() if match.group(2) else None
    return _number(float(match.group(1))), detail or None


def parse_guid(text: str) -> str:
    """'0x946dae0300cde72c', '946d:ae03:00cd:e72c' or '946dae0300cde72c' -> '0x946dae0300cde72c'."""
    digits = text.strip().lower()
    if digits.startswith("0x"):
        digits = digits[2:]
    digits = digits.replace(":", "")
    if not re.fullmatch(r"[0-9a-f]{1,16}", digits):
        raise RdmaParseError("GUID %r is not 16 hex digits; expected 0x946dae0300cde72c or 946d:ae03:00cd:e72c" % (text,))
    return "0x%016x" % int(digits, 16)


def parse_gid(text: str) -> Optional[str]:
    """A GID as 8 groups of 4 hex digits; 'unknown' (ibstatus on a port without GID 0) -> None."""
    value = text.strip().lower()
    if value in ("", "unknown"):
        return None
    groups = value.split(":")
    if len(groups) != 8 or not all(re.fullmatch(r"[0-9a-f]{1,4}", g) for g in groups):
        raise RdmaParseError("GID %r is not 8 colon-separated groups of hex digits; expected e.g. "
                             "fe80:0000:0000:0000:946d:ae03:00cd:e72c" % (text,))
    return ":".join(g.zfill(4) for g in groups)


def guid_of_gid(gid: str) -> str:
    """Port GUID = the lower 64 bits (interface id) of GID 0, as ibstat derives it."""
    return parse_guid("".join(gid.split(":")[4:]))


def parse_int(text: str) -> int:
    """'0x4b' (sysfs, ibstatus) or '75' (ibstat, rdma) -> 75."""
    value = text.strip().lower()
    try:
        return int(value, 16) if value.startswith("0x") else int(value)
    except ValueError:
        raise RdmaParseError("number %r is neither decimal (75) nor 0x-hexadecimal (0x4b)" % (text,)) from None


def hex_version(text: str) -> str:
    """Hardware revision: sysfs/ibstat print hex digits without 0x ('0'), ibv_devinfo '0x0' -> '0x0'."""
    value = text.strip().lower()
    value = value[2:] if value.startswith("0x") else value
    if not re.fullmatch(r"[0-9a-f]+", value):
        raise RdmaParseError("hardware version %r is not hexadecimal" % (text,))
    return "0x%x" % int(value, 16)


# ---------------------------------------------------------------- parsers

def _assign(reading: Reading, target: Any, attr: str, conv: Callable[[str], Any], value: str, where: str) -> None:
    """Set one attribute; a value that does not parse is reported in reading.problems and the rest is kept."""
    try:
        parsed = conv(value)
    except RdmaParseError as exc:
        reading.problems.append("%s: %s" % (where, exc))
        return
    if attr == "rate":
        target.rate_gbps, target.rate_detail = parsed
    elif attr == "gid0":
        target.gid0 = parsed
        if parsed is not None:
            target.port_guid = guid_of_gid(parsed)
    else:
        setattr(target, attr, parsed)


_IBSTAT_DEVICE = {"ca type": ("ca_type", str), "firmware version": ("firmware", str),
                  "hardware version": ("hardware_version", hex_version), "node guid": ("node_guid", parse_guid),
                  "system image guid": ("sys_image_guid", parse_guid)}
_IBSTAT_PORT = {"state": ("state", norm_state), "physical state": ("phys_state", norm_phys_state),
                "rate": ("rate", parse_rate), "base lid": ("base_lid", parse_int), "lmc": ("lmc", parse_int),
                "sm lid": ("sm_lid", parse_int), "capability mask": ("capability_mask", str),
                "port guid": ("port_guid", parse_guid), "link layer": ("link_layer", norm_link_layer)}


def parse_ibstat(text: str) -> Reading:
    reading = Reading("ibstat")
    device = port = None
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        ca_match = re.fullmatch(r"CA '([^']+)'", line)
        port_match = re.fullmatch(r"Port (\d+):", line)
        if ca_match:
            device, port = reading.device(ca_match.group(1)), None
        elif re.match(r"ib(panic|error|warn):", line):
            reading.problems.append(line)
        elif port_match:
            if device is None:
                raise RdmaParseError("ibstat output line %d %r comes before any \"CA '<name>'\" line; give the "
                                     "whole ibstat output, not a filtered one" % (lineno, line))
            port = device.port(int(port_match.group(1)))
        elif device is not None and ":" in line:
            key, value = (part.strip() for part in line.split(":", 1))
            table, target = (_IBSTAT_DEVICE, device) if port is None else (_IBSTAT_PORT, port)
            if key.lower() in table:
                attr, conv = table[key.lower()]
                _assign(reading, target, attr, conv, value, "line %d" % lineno)
    return reading


_IBSTATUS_PORT = {"default gid": ("gid0", parse_gid), "base lid": ("base_lid", parse_int),
                  "sm lid": ("sm_lid", parse_int), "state": ("state", norm_state),
                  "phys state": ("phys_state", norm_phys_state), "rate": ("rate", parse_rate),
                  "link_layer": ("link_layer", norm_link_layer)}


def parse_ibstatus(text: str) -> Reading:
    reading = Reading("ibstatus")
    port = None
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        header = re.fullmatch(r"Infiniband device '([^']+)' port (\d+) status:", line)
        if header:
            port = reading.device(header.group(1)).port(int(header.group(2)))
        elif line.lower().startswith(("fatal error", "error")):
            reading.problems.append(line)
        elif port is not None and ":" in line:
            key, value = (part.strip() for part in line.split(":", 1))
            if key.lower() in _IBSTATUS_PORT:
                attr, conv = _IBSTATUS_PORT[key.lower()]
                _assign(reading, port, attr, conv, value, "line %d" % lineno)
    return reading


_DEVINFO_DEVICE = {"fw_ver": ("firmware", str), "node_guid": ("node_guid", parse_guid),
                   "sys_image_guid": ("sys_image_guid", parse_guid), "vendor_part_id": ("vendor_part_id", parse_int),
                   "hw_ver": ("hardware_version", hex_version), "board_id": ("board_id", str)}
_DEVINFO_PORT = {"state": ("state", norm_state), "sm_lid": ("sm_lid", parse_int), "port_lid": ("base_lid", parse_int),
                 "port_lmc": ("lmc", parse_int), "link_layer": ("link_layer", norm_link_layer),
                 "phys_state": ("phys_state", norm_phys_state), "port_cap_flags": ("capability_mask", str),
                 "gid[0]": ("gid0", parse_gid)}


def _devinfo_rate(port: Port, width: Optional[str], speed: Optional[str]) -> None:
    """ibv_devinfo -v prints active_width '4X (2)' and active_speed '100.0 Gbps (128)': rate = width x lane."""
    lanes = re.match(r"^(\d+)X", width or "")
    lane = re.match(r"^(\d+(?:\.\d+)?) Gbps", speed or "")
    if lanes and lane:
        gbps = float(lane.group(1))
        port.rate_gbps = _number(int(lanes.group(1)) * gbps)
        port.rate_detail = "%sX %s" % (lanes.group(1), _LANE_SPEEDS[gbps]) if gbps in _LANE_SPEEDS else None


def parse_ibv_devinfo(text: str) -> Reading:
    """Plain or -v output; -v adds phys_state, active_width/active_speed (-> rate) and GID[0]."""
    reading = Reading("ibv_devinfo")
    device = port = None
    extra = {}  # type: Dict[str, str]

    def close_port() -> None:
        if port is not None:
            _devinfo_rate(port, extra.get("active_width"), extra.get("active_speed"))
        extra.clear()

    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if ":" not in line:
            continue  # blank lines and the capability flag names of -v
        key, value = (part.strip() for part in line.split(":", 1))
        key = re.sub(r"^GID\[\s*(\d+)\]\Z", r"gid[\1]", key)
        if key == "hca_id":
            close_port()
            device, port = reading.device(value), None
        elif device is None:
            if line.startswith(("Failed", "IB device")):
                reading.problems.append(line)
        elif key == "port":
            close_port()
            port = device.port(parse_int(value))
        elif port is not None and key in ("active_width", "active_speed"):
            extra[key] = value
        elif key in (_DEVINFO_DEVICE if port is None else _DEVINFO_PORT):
            attr, conv = (_DEVINFO_DEVICE if port is None else _DEVINFO_PORT)[key]
            _assign(reading, device if port is None else port, attr, conv, value, "line %d" % lineno)
    close_port()
    return reading


_RDMA_LINK = re.compile(r"(?:link|\d+/\d+:)\s+([^\s/]+)/(\d+):?(?:\s+(.*))?")  # fullmatch
_RDMA_KEYS = {"state": ("state", norm_state), "physical_state": ("phys_state", norm_phys_state),
              "lid": ("base_lid", parse_int), "sm_lid": ("sm_lid", parse_int), "lmc": ("lmc", parse_int),
              "netdev": ("netdev", str)}


def _rdma_tokens(reading: Reading, port: Port, tokens: List[str], seen: Dict[str, str], where: str) -> None:
    for key, value in zip(tokens[0::2], tokens[1::2]):
        seen[key] = value
        if key in _RDMA_KEYS:
            attr, conv = _RDMA_KEYS[key]
            _assign(reading, port, attr, conv, value, where)
    # The kernel (nldev fill_port_info) sends subnet_prefix and LIDs for InfiniBand link layers only.
    port.link_layer = "InfiniBand" if "subnet_prefix" in seen else "Ethernet"


def parse_rdma_link(text: str) -> Reading:
    """`rdma link show` in both formats; an indented `caps: <...>` line (-d) is skipped, other indented
    lines continue the port above."""
    reading = Reading("rdma")
    port = None  # type: Optional[Port]
    seen = {}  # type: Dict[str, str]
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        match = _RDMA_LINK.fullmatch(line)
        if not line or line.startswith("caps:"):
            continue
        if match:
            port, seen = reading.device(match.group(1)).port(int(match.group(2))), {}
            _rdma_tokens(reading, port, (match.group(3) or "").split(), seen, "line %d" % lineno)
        elif port is not None and raw[:1].isspace():
            _rdma_tokens(reading, port, line.split(), seen, "line %d" % lineno)
        else:
            reading.problems.append(line)
    return reading


def parse_ibdev2netdev(text: str) -> Reading:
    reading = Reading("ibdev2netdev")
    for raw in text.splitlines():
        line = raw.strip()
        match = re.fullmatch(r"(\S+) port (\d+) =+> (\S+) \((\w+)\)", line)
        if match:
            reading.device(match.group(1)).port(int(match.group(2))).netdev = match.group(3)
        elif line:
            reading.problems.append(line)
    return reading


PARSERS = {"ibstat": parse_ibstat, "ibstatus": parse_ibstatus, "ibv_devinfo": parse_ibv_devinfo,
           "rdma": parse_rdma_link, "ibdev2netdev": parse_ibdev2netdev}


# ---------------------------------------------------------------- merging and summary

_PORT_FIELDS = [f.name for f in fields(Port) if f.name != "number"]
_DEVICE_FIELDS = [f.name for f in fields(Device) if f.name not in ("name", "ports")]


def merge(readings: List[Reading]) -> List[Dict[str, Any]]:
    """One dict per device (natural name order) with its ports; each field from the first reading that has it.

    ``sources`` lists the readings that mention the device or port, in the order given.
    """
    names = sorted({name for reading in readings for name in reading.devices}, key=natural_key)
    out = []
    for name in names:
        present = [r for r in readings if name in r.devices]
        device = {"name": name}  # type: Dict[str, Any]
        for attr in _DEVICE_FIELDS:
            device[attr] = next((getattr(r.devices[name], attr) for r in present
                                 if getattr(r.devices[name], attr) is not None), None)
        numbers = sorted({n for r in present for n in r.devices[name].ports})
        ports = []
        for number in numbers:
            have = [r for r in present if number in r.devices[name].ports]
            port = {"port": number}  # type: Dict[str, Any]
            for attr in _PORT_FIELDS:
                port[attr] = next((getattr(r.devices[name].ports[number], attr) for r in have
                                   if getattr(r.devices[name].ports[number], attr) is not None), None)
            port["sources"] = [r.source for r in have]
            ports.append(port)
        device["ports"] = ports
        device["sources"] = [r.source for r in present]
        out.append(device)
    return out


def down_reason(state: Optional[str], phys_state: Optional[str]) -> str:
    """Why a port is not ACTIVE, in words, from its logical and physical state."""
    if state is None:
        return "no source reported the port state"
    if phys_state == "Disabled":
        return "port disabled (physical state Disabled): administratively down or a disabled VF/port"
    if phys_state == "Polling":
        return "no link (physical state Polling): cable, transceiver or the far end is down"
    if phys_state == "Sleep":
        return "port asleep (physical state Sleep)"
    if phys_state in ("PortConfigurationTraining", "LinkErrorRecovery"):
        return "link training or recovering (physical state %s)" % phys_state
    if phys_state == "LinkUp" and state == "INIT":
        return "link up but not configured by a subnet manager (state INIT): is opensm/UFM running?"
    if phys_state == "LinkUp" and state == "ARMED":
        return "armed by the subnet manager, not yet activated (state ARMED)"
    return "state %s, physical state %s" % (state, phys_state or "unknown")


def summarise(devices: List[Dict[str, Any]]) -> Dict[str, Any]:
    """Counts of ports, ACTIVE ports by link layer, and the ports that are not ACTIVE with a reason."""
    active = {}  # type: Dict[str, int]
    not_active = []
    ports = [(d["name"], p) for d in devices for p in d["ports"]]
    for name, port in ports:
        if port["state"] == "ACTIVE":
            layer = port["link_layer"] or "unknown"
            active[layer] = active.get(layer, 0) + 1
        else:
            not_active.append({"device": name, "port": port["port"], "state": port["state"],
                               "phys_state": port["phys_state"], "link_layer": port["link_layer"],
                               "reason": down_reason(port["state"], port["phys_state"])})
    return {"devices": len(devices), "ports": len(ports), "active": sum(active.values()),
            "active_by_link_layer": dict(sorted(active.items())), "not_active": not_active}
