# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The DCGM source of roles/slurm/files/gpufleet-gpu-health against the five real `dcgmi` recordings.

Failure and warning variants are those recordings with rows replaced or spliced from one another,
so the text keeps DCGM's exact box layout and wrapping. dcgmi, nvidia-smi and Slurm are never run:
subprocess.run is replaced by a recorder and every argv and timeout is asserted.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from script_loader import ROOT, Recorder, load_script
from reference import outputs

SCRIPT = os.path.join(ROOT, "roles", "slurm", "files", "gpufleet-gpu-health")
OUTPUTS = outputs()
DCGM = os.path.join(OUTPUTS, "dcgm")
SCONTROL = "/usr/bin/scontrol"
DCGMI = "/usr/bin/dcgmi"
HEAD = "gpufleet-gpu-health: gpu01: "


gh = load_script("gpufleet_gpu_health_dcgm", "roles", "slurm", "files", "gpufleet-gpu-health")


def _read(*parts):
    with open(os.path.join(OUTPUTS, *parts), encoding="utf-8") as handle:
        return handle.read()


R1_DEEPOPS = _read("dcgm", "dcgmi-diag-r1-deployment-fail.deepops.txt")
R2_THERMAL = _read("dcgm", "dcgmi-diag-r2-fragment-memory-fail-thermal-warning.ml-engineering.txt")
R2_AWSOME = _read("dcgm", "dcgmi-diag-r2.p4de-8xA100.dcgm-3.3.3.awsome.txt")
R3_REMAP = _read("dcgm", "dcgmi-diag-r3-fragment-row-remap-pending.ml-engineering.txt")
DISCOVERY = _read("dcgm", "dcgmi-discovery-l.1gpu-quadro-rtx6000.nvidia-cloud-native-docs.txt")
SMI_H100 = _read("nvidia-smi", "nvidia-smi-q.h100-80gb-hbm3-x8.535.183.01.gpud.txt")
SHOW_NODE = _read("slurm", "scontrol-show-node.gpu-t4x6.aau-aicloud-docs.txt").replace("a256-t4-01", "gpu01")

# The real rows, whole lines, as the variants splice them.
GPU_MEMORY_ALL_PASS = "| GPU Memory                | Pass - All                                     |\n"
PAGE_RETIREMENT_FAIL = "| Page Retirement           | Fail                                           |\n"
INFOROM_FAIL = "| Inforom                   | Fail                                           |\n"
THERMAL_WARNING = R2_THERMAL[R2_THERMAL.index("| Warning"):]                # 6 lines, the last without `|`
REMAP_ERROR = R3_REMAP[R3_REMAP.index("| Error"):]                          # 2 lines
THERMAL_TEXT = ("GPU 0 Thermal violations totaling 13.3 seconds started at 9.7 seconds into the test for GPU 0 "
                "Verify that the cooling on this machine is functional, including external, thermal material "
                "interface, fans, and any other components.")
THERMAL_SHORT = "GPU 0 Thermal violations totaling 13.3 seconds started at 9.7 seconds into the test for GPU 0"
REMAP_TEXT = "GPU 3 has uncorrectable memory errors and row remappings are pending"
# What dcgmi prints without nv-hostengine: NVIDIA/DCGM issue #57 (and #43, dcgm-exporter #193).
HOSTENGINE_DOWN = ("Error: unable to establish a connection to the specified host: localhost\n"
                   "Error: Unable to connect to host engine. Host engine connection invalid/disconnected.\n")


def splice(text, after, rows, count=1):
    """Insert `rows` after the whole line `after`, which must occur exactly `count` times."""
    assert text.count(after) == count, (after, text.count(after))
    return text.replace(after, after + rows)


def replace(text, old, new):
    assert text.count(old) == 1, (old, text.count(old))
    return text.replace(old, new)


def _fail_gpu5_thermal_error(text):
    # The all-pass DCGM 3.3.3 run turned into a thermal failure on GPU 5: the fragment's real
    # `Pass - GPUs / Fail - GPU` lines and its thermal message, as an Error row, with 0 <-> 5 swapped.
    rows = R2_THERMAL.replace("1, 2, 3, 4, 5, 6, 7", "0, 1, 2, 3, 4, 6, 7").replace("GPU: 0 ", "GPU: 5 ")
    rows = rows.replace("| Warning  ", "| Error    ").replace("GPU 0 Thermal", "GPU 5 Thermal").replace("| U 0 V", "| U 5 V")
    return replace(text, GPU_MEMORY_ALL_PASS, rows)


