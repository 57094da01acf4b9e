# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""roles/slurm/files/gpufleet-gpu-health against the real recorded `nvidia-smi -q` of an 8x H100 node.

The failure cases are that recording with single values replaced inside one GPU's block, so the text
keeps nvidia-smi's exact layout. Slurm and nvidia-smi are never run: subprocess.run is replaced by a
recorder and every argv is asserted.
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
H100 = os.path.join(OUTPUTS, "nvidia-smi", "nvidia-smi-q.h100-80gb-hbm3-x8.535.183.01.gpud.txt")
SHOW_NODE = os.path.join(OUTPUTS, "slurm", "scontrol-show-node.gpu-t4x6.aau-aicloud-docs.txt")
SCONTROL = "/usr/bin/scontrol"
HEAD = "gpufleet-gpu-health: gpu01: "


gh = load_script("gpufleet_gpu_health", "roles", "slurm", "files", "gpufleet-gpu-health")

with open(H100, encoding="utf-8") as _handle:
    RECORDED = _handle.read()
with open(SHOW_NODE, encoding="utf-8") as _handle:
    SHOW_NODE_TEXT = _handle.read()


def edit(text: str, bus: str, old: str, new: str, count: int = 1) -> str:
    """Replace `old` (found exactly `count` times) inside the block of GPU `bus` only."""
    header = "GPU 00000000:%s\n" % bus
    start = text.index(header)
    end = text.find("\nGPU 00000000:", start + 1)
    end = len(text) if end < 0 else end
    block = text[start:end]
    assert block.count(old) == count, (old, block.count(old))
    return text[:start] + block.replace(old, new) + text[end:]


def drop_gpu(text: str, bus: str) -> str:
    start = text.index("GPU 00000000:%s\n" % bus)
    end = text.find("\nGPU 00000000:", start + 1)
    return text[:start] + ("" if end < 0 else text[end + 1:])


@pytest.fixture
def run(monkeypatch):
    recorder = Recorder({"show": (0, SHOW_NODE_TEXT.replace("a256-t4-01", "gpu01"), "")})
    monkeypatch.setattr(gh.subprocess, "run", recorder)
    monkeypatch.delenv("SLURMD_NODENAME", raising=False)
    monkeypatch.delenv("SLURM_SCRIPT_CONTEXT", raising=False)
    return recorder


@pytest.fixture
def config(tmp_path):
    def write(body="EXPECTED_GPUS=8\nSTAND_INS=0\n"):
        path = tmp_path / "gpufleet-gpu-health.conf"
        path.write_text(body)
        return str(path)
    return write


def check(tmp_path, config, text, *extra):
    """Run main() on `text` as a recorded file; return the exit status."""
    recorded = tmp_path / "nvidia-smi-q.txt"
    recorded.write_text(text)
    return gh.main(["--config", config(), "--from-file", str(recorded), "--node", "gpu01",
                    "--scontrol", SCONTROL] + list(extra))


def update_argv(reason):
    return [SCONTROL, "update", "NodeName=gpu01", "State=DRAIN", "Reason=" + reason]


SHOW_ARGV = [SCONTROL, "show", "node", "gpu01"]
NOTE_GPU2 = HEAD + "note GPU 2 (0000:75:00.0): HW power brake slowdown active (external power brake signal)\n"


