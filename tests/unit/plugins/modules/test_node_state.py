# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""gpufleet.cluster.node_state: packages, units, paths and device files read in one call, from recorded outputs."""
import grp
import os
import pwd

import pytest
from ansible.module_utils.basic import AnsibleModule
from ansible_collections.gpufleet.cluster.plugins.modules import node_state as module
from hypothesis import given, settings
from hypothesis import strategies as st

from module_results import assert_options_match_spec, run_module_main
from nasty_input import hostile_text, near_valid
from reference import FIXTURES as _FIXTURES


def recorded(*parts):
    with open(os.path.join(_FIXTURES, *parts), encoding="utf-8") as handle:
        return handle.read()


HEAD_UNITS = recorded("systemd", "show-state.lab-head.debian12.txt")
GPU_UNITS = recorded("systemd", "show-state.lab-gpu-slurmd-disabled.debian12.txt")
HEAD_DPKG = recorded("dpkg", "show-status-version.slurm-head.debian12.txt")
AUTH_SHA256 = "ca14e26d1a85b925848b1818135e460822a9cf03d1d050406033da5e0337adf7"


class FakeCommands:
    """Stands in for AnsibleModule.run_command: one answer per program, every argv kept."""

    def __init__(self, answers):
        self.answers = answers
        self.calls = []

    def __call__(self, argv):
        self.calls.append(list(argv))
        return self.answers[os.path.basename(argv[0])]


def fake_commands(monkeypatch, answers):
    fake = FakeCommands(answers)
    monkeypatch.setattr(AnsibleModule, "run_command", lambda _self, argv, **_kwargs: fake(argv))
    monkeypatch.setattr(AnsibleModule, "get_bin_path", lambda _self, name, required=False: "/usr/bin/" + name)
    return fake


@pytest.fixture
def commands(monkeypatch):
    return fake_commands(monkeypatch, {})


def test_docs_match_the_argument_spec():
    doc = assert_options_match_spec(module)
    assert doc["attributes"]["check_mode"]["support"] == "full"


def test_units_of_the_recorded_controller(run_main, commands):
    commands.answers["systemctl"] = (0, HEAD_UNITS, "")
    result = run_main(module, {"units": ["munge", "mariadb", "slurmdbd", "slurmctld", "slurmd"]})
    running = {"load": "loaded", "active": "active", "sub": "running", "enabled": "enabled"}
    assert result["units"] == {"munge": running, "mariadb": running, "slurmdbd": running, "slurmctld": running,
                               "slurmd": {"load": "not-found", "active": "inactive", "sub": "dead", "enabled": ""}}
    assert result["changed"] is False
    assert commands.calls == [["/usr/bin/systemctl", "show", "--property=LoadState,ActiveState,SubState,UnitFileState",
                               "--", "munge", "mariadb", "slurmdbd", "slurmctld", "slurmd"]]


def test_a_disabled_stopped_unit_is_told_apart(run_main, commands):
    commands.answers["systemctl"] = (0, GPU_UNITS, "")
    result = run_main(module, {"units": ["munge", "slurmd", "slurmctld"]})
    assert result["units"]["slurmd"] == {"load": "loaded", "active": "inactive", "sub": "dead", "enabled": "disabled"}
    assert result["units"]["munge"]["enabled"] == "enabled" and result["units"]["slurmctld"]["load"] == "not-found"


def test_installed_packages_with_their_versions_and_the_missing_left_out(run_main, commands):
    commands.answers["dpkg-query"] = (1, HEAD_DPKG, "dpkg-query: no packages found matching slurmd\n")
    result = run_main(module, {"packages": ["slurmctld", "munge", "slurmd", "mariadb-server"]})
    assert result["packages"] == {"slurmctld": "22.05.8-4+deb12u3", "munge": "0.5.15-2+deb12u1",
                                  "mariadb-server": "1:10.11.19-0+deb12u1"}
    argv = commands.calls[0]
    assert argv[:2] == ["/usr/bin/dpkg-query", "--show"]
    assert argv[2] == "--showformat=${Package} ${db:Status-Status} ${Version}\n"
    assert argv[3:] == ["slurmctld", "munge", "slurmd", "mariadb-server"]


def test_nothing_asked_runs_nothing(run_main, commands):
    result = run_main(module, {})
    assert result["packages"] == {} and result["units"] == {} and result["paths"] == {} and result["globs"] == {}
    assert commands.calls == []