@pytest.fixture
def run(monkeypatch):
    recorder = Recorder({"show": (0, SHOW_NODE, "")})
    monkeypatch.setattr(gh.subprocess, "run", recorder)
    monkeypatch.delenv("SLURMD_NODENAME", raising=False)
    monkeypatch.delenv("SLURM_SCRIPT_CONTEXT", raising=False)
    return recorder


@pytest.fixture
def tools(monkeypatch):
    """The tools on PATH: a set of names that shutil.which finds in /usr/bin."""
    found = {"dcgmi", "nvidia-smi", "scontrol"}
    monkeypatch.setattr(gh.shutil, "which", lambda name, path=None: "/usr/bin/" + name if name in found else None)
    return found


@pytest.fixture
def config(tmp_path):
    def write(body="EXPECTED_GPUS=8\nSTAND_INS=0\n"):
        path = tmp_path / "gpufleet-gpu-health.conf"
        path.write_text(body)
        return str(path)
    return write


def check(tmp_path, config, text, *extra, body="EXPECTED_GPUS=8\nSTAND_INS=0\nSOURCE=dcgm\n"):
    """Run main() on `text` as a recorded `dcgmi diag` file; return the exit status."""
    recorded = tmp_path / "dcgmi-diag.txt"
    recorded.write_text(text)
    return gh.main(["--config", config(body), "--from-file", str(recorded), "--node", "gpu01",
                    "--scontrol", SCONTROL] + list(extra))


def update_argv(reason):
    return [SCONTROL, "update", "NodeName=gpu01", "State=DRAIN", "Reason=" + reason]


SHOW_ARGV = [SCONTROL, "show", "node", "gpu01"]
NOTE_NO_COUNT = HEAD + "note GPU count not checked: this dcgmi diag table does not list the GPUs (DCGM 2.x)\n"


# ---------------------------------------------------------------------------------------------
# Parsing the five recordings
# ---------------------------------------------------------------------------------------------
def test_r2_dcgm_333_all_pass_parses_sections_metadata_and_gpu_count():
    diag = gh.parse_dcgm_diag(R2_AWSOME)
    assert diag.metadata == {"DCGM Version": "3.3.3", "Driver Version Detected": "535.104.12",
                             "GPU Device IDs Detected": "20b2,20b2,20b2,20b2,20b2,20b2,20b2,20b2"}
    assert diag.gpu_count == 8  # eight device IDs
    assert [(r.section, r.test, r.result, r.detail) for r in diag.rows] == (
        [("Deployment", test, "Pass", "") for test in (
            "Denylist", "NVML Library", "CUDA Main Library", "Permissions and OS Blocks", "Persistence Mode",
            "Environment Variables", "Page Retirement/Row Remap", "Graphics Processes", "Inforom")]
        + [("Integration", "PCIe", "Pass", "All"), ("Hardware", "GPU Memory", "Pass", "All")])
    assert gh.judge_dcgm(diag) == ([], [], [])


def test_r1_dcgm2_deployment_fail_keeps_the_blacklist_row_and_empty_sections():
    diag = gh.parse_dcgm_diag(R1_DEEPOPS)
    assert diag.metadata == {} and diag.gpu_count is None  # DCGM 2.x prints no Metadata section
    assert [(r.test, r.result) for r in diag.rows] == [
        ("Blacklist", "Pass"), ("NVML Library", "Pass"), ("CUDA Main Library", "Pass"),
        ("Permissions and OS Blocks", "Pass"), ("Persistence Mode", "Fail"), ("Environment Variables", "Fail"),
        ("Page Retirement", "Fail"), ("Graphics Processes", "Fail"), ("Inforom", "Fail")]
    assert {r.section for r in diag.rows} == {"Deployment"}  # Hardware, Integration, Stress are empty
    # Page Retirement names memory: it goes first, the other four keep the table's order.
    assert gh.judge_dcgm(diag) == (["Page Retirement: failed", "Persistence Mode: failed", "Environment Variables: failed",
                                    "Graphics Processes: failed", "Inforom: failed"], [], [])