# ---------------------------------------------------------------------------------------------
# Parsing the real recording
# ---------------------------------------------------------------------------------------------
def test_recorded_h100_parses_into_eight_gpus():
    gpus = gh.parse_smi(RECORDED)
    assert [g.bus_id for g in gpus] == ["0000:53:00.0", "0000:64:00.0", "0000:75:00.0", "0000:86:00.0",
                                        "0000:97:00.0", "0000:a8:00.0", "0000:b9:00.0", "0000:ca:00.0"]
    assert [g.index for g in gpus] == list(range(8))
    assert [g.minor_number for g in gpus] == list(range(8))
    assert {g.product for g in gpus} == {"NVIDIA H100 80GB HBM3"}
    assert [g.temperature_c for g in gpus] == [36, 37, 39, 39, 38, 36, 37, 35]
    # T.Limit margins: threshold = current + T.Limit margin - threshold margin.
    # GPU 0: 36 + 50 - (-8) = 94 shutdown, 36 + 50 - (-2) = 88 slowdown; GPU 6: 37 + 50 + 8 = 95.
    assert [g.shutdown_c for g in gpus] == [94, 94, 94, 94, 94, 94, 95, 94]
    assert [g.slowdown_c for g in gpus] == [88, 88, 88, 88, 88, 88, 89, 88]
    assert {g.thresholds_from for g in gpus} == {"T.Limit margins"}
    first = gpus[0]
    assert first.uuid == "GPU-566e6f65-c38e-b12f-4824-6944218668b9"
    assert first.ecc_mode == "Enabled"
    assert (first.volatile_uncorrectable, first.aggregate_uncorrectable) == (0, 0)
    assert first.ecc_detail["volatile"] == {"SRAM Uncorrectable Parity": 0, "SRAM Uncorrectable SEC-DED": 0,
                                            "DRAM Uncorrectable": 0}
    assert (first.remap_pending, first.remap_failure) == (False, False)
    assert first.retired_pages_pending is None  # "Pending Page Blacklist : N/A" on H100
    assert (first.reset_required, first.drain_and_reset_recommended) == (False, False)
    assert first.clocks_events_active == ["Idle"]
    # GPU 2 was running a job when recorded: power cap, power brake and SW thermal events active.
    assert gpus[2].clocks_events_active == ["SW Power Cap", "HW Power Brake Slowdown", "SW Thermal Slowdown"]


def test_recorded_h100_verdicts_are_healthy():
    gpus = [gh.judge(g) for g in gh.parse_smi(RECORDED)]
    assert [g.verdict for g in gpus] == ["healthy"] * 8
    assert [g.notes for g in gpus if g.notes] == [["HW power brake slowdown active (external power brake signal)"]]


def test_healthy_node_prints_one_line_and_never_calls_slurm(tmp_path, config, run, capsys):
    assert check(tmp_path, config, RECORDED) == 0
    out, err = capsys.readouterr()
    assert out == HEAD + "8 GPUs healthy\n"
    assert err == NOTE_GPU2
    assert run.calls == []


# ---------------------------------------------------------------------------------------------
# Failures derived from the recording, each with the exact drain command
# ---------------------------------------------------------------------------------------------
def _dram_ue(text, bus, number):
    # Volatile and Aggregate both carry a "DRAM Uncorrectable" line: a new error raises both.
    return edit(text, bus, "DRAM Uncorrectable            : 0", "DRAM Uncorrectable            : %d" % number, 2)


def test_volatile_ecc_error_fails_and_drains(tmp_path, config, run, capsys):
    reason = "gpu-health: GPU 3 (0000:86:00.0): 2 volatile uncorrectable ECC errors"
    assert check(tmp_path, config, _dram_ue(RECORDED, "86:00.0", 2)) == 1
    assert run.argvs == [SHOW_ARGV, update_argv(reason)]
    assert [timeout for _argv, timeout in run.calls] == [8, 8]
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (NOTE_GPU2 + HEAD + "FAIL GPU 3 (0000:86:00.0): 2 volatile uncorrectable ECC errors\n"
                   + HEAD + 'drained: /usr/bin/scontrol update NodeName=gpu01 State=DRAIN Reason="%s"\n' % reason)


def test_one_sram_sec_ded_error_is_singular(tmp_path, config, run):
    text = edit(RECORDED, "53:00.0", "SRAM Uncorrectable SEC-DED    : 0", "SRAM Uncorrectable SEC-DED    : 1", 2)
    assert check(tmp_path, config, text) == 1
    assert run.argvs[-1] == update_argv("gpu-health: GPU 0 (0000:53:00.0): 1 volatile uncorrectable ECC error")


