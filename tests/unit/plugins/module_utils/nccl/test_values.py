# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""module_utils/nccl/values.py: every attribute's spellings and refusals (compared in full: the place, the value,
the rule and the fix), the edges of every range, CPU sets, and properties (tests that kill the mutants `make
mutation` found alive among them, docs/testing.md)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.values import (
    NcclTopologyError,
    class_kind,
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
    parse_cpulist,
    parse_int,
    speed_gts,
)
from nccl_layouts import refusal_of


# ---------------------------------------------------------------- scalars


@pytest.mark.parametrize("given_, expected", [
    ("0000:3B:00.0", "0000:3b:00.0"),
    ("00000000:8B:00.0", "0000:8b:00.0"),  # nvidia-smi's 8-digit domain
    ("ffff:ff:01.0", "ffff:ff:01.0"),  # Azure's virtual switch ids
    (" 0001:c1:1f.7 ", "0001:c1:1f.7"),
])
def test_busid_normalised(given_, expected):
    assert normalise_busid(given_) == expected


@pytest.mark.parametrize("bad", ["0000:3b:00", "0000:3g:00.0", "0000:3b:20.0", "0000:3b:00.8",
                                 "00010000:3b:00.0", "3b:00.0", 0x3b, None])
def test_busid_refused(bad):
    with pytest.raises(NcclTopologyError, match="dddd:bb:dd.f"):
        normalise_busid(bad)


@pytest.mark.parametrize("given_, expected", [
    (16, "16.0 GT/s PCIe"), (2.5, "2.5 GT/s PCIe"), ("gen5", "32.0 GT/s PCIe"), ("Gen 3", "8.0 GT/s PCIe"),
    ("16 GT/s", "16 GT/s"), ("32.0 GT/s PCIe", "32.0 GT/s PCIe"),  # NCCL dictionary strings kept
    ("16.0 GT/s", "16.0 GT/s PCIe"),  # would miss NCCL's prefix match and fall back to 8 GT/s
    ("64", "64.0 GT/s PCIe"),
])
def test_link_speed(given_, expected):
    assert normalise_link_speed(given_) == expected


@pytest.mark.parametrize("bad", [10, "gen7", "fast", True, "Unknown", None])
def test_link_speed_refused(bad):
    with pytest.raises(NcclTopologyError, match="not a PCIe rate"):
        normalise_link_speed(bad)


@pytest.mark.parametrize("given_, expected", [(16, "16"), ("x16", "16"), ("8x", "8"), ("0x4", "4")])
def test_link_width(given_, expected):
    assert normalise_link_width(given_) == expected


def test_link_width_refused():
    with pytest.raises(NcclTopologyError, match=r"link_width 3 is not a PCIe width"):
        normalise_link_width(3)


@pytest.mark.parametrize("given_, expected", [
    ("gpu", 0x030200), ("ib", 0x020700), ("nic", 0x020000), ("bridge", 0x060400), ("NVSwitch", 0x068000),
    ("0x030200", 0x030200), ("030000", 0x030000), ("0302", 0x030200), ("0x0604", 0x060400),
    (0x020700, 0x020700),
])
def test_class(given_, expected):
    assert parse_class(given_, "x") == expected


@pytest.mark.parametrize("bad", ["0x010802", "nvme", 0x060401, "0x0106", True])
def test_unknown_class_refused(bad):
    with pytest.raises(NcclTopologyError, match="not one NCCL understands"):
        parse_class(bad, "x")


def test_busid_refusal_in_full():
    assert refusal_of(normalise_busid, "0000:3b:20.0") == (
        "busid: busid '0000:3b:20.0' is not a PCI address; NCCL needs dddd:bb:dd.f in hex (domain <= ffff, "
        "device 00-1f, function 0-7), e.g. '0000:3b:00.0'")
    assert refusal_of(normalise_busid, None, "pci #0").startswith("pci #0: busid None is not a PCI address")


@pytest.mark.parametrize("given_, expected", [
    ("0000:3b:1f.7", "0000:3b:1f.7"),      # the last device and function
    ("0000FFFF:3B:00.0", "ffff:3b:00.0"),  # an 8-digit domain up to ffff
])
def test_busid_edges(given_, expected):
    assert normalise_busid(given_) == expected