def test_r2_fragment_splits_per_gpu_results_and_joins_the_wrapped_warning():
    diag = gh.parse_dcgm_diag(R2_THERMAL)
    assert [(r.test, r.result, r.gpus, r.detail) for r in diag.rows] == [
        ("GPU Memory", "Pass", [1, 2, 3, 4, 5, 6, 7], "GPUs: 1, 2, 3, 4, 5, 6, 7"),
        ("GPU Memory", "Fail", [0], "GPU: 0"),
        ("GPU Memory", "Warning", [0], "")]
    # Six pieces cut at 45 characters ("second" + "s", "GP" + "U 0", "i" + "s"); the last has no `|`.
    assert diag.rows[2].message == THERMAL_TEXT
    assert gh.judge_dcgm(diag) == (["GPU Memory: GPU 0 failed (warning: %s)" % THERMAL_SHORT], [], [])


def test_r3_fragment_error_row_wrapped_before_a_space():
    diag = gh.parse_dcgm_diag(R3_REMAP)
    # "...errors and row" (45 characters) + " remappings are pending": the space opens the second piece.
    assert [(r.section, r.test, r.result, r.gpus, r.message) for r in diag.rows] == [
        ("Deployment", "Deployment", "Error", [3], REMAP_TEXT)]
    assert gh.judge_dcgm(diag) == (["Deployment: " + REMAP_TEXT], [], [])


def test_discovery_box_is_not_a_diag_table():
    # Same box drawing, header `| GPU ID | Device Information |`: nothing of it is a test result.
    diag = gh.parse_dcgm_diag(DISCOVERY)
    assert (diag.rows, diag.metadata, diag.gpu_count) == ([], {}, None)


WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789.,:/()-", min_size=1, max_size=14)


@settings(max_examples=200, deadline=None)
@given(st.lists(WORDS, min_size=1, max_size=30))
def test_any_message_wrapped_the_way_dcgm_wraps_comes_back_whole(words):
    # The r3 recording's Error row with another message, cut every 45 characters as DCGM cuts it.
    message = " ".join(words)
    pieces = [message[at:at + 45] for at in range(0, len(message), 45)]
    rows = "".join("| %-25s | %-45s  |\n" % ("Error" if n == 0 else "", piece) for n, piece in enumerate(pieces))
    assert rows.splitlines()[0][:30] == REMAP_ERROR.splitlines()[0][:30]  # the recorded layout
    diag = gh.parse_dcgm_diag(R3_REMAP.replace(REMAP_ERROR, rows))
    assert [row.message for row in diag.rows] == [message]


# ---------------------------------------------------------------------------------------------
# Verdicts and drains on the recordings and on variants of them
# ---------------------------------------------------------------------------------------------
def test_all_pass_run_is_healthy_and_calls_nothing(tmp_path, config, run, capsys):
    assert check(tmp_path, config, R2_AWSOME) == 0
    assert capsys.readouterr() == (HEAD + "8 GPUs healthy (dcgmi diag: 11 tests passed)\n", "")
    assert run.calls == []


def test_deployment_failures_drain_with_every_test_named(tmp_path, config, run, capsys):
    reason = ("gpu-health: Page Retirement: failed; Persistence Mode: failed; Environment Variables: failed; "
              "Graphics Processes: failed; Inforom: failed")
    assert check(tmp_path, config, R1_DEEPOPS) == 1
    assert run.argvs == [SHOW_ARGV, update_argv(reason)]
    assert [timeout for _argv, timeout in run.calls] == [8, 8]
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(NOTE_NO_COUNT + HEAD + "FAIL Page Retirement: failed\n" + HEAD + "FAIL Persistence Mode: failed\n")
    assert err.endswith(HEAD + 'drained: /usr/bin/scontrol update NodeName=gpu01 State=DRAIN Reason="%s"\n' % reason)