def test_aggregate_ecc_only_warns(tmp_path, config, run, capsys):
    # An old error: Aggregate DRAM 3 (second occurrence in the block), Volatile still 0.
    block_start = RECORDED.index("GPU 00000000:97:00.0")
    at = RECORDED.index("Aggregate\n", block_start)
    text = RECORDED[:at] + RECORDED[at:].replace("DRAM Uncorrectable            : 0",
                                                 "DRAM Uncorrectable            : 3", 1)
    assert check(tmp_path, config, text) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert err == NOTE_GPU2 + HEAD + "WARN GPU 4 (0000:97:00.0): 3 aggregate uncorrectable ECC errors\n"
    assert run.calls == []


def test_row_remap_pending_fails(tmp_path, config, run):
    text = edit(RECORDED, "86:00.0", "        Pending                           : No",
                "        Pending                           : Yes")
    assert check(tmp_path, config, text) == 1
    assert run.argvs[-1] == update_argv("gpu-health: GPU 3 (0000:86:00.0): row remap pending")


def test_dcgm_row_remap_case_lists_every_finding(tmp_path, config, run):
    # DCGM: "GPU 3 has uncorrectable memory errors and row remappings are pending" (dcgmi diag -r 3).
    text = _dram_ue(RECORDED, "86:00.0", 1)
    text = edit(text, "86:00.0", "Uncorrectable Error               : 0", "Uncorrectable Error               : 1")
    text = edit(text, "86:00.0", "        Pending                           : No",
                "        Pending                           : Yes")
    text = edit(text, "86:00.0", "Reset Required                    : No", "Reset Required                    : Yes")
    assert check(tmp_path, config, text) == 1
    assert run.argvs[-1] == update_argv("gpu-health: GPU 3 (0000:86:00.0): 1 volatile uncorrectable ECC error, "
                                        "row remap pending, reset required")


@pytest.mark.parametrize("old, new, finding", [
    ("Remapping Failure Occurred        : No", "Remapping Failure Occurred        : Yes", "row remap failure"),
    # H100 prints N/A (rows are remapped instead); older GPUs print Yes/No here.
    ("Pending Page Blacklist            : N/A", "Pending Page Blacklist            : Yes", "page retirement pending"),
    ("Drain and Reset Recommended       : No", "Drain and Reset Recommended       : Yes", "drain and reset recommended"),
])
def test_memory_and_reset_flags_fail(tmp_path, config, run, old, new, finding):
    assert check(tmp_path, config, edit(RECORDED, "B9:00.0", old, new)) == 1
    assert run.argvs == [SHOW_ARGV, update_argv("gpu-health: GPU 6 (0000:b9:00.0): " + finding)]


def test_ecc_disabled_warns():
    gpu = gh.judge(gh.parse_smi(edit(RECORDED, "B9:00.0", "        Current                           : Enabled",
                                     "        Current                           : Disabled"))[6])
    assert (gpu.ecc_mode, gpu.verdict, gpu.warn) == ("Disabled", "warn", ["ECC disabled"])


def test_partial_output_of_a_failing_nvidia_smi_counts_the_gpus_it_shows(tmp_path, config, run):
    smi = tmp_path / "nvidia-smi"
    smi.write_text("")
    smi.chmod(0o755)
    lost = "Unable to determine the device handle for GPU0000:CA:00.0: Unknown Error"
    run.answers["-q"] = (15, drop_gpu(RECORDED, "CA:00.0"), lost + "\n")
    assert gh.main(["--config", config(), "--node", "gpu01", "--scontrol", SCONTROL, "--nvidia-smi", str(smi)]) == 1
    assert run.argvs[-1] == update_argv("gpu-health: nvidia-smi failed: exit 15: " + lost + "; 7 GPUs found, 8 expected")


def _thermal(text, bus, current, margin):
    text = edit(text, bus, "GPU Current Temp                  : 36 C", "GPU Current Temp                  : %d C" % current)
    return edit(text, bus, "GPU T.Limit Temp                  : 50 C", "GPU T.Limit Temp                  : %d C" % margin)


