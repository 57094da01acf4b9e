# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""xid: NVRM Xid lines parsed, read from the journal since a cursor, judged per GPU.

Real lines: tests/fixtures/health/xid/ (sources in tests/fixtures/README.md). Lines marked SYNTHETIC are written
here from the driver's format as public reports show it, where no licensed recording exists.
"""
from __future__ import annotations

import json
import os

import pytest
from hypothesis import example, given, strategies as st

from reference import FIXTURES

from ansible_collections.gpufleet.cluster.plugins.module_utils.health.xid import (
    ACTIONS, XidError, XidEvent, format_xid_line, judge, normalise_bus_id, parse_xid_line, read_journal,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.health.xid_catalogue import CATALOGUE

CURSOR = "s=739ad463348b4ceca5a9e69c95a3c93f;i=4ece8;b=6c7c6013a8674cf6a5bb0b1b1f0ab1a7;m=9fb6a8a8;t=5a8b2d7c2a4b1;x=1"


def _lines(name):
    with open(os.path.join(FIXTURES, "health", "xid", name), encoding="utf-8") as handle:
        return handle.read().splitlines()


def _events(name):
    return [event for event in map(parse_xid_line, _lines(name)) if event is not None]


def _verdict(*lines):
    events = [parse_xid_line(line, strict=True) for line in lines]
    (finding,) = judge(events, CATALOGUE)
    return finding


# -- parsing the recorded lines ----------------------------------------------------------------------------------

def test_gsp_timeouts_between_rpc_history_dumps():
    events = _events("dmesg-ctime-xid-119-gsp.gpud.log")
    assert [(e.bus_id, e.code, e.pid, e.process) for e in events] == [
        ("0000:9b:00", 119, 2024380, "nvidia-smi"), ("0000:9b:00", 119, 2024380, "nvidia-smi"),
        ("0000:9b:00", 119, 2024380, "nvidia-smi"), ("0000:9b:00", 119, 1263500, "cache_mgr_main"),
        ("0000:9b:00", 119, 1240590, "gpud")]
    assert events[0].message == ("Timeout after 6s of waiting for RPC response from GPU4 GSP! Expected function 103 "
                                 "(GSP_RM_ALLOC) (0x2081 0x4).")
    (finding,) = judge(events, CATALOGUE)
    assert (finding.action, finding.codes, finding.deciding) == ("reset", ((119, 5),), (119,))
    assert finding.reason == "GPU 0000:9b:00 XID 119x5: reset the GPU"
    assert finding.drains


def test_unknown_process_and_pid_without_name():
    events = _events("dmesg-ctime-xid-13-109.gpud-readme.txt")
    assert [(e.code, e.pid, e.process) for e in events] == [
        (13, None, None), (13, None, None), (13, None, None), (109, 1797828, "pt_main_thread")]
    assert events[0].message == ("Graphics SM Warp Exception on (GPC 7, TPC 7, SM 0): Illegal Instruction "
                                 "Parameter")
    assert events[3].message == "Ch 00000008, errorString CTX SWITCH TIMEOUT, Info 0x58005"
    (finding,) = judge(events, CATALOGUE)
    assert (finding.action, finding.codes, finding.deciding) == ("reset", ((13, 3), (109, 1)), (109,))
    (remap,) = _events("xid-63-row-remapper.ml-engineering.txt")
    assert (remap.bus_id, remap.code, remap.pid, remap.process) == ("0000:10:1c", 63, 1896, None)
    assert remap.message == "Row Remapper: New row marked for remapping, reset gpu to activate."


def test_other_kernel_lines_are_not_xids():
    lines = _lines("dmesg-ctime-xid-31-109.gpud-readme.txt")
    assert [parse_xid_line(line, strict=True) is None for line in lines] == [False, True, True, False, True]
    # NVSwitch SXid lines and the driver's other NVRM lines around an XID 79 are not XIDs.
    events = _events("dmesg-xid-79-sxid-20034.gpud-readme.txt")
    assert [(e.bus_id, e.code, e.pid, e.process, e.message) for e in events] == [
        ("0000:91:00", 79, None, None, "GPU has fallen off the bus.")]


# -- one test per action class -------------------------------------------------------------------------------------

def test_informational_a_stopped_channel_alone():
    finding = _verdict(_lines("dmesg-iso-xid-13-43.gpud.log")[16])
    assert (finding.action, finding.codes, finding.drains) == ("informational", ((43, 1),), False)
    assert finding.reason == "GPU 0000:38:00 XID 43x1: no action"


def test_application_an_exception_burst_leaves_the_node_in_service():
    events = _events("dmesg-iso-xid-13-43.gpud.log")
    (finding,) = judge(events, CATALOGUE)
    assert (finding.action, finding.codes, finding.deciding) == ("application", ((13, 16), (43, 1)), (13,))
    assert not finding.drains
    assert finding.reason == "GPU 0000:38:00 XID 13x16: the job's fault, node fine"


def test_reset_a_pending_row_remap():
    finding = _verdict(*_lines("xid-63-row-remapper.ml-engineering.txt"))
    assert (finding.action, finding.deciding) == ("reset", (63,))
    assert finding.notes == ("XID 63: a remap or retirement waits for a reset to activate",)
    # The same XID without the words "to activate": recorded, nothing pending (made by editing the recording).
    edited = _lines("xid-63-row-remapper.ml-engineering.txt")[0].replace(", reset gpu to activate", "")
    assert _verdict(edited).action == "informational"


def test_reboot_a_gpu_fallen_off_the_bus():
    (finding,) = judge(_events("dmesg-xid-79-sxid-20034.gpud-readme.txt"), CATALOGUE)
    assert (finding.bus_id, finding.action, finding.reason) == (
        "0000:91:00", "reboot", "GPU 0000:91:00 XID 79x1: reboot the node")


def test_rma_an_nvlink_parity_error_seen_again_on_the_same_link():
    (line,) = _lines("xid-74-nvlink-registers.nvsentinel-design.txt")
    once = _verdict(line)
    assert (once.bus_id, once.action) == ("0003:00:00", "reset")
    assert once.notes == ("XID 74 link 14: once on the link so far",)
    # The recording twice (two reports of the same fault, made by repeating it): repeated -> a person.
    twice = _verdict(line, line)
    assert (twice.action, twice.codes) == ("rma", ((74, 2),))
    assert twice.reason == "GPU 0003:00:00 XID 74x2: needs a person (RMA or support)"


def test_rma_a_code_missing_from_the_catalogue():
    # Made by editing the XID 79 recording's code to 172 (UNCORRECTABLE_SRAM_ERROR, past the table's 162).
    line = _lines("dmesg-xid-79-sxid-20034.gpud-readme.txt")[4].replace("): 79, ", "): 172, ")
    finding = _verdict(line)
    assert (finding.action, finding.notes) == ("rma", ("XID 172 is not in the catalogue: a person must look it up",))


# -- rules that depend on the line (SYNTHETIC lines, written from the formats public reports show) -----------------

def test_xid_45_follows_the_xid_it_names_or_the_others_on_the_gpu():
    # SYNTHETIC, the form of NVIDIA/open-gpu-kernel-modules issue 1150 (2026-05-18).
    caused = "NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001 caused by previous Xid 149"
    assert _verdict(caused).action == "informational"
    alone = "NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001"
    assert _verdict(alone).action == "reset"
    nvlink5 = "NVRM: Xid (PCI:0000:dc:00): 149, NETIR_LINK_EVT Fatal XC0 i0 Link 00 (0x025001c6 0x00000000)"
    finding = _verdict(alone, nvlink5)
    assert (finding.action, finding.deciding) == ("reset", (149,))
    assert "XID 45 follows XID 149 on the same GPU" not in finding.notes


def test_ecc_contained_uncontained_and_a_failed_remap():
    # SYNTHETIC, the forms of NVIDIA/gpu-operator issue 1146 (48) and of the row remapper's messages.
    dbe = ("NVRM: Xid (PCI:0000:07:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error "
           "(DBE) has been detected on GPU in the framebuffer at physAddr 0x7fdf0de80 partition 5, subpartition 1")
    failed = ("NVRM: Xid (PCI:0000:07:00): 64, pid='<unknown>', name=<unknown>, Row Remapper Error: "
              "(0x00000002eebc4100) - All reserved rows for bank are remapped")
    assert _verdict(dbe).action == "reset"
    finding = _verdict(dbe, failed)
    assert (finding.action, finding.codes, finding.deciding) == ("rma", ((48, 1), (64, 1)), (64,))
    assert _verdict("NVRM: Xid (PCI:0000:9b:00): 94, pid=1234, name=python3, Contained ECC error").action \
        == "application"
    assert _verdict("NVRM: Xid (PCI:0000:01:00): 95, pid=7062, Uncontained: LTC TAG (0x2,0x0). RST: Yes, "
                    "D-RST: No").action == "reset"


@pytest.mark.parametrize("to, action", [
    ("0x0 (None)", "informational"), ("0x1 (GPU Reset Required)", "reset"), ("0x1 (PF FLR)", "reset"),
    ("0x2 (Node Reboot Required)", "reboot"), ("0x2 (OS Reboot)", "reboot"), ("0x3 (Drain P2P)", "reset"),
    ("0x4 (Drain and Reset)", "reset"), ("0x9 (Something New)", "rma"),
])
def test_xid_154_takes_the_recovery_action_it_names(to, action):
    # SYNTHETIC, the form several public reports quote: "... changed from 0x0 (None) to 0x2 (Node Reboot Required)".
    line = "NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to %s" % to
    assert _verdict(line).action == action


@pytest.mark.parametrize("registers, action", [
    ("0x1, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0", "informational"),  # bit 0 of the first register: ignore
    ("0x0, 0x0, 0x0, 0x0, 0x100000, 0x0, 0x0", "informational"),  # fifth register bit 20: an ECC threshold
    ("0x100, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0", "rma"),  # bit 8: check the link's mechanical connections
    ("0x10, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0", "reset"),  # bit 4: ECC/parity, rma only past 2 times on the link
    ("0x2, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0", "rma"),  # bit 1 alone: a secondary error with no primary
    ("0x12, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0", "reset"),  # bit 1 with bit 4: the primary decides
    ("0x0, 0x0, 0x0, 0x40000, 0x40000, 0x0, 0x0", "reset"),  # fourth reg. bit 18 with a fifth reg. parity bit
    ("0x0, 0x0, 0x2000, 0x0, 0x0, 0x0, 0x0", "rma"),  # third register bit 13: not expected in production
    ("0x8, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0", "rma"),  # bit 3: not in the catalogue's list, report a bug
    ("0x0, 0x0, 0x0, 0x0, 0x10, 0x0, 0x0", "rma"),  # fifth register bit 4: not listed either
    ("0x0, 0xffffffff, 0x0, 0x0, 0x0, 0x0, 0xffffffff", "informational"),  # registers not valid on Hopper
])
def test_xid_74_registers(registers, action):
    # Made by editing the recorded XID 74 line's registers.
    (line,) = _lines("xid-74-nvlink-registers.nvsentinel-design.txt")
    assert _verdict(line.replace("0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0", registers)).action == action


def test_xid_74_ecc_parity_needs_a_person_past_two_times_on_one_link():
    (line,) = _lines("xid-74-nvlink-registers.nvsentinel-design.txt")
    parity = line.replace("0x0, 0x0, 0x10000", "0x10, 0x0, 0x0")  # edited: first register bit 4
    assert _verdict(parity, parity).action == "reset"
    assert _verdict(parity, parity, parity).action == "rma"
    other_link = parity.replace("link 14(", "link 15(")
    assert _verdict(parity, parity, other_link).action == "reset"
    # Without registers (older drivers): the catalogue entry's class.
    assert _verdict(line.split("(0x0")[0]).action == "reset"


def test_several_gpus_give_one_finding_each_sorted_by_bus_id():
    events = _events("dmesg-ctime-xid-119-gsp.gpud.log") + _events("dmesg-xid-79-sxid-20034.gpud-readme.txt") \
        + _events("dmesg-iso-xid-13-43.gpud.log")
    findings = judge(events, CATALOGUE)
    assert [(f.bus_id, f.action) for f in findings] == [
        ("0000:38:00", "application"), ("0000:91:00", "reboot"), ("0000:9b:00", "reset")]
    assert judge([], CATALOGUE) == ()
    with pytest.raises(XidError, match="judge.. takes XidEvent values, got str"):
        judge(["NVRM: Xid (PCI:0000:91:00): 79"], CATALOGUE)


# -- line forms ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line, fields", [
    # SYNTHETIC older forms (no "PCI:", no pid/name), as public pastes of drivers before R418 show them.
    ("[  966.503025] NVRM: Xid (0000:01:00): 31, Ch 0000000b, engmask 00000120, intr 10000000",
     ("0000:01:00", 31, None, None, "Ch 0000000b, engmask 00000120, intr 10000000")),
    ("kernel: NVRM: Xid (PCI:0004:01:00): 119, pid=430, name=nv_queue, Timeout waiting for RPC from GSP!",
     ("0004:01:00", 119, 430, "nv_queue", "Timeout waiting for RPC from GSP!")),
    ("NVRM: Xid (PCI:0000:65:00): 74, pid=<n/a>, name=<unknown>, NVLink: fatal error detected on link 2",
     ("0000:65:00", 74, None, None, "NVLink: fatal error detected on link 2")),
    ("NVRM: Xid (PCI:0000:01:00): 79, pid=0, GPU has fallen off the bus.",
     ("0000:01:00", 79, 0, None, "GPU has fallen off the bus.")),
    ("NVRM: Xid (PCI:0000:01:00): 38, pid=1659,", ("0000:01:00", 38, 1659, None, "")),
    ("NVRM: Xid (PCI:0000:3B:00.0): 48\n", ("0000:3b:00", 48, None, None, "")),
])
def test_line_forms(line, fields):
    event = parse_xid_line(line, strict=True)
    assert (event.bus_id, event.code, event.pid, event.process, event.message) == fields


@pytest.mark.parametrize("line", [
    "NVRM: Xid (PCI:0000:66:00): abc, pid=2280636",
    "NVRM: Xid (PCI:0000:66:00) 13, pid=1",
    "NVRM: Xid (PCI:0000:66): 13, pid=1",
    "NVRM: Xid (PCI:0000:66:00): 13, message\nNVRM: Xid (PCI:0000:66:00): 13, another",
])
def test_a_marked_line_the_driver_would_not_print_is_an_error_when_strict(line):
    assert parse_xid_line(line) is None
    with pytest.raises(XidError, match="not the driver's XID form"):
        parse_xid_line(line, strict=True)
    with pytest.raises(XidError, match="must be text, got bytes"):
        parse_xid_line(line.encode(), strict=True)
    assert parse_xid_line(line.encode()) is None


@pytest.mark.parametrize("text, bus", [
    ("00000000:3B:00.0", "0000:3b:00"), ("PCI:0000:9b:00", "0000:9b:00"), ("0004:01:00", "0004:01:00"),
    ("00000009:01:00.0", "0009:01:00"),
])
def test_bus_ids_of_the_driver_and_of_nvidia_smi_meet(text, bus):
    assert normalise_bus_id(text) == bus


@pytest.mark.parametrize("text", ["", "0000:3b", "0000:3b:00.8", "0000:3b:00\n", "zz00:3b:00", None])
def test_a_bus_id_that_is_none_is_refused(text):
    with pytest.raises(XidError, match="a PCI bus id must look like 0000:3b:00"):
        normalise_bus_id(text)


# -- the journal -----------------------------------------------------------------------------------------------------

def _record(message, number, **extra):
    """SYNTHETIC wrapper: journald's JSON record shape (journalctl -k -o json) around a recorded line."""
    record = {"__CURSOR": "%s%d" % (CURSOR[:-1], number), "__REALTIME_TIMESTAMP": str(1740327858000000 + number),
              "_TRANSPORT": "kernel", "PRIORITY": "4", "SYSLOG_IDENTIFIER": "kernel", "MESSAGE": message}
    record.update(extra)
    return json.dumps(record)


