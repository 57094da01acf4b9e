# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""PFC headroom of a switch port: xoff, xon and the per-PG buffer, term by term.

After a lossless priority group (PG) crosses its XOFF point the port must still absorb
everything the peer sends until the peer has really stopped. This module adds up that
worst case as a sum of named terms (local frame, PFC frame, MAC/PHY latency, cable round
trip, peer reaction, partially filled cells, the peer's last frame), each in bytes and
in buffer cells. Times are turned into bytes at line rate: 1 Gb/s is 1 bit/ns, so a delay
of t ns at S Gb/s is t x S / 8 bytes. All arithmetic uses exact fractions; rounding
happens once, at the end (see docs/pfc-headroom.md for the formulas and worked examples).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Dict, List, Optional, Tuple

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import (
    mapping_of, must_be, unknown_keys,
)

#: Ethernet speeds with PFC headroom data, Gb/s.
SPEEDS_GBPS = (10, 25, 40, 50, 100, 200, 400, 800)
#: IEEE 802.3 Annex 31B PAUSE reaction time in pause quanta (512 bit times), as tabulated in
#: SONiC's cfgmgr/buffer_headroom_mellanox.lua (800G reuses the 400G value there; 10G is 67,
#: some texts quote 60 for the XGMII-only case, we keep the larger).
PAUSE_REACTION_QUANTA = {10: 67, 25: 80, 40: 118, 50: 147, 100: 394, 200: 453, 400: 905, 800: 905}
QUANTUM_BITS = 512
PFC_FRAME_BYTES = 64          # a MAC control frame is a minimum-size frame
MIN_FRAME_BYTES = 64
WIRE_OVERHEAD_BYTES = 20      # preamble 7 + SFD 1 + inter-frame gap 12: on the wire, not in the buffer
DEFAULT_NS_PER_M = Fraction("5.13")   # single-mode fibre, 0.65 c (twinax copper is ~4.76)
DEFAULT_PHY_DELAY_NS = 100    # our MAC/PCS/FEC, transmit + receive path: an assumption, override it

CABLE_M_RANGE = (Fraction(1, 2), Fraction(10000))
MTU_RANGE = (1500, 9216)
CELL_RANGE = (64, 512)
NS_PER_M_RANGE = (Fraction("3.34"), Fraction(6))    # vacuum (3.336) .. slow copper
PHY_DELAY_NS_RANGE = (Fraction(0), Fraction(10000))
PEER_RESPONSE_BITS_RANGE = (0, 65535 * QUANTUM_BITS)  # the largest pause time a PFC frame can carry
WIRE_OVERHEAD_RANGE = (0, 64)
XON_BYTES_RANGE = (0, 16 * 1024 * 1024)


class HeadroomError(ValueError):
    """An input that cannot give a meaningful PFC headroom."""


# ---------------------------------------------------------------- checks
def _fmt(value: Fraction) -> str:
    """Exact, short decimal text for a fraction: 5.13, 51.3, 2565, 1.745 (3 decimals when not exact)."""
    if value.denominator == 1:
        return str(value.numerator)
    for digits in range(1, 4):
        scaled = value * 10 ** digits
        if scaled.denominator == 1:
            return "%.*f" % (digits, float(value))
    return "%.3f" % float(value)


def _number(what: str, value: Any, low: Fraction, high: Fraction, unit: str, fix: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise must_be(what, value, "a number of %s" % unit, HeadroomError, fix)
    if isinstance(value, float) and not math.isfinite(value):
        raise HeadroomError("%s is %r; it must be a finite number of %s in %s..%s"
                            % (what, value, unit, _fmt(low), _fmt(high)))
    exact = value if isinstance(value, Fraction) else Fraction(str(value))
    if not low <= exact <= high:
        raise HeadroomError("%s %s %s is outside %s..%s %s; %s"
                            % (what, _fmt(exact), unit, _fmt(low), _fmt(high), unit, fix))
    return exact


def _integer(what: str, value: Any, low: int, high: int, unit: str, fix: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise must_be(what, value, "a whole number of %s" % unit, HeadroomError, fix)
    if not low <= value <= high:
        raise HeadroomError("%s %d %s is outside %d..%d %s; %s" % (what, value, unit, low, high, unit, fix))
    return value


def check_speed(what: str, value: Any) -> int:
    """A port speed in Gb/s from SPEEDS_GBPS; hints at Mb/s (SONiC's PORT speed) when it looks like it."""
    allowed = ", ".join(str(s) for s in SPEEDS_GBPS)
    if isinstance(value, bool) or not isinstance(value, int):
        raise must_be(what, value, "a whole number of Gb/s (one of %s)" % allowed, HeadroomError)
    if value not in SPEEDS_GBPS:
        hint = ""
        if value % 1000 == 0 and value // 1000 in SPEEDS_GBPS:
            hint = " (%d looks like Mb/s as in SONiC's PORT table: use %d)" % (value, value // 1000)
        raise HeadroomError("%s %d Gb/s is not an Ethernet speed with a PFC reaction time; use one of %s%s"
                            % (what, value, allowed, hint))
    return value


_LENGTH_RE = re.compile(r" *(\d+(?:\.\d+)?) *(m|km) *")   # fullmatch: no newline or tab
#: A switch port name as SONiC (Ethernet0), Cumulus (swp1s0) and EOS (Ethernet1/1) write them: it becomes a
#: config_db key (``Ethernet0|3``), a YAML key and an EOS ``interface`` line, so no blank, '|', '#' or quote.
PORT_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_./:-]{0,63}")
PORT_NAME_ALLOWED = ("a switch port name such as Ethernet0, swp1s0 or Ethernet1/1: a letter or digit, then up to 63 "
                     "letters, digits, '_', '.', '/', ':' or '-'")


def check_port_name(where: str, value: Any, error: type = ValueError) -> str:
    """A port name (PORT_NAME_RE, fullmatch), or ``error`` naming the field, the value and what is allowed."""
    if not isinstance(value, str) or PORT_NAME_RE.fullmatch(value) is None:
        raise error("%s: %r is not allowed; expected %s" % (where, value, PORT_NAME_ALLOWED))
    return value


def parse_cable_length(value: Any, what: str = "cable_m") -> Fraction:
    """Cable length in metres from a number or a SONiC CABLE_LENGTH string ('5m', '300m', '1.5km')."""
    low, high = CABLE_M_RANGE
    fix = ("use the real cable length in metres (not feet), 0.5 m for the shortest DAC, and a long-haul/DCI "
           "buffer design beyond 10 km")
    if not isinstance(value, str):
        return _number(what, value, low, high, "m", fix + "; give a number or a string like '5m' / '2km'")
    match = _LENGTH_RE.fullmatch(value)
    if match is None:
        raise HeadroomError("%s %r is not a length; give metres as a number or a string like '5m' / '2km' "
                            "(SONiC CABLE_LENGTH style)" % (what, value))
    metres = Fraction(match.group(1)) * (1000 if match.group(2) == "km" else 1)
    if not low <= metres <= high:
        raise HeadroomError("%s %s m is outside %s..%s m; %s" % (what, _fmt(metres), _fmt(low), _fmt(high), fix))
    return metres


# ---------------------------------------------------------------- cell occupancy
def worst_cell_factor(cell_bytes: int, max_frame: int, overhead: int = WIRE_OVERHEAD_BYTES) -> Tuple[Fraction, int]:
    """Largest buffer-bytes / wire-bytes ratio over frame sizes 64..max_frame, and the frame size giving it.

    A frame of s bytes takes s + overhead bytes of wire time but ceil(s / cell) whole cells
    of buffer. Within (k x cell, (k+1) x cell] the ratio is largest at s = k x cell + 1, so
    only those sizes (and 64) need checking: for 144 B cells the worst is s = 145,
    2 x 144 / (145 + 20) = 96/55; with overhead 0 it is the 2c/(c+1) or c/64 of SONiC's model.
    """
    best, worst_frame = Fraction(0), MIN_FRAME_BYTES
    for k in range(0, max_frame // cell_bytes + 1):
        size = max(k * cell_bytes + 1, MIN_FRAME_BYTES)
        if size > max_frame:
            break
        ratio = Fraction(-(-size // cell_bytes) * cell_bytes, size + overhead)
        if ratio > best:
            best, worst_frame = ratio, size
    return best, worst_frame


# ---------------------------------------------------------------- result types
@dataclass(frozen=True)
class Term:
    """One additive part of xoff or xon: exact buffer bytes, wire bytes it stands for, and why."""

    name: str
    part: str               # 'xoff' or 'xon'
    exact_bytes: Fraction   # buffer bytes, before rounding
    wire_bytes: Fraction    # bytes of line-rate time (0 for pure buffer effects)
    cell_bytes: int
    explanation: str

    @property
    def bytes(self) -> int:
        return -(-self.exact_bytes.numerator // self.exact_bytes.denominator)

    @property
    def cells(self) -> int:
        return _ceil(self.exact_bytes / self.cell_bytes)

    def to_dict(self) -> Dict[str, Any]:
        return {"name": self.name, "part": self.part, "bytes": self.bytes, "cells": self.cells,
                "wire_bytes": _ceil(self.wire_bytes), "explanation": self.explanation}


def _ceil(value: Fraction) -> int:
    return -(-value.numerator // value.denominator)


@dataclass(frozen=True)
class Headroom:
    """xoff / xon / headroom of one lossless PG of one port, with the terms that make them up."""

    name: Optional[str]
    speed_gbps: int
    cable_m: Fraction
    mtu: int
    lossless_mtu: int
    cell_bytes: int
    cell_factor: Fraction
    xoff_exact: Fraction
    xon_exact: Fraction
    terms: Tuple[Term, ...]

    @property
    def xoff_bytes(self) -> int:
        return _ceil(self.xoff_exact)

    @property
    def xoff_cells(self) -> int:
        return _ceil(self.xoff_exact / self.cell_bytes)

    @property
    def xon_bytes(self) -> int:
        return _ceil(self.xon_exact)

    @property
    def xon_cells(self) -> int:
        return _ceil(self.xon_exact / self.cell_bytes)

    @property
    def headroom_bytes(self) -> int:
        return self.xoff_bytes + self.xon_bytes

    @property
    def cells(self) -> int:
        # xoff and xon are programmed separately, each in whole cells
        return self.xoff_cells + self.xon_cells

    def to_dict(self) -> Dict[str, Any]:
        return {
            "name": self.name, "speed_gbps": self.speed_gbps, "cable_m": _plain(self.cable_m),
            "mtu": self.mtu, "lossless_mtu": self.lossless_mtu, "cell_bytes": self.cell_bytes,
            "cell_factor": round(float(self.cell_factor), 6),
            "xoff_bytes": self.xoff_bytes, "xoff_cells": self.xoff_cells,
            "xon_bytes": self.xon_bytes, "xon_cells": self.xon_cells,
            "headroom_bytes": self.headroom_bytes, "cells": self.cells,
            "size_bytes": self.cells * self.cell_bytes,
            "terms": [t.to_dict() for t in self.terms],
        }


def _plain(value: Fraction) -> Any:
    return value.numerator if value.denominator == 1 else float(value)


# ---------------------------------------------------------------- the model
def pfc_headroom(
    speed_gbps: int,
    cable_m: Any,
    mtu: int,
    cell_bytes: int,
    lossless_mtu: Optional[int] = None,
    ns_per_m: Any = DEFAULT_NS_PER_M,
    phy_delay_ns: Any = DEFAULT_PHY_DELAY_NS,
    peer_response_bits: Optional[int] = None,
    wire_overhead_bytes: int = WIRE_OVERHEAD_BYTES,
    small_packet_percent: Any = 100,
    xon_bytes: Optional[int] = None,
    name: Optional[str] = None,
    where: Optional[str] = None,
) -> Headroom:
    """Worst-case PFC headroom of one lossless PG on a port (see the module docstring).

    xoff = (local frame + PFC frame + MAC/PHY + 2 x cable + peer reaction) wire bytes
           x cell factor + the peer's last lossless frame in whole cells.
    xon  = (local frame + PFC frame + MAC/PHY + 2 x cable) wire bytes, the drain while an
           XON travels and the peer's traffic comes back; or ``xon_bytes`` when given.
    ``name`` labels the result and messages; ``where`` (e.g. 'ports[3]') labels messages of unnamed ports.
    """
    label = "port %r: " % name if name is not None else ("%s: " % where if where else "")
    speed = check_speed(label + "speed_gbps", speed_gbps)
    length = parse_cable_length(cable_m, label + "cable_m")
    mtu = _integer(label + "mtu", mtu, MTU_RANGE[0], MTU_RANGE[1], "bytes",
                   "give the largest frame the port carries in any class, e.g. 9216 (jumbo) or 1500")
    cell = _integer("cell_bytes", cell_bytes, CELL_RANGE[0], CELL_RANGE[1], "bytes",
                    "use the switch ASIC's buffer cell size, e.g. 96 (Spectrum-1) or 144 (Spectrum-2/3)")
    if lossless_mtu is None:
        lossless_mtu = mtu
    lossless_mtu = _integer(label + "lossless_mtu", lossless_mtu, MTU_RANGE[0], mtu, "bytes",
                            "give the largest frame of the lossless class (RoCE), at most the port mtu %d; "
                            "use 1500 when RoCE frames are smaller" % mtu)
    per_m = _number(label + "ns_per_m", ns_per_m, NS_PER_M_RANGE[0], NS_PER_M_RANGE[1], "ns/m",
                    "use ~5.13 for single-mode fibre, ~4.76 for twinax copper (1 / velocity)")
    phy = _number(label + "phy_delay_ns", phy_delay_ns, PHY_DELAY_NS_RANGE[0], PHY_DELAY_NS_RANGE[1], "ns",
                  "give the MAC/PHY/FEC latency of this port, transmit plus receive, in nanoseconds")
    overhead = _integer("wire_overhead_bytes", wire_overhead_bytes, WIRE_OVERHEAD_RANGE[0], WIRE_OVERHEAD_RANGE[1],
                        "bytes", "20 (preamble 8 + inter-frame gap 12) on Ethernet; 0 reproduces models that ignore it")
    share = _number("small_packet_percent", small_packet_percent, Fraction(0), Fraction(100), "%",
                    "100 assumes every in-flight frame wastes cells as badly as possible (safe), 0 none")
    quanta = None
    if peer_response_bits is None:
        quanta = PAUSE_REACTION_QUANTA[speed]
        response_bits = quanta * QUANTUM_BITS
    else:
        response_bits = _integer(label + "peer_response_bits", peer_response_bits, PEER_RESPONSE_BITS_RANGE[0],
                                 PEER_RESPONSE_BITS_RANGE[1], "bit",
                                 "give the peer's reaction time in bit times (pause quanta x 512), or leave it "
                                 "unset for the IEEE 802.3 Annex 31B value of the speed")
    if xon_bytes is not None:
        xon_bytes = _integer(label + "xon_bytes", xon_bytes, XON_BYTES_RANGE[0], XON_BYTES_RANGE[1], "bytes",
                             "give the fixed XON reserve of the switch profile in bytes, or leave it unset")

    rate = Fraction(speed, 8)   # bytes per ns
    worst, worst_frame = worst_cell_factor(cell, lossless_mtu, overhead)
    factor = 1 + share / 100 * (worst - 1)
    speed_txt = "%d Gb/s" % speed

    local_frame = Fraction(mtu + overhead)
    pfc_frame = Fraction(PFC_FRAME_BYTES + overhead)
    mac_phy = phy * rate
    cable = 2 * length * per_m * rate
    response = Fraction(response_bits, 8)
    wire_terms = [
        ("local_frame", local_frame,
         "our port may have just started a %d B frame (+%d B preamble/IFG); the PFC frame cannot pre-empt it "
         "and the peer keeps sending meanwhile" % (mtu, overhead)),
        ("pfc_frame", pfc_frame,
         "the PFC XOFF frame itself: %d B + %d B preamble/IFG" % (PFC_FRAME_BYTES, overhead)),
        ("mac_phy", mac_phy,
         "our MAC/PCS/FEC latency, XOFF out plus data in: %s ns at %s = %s B"
         % (_fmt(phy), speed_txt, _fmt(mac_phy))),
        ("cable", cable,
         "round trip 2 x %s m x %s ns/m = %s ns at %s = %s B: the XOFF travels out while the peer's frames "
         "already on the wire keep arriving" % (_fmt(length), _fmt(per_m), _fmt(2 * length * per_m), speed_txt,
                                                _fmt(cable))),
        ("peer_response", response,
         ("peer reaction after the XOFF (IEEE 802.3 Annex 31B at %s): %d pause quanta x 512 bit = %d bit = %s B"
          % (speed_txt, quanta, response_bits, _fmt(response))) if quanta is not None else
         ("peer reaction after the XOFF, given as peer_response_bits: %d bit = %s B"
          % (response_bits, _fmt(response)))),
    ]
    terms: List[Term] = [Term(n, "xoff", b, b, cell, e) for n, b, e in wire_terms]
    in_flight = sum((term[1] for term in wire_terms), Fraction(0))
    fill = (factor - 1) * in_flight
    terms.append(Term(
        "cell_fill", "xoff", fill, Fraction(0), cell,
        "partly filled cells: a %d B frame uses %d cells = %d B for %d wire bytes (factor %s at %s%% small "
        "frames), %s B in flight x %s" % (worst_frame, -(-worst_frame // cell), -(-worst_frame // cell) * cell,
                                          worst_frame + overhead, _fmt(worst), _fmt(share), _fmt(in_flight),
                                          _fmt(factor - 1))))
    last_cells = -(-lossless_mtu // cell)
    terms.append(Term(
        "peer_frame", "xoff", Fraction(last_cells * cell), Fraction(lossless_mtu + overhead), cell,
        "the peer may start one more %d B lossless frame just before it stops; stored whole in "
        "ceil(%d / %d) = %d cells" % (lossless_mtu, lossless_mtu, cell, last_cells)))
    xoff = in_flight + fill + last_cells * cell

    if xon_bytes is None:
        xon = local_frame + pfc_frame + mac_phy + cable
        terms.append(Term(
            "xon_resume", "xon", xon, xon, cell,
            "XON reserve: the PG drains at line rate while our XON waits behind a frame, crosses MAC/PHY and "
            "the cable and the peer's traffic returns: %s + %s + %s + %s = %s B"
            % (_fmt(local_frame), _fmt(pfc_frame), _fmt(mac_phy), _fmt(cable), _fmt(xon))))
    else:
        xon = Fraction(xon_bytes)
        terms.append(Term("xon_fixed", "xon", xon, Fraction(0), cell,
                          "fixed XON reserve of the switch profile (xon_bytes), e.g. the ASIC pipeline allowance"))
    return Headroom(name=name, speed_gbps=speed, cable_m=length, mtu=mtu, lossless_mtu=lossless_mtu,
                    cell_bytes=cell, cell_factor=factor, xoff_exact=xoff, xon_exact=xon, terms=tuple(terms))


# ---------------------------------------------------------------- port dicts
#: Keys a port dict may carry; all but name/speed_gbps/cable_m may also come from the switch.
PORT_KEYS = ("name", "speed_gbps", "cable_m", "mtu", "lossless_mtu", "ns_per_m", "phy_delay_ns",
             "peer_response_bits", "xon_bytes")
#: Switch-wide parameters; the per-port ones are defaults that a port dict overrides.
SWITCH_KEYS = ("cell_bytes", "mtu", "lossless_mtu", "ns_per_m", "phy_delay_ns", "peer_response_bits",
               "wire_overhead_bytes", "small_packet_percent", "xon_bytes")


def port_headroom(port: Any, switch: Dict[str, Any], where: str = "port") -> Headroom:
    """pfc_headroom() for a port dict {name, speed_gbps, cable_m, mtu, ...} on a switch {cell_bytes, ...}.

    ``switch`` holds switch-wide values (None means unset); keys of the port dict win.
    ``where`` names the port in messages when it has no name (e.g. 'ports[3]').
    """
    mapping_of(where, port, HeadroomError, "a dict {name, speed_gbps, cable_m, mtu, ...}")
    unknown_keys(where, port, PORT_KEYS, HeadroomError,
                 hint="speed in Gb/s as speed_gbps, length in m as cable_m; see docs/pfc-headroom.md")
    name = port.get("name")
    if name is not None:
        check_port_name("%s.name" % where, name, HeadroomError)
    label = name if name is not None else where
    for key in ("speed_gbps", "cable_m"):
        if port.get(key) is None:
            raise HeadroomError("port %r lacks %s; every port needs speed_gbps (Gb/s) and cable_m (metres)"
                                % (label, key))
    settings = {k: v for k, v in switch.items() if v is not None and k != "cell_bytes"}
    settings.update({k: v for k, v in port.items() if k not in ("name", "speed_gbps", "cable_m") and v is not None})
    if settings.get("mtu") is None:
        raise HeadroomError("port %r has no mtu and the switch gives none; set mtu (bytes, 1500..9216) on the "
                            "port or for the whole switch" % (label,))
    if switch.get("cell_bytes") is None:
        raise HeadroomError("cell_bytes is missing; give the ASIC's buffer cell size in bytes (64..512), "
                            "e.g. 96 for Spectrum-1, 144 for Spectrum-2/3")
    return pfc_headroom(port["speed_gbps"], port["cable_m"], cell_bytes=switch["cell_bytes"], name=name,
                        where=where, **settings)
