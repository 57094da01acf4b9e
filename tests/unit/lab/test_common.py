# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""lab/common.py: how the lab calls podman (with lab/containers.conf) and stops when podman fails."""
from __future__ import annotations

import os
import subprocess

import pytest

import common


class FakeRun:
    """subprocess.run for podman: records argv and environment, answers one CompletedProcess."""

    def __init__(self, returncode=0, stdout="", stderr=""):
        self.answer, self.calls = (returncode, stdout, stderr), []

    def __call__(self, argv, env=None, **kwargs):
        self.calls.append((argv, env))
        return subprocess.CompletedProcess(argv, *self.answer)


def test_podman_uses_the_labs_containers_conf_and_stops_naming_what_failed(monkeypatch, capsys):
    fake = FakeRun(125, "", "network is in use\n")
    monkeypatch.setattr(common.subprocess, "run", fake)
    monkeypatch.delenv("CONTAINERS_CONF", raising=False)
    assert common.podman("network", "rm", "x", check=False).returncode == 125
    with pytest.raises(SystemExit) as exit_info:
        common.podman("network", "rm", "x")
    assert exit_info.value.code == 1
    assert capsys.readouterr().err == "lab: error: podman network rm x failed (exit 125): network is in use\n"
    assert [argv for argv, _env in fake.calls] == [["podman", "network", "rm", "x"]] * 2
    assert fake.calls[0][1]["CONTAINERS_CONF"] == os.path.join(common.ROOT, "lab", "containers.conf")
    monkeypatch.setenv("CONTAINERS_CONF", "/etc/mine.conf")  # the caller's own configuration wins
    common.podman("ps", check=False)
    assert fake.calls[-1][1]["CONTAINERS_CONF"] == "/etc/mine.conf"


def test_lab_containers_are_those_labelled_with_the_labs_name(monkeypatch):
    fake = FakeRun(0, '[{"Names": ["t-head"], "State": "running"}]\n')
    monkeypatch.setattr(common.subprocess, "run", fake)
    assert common.lab_containers("t") == [{"Names": ["t-head"], "State": "running"}]
    assert fake.calls[0][0] == ["podman", "ps", "-a", "--filter", "label=gpufleet.lab=t", "--format", "json"]
    fake.answer = (0, "", "")
    assert common.lab_containers("t") == []