@pytest.mark.parametrize("value, lo, hi, expected", [
    (" 12 ", None, None, 12), ("-1", -1, None, -1), (" 0x1F ", None, None, 31), ("0X10", None, None, 16),
    (5, 5, 5, 5), ("7", 0, 7, 7), ("0", 0, 7, 0),
])
def test_parse_int_accepts(value, lo, hi, expected):
    assert parse_int(value, "w", lo, hi) == expected


def test_parse_int_booleans():
    assert parse_int(True, "w", 0, 1, allow_bool=True) == 1
    assert parse_int(False, "w", 0, 1, allow_bool=True) == 0
    assert refusal_of(parse_int, True, "net gdr") == "net gdr: got boolean True; write a number"


@pytest.mark.parametrize("value, lo, hi, message", [
    ("1.5", None, None, "w: '1.5' is not an integer; write e.g. 16 or '0x10'"),
    ("0x", None, None, "w: '0x' is not an integer; write e.g. 16 or '0x10'"),
    (None, None, None, "w: None is not an integer; write e.g. 16 or '0x10'"),
    (4, 5, 6, "w: 4 is outside 5..6"),
    (7, 5, 6, "w: 7 is outside 5..6"),
    (-2, -1, None, "w: -2 is outside -1..None"),
    (8, None, 7, "w: 8 is outside None..7"),
])
def test_parse_int_refusals_in_full(value, lo, hi, message):
    assert refusal_of(parse_int, value, "w", lo, hi) == message


@pytest.mark.parametrize("given_, written", [
    (" 0x10 ", "0x10"), ("ABCDEF", "0xabcdef"), ("f" * 16, "0xffffffffffffffff"), (2 ** 64 - 1, "0xffffffffffffffff"),
    (0, "0x0"),
])
def test_format_guid(given_, written):
    assert format_guid(given_, "w") == written


def test_guid_refusals_in_full():
    assert refusal_of(format_guid, 2 ** 64, "net guid") == "net guid: guid 18446744073709551616 is outside 0..2**64-1"
    assert refusal_of(format_guid, -1, "net guid") == "net guid: guid -1 is outside 0..2**64-1"
    assert refusal_of(format_guid, "0x1g", "net guid") == (
        "net guid: guid '0x1g' is not a 64-bit id; allowed: an integer, or up to 16 hex digits with or without 0x "
        "(NCCL reads the text as hexadecimal: '10' is 0x10)")
    with pytest.raises(ValueError) as caught:
        guid_value("1" * 17)
    assert str(caught.value) == "1" * 17
    # Only spaces are stripped: a no-break space, a tab or an X around the digits is refused.
    for bad in ("10\u00a0", "X10", "10\t"):
        with pytest.raises(ValueError):
            guid_value(bad)
    assert refusal_of(format_guid, "X10", "net guid").startswith("net guid: guid 'X10' is not a 64-bit id")


@pytest.mark.parametrize("given_, written", [
    (0, "0"), (1000000, "1000000"), ("1000000", "1000000"), (" 2.5 ", "2.5"), (1.5, "1.5"), (1e-05, "0.00001"),
    (2e-09, "0.000000002"), (1e6, "1000000.0"),
])
def test_format_latency(given_, written):
    assert format_latency(given_, "w") == written


@pytest.mark.parametrize("value, message", [
    (None, "w: latency None is not a number; allowed: a decimal 0..1e+06 (microseconds)"),
    (True, "w: latency True is not a number; allowed: a decimal 0..1e+06 (microseconds)"),
    ("1e3", "w: latency '1e3' is not a plain decimal; allowed: digits with an optional fraction, 0..1e+06 "
            "(microseconds; no nan, inf or exponent)"),
    ("1000000.5", "w: latency '1000000.5' is not a finite number 0..1e+06 (microseconds)"),
    (-0.5, "w: latency -0.5 is not a finite number 0..1e+06 (microseconds)"),
    (float("inf"), "w: latency inf is not a finite number 0..1e+06 (microseconds)"),
    ("2.5\u00a0", "w: latency '2.5\\xa0' is not a plain decimal; allowed: digits with an optional fraction, "
     "0..1e+06 (microseconds; no nan, inf or exponent)"),
    ("X2.5", "w: latency 'X2.5' is not a plain decimal; allowed: digits with an optional fraction, 0..1e+06 "
             "(microseconds; no nan, inf or exponent)"),
    (1e-10, "w: latency 1e-10 cannot be written as a plain decimal with up to 9 fraction digits (it would read back "
            "as 0); allowed: a decimal 0..1e+06 (microseconds)"),
])
def test_latency_refusals_in_full(value, message):
    assert refusal_of(format_latency, value, "w") == message


