# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The TCP sockets a node listens on, read from the kernel's /proc/net/tcp and /proc/net/tcp6.

Used to prove that a daemon meant for local clients only (MariaDB, nv-hostengine) listens on loopback and on
nothing else. The kernel's tables are read rather than ``ss``'s output: they are there on every Linux node
(``ss`` needs iproute2), in the node's (or container's) own network namespace, and their format has not changed
since Linux 2.6: one line per socket, ``sl local_address rem_address st ...``, the local address in hex as the
kernel holds it (each 32-bit word in the host's byte order) and the port in hex; state ``0A`` is LISTEN.
"""
from __future__ import annotations

import ipaddress
import re
import struct
import sys
from dataclasses import dataclass
from typing import Dict, Iterable, List

__all__ = ["TcpListenerError", "Listener", "parse_proc_net_tcp", "listeners_on"]

_LISTEN = "0A"
_HEADER_RE = re.compile(r"\s*sl\s+local_address\s+rem(?:ote)?_address\s+st\b.*")
_LINE_RE = re.compile(r"\s*[0-9]+:\s+([0-9A-Fa-f]{8}|[0-9A-Fa-f]{32}):([0-9A-Fa-f]{4})\s+\S+\s+([0-9A-Fa-f]{2})\b.*")


class TcpListenerError(ValueError):
    """A table the kernel would not print: the read is refused rather than taken as 'nothing listens'."""


@dataclass(frozen=True)
class Listener:
    """One listening TCP socket: its local address (text, IPv6 compressed) and port."""

    address: str
    port: int

    @property
    def loopback(self) -> bool:
        """Whether only the node itself can reach it: 127.0.0.0/8, ::1, or ::ffff:127.x (an IPv4-mapped loopback).
        The wildcard addresses (0.0.0.0, ::) are every address, so not loopback."""
        address = ipaddress.ip_address(self.address)
        mapped = getattr(address, "ipv4_mapped", None)
        return bool(address.is_loopback or (mapped is not None and mapped.is_loopback))


def _address(hex_text: str, byteorder: str) -> str:
    """The kernel's hex of an address (32-bit words in host byte order) as text."""
    fmt = "<I" if byteorder == "little" else ">I"
    packed = b"".join(struct.pack(fmt, int(hex_text[i:i + 8], 16)) for i in range(0, len(hex_text), 8))
    address = ipaddress.ip_address(packed)
    mapped = getattr(address, "ipv4_mapped", None)
    # The dotted form of an IPv4-mapped address, whichever Python prints it (3.13 does, 3.11 says ::ffff:7f00:1).
    return "::ffff:%s" % mapped if mapped is not None else str(address)


def parse_proc_net_tcp(text: str, family: int, byteorder: str = sys.byteorder) -> List[Listener]:
    """The listening sockets of /proc/net/tcp (family 4) or /proc/net/tcp6 (family 6), in the table's order.

    Refuses a table without its header line or with a line it cannot read: a read that went wrong must not look
    like a node where nothing listens.
    """
    if family not in (4, 6):
        raise TcpListenerError("family must be 4 or 6, got %r" % (family,))
    lines = text.splitlines()
    if not lines or not _HEADER_RE.fullmatch(lines[0]):
        raise TcpListenerError("/proc/net/tcp%s does not start with the kernel's header line: %r"
                               % ("" if family == 4 else "6", text[:200]))
    width = 8 if family == 4 else 32
    listeners = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        match = _LINE_RE.fullmatch(line)
        if match is None or len(match.group(1)) != width:
            raise TcpListenerError("line %d of /proc/net/tcp%s is not a socket line: %r"
                                   % (number, "" if family == 4 else "6", line[:200]))
        if match.group(3).upper() == _LISTEN:
            listeners.append(Listener(_address(match.group(1), byteorder), int(match.group(2), 16)))
    return listeners


def listeners_on(listeners: Iterable[Listener], ports: Iterable[int]) -> Dict[str, Dict[str, List[str]]]:
    """For each port, the addresses listening on it and those of them that are not loopback ('exposed'),
    each list sorted and without repeats; keyed by the port as text (a JSON object's keys are text)."""
    found = list(listeners)
    out = {}
    for port in ports:
        on_port = [item for item in found if item.port == port]
        out[str(port)] = {"addresses": sorted({item.address for item in on_port}),
                          "exposed": sorted({item.address for item in on_port if not item.loopback})}
    return out
