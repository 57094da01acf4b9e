# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Kernel XID reports: NVRM Xid lines parsed, read from the journal since a cursor, judged per GPU.

The NVIDIA driver reports a GPU fault as a kernel line such as
``NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the bus.``; older drivers leave out
``PCI:``, ``pid=`` and ``name=``, newer ones print ``pid='<unknown>', name=<unknown>`` when no process is known.
``parse_xid_line`` reads one line, ``read_journal`` the output of ``journalctl -k -o json --after-cursor=C``, and
``judge`` gives, per GPU, the worst action class the events need, with a drain reason that names the GPU's bus
id, the XIDs and the action. The catalogue (xid_catalogue.CATALOGUE, or any mapping of code to an entry with
``mnemonic``, ``nvidia_action``, ``action`` and ``note``) is passed in, so this module imports nothing beyond the
standard library: it runs on the nodes without Ansible.

Rules beyond the catalogue's bucket, applied where the line carries the data (sources in xid_catalogue):

- 45 (preemptive cleanup): informational when the line says ``caused by previous Xid N`` or another XID is
  reported for the same GPU (the other one decides); alone, the catalogue entry's class.
- 63 (row remap / page retirement recorded): ``reset`` when the line says the remap or retirement waits for a
  reset or a driver reload to activate; informational otherwise.
- 74 (NVLink, Hopper): the seven registers decoded per the catalogue's WORKFLOW_NVLINK_ERR (bit groups in _nvlink);
  repetition counted over the events judged together on the same GPU and link.
- 154 (GPU recovery action changed): the action it changed to (0 None, 1 GPU reset, 2 node reboot, 3 drain P2P,
  4 drain and reset; 3 and 4 are ``reset`` here, an unknown value needs a person).
- A code not in the catalogue needs a person (``rma``) until the catalogue says otherwise.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

#: Action classes, mildest first (the same names as xid_catalogue's entries use).
ACTIONS = ("informational", "application", "reset", "reboot", "rma")
#: The classes for which the node leaves service (the others leave it as it is).
DRAINING = ("reset", "reboot", "rma")
_PHRASES = {"informational": "no action", "application": "the job's fault, node fine", "reset": "reset the GPU",
            "reboot": "reboot the node", "rma": "needs a person (RMA or support)"}

_MARKER = "NVRM: Xid ("
_LINE = re.compile(r"NVRM: Xid \((?:PCI:)?(?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2})(?:\.[0-7])?\): "
                   r"(?P<code>[0-9]{1,5})(?:,(?P<rest>.*))?")
_PID = re.compile(r" ?pid=(?P<pid>[0-9]{1,10}|'<unknown>'|<unknown>|'<n/a>'|<n/a>)(?:,|$)")
_NAME = re.compile(r" ?name=(?P<name>[^,]*)(?:,|$)")
_UNKNOWN_NAMES = ("<unknown>", "'<unknown>'", "<n/a>", "'<n/a>'", "")
_BUS = re.compile(r"(?:PCI:)?(?P<domain>[0-9A-Fa-f]{4,8}):(?P<bus>[0-9A-Fa-f]{2}):(?P<device>[0-9A-Fa-f]{2})"
                  r"(?:\.[0-7])?")
_CURSOR = re.compile(r"[0-9A-Za-z=;]{1,1024}")
_TIMESTAMP = re.compile(r"[0-9]{1,20}")

_CAUSED_BY = re.compile(r"caused by previous Xid (?P<code>[0-9]{1,5})")
_TO_ACTIVATE = re.compile(r"(?:reset gpu|reload the driver) to activate", re.IGNORECASE)
_RECOVERY = re.compile(r"recovery action changed from 0x[0-9A-Fa-f]+ \([^)]*\) to 0x(?P<to>[0-9A-Fa-f]{1,8})")
_RECOVERY_ACTIONS = {0: "informational", 1: "reset", 2: "reboot", 3: "reset", 4: "reset"}
_NVLINK = re.compile(r"link (?P<link>[0-9]{1,3}) ?\((?P<regs>0x[0-9A-Fa-f]{1,8}(?:, ?0x[0-9A-Fa-f]{1,8}){6})\)")


