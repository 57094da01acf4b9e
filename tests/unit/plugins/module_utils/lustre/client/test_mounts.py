# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""lustre_client_mounts: systemd-escape --path, NIDs, mount units."""
from __future__ import annotations

import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.client.checks import LustreClientError
from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.client.mounts import (
    check_nid,
    mount_plan,
    mount_unit_name,
    systemd_escape_path,
)

REFERENCE = {"fsname": "training", "mgs_nids": ["10.0.0.1@o2ib", "10.0.0.2@o2ib"], "path": "/mnt/lustre"}


@pytest.mark.parametrize("path, escaped", [
    ("/", "-"),
    ("/mnt/lustre", "mnt-lustre"),
    ("/mnt/lustre/", "mnt-lustre"),            # trailing slash dropped
    ("//mnt///lustre", "mnt-lustre"),          # duplicate slashes dropped
    ("/mnt/my-fs", "mnt-my\\x2dfs"),           # - is the separator, so it is escaped
    ("/mnt/.snap", "mnt-.snap"),               # a dot is kept except as the very first character
    ("/.hidden", "\\x2ehidden"),
    ("/mnt/sp ace", "mnt-sp\\x20ace"),
    ("/mnt/ü", "mnt-\\xc3\\xbc"),              # each UTF-8 byte
    ("/lus/a:b_c.d", "lus-a:b_c.d"),
])
def test_systemd_escape_path(path, escaped):
    assert systemd_escape_path(path) == escaped


def test_escape_refuses_relative_and_dot_paths():
    with pytest.raises(LustreClientError, match="is not absolute"):
        systemd_escape_path("mnt/lustre")
    with pytest.raises(LustreClientError, match=r"has \. or \.\. components.*Use /mnt/lustre"):
        systemd_escape_path("/mnt/x/../lustre")


_PATH_PART = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=0x2FF, blacklist_characters="/\x7f"),
                     min_size=1, max_size=8).filter(lambda s: s not in (".", ".."))


@pytest.mark.skipif(shutil.which("systemd-escape") is None, reason="systemd-escape not on this machine")
@settings(max_examples=200, deadline=None)
@given(parts=st.lists(_PATH_PART, min_size=1, max_size=4))
def test_escape_agrees_with_systemd_escape(parts):
    path = "/" + "/".join(parts)
    real = subprocess.run(["systemd-escape", "--path", path], capture_output=True, text=True, check=True).stdout.strip()
    assert systemd_escape_path(path) == real


@settings(max_examples=200, deadline=None)
@given(parts=st.lists(_PATH_PART, min_size=1, max_size=4))
def test_escaped_names_have_no_separator_or_slash_from_the_path(parts):
    escaped = systemd_escape_path("/" + "/".join(parts))
    # Exactly one '-' per '/' between components; everything else is [A-Za-z0-9:_.\\x].
    assert escaped.count("-") == len(parts) - 1
    assert "/" not in escaped and " " not in escaped


def test_nids():
    assert check_nid("10.0.0.1@o2ib", "x") == {"nid": "10.0.0.1@o2ib", "address": "10.0.0.1", "net": "o2ib0"}
    assert check_nid("192.168.1.5@tcp2", "x")["net"] == "tcp2"
    for bad in ("10.0.0.256@o2ib", "10.0.0@o2ib", "10.0.0.1", "10.0.0.1@gni", "host@tcp"):
        with pytest.raises(LustreClientError):
            check_nid(bad, "mgs")


def test_reference_mount():
    [unit] = mount_plan([REFERENCE], nets=["o2ib0"])
    assert unit == {"unit": "mnt-lustre.mount", "path": "/mnt/lustre", "fsname": "training",
                    "what": "10.0.0.1@o2ib:10.0.0.2@o2ib:/training", "mgs_nids": ["10.0.0.1@o2ib", "10.0.0.2@o2ib"],
                    "options": "flock,_netdev,retry=5", "retry": 5, "timeout_s": 300}


def test_mgs_with_two_nids_per_node_and_extra_options():
    [unit] = mount_plan([dict(REFERENCE, mgs_nids=["10.0.0.1@o2ib,10.1.0.1@tcp", "10.0.0.2@o2ib,10.1.0.2@tcp"],
                              options=["localflock", "user_xattr"], retry=10, timeout_s=900)], nets=["o2ib", "tcp"],
                        flock="localflock")
    assert unit["what"] == "10.0.0.1@o2ib,10.1.0.1@tcp:10.0.0.2@o2ib,10.1.0.2@tcp:/training"
    assert unit["options"] == "localflock,user_xattr,_netdev,retry=10"   # _netdev always there
    assert unit["timeout_s"] == 900


