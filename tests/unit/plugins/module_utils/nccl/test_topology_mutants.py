# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Tests that kill mutants `make mutation MODULES=nccl_topology` found alive (docs/testing.md).

Every refusal compared in full (the place, the value, the rule and the fix), the edges of every range, the spellings
each normaliser accepts, the writer's output for the elements the other tests do not write (pcilink, c2c, an empty
nic), and the canonical tree value by value.
"""
from __future__ import annotations

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.topology import (
    NcclTopologyError,
    canonical_tree,
    class_kind,
    format_cpulist,
    format_cpumask,
    format_guid,
    format_latency,
    guid_value,
    layout_from_xml,
    mask_groups,
    normalise_busid,
    normalise_hex_id,
    normalise_layout,
    normalise_link_speed,
    normalise_link_width,
    parse_affinity,
    parse_class,
    parse_cpulist,
    parse_int,
    render_xml,
    speed_gts,
)


def _message(call, *args, **kwargs):
    with pytest.raises(NcclTopologyError) as caught:
        call(*args, **kwargs)
    return str(caught.value)


def _cpu(numaid=0, affinity="0-23", **extra):
    cpu = {"numaid": numaid, "affinity": affinity, "arch": "x86_64", "vendor": "GenuineIntel",
           "familyid": 6, "modelid": 143, "pci": []}
    cpu.update(extra)
    return {k: v for k, v in cpu.items() if v is not None}


def _gpu(busid="0000:53:00.0", **extra):
    pci = {"busid": busid, "class": "gpu", "link_speed": "gen5", "link_width": 16}
    pci.update(extra)
    return pci


def _nic(busid="0000:52:00.0", **extra):
    pci = {"busid": busid, "class": "ib", "link_speed": 32, "link_width": 16}
    pci.update(extra)
    return pci


def _bridge(busid="0000:50:00.0", kids=None, **extra):
    pci = {"busid": busid, "class": "bridge", "link_speed": 32, "link_width": 16, "pci": kids or []}
    pci.update(extra)
    return pci


def _refusal(layout):
    return _message(render_xml, layout)


# ---------------------------------------------------------------- scalars

def test_busid_refusal_in_full():
    assert _message(normalise_busid, "0000:3b:20.0") == (
        "busid: busid '0000:3b:20.0' is not a PCI address; NCCL needs dddd:bb:dd.f in hex (domain <= ffff, "
        "device 00-1f, function 0-7), e.g. '0000:3b:00.0'")
    assert _message(normalise_busid, None, "pci #0").startswith("pci #0: busid None is not a PCI address")


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
    assert _message(parse_int, True, "net gdr") == "net gdr: got boolean True; write a number"


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
    assert _message(parse_int, value, "w", lo, hi) == message


@pytest.mark.parametrize("given_, written", [
    (" 0x10 ", "0x10"), ("ABCDEF", "0xabcdef"), ("f" * 16, "0xffffffffffffffff"), (2 ** 64 - 1, "0xffffffffffffffff"),
    (0, "0x0"),
])
def test_format_guid(given_, written):
    assert format_guid(given_, "w") == written


def test_guid_refusals_in_full():
    assert _message(format_guid, 2 ** 64, "net guid") == "net guid: guid 18446744073709551616 is outside 0..2**64-1"
    assert _message(format_guid, -1, "net guid") == "net guid: guid -1 is outside 0..2**64-1"
    assert _message(format_guid, "0x1g", "net guid") == (
        "net guid: guid '0x1g' is not a 64-bit id; allowed: an integer, or up to 16 hex digits with or without 0x "
        "(NCCL reads the text as hexadecimal: '10' is 0x10)")
    with pytest.raises(ValueError) as caught:
        guid_value("1" * 17)
    assert str(caught.value) == "1" * 17
    # Only spaces are stripped: a no-break space, a tab or an X around the digits is refused.
    for bad in ("10\u00a0", "X10", "10\t"):
        with pytest.raises(ValueError):
            guid_value(bad)
    assert _message(format_guid, "X10", "net guid").startswith("net guid: guid 'X10' is not a 64-bit id")


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
    assert _message(format_latency, value, "w") == message


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
    assert _message(normalise_hex_id, value, "pci vendor") == message


@pytest.mark.parametrize("given_, expected", [
    ("0X030200", 0x030200), (" VGA ", 0x030000), ("0x080100", 0x080100), (0x068001, 0x068001), ("3d", 0x030200),
    ("infiniband", 0x020700), ("eth", 0x020000), ("ethernet", 0x020000), ("switch", 0x060400), ("0x02ffff", 0x02FFFF),
    (0x020000, 0x020000), (0x03FFFF, 0x03FFFF),
])
def test_class_spellings(given_, expected):
    assert parse_class(given_, "w") == expected


def test_class_refusal_in_full():
    assert _message(parse_class, "0x040000", "pci class") == (
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
    assert _message(normalise_link_speed, "gen7") == (
        "link_speed: link_speed 'gen7' is not a PCIe rate; use GT/s (2.5, 5, 8, 16, 32, 64), 'gen1'..'gen6' or the "
        "kernel's string such as '32.0 GT/s PCIe'")
    assert _message(normalise_link_speed, 12, "pci link_speed").startswith("pci link_speed: link_speed 12 is not")


@pytest.mark.parametrize("given_, expected", [(" X8 ", "8"), ("32", "32"), (1, "1"), ("x12", "12"), (2, "2")])
def test_link_width_spellings(given_, expected):
    assert normalise_link_width(given_) == expected


def test_link_width_refusals_in_full():
    assert _message(normalise_link_width, 64) == (
        "link_width: link_width 64 is not a PCIe width; use one of (1, 2, 4, 8, 12, 16, 32)")
    assert _message(normalise_link_width, "wide", "pci link_width") == (
        "pci link_width: 'wide' is not an integer; write e.g. 16 or '0x10'")


# ---------------------------------------------------------------- CPU sets

def test_cpulist_edges_and_refusals():
    assert parse_cpulist("5-5") == 1 << 5
    assert parse_cpulist("1023") == 1 << 1023
    assert parse_cpulist("0,2") == 0b101
    assert _message(parse_cpulist, "0-1024") == (
        "affinity: CPU range '0-1024' is reversed or beyond CPU 1023 (NCCL's cpu_set_t holds 1024 CPUs)")
    assert _message(parse_cpulist, "3-2", "cpu affinity") == (
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
    assert _message(parse_affinity, value, "cpu[numaid=0] affinity") == (
        "cpu[numaid=0] affinity: CPU range %s is reversed or beyond CPU 1023 (NCCL's cpu_set_t holds 1024 CPUs)" % shown)


def test_parse_affinity_largest_cpumap():
    # 32 groups of 8 hex digits hold CPUs 0-1023; CPU 1023 is the top bit of the first group.
    text = ",".join(["80000000"] + ["00000000"] * 31)
    assert parse_affinity(text) == (1 << 1023, text)
    over = ",".join(["00000001"] + ["00000000"] * 32)
    assert _message(parse_affinity, over) == (
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
    assert _message(parse_affinity, value, "cpu affinity") == message


def test_parse_affinity_top_mask_accepted():
    assert parse_affinity(2 ** 1024 - 1) == (2 ** 1024 - 1, None)
    assert parse_affinity(0) == (0, None)


# ---------------------------------------------------------------- layout validation, refusals in full

@pytest.mark.parametrize("layout, message", [
    ([], "system: a system must be a mapping, got list"),
    ({"cpus": "x"}, "system: cpus must be a list, got str"),
    ({"cpus": []}, "system: cpus is empty; a topology needs at least one cpu (NUMA node)"),
    ({"cpus": [_cpu(0)], "name": "a\tb"},
     "system: name 'a\\tb' holds a control character (a newline, tab ...); NCCL reads the value raw. Allowed: "
     "printable characters only"),
    ({"cpus": [_cpu(0)], "nodes": 1}, "system: unknown key(s) nodes for a system; allowed: version, name, cpus"),
    ({"version": "2", "cpus": [_cpu(0)]}, "system version: NCCL reads only topology version 1, got '2'"),
    ({"cpus": [7]}, "cpu #0: a cpu must be a mapping, got int"),
    ({"cpus": [_cpu(0), {"arch": "x86_64"}]},
     "cpu #1: cpu is missing numaid (NCCL's reader needs it); use the NUMA node number"),
    ({"cpus": [_cpu(0, arch=None)]}, "cpu[numaid=0]: missing arch; NCCL needs one of x86_64, arm64, ppc64"),
    ({"cpus": [_cpu(3, arch="mips")]}, "cpu[numaid=3]: arch 'mips' is unknown to NCCL; use x86_64, arm64 or ppc64"),
    ({"cpus": [_cpu(0, vendor="HygonGenuine")]},
     "cpu[numaid=0]: x86 CPU needs vendor GenuineIntel or AuthenticAMD (got 'HygonGenuine'); NCCL picks its "
     "bandwidth model from it"),
    ({"cpus": [_cpu(0, vendor=None)]},
     "cpu[numaid=0]: x86 CPU needs vendor GenuineIntel or AuthenticAMD (got None); NCCL picks its bandwidth model "
     "from it"),
    ({"cpus": [_cpu(0, familyid=None, modelid=None)]},
     "cpu[numaid=0]: GenuineIntel CPU needs familyid and modelid (from /proc/cpuinfo 'cpu family' and 'model')"),
    ({"cpus": [_cpu(0, vendor="shanghai", modelid=None)]},
     "cpu[numaid=0]: Shanghai CPU needs modelid (from /proc/cpuinfo 'cpu family' and 'model')"),
    ({"cpus": [_cpu(0, vendor="AMD", familyid=None, modelid=None)]},
     "cpu[numaid=0]: AuthenticAMD CPU needs familyid (from /proc/cpuinfo 'cpu family' and 'model')"),
    ({"cpus": [_cpu(0, affinity=[])]},
     "cpu[numaid=0]: affinity is empty; a NUMA node with devices must own CPUs, or leave affinity out"),
    ({"cpus": [_cpu(0, affinity="zz")]},
     "cpu[numaid=0] affinity: affinity 'zz' is neither a cpumap ('0000ffff,ffffffff': 8 hex digits per 32 CPUs) nor "
     "a CPU list ('0-23,48-71')"),
    ({"cpus": [_cpu(0, "0-3"), _cpu(0, "4-7")]},
     "cpu[numaid=0]: numaid appears twice; give each NUMA node one cpu"),
    ({"cpus": [_cpu(0, "0-31"), _cpu(1, "24-47")]},
     "cpu[numaid=1]: affinity shares CPUs 24-31 with another NUMA node; each CPU belongs to one node"),
    ({"cpus": [_cpu(0, "0,5"), _cpu(1, "5-9")]},
     "cpu[numaid=1]: affinity shares CPUs 5 with another NUMA node; each CPU belongs to one node"),
    ({"cpus": [_cpu(0, pci="x")]}, "cpu[numaid=0]: pci must be a list, got str"),
    ({"cpus": [_cpu(2147483648)]}, "cpu #0 numaid: 2147483648 is outside -1..2147483647"),
    ({"cpus": [_cpu(0, familyid=-1)]}, "cpu #0 familyid: -1 is outside 0..2147483647"),
    ({"cpus": [_cpu(0, host_hash="")]}, "cpu #0 host_hash: '' must be a non-empty string"),
    ({"cpus": [_cpu(0, host_hash=True)]}, "cpu #0 host_hash: True must be a non-empty string"),
    ({"cpus": [_cpu(0, host_hash="h" * 256)]}, "cpu #0: host_hash is 256 characters; NCCL's reader stops at 255"),
    ({"cpus": [_cpu(0, host_hash="caf\u00e9")]},
     "cpu #0: host_hash 'caf\u00e9' holds a quote, <, >, & or a non-printable character; NCCL reads values raw (no "
     "entities), so remove it"),
])
def test_layout_refusals_in_full(layout, message):
    assert _refusal(layout) == message


def test_pci_refusals_in_full():
    where = "cpu[numaid=0] > pci[0000:50:00.0]"
    assert _refusal({"cpus": [_cpu(0, pci=[_gpu("0000:53:00.0"), "x"])]}) == (
        "cpu[numaid=0] > pci #1: a pci must be a mapping, got str")
    assert _refusal({"cpus": [_cpu(0, pci=[{"busid": "0000:53:00.0", "class": "gpu"}])]}) == (
        "cpu[numaid=0] > pci #0: pci is missing required attribute(s) link_speed, link_width (NCCL's reader needs them)")
    assert _refusal({"cpus": [_cpu(0, pci=[_gpu("0000:53:00.0", nvlink=1)])]}) == (
        "cpu[numaid=0] > pci #0: unknown key(s) nvlink for a pci; allowed: busid, class, vendor, device, "
        "subsystem_vendor, subsystem_device, link_speed, link_width, pci, pcilink, gpu, nic")
    assert _refusal({"cpus": [_cpu(0, pci=[_bridge("0000:50:00.0", [_gpu("0000:53:00.0")]),
                                           _gpu("0000:53:00.0")])]}) == (
        "cpu[numaid=0] > pci[0000:53:00.0]: busid 0000:53:00.0 appears twice (first at %s > pci[0000:53:00.0]); NCCL "
        "keys devices by busid, keep one" % where)
    assert _refusal({"cpus": [_cpu(0, pci=[_nic("0000:52:00.0", pcilink=[{"target": "0000:53:00.0"}])])]}) == (
        "cpu[numaid=0] > pci[0000:52:00.0]: class 0x020700 (nic) has child pci/pcilink elements; NCCL only follows "
        "children of bridges (0x060400), so nest them under the switch instead")
    nvswitch = _gpu("0000:53:00.0", **{"class": "nvswitch", "pci": [_gpu("0000:54:00.0")]})
    assert _refusal({"cpus": [_cpu(0, pci=[nvswitch])]}) == (
        "cpu[numaid=0] > pci[0000:53:00.0]: class 0x068000 (nvswitch) has child pci/pcilink elements; NCCL only "
        "follows children of bridges (0x060400), so nest them under the switch instead")
    assert _refusal({"cpus": [_cpu(0, pci=[_nic("0000:52:00.0", gpu={"dev": 0, "sm": 90, "rank": 0, "gdr": 1})])]}) \
        == "cpu[numaid=0] > pci[0000:52:00.0]: a gpu element under class 0x020700; only 0x03xxxx devices are GPUs"
    assert _refusal({"cpus": [_cpu(0, pci=[_bridge("0000:50:00.0", nic={"net": []})])]}) == (
        "%s: a nic element under class 0x060400; only 0x02xxxx devices are NICs" % where)
    assert _refusal({"cpus": [_cpu(0, pci=[_gpu("0000:53:00.0", gpu={"dev": 0, "sm": 90, "rank": 0})])]}) == (
        "cpu[numaid=0] > pci[0000:53:00.0] > gpu: gpu is missing required attribute(s) gdr (NCCL's reader needs them)")
    gpu = {"dev": 0, "sm": 90, "rank": 0, "gdr": 1, "nvlink": [{"target": "0000:05:00.0", "count": 18}]}
    assert _refusal({"cpus": [_cpu(0, pci=[_gpu("0000:53:00.0", gpu=gpu)])]}) == (
        "cpu[numaid=0] > pci[0000:53:00.0] > gpu > nvlink: nvlink is missing required attribute(s) tclass (NCCL's "
        "reader needs them)")
    gpu = {"dev": 0, "sm": 90, "rank": 0, "gdr": 2}
    assert _refusal({"cpus": [_cpu(0, pci=[_gpu("0000:53:00.0", gpu=gpu)])]}) == (
        "cpu[numaid=0] > pci[0000:53:00.0] > gpu gdr: 2 is outside 0..1")
    gpu = {"dev": 0, "sm": 90, "rank": 0, "gdr": 1, "c2c": [{"count": 2, "bw": -1}]}
    assert _refusal({"cpus": [_cpu(0, pci=[_gpu("0000:53:00.0", gpu=gpu)])]}) == (
        "cpu[numaid=0] > pci[0000:53:00.0] > gpu > c2c bw: -1 is outside 0..2147483647")
    assert _refusal({"cpus": [_cpu(0, pci=[_nic("0000:52:00.0", nic={"net": [{"dev": 0}, {"name": "x"}]})])]}) == (
        "cpu[numaid=0] > pci[0000:52:00.0] > nic > net #1: net is missing required attribute(s) dev (NCCL's reader "
        "needs them)")
    assert _refusal({"cpus": [_cpu(0, pci=[_nic("0000:52:00.0", nic={"net": [{"dev": 0, "coll": 3}]})])]}) == (
        "cpu[numaid=0] > pci[0000:52:00.0] > nic > net coll: 3 is outside 0..1")
    assert _refusal({"cpus": [_cpu(0, pci=[_nic("0000:52:00.0", nic={"nets": []})])]}) == (
        "cpu[numaid=0] > pci[0000:52:00.0] > nic: unknown key(s) nets for a nic; allowed: net")
    assert _refusal({"cpus": [_cpu(0, pci=[_bridge("0000:50:00.0", pcilink=[{"target": "0000:5x:00.0"}])])]}) == (
        "%s target: busid '0000:5x:00.0' is not a PCI address; NCCL needs dddd:bb:dd.f in hex (domain <= ffff, device "
        "00-1f, function 0-7), e.g. '0000:3b:00.0'" % where)
    kids = [_gpu("0000:%02x:%02x.0" % (1 + i // 32, i % 32)) for i in range(640)]
    assert render_xml({"cpus": [_cpu(0, pci=kids)]}).count("<pci ") == 640


def test_net_name_edges():
    name = "n" * 255
    text = render_xml({"cpus": [_cpu(0, pci=[_nic("0000:52:00.0", nic={"net": [{"name": name, "dev": 0}]})])]})
    assert '<net name="%s" dev="0"/>' % name in text
    text = render_xml({"cpus": [_cpu(0, pci=[_nic("0000:52:00.0", nic={"net": [{"name": 5, "dev": 0}]})])]})
    assert '<net name="5" dev="0"/>' in text


# ---------------------------------------------------------------- the writer

def test_pcilink_c2c_and_empty_elements_written():
    gpu = _gpu("0000:53:00.0", gpu={"dev": 1, "sm": 90, "rank": 1, "gdr": False, "c2c": [{"count": 10, "bw": 40}]})
    bridge = _bridge("0000:50:00.0", [gpu], pcilink=[{"target": "0000:60:00.0"}])
    nic = _nic("0000:c1:00.0", nic={"net": []})
    text = render_xml({"version": 1, "name": "node-a",
                       "cpus": [_cpu(0, "0-3", arch="aarch64", vendor=None, familyid=None, modelid=None,
                                     host_hash="0x1a2b", pci=[bridge, nic])]})
    assert text == (
        '<system version="1" name="node-a">\n'
        '  <cpu numaid="0" affinity="0000000f" arch="arm64" host_hash="0x1a2b">\n'
        '    <pci busid="0000:50:00.0" class="0x060400" link_speed="32.0 GT/s PCIe" link_width="16">\n'
        '      <pci busid="0000:53:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16">\n'
        '        <gpu dev="1" sm="90" rank="1" gdr="0">\n'
        '          <c2c count="10" bw="40"/>\n'
        '        </gpu>\n'
        '      </pci>\n'
        '      <pcilink target="0000:60:00.0"/>\n'
        '    </pci>\n'
        '    <pci busid="0000:c1:00.0" class="0x020700" link_speed="32.0 GT/s PCIe" link_width="16">\n'
        '      <nic/>\n'
        '    </pci>\n'
        '  </cpu>\n'
        '</system>\n')


def test_gpu_without_links_and_a_cpu_without_pci():
    gpu = _gpu("0000:53:00.0", gpu={"dev": 0, "sm": 80, "rank": 0, "gdr": 1})
    text = render_xml({"cpus": [_cpu(0, "0-3", pci=[gpu]), _cpu(1, "4-7", pci=None)]})
    assert text == (
        '<system version="1">\n'
        '  <cpu numaid="0" affinity="0000000f" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">\n'
        '    <pci busid="0000:53:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16">\n'
        '      <gpu dev="0" sm="80" rank="0" gdr="1"/>\n'
        '    </pci>\n'
        '  </cpu>\n'
        '  <cpu numaid="1" affinity="000000f0" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143"/>\n'
        '</system>\n')


def test_normalised_layout_in_full():
    # Every attribute as NCCL's string; numaid -1 accepted; the text cpumap kept and the computed one padded to its
    # three groups; affinity placed after the other attributes' normalisation.
    nic = _nic("0000:C1:00.0", vendor="15B3", nic={"net": [{"dev": 0, "guid": 16, "latency": 2}]})
    norm = normalise_layout({"cpus": [_cpu(-1, "00000000,00000000,0000FFFF", vendor="intel", pci=[nic]),
                                      _cpu(1, "16-31", vendor="centaurhauls")]})
    assert norm == {"version": "1", "cpus": [
        {"numaid": "-1", "arch": "x86_64", "vendor": "GenuineIntel", "familyid": "6", "modelid": "143",
         "affinity": "00000000,00000000,0000ffff",
         "pci": [{"busid": "0000:c1:00.0", "class": "0x020700", "vendor": "0x15b3", "link_speed": "32.0 GT/s PCIe",
                  "link_width": "16", "nic": {"net": [{"dev": "0", "guid": "0x10", "latency": "2"}]}}]},
        {"numaid": "1", "arch": "x86_64", "vendor": "CentaurHauls", "familyid": "6", "modelid": "143",
         "affinity": "00000000,00000000,ffff0000", "pci": []}]}


def test_computed_masks_padded_to_the_widest_mask():
    norm = normalise_layout({"cpus": [_cpu(0, "0-3"), _cpu(1, [40])]})
    assert [c["affinity"] for c in norm["cpus"]] == ["00000000,0000000f", "00000100,00000000"]


# ---------------------------------------------------------------- the parser and the canonical tree

def test_layout_from_xml_in_full():
    text = ('<system version="1"><!-- a comment --><cpu numaid="0" arch="x86_64"><pci busid="0000:53:00.0"'
            ' class="0x030200" link_speed="16 GT/s" link_width="16"><gpu dev="0" sm="80" rank="0" gdr="1">'
            '<nvlink target="0000:05:00.0" count="12" tclass="0x068000"/><c2c count="1" bw="2"/></gpu></pci>'
            '<pci busid="0000:50:00.0" class="0x060400" link_speed="16 GT/s" link_width="16"><pcilink'
            ' target="0000:60:00.0"/></pci><pci busid="0000:52:00.0" class="0x020700" link_speed="16 GT/s"'
            ' link_width="16"><nic><net dev="0" name="mlx5_0"/><net dev="1"/></nic></pci></cpu>'
            '<cpu numaid="1" arch="arm64"/></system>')
    assert layout_from_xml(text) == {"version": "1", "cpus": [
        {"numaid": "0", "arch": "x86_64", "pci": [
            {"busid": "0000:53:00.0", "class": "0x030200", "link_speed": "16 GT/s", "link_width": "16",
             "gpu": {"dev": "0", "sm": "80", "rank": "0", "gdr": "1",
                     "nvlink": [{"target": "0000:05:00.0", "count": "12", "tclass": "0x068000"}],
                     "c2c": [{"count": "1", "bw": "2"}]}},
            {"busid": "0000:50:00.0", "class": "0x060400", "link_speed": "16 GT/s", "link_width": "16",
             "pcilink": [{"target": "0000:60:00.0"}]},
            {"busid": "0000:52:00.0", "class": "0x020700", "link_speed": "16 GT/s", "link_width": "16",
             "nic": {"net": [{"dev": "0", "name": "mlx5_0"}, {"dev": "1"}]}}]},
        {"numaid": "1", "arch": "arm64"}]}


@pytest.mark.parametrize("text, message", [
    ("<system>", "topology XML does not parse: no element found: line 1, column 8"),
    ("<nccl/>", 'topology XML root is <nccl>; NCCL expects <system version="1">'),
    ('<system version="1"><pci busid="0000:53:00.0"/></system>',
     "system: element <pci> under <system> is not part of the layout model"),
    ('<system version="1"><cpu numaid="0"><pci busid="0000:53:00.0"><net dev="0"/></pci></cpu></system>',
     "system > cpu > pci: element <net> under <pci> is not part of the layout model"),
    ('<system version="1"><cpu numaid="0"><gpu dev="0"/></cpu></system>',
     "system > cpu: element <gpu> under <cpu> is not part of the layout model"),
    ('<system version="1"><cpu numaid="0"><pci busid="0000:52:00.0"><nic><foo/></nic></pci></cpu></system>',
     "system > cpu > pci > nic: element <foo> under <nic> is not part of the layout model"),
    ('<system version="1"><cpu numaid="0"><pci busid="0000:52:00.0"><nic><net dev="0"><foo/></net></nic></pci></cpu>'
     '</system>', "system > cpu > pci > nic > net: element <foo> under <net> is not part of the layout model"),
])
def test_layout_from_xml_refusals_in_full(text, message):
    assert _message(layout_from_xml, text) == message


def test_canonical_tree_value_by_value():
    text = ('<system version="1"><cpu numaid="0" affinity="0000ffff" arch="x86_64" vendor="GenuineIntel"'
            ' familyid="6"><pci busid="0000:3B:00.0" class="0x030200" vendor="0x10DE" device="0x2330"'
            ' subsystem_vendor="0x10de" subsystem_device="0x16C1" link_speed="32.0 GT/s PCIe" link_width="16">'
            '<gpu dev="0" sm="90" rank="0" gdr="1"><nvlink target="0000:C7:00.0" count="18" tclass="0x068000"/>'
            '</gpu></pci><pci busid="0000:3A:00.0" class="0x020700" link_speed="16 GT/s" link_width="8"><nic>'
            '<net name="mlx5_0" dev="0" guid="a088" latency="1.5"/></nic></pci></cpu></system>')
    gpu = ("pci", (("busid", "0000:3b:00.0"), ("class", 0x030200), ("device", 0x2330), ("link_speed", 32.0),
                   ("link_width", 16), ("subsystem_device", 0x16C1), ("subsystem_vendor", 0x10DE),
                   ("vendor", 0x10DE)),
           (("gpu", (("dev", 0), ("gdr", 1), ("rank", 0), ("sm", 90)),
             (("nvlink", (("count", 18), ("target", "0000:c7:00.0"), ("tclass", 0x068000)), ()),)),))
    nic = ("pci", (("busid", "0000:3a:00.0"), ("class", 0x020700), ("link_speed", 16.0), ("link_width", 8)),
           (("nic", (), (("net", (("dev", 0), ("guid", 0xA088), ("latency", "1.5"), ("name", "mlx5_0")), ()),)),))
    cpu = ("cpu", (("affinity", 0xFFFF), ("arch", "x86_64"), ("familyid", 6), ("numaid", 0),
                   ("vendor", "GenuineIntel")), (gpu, nic) if repr(gpu) < repr(nic) else (nic, gpu))
    assert canonical_tree(text) == ("system", (("version", 1),), (cpu,))
    # Upper and lower case hex, and the order of siblings, do not matter.
    lower = text.replace("0x10DE", "0x10de").replace("0x16C1", "0x16c1").replace("0000:C7", "0000:c7")
    assert canonical_tree(lower) == canonical_tree(text)


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


def _net_layout(**net):
    entry = {"dev": 0}
    entry.update(net)
    return {"cpus": [_cpu(0, pci=[_nic("0000:52:00.0", nic={"net": [entry]})])]}


@pytest.mark.parametrize("name", ["ib 0~", "MLX_X", "  Shanghai  ", 7])
def test_value_characters_accepted(name):
    text = render_xml(_net_layout(name=name))
    assert '<net name="%s" dev="0"/>' % name in text


@pytest.mark.parametrize("name", ['a"b', "a<b", "a>b", "a&b", "caf\u00e9"])
def test_value_characters_refused(name):
    assert _refusal(_net_layout(name=name)) == (
        "cpu[numaid=0] > pci[0000:52:00.0] > nic > net: name %r holds a quote, <, >, & or a non-printable character; "
        "NCCL reads values raw (no entities), so remove it" % name)


@pytest.mark.parametrize("name", ["a\x00", "a\x1f", "a\x7f", "a\x9f", "a\u2028", "a\u2029", "a\nb"])
def test_control_characters_refused(name):
    assert _refusal(_net_layout(name=name)) == (
        "cpu[numaid=0] > pci[0000:52:00.0] > nic > net #0: name %r holds a control character (a newline, tab ...); "
        "NCCL reads the value raw. Allowed: printable characters only" % name)


@pytest.mark.parametrize("value, message", [
    (1.5, "1.5 must be a non-empty string"), ([], "[] must be a non-empty string"),
    (False, "False must be a non-empty string"), ("", "'' must be a non-empty string"),
])
def test_net_name_refusals(value, message):
    assert _refusal(_net_layout(name=value)) == "cpu[numaid=0] > pci[0000:52:00.0] > nic > net name: " + message


def test_integer_attribute_edges():
    text = render_xml(_net_layout(speed=2147483647, port=0, maxconn="0x10", gdr=True, coll=False))
    assert '<net dev="0" speed="2147483647" port="0" maxconn="16" gdr="1" coll="0"/>' in text
    assert _refusal(_net_layout(speed=2147483648)) == (
        "cpu[numaid=0] > pci[0000:52:00.0] > nic > net speed: 2147483648 is outside 0..2147483647")
    assert _refusal(_net_layout(port=-1)) == "cpu[numaid=0] > pci[0000:52:00.0] > nic > net port: -1 is outside 0..2147483647"
    assert _refusal(_net_layout(dev=True)) == "cpu[numaid=0] > pci[0000:52:00.0] > nic > net dev: got boolean True; write a number"


def test_version_spellings():
    assert render_xml({"version": "0x1", "cpus": [_cpu(0)]}).startswith('<system version="1">\n')
    assert _refusal({"version": True, "cpus": [_cpu(0)]}) == "system version: got boolean True; write a number"
    assert _refusal({"version": 0, "cpus": [_cpu(0)]}) == "system version: NCCL reads only topology version 1, got 0"


def test_attributes_given_as_none_are_left_out():
    text = render_xml({"cpus": [_cpu(0, "0-3", pci=[_gpu("0000:53:00.0", vendor=None, device="0x2330")])]})
    assert '<pci busid="0000:53:00.0" class="0x030200" device="0x2330" link_speed="32.0 GT/s PCIe" link_width="16"/>' \
        in text


def test_more_layout_refusals_in_full():
    pci = "cpu[numaid=0] > pci[0000:53:00.0]"
    assert _refusal({"cpus": [_cpu(0, pci=[_gpu("0000:53:00.0", zeta=1, alpha=2)])]}) == (
        "cpu[numaid=0] > pci #0: unknown key(s) alpha, zeta for a pci; allowed: busid, class, vendor, device, "
        "subsystem_vendor, subsystem_device, link_speed, link_width, pci, pcilink, gpu, nic")
    kids = [_gpu("0000:%02x:%02x.0" % (1 + i // 32, i % 32)) for i in range(641)]
    assert _refusal({"cpus": [_cpu(0, pci=kids)]}) == "cpu[numaid=0]: 641 pci children; NCCL's reader allows 640 per element"
    assert _refusal({"cpus": [_cpu(0, pci=[_gpu("0000:53:00.0", gpu={})])]}) == (
        "%s > gpu: gpu is missing required attribute(s) dev, sm, rank, gdr (NCCL's reader needs them)" % pci)
    assert _refusal({"cpus": [_cpu(0, pci=[_gpu("0000:53:00.0", gpu={"dev": 0, "sm": 1, "rank": 0, "gdr": 0,
                                                                     "nvlink": "x"})])]}) == (
        "%s: nvlink must be a list, got str" % pci)
    assert _refusal({"cpus": [_cpu(0, pci=[_nic("0000:52:00.0", nic={"net": "x"})])]}) == (
        "cpu[numaid=0] > pci[0000:52:00.0]: net must be a list, got str")
    assert _refusal({"cpus": [_cpu(0, pci=[_bridge("0000:50:00.0", pcilink=[{"count": 1}])])]}) == (
        "cpu[numaid=0] > pci[0000:50:00.0]: unknown key(s) count for a pcilink; allowed: target")
    assert _refusal({"cpus": [_cpu(0, pci=[_bridge("0000:50:00.0", pcilink=[{}])])]}) == (
        "cpu[numaid=0] > pci[0000:50:00.0]: pcilink is missing required attribute(s) target (NCCL's reader needs them)")
    assert _refusal({"cpus": [_cpu(0, pci=[_bridge("0000:50:00.0", [_gpu("0000:53:00.0"), _gpu("0000:54:00")])])]}) \
        .startswith("cpu[numaid=0] > pci[0000:50:00.0] > pci #1: busid '0000:54:00' is not a PCI address")
    assert _refusal({"cpus": [_cpu(0, "0-3"), _cpu("0x0", "4-7")]}) == (
        "cpu[numaid=0]: numaid appears twice; give each NUMA node one cpu")
    assert _refusal({"cpus": [_cpu(0, "0-3"), _cpu(1, "4-7"), _cpu(2, "2,8")]}) == (
        "cpu[numaid=2]: affinity shares CPUs 2 with another NUMA node; each CPU belongs to one node")
    # 1024 CPUs need 32 groups: 287 characters, past NCCL's 255.
    assert _refusal({"cpus": [_cpu(0, "1023")]}) == "cpu[numaid=0]: affinity is 287 characters; NCCL's reader stops at 255"


def test_an_empty_nic_is_written():
    text = render_xml({"cpus": [_cpu(0, pci=[_nic("0000:52:00.0", nic={})])]})
    assert '    <pci busid="0000:52:00.0" class="0x020700" link_speed="32.0 GT/s PCIe" link_width="16">\n' \
           '      <nic/>\n    </pci>\n' in text


@pytest.mark.parametrize("cpu, attrs", [
    (_cpu(0, arch="X86_64", vendor=" amd ", familyid=25, modelid=None),
     'arch="x86_64" vendor="AuthenticAMD" familyid="25"'),
    (_cpu(0, arch="PPC64LE", vendor=None, familyid=None, modelid=None), 'arch="ppc64"'),
    (_cpu(0, arch="arm64", vendor="x", familyid=None, modelid=None), 'arch="arm64" vendor="x"'),
    (_cpu(0, familyid=2147483647, modelid=0), 'arch="x86_64" vendor="GenuineIntel" familyid="2147483647" modelid="0"'),
])
def test_cpu_spellings(cpu, attrs):
    assert '<cpu numaid="0" affinity="00ffffff" %s>' % attrs in render_xml({"cpus": [cpu]}).replace("/>", ">")


@pytest.mark.parametrize("key", ["pci", "pcilink"])
def test_a_bridges_children_not_a_list(key):
    assert _refusal({"cpus": [_cpu(0, pci=[_bridge("0000:50:00.0", **{key: "x"})])]}) == (
        "cpu[numaid=0] > pci[0000:50:00.0]: %s must be a list, got str" % key)


@pytest.mark.parametrize("key, value, message", [
    ("vendor", "0x10000", "vendor: 65536 is outside 0..65535"),
    ("subsystem_device", -1, "subsystem_device: -1 is outside 0..65535"),
    ("link_speed", "gen9", "link_speed: link_speed 'gen9' is not a PCIe rate; use GT/s (2.5, 5, 8, 16, 32, 64), "
                           "'gen1'..'gen6' or the kernel's string such as '32.0 GT/s PCIe'"),
    ("link_width", 3, "link_width: link_width 3 is not a PCIe width; use one of (1, 2, 4, 8, 12, 16, 32)"),
    ("class", "nvme", "class: class 'nvme' is not one NCCL understands (0x060400 bridge, 0x068000 NVSwitch, 0x03xxxx "
                      "GPU, 0x02xxxx NIC); NCCL would treat it as a PCIe switch. Use one of 3d, bridge, eth, ethernet, "
                      "gpu, ib, infiniband, nic, nvswitch, switch, vga or a hex code"),
])
def test_pci_attribute_refusals_name_the_device_and_attribute(key, value, message):
    assert _refusal({"cpus": [_cpu(0, pci=[_gpu("0000:53:00.0", **{key: value})])]}) == (
        "cpu[numaid=0] > pci[0000:53:00.0] " + message)


def test_link_speed_read_from_a_file_with_its_newline():
    assert normalise_link_speed("16.0 GT/s PCIe\n") == "16.0 GT/s PCIe"
    assert normalise_link_speed("\t8 GT/s") == "8 GT/s"


@pytest.mark.parametrize("net, message", [
    ({"guid": "0xz"}, "net guid: guid '0xz' is not a 64-bit id; allowed: an integer, or up to 16 hex digits with or "
                      "without 0x (NCCL reads the text as hexadecimal: '10' is 0x10)"),
    ({"latency": "fast"}, "net latency: latency 'fast' is not a plain decimal; allowed: digits with an optional "
                          "fraction, 0..1e+06 (microseconds; no nan, inf or exponent)"),
    ({"maxconn": "many"}, "net maxconn: 'many' is not an integer; write e.g. 16 or '0x10'"),
])
def test_net_attribute_refusals_name_the_place(net, message):
    assert _refusal(_net_layout(**net)) == "cpu[numaid=0] > pci[0000:52:00.0] > nic > " + message


@pytest.mark.parametrize("cpu, message", [
    (_cpu(0, arch=[]), "cpu #0 arch: [] must be a non-empty string"),
    (_cpu(0, vendor=""), "cpu #0 vendor: '' must be a non-empty string"),
    (_cpu(0, modelid="x"), "cpu #0 modelid: 'x' is not an integer; write e.g. 16 or '0x10'"),
])
def test_cpu_attribute_refusals_name_the_place(cpu, message):
    assert _refusal({"cpus": [cpu]}) == message


def test_canonical_tree_sorts_siblings_whose_values_are_a_number_and_a_text():
    # A numeric attribute value becomes an int, any other stays text: two sibling nets named "0" and "mlx5_0" differ
    # first by an int and a str, which Python cannot order. The siblings are still sorted (by their repr: the quote
    # of 'mlx5_0' before the digit 0), whatever their order in the file.
    one = '<system version="1"><nic><net name="0" dev="0"/><net name="mlx5_0" dev="0"/></nic></system>'
    other = '<system version="1"><nic><net name="mlx5_0" dev="0"/><net name="0" dev="0"/></nic></system>'
    assert canonical_tree(one) == canonical_tree(other)
    (nic,) = canonical_tree(one)[2]
    assert [net[1] for net in nic[2]] == [(("dev", 0), ("name", "mlx5_0")), (("dev", 0), ("name", 0))]