class XidError(Exception):
    """A kernel log read or an XID line that cannot be trusted; the message says what and why."""


@dataclass(frozen=True)
class XidEvent:
    """One XID report: the GPU's bus id (``0000:3b:00``), the code, the process if named, and the rest of the line.

    ``realtime_us`` and ``cursor`` are the journal record's (``None`` for a line read elsewhere).
    """

    bus_id: str
    code: int
    pid: Optional[int]
    process: Optional[str]
    message: str
    realtime_us: Optional[int] = None
    cursor: Optional[str] = None


@dataclass(frozen=True)
class JournalRead:
    """What one journal read gave: the XID events in order, the cursor to read from next, the records read."""

    events: Tuple[XidEvent, ...]
    cursor: Optional[str]
    records: int


@dataclass(frozen=True)
class Finding:
    """One GPU's verdict: the worst action its XIDs need, every code with its count, the codes that decided, why."""

    bus_id: str
    action: str
    codes: Tuple[Tuple[int, int], ...]
    deciding: Tuple[int, ...]
    reason: str
    notes: Tuple[str, ...]

    @property
    def drains(self) -> bool:
        """Whether the node must leave service for this GPU (reset, reboot or a person)."""
        return self.action in DRAINING


def normalise_bus_id(text: str) -> str:
    """``0000:3b:00`` from the driver's ``PCI:0000:3b:00`` or nvidia-smi's ``00000000:3B:00.0``."""
    match = _BUS.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        raise XidError("a PCI bus id must look like 0000:3b:00 or 00000000:3B:00.0, got %r" % (text,))
    return "%04x:%s:%s" % (int(match.group("domain"), 16), match.group("bus").lower(), match.group("device").lower())


def parse_xid_line(text: str, strict: bool = False) -> Optional[XidEvent]:
    """The XID event a kernel line reports, or ``None`` when it reports none.

    Anything before ``NVRM: Xid (`` (a dmesg time, ``kernel:``, a syslog prefix) is skipped. A line that has the
    marker but not the driver's form is ``None``, or, with ``strict``, an XidError: a health read must not pass
    over an XID it could not read.
    """
    if not isinstance(text, str):
        if strict:
            raise XidError("a kernel line must be text, got %s" % type(text).__name__)
        return None
    start = text.find(_MARKER)
    if start < 0:
        return None
    match = _LINE.fullmatch(text[start:].rstrip("\r\n"))
    if match is None:
        if strict:
            raise XidError("a kernel line has %r but not the driver's XID form: %r" % (_MARKER, text[:300]))
        return None
    rest = match.group("rest") or ""
    pid = process = None
    found = _PID.match(rest)
    if found:
        pid = int(found.group("pid")) if found.group("pid").isdigit() else None
        rest = rest[found.end():]
        found = _NAME.match(rest)
        if found:
            process = None if found.group("name") in _UNKNOWN_NAMES else found.group("name")
            rest = rest[found.end():]
    return XidEvent(normalise_bus_id(match.group("bus")), int(match.group("code")), pid, process,
                    rest[1:] if rest.startswith(" ") else rest)


def format_xid_line(event: XidEvent) -> str:
    """The line the driver prints for ``event`` (its newer form): the inverse of parse_xid_line."""
    parts = ["NVRM: Xid (PCI:%s): %d" % (event.bus_id, event.code)]
    if event.pid is not None or event.process is not None:
        parts.append("pid=%s" % ("'<unknown>'" if event.pid is None else event.pid))
        parts.append("name=%s" % ("<unknown>" if event.process is None else event.process))
    parts.append(event.message)
    return ", ".join(parts)


def _message(record: Mapping[str, Any], number: int) -> str:
    message = record.get("MESSAGE")
    if isinstance(message, str):
        return message
    if isinstance(message, list) and all(isinstance(b, int) and not isinstance(b, bool) and 0 <= b <= 255
                                         for b in message):
        return bytes(message).decode("utf-8", "replace")
    if message is None:
        raise XidError("journal record %d has no MESSAGE (journalctl prints null for a field over 4096 bytes "
                       "unless called with --all)" % number)
    raise XidError("journal record %d: MESSAGE must be text or a list of bytes, got %s"
                   % (number, type(message).__name__))