@pytest.mark.parametrize("given_, written", [
    ("10de", "0x10de"), ("10DE", "0x10de"), (" 15b3 ", "0x15b3"), ("0x0", "0x0000"), (0xFFFF, "0xffff"),
])
def test_hex_ids(given_, written):
    assert normalise_hex_id(given_, "w") == written


@pytest.mark.parametrize("value, message", [
    (0x10000, "pci vendor: 65536 is outside 0..65535"),
    (-1, "pci vendor: -1 is outside 0..65535"),
    ("10dex", "pci vendor: '10dex' is not an integer; write e.g. 16 or '0x10'"),
])
def test_hex_id_refusals_in_full(value, message):
    assert refusal_of(normalise_hex_id, value, "pci vendor") == message


@pytest.mark.parametrize("given_, expected", [
    ("0X030200", 0x030200), (" VGA ", 0x030000), ("0x080100", 0x080100), (0x068001, 0x068001), ("3d", 0x030200),
    ("infiniband", 0x020700), ("eth", 0x020000), ("ethernet", 0x020000), ("switch", 0x060400), ("0x02ffff", 0x02FFFF),
    (0x020000, 0x020000), (0x03FFFF, 0x03FFFF),
])
def test_class_spellings(given_, expected):
    assert parse_class(given_, "w") == expected


def test_class_refusal_in_full():
    assert refusal_of(parse_class, "0x040000", "pci class") == (
        "pci class: class '0x040000' is not one NCCL understands (0x060400 bridge, 0x068000 NVSwitch, 0x03xxxx GPU, "
        "0x02xxxx NIC); NCCL would treat it as a PCIe switch. Use one of 3d, bridge, eth, ethernet, gpu, ib, "
        "infiniband, nic, nvswitch, switch, vga or a hex code")
    for bad in (-1, 0x1030200, 0x01FFFF, 0x040000, None, "0x03020"):
        with pytest.raises(NcclTopologyError):
            parse_class(bad, "w")


@pytest.mark.parametrize("code, kind", [
    (0x060400, "bridge"), (0x080100, "bridge"), (0x068000, "nvswitch"), (0x068001, "cpu"), (0x030000, "gpu"),
    (0x030200, "gpu"), (0x020700, "nic"), (0x020000, "nic"),
])
def test_class_kind(code, kind):
    assert class_kind(code) == kind


@pytest.mark.parametrize("text, gts", [
    ("  16 GT/s", 16.0), ("2.5GT/s PCIe", 2.5), ("32.0 GT/s PCIe", 32.0), ("Unknown", None), ("", None), (None, None),
    ("16", None),
])
def test_speed_gts(text, gts):
    assert speed_gts(text) == gts


@pytest.mark.parametrize("given_, expected", [
    ("5 GT/s", "5 GT/s"), ("2.5 GT/s", "2.5 GT/s"), (" 8 GT/s ", "8 GT/s"), ("64.0 GT/s PCIe", "64.0 GT/s PCIe"),
    (8.0, "8.0 GT/s PCIe"), ("GEN1", "2.5 GT/s PCIe"), ("gen 6", "64.0 GT/s PCIe"), ("8 gt/s pcie", "8.0 GT/s PCIe"),
    ("2.5", "2.5 GT/s PCIe"), ("5.0 GT/s", "5.0 GT/s PCIe"),
])
def test_link_speed_spellings(given_, expected):
    assert normalise_link_speed(given_) == expected


def test_link_speed_refusal_in_full():
    assert refusal_of(normalise_link_speed, "gen7") == (
        "link_speed: link_speed 'gen7' is not a PCIe rate; use GT/s (2.5, 5, 8, 16, 32, 64), 'gen1'..'gen6' or the "
        "kernel's string such as '32.0 GT/s PCIe'")
    assert refusal_of(normalise_link_speed, 12, "pci link_speed").startswith("pci link_speed: link_speed 12 is not")