def test_memory_fail_carries_the_thermal_warning_into_the_reason(tmp_path, config, run):
    assert check(tmp_path, config, R2_THERMAL) == 1
    assert run.argvs[-1] == update_argv("gpu-health: GPU Memory: GPU 0 failed (warning: %s)" % THERMAL_SHORT)


def test_row_remap_error_drains_with_dcgm_s_message(tmp_path, config, run):
    assert check(tmp_path, config, R3_REMAP) == 1
    assert run.argvs == [SHOW_ARGV, update_argv("gpu-health: Deployment: " + REMAP_TEXT)]


def test_error_row_belongs_to_the_failed_test_above_it(tmp_path, config, run):
    # The r3 Error row under the r1 `Page Retirement | Fail` row (where DCGM 2.x reports it).
    text = splice(R1_DEEPOPS, PAGE_RETIREMENT_FAIL, REMAP_ERROR)
    reason = ("gpu-health: Page Retirement: failed (%s); Persistence Mode: failed; Environment Variables: failed; "
              "Graphics Processes: failed; Inforom: failed" % REMAP_TEXT)
    # 12 + "Page Retirement: failed (" 25 + 68 + ")" 1 + 4 x "; " + 24 + 29 + 26 + 15 = 208
    assert len(reason) == 12 + 25 + 68 + 1 + 4 * 2 + 24 + 29 + 26 + 15 == 208
    assert check(tmp_path, config, text) == 1
    assert run.argvs[-1] == update_argv(reason)


def test_memory_item_goes_first_so_a_cut_reason_keeps_it(tmp_path, config, run):
    # The Error row twice (GPU 3, GPU 5) under the last test, Inforom: the five items no longer fit in
    # 249 characters. In table order the memory item would be last and only counted in "+N more";
    # memory items go first (Page Retirement too, by its name), the rest keep the table's order.
    text = splice(R1_DEEPOPS, INFOROM_FAIL, REMAP_ERROR + REMAP_ERROR.replace("GPU 3", "GPU 5"))
    assert check(tmp_path, config, text) == 1
    reason = run.argvs[-1][-1][len("Reason="):]
    assert reason == ("gpu-health: Page Retirement: failed; Inforom: failed (%s, %s); Persistence Mode: failed; "
                      "+2 more" % (REMAP_TEXT, REMAP_TEXT.replace("GPU 3", "GPU 5")))
    # 12 + 23 + 2 + ("Inforom: failed (" 17 + 68 + 2 + 68 + 1) + 2 + 24 + "; +2 more" 9 = 228; one more
    # item, "; Environment Variables: failed", would make 259 > 249.
    assert len(reason) == 228


def test_all_pass_run_turned_into_a_thermal_failure(tmp_path, config, run, capsys):
    text = _fail_gpu5_thermal_error(R2_AWSOME)
    diag = gh.parse_dcgm_diag(text)
    assert [(r.test, r.result, r.gpus) for r in diag.rows[-3:]] == [
        ("GPU Memory", "Pass", [0, 1, 2, 3, 4, 6, 7]), ("GPU Memory", "Fail", [5]), ("GPU Memory", "Error", [5])]
    reason = "gpu-health: GPU Memory: GPU 5 failed (%s)" % THERMAL_SHORT.replace("GPU 0", "GPU 5")
    assert check(tmp_path, config, text) == 1
    assert run.argvs == [SHOW_ARGV, update_argv(reason)]
    assert "Thermal violations" in reason and "GPU 5" in reason
    assert capsys.readouterr().out == ""


def test_thermal_warning_alone_warns_without_draining(tmp_path, config, run, capsys):
    text = splice(R2_AWSOME, GPU_MEMORY_ALL_PASS, THERMAL_WARNING)
    assert check(tmp_path, config, text) == 0
    assert capsys.readouterr() == ("", HEAD + "WARN GPU Memory: " + THERMAL_TEXT + "\n")
    assert run.calls == []


def test_warn_result_row_warns(tmp_path, config, run, capsys):
    text = replace(R2_AWSOME, "| PCIe                      | Pass - All   ", "| PCIe                      | Warn - GPU: 6")
    assert check(tmp_path, config, text) == 0
    assert capsys.readouterr().err == HEAD + "WARN PCIe: GPU 6 warned\n"
    assert run.calls == []