def read_journal(lines: Iterable[Union[str, bytes]], cursor: Optional[str]) -> JournalRead:
    """The XID events in the output of ``journalctl -k -o json --after-cursor=<cursor>``, and the next cursor.

    ``lines`` is that output, one JSON object a line. Every record must be whole (``__CURSOR``, ``MESSAGE``,
    ``__REALTIME_TIMESTAMP``) and every XID line readable: anything else is an XidError, never a partial result,
    since a drain or a resume is decided on it. An empty read keeps ``cursor``.
    """
    if cursor is not None and (not isinstance(cursor, str) or _CURSOR.fullmatch(cursor) is None):
        raise XidError("the journal cursor must be journald's (letters, digits, '=' and ';'), got %r" % (cursor,))
    events: List[XidEvent] = []
    records = 0
    for line in lines:
        if isinstance(line, bytes):
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise XidError("journal record %d is not UTF-8: %s" % (records + 1, exc)) from exc
        if not isinstance(line, str):
            raise XidError("journal lines must be text, got %s" % type(line).__name__)
        if not line.strip():
            continue
        records += 1
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise XidError("journal record %d is not JSON (%s): %r" % (records, exc, line[:200])) from exc
        if not isinstance(record, dict):
            raise XidError("journal record %d must be a JSON object, got %s" % (records, type(record).__name__))
        next_cursor = record.get("__CURSOR")
        if not isinstance(next_cursor, str) or _CURSOR.fullmatch(next_cursor) is None:
            raise XidError("journal record %d has no valid __CURSOR: %r" % (records, next_cursor))
        stamp = record.get("__REALTIME_TIMESTAMP")
        if not isinstance(stamp, str) or _TIMESTAMP.fullmatch(stamp) is None:
            raise XidError("journal record %d has no valid __REALTIME_TIMESTAMP: %r" % (records, stamp))
        event = parse_xid_line(_message(record, records), strict=True)
        if event is not None:
            events.append(XidEvent(event.bus_id, event.code, event.pid, event.process, event.message,
                                   int(stamp), next_cursor))
        cursor = next_cursor
    return JournalRead(tuple(events), cursor, records)


def _worst(actions: Iterable[str]) -> str:
    return max(actions, key=ACTIONS.index, default="informational")


def _bits(value: int, bits: Sequence[int]) -> bool:
    return any(value >> bit & 1 for bit in bits)


def _link(event: XidEvent) -> Optional[str]:
    match = _NVLINK.search(event.message)
    return match.group("link") if match else None


def _nvlink(event: XidEvent, entry: Any, same_gpu: Sequence[XidEvent]) -> Tuple[str, str]:
    """XID 74 per WORKFLOW_NVLINK_ERR (Hopper: registers 1, 3, 4, 5 of 7 are valid; r0, r2, r3, r4 here)."""
    match = _NVLINK.search(event.message)
    if match is None:
        return entry.action, "XID 74 without its registers: %s" % entry.note
    link = match.group("link")
    regs = [int(reg, 16) for reg in match.group("regs").split(",")]
    r0, r2, r3, r4 = regs[0], regs[2], regs[3], regs[4]
    seen = sum(1 for other in same_gpu if other.code == 74 and _link(other) == link)
    known = {0: (0, 1, 4, 5, 8, 9, 12, 16, 17, 20, 21, 22, 23, 24, 27, 28, 29, 30),
             2: (0, 1, 2, 6, 13, 16, 17, 18, 19), 3: (16, 17, 18), 4: tuple(range(18, 30))}
    if any(regs[reg] & ~sum(1 << bit for bit in bits) for reg, bits in known.items()):
        return "rma", "XID 74 link %s: register bits the catalogue does not list (report a bug)" % link
    primary = (_bits(r0, (4, 5, 8, 9, 12, 16, 17, 24, 27, 28, 29)) or _bits(r2, (0, 1, 2, 6, 13, 16, 17, 18, 19))
               or _bits(r4, (18, 19, 21, 22, 24, 25, 27, 28)))
    accompanied = primary or any(other.code != 74 for other in same_gpu)
    verdicts = [("informational", "XID 74 link %s: only bits the catalogue says to ignore or a corrected-ECC "
                                  "threshold" % link)]
    if _bits(r0, (8, 9, 12, 16, 17, 24, 28)) or _bits(r2, (13,)):
        verdicts.append(("rma", "XID 74 link %s: possible link hardware: check mechanical connections, run field "
                                "diagnostics" % link))
    if _bits(r0, (4, 5)) or _bits(r2, (0, 1, 2, 6)) or _bits(r4, (18, 19, 21, 22, 24, 25, 27, 28)):
        verdicts.append(("rma", "XID 74 link %s: ECC/parity seen %d times on the link (more than 2)" % (link, seen))
                        if seen > 2 else ("reset", "XID 74 link %s: ECC/parity, %d time(s) on the link" % (link, seen)))
    if _bits(r0, (27, 29)) or _bits(r2, (16, 17, 18, 19)):
        verdicts.append(("rma", "XID 74 link %s: repeated on the link (%d times)" % (link, seen)) if seen > 1
                        else ("reset", "XID 74 link %s: once on the link so far" % link))
    if _bits(r0, (1, 20, 21, 22)) or _bits(r3, (16, 17, 18)):
        if not accompanied:
            verdicts.append(("rma", "XID 74 link %s: a secondary or marginal-signal error alone (report a bug, "
                                    "check mechanical connections)" % link))
        elif _bits(r3, (18,)):
            verdicts.append(("reset", "XID 74 link %s: secondary error that needs a fabric reset" % link))
    return max(verdicts, key=lambda verdict: ACTIONS.index(verdict[0]))