@pytest.mark.parametrize("given_, expected", [(" X8 ", "8"), ("32", "32"), (1, "1"), ("x12", "12"), (2, "2")])
def test_link_width_spellings(given_, expected):
    assert normalise_link_width(given_) == expected


def test_link_width_refusals_in_full():
    assert refusal_of(normalise_link_width, 64) == (
        "link_width: link_width 64 is not a PCIe width; use one of (1, 2, 4, 8, 12, 16, 32)")
    assert refusal_of(normalise_link_width, "wide", "pci link_width") == (
        "pci link_width: 'wide' is not an integer; write e.g. 16 or '0x10'")


# ---------------------------------------------------------------- affinity


def test_cpulist_to_cpumap_six_groups():
    # 0-47,96-143: group0 (0-31) ffffffff, group1 (32-63) bits 32-47 -> 0000ffff, group2 (64-95) 0,
    # group3 (96-127) ffffffff, group4 (128-159) bits 128-143 -> 0000ffff, group5 (160-191) 0.
    mask = parse_cpulist("0-47,96-143")
    assert bin(mask).count("1") == 96
    assert format_cpumask(mask, 6) == "00000000,0000ffff,ffffffff,00000000,0000ffff,ffffffff"
    assert format_cpumask(mask) == "0000ffff,ffffffff,00000000,0000ffff,ffffffff"  # minimal: 5 groups
    assert format_cpulist(mask) == "0-47,96-143"


@pytest.mark.parametrize("given_, mask, text", [
    ("00000000,0000FFFF,FF000000", 0xFFFFFF000000, "00000000,0000ffff,ff000000"),  # cpumap kept
    ("0-23", 0xFFFFFF, None),
    ("0,2,4", 0b10101, None),
    (0xFFFFFF, 0xFFFFFF, None),
    ("0xff", 0xFF, None),
    ([0, 1, 2, 3], 0xF, None),
    ("00000001", 1, "00000001"),  # 8 hex digits read as a cpumap (CPU 0), not as CPU number 1
])
def test_parse_affinity(given_, mask, text):
    assert parse_affinity(given_) == (mask, text)


@pytest.mark.parametrize("bad", ["0-23/2", "5-3", "0-1024", "ffff,ffff", -1, True, 2 ** 1024])
def test_bad_affinity_refused(bad):
    with pytest.raises(NcclTopologyError):
        parse_affinity(bad)


# ---------------------------------------------------------------- CPU sets


def test_cpulist_edges_and_refusals():
    assert parse_cpulist("5-5") == 1 << 5
    assert parse_cpulist("1023") == 1 << 1023
    assert parse_cpulist("0,2") == 0b101
    assert refusal_of(parse_cpulist, "0-1024") == (
        "affinity: CPU range '0-1024' is reversed or beyond CPU 1023 (NCCL's cpu_set_t holds 1024 CPUs)")
    assert refusal_of(parse_cpulist, "3-2", "cpu affinity") == (
        "cpu affinity: CPU range '3-2' is reversed or beyond CPU 1023 (NCCL's cpu_set_t holds 1024 CPUs)")


@pytest.mark.parametrize("mask, text", [
    (0, ""), (1, "0"), (0b100101, "0,2,5"), (0b11101, "0,2-4"), (1 << 1023, "1023"), (0b1100, "2-3"),
])
def test_format_cpulist(mask, text):
    assert format_cpulist(mask) == text


@pytest.mark.parametrize("mask, groups", [(0, 1), (1, 1), (2 ** 32 - 1, 1), (2 ** 32, 2), (2 ** 64 - 1, 2),
                                          (2 ** 64, 3)])
def test_mask_groups(mask, groups):
    assert mask_groups(mask) == groups


def test_format_cpumask_edges():
    assert format_cpumask(0) == "00000000"
    assert format_cpumask(1, 2) == "00000000,00000001"
    assert format_cpumask(2 ** 32) == "00000001,00000000"
    assert format_cpumask(0xFF, 1) == "000000ff"


@pytest.mark.parametrize("given_, mask, text", [
    ("0X1F", 0x1F, None), ([], 0, None), ([5], 1 << 5, None), (" 0-1 ", 0b11, None),
])
def test_parse_affinity_more(given_, mask, text):
    assert parse_affinity(given_) == (mask, text)