def test_thermal_near_shutdown_with_hw_slowdown_fails(tmp_path, config, run):
    # GPU 5 at 91 C with T.Limit margin -5: T.Limit = 86, shutdown = 86 + 8 = 94, 91 >= 94 - 5.
    text = _thermal(RECORDED, "A8:00.0", 91, -5)
    text = edit(text, "A8:00.0", "HW Slowdown                       : Not Active",
                "HW Slowdown                       : Active")
    text = edit(text, "A8:00.0", "HW Thermal Slowdown           : Not Active", "HW Thermal Slowdown           : Active")
    assert check(tmp_path, config, text) == 1
    assert run.argvs[-1] == update_argv("gpu-health: GPU 5 (0000:a8:00.0): temperature 91 C within 5 C of shutdown "
                                        "94 C, HW slowdown active, HW thermal slowdown active")


@pytest.mark.parametrize("current, margin, verdict, finding", [
    (87, -1, "healthy", None),                                            # 87 < slowdown 88
    (88, -2, "warn", "temperature 88 C at or above slowdown 88 C"),       # slowdown = 86 + 2
    (89, -3, "fail", "temperature 89 C within 5 C of shutdown 94 C"),     # 89 >= 94 - 5
])
def test_temperature_thresholds(current, margin, verdict, finding):
    gpu = gh.judge(gh.parse_smi(_thermal(RECORDED, "A8:00.0", current, margin))[5])
    assert (gpu.slowdown_c, gpu.shutdown_c) == (88, 94)
    assert gpu.verdict == verdict
    assert gpu.fail + gpu.warn == ([finding] if finding else [])


def test_absolute_thresholds_of_older_drivers_win():
    # Drivers before the T.Limit rows print absolute "GPU Shutdown Temp" / "GPU Slowdown Temp".
    text = edit(RECORDED, "53:00.0", "GPU Shutdown T.Limit Temp         : -8 C", "GPU Shutdown Temp                 : 92 C")
    text = edit(text, "53:00.0", "GPU Slowdown T.Limit Temp         : -2 C", "GPU Slowdown Temp                 : 89 C")
    gpu = gh.parse_smi(text)[0]
    assert (gpu.slowdown_c, gpu.shutdown_c, gpu.thresholds_from) == (89, 92, "absolute")


def test_unknown_error_field_fails(tmp_path, config, run):
    text = edit(RECORDED, "86:00.0", "GPU Current Temp                  : 39 C",
                "GPU Current Temp                  : Unknown Error")
    assert check(tmp_path, config, text) == 1
    assert run.argvs[-1] == update_argv("gpu-health: GPU 3 (0000:86:00.0): nvidia-smi cannot read "
                                        "Temperature / GPU Current Temp")


def test_missing_gpu_fails(tmp_path, config, run):
    assert check(tmp_path, config, drop_gpu(RECORDED, "CA:00.0")) == 1
    assert run.argvs == [SHOW_ARGV, update_argv("gpu-health: 7 GPUs found, 8 expected")]


def test_expect_option_overrides_config(tmp_path, config, run):
    assert check(tmp_path, config, RECORDED, "--expect", "4") == 1
    assert run.argvs[-1] == update_argv("gpu-health: 8 GPUs found, 4 expected")


# ---------------------------------------------------------------------------------------------
# nvidia-smi absent, failing, hanging; lab stand-ins
# ---------------------------------------------------------------------------------------------
LAB_CONF = "EXPECTED_GPUS=8\nSTAND_INS=1\n"


@pytest.fixture
def no_smi(monkeypatch):
    monkeypatch.setattr(gh.shutil, "which", lambda name, path=None: None)


def test_stand_ins_without_nvidia_smi_print_the_lab_line(tmp_path, config, run, no_smi, monkeypatch, capsys):
    dev = tmp_path / "dev"
    dev.mkdir()
    for name in ["nvidia%d" % i for i in range(8)] + ["nvidiactl", "nvidia-uvm"]:
        (dev / name).write_text("")
    monkeypatch.setattr(gh, "DEV_GLOB", str(dev / "nvidia[0-9]*"))
    assert gh.main(["--config", config(LAB_CONF), "--node", "gpu01"]) == 0
    out, err = capsys.readouterr()
    assert out == HEAD + "8 stand-in GPU devices, no NVIDIA driver: nothing to check (lab)\n"
    assert err == ""
    assert run.calls == []


