# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""HCA ports against the inventory: every port it expects ACTIVE, LinkUp, at its rate, width and link layer (sysfs).

Standard library only: the health script imports this on the nodes, without Ansible.

What the kernel writes (drivers/infiniband/core/sysfs.c), one line each, under
``<root>/class/infiniband/<device>/ports/<n>/``:

* ``state``: ``"%d: %s"`` -> ``4: ACTIVE``, ``1: DOWN``, ``2: INIT``, ``3: ARMED``;
* ``phys_state``: ``"%u: %s"`` -> ``5: LinkUp``, ``3: Disabled``, ``2: Polling``, ``6: LinkErrorRecovery``;
* ``rate``: ``"%d%s Gb/sec (%dX%s)"`` -> ``400 Gb/sec (4X NDR)``, ``200 Gb/sec (4X HDR)``, ``2.5 Gb/sec (1X SDR)``
  (RoCE ports report the Ethernet speed in the same terms: ``40 Gb/sec (4X QDR)``, ``100 Gb/sec (4X EDR)``); a DOWN
  port still shows a rate, so rate and width are judged on ACTIVE ports only;
* ``link_layer``: ``InfiniBand`` or ``Ethernet``;
* ``../../node_guid`` ``946d:ae03:00cd:e72c`` and ``gids/0``, whose lower 64 bits are the port GUID.