@pytest.mark.parametrize("value, shown", [("0-1024", "'0-1024'"), ([1024], "'1024'"), ([3, 1024], "'1024'")])
def test_parse_affinity_refusal_names_its_place(value, shown):
    # A CPU list (text, or a list of CPU ids) beyond CPU 1023: the refusal says where, as the caller named it.
    assert refusal_of(parse_affinity, value, "cpu[numaid=0] affinity") == (
        "cpu[numaid=0] affinity: CPU range %s is reversed or beyond CPU 1023 (NCCL's cpu_set_t holds 1024 CPUs)" % shown)


def test_parse_affinity_largest_cpumap():
    # 32 groups of 8 hex digits hold CPUs 0-1023; CPU 1023 is the top bit of the first group.
    text = ",".join(["80000000"] + ["00000000"] * 31)
    assert parse_affinity(text) == (1 << 1023, text)
    over = ",".join(["00000001"] + ["00000000"] * 32)
    assert refusal_of(parse_affinity, over) == (
        "affinity: cpumap %r has CPUs beyond 1023; NCCL's cpu_set_t holds 1024" % over)


@pytest.mark.parametrize("value, message", [
    ("0-23/2", "cpu affinity: affinity '0-23/2' is neither a cpumap ('0000ffff,ffffffff': 8 hex digits per 32 CPUs) "
               "nor a CPU list ('0-23,48-71')"),
    (-1, "cpu affinity: affinity -1 must be a cpumap string, a CPU list, a list of CPU ids or a mask below 2**1024"),
    ([True], "cpu affinity: affinity [True] must be a cpumap string, a CPU list, a list of CPU ids or a mask below "
             "2**1024"),
    (2 ** 1024, "cpu affinity: affinity %d must be a cpumap string, a CPU list, a list of CPU ids or a mask below "
                "2**1024" % 2 ** 1024),
    (1.0, "cpu affinity: affinity 1.0 must be a cpumap string, a CPU list, a list of CPU ids or a mask below "
          "2**1024"),
])
def test_parse_affinity_refusals_in_full(value, message):
    assert refusal_of(parse_affinity, value, "cpu affinity") == message


def test_parse_affinity_top_mask_accepted():
    assert parse_affinity(2 ** 1024 - 1) == (2 ** 1024 - 1, None)
    assert parse_affinity(0) == (0, None)


# ---------------------------------------------------------------- more places, edges and spellings of the layout


@pytest.mark.parametrize("given_, expected", [
    ("0000:3b:1F.7", "0000:3b:1f.7"), ("0000:3B:00.0", "0000:3b:00.0"), ("  0000:3b:00.1", "0000:3b:00.1"),
])
def test_busid_spellings(given_, expected):
    assert normalise_busid(given_) == expected


@pytest.mark.parametrize("bad", ["0000:3b:00.0\u00a0", "X0000:3b:00.0", "0000:3b:00.0\t", "00010000:3b:00.0"])
def test_busid_only_spaces_stripped(bad):
    with pytest.raises(NcclTopologyError):
        normalise_busid(bad)


def test_link_speed_read_from_a_file_with_its_newline():
    assert normalise_link_speed("16.0 GT/s PCIe\n") == "16.0 GT/s PCIe"
    assert normalise_link_speed("\t8 GT/s") == "8 GT/s"


# ---------------------------------------------------------------- properties


cpu_sets = st.sets(st.integers(0, 1023), min_size=1, max_size=64)


@settings(max_examples=200, deadline=None)
@given(cpu_sets)
def test_cpulist_round_trip(cpus):
    mask = sum(1 << c for c in cpus)
    assert parse_cpulist(format_cpulist(mask)) == mask
    text = format_cpumask(mask)
    assert parse_affinity(text) == (mask, text)
    assert all(len(g) == 8 for g in text.split(","))


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 0xFFFF), st.integers(0, 0xFF), st.integers(0, 0x1F), st.integers(0, 7), st.booleans())
def test_busid_normalisation_idempotent(domain, bus, dev, fn, upper):
    text = "%04x:%02x:%02x.%d" % (domain, bus, dev, fn)
    once = normalise_busid(text.upper() if upper else text)
    assert once == text and normalise_busid(once) == once