def stand_in_devices(tmp_path, monkeypatch):
    """/dev/nvidia0..7 as the lab has them: links to /dev/null (character device 1:3)."""
    dev = tmp_path / "dev"
    dev.mkdir()
    for index in range(8):
        (dev / ("nvidia%d" % index)).symlink_to("/dev/null")
    monkeypatch.setattr(gh, "DEV_GLOB", str(dev / "nvidia[0-9]*"))


def test_stand_ins_with_a_driver_installed_print_the_lab_line(tmp_path, config, run, monkeypatch, capsys):
    # A lab node with Debian's driver packages: nvidia-smi exists but would fail (no module, no GPU). Its devices
    # are /dev/null, not NVIDIA's major 195, so it is still a lab node: nothing is run, nothing drained.
    stand_in_devices(tmp_path, monkeypatch)
    monkeypatch.setattr(gh.shutil, "which", lambda name, path=None: "/usr/bin/" + name)
    assert gh.main(["--config", config(LAB_CONF), "--node", "gpu01", "--source", "nvidia-smi"]) == 0
    out, err = capsys.readouterr()
    assert out == HEAD + "8 stand-in GPU devices, no NVIDIA GPU behind them (nvidia-smi not asked): nothing to check (lab)\n"
    assert err == ""
    assert run.calls == []


def test_stand_ins_setting_does_not_hide_real_gpus(tmp_path, config, run, monkeypatch, capsys):
    # STAND_INS=1 on a node whose devices are NVIDIA's (here: /dev/null's major taken as NVIDIA's): checked for real,
    # and a failing nvidia-smi drains it.
    stand_in_devices(tmp_path, monkeypatch)
    monkeypatch.setattr(gh, "NVIDIA_MAJOR", os.major(os.stat("/dev/null").st_rdev))
    monkeypatch.setattr(gh.shutil, "which", lambda name, path=None: "/usr/bin/" + name)
    monkeypatch.setattr(gh, "run_smi", lambda tool, timeout: ("", "nvidia-smi failed: exit 9"))
    assert gh.main(["--config", config(LAB_CONF), "--node", "gpu01", "--source", "nvidia-smi"]) == 1
    assert run.argvs[-1] == update_argv("gpu-health: nvidia-smi failed: exit 9")


def test_without_stand_ins_missing_nvidia_smi_fails_and_drains(tmp_path, config, run, no_smi, capsys):
    assert gh.main(["--config", config(), "--node", "gpu01", "--scontrol", SCONTROL]) == 1
    assert run.argvs == [SHOW_ARGV, update_argv("gpu-health: nvidia-smi missing")]
    assert capsys.readouterr().err.startswith(HEAD + "FAIL nvidia-smi missing\n")


def test_nvidia_smi_failure_is_named(tmp_path, config, run, capsys):
    smi = tmp_path / "nvidia-smi"
    smi.write_text("")
    smi.chmod(0o755)
    said = ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
            "Make sure that the latest NVIDIA driver is installed and running.")
    run.answers["-q"] = (9, said + "\n", "")
    assert gh.main(["--config", config(), "--node", "gpu01", "--scontrol", SCONTROL, "--nvidia-smi", str(smi)]) == 1
    assert run.calls[0] == ([str(smi), "-q"], 40)
    # The message is cut at 120 characters.
    assert run.argvs[-1] == update_argv("gpu-health: nvidia-smi failed: exit 9: " + said[:120])


def test_nvidia_smi_hang_is_a_failure(tmp_path, config, run):
    smi = tmp_path / "nvidia-smi"
    smi.write_text("")
    smi.chmod(0o755)
    run.answers["-q"] = subprocess.TimeoutExpired([str(smi), "-q"], 40)
    assert gh.main(["--config", config(), "--node", "gpu01", "--scontrol", SCONTROL, "--nvidia-smi", str(smi),
                    "--timeout", "40"]) == 1
    assert run.argvs[-1] == update_argv("gpu-health: nvidia-smi failed: no answer within 40 s")