def _kernel_message(line):
    """The recorded dmesg line without dmesg's time prefix: what the kernel put in the journal."""
    return line[line.index("] ") + 2:]


def test_a_read_gives_the_xid_events_in_order_and_the_next_cursor():
    lines = [_kernel_message(line) for line in _lines("dmesg-ctime-xid-119-gsp.gpud.log")]
    output = [_record(message, number) for number, message in enumerate(lines, 1)]
    read = read_journal(output, CURSOR)
    assert (read.records, len(read.events), read.cursor) == (43, 5, "%s43" % CURSOR[:-1])
    assert [event.realtime_us - 1740327858000000 for event in read.events] == [3, 38, 40, 42, 43]
    assert read.events[0].cursor == "%s3" % CURSOR[:-1]
    assert read.events[0].message.startswith("Timeout after 6s")


def test_a_message_journald_kept_as_bytes_is_read():
    (line,) = _lines("xid-63-row-remapper.ml-engineering.txt")
    as_bytes = list(line.encode()) + [0xff]  # journald stores a message that is not UTF-8 as a list of bytes
    read = read_journal([_record(as_bytes, 1).encode()], None)
    assert [(e.code, e.message) for e in read.events] == [
        (63, "Row Remapper: New row marked for remapping, reset gpu to activate.\ufffd")]


