# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""lab/ownership.py: whose lab is running under a name, decided from `podman inspect` of its containers.

The records are real (tests/unit/helpers/lab_owntest.py). Variants (labels taken out, as lab.py wrote them before
it recorded its owner) are made from them in the tests and said so."""
from __future__ import annotations

import copy
import os

import common
import ownership
from lab_owntest import CLONE, CLONE_KEY, NAME, PUBLIC, PUBLIC_FP, WORKTREE, WORKTREE_KEY
from lab_owntest import recorded


def _unlabelled(records):
    """SYNTHETIC: the records as a lab.py older than the owner labels made them (same mounts, no labels)."""
    records = copy.deepcopy(records)
    for record in records:
        for label in (ownership.OWNER_LABEL, ownership.KEY_LABEL, ownership.INVENTORY_LABEL):
            del record["Config"]["Labels"][label]
    return records


def _never_read(cname):
    raise AssertionError("read %s although its labels name its key" % cname)


def _decide(records, checkout=WORKTREE, key=WORKTREE_KEY, living=(), read=_never_read):
    return ownership.lab_ownership(NAME, records, checkout, key, read=read, exists=lambda path: path in living)


def test_fingerprint_is_what_ssh_keygen_prints():
    assert ownership.key_fingerprint(PUBLIC) == PUBLIC_FP
    assert ownership.key_fingerprint(PUBLIC.replace(" t\n", "")) == PUBLIC_FP  # the comment is not part of it
    for text in ["", "ssh-ed25519", "ssh-ed25519 not*base64 t", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKja=x t"]:
        assert ownership.key_fingerprint(text) is None, text


def test_the_recorded_containers_name_their_checkout_key_and_inventory():
    owners = [ownership.container_owner(record, read=_never_read) for record in recorded("clone")]
    assert [(o.container, o.checkout, o.key, o.inventory) for o in owners] == [
        ("gpufleet-owntest-head", CLONE, CLONE_KEY, "/tmp/owntest/inv-clone"),
        ("gpufleet-owntest-gpu01", CLONE, CLONE_KEY, "/tmp/owntest/inv-clone")]


def test_older_containers_are_known_by_their_mount_and_the_key_inside_them():
    asked = []

    def read(cname):
        asked.append(cname)
        return "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKjaODi9EsgNCHx8BmJ4LG/z8GKNYwPEa1bqcOM+47h6 gpufleet-lab\n"

    owner = ownership.container_owner(_unlabelled(recorded("clone"))[0], read=read)
    assert (owner.checkout, owner.key, owner.inventory) == (CLONE, PUBLIC_FP, None)  # <clone>/.lab/ssh/id_ed25519.pub
    assert asked == ["gpufleet-owntest-head"]  # the key inside the container, not the file on the host
    stopped = ownership.container_owner(_unlabelled(recorded("clone"))[0], read=lambda cname: None)
    assert (stopped.checkout, stopped.key) == (CLONE, None)


def test_no_containers_and_this_checkouts_own_lab_are_reused():
    assert _decide([]).action == "reuse"
    verdict = _decide(recorded("worktree"))
    assert (verdict.action, verdict.reason) == ("reuse", "lab 'gpufleet-owntest' belongs to this checkout")


def test_another_checkout_that_exists_is_refused_with_the_commands_that_take_it_down():
    verdict = _decide(recorded("clone"), living=(CLONE,))
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
    records = recorded("clone")
    for record in records:
        record["Config"]["Labels"][ownership.INVENTORY_LABEL] = CLONE + "/inventories/lab"
    verdict = _decide(records, living=(CLONE,))
    assert "python3 /tmp/owntest/clone/lab/lab.py down --name gpufleet-owntest\n" in verdict.reason


def test_a_checkout_gone_from_disk_is_re_created_with_its_state_volume():
    verdict = _decide(recorded("clone"), living=())
    assert (verdict.action, verdict.remove_state) == ("recreate", True)
    assert verdict.reason == ("lab 'gpufleet-owntest' was made by /tmp/owntest/clone, which no longer exists: "
                              "re-creating its containers for this checkout")


def test_one_container_of_a_living_checkout_among_ours_is_enough_to_refuse():
    mixed = [recorded("worktree")[0], recorded("clone")[1]]
    verdict = _decide(mixed, living=(CLONE,))
    assert verdict.action == "refuse"
    assert "podman rm -f gpufleet-owntest-gpu01 gpufleet-owntest-head\n" in verdict.reason


def test_this_checkout_with_a_new_key_re_creates_its_lab_and_keeps_the_state():
    # Clone deleted and cloned again at the same path: same checkout, a new .lab/ssh key.
    verdict = _decide(recorded("worktree"), key=PUBLIC_FP)
    assert (verdict.action, verdict.remove_state) == ("recreate", False)
    assert verdict.reason == ("gpufleet-owntest-gpu01, gpufleet-owntest-head let in another SSH key than this "
                              "checkout's SHA256:9KeUdKq1BXmMaZu5AnhBQf6tWkXY+r0sHS5DgzBt1Ho (.lab/ssh was made "
                              "again?): re-creating lab 'gpufleet-owntest'")


def test_the_same_checkout_through_a_link_is_this_checkout(tmp_path):
    real = tmp_path / "checkout"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    records = recorded("worktree")
    for record in records:
        record["Config"]["Labels"][ownership.OWNER_LABEL] = str(real)
    assert ownership.lab_ownership(NAME, records, str(tmp_path / "link"), WORKTREE_KEY, read=_never_read,
                                   exists=lambda path: True).action == "reuse"


def test_older_containers_of_this_checkout_are_reused_only_with_this_key():
    older = _unlabelled(recorded("worktree"))
    assert _decide(older, key=PUBLIC_FP, read=lambda cname: PUBLIC).action == "reuse"
    assert _decide(older, key=WORKTREE_KEY, read=lambda cname: PUBLIC).action == "recreate"
    assert _decide(older, read=lambda cname: None).action == "recreate"  # stopped: the key cannot be read


def test_containers_without_any_owner_record_are_re_created():
    records = _unlabelled(recorded("worktree"))
    for record in records:
        record["Mounts"] = [m for m in record["Mounts"] if m["Destination"] != ownership.AUTHORIZED_KEYS]
    verdict = _decide(records, read=lambda cname: None)
    assert verdict.action == "recreate"
    assert verdict.reason.startswith("gpufleet-owntest-gpu01, gpufleet-owntest-head: no record of the checkout")


def test_the_labels_up_sets_are_what_container_owner_reads_back(tmp_path, monkeypatch):
    monkeypatch.setattr(common, "ROOT", str(tmp_path))
    args = ownership.labels(PUBLIC_FP, str(tmp_path / "inv"))
    assert args[::2] == ["--label"] * 3
    record = {"Name": "/gpufleet-owntest-head", "Config": {"Labels": dict(arg.split("=", 1) for arg in args[1::2])}}
    owner = ownership.container_owner(record, read=_never_read)
    assert (owner.container, owner.checkout, owner.key, owner.inventory) == (
        "gpufleet-owntest-head", os.path.realpath(tmp_path), PUBLIC_FP, str(tmp_path / "inv"))