# ---------------------------------------------------------------------------------------------
# Draining: idempotent, never over an operator's reason, dry-run, Epilog
# ---------------------------------------------------------------------------------------------
def _drained(reason):
    # The reference `scontrol show node` as a drained node prints it: State flag and a Reason line.
    text = SHOW_NODE_TEXT.replace("a256-t4-01", "gpu01").replace("State=MIXED ", "State=MIXED+DRAIN ")
    return text + "   Reason=%s [root@2024-06-21T02:03:08]\n" % reason


def test_already_drained_by_gpu_health_is_not_drained_again(tmp_path, config, run, capsys):
    run.answers["show"] = (0, _drained("gpu-health: GPU 3 (0000:86:00.0): row remap pending"), "")
    assert check(tmp_path, config, _dram_ue(RECORDED, "86:00.0", 2)) == 1
    assert run.argvs == [SHOW_ARGV]
    assert capsys.readouterr().err.endswith(
        HEAD + "already drained by gpu-health (Reason=gpu-health: GPU 3 (0000:86:00.0): row remap pending): "
        "not drained again\n")


def test_operator_drain_reason_is_left_alone(tmp_path, config, run):
    run.answers["show"] = (0, _drained("swap PSU 2 ticket 4711"), "")
    assert check(tmp_path, config, _dram_ue(RECORDED, "86:00.0", 2)) == 1
    assert run.argvs == [SHOW_ARGV]


def test_slurm_epilog_error_reason_is_replaced(tmp_path, config, run):
    run.answers["show"] = (0, _drained("Epilog error"), "")
    assert check(tmp_path, config, _dram_ue(RECORDED, "86:00.0", 2)) == 1
    assert run.argvs == [SHOW_ARGV, update_argv("gpu-health: GPU 3 (0000:86:00.0): 2 volatile uncorrectable ECC errors")]


def test_dry_run_calls_nothing(tmp_path, config, run, capsys):
    assert check(tmp_path, config, _dram_ue(RECORDED, "86:00.0", 2), "--dry-run") == 1
    assert run.calls == []
    assert capsys.readouterr().err.endswith(
        HEAD + "--dry-run: not drained; would run: /usr/bin/scontrol update NodeName=gpu01 State=DRAIN "
        'Reason="gpu-health: GPU 3 (0000:86:00.0): 2 volatile uncorrectable ECC errors"\n')


def test_epilog_exits_zero_once_drained_and_one_when_the_drain_fails(tmp_path, config, run):
    text = _dram_ue(RECORDED, "86:00.0", 2)
    assert check(tmp_path, config, text, "--epilog") == 0
    run.answers["update"] = (1, "", "slurm_update error: Invalid node name specified\n")
    assert check(tmp_path, config, text, "--epilog") == 1


def test_slurmd_epilog_context_acts_as_epilog(tmp_path, config, run, monkeypatch):
    """slurm.conf names the script itself as Epilog: slurmd's SLURM_SCRIPT_CONTEXT turns --epilog on."""
    text = _dram_ue(RECORDED, "86:00.0", 2)
    monkeypatch.setenv("SLURM_SCRIPT_CONTEXT", "prolog_slurmd")
    assert check(tmp_path, config, text) == 1
    monkeypatch.setenv("SLURM_SCRIPT_CONTEXT", "epilog_slurmd")
    assert check(tmp_path, config, text) == 0
    assert run.argvs[-1] == update_argv("gpu-health: GPU 3 (0000:86:00.0): 2 volatile uncorrectable ECC errors")


def test_node_name_comes_from_slurmd(tmp_path, config, run, monkeypatch, capsys):
    monkeypatch.setenv("SLURMD_NODENAME", "gpu-a07")
    recorded = tmp_path / "q.txt"
    recorded.write_text(RECORDED)
    assert gh.main(["--config", config(), "--from-file", str(recorded)]) == 0
    assert capsys.readouterr().out == "gpufleet-gpu-health: gpu-a07: 8 GPUs healthy\n"