def test_an_empty_read_keeps_the_cursor():
    assert read_journal([], CURSOR) == read_journal(["", "\n"], CURSOR)
    assert read_journal([], CURSOR).cursor == CURSOR and read_journal([], None).cursor is None
    # Records without an XID still move the cursor on.
    assert read_journal([_record("usb 3-6.2: USB disconnect, device number 20", 7)], CURSOR).cursor \
        == "%s7" % CURSOR[:-1]


@pytest.mark.parametrize("record, error", [
    ('{"__CURSOR": "s=1;i=2", "MESSAGE": "x", "__REALTIME', "journal record 1 is not JSON"),
    ('["MESSAGE"]', "journal record 1 must be a JSON object, got list"),
    (json.dumps({"MESSAGE": "x", "__REALTIME_TIMESTAMP": "1"}), "journal record 1 has no valid __CURSOR"),
    (json.dumps({"__CURSOR": "s=1 ;i=2", "MESSAGE": "x", "__REALTIME_TIMESTAMP": "1"}), "no valid __CURSOR"),
    (json.dumps({"__CURSOR": "s=1", "MESSAGE": "x", "__REALTIME_TIMESTAMP": 1}), "no valid __REALTIME_TIMESTAMP"),
    (json.dumps({"__CURSOR": "s=1", "MESSAGE": None, "__REALTIME_TIMESTAMP": "1"}), "unless called with --all"),
    (json.dumps({"__CURSOR": "s=1", "__REALTIME_TIMESTAMP": "1"}), "journal record 1 has no MESSAGE"),
    (json.dumps({"__CURSOR": "s=1", "MESSAGE": [300], "__REALTIME_TIMESTAMP": "1"}), "text or a list of bytes"),
    (json.dumps({"__CURSOR": "s=1", "MESSAGE": {"a": 1}, "__REALTIME_TIMESTAMP": "1"}), "got dict"),
    (json.dumps({"__CURSOR": "s=1", "MESSAGE": "NVRM: Xid (PCI:0000:66:00): abc", "__REALTIME_TIMESTAMP": "1"}),
     "not the driver's XID form"),
    (b'{"__CURSOR": "s=\xff"}', "journal record 1 is not UTF-8"),
    (7, "journal lines must be text, got int"),
])
def test_a_bad_record_fails_the_whole_read(record, error):
    good = _record(_lines("xid-63-row-remapper.ml-engineering.txt")[0], 1)
    with pytest.raises(XidError, match=error.replace("(", r"\(")):
        read_journal([record, good], CURSOR)
    with pytest.raises(XidError, match=error.replace("journal record 1", "journal record 2").replace("(", r"\(")):
        read_journal([good, record], CURSOR)