def test_skip_is_a_note_and_the_run_stays_healthy(tmp_path, config, run, capsys):
    text = replace(R2_AWSOME, "| PCIe                      | Pass - All", "| PCIe                      | Skip - All")
    assert check(tmp_path, config, text) == 0
    # 10 Pass rows are left.
    assert capsys.readouterr() == (HEAD + "8 GPUs healthy (dcgmi diag: 10 tests passed)\n",
                                   HEAD + "note PCIe: all GPUs skipped\n")


def test_dcgm3_gpu_count_is_checked(tmp_path, config, run):
    text = replace(R2_AWSOME, "20b2,20b2,20b2,20b2,20b2,20b2,20b2,20b2        ", "20b2,20b2,20b2,20b2,20b2,20b2,20b2             ")
    assert check(tmp_path, config, text) == 1
    assert run.argvs[-1] == update_argv("gpu-health: 7 GPUs found, 8 expected")


def test_a_file_without_a_diag_table_fails(tmp_path, config, run):
    assert check(tmp_path, config, DISCOVERY) == 1
    assert run.argvs[-1] == update_argv("gpu-health: dcgmi diag printed no results")


# ---------------------------------------------------------------------------------------------
# Running dcgmi: level, timeout, failures, host engine down
# ---------------------------------------------------------------------------------------------
def live(config, *extra, body="EXPECTED_GPUS=8\nSTAND_INS=0\n"):
    return gh.main(["--config", config(body), "--node", "gpu01", "--scontrol", SCONTROL] + list(extra))


def test_auto_runs_dcgmi_diag_r1_when_dcgmi_is_installed(config, run, tools, capsys):
    run.answers["diag"] = (0, R2_AWSOME, "")
    assert live(config, "--json") == 0
    assert run.calls == [([DCGMI, "diag", "-r", "1"], 40)]
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert (report["source"], report["verdict"], report["gpu_count"]) == ("dcgm", "healthy", 8)
    assert len(report["dcgm"]["rows"]) == 11 and report["dcgm"]["metadata"]["DCGM Version"] == "3.3.3"
    assert err == HEAD + "8 GPUs healthy (dcgmi diag: 11 tests passed)\n"


def test_dcgmi_exiting_non_zero_with_a_table_is_judged_by_the_table(config, run, tools):
    run.answers["diag"] = (226, R3_REMAP, "")
    assert live(config) == 1
    assert run.argvs == [[DCGMI, "diag", "-r", "1"], SHOW_ARGV, update_argv("gpu-health: Deployment: " + REMAP_TEXT)]


@pytest.mark.parametrize("body, argv_level, timeout", [
    ("DCGM_LEVEL=2\n", "2", 300),
    ("DCGM_LEVEL=3\n", "3", 1800),
    ("DCGM_LEVEL=2\nDCGM_TIMEOUT=150\n", "2", 150),
])
def test_level_and_timeout_come_from_the_config(config, run, tools, body, argv_level, timeout):
    run.answers["diag"] = (0, R2_AWSOME, "")
    assert live(config, body=body) == 0
    assert run.calls == [([DCGMI, "diag", "-r", argv_level], timeout)]


def test_command_line_level_and_timeout_win(config, run, tools):
    run.answers["diag"] = (0, R2_AWSOME, "")
    assert live(config, "--dcgm-level", "2", "--timeout", "55", body="DCGM_LEVEL=3\nDCGM_TIMEOUT=900\n") == 0
    assert run.calls == [([DCGMI, "diag", "-r", "2"], 55)]


@pytest.mark.parametrize("stdout, stderr", [("", HOSTENGINE_DOWN), (HOSTENGINE_DOWN, "")])
def test_host_engine_down_says_so(config, run, tools, capsys, stdout, stderr):
    run.answers["diag"] = (255, stdout, stderr)
    assert live(config) == 1
    assert run.argvs[-1] == update_argv("gpu-health: dcgmi failed: nv-hostengine not running: start nvidia-dcgm")
    assert HEAD + "FAIL dcgmi failed: nv-hostengine not running: start nvidia-dcgm\n" in capsys.readouterr().err