def _classify(event: XidEvent, entry: Any, same_gpu: Sequence[XidEvent]) -> Tuple[str, str]:
    """The action one event needs, with why."""
    if entry is None:
        return "rma", "XID %d is not in the catalogue: a person must look it up" % event.code
    if event.code == 45:
        caused = _CAUSED_BY.search(event.message)
        if caused:
            return "informational", "XID 45 follows XID %s (the line says so)" % caused.group("code")
        others = sorted({other.code for other in same_gpu if other.code != 45})
        if others:
            return "informational", "XID 45 follows XID %s on the same GPU" % ",".join(map(str, others))
    elif event.code == 63:
        if _TO_ACTIVATE.search(event.message):
            return "reset", "XID 63: a remap or retirement waits for a reset to activate"
        return "informational", "XID 63: recorded, nothing pending on the line"
    elif event.code == 74:
        return _nvlink(event, entry, same_gpu)
    elif event.code == 154:
        changed = _RECOVERY.search(event.message)
        if changed:
            value = int(changed.group("to"), 16)
            return (_RECOVERY_ACTIONS.get(value, "rma"),
                    "XID 154: the driver's recovery action is now 0x%x" % value)
    return entry.action, entry.note or "catalogue: NVIDIA %s" % entry.nvidia_action


def judge(events: Iterable[XidEvent], catalogue: Mapping[int, Any]) -> Tuple[Finding, ...]:
    """Per GPU bus id (sorted), the worst action its events need, every code with its count, and a drain reason."""
    by_gpu: Dict[str, List[XidEvent]] = {}
    for event in events:
        if not isinstance(event, XidEvent):
            raise XidError("judge() takes XidEvent values, got %s" % type(event).__name__)
        by_gpu.setdefault(event.bus_id, []).append(event)
    findings = []
    for bus_id in sorted(by_gpu):
        same_gpu = by_gpu[bus_id]
        verdicts = [(event.code, *_classify(event, catalogue.get(event.code), same_gpu)) for event in same_gpu]
        action = _worst(verdict[1] for verdict in verdicts)
        counts: Dict[int, int] = {}
        for event in same_gpu:
            counts[event.code] = counts.get(event.code, 0) + 1
        deciding = tuple(sorted({verdict[0] for verdict in verdicts if verdict[1] == action}))
        notes = tuple(dict.fromkeys(verdict[2] for verdict in verdicts if verdict[1] == action))
        reason = "GPU %s XID %s: %s" % (bus_id, ",".join("%dx%d" % (code, counts[code]) for code in deciding),
                                        _PHRASES[action])
        findings.append(Finding(bus_id, action, tuple(sorted(counts.items())), deciding, reason, notes))
    return tuple(findings)