def test_paths_and_globs(run_main, commands, tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    os.chmod(state, 0o750)
    for name in ("nvidia1", "nvidia0", "nvidiactl", "nvidia-uvm"):
        (tmp_path / name).write_text("")
    (tmp_path / "conf").write_text("AuthType=auth/munge\n")
    os.chmod(tmp_path / "conf", 0o600)
    result = run_main(module, {"paths": [str(state), str(tmp_path / "absent"), str(tmp_path / "nvidia0"),
                                         str(tmp_path / "conf")],
                               "globs": [str(tmp_path / "nvidia[0-9]*"), str(tmp_path / "none*")]})
    assert result["paths"][str(state)] == {"exists": True, "isdir": True, "mode": "0750",
                                           "owner": pwd.getpwuid(os.getuid()).pw_name,
                                           "group": grp.getgrgid(os.getgid()).gr_name}
    assert result["paths"][str(tmp_path / "absent")] == {"exists": False, "isdir": False}
    # sha256 of the empty file, and of "AuthType=auth/munge\n" (sha256sum, by hand)
    assert result["paths"][str(tmp_path / "nvidia0")]["sha256"] == (
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    assert result["paths"][str(tmp_path / "conf")] == {
        "exists": True, "isdir": False, "mode": "0600", "sha256": AUTH_SHA256,
        "owner": pwd.getpwuid(os.getuid()).pw_name, "group": grp.getgrgid(os.getgid()).gr_name}
    assert result["globs"] == {str(tmp_path / "nvidia[0-9]*"): [str(tmp_path / "nvidia0"), str(tmp_path / "nvidia1")],
                               str(tmp_path / "none*"): []}
    assert commands.calls == []


def test_systemctl_printing_fewer_blocks_than_units_fails_clearly(run_main, commands):
    commands.answers["systemctl"] = (0, GPU_UNITS, "")
    result = run_main(module, {"units": ["munge", "slurmd"]})
    assert result["failed"] is True
    assert "3 blocks of properties for 2 units (munge, slurmd)" in result["msg"]


@pytest.mark.parametrize("program, answer, expected", [
    ("systemctl", (1, "", "Failed to connect to bus: No such file or directory\n"),
     "node_state: systemctl show munge failed (exit 1): Failed to connect to bus"),
    ("dpkg-query", (2, "", "dpkg-query: error: --show needs a valid format\n"),
     "node_state: /usr/bin/dpkg-query --show --showformat=${Package} ${db:Status-Status} ${Version}\n failed (exit 2)"),
    ("dpkg-query", (0, "munge installed\n", ""), "an installed package without a version"),
])
def test_a_failing_program_fails_with_its_message(run_main, commands, program, answer, expected):
    commands.answers[program] = answer
    result = run_main(module, {"units": ["munge"]} if program == "systemctl" else {"packages": ["munge"]})
    assert result["failed"] is True and expected in result["msg"]


@pytest.mark.parametrize("args, field", [
    ({"packages": ["Slurmd"]}, "packages[0]"),
    ({"packages": ["slurmd", "-x"]}, "packages[1]"),
    ({"units": ["--user"]}, "units[0]"),
    ({"units": ["slurmd\n"]}, "units[0]"),
    ({"paths": ["relative/path"]}, "paths[0]"),
    ({"paths": ["/etc/../root"]}, "paths[0]"),
    ({"globs": ["/dev/../nvidia*"]}, "globs[0]"),
    ({"globs": ["nvidia*"]}, "globs[0]"),
])
def test_refuses_what_is_not_a_name_or_an_absolute_path(run_main, commands, args, field):
    result = run_main(module, args)
    assert result["failed"] is True
    assert result["msg"].startswith("node_state: refusing to read: " + field)
    assert commands.calls == []


@settings(max_examples=200, deadline=None)
@given(kind=st.sampled_from(["packages", "units", "globs"]),
       value=st.one_of(hostile_text(1), near_valid(st.sampled_from(["slurmd", "munge", "/dev/nvidia[0-9]*"]))))
def test_hostile_names_are_refused_or_passed_whole(kind, value):
    answers = {"systemctl": (0, "LoadState=not-found\nActiveState=inactive\nSubState=dead\nUnitFileState=\n", ""),
               "dpkg-query": (1, "", "")}
    with pytest.MonkeyPatch.context() as monkeypatch:
        fake = fake_commands(monkeypatch, answers)
        result = run_module_main(module, {kind: [value]})
    if result.get("failed"):
        assert result["msg"].startswith("node_state: refusing to read: %s[0]: %r is not allowed" % (kind, value))
        assert fake.calls == []
    else:
        assert all(ord(char) >= 32 for char in value) and not value.startswith("-")
        assert list(result[kind]) in ([value], []) and all(call[-1] == value for call in fake.calls)
