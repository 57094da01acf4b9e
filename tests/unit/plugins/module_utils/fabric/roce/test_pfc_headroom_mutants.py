# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Tests that kill mutants `make mutation MODULES=pfc_headroom` found alive (docs/testing.md).

The filter and the plan report read Headroom.to_dict() / Term.to_dict() by key: every key must carry its own
quantity. The quantities themselves are worked by hand in test_pfc_headroom.py.
"""
from __future__ import annotations

from fractions import Fraction

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce.pfc_headroom import (
    HeadroomError,
    Term,
    check_speed,
    parse_cable_length,
    pfc_headroom,
    port_headroom,
    worst_cell_factor,
)


def test_headroom_to_dict_maps_every_key_to_its_quantity():
    h = pfc_headroom(400, "2.5m", 9216, 256, lossless_mtu=4200, name="Ethernet0")
    d = h.to_dict()
    assert set(d) == {"name", "speed_gbps", "cable_m", "mtu", "lossless_mtu", "cell_bytes", "cell_factor",
                      "xoff_bytes", "xoff_cells", "xon_bytes", "xon_cells", "headroom_bytes", "cells", "size_bytes",
                      "terms"}
    assert (d["name"], d["speed_gbps"], d["cable_m"], d["mtu"], d["lossless_mtu"], d["cell_bytes"]) == (
        "Ethernet0", 400, 2.5, 9216, 4200, 256)
    assert d["cell_factor"] == round(float(h.cell_factor), 6)
    assert (d["xoff_bytes"], d["xoff_cells"], d["xon_bytes"], d["xon_cells"]) == (
        h.xoff_bytes, h.xoff_cells, h.xon_bytes, h.xon_cells)
    assert (d["headroom_bytes"], d["cells"]) == (h.headroom_bytes, h.cells)
    assert d["cells"] == d["xoff_cells"] + d["xon_cells"]
    assert d["size_bytes"] == d["cells"] * 256
    assert d["terms"] == [t.to_dict() for t in h.terms] and len(d["terms"]) >= 2
    # A whole number of metres comes back as an int (JSON 100, not 100.0).
    whole = pfc_headroom(400, 100, 9216, 256).to_dict()["cable_m"]
    assert whole == 100 and isinstance(whole, int)


def test_term_to_dict_rounds_up_to_bytes_and_cells():
    # 1000.25 buffer bytes -> 1001 bytes -> 4 cells of 256; 1234.5 wire bytes -> 1235.
    term = Term(name="cable", part="xoff", exact_bytes=Fraction(4001, 4), wire_bytes=Fraction(2469, 2), cell_bytes=256,
                explanation="2 x 100 m at 5.13 ns/m")
    assert term.to_dict() == {"name": "cable", "part": "xoff", "bytes": 1001, "cells": 4, "wire_bytes": 1235,
                              "explanation": "2 x 100 m at 5.13 ns/m"}


SWITCH = {"cell_bytes": 256, "mtu": 9216}
KNOWN = "cable_m, lossless_mtu, mtu, name, ns_per_m, peer_response_bits, phy_delay_ns, speed_gbps, xon_bytes"


@pytest.mark.parametrize("port, said", [
    ("Ethernet0", "ports[3] must be a dict {name, speed_gbps, cable_m, mtu, ...}, got 'Ethernet0' of type str"),
    ({"speed": 400, "length": 5}, "ports[3] has unknown key(s) 'length', 'speed'; allowed: %s; speed in Gb/s as "
                                  "speed_gbps, length in m as cable_m; see docs/pfc-headroom.md" % KNOWN),
    ({"name": 0, "speed_gbps": 400, "cable_m": 5}, "ports[3].name: 0 is not allowed; expected a switch port name such as Ethernet0, swp1s0 or "
     "Ethernet1/1: a letter or digit, then up to 63 letters, digits, '_', '.', '/', ':' or '-'"),
    ({"name": "Ethernet8", "cable_m": 5},
     "port 'Ethernet8' lacks speed_gbps; every port needs speed_gbps (Gb/s) and cable_m (metres)"),
    ({"speed_gbps": 400}, "port 'ports[3]' lacks cable_m; every port needs speed_gbps (Gb/s) and cable_m (metres)"),
])
def test_port_refusals_whole_message(port, said):
    with pytest.raises(HeadroomError) as err:
        port_headroom(port, SWITCH, where="ports[3]")
    assert str(err.value) == said


def test_cell_factor_is_rounded_to_six_places():
    h = pfc_headroom(400, 100, 9216, 96)
    assert h.to_dict()["cell_factor"] == round(float(h.cell_factor), 6)
    assert len(repr(h.to_dict()["cell_factor"]).split(".")[1]) <= 6


def test_port_is_called_port_by_default():
    with pytest.raises(HeadroomError) as err:
        port_headroom(None, SWITCH)
    assert str(err.value) == "port must be a dict {name, speed_gbps, cable_m, mtu, ...}, got None of type NoneType"


# ---------------------------------------------------------------- refusals of parse_cable_length and check_speed, exact
_SPEEDS = "10, 25, 40, 50, 100, 200, 400, 800"
_CABLE_FIX = ("use the real cable length in metres (not feet), 0.5 m for the shortest DAC, and a long-haul/DCI buffer "
              "design beyond 10 km")


@pytest.mark.parametrize("value, message", [
    ("5 ft", "cable_m '5 ft' is not a length; give metres as a number or a string like '5m' / '2km' "
             "(SONiC CABLE_LENGTH style)"),
    ("20km", "cable_m 20000 m is outside 0.5..10000 m; " + _CABLE_FIX),
    ("0.4m", "cable_m 0.4 m is outside 0.5..10000 m; " + _CABLE_FIX),
])
def test_parse_cable_length_refusals_in_full(value, message):
    with pytest.raises(HeadroomError) as err:
        parse_cable_length(value)
    assert str(err.value) == message


def test_parse_cable_length_accepts_both_ends_of_its_range():
    assert parse_cable_length("0.5m") == Fraction(1, 2)
    assert parse_cable_length("10km") == 10000


@pytest.mark.parametrize("value, message", [
    ("100", "speed must be a whole number of Gb/s (one of %s), got '100' of type str" % _SPEEDS),
    (100000, "speed 100000 Gb/s is not an Ethernet speed with a PFC reaction time; use one of %s (100000 looks like "
             "Mb/s as in SONiC's PORT table: use 100)" % _SPEEDS),
    (30, "speed 30 Gb/s is not an Ethernet speed with a PFC reaction time; use one of %s" % _SPEEDS),
    (100500, "speed 100500 Gb/s is not an Ethernet speed with a PFC reaction time; use one of %s" % _SPEEDS),
])
def test_check_speed_refusals_in_full(value, message):
    with pytest.raises(HeadroomError) as err:
        check_speed("speed", value)
    assert str(err.value) == message


_NUMBER_FIX = _CABLE_FIX + "; give a number or a string like '5m' / '2km'"


@pytest.mark.parametrize("value, message", [
    (True, "cable_m must be a number of m, got True of type bool; " + _NUMBER_FIX),
    (float("inf"), "cable_m is inf; it must be a finite number of m in 0.5..10000"),
    (20000.5, "cable_m 20000.5 m is outside 0.5..10000 m; " + _NUMBER_FIX),
    # 1/3 has no exact decimal: 3 decimals; 0.1234 has 4 exact ones: also cut to 3
    (Fraction(1, 3), "cable_m 0.333 m is outside 0.5..10000 m; " + _NUMBER_FIX),
    ("0.1234m", "cable_m 0.123 m is outside 0.5..10000 m; " + _CABLE_FIX),
])
def test_cable_length_number_refusals_in_full(value, message):
    with pytest.raises(HeadroomError) as err:
        parse_cable_length(value)
    assert str(err.value) == message


@pytest.mark.parametrize("mtu, cell, message", [
    ("9216", 144, "mtu must be a whole number of bytes, got '9216' of type str; give the largest frame the port carries in any "
                  "class, e.g. 9216 (jumbo) or 1500"),
    (9216, 32, "cell_bytes 32 bytes is outside 64..512 bytes; use the switch ASIC's buffer cell size, e.g. 96 "
               "(Spectrum-1) or 144 (Spectrum-2/3)"),
])
def test_integer_refusals_in_full(mtu, cell, message):
    with pytest.raises(HeadroomError) as err:
        pfc_headroom(100, 5, mtu=mtu, cell_bytes=cell)
    assert str(err.value) == message


@pytest.mark.parametrize("port, switch, message", [
    ({"name": "Ethernet0", "speed_gbps": 100, "cable_m": 5}, {"cell_bytes": 144},
     "port 'Ethernet0' has no mtu and the switch gives none; set mtu (bytes, 1500..9216) on the port or for the whole "
     "switch"),
    ({"name": "Ethernet0", "speed_gbps": 100, "cable_m": 5, "mtu": 9216}, {},
     "cell_bytes is missing; give the ASIC's buffer cell size in bytes (64..512), e.g. 96 for Spectrum-1, 144 for "
     "Spectrum-2/3"),
])
def test_port_headroom_missing_mtu_or_cell_in_full(port, switch, message):
    with pytest.raises(HeadroomError) as err:
        port_headroom(port, switch)
    assert str(err.value) == message


@pytest.mark.parametrize("option, message", [
    ("lossless_mtu", "lossless_mtu must be a whole number of bytes, got 'x' of type str; give the largest frame of the lossless "
                     "class (RoCE), at most the port mtu 9216; use 1500 when RoCE frames are smaller"),
    ("ns_per_m", "ns_per_m must be a number of ns/m, got 'x' of type str; use ~5.13 for single-mode fibre, ~4.76 for twinax "
                 "copper (1 / velocity)"),
    ("phy_delay_ns", "phy_delay_ns must be a number of ns, got 'x' of type str; give the MAC/PHY/FEC latency of this port, "
                     "transmit plus receive, in nanoseconds"),
    ("wire_overhead_bytes", "wire_overhead_bytes must be a whole number of bytes, got 'x' of type str; 20 (preamble 8 + "
                            "inter-frame gap 12) on Ethernet; 0 reproduces models that ignore it"),
    ("small_packet_percent", "small_packet_percent must be a number of %, got 'x' of type str; 100 assumes every in-flight "
                             "frame wastes cells as badly as possible (safe), 0 none"),
    ("peer_response_bits", "peer_response_bits must be a whole number of bit, got 'x' of type str; give the peer's reaction "
                           "time in bit times (pause quanta x 512), or leave it unset for the IEEE 802.3 Annex 31B "
                           "value of the speed"),
    ("xon_bytes", "xon_bytes must be a whole number of bytes, got 'x' of type str; give the fixed XON reserve of the switch "
                  "profile in bytes, or leave it unset"),
])
def test_every_option_refusal_in_full(option, message):
    with pytest.raises(HeadroomError) as err:
        pfc_headroom(100, 5, mtu=9216, cell_bytes=144, **{option: "x"})
    assert str(err.value) == message
    with pytest.raises(HeadroomError) as err:
        pfc_headroom(100, 5, mtu=9216, cell_bytes=144, where="ports[3]", **{option: "x"})
    # wire_overhead_bytes and small_packet_percent are switch-wide: their messages carry no port label
    switch_wide = option in ("wire_overhead_bytes", "small_packet_percent")
    assert str(err.value) == (message if switch_wide else "ports[3]: " + message)


def _term_rows(h):
    return [(t.name, t.part, t.exact_bytes, t.wire_bytes, t.explanation) for t in h.terms]


def test_term_explanations_in_full_with_the_defaults():
    # 100 Gb/s = 12.5 B/ns; 10 m; port MTU 9216, RoCE frames <= 4200 B; 256 B cells. Wire bytes:
    # 9216 + 20 | 64 + 20 | 100 ns x 12.5 = 1250 | 2 x 10 x 5.13 = 102.6 ns x 12.5 = 1282.5 | 394 x 512 / 8 = 25216
    # = 37068.5 in flight. Worst frame for 256 B cells: 64 B in 1 cell = 256 B for 84 wire bytes, factor 256/84
    # = 64/21 (3.048), so the fill is 43/21 x 37068.5 = 455413/6. Peer frame ceil(4200 / 256) = 17 cells = 4352 B
    # for 4220 wire bytes. XON: 9236 + 84 + 1250 + 1282.5 = 11852.5.
    h = pfc_headroom(100, 10, 9216, 256, lossless_mtu=4200)
    assert _term_rows(h) == [
        ("local_frame", "xoff", 9236, 9236, "our port may have just started a 9216 B frame (+20 B preamble/IFG); the "
                                            "PFC frame cannot pre-empt it and the peer keeps sending meanwhile"),
        ("pfc_frame", "xoff", 84, 84, "the PFC XOFF frame itself: 64 B + 20 B preamble/IFG"),
        ("mac_phy", "xoff", 1250, 1250, "our MAC/PCS/FEC latency, XOFF out plus data in: 100 ns at 100 Gb/s = 1250 B"),
        ("cable", "xoff", Fraction(2565, 2), Fraction(2565, 2),
         "round trip 2 x 10 m x 5.13 ns/m = 102.6 ns at 100 Gb/s = 1282.5 B: the XOFF travels out while the peer's "
         "frames already on the wire keep arriving"),
        ("peer_response", "xoff", 25216, 25216, "peer reaction after the XOFF (IEEE 802.3 Annex 31B at 100 Gb/s): 394 "
                                                "pause quanta x 512 bit = 201728 bit = 25216 B"),
        ("cell_fill", "xoff", Fraction(455413, 6), 0,
         "partly filled cells: a 64 B frame uses 1 cells = 256 B for 84 wire bytes (factor 3.048 at 100% small "
         "frames), 37068.5 B in flight x 2.048"),
        ("peer_frame", "xoff", 4352, 4220, "the peer may start one more 4200 B lossless frame just before it stops; "
                                           "stored whole in ceil(4200 / 256) = 17 cells"),
        ("xon_resume", "xon", Fraction(23705, 2), Fraction(23705, 2),
         "XON reserve: the PG drains at line rate while our XON waits behind a frame, crosses MAC/PHY and the cable "
         "and the peer's traffic returns: 9236 + 84 + 1250 + 1282.5 = 11852.5 B"),
    ]
    assert h.xoff_exact == Fraction(74137, 2) + Fraction(455413, 6) + 4352


def test_term_explanations_in_full_with_given_peer_response_and_xon():
    # peer_response_bits 16384 = 2048 B: 13900.5 B in flight; half the frames small: factor 1 + 1/2 x 43/21 = 85/42
    # (x 1.024 for the fill); the peer's frame is a whole 9216 B one, 36 cells; xon_bytes fixed, no wire time.
    h = pfc_headroom(100, 10, 9216, 256, peer_response_bits=16384, xon_bytes=20000, small_packet_percent=50)
    rows = _term_rows(h)
    assert rows[4] == ("peer_response", "xoff", 2048, 2048,
                       "peer reaction after the XOFF, given as peer_response_bits: 16384 bit = 2048 B")
    assert rows[5] == ("cell_fill", "xoff", Fraction(43, 42) * Fraction(27801, 2), 0,
                       "partly filled cells: a 64 B frame uses 1 cells = 256 B for 84 wire bytes (factor 3.048 at 50% "
                       "small frames), 13900.5 B in flight x 1.024")
    assert rows[6] == ("peer_frame", "xoff", 9216, 9236, "the peer may start one more 9216 B lossless frame just "
                                                         "before it stops; stored whole in ceil(9216 / 256) = 36 cells")
    assert rows[7] == ("xon_fixed", "xon", 20000, 0,
                       "fixed XON reserve of the switch profile (xon_bytes), e.g. the ASIC pipeline allowance")
    assert [t.to_dict()["part"] for t in h.terms] == ["xoff"] * 7 + ["xon"]


def test_unlabelled_port_messages_have_no_prefix():
    # Neither name nor where: the message starts with the field itself.
    with pytest.raises(HeadroomError) as err:
        pfc_headroom(7, 10, 9216, 256)
    assert str(err.value).startswith("speed_gbps 7 ")
    with pytest.raises(HeadroomError) as err:
        pfc_headroom(7, 10, 9216, 256, where="")
    assert str(err.value).startswith("speed_gbps 7 ")


def test_worst_cell_factor_reports_the_smallest_frame_on_equal_ratios():
    # cell = 1 + overhead makes every (k x cell + 1)-byte frame, k >= 1, fill its cells exactly as long as its wire
    # time: (k + 1) x 64 / (k x 64 + 1 + 63) = 1. The 64 B frame gives 64 / 127. The first size reaching the
    # maximum is the one the explanation names.
    assert worst_cell_factor(64, 1500, 63) == (Fraction(1), 65)
    assert worst_cell_factor(64, 64, 63) == (Fraction(64, 127), 64)