def test_dcgmi_error_without_a_table_is_named(config, run, tools):
    said = ("Cannot run diagnostic: CUDA does not support enumerating GPUs when one or more GPUs has MIG mode "
            "enabled and one or more GPUs has MIG mode disabled.")
    run.answers["diag"] = (1, "", "Error: " + said + "\n")
    assert live(config) == 1
    # No "0 GPUs found" on top: the error says it all. The message is cut at 120 characters
    # (its last one a space, which the reason drops).
    assert run.argvs[-1] == update_argv("gpu-health: dcgmi failed: exit 1: " + ("Error: " + said)[:119])


def test_dcgmi_hang_is_a_failure(config, run, tools):
    run.answers["diag"] = subprocess.TimeoutExpired([DCGMI, "diag", "-r", "1"], 40)
    assert live(config, "--epilog") == 0  # drained, so the Epilog exits 0
    assert run.argvs[-1] == update_argv("gpu-health: dcgmi failed: no answer within 40 s")


def test_source_dcgm_without_dcgmi_fails(config, run, tools):
    tools.discard("dcgmi")
    assert live(config, body="EXPECTED_GPUS=8\nSOURCE=dcgm\n") == 1
    assert run.argvs == [SHOW_ARGV, update_argv("gpu-health: dcgmi missing")]


def test_source_dcgm_on_a_lab_node_prints_the_lab_line(config, run, tools, monkeypatch, capsys):
    tools.clear()
    monkeypatch.setattr(gh, "DEV_GLOB", "/nonexistent/nvidia[0-9]*")
    assert live(config, body="EXPECTED_GPUS=8\nSTAND_INS=1\nSOURCE=dcgm\n") == 0
    assert capsys.readouterr().out == HEAD + "0 stand-in GPU devices (EXPECTED_GPUS=8), no NVIDIA driver: nothing to check (lab)\n"
    assert run.calls == []


# ---------------------------------------------------------------------------------------------
# Choosing the source
# ---------------------------------------------------------------------------------------------
def test_auto_without_dcgmi_runs_nvidia_smi(config, run, tools, capsys):
    tools.discard("dcgmi")
    run.answers["-q"] = (0, SMI_H100, "")
    assert live(config, "--json") == 0
    assert run.calls == [(["/usr/bin/nvidia-smi", "-q"], 40)]
    assert json.loads(capsys.readouterr().out)["source"] == "nvidia-smi"


@pytest.mark.parametrize("named, extra, body", [
    (True, [], ""),                                     # a named nvidia-smi means nvidia-smi
    (False, [], "SOURCE=nvidia-smi\n"),                 # the config says so
    (False, ["--source", "nvidia-smi"], "SOURCE=dcgm\n"),  # the command line wins over the config
])
def test_nvidia_smi_is_chosen_although_dcgmi_is_installed(tmp_path, config, run, tools, named, extra, body):
    smi = tmp_path / "nvidia-smi"
    smi.write_text("")
    smi.chmod(0o755)
    run.answers["-q"] = (0, SMI_H100, "")
    extra = extra + (["--nvidia-smi", str(smi)] if named else [])
    assert live(config, *extra, body="EXPECTED_GPUS=8\n" + body) == 0
    assert run.argvs == [[str(smi) if named else "/usr/bin/nvidia-smi", "-q"]]


def test_command_line_source_dcgm_wins_over_the_config(config, run, tools):
    run.answers["diag"] = (0, R2_AWSOME, "")
    assert live(config, "--source", "dcgm", body="SOURCE=nvidia-smi\n") == 0
    assert run.argvs == [[DCGMI, "diag", "-r", "1"]]


def test_from_file_reads_nvidia_smi_unless_the_source_is_dcgm(tmp_path, config, run, tools, capsys):
    # auto + --from-file: nvidia-smi, so the DCGM table holds no GPU at all.
    assert check(tmp_path, config, R2_AWSOME, body="EXPECTED_GPUS=8\n") == 1
    assert run.argvs[-1] == update_argv("gpu-health: 0 GPUs found, 8 expected")
    assert check(tmp_path, config, R2_AWSOME, "--source", "dcgm", body="EXPECTED_GPUS=8\n") == 0
    assert capsys.readouterr().out.endswith(HEAD + "8 GPUs healthy (dcgmi diag: 11 tests passed)\n")