@pytest.mark.parametrize("cursor", ["", "s=1 i=2", "s=1\n", 5])
def test_a_cursor_that_is_not_journalds_is_refused(cursor):
    with pytest.raises(XidError, match="the journal cursor must be journald's"):
        read_journal([], cursor)


# -- properties ------------------------------------------------------------------------------------------------------

@given(st.text())
@example("NVRM: Xid (")
@example("NVRM: Xid (PCI:0000:00:00): 0, pid=")
def test_parse_never_raises_and_strict_raises_only_its_own_error(text):
    event = parse_xid_line(text)
    assert event is None or isinstance(event, XidEvent)
    try:
        assert parse_xid_line(text, strict=True) == event
    except XidError:
        assert event is None and "NVRM: Xid (" in text


_NAMES = st.text(st.characters(blacklist_characters=",\r\n", blacklist_categories=("Cs",)), min_size=1, max_size=20) \
    .filter(lambda name: name not in ("<unknown>", "'<unknown>'", "<n/a>", "'<n/a>'"))
_MESSAGES = st.text(st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",)), max_size=80)


@st.composite
def _events_drawn(draw):
    bus = "%04x:%02x:%02x" % (draw(st.integers(0, 0xffff)), draw(st.integers(0, 0xff)), draw(st.integers(0, 0x1f)))
    pid = draw(st.none() | st.integers(0, 2 ** 31))
    process = draw(st.none() | _NAMES)
    message = draw(_MESSAGES)
    if pid is None and process is None:  # a message that starts like a pid would be read as one
        message = draw(_MESSAGES.filter(lambda text: not text.lstrip(" ").startswith("pid=")))
    return XidEvent(bus, draw(st.integers(0, 99999)), pid, process, message)


@given(_events_drawn(), st.sampled_from(["", "[ 1399.140323] ", "Mar 26 12:33:30 host kernel: ", "> "]))
def test_a_well_formed_line_gives_back_its_fields(event, prefix):
    assert parse_xid_line(prefix + format_xid_line(event), strict=True) == event


@given(st.lists(_events_drawn(), max_size=12))
def test_judge_gives_each_gpu_one_class_and_counts_every_event(events):
    findings = judge(events, CATALOGUE)
    assert [f.bus_id for f in findings] == sorted({e.bus_id for e in events})
    assert sum(pair[1] for f in findings for pair in f.codes) == len(events)
    for finding in findings:
        assert finding.action in ACTIONS and finding.deciding
        assert finding.reason.startswith("GPU %s XID " % finding.bus_id)
