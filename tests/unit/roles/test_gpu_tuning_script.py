# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""roles/gpu_tuning/files/gpufleet-gpu-tuning against the GPUs of a real recorded 8x H100 node.

nvidia-smi is never run: subprocess.run is replaced by a recorder that answers
`nvidia-smi --query-gpu=index,uuid,name --format=csv,noheader` with the index, UUID and name of each GPU of
the recorded `nvidia-smi -q` (nvidia-smi-q.h100-80gb-hbm3-x8.535.183.01.gpud.txt), in nvidia-smi's CSV layout
(fields joined by ", ", as query-gpu-name-busid-vbios.8xH100.ml-engineering.csv shows). Every argv is asserted.
The refusal messages are nvidia-smi's own, as quoted in public bug reports (cited at each).
"""
from __future__ import annotations

import ast
import itertools
import json
import os
import re
import stat
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from script_loader import ROOT, load_script
from reference import outputs

SCRIPT = os.path.join(ROOT, "roles", "gpu_tuning", "files", "gpufleet-gpu-tuning")
OUTPUTS = outputs("nvidia-smi")
H100_Q = os.path.join(OUTPUTS, "nvidia-smi-q.h100-80gb-hbm3-x8.535.183.01.gpud.txt")
H100_CSV = os.path.join(OUTPUTS, "query-gpu-name-busid-vbios.8xH100.ml-engineering.csv")
SMI = "/usr/bin/nvidia-smi"
H100 = "NVIDIA H100 80GB HBM3"


gt = load_script("gpufleet_gpu_tuning", "roles", "gpu_tuning", "files", "gpufleet-gpu-tuning")


def _recorded_gpus():
    """(bus id, uuid, name) per GPU block of the recorded `nvidia-smi -q`, in its (PCI, = index) order."""
    with open(H100_Q, encoding="utf-8") as handle:
        text = handle.read()
    blocks = re.split(r"^GPU (\S+)\n", text, flags=re.M)[1:]
    out = []
    for bus, body in zip(blocks[0::2], blocks[1::2]):
        uuid = re.search(r"^    GPU UUID\s+: (\S+)$", body, re.M).group(1)
        name = re.search(r"^    Product Name\s+: (.+)$", body, re.M).group(1)
        out.append((bus, uuid, name))
    return out


RECORDED = _recorded_gpus()
BUS = [bus for bus, _uuid, _name in RECORDED]
UUID = [uuid for _bus, uuid, _name in RECORDED]
QUERY_ANSWER = "".join("%d, %s, %s\n" % (index, uuid, name) for index, (_bus, uuid, name) in enumerate(RECORDED))
QUERY_ARGV = [SMI, "--query-gpu=index,uuid,name", "--format=csv,noheader"]
ALL_DONE = "All done.\n"


def label(index):
    return "GPU %d (%s, %s)" % (index, UUID[index], H100)


class Recorder:
    """Stands in for subprocess.run: records argv, answers from `rules`, a list of (predicate, answer);
    an answer is (returncode, output) or an exception to raise. The query gets the recorded GPUs."""

    def __init__(self):
        self.calls = []
        self.rules = [(lambda argv: argv[1:] == QUERY_ARGV[1:], (0, QUERY_ANSWER))]

    def on(self, predicate, answer):
        self.rules.insert(0, (predicate, answer))

    def __call__(self, argv, **kwargs):
        assert kwargs["stderr"] is subprocess.STDOUT and kwargs["check"] is False
        self.calls.append((list(argv), kwargs["timeout"]))
        answer = next((a for predicate, a in self.rules if predicate(list(argv))), (0, ALL_DONE))
        if isinstance(answer, BaseException):
            raise answer
        return subprocess.CompletedProcess(argv, answer[0], answer[1], None)

    @property
    def argvs(self):
        return [argv for argv, _timeout in self.calls]


def gpu_call(index, *args):
    return [SMI, "-i", UUID[index]] + list(args)


def on_gpu(index, option):
    return lambda argv: len(argv) > 3 and argv[2] == UUID[index] and argv[3] == option


@pytest.fixture
def smi(monkeypatch):
    recorder = Recorder()
    monkeypatch.setattr(gt.subprocess, "run", recorder)
    monkeypatch.setattr(gt.shutil, "which", lambda name, path=None: SMI if name == "nvidia-smi" else None)
    monkeypatch.delenv("JOURNAL_STREAM", raising=False)
    return recorder


@pytest.fixture
def config(tmp_path):
    def write(profiles=None, persistence_mode=True, node_profile=None, **extra):
        doc = {"_comment": "Ansible managed", "version": 1, "persistence_mode": persistence_mode,
               "profiles": {} if profiles is None else profiles, "node_profile": node_profile}
        doc.update(extra)
        path = tmp_path / "gpu-tuning.json"
        path.write_text(json.dumps(doc))
        return str(path)
    return write


H100_PROFILE = {H100: {"power_limit_w": 700, "application_clocks": [2619, 1980], "locked_clocks": None}}


# ---------------------------------------------------------------------------------------------
# The script itself and the recordings
# ---------------------------------------------------------------------------------------------
def test_script_is_executable_python38_with_the_house_header():
    with open(SCRIPT, encoding="utf-8") as handle:
        source = handle.read()
    ast.parse(source, feature_version=(3, 8))  # raises SyntaxError on 3.9+ syntax
    assert source.startswith("#!/usr/bin/python3\n# -*- coding: utf-8 -*-\n# Copyright (c) 2026 gpufleet.cluster")
    assert os.stat(SCRIPT).st_mode & stat.S_IXUSR


def test_query_answer_is_the_recorded_node():
    gpus, bad = gt.parse_query(QUERY_ANSWER)
    assert bad == []
    assert [g.index for g in gpus] == list(range(8))
    assert gpus[0].uuid == "GPU-566e6f65-c38e-b12f-4824-6944218668b9"
    assert gpus[1].uuid == "GPU-9930d717-21dd-7692-054e-3d0a2bae76b5"
    assert gpus[2].uuid == "GPU-973565ff-45cf-12ea-4e91-33386720f7bb"
    assert {g.name for g in gpus} == {H100}
    assert BUS == ["00000000:53:00.0", "00000000:64:00.0", "00000000:75:00.0", "00000000:86:00.0",
                   "00000000:97:00.0", "00000000:A8:00.0", "00000000:B9:00.0", "00000000:CA:00.0"]


def test_csv_recording_layout_is_what_the_parser_splits():
    # The recorded CSV (another 8x H100 node) shows nvidia-smi's layout: fields joined by ", ", no quoting.
    with open(H100_CSV, encoding="utf-8") as handle:
        lines = [line for line in handle.read().splitlines() if line.strip() and line.strip() != "[...]"]
    assert lines[0] == "name, pci.bus_id, vbios_version"
    rows = [line.split(", ") for line in lines[1:]]
    assert rows == [[H100, "00000000:04:00.0", "96.00.89.00.01"], [H100, "00000000:8B:00.0", "96.00.89.00.01"]]
    # The same name in our query's last column comes back whole, commas in names included.
    answer = "".join("%d, %s, %s\n" % (i, UUID[i], row[0]) for i, row in enumerate(rows))
    answer += "2, %s, Some GPU, rev 2\n" % UUID[2]
    gpus, bad = gt.parse_query(answer)
    assert [(g.index, g.name) for g in gpus] == [(0, H100), (1, H100), (2, "Some GPU, rev 2")] and bad == []


# ---------------------------------------------------------------------------------------------
# Applying a profile: the exact nvidia-smi calls
# ---------------------------------------------------------------------------------------------
def test_h100_profile_runs_the_exact_calls(smi, config, capsys):
    assert gt.main(["--config", config(H100_PROFILE)]) == 0
    expected = [QUERY_ARGV]
    for index in range(8):
        expected += [gpu_call(index, "-pm", "1"), gpu_call(index, "-pl", "700"), gpu_call(index, "-ac", "2619,1980")]
    assert smi.argvs == expected  # 1 query + 8 GPUs x 3 settings = 25 calls
    assert [timeout for _argv, timeout in smi.calls] == [30] * 25
    out, err = capsys.readouterr()
    assert err == ""
    lines = out.splitlines()
    assert lines[0] == "8 GPUs: 8 x NVIDIA H100 80GB HBM3"
    assert lines[1] == label(0) + ": set persistence mode on, power limit 700 W, application clocks 2619,1980 MHz"
    assert lines[-1] == "24 settings applied on 8 GPUs"
    assert len(lines) == 10


def test_defaults_resets_and_locked_clocks(smi, config):
    smi.on(lambda argv: "--query-gpu=power.default_limit" in argv, (0, "700.00\n"))
    profiles = {H100: {"power_limit_w": "default", "application_clocks": "default", "locked_clocks": [1410, 1980]}}
    assert gt.main(["--config", config(profiles, persistence_mode=None)]) == 0
    assert smi.argvs[1:5] == [
        gpu_call(0, "--query-gpu=power.default_limit", "--format=csv,noheader,nounits"),
        gpu_call(0, "-pl", "700"),        # "700.00" -> 700
        gpu_call(0, "-rac"),
        gpu_call(0, "-lgc", "1410,1980"),
    ]
    assert len(smi.argvs) == 1 + 8 * 4
    smi.calls.clear()
    assert gt.main(["--config", config({H100: {"locked_clocks": "reset", "power_limit_w": 350.5}})]) == 0
    assert smi.argvs[1:4] == [gpu_call(0, "-pm", "1"), gpu_call(0, "-pl", "350.5"), gpu_call(0, "-rgc")]


@pytest.mark.parametrize("watts, text", [(700, "700"), (350.5, "350.5"), (350.25, "350.25"), (700.001, "700"),
                                         (299.999, "300"), (0.5, "0.5")])
def test_watts_are_written_to_the_centiwatt(watts, text):
    # nvidia-smi prints limits with two decimals (700.00 W); a third decimal would not be set anyway.
    assert gt._number(watts) == text


def test_node_profile_covers_every_gpu_and_wins_over_the_model(smi, config):
    path = config(H100_PROFILE, persistence_mode=False, node_profile={"power_limit_w": 500})
    assert gt.main(["--config", path]) == 0
    assert smi.argvs[1:3] == [gpu_call(0, "-pm", "0"), gpu_call(0, "-pl", "500")]
    assert len(smi.argvs) == 1 + 8 * 2  # no -ac: the node profile replaces the model's


def test_model_without_profile_gets_persistence_only_and_says_so(smi, config, capsys):
    path = config({"NVIDIA A100-SXM4-80GB": {"power_limit_w": 400}})
    assert gt.main(["--config", path]) == 0
    assert smi.argvs == [QUERY_ARGV] + [gpu_call(i, "-pm", "1") for i in range(8)]
    out, err = capsys.readouterr()
    assert err.splitlines()[0] == label(0) + ": no profile for 'NVIDIA H100 80GB HBM3' in %s: persistence mode only" \
        % path
    assert len(err.splitlines()) == 8
    assert out.splitlines()[-1] == "8 settings applied on 8 GPUs"


def test_nothing_to_set_calls_only_the_query(smi, config, capsys):
    assert gt.main(["--config", config({}, persistence_mode=None)]) == 0
    assert smi.argvs == [QUERY_ARGV]
    out, err = capsys.readouterr()
    assert err.count("nothing to set") == 8
    assert out.splitlines()[-1] == "0 settings applied on 8 GPUs"


# ---------------------------------------------------------------------------------------------
# Failures: named, the other settings still applied, exit 1
# ---------------------------------------------------------------------------------------------
# nvidia-smi's words for an out-of-range limit (stackhpc/ansible-slurm-appliance PR 975, driver 595, H100).
OUT_OF_RANGE = ("Provided power limit 750.00 W is not a valid power limit which should be between 200.00 W and "
                "700.00 W for GPU %s\nTerminating early due to previous errors.\n")


def test_power_limit_refused_on_every_gpu(smi, config, capsys):
    for index in range(8):
        smi.on(on_gpu(index, "-pl"), (2, OUT_OF_RANGE % BUS[index]))
    assert gt.main(["--config", config({H100: {"power_limit_w": 750, "application_clocks": [2619, 1980]}})]) == 1
    # Every GPU still gets its other settings.
    assert smi.argvs[1:4] == [gpu_call(0, "-pm", "1"), gpu_call(0, "-pl", "750"), gpu_call(0, "-ac", "2619,1980")]
    assert len(smi.argvs) == 25
    out, err = capsys.readouterr()
    errors = err.splitlines()
    assert errors[0] == ("FAIL " + label(0) + ": power limit 750 W: nvidia-smi exit 2 (invalid argument): Provided "
                         "power limit 750.00 W is not a valid power limit which should be between 200.00 W and "
                         "700.00 W for GPU 00000000:53:00.0; Terminating early due to previous errors.")
    assert errors[-1] == ("FAIL 8 of 24 settings did not apply: " +
                          "; ".join("GPU %d power limit 750 W" % i for i in range(8)))
    assert (label(3) + ": set persistence mode on, application clocks 2619,1980 MHz; failed: power limit 750 W") \
        in out.splitlines()


# NVIDIA/nvidia-docker issue 495: -pl without the rights to set it.
REFUSED = "Failed to set power management limit for GPU %s: Insufficient Permissions\n"


def test_permission_refusal_names_gpu_setting_and_message(smi, config, capsys):
    smi.on(on_gpu(5, "-pl"), (4, REFUSED % BUS[5]))
    assert gt.main(["--config", config(H100_PROFILE)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == ["FAIL " + label(5) + ": power limit 700 W: nvidia-smi exit 4 (no permission): Failed to set power "
                   "management limit for GPU 00000000:A8:00.0: Insufficient Permissions",
                   "FAIL 1 of 24 settings did not apply: GPU 5 power limit 700 W"]
    assert len(smi.argvs) == 25


def test_not_supported_treated_as_warning_is_still_a_failure(smi, config, capsys):
    # nvidia-smi exits 0 here (sasha0552/nvidia-pstated issue 6): the clocks were not set all the same.
    said = "Setting applications clocks is not supported for GPU %s.\nTreating as warning and moving on.\nAll done.\n"
    smi.on(on_gpu(0, "-ac"), (0, said % BUS[0]))
    assert gt.main(["--config", config(H100_PROFILE)]) == 1
    assert capsys.readouterr().err.splitlines()[0] == (
        "FAIL " + label(0) + ": application clocks 2619,1980 MHz: nvidia-smi did not apply it (exit 0): Setting "
        "applications clocks is not supported for GPU 00000000:53:00.0.; Treating as warning and moving on.; All done.")


def test_a_hung_gpu_is_left_after_its_first_timeout(smi, config, capsys):
    smi.on(on_gpu(2, "-pm"), subprocess.TimeoutExpired(gpu_call(2, "-pm", "1"), 30))
    assert gt.main(["--config", config(H100_PROFILE)]) == 1
    assert gpu_call(2, "-pl", "700") not in smi.argvs and gpu_call(3, "-pm", "1") in smi.argvs
    assert len(smi.argvs) == 23  # 25 minus GPU 2's -pl and -ac
    err = capsys.readouterr().err.splitlines()
    assert err[:3] == ["FAIL " + label(2) + ": persistence mode on: nvidia-smi gave no answer within 30 s",
                       "FAIL " + label(2) + ": power limit 700 W: not attempted: an earlier nvidia-smi call on this "
                       "GPU hung",
                       "FAIL " + label(2) + ": application clocks 2619,1980 MHz: not attempted: an earlier nvidia-smi "
                       "call on this GPU hung"]


def test_the_deadline_stops_the_run_and_says_what_was_left(smi, config, capsys, monkeypatch):
    clock = itertools.count(0, 100)  # every call to monotonic() is 100 s later
    monkeypatch.setattr(gt.time, "monotonic", lambda: next(clock))
    # deadline = 0 + 250: the query (at 100) and GPU 0's -pm (at 200) run; everything after is refused.
    assert gt.main(["--config", config(H100_PROFILE), "--deadline", "250"]) == 1
    assert smi.argvs == [QUERY_ARGV, gpu_call(0, "-pm", "1")]
    assert [timeout for _argv, timeout in smi.calls] == [30, 30]
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "FAIL " + label(0) + ": power limit 700 W: not attempted: the run's deadline passed (earlier " \
                                          "calls were slow)"
    assert err[-1].startswith("FAIL 23 of 24 settings did not apply: GPU 0 power limit 700 W; ")


def test_driver_not_loaded_fails_before_any_gpu(smi, config, capsys):
    said = ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest "
            "NVIDIA driver is installed and running.\n")
    smi.rules.insert(0, (lambda argv: argv == QUERY_ARGV, (9, said)))
    assert gt.main(["--config", config(H100_PROFILE)]) == 1
    assert smi.argvs == [QUERY_ARGV]
    assert capsys.readouterr().err == (
        "FAIL listing the GPUs (/usr/bin/nvidia-smi --query-gpu=index,uuid,name --format=csv,noheader): nvidia-smi "
        "exit 9 (driver not loaded): " + said.strip() + "; no GPU was set\n")


def test_no_gpu_listed_fails(smi, config, capsys):
    smi.rules.insert(0, (lambda argv: argv == QUERY_ARGV, (0, "")))
    assert gt.main(["--config", config(H100_PROFILE)]) == 1
    assert capsys.readouterr().err.startswith("FAIL nvidia-smi lists no GPU")


def test_unreadable_gpu_line_is_not_set_and_fails_the_run(smi, config, capsys):
    broken = QUERY_ANSWER.replace("5, %s, %s" % (UUID[5], H100), "5, [Unknown Error], [Unknown Error]")
    smi.rules.insert(0, (lambda argv: argv == QUERY_ARGV, (0, broken)))
    assert gt.main(["--config", config(H100_PROFILE)]) == 1
    assert not any(UUID[5] in argv for argv in smi.argvs)
    assert len(smi.argvs) == 1 + 7 * 3
    err = capsys.readouterr().err.splitlines()
    assert err == ["FAIL nvidia-smi lists a GPU without an index and UUID this script can use: "
                   "'5, [Unknown Error], [Unknown Error]'; it is not set",
                   "FAIL 1 GPU listed by nvidia-smi could not be set"]


def test_missing_nvidia_smi_fails_without_calls(smi, config, monkeypatch, capsys):
    monkeypatch.setattr(gt.shutil, "which", lambda name, path=None: None)
    assert gt.main(["--config", config(H100_PROFILE)]) == 1
    assert smi.calls == []
    assert capsys.readouterr().err.startswith("FAIL nvidia-smi not found in /usr/local/sbin:")


def test_dry_run_reads_but_sets_nothing(smi, config, capsys):
    assert gt.main(["--config", config(H100_PROFILE), "--dry-run"]) == 0
    assert smi.argvs == [QUERY_ARGV]
    out = capsys.readouterr().out.splitlines()
    assert out[1] == label(0) + ": would run /usr/bin/nvidia-smi -i " + UUID[0] + " -pm 1"
    assert out[-1] == "dry run: 24 settings on 8 GPUs, nothing set"


# ---------------------------------------------------------------------------------------------
# Configuration checks: exit 2, nvidia-smi never called
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("profile, message", [
    ({"power_limit_w": "max"}, 'profiles["NVIDIA H100 80GB HBM3"].power_limit_w is "max": give watts above 0 '
                               '(700, 350.5), "default", or null to leave it'),
    ({"power_limit_w": True}, 'profiles["NVIDIA H100 80GB HBM3"].power_limit_w is true: give watts above 0 '
                              '(700, 350.5), "default", or null to leave it'),
    ({"application_clocks": "2619,1980"}, 'profiles["NVIDIA H100 80GB HBM3"].application_clocks is "2619,1980": '
                                          'give [memory_mhz, graphics_mhz] (whole MHz above 0), "default", or null '
                                          'to leave it'),
    ({"locked_clocks": [1980, 1410]}, 'profiles["NVIDIA H100 80GB HBM3"].locked_clocks is [1980, 1410]: min_mhz '
                                      'is above max_mhz; give [min_mhz, max_mhz] ([1410, 1410] locks one clock)'),
    ({"locked_clocks": [1410.5, 1980]}, 'profiles["NVIDIA H100 80GB HBM3"].locked_clocks is [1410.5, 1980]: give '
                                        '[min_mhz, max_mhz] (whole MHz above 0), "reset", or null to leave it'),
    ({"power_limit": 700}, 'profiles["NVIDIA H100 80GB HBM3"] has unknown keys power_limit; known keys: '
                           'power_limit_w, application_clocks, locked_clocks'),
])
def test_bad_profiles_are_refused_before_nvidia_smi(smi, config, capsys, profile, message):
    assert gt.main(["--config", config({H100: profile})]) == 2
    assert smi.calls == []
    assert capsys.readouterr().err == "configuration error: " + message + "\n"


def test_bad_documents_are_refused(smi, tmp_path, config, capsys):
    path = tmp_path / "broken.json"
    path.write_text("{")
    assert gt.main(["--config", str(path)]) == 2
    assert capsys.readouterr().err.startswith("configuration error: %s is not valid JSON (" % path)
    assert gt.main(["--config", str(tmp_path / "absent.json")]) == 2
    assert capsys.readouterr().err == ("configuration error: cannot read %s: No such file or directory; run the "
                                       "gpu_tuning role to write it\n" % (tmp_path / "absent.json"))
    assert gt.main(["--config", config(H100_PROFILE, version=2)]) == 2
    assert "has version 2; this script reads version 1" in capsys.readouterr().err
    assert gt.main(["--config", config(H100_PROFILE, persistence=True)]) == 2
    assert "has unknown keys persistence; known keys: version, persistence_mode" in capsys.readouterr().err
    assert gt.main(["--config", config(H100_PROFILE, persistence_mode="yes")]) == 2
    assert gt.main(["--config", config(H100_PROFILE), "--timeout", "0"]) == 2
    assert smi.calls == []


def test_check_config_summarises_without_nvidia_smi(smi, config, capsys):
    path = config(H100_PROFILE)
    assert gt.main(["--config", path, "--check-config"]) == 0
    assert smi.calls == []
    assert capsys.readouterr().out == ("%s is valid: NVIDIA H100 80GB HBM3: persistence mode on, power limit 700 W, "
                                       "application clocks 2619,1980 MHz\n" % path)
    path = config(H100_PROFILE, node_profile={"locked_clocks": [1410, 1410]})
    assert gt.main(["--config", path, "--check-config"]) == 0
    assert capsys.readouterr().out == ("%s is valid: every GPU gets persistence mode on, locked clocks 1410..1410 MHz\n"
                                       % path)


# ---------------------------------------------------------------------------------------------
# journald priorities
# ---------------------------------------------------------------------------------------------
def test_journald_lines_carry_their_priority(smi, config, capsys, monkeypatch):
    monkeypatch.setattr(gt, "_stderr_is_journal", lambda: True)
    smi.on(on_gpu(0, "-pl"), (4, REFUSED % BUS[0]))
    assert gt.main(["--config", config(H100_PROFILE)]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines()[0] == "<6>8 GPUs: 8 x NVIDIA H100 80GB HBM3"
    assert err.splitlines()[0].startswith("<3>FAIL " + label(0))


def test_journal_stream_is_matched_against_stderr(tmp_path, monkeypatch):
    with open(tmp_path / "stderr", "w") as handle:
        info = os.fstat(handle.fileno())
        monkeypatch.setattr(gt.sys, "stderr", handle)
        monkeypatch.setenv("JOURNAL_STREAM", "%d:%d" % (info.st_dev, info.st_ino))
        assert gt._stderr_is_journal() is True
        monkeypatch.setenv("JOURNAL_STREAM", "%d:%d" % (info.st_dev, info.st_ino + 1))
        assert gt._stderr_is_journal() is False


# ---------------------------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------------------------
clock = st.integers(min_value=1, max_value=5000)
profiles = st.fixed_dictionaries({}, optional={
    "power_limit_w": st.one_of(st.none(), st.just("default"), st.integers(1, 1000),
                               st.integers(100, 100000).map(lambda centi: centi / 100)),
    "application_clocks": st.one_of(st.none(), st.just("default"), st.tuples(clock, clock).map(list)),
    "locked_clocks": st.one_of(st.none(), st.just("reset"), st.tuples(clock, clock).map(sorted)),
})


@settings(max_examples=200, deadline=None)
@given(profile=profiles, persistence=st.sampled_from([True, False, None]))
def test_every_valid_profile_gives_one_ordered_call_per_setting(profile, persistence):
    config = gt.parse_config({"version": 1, "persistence_mode": persistence, "profiles": {H100: profile}})
    steps = gt.plan(config, gt.parse_query(QUERY_ANSWER)[0])
    wanted = [key for key in ("power_limit_w", "application_clocks", "locked_clocks") if profile.get(key) is not None]
    for _gpu, gpu_steps, profiled in steps:
        assert profiled
        assert [s.setting for s in gpu_steps] == (["persistence_mode"] if persistence is not None else []) + \
            [{"power_limit_w": "power_limit"}.get(key, key) for key in wanted]
        for step in gpu_steps:
            if step.setting == "power_limit" and profile["power_limit_w"] != "default":
                # -pl gets the same watts back, to the centiwatt.
                assert abs(float(step.args[1]) - profile["power_limit_w"]) < 0.005
            if step.setting == "locked_clocks" and profile["locked_clocks"] != "reset":
                assert step.args == ["-lgc", "%d,%d" % tuple(profile["locked_clocks"])]
