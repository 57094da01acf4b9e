# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""health.nvlink: `nvidia-smi nvlink -s` / `-e` as recorded (tests/fixtures/health/nvlink, sources in
tests/fixtures/README.md), and every finding of the judge. A case made by editing a recording says so."""
from __future__ import annotations

import ast
import os
import sys

import pytest
from hypothesis import example, given, strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.health import nvlink
from ansible_collections.gpufleet.cluster.plugins.module_utils.health.nvlink import (
    NvlinkError, expected_links, judge, parse_errors, parse_status,
)
from reference import FIXTURES

V100 = "nvlink-s.7xV100-sxm2-some-inactive.azhpc-diagnostics.txt"        # 9-space indent, no final newline
H100_PCIE = "nvlink-s.2xH100-pcie-bridge-12of18.555.42.02.hpe-japan.txt"  # driver 555.42.02, 12 of 18 links bridged
A6000 = "nvlink-s.3xRTXA6000-one-all-inactive.siboehm-bench.txt"         # tab + space indent, NVML's all-inactive line
H100_E = "nvlink-e.h100-sxm-2links.ml-engineering.txt"                   # -e with the blank line between links
PCIE_BUS = {0: "00000000:C2:00.0", 1: "00000000:D5:00.0"}  # the same machine's `nvidia-smi` table (HPE page)


def recording(name: str) -> str:
    with open(os.path.join(FIXTURES, "health", "nvlink", name), encoding="utf-8") as handle:
        return handle.read()


def codes(findings):
    return [(f.severity, f.code, f.gpu, f.links) for f in findings]


# --- the module runs on the nodes: standard library only -----------------------------------------------------------

def test_imports_only_the_standard_library():
    tree = ast.parse(open(nvlink.__file__, encoding="utf-8").read())
    names = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    names |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    assert names <= set(sys.stdlib_module_names) | {"__future__"}, names


# --- parse_status: the recordings ----------------------------------------------------------------------------------

def test_v100_recording_parses_every_gpu_and_link():
    gpus = parse_status(recording(V100))
    assert [g.index for g in gpus] == list(range(7))  # the sample lists 7 GPUs, 0-6
    assert {g.name for g in gpus} == {"Tesla V100-SXM2-32GB"}
    assert gpus[0].uuid == "GPU-b45d9bdf-1feb-0bd0-c8c5-9d833071005d"
    assert [(l.number, l.active, l.speed_gbs) for l in gpus[3].links] == [
        (0, True, 25.781), (1, True, 25.781), (2, True, 25.781), (3, False, None), (4, True, 25.781), (5, False, None)]


def test_h100_pcie_recording_has_18_links_of_which_12_are_bridged():
    gpus = parse_status(recording(H100_PCIE))
    assert [(g.index, g.name) for g in gpus] == [(0, "NVIDIA H100 PCIe"), (1, "NVIDIA H100 PCIe")]
    for gpu in gpus:
        assert len(gpu.links) == 18
        assert [l.number for l in gpu.links if not l.active] == [4, 5, 10, 11, 16, 17]
        assert {l.speed_gbs for l in gpu.links if l.active} == {26.562}


def test_a6000_recording_with_nvml_all_inactive_line():
    gpus = parse_status(recording(A6000))
    assert [(g.index, len(g.links), g.all_inactive) for g in gpus] == [(0, 4, False), (1, 4, False), (2, 0, True)]
    assert gpus[2].uuid == "GPU-02c05ee3-bdb5-aac7-f9e8-a4c8f3f725b3"


# --- judge on the status: each finding ----------------------------------------------------------------------------

def test_h100_pcie_pair_is_healthy_at_its_datasheet_count():
    # 12 bridged links per H100 PCIe (600 GB/s, datasheet); the 6 inactive ones are not wired.
    assert judge(parse_status(recording(H100_PCIE)), None, None, bus_ids=PCIE_BUS) == []


def test_links_down_name_gpu_bus_id_and_link_numbers():
    # The same recording judged as if these were SXM5 GPUs (18 expected): the 6 unbridged links read as down.
    findings = judge(parse_status(recording(H100_PCIE)), None, 18, bus_ids=PCIE_BUS)
    assert codes(findings) == [("fail", "nvlink_down", 0, (4, 5, 10, 11, 16, 17)),
                               ("fail", "nvlink_down", 1, (4, 5, 10, 11, 16, 17))]
    assert findings[1].message == ("GPU 1 (00000000:D5:00.0) NVIDIA H100 PCIe: 12 of 18 NVLinks up; "
                                   "links 4, 5, 10, 11, 16, 17 inactive")
    assert findings[1].bus_id == "00000000:D5:00.0"
    assert "reboot" in findings[1].action and "RMA" in findings[1].action


def test_v100_inactive_links_from_the_recording():
    findings = judge(parse_status(recording(V100)), None, None)  # 6 links per V100 SXM2 from the table
    assert codes(findings) == [("fail", "nvlink_down", 3, (3, 5)), ("fail", "nvlink_down", 4, (1,)),
                               ("fail", "nvlink_down", 5, (0, 4)), ("fail", "nvlink_down", 6, (1,))]
    assert findings[0].message == "GPU 3 Tesla V100-SXM2-32GB: 4 of 6 NVLinks up; links 3, 5 inactive"
    assert findings[0].bus_id is None  # nvidia-smi nvlink prints no bus id and none was given


def test_all_inactive_gpu_from_the_recording():
    findings = judge(parse_status(recording(A6000)), None, None)
    # GPU 2 of this box has no bridge at all; a per-GPU expectation of 4 (datasheet) counts it as down.
    assert codes(findings) == [("fail", "nvlink_all_inactive", 2, ())]
    assert "every NVLink is inactive" in findings[0].message and "4 expected" in findings[0].message


def test_fewer_links_listed_than_expected():
    # The V100 recording's GPU 0 (6 links listed, all up) judged against 8 expected: a GPU that lists fewer links
    # than its type has (a driver that hides links it cannot train) is down by the missing ones.
    findings = judge(parse_status(recording(V100))[:1], None, 8)
    assert codes(findings) == [("fail", "nvlink_down", 0, ())]
    assert "6 of 8 NVLinks up (fewer links listed than expected)" in findings[0].message


def test_a_link_slower_than_the_others():
    # EDITED recording: H100 PCIe GPU 1 link 7 changed from 26.562 to 13.281 GB/s (half the lanes).
    text = recording(H100_PCIE)
    lines = text.split("\n")
    at = lines.index("GPU 1: NVIDIA H100 PCIe (UUID: GPU-9b1446e2-8a89-4cf6-b68c-a98d99e958d3)") + 8
    assert lines[at] == "         Link 7: 26.562 GB/s"
    lines[at] = "         Link 7: 13.281 GB/s"
    findings = judge(parse_status("\n".join(lines)), None, None, bus_ids=PCIE_BUS)
    assert codes(findings) == [("fail", "nvlink_slow", 1, (7,))]
    assert findings[0].message == ("GPU 1 (00000000:D5:00.0) NVIDIA H100 PCIe: link 7 at 13.281 GB/s, below the "
                                   "26.562 GB/s of the node's other NVIDIA H100 PCIe links")


def test_a_zero_speed_link_is_down():
    # EDITED recording: V100 GPU 0 link 2 printed as "0 GB/s".
    text = recording(V100).replace("         Link 2: 25.781 GB/s", "         Link 2: 0 GB/s", 1)
    findings = judge(parse_status(text)[:1], None, None)
    assert codes(findings) == [("fail", "nvlink_down", 0, (2,))]


def test_expected_links_table():
    assert expected_links("NVIDIA H100 80GB HBM3") == 18
    assert expected_links("NVIDIA A100-SXM4-40GB") == 12
    assert expected_links("NVIDIA A100-SXM4-80GB") == 12
    assert expected_links("Tesla V100-SXM2-32GB") == 6
    assert expected_links("NVIDIA H100 PCIe") == 12
    with pytest.raises(NvlinkError, match=r"no NVLink link count is known for 'NVIDIA L40S'; give "
                                          r"expected_links_per_gpu"):
        expected_links("NVIDIA L40S")


@pytest.mark.parametrize("bad", [0, -1, True, 1.5, "18"])
def test_expected_links_per_gpu_is_a_count(bad):
    with pytest.raises(NvlinkError, match="expected_links_per_gpu: .* is not a link count"):
        judge(parse_status(recording(V100)), None, bad)


# --- parse_errors and the counter growth --------------------------------------------------------------------------

def test_h100_error_recording():
    gpus = parse_errors(recording(H100_E))
    assert [(g.index, g.name, g.uuid) for g in gpus] == [
        (0, "NVIDIA H100 80GB HBM3", "GPU-abcdefab-cdef-abdc-abcd-abababababab")]
    assert {n: l.counters for n, l in gpus[0].links.items()} == {
        0: {"Replay Errors": 0, "Recovery Errors": 0, "CRC Errors": 0},
        1: {"Replay Errors": 0, "Recovery Errors": 0, "CRC Errors": 0}}


def _grown(replay=0, recovery=0, crc=0, link=1):
    # EDITED recording: the H100 -e recording with link <link>'s counters raised, as a later pass would read them.
    text = recording(H100_E)
    for name, value in (("Replay", replay), ("Recovery", recovery), ("CRC", crc)):
        text = text.replace("Link %d: %s Errors: 0" % (link, name), "Link %d: %s Errors: %d" % (link, name, value))
    return parse_errors(text)


def _status_h100():
    # EDITED recording: the H100 PCIe status with the product renamed to the SXM5 name of the -e recording and all
    # links reported active at 26.562 GB/s, so that only the counters are judged.
    text = recording(H100_PCIE).replace("NVIDIA H100 PCIe", "NVIDIA H100 80GB HBM3").replace("<inactive>",
                                                                                             "26.562 GB/s")
    return parse_status(text)[:1]


def test_first_pass_is_the_baseline():
    assert judge(_status_h100(), _grown(replay=5, crc=900), None) == []


def test_unchanged_counters_are_healthy():
    before = parse_errors(recording(H100_E))
    assert judge(_status_h100(), parse_errors(recording(H100_E)), None, previous_errors=before) == []


def test_replay_growth_is_a_warning():
    findings = judge(_status_h100(), _grown(replay=3), None, previous_errors=parse_errors(recording(H100_E)),
                     bus_ids={0: "00000000:18:00.0"})
    assert codes(findings) == [("warn", "nvlink_replay_errors", 0, (1,))]
    assert findings[0].message == ("GPU 0 (00000000:18:00.0) NVIDIA H100 80GB HBM3: NVLink replay counters grew "
                                   "since the last pass (link 1 +3)")


def test_recovery_growth_is_a_warning():
    findings = judge(_status_h100(), _grown(recovery=1, link=0), None,
                     previous_errors=parse_errors(recording(H100_E)))
    assert codes(findings) == [("warn", "nvlink_recovery_errors", 0, (0,))]


def test_crc_growth_at_or_above_dcgm_rate_fails():
    # 6000 CRC errors in 60 s = 100/s: DCGM's limit (DCGM_LIMIT_MAX_NVLINK_CRC_ERROR).
    findings = judge(_status_h100(), _grown(crc=6000), None, previous_errors=parse_errors(recording(H100_E)),
                     interval_s=60)
    assert codes(findings) == [("fail", "nvlink_crc_errors", 0, (1,))]
    assert "at up to 100.0/s, at or above the 100/s limit of DCGM's health check" in findings[0].message


def test_crc_growth_below_the_rate_warns():
    findings = judge(_status_h100(), _grown(crc=5999), None, previous_errors=parse_errors(recording(H100_E)),
                     interval_s=60)
    assert codes(findings) == [("warn", "nvlink_crc_errors", 0, (1,))]


def test_crc_growth_without_an_interval_is_taken_over_one_second():
    before = parse_errors(recording(H100_E))
    assert codes(judge(_status_h100(), _grown(crc=99), None, previous_errors=before)) == [
        ("warn", "nvlink_crc_errors", 0, (1,))]
    failed = judge(_status_h100(), _grown(crc=100), None, previous_errors=before)
    assert codes(failed) == [("fail", "nvlink_crc_errors", 0, (1,))]
    assert "(interval unknown, taken as 1 s)" in failed[0].message


def test_a_counter_reset_counts_from_zero():
    # After `nvidia-smi nvlink -re` or a reboot the counters restart: 2 now after 7 before is 2 new errors.
    findings = judge(_status_h100(), _grown(replay=2), None, previous_errors=_grown(replay=7))
    assert codes(findings) == [("warn", "nvlink_replay_errors", 0, (1,))]
    assert "(link 1 +2)" in findings[0].message


def test_a_gpu_the_last_pass_did_not_see_is_a_baseline():
    # EDITED recording: the earlier pass had another GPU (UUID changed: the board was replaced).
    before = parse_errors(recording(H100_E).replace("GPU-abcdefab-cdef", "GPU-00000000-0000"))
    assert judge(_status_h100(), _grown(crc=5000), None, previous_errors=before) == []


def test_status_and_errors_findings_together():
    status = parse_status(recording(H100_PCIE).replace("NVIDIA H100 PCIe", "NVIDIA H100 80GB HBM3"))
    findings = judge(status, _grown(recovery=4), None, previous_errors=parse_errors(recording(H100_E)))
    assert [f.code for f in findings] == ["nvlink_down", "nvlink_down", "nvlink_recovery_errors"]


# --- what the parsers refuse ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, message", [
    ("", "printed no GPU"),
    ("\n\n", "printed no GPU"),
    ("         Link 0: 26.562 GB/s\n", r"line 1: .* is not a 'GPU <n>: <name> \(UUID: \.\.\.\)' header"),
    ("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-a)\n\t Link 0: 26.562 Gb/s\n", r"line 2: .*is not 'Link <n>: <GB/s>"),
    ("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-a)\n\t Link 0: Replay Errors: 0\n", "line 2"),
    ("GPU 0: X (UUID: GPU-a)\n\t Link 0: 25 GB/s\n\t Link 0: 25 GB/s\n", "GPU 0 link 0 is listed twice"),
    ("GPU 0: X (UUID: GPU-a)\nGPU 0: X (UUID: GPU-a)\n", "GPU 0 is listed twice"),
    ("GPU 0: X (UUID: GPU-a)\n\t Link 0: 25 GB/s\n"
     "NVML: Unable to retrieve NVLink information as all links are inActive\n", "has link lines and NVML's"),
    ("Failed to initialize NVML: Driver/library version mismatch\n", "line 1"),
])
def test_status_refuses_what_it_does_not_know(text, message):
    with pytest.raises(NvlinkError, match=message):
        parse_status(text)


@pytest.mark.parametrize("text, message", [
    ("", "printed no GPU"),
    ("GPU 0: X (UUID: GPU-a)\n\t Link 0: 26.562 GB/s\n", r"line 2: .*is not 'Link <n>: <counter name>: <value>'"),
    ("GPU 0: X (UUID: GPU-a)\n\t Link 0: CRC Errors: 0\n\t Link 0: CRC Errors: 1\n", "prints 'CRC Errors' twice"),
    ("\t Link 0: CRC Errors: 0\n", "header"),
])
def test_errors_refuse_what_they_do_not_know(text, message):
    with pytest.raises(NvlinkError, match=message):
        parse_errors(text)


def test_non_count_values_are_kept_as_text():
    gpus = parse_errors("GPU 0: NVIDIA B200 (UUID: GPU-a)\n\t Link 0: Effective BER: 1.5e-255\n"
                        "\t Link 0: Rx Errors: N/A\n")  # SYNTHETIC, shaped like the -e lines above
    assert gpus[0].links[0].other == {"Effective BER": "1.5e-255", "Rx Errors": "N/A"}
    assert gpus[0].links[0].counters == {}


def test_other_error_counters_that_grow_warn_and_traffic_counters_are_not_judged():
    # SYNTHETIC, no recording found: the counter names are DCGM's NVLink counter descriptions (Rx errors, Tx
    # packets), written in the -e line shape of the recordings above.
    before = parse_errors("GPU 0: NVIDIA B200 (UUID: GPU-a)\n\t Link 0: Rx Errors: 1\n\t Link 0: Tx packets: 10\n")
    after = parse_errors("GPU 0: NVIDIA B200 (UUID: GPU-a)\n\t Link 0: Rx Errors: 4\n\t Link 0: Tx packets: 900\n")
    status = parse_status("GPU 0: NVIDIA B200 (UUID: GPU-a)\n" + "".join(
        "\t Link %d: 53.125 GB/s\n" % n for n in range(18)))
    findings = judge(status, after, None, previous_errors=before)
    assert codes(findings) == [("warn", "nvlink_other_errors", 0, (0,))]
    assert "NVLink other error counters grew since the last pass (link 0 +3)" in findings[0].message


@pytest.mark.parametrize("bad", [0, -5, float("nan"), float("inf"), "60", True])
def test_interval_is_seconds(bad):
    with pytest.raises(NvlinkError, match="interval_s: .* is not a number of seconds above 0"):
        judge(_status_h100(), _grown(crc=1), None, previous_errors=parse_errors(recording(H100_E)), interval_s=bad)


def test_judge_needs_a_status():
    with pytest.raises(NvlinkError, match="no GPU in the nvlink -s reading"):
        judge([], None, 18)


# --- properties ----------------------------------------------------------------------------------------------------

_PIECES = ["GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-a)", "GPU 1: X", "\t Link 0: 26.562 GB/s", "Link 3: <inactive>",
           "         Link 0: Replay Errors: 0", "Link 1: CRC Errors: 99999999999999999999999", "Link 9: 0 GB/s",
           "NVML: Unable to retrieve NVLink information as all links are inActive", "", "\x00", "GPU 99999: x",
           "Link 1: 1e9 GB/s", "Link \u0661: 25 GB/s", "GPU \u0663: x"]


@given(st.lists(st.one_of(st.sampled_from(_PIECES), st.text(max_size=40)), max_size=12).map("\n".join))
@example("GPU 0: x\nLink 0: CRC Errors: " + "9" * 5000)
@example("GPU " + "9" * 5000 + ": x")
@example("GPU \u0663: x\nLink \u0661: 25 GB/s")
def test_parsers_raise_only_their_own_error(text):
    for parse in (parse_status, parse_errors):
        try:
            gpus = parse(text)
        except NvlinkError:
            continue
        assert gpus and all(isinstance(gpu.index, int) for gpu in gpus)
        try:
            judge(gpus if parse is parse_status else [], None, 4)
        except NvlinkError:
            pass


@given(st.lists(st.tuples(st.integers(0, 17), st.one_of(st.none(), st.sampled_from([25.0, 26.562, 13.281]))),
                min_size=1, max_size=18, unique_by=lambda t: t[0]))
def test_status_round_trip(links):
    text = "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-a)\n" + "".join(
        "\t Link %d: %s\n" % (n, "<inactive>" if s is None else "%g GB/s" % s) for n, s in links)
    gpu = parse_status(text)[0]
    assert [(l.number, l.speed_gbs) for l in gpu.links] == list(links)
    findings = judge([gpu], None, 18)
    down = [f for f in findings if f.code == "nvlink_down"]
    assert bool(down) == (sum(1 for link in links if link[1]) < 18)
