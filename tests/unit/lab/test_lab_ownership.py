# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""lab/lab.py: whose lab is running under a name, decided from `podman inspect` of its containers.

The records are real (tests/fixtures/lab, podman 4.3.1, 2026-11-26): a lab `gpufleet-owntest` made by a clone
at /tmp/owntest/clone, and the same lab re-created by the checkout /work/wt/fixtures. Variants (labels taken
out, as lab.py wrote them before it recorded its owner) are made from them in the tests and said so."""
import copy
import importlib.util
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "lab")

_spec = importlib.util.spec_from_file_location("gpufleet_lab_ownership", os.path.join(ROOT, "lab", "lab.py"))
lab = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = lab  # dataclasses look their module up while it loads
_spec.loader.exec_module(lab)

NAME = "gpufleet-owntest"
CLONE = "/tmp/owntest/clone"
WORKTREE = "/work/wt/fixtures"
CLONE_KEY = "SHA256:E/9PrI7gMDC3St0g23Twmqdg3MK1do2I7dME4JdfOkk"
WORKTREE_KEY = "SHA256:dXhCrIktge5Ng6URpCikPeWRwIEJzexsgollryJ17yg"
# A key made with `ssh-keygen -t ed25519 -C t`; `ssh-keygen -lf` printed
# "256 SHA256:9KeUdKq1BXmMaZu5AnhBQf6tWkXY+r0sHS5DgzBt1Ho t (ED25519)" for it.
PUBLIC = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKjaODi9EsgNCHx8BmJ4LG/z8GKNYwPEa1bqcOM+47h6 t\n"
PUBLIC_FP = "SHA256:9KeUdKq1BXmMaZu5AnhBQf6tWkXY+r0sHS5DgzBt1Ho"


def _inspect(which):
    with open(os.path.join(FIXTURES, "podman-inspect.owntest-%s.json" % which), encoding="utf-8") as handle:
        return json.load(handle)


def _unlabelled(records):
    """SYNTHETIC: the records as a lab.py older than the owner labels made them (same mounts, no labels)."""
    records = copy.deepcopy(records)
    for record in records:
        for label in (lab.OWNER_LABEL, lab.KEY_LABEL, lab.INVENTORY_LABEL):
            del record["Config"]["Labels"][label]
    return records


def _never_read(cname):
    raise AssertionError("read %s although its labels name its key" % cname)


def _decide(records, checkout=WORKTREE, key=WORKTREE_KEY, living=(), read=_never_read):
    return lab.lab_ownership(NAME, records, checkout, key, read=read, exists=lambda path: path in living)


def test_fingerprint_is_what_ssh_keygen_prints():
    assert lab.key_fingerprint(PUBLIC) == PUBLIC_FP
    assert lab.key_fingerprint(PUBLIC.replace(" t\n", "")) == PUBLIC_FP  # the comment is not part of it
    for text in ["", "ssh-ed25519", "ssh-ed25519 not*base64 t", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKja=x t"]:
        assert lab.key_fingerprint(text) is None, text


def test_the_recorded_containers_name_their_checkout_key_and_inventory():
    owners = [lab.container_owner(record, read=_never_read) for record in _inspect("clone")]
    assert [(o.container, o.checkout, o.key, o.inventory) for o in owners] == [
        ("gpufleet-owntest-head", CLONE, CLONE_KEY, "/tmp/owntest/inv-clone"),
        ("gpufleet-owntest-gpu01", CLONE, CLONE_KEY, "/tmp/owntest/inv-clone")]


def test_older_containers_are_known_by_their_mount_and_the_key_inside_them():
    asked = []

    def read(cname):
        asked.append(cname)
        return "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKjaODi9EsgNCHx8BmJ4LG/z8GKNYwPEa1bqcOM+47h6 gpufleet-lab\n"

    owner = lab.container_owner(_unlabelled(_inspect("clone"))[0], read=read)
    assert (owner.checkout, owner.key, owner.inventory) == (CLONE, PUBLIC_FP, None)  # <clone>/.lab/ssh/id_ed25519.pub
    assert asked == ["gpufleet-owntest-head"]  # the key inside the container, not the file on the host
    stopped = lab.container_owner(_unlabelled(_inspect("clone"))[0], read=lambda cname: None)
    assert (stopped.checkout, stopped.key) == (CLONE, None)


def test_no_containers_and_this_checkouts_own_lab_are_reused():
    assert _decide([]).action == "reuse"
    verdict = _decide(_inspect("worktree"))
    assert (verdict.action, verdict.reason) == ("reuse", "lab 'gpufleet-owntest' belongs to this checkout")


def test_another_checkout_that_exists_is_refused_with_the_commands_that_take_it_down():
    verdict = _decide(_inspect("clone"), living=(CLONE,))
    assert verdict.action == "refuse" and verdict.owner.checkout == CLONE and not verdict.remove_state
    assert verdict.reason == (
        "lab 'gpufleet-owntest' belongs to another checkout, /tmp/owntest/clone: its containers let in that "
        "checkout's SSH key (SHA256:E/9PrI7gMDC3St0g23Twmqdg3MK1do2I7dME4JdfOkk), not this one's "
        "(SHA256:dXhCrIktge5Ng6URpCikPeWRwIEJzexsgollryJ17yg). Either\n"
        "  take it down from that checkout:   python3 /tmp/owntest/clone/lab/lab.py down --name gpufleet-owntest "
        "--inventory /tmp/owntest/inv-clone\n"
        "  or remove its containers:          podman rm -f gpufleet-owntest-gpu01 gpufleet-owntest-head\n"
        "  or use another lab name here:      lab/lab.py up --name NAME (make demo: LAB_NAME=NAME)")


def test_the_owners_default_inventory_is_not_repeated_in_the_command():
    records = _inspect("clone")
    for record in records:
        record["Config"]["Labels"][lab.INVENTORY_LABEL] = CLONE + "/inventories/lab"
    verdict = _decide(records, living=(CLONE,))
    assert "python3 /tmp/owntest/clone/lab/lab.py down --name gpufleet-owntest\n" in verdict.reason


def test_a_checkout_gone_from_disk_is_re_created_with_its_state_volume():
    verdict = _decide(_inspect("clone"), living=())
    assert (verdict.action, verdict.remove_state) == ("recreate", True)
    assert verdict.reason == ("lab 'gpufleet-owntest' was made by /tmp/owntest/clone, which no longer exists: "
                              "re-creating its containers for this checkout")


def test_one_container_of_a_living_checkout_among_ours_is_enough_to_refuse():
    mixed = [_inspect("worktree")[0], _inspect("clone")[1]]
    verdict = _decide(mixed, living=(CLONE,))
    assert verdict.action == "refuse"
    assert "podman rm -f gpufleet-owntest-gpu01 gpufleet-owntest-head\n" in verdict.reason


def test_this_checkout_with_a_new_key_re_creates_its_lab_and_keeps_the_state():
    # Clone deleted and cloned again at the same path: same checkout, a new .lab/ssh key.
    verdict = _decide(_inspect("worktree"), key=PUBLIC_FP)
    assert (verdict.action, verdict.remove_state) == ("recreate", False)
    assert verdict.reason == ("gpufleet-owntest-gpu01, gpufleet-owntest-head let in another SSH key than this "
                              "checkout's SHA256:9KeUdKq1BXmMaZu5AnhBQf6tWkXY+r0sHS5DgzBt1Ho (.lab/ssh was made "
                              "again?): re-creating lab 'gpufleet-owntest'")


def test_the_same_checkout_through_a_link_is_this_checkout(tmp_path):
    real = tmp_path / "checkout"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    records = _inspect("worktree")
    for record in records:
        record["Config"]["Labels"][lab.OWNER_LABEL] = str(real)
    assert lab.lab_ownership(NAME, records, str(tmp_path / "link"), WORKTREE_KEY, read=_never_read,
                             exists=lambda path: True).action == "reuse"


def test_older_containers_of_this_checkout_are_reused_only_with_this_key():
    older = _unlabelled(_inspect("worktree"))
    assert _decide(older, key=PUBLIC_FP, read=lambda cname: PUBLIC).action == "reuse"
    assert _decide(older, key=WORKTREE_KEY, read=lambda cname: PUBLIC).action == "recreate"
    assert _decide(older, read=lambda cname: None).action == "recreate"  # stopped: the key cannot be read


def test_containers_without_any_owner_record_are_re_created():
    records = _unlabelled(_inspect("worktree"))
    for record in records:
        record["Mounts"] = [m for m in record["Mounts"] if m["Destination"] != lab.AUTHORIZED_KEYS]
    verdict = _decide(records, read=lambda cname: None)
    assert verdict.action == "recreate"
    assert verdict.reason.startswith("gpufleet-owntest-gpu01, gpufleet-owntest-head: no record of the checkout")


class FakePodman:
    """podman for `up`: answers inspect from a recording, forgets a container once removed, records every call."""

    def __init__(self, records, volume=False):
        self.records, self.volume, self.calls = records, volume, []

    def containers(self, name):
        return [{"Names": [r["Name"]], "State": "running", "Labels": r["Config"]["Labels"]} for r in self.records]

    def __call__(self, *args, check=True, capture=True, stdin=None):
        self.calls.append(list(args))
        if args[0] == "rm":
            self.records = [r for r in self.records if r["Name"] != args[-1]]
        if args[0] == "inspect":
            wanted = [r for r in self.records if r["Name"] in args[1:]]
            return subprocess.CompletedProcess(args, 0, json.dumps(wanted), "")
        if args[:2] == ("volume", "exists"):
            return subprocess.CompletedProcess(args, 0 if self.volume else 1, "", "")
        return subprocess.CompletedProcess(args, 0, "", "")


@pytest.fixture
def wired(tmp_path, monkeypatch):
    """lab.up with podman, the image build and SSH replaced; this checkout is /work/wt/fixtures with PUBLIC."""
    key = tmp_path / "id_ed25519"
    (tmp_path / "id_ed25519.pub").write_text(PUBLIC)
    monkeypatch.setattr(lab, "ssh_key", lambda: str(key))
    monkeypatch.setattr(lab, "ROOT", WORKTREE)
    monkeypatch.setattr(lab, "is_checkout", lambda path: path == CLONE)

    def setup(records, volume=False):
        fake = FakePodman(records, volume)
        monkeypatch.setattr(lab, "podman", fake)
        monkeypatch.setattr(lab, "lab_containers", fake.containers)
        return fake
    return setup


def test_up_refuses_before_building_images_or_touching_a_container(wired, monkeypatch, capsys):
    fake = wired(_inspect("clone"))
    monkeypatch.setattr(lab, "build_images", lambda distro: pytest.fail("build_images ran before the refusal"))
    with pytest.raises(SystemExit) as exit_info:
        lab.up(NAME, computes=1, logins=0, distro="debian12", inventory="/tmp/owntest/inv-wt")
    assert exit_info.value.code == 1
    assert "lab: error: lab 'gpufleet-owntest' belongs to another checkout, /tmp/owntest/clone" in capsys.readouterr().err
    assert fake.calls == [["inspect", "gpufleet-owntest-head", "gpufleet-owntest-gpu01"]]


def test_up_removes_a_vanished_checkouts_lab_and_labels_what_it_makes(wired, monkeypatch, tmp_path):
    records = _inspect("clone")
    for record in records:
        record["Config"]["Labels"][lab.OWNER_LABEL] = "/tmp/owntest/deleted-clone"
    fake = wired(records, volume=True)
    made = []
    monkeypatch.setattr(lab, "build_images", lambda distro: made.append("image") or "localhost/gpufleet-lab-debian12:x")
    monkeypatch.setattr(lab, "wait_for_ssh", lambda nodes, key, name: None)
    monkeypatch.setattr(lab, "STATE_DIR", str(tmp_path / "state"))
    lab.up(NAME, computes=1, logins=0, distro="debian12", inventory=str(tmp_path / "inv"))
    removed = [c for c in fake.calls if c[:1] == ["rm"] or c[:2] == ["volume", "rm"]]
    assert removed == [["rm", "-f", "-t", "2", "gpufleet-owntest-head"], ["rm", "-f", "-t", "2", "gpufleet-owntest-gpu01"],
                       ["volume", "rm", "-f", "gpufleet-owntest-slurmctld-state"]]
    assert made == ["image"]
    runs = [c for c in fake.calls if c[0] == "run"]
    assert [c[c.index("--name") + 1] for c in runs] == ["gpufleet-owntest-head", "gpufleet-owntest-gpu01"]
    for call in runs:
        labels = [call[i + 1] for i, word in enumerate(call) if word == "--label"]
        assert "gpufleet.checkout=/work/wt/fixtures" in labels
        assert "gpufleet.key=" + PUBLIC_FP in labels
        assert "gpufleet.inventory=" + str(tmp_path / "inv") in labels