# ---------------------------------------------------------------------------------------------
# The drain path is the nvidia-smi one: existing reasons, Epilog, JSON
# ---------------------------------------------------------------------------------------------
def test_already_drained_by_gpu_health_is_not_drained_again(tmp_path, config, run):
    text = SHOW_NODE.replace("State=MIXED ", "State=MIXED+DRAIN ")
    run.answers["show"] = (0, text + "   Reason=gpu-health: Deployment: %s [root@2024-06-21T02:03:08]\n" % REMAP_TEXT, "")
    assert check(tmp_path, config, R2_THERMAL) == 1
    assert run.argvs == [SHOW_ARGV]


def test_epilog_context_exits_zero_once_drained(tmp_path, config, run, monkeypatch):
    monkeypatch.setenv("SLURM_SCRIPT_CONTEXT", "epilog_slurmd")
    assert check(tmp_path, config, R3_REMAP) == 0
    run.answers["update"] = (1, "", "slurm_update error: Invalid node name specified\n")
    assert check(tmp_path, config, R3_REMAP) == 1


def test_json_report_of_a_failure(tmp_path, config, run, capsys):
    assert check(tmp_path, config, R2_THERMAL, "--json", "--dry-run") == 1
    report = json.loads(capsys.readouterr().out)
    assert (report["source"], report["verdict"], report["gpu_count"], report["node_failures"]) == ("dcgm", "fail", None, [])
    assert report["dcgm"]["failures"] == ["GPU Memory: GPU 0 failed (warning: %s)" % THERMAL_SHORT]
    assert report["dcgm"]["rows"][2] == {"section": "", "test": "GPU Memory", "result": "Warning", "gpus": [0],
                                         "detail": "", "message": THERMAL_TEXT}
    assert report["drain"] == {"action": "dry-run", "reason": "gpu-health: GPU Memory: GPU 0 failed (warning: %s)" % THERMAL_SHORT}
    assert "gpus" not in report


# ---------------------------------------------------------------------------------------------
# Configuration
# ---------------------------------------------------------------------------------------------
def test_config_keys_are_read_and_only_present_when_set(tmp_path):
    path = tmp_path / "c.conf"
    path.write_text("EXPECTED_GPUS=8\nSOURCE=dcgm\nDCGM_LEVEL='2'\nDCGM_TIMEOUT = 600\n")
    assert gh.load_config(str(path), required=True) == {"EXPECTED_GPUS": 8, "STAND_INS": False, "SOURCE": "dcgm",
                                                        "DCGM_LEVEL": 2, "DCGM_TIMEOUT": 600}


@pytest.mark.parametrize("body, message", [
    ("SOURCE=dcgmi\n", "SOURCE=dcgmi must be auto, nvidia-smi or dcgm"),
    ("DCGM_LEVEL=4\n", "DCGM_LEVEL=4 must be 1, 2 or 3"),
    ("DCGM_TIMEOUT=0\n", "DCGM_TIMEOUT=0 is not a whole number of seconds, 1 or more"),
    ("DCGM_RUN=1\n", "'DCGM_RUN=1' is not KEY=VALUE with a known key (EXPECTED_GPUS, STAND_INS, SOURCE, "
                     "DCGM_LEVEL, DCGM_TIMEOUT)"),
])
def test_bad_dcgm_config_exits_2(tmp_path, config, run, capsys, body, message):
    assert check(tmp_path, config, R2_AWSOME, body=body) == 2
    assert message in capsys.readouterr().err
    assert run.calls == []


def test_script_runs_as_a_program_on_a_dcgm_recording(tmp_path):
    conf = tmp_path / "c.conf"
    conf.write_text("EXPECTED_GPUS=8\nSOURCE=dcgm\n")
    recorded = os.path.join(DCGM, "dcgmi-diag-r2.p4de-8xA100.dcgm-3.3.3.awsome.txt")
    proc = subprocess.run([sys.executable, SCRIPT, "--config", str(conf), "--from-file", recorded, "--node", "gpu01"],
                          capture_output=True, text=True, env={}, check=False, timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, HEAD + "8 GPUs healthy (dcgmi diag: 11 tests passed)\n", "")