def test_flock_is_added_when_the_options_leave_it_out():
    [unit] = mount_plan([dict(REFERENCE, options=["user_xattr"])], nets=["o2ib0"])
    assert unit["options"] == "flock,user_xattr,_netdev,retry=5"
    [unit] = mount_plan([dict(REFERENCE, options=[])], nets=["o2ib0"])
    assert unit["options"] == "flock,_netdev,retry=5"
    # the opt-out puts its own mode in, the same way
    [unit] = mount_plan([REFERENCE], nets=["o2ib0"], flock="noflock")
    assert unit["options"] == "noflock,_netdev,retry=5"


@pytest.mark.parametrize("options, flock, message", [
    (["localflock"], "flock", r"options has localflock but lustre_client_mount_flock is flock: drop localflock"),
    (["noflock", "user_xattr"], "flock", r"has noflock but lustre_client_mount_flock is flock.*"
                                         r"lustre_client_mount_flock: noflock with lustre_client_mount_flock_reason"),
    (["flock"], "localflock", r"has flock but lustre_client_mount_flock is localflock"),
    (["_netdev"], "none", r"lustre_client_mount_flock 'none' is not one of flock, localflock, noflock"),
])
def test_options_contradicting_the_locking_mode_are_refused(options, flock, message):
    with pytest.raises(LustreClientError, match=message):
        mount_plan([dict(REFERENCE, options=options)], nets=["o2ib0"], flock=flock)


@pytest.mark.parametrize("change, nets, message", [
    ({"fsname": "trainingfs"}, ["o2ib0"], r"fsname: 'trainingfs' is not allowed; expected a Lustre fsname, 1-8"),
    ({"mgs_nids": ["10.0.0.1@tcp"]}, ["o2ib0"], r"NID 10.0.0.1@tcp is on LNet network tcp0, which this client does not have \(o2ib0\)"),
    ({"mgs_nids": []}, ["o2ib0"], r"mgs_nids is empty"),
    ({"mgs_nids": ["10.0.0.1@o2ib", "10.0.0.1@o2ib0"]}, ["o2ib0"], None),   # same text after nothing: accepted
    ({"path": "mnt/lustre"}, ["o2ib0"], r"path: 'mnt/lustre' is not allowed; expected an absolute path"),
    ({"path": "/"}, ["o2ib0"], r"other than /"),
    ({"options": ["flock", "localflock"]}, ["o2ib0"], r"pick one locking mode"),
    ({"options": ["retry=3"]}, ["o2ib0"], r"is set by the role: use the mount's retry key"),
    ({"options": ["flock", "flock"]}, ["o2ib0"], r"lists 'flock' twice"),
    ({"retry": 100}, ["o2ib0"], r"retry is 100, above the maximum of 99"),
    ({"mountpoint": "/x"}, ["o2ib0"], r"has unknown key\(s\) 'mountpoint'; allowed: fsname, "),
])
def test_bad_mounts_refused(change, nets, message):
    if message is None:
        assert mount_plan([dict(REFERENCE, **change)], nets=nets)[0]["what"] == "10.0.0.1@o2ib:10.0.0.1@o2ib0:/training"
        return
    with pytest.raises(LustreClientError, match=message):
        mount_plan([dict(REFERENCE, **change)], nets=nets)


def test_two_mounts_same_or_nested_paths_refused():
    with pytest.raises(LustreClientError, match="already mounted by"):
        mount_plan([REFERENCE, dict(REFERENCE, fsname="scratch")])
    with pytest.raises(LustreClientError, match="are nested"):
        mount_plan([REFERENCE, dict(REFERENCE, fsname="scratch", path="/mnt/lustre/scratch")])
    two = mount_plan([REFERENCE, dict(REFERENCE, fsname="scratch", path="/mnt/scratch")])
    assert [m["unit"] for m in two] == ["mnt-lustre.mount", "mnt-scratch.mount"]
    assert mount_unit_name("/lustre/my-fs") == "lustre-my\\x2dfs.mount"
