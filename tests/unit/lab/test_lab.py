# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""lab/lab.py, the CLI: `up` (its checks, whose lab it is, what it removes and makes) and `down`, with podman, the
image build and SSH replaced. The podman records are real (tests/unit/helpers/lab_owntest.py)."""
from __future__ import annotations

import json
import os
import subprocess

import pytest

import common
import images
import lab
import nodes
import ownership
from lab_owntest import CLONE, NAME, PUBLIC, PUBLIC_FP, WORKTREE, recorded


def test_computes_out_of_range_is_refused():
    with pytest.raises(SystemExit):
        lab.up("t", computes=0, logins=1, distro="debian12", inventory="/nonexistent")


class FakePodman:
    """podman for `up`: answers inspect from a recording, forgets a container once removed, records every call."""

    def __init__(self, records, volume=False):
        self.records, self.volume, self.calls = records, volume, []

    def containers(self, name):
        return [{"Names": [r["Name"]], "State": "running", "Labels": r["Config"]["Labels"]} for r in self.records]

    def __call__(self, *args, check=True, capture=True, stdin=None):
        self.calls.append(list(args))
        if args[0] == "rm":
            self.records = [r for r in self.records if r["Name"] not in args[1:]]
        if args[0] == "inspect":
            wanted = [r for r in self.records if r["Name"] in args[1:]]
            return subprocess.CompletedProcess(args, 0, json.dumps(wanted), "")
        if args[:2] == ("volume", "exists"):
            return subprocess.CompletedProcess(args, 0 if self.volume else 1, "", "")
        return subprocess.CompletedProcess(args, 0, "", "")


@pytest.fixture
def wired(tmp_path, monkeypatch):
    """lab.up with podman, the image build and SSH replaced; this checkout is /work/wt/fixtures with PUBLIC, its
    .lab is under tmp_path."""
    key = tmp_path / "id_ed25519"
    (tmp_path / "id_ed25519.pub").write_text(PUBLIC)
    monkeypatch.setattr(ownership, "ssh_key", lambda: str(key))
    monkeypatch.setattr(common, "ROOT", WORKTREE)
    monkeypatch.setattr(common, "STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setattr(ownership, "is_checkout", lambda path: path == CLONE)

    def setup(records, volume=False):
        fake = FakePodman(records, volume)
        monkeypatch.setattr(common, "podman", fake)
        monkeypatch.setattr(common, "lab_containers", fake.containers)
        return fake
    return setup


def test_up_refuses_before_building_images_or_touching_a_container(wired, monkeypatch, capsys):
    fake = wired(recorded("clone"))
    monkeypatch.setattr(images, "build_images", lambda distro: pytest.fail("build_images ran before the refusal"))
    with pytest.raises(SystemExit) as exit_info:
        lab.up(NAME, computes=1, logins=0, distro="debian12", inventory="/tmp/owntest/inv-wt")
    assert exit_info.value.code == 1
    err = capsys.readouterr().err
    assert "lab: error: lab 'gpufleet-owntest' belongs to another checkout, /tmp/owntest/clone" in err
    assert fake.calls == [["inspect", "gpufleet-owntest-head", "gpufleet-owntest-gpu01"]]


def test_up_removes_a_vanished_checkouts_lab_and_labels_what_it_makes(wired, monkeypatch, tmp_path):
    records = recorded("clone")
    for record in records:
        record["Config"]["Labels"][ownership.OWNER_LABEL] = "/tmp/owntest/deleted-clone"
    fake = wired(records, volume=True)
    made = []
    monkeypatch.setattr(images, "build_images",
                        lambda distro: made.append("image") or "localhost/gpufleet-lab-debian12:x")
    monkeypatch.setattr(nodes, "wait_for_ssh", lambda planned, key, name: None)
    lab.up(NAME, computes=1, logins=0, distro="debian12", inventory=str(tmp_path / "inv"))
    removed = [c for c in fake.calls if c[:1] == ["rm"] or c[:2] == ["volume", "rm"]]
    assert removed == [["rm", "-f", "-t", "2", "gpufleet-owntest-head"],
                       ["rm", "-f", "-t", "2", "gpufleet-owntest-gpu01"],
                       ["volume", "rm", "-f", "gpufleet-owntest-slurmctld-state"]]
    assert made == ["image"]
    runs = [c for c in fake.calls if c[0] == "run"]
    assert [c[c.index("--name") + 1] for c in runs] == ["gpufleet-owntest-head", "gpufleet-owntest-gpu01"]
    for call in runs:
        labels = [call[i + 1] for i, word in enumerate(call) if word == "--label"]
        assert "gpufleet.checkout=/work/wt/fixtures" in labels
        assert "gpufleet.key=" + PUBLIC_FP in labels
        assert "gpufleet.inventory=" + str(tmp_path / "inv") in labels


def test_down_removes_the_containers_network_volume_and_files(wired, monkeypatch, tmp_path, capsys):
    fake = wired(recorded("worktree"), volume=True)
    monkeypatch.setattr(common, "ROOT", str(tmp_path))  # down clears <checkout>/.cache/facts
    inv, facts = tmp_path / "inv", tmp_path / ".cache" / "facts"
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / (NAME + ".json")).write_text("{}")
    inv.mkdir()
    (inv / "hosts.yml").write_text("all: {}\n")
    facts.mkdir(parents=True)
    lab.down(NAME, str(inv))
    assert [c for c in fake.calls if "exists" not in c] == [
        ["rm", "-f", "-t", "2", "gpufleet-owntest-head", "gpufleet-owntest-gpu01"],
        ["network", "rm", "-f", NAME], ["volume", "rm", "-f", NAME + "-slurmctld-state"]]
    assert not fake.records and os.listdir(tmp_path / "state") == [] and os.listdir(inv) == []
    assert not facts.exists()
    assert capsys.readouterr().out.splitlines()[-1] == "lab: lab 'gpufleet-owntest' is down"


def test_ssh_key_prints_the_labs_key(wired, capsys):
    assert lab.main(["ssh-key"]) == 0
    path = capsys.readouterr().out.strip()
    assert path.endswith("id_ed25519") and ownership.public_key_fingerprint(path) == PUBLIC_FP


def test_gpu_stand_ins_go_to_gpu_nodes_only(wired, monkeypatch, capsys):
    wired(recorded("worktree"))
    installed = []
    monkeypatch.setattr(nodes, "install_gpu_stand_ins", installed.append)
    assert lab.main(["gpu-stand-ins", "--name", NAME, "gpu01"]) == 0
    assert installed == ["gpufleet-owntest-gpu01"]
    assert "gpu01: /dev/nvidia0..7 (links to /dev/null) from now and at every boot" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        lab.main(["gpu-stand-ins", "--name", NAME, "head"])
    assert "head is not a GPU node of the lab 'gpufleet-owntest'" in capsys.readouterr().err
    assert installed == ["gpufleet-owntest-gpu01"]


class RacingPodman(FakePodman):
    """The first `rm` of a container that exits on its own while podman escalates to SIGKILL: podman fails and
    leaves it stopped (podman's own message); `failures` more removals fail the same way."""

    def __init__(self, records, failures=0):
        super().__init__(records)
        self.failures = failures + 1

    def __call__(self, *args, check=True, capture=True, stdin=None):
        if args[0] == "rm" and self.failures > 0:
            self.failures -= 1
            self.calls.append(list(args))
            self.records = self.records[:1]  # the first container stays behind, stopped
            stderr = ("Error: cannot remove container 23d315fa4d4a as it could not be stopped: sending SIGKILL to "
                      "container 23d315fa4d4a: container state improper: stopped\n")
            if check:
                common.die("podman %s failed (exit 2): %s" % (" ".join(args), stderr.strip()))
            return subprocess.CompletedProcess(args, 2, "", stderr)
        return super().__call__(*args, check=check, capture=capture, stdin=stdin)


def _racing(wired, monkeypatch, tmp_path, failures):
    fake = RacingPodman(recorded("worktree"), failures)
    wired([])  # the fixture's other replacements
    monkeypatch.setattr(common, "podman", fake)
    monkeypatch.setattr(common, "lab_containers", fake.containers)
    monkeypatch.setattr(common, "ROOT", str(tmp_path))
    monkeypatch.setattr(lab.time, "sleep", lambda _seconds: None)
    (tmp_path / "inv").mkdir()
    return fake


def test_down_removes_a_container_left_stopped_by_podmans_race_again(wired, monkeypatch, tmp_path, capsys):
    fake = _racing(wired, monkeypatch, tmp_path, failures=0)
    lab.down(NAME, str(tmp_path / "inv"))
    removals = [c for c in fake.calls if c[0] == "rm"]
    assert removals == [["rm", "-f", "-t", "2", "gpufleet-owntest-head", "gpufleet-owntest-gpu01"],
                        ["rm", "-f", "-t", "2", "gpufleet-owntest-head"]]
    assert not fake.records
    assert "removing gpufleet-owntest-head again" in capsys.readouterr().out


def test_down_fails_loudly_when_the_second_removal_fails_too(wired, monkeypatch, tmp_path):
    fake = _racing(wired, monkeypatch, tmp_path, failures=1)
    with pytest.raises(SystemExit):
        lab.down(NAME, str(tmp_path / "inv"))
    assert fake.records and [c for c in fake.calls if c[0] == "network"] == []