def test_json_lists_the_findings(tmp_path, config, run, capsys):
    assert check(tmp_path, config, _dram_ue(RECORDED, "86:00.0", 2), "--json", "--dry-run") == 1
    report = json.loads(capsys.readouterr().out)
    assert (report["node"], report["verdict"], report["gpu_count"], report["expected_gpus"]) == ("gpu01", "fail", 8, 8)
    assert [g["verdict"] for g in report["gpus"]] == ["healthy"] * 3 + ["fail"] + ["healthy"] * 4
    assert report["gpus"][3]["fail"] == ["2 volatile uncorrectable ECC errors"]
    assert report["gpus"][3]["ecc_detail"]["volatile"]["DRAM Uncorrectable"] == 2
    assert report["drain"] == {"action": "dry-run",
                               "reason": "gpu-health: GPU 3 (0000:86:00.0): 2 volatile uncorrectable ECC errors"}


# ---------------------------------------------------------------------------------------------
# Reason text and configuration
# ---------------------------------------------------------------------------------------------
def test_reason_loses_quotes_and_newlines():
    assert gh.build_reason(['nvidia-smi failed: exit 1: "bad"\nthing']) == "gpu-health: nvidia-smi failed: exit 1: 'bad' thing"


def test_reason_keeps_whole_items_and_counts_the_rest():
    # Each item is 76 characters. Prefix 12 + 2 items + one "; " + "; +6 more" = 12 + 152 + 2 + 9 = 175;
    # a third item would need 12 + 228 + 4 + 9 = 253 > 249.
    items = ["GPU %d (0000:%02x:00.0): 2 volatile uncorrectable ECC errors, row remap pending" % (i, i) for i in range(8)]
    assert {len(i) for i in items} == {76}
    reason = gh.build_reason(items)
    assert reason == "gpu-health: " + "; ".join(items[:2]) + "; +6 more"
    assert len(reason) == 175


def test_blank_items_still_give_a_reason():
    assert gh.build_reason(["\r", "  "]) == "gpu-health: check failed"


def test_one_overlong_item_is_cut():
    reason = gh.build_reason(["x" * 400])
    assert reason == "gpu-health: " + "x" * (249 - 12 - 3) + "..."
    assert len(reason) == 249


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=120), min_size=1, max_size=12))
def test_reason_is_always_one_short_unquoted_line(items):
    reason = gh.build_reason(items)
    assert reason.startswith("gpu-health: ")
    assert len(reason) <= 249
    assert '"' not in reason
    assert not any(ord(ch) < 32 or 127 <= ord(ch) <= 159 for ch in reason)
    assert len(reason.splitlines()) == 1


@pytest.mark.parametrize("body, message", [
    ("EXPECTED_GPUS=eight\n", "EXPECTED_GPUS=eight is not a whole number of 1 or more"),
    ("EXPECTED_GPUS=0\n", "EXPECTED_GPUS=0 is not a whole number of 1 or more"),
    ("STAND_INS=yes\n", "STAND_INS=yes must be 0 or 1"),
    ("GPUS=8\n", "'GPUS=8' is not KEY=VALUE with a known key"),
])
def test_bad_config_exits_2_without_draining(tmp_path, config, run, capsys, body, message):
    assert check(tmp_path, lambda: config(body), RECORDED) == 2
    assert message in capsys.readouterr().err
    assert run.calls == []


def test_config_comments_quotes_and_defaults(tmp_path):
    path = tmp_path / "c.conf"
    path.write_text("# written by gpufleet.cluster.slurm\n\nEXPECTED_GPUS = \"8\"\nSTAND_INS=1\n")
    assert gh.load_config(str(path), required=True) == {"EXPECTED_GPUS": 8, "STAND_INS": True}
    assert gh.load_config(str(tmp_path / "absent.conf"), required=False) == {"EXPECTED_GPUS": None, "STAND_INS": False}
    with pytest.raises(gh.ConfigError, match="does not exist"):
        gh.load_config(str(tmp_path / "absent.conf"), required=True)


def test_script_runs_as_a_program_on_the_recording(tmp_path):
    conf = tmp_path / "c.conf"
    conf.write_text("EXPECTED_GPUS=8\n")
    proc = subprocess.run([sys.executable, SCRIPT, "--config", str(conf), "--from-file", H100, "--node", "gpu01"],
                          capture_output=True, text=True, env={}, check=False, timeout=60)
    assert (proc.returncode, proc.stdout) == (0, HEAD + "8 GPUs healthy\n")