A device the inventory expects that has no ``class/infiniband/<device>`` entry is a finding (the HCA or its driver is
gone). A file of a port that is there but cannot be read (permission, the device vanishing under the read, EINVAL) or
says something this module cannot parse raises ``HcaError``: a read that fails is never a healthy answer.
"""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from typing import Any, List, Mapping, Optional, Sequence

__all__ = ["HcaError", "PortExpectation", "PortReading", "Finding", "expectations", "read_port", "judge"]


class HcaError(Exception):
    """An expectation that is not valid, or a sysfs file that cannot be read or parsed."""


_DEVICE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_GUID = re.compile(r"(?:0x)?([0-9a-fA-F]{16})|([0-9a-fA-F]{4}(?::[0-9a-fA-F]{4}){3})")
_WIDTH = re.compile(r"(1|2|4|8|12)X")
_STATE = re.compile(r"([0-9]{1,2}): ([A-Z_]+)")
_PHYS = re.compile(r"([0-9]{1,2}): ([A-Za-z][A-Za-z ]*)")
_RATE = re.compile(r"([0-9]{1,5}(?:\.5)?) Gb/sec \(([0-9]{1,2})X(?: ([A-Z0-9]+))?\)")
_GID = re.compile(r"[0-9a-f]{4}(?::[0-9a-f]{4}){7}")
LINK_LAYERS = ("InfiniBand", "Ethernet")
_KEYS = {"device", "guid", "port", "rate", "width", "link_layer"}


@dataclass(frozen=True)
class PortExpectation:
    """One port the inventory expects: found by device name or by node/port GUID, at a rate (Gb/s), width, layer."""
    port: int
    rate_gbps: float
    width: int  # lanes: 4 for "4X"
    link_layer: str
    device: Optional[str] = None
    guid: Optional[str] = None  # 16 lower-case hex digits, no 0x

    @property
    def needs(self) -> str:
        return "ACTIVE/LinkUp at %g Gb/s %dX %s" % (self.rate_gbps, self.width, self.link_layer)

    @property
    def name(self) -> str:
        return self.device if self.device else "the HCA with GUID 0x%s" % self.guid


@dataclass(frozen=True)
class PortReading:
    device: str
    port: int
    state: str        # ACTIVE, DOWN, INIT, ARMED ...
    phys_state: str   # LinkUp, Disabled, Polling ...
    rate_gbps: float
    width: int
    speed: Optional[str]  # NDR, HDR, EDR ... as the kernel names the lane speed
    rate_text: str    # the rate line as sysfs wrote it
    link_layer: str


@dataclass(frozen=True)
class Finding:
    """One port that is not as the inventory expects. severity is always "fail": the node cannot run a job on it."""
    severity: str
    code: str
    device: str
    port: int
    message: str
    action: str


def _guid(text: str, where: str) -> str:
    match = _GUID.fullmatch(text.strip()) if isinstance(text, str) else None
    if not match:
        raise HcaError("%s: %r is not a GUID; expected 16 hex digits, as 0x946dae0300cde72c or 946d:ae03:00cd:e72c"
                       % (where, text))
    return (match.group(1) or match.group(2).replace(":", "")).lower()


def _number(value: Any, where: str, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise HcaError("%s: %r is not %s" % (where, value, what))
    return float(value)


def expectations(items: Sequence[Mapping[str, Any]]) -> List[PortExpectation]:
    """Check the inventory's list of expected ports; each item: device or guid, port, rate (Gb/s), width, link_layer.

    Raises HcaError naming the item and key (``expected[2].rate``) for anything that is not valid."""
    if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
        raise HcaError("expected: %r is not a list of ports" % (items,))
    result: List[PortExpectation] = []
    for index, item in enumerate(items):
        where = "expected[%d]" % index
        if not isinstance(item, Mapping):
            raise HcaError("%s: %r is not a mapping with device or guid, port, rate, width, link_layer" % (where, item))
        unknown = sorted(str(key) for key in item if key not in _KEYS)
        if unknown:
            raise HcaError("%s: unknown key(s) %s; allowed: %s" % (where, ", ".join(unknown), ", ".join(sorted(_KEYS))))
        device, guid = item.get("device"), item.get("guid")
        if (device is None) == (guid is None):
            raise HcaError("%s: give exactly one of device (e.g. mlx5_0) or guid (the node or port GUID)" % where)
        if device is not None and not (isinstance(device, str) and _DEVICE.fullmatch(device)):
            raise HcaError("%s.device: %r is not an RDMA device name such as mlx5_0" % (where, device))
        port = item.get("port")
        if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 255:
            raise HcaError("%s.port: %r is not a port number 1-255" % (where, port))
        rate = _number(item.get("rate"), where + ".rate", "a rate in Gb/s above 0 (400 for NDR, 200 for HDR)")
        width = item.get("width")
        width_match = _WIDTH.fullmatch(width) if isinstance(width, str) else None
        if not width_match:
            raise HcaError("%s.width: %r is not a link width; expected 1X, 2X, 4X, 8X or 12X" % (where, width))
        layer = item.get("link_layer")
        if layer not in LINK_LAYERS:
            raise HcaError("%s.link_layer: %r is not InfiniBand or Ethernet" % (where, layer))
        result.append(PortExpectation(port, rate, int(width_match.group(1)), layer, device,
                                      _guid(guid, where + ".guid") if guid is not None else None))
    return result


def _read(path: str) -> str:
    try:
        with open(path, encoding="ascii") as handle:
            text = handle.read()
    except OSError as exc:
        raise HcaError("reading %s failed: %s; the port's state is unknown, which is not healthy"
                       % (path, exc.strerror or exc)) from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise HcaError("reading %s failed: it is not text (%s)" % (path, exc)) from None
    return text.strip()


def _parse(path: str, pattern: "re.Pattern[str]", what: str) -> "re.Match[str]":
    text = _read(path)
    match = pattern.fullmatch(text)
    if not match:
        raise HcaError("%s says %r, not %s" % (path, text[:80], what))
    return match


def read_port(root: str, device: str, port: int) -> PortReading:
    """The four files of one port (the device and port directories must exist)."""
    base = os.path.join(root, "class", "infiniband", device, "ports", str(port))
    state = _parse(os.path.join(base, "state"), _STATE, "'<n>: <STATE>' (4: ACTIVE)")
    phys = _parse(os.path.join(base, "phys_state"), _PHYS, "'<n>: <state>' (5: LinkUp)")
    rate = _parse(os.path.join(base, "rate"), _RATE, "'<Gb/s> Gb/sec (<width>X <speed>)' (400 Gb/sec (4X NDR))")
    layer_path = os.path.join(base, "link_layer")
    layer = _read(layer_path)
    if layer not in LINK_LAYERS:
        raise HcaError("%s says %r, not InfiniBand or Ethernet" % (layer_path, layer[:80]))
    return PortReading(device, port, state.group(2), phys.group(2).strip(), float(rate.group(1)), int(rate.group(2)),
                       rate.group(3), rate.group(0), layer)


def _devices(root: str) -> List[str]:
    base = os.path.join(root, "class", "infiniband")
    if not os.path.isdir(base):
        return []
    try:
        return sorted(os.listdir(base))
    except OSError as exc:
        raise HcaError("listing %s failed: %s; cannot tell which HCAs are there" % (base, exc.strerror or exc)) from None


def _has_guid(root: str, device: str, port: int, guid: str) -> bool:
    """guid is the device's node GUID or the GUID of the expected port (the lower 64 bits of its GID 0)."""
    dev_dir = os.path.join(root, "class", "infiniband", device)
    node_path = os.path.join(dev_dir, "node_guid")
    if _guid(_read(node_path), node_path) == guid:
        return True
    gid_path = os.path.join(dev_dir, "ports", str(port), "gids", "0")
    if not os.path.isfile(gid_path):
        return False
    gid = _read(gid_path)
    if not _GID.fullmatch(gid):
        raise HcaError("%s says %r, not a GID (8 groups of 4 hex digits)" % (gid_path, gid[:80]))
    return gid.replace(":", "")[16:] == guid


def _resolve(root: str, devices: List[str], want: PortExpectation) -> Optional[str]:
    if want.device is not None:
        return want.device if want.device in devices and os.path.isdir(
            os.path.join(root, "class", "infiniband", want.device)) else None
    for device in devices:
        if os.path.isdir(os.path.join(root, "class", "infiniband", device)) and _has_guid(
                root, device, want.port, want.guid or ""):
            return device
    return None


def _port_findings(reading: PortReading, want: PortExpectation) -> List[Finding]:
    where = "%s port %d" % (reading.device, reading.port)
    found: List[Finding] = []
    if reading.link_layer != want.link_layer:
        found.append(Finding("fail", "hca_link_layer", reading.device, reading.port,
                             "%s is %s; the inventory expects %s (needs %s)"
                             % (where, reading.link_layer, want.link_layer, want.needs),
                             "drain; set the port's link type (mlxconfig LINK_TYPE_P%d) as the inventory says, or "
                             "correct the inventory" % reading.port))
    if reading.state != "ACTIVE" or reading.phys_state != "LinkUp":
        hint = ("the physical link is up: the subnet manager has not brought it to ACTIVE"
                if reading.phys_state == "LinkUp" and want.link_layer == "InfiniBand" else
                "check the cable, the transceiver and the switch port")
        found.append(Finding("fail", "hca_port_down", reading.device, reading.port,
                             "%s is %s (physical %s); needs %s" % (where, reading.state, reading.phys_state, want.needs),
                             "drain; %s" % hint))
        return found  # a port that is not up shows a rate it does not run at
    if reading.rate_gbps < want.rate_gbps:
        found.append(Finding("fail", "hca_rate_low", reading.device, reading.port,
                             "%s runs at %s, below the %g Gb/s the inventory expects (needs %s)"
                             % (where, reading.rate_text, want.rate_gbps, want.needs),
                             "drain; check the cable and transceiver and the switch port's speed, then reset the link"))
    if reading.width < want.width:
        found.append(Finding("fail", "hca_width_low", reading.device, reading.port,
                             "%s runs %dX wide (%s), narrower than the %dX the inventory expects (needs %s)"
                             % (where, reading.width, reading.rate_text, want.width, want.needs),
                             "drain; a lane is down: reseat or replace the cable or transceiver"))
    return found


def judge(expected: Sequence[Mapping[str, Any]], root: str = "/sys") -> List[Finding]:
    """Findings for every port the inventory expects (an empty list: all as expected). Raises HcaError when the
    expectation is not valid or a file of a present port cannot be read or parsed."""
    wanted = expectations(expected)
    devices = _devices(root)
    findings: List[Finding] = []
    for want in wanted:
        device = _resolve(root, devices, want)
        if device is None:
            findings.append(Finding(
                "fail", "hca_missing", want.device or "0x%s" % want.guid, want.port,
                "%s is missing: no such device under %s; needs port %d %s" % (
                    want.name, os.path.join(root, "class", "infiniband"), want.port, want.needs),
                "drain; check the card is seen (lspci), its driver (mlx5_core, mlx5_ib) is loaded and its firmware "
                "is healthy; a card that stays missing after a reboot needs the vendor"))
            continue
        port_dir = os.path.join(root, "class", "infiniband", device, "ports", str(want.port))
        if not os.path.isdir(port_dir):
            findings.append(Finding(
                "fail", "hca_port_missing", device, want.port,
                "%s has no port %d (%s is missing); needs %s" % (device, want.port, port_dir, want.needs),
                "drain; check the inventory's port number and the card's firmware configuration"))
            continue
        findings.extend(_port_findings(read_port(root, device, want.port), want))
    return findings
