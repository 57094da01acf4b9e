# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""common.final_mode_write: the file has its final mode and owner before its first byte, and replaces dest whole."""
import grp
import os
import pwd
import stat

import pytest
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.final_mode_write import (
    account_id,
    write_with_final_mode,
)
from hypothesis import given, settings
from hypothesis import strategies as st


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def watch(monkeypatch):
    """The mode of the file at its first byte and at the rename, and every chmod of a path."""
    seen = {"first_byte": [], "rename": [], "chmod": []}
    real_write, real_replace, real_chmod = os.write, os.replace, os.chmod

    def write(fd, data):
        info = os.fstat(fd)
        seen["first_byte"].append((stat.S_IMODE(info.st_mode), info.st_size, info.st_uid))
        return real_write(fd, data)

    def replace(src, dst):
        with open(src, "rb") as handle:
            seen["rename"].append((_mode(src), handle.read()))
        return real_replace(src, dst)
    monkeypatch.setattr(os, "write", write)
    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(os, "chmod", lambda path, *a, **k: (seen["chmod"].append(path), real_chmod(path, *a, **k)))
    return seen


@pytest.mark.parametrize("mode", [0o600, 0o400, 0o640, 0o644])
def test_the_mode_is_final_before_the_first_byte_and_at_the_rename(tmp_path, watch, mode):
    dest = tmp_path / "munge.key"
    old_umask = os.umask(0o022)
    try:
        write_with_final_mode(str(dest), b"\x00secret\xff", mode, os.getuid(), os.getgid())
    finally:
        os.umask(old_umask)
    assert watch["first_byte"] == [(mode, 0, os.getuid())]
    assert watch["rename"] == [(mode, b"\x00secret\xff")]
    assert watch["chmod"] == [] and _mode(dest) == mode and dest.read_bytes() == b"\x00secret\xff"
    assert os.listdir(tmp_path) == ["munge.key"]  # no temporary file left behind


def test_an_existing_readable_file_is_replaced_never_rewritten_in_place(tmp_path, watch):
    dest = tmp_path / "slurmdbd.conf"
    dest.write_text("StoragePass=old\n")
    os.chmod(dest, 0o644)
    inode = os.stat(dest).st_ino
    write_with_final_mode(str(dest), b"StoragePass=new\n", 0o600, os.getuid(), os.getgid())
    # A new inode: a reader holding the old file never sees the new password through it, and the new file was
    # never 0644.
    assert os.stat(dest).st_ino != inode and _mode(dest) == 0o600 and watch["first_byte"][0][0] == 0o600


def test_a_failure_leaves_dest_as_it_was_and_no_temporary_file(tmp_path, monkeypatch):
    dest = tmp_path / "f"
    dest.write_bytes(b"old")

    def refuse(fd, data):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "write", refuse)
    with pytest.raises(OSError, match="No space left on device"):
        write_with_final_mode(str(dest), b"new", 0o600, os.getuid(), os.getgid())
    assert dest.read_bytes() == b"old" and os.listdir(tmp_path) == ["f"]


def test_a_chown_to_someone_else_is_asked_of_the_kernel(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(os, "fchown", lambda fd, uid, gid: calls.append((os.fstat(fd).st_size, uid, gid)))
    write_with_final_mode(str(tmp_path / "f"), b"x", 0o600, os.getuid() + 1, os.getgid() + 1)
    assert calls == [(0, os.getuid() + 1, os.getgid() + 1)]  # on the empty file, before the content


@settings(max_examples=30, deadline=None)
@given(data=st.binary(max_size=200_000), mode=st.integers(min_value=0o400, max_value=0o777))
def test_any_content_arrives_whole(tmp_path_factory, data, mode):
    dest = tmp_path_factory.mktemp("w") / "f"
    write_with_final_mode(str(dest), data, mode, os.getuid(), os.getgid())
    assert dest.read_bytes() == data and _mode(dest) == mode


def test_account_id_reads_names_and_numbers():
    me, my_group = pwd.getpwuid(os.getuid()).pw_name, grp.getgrgid(os.getgid()).gr_name
    assert account_id(me, "user") == os.getuid() and account_id(my_group, "group") == os.getgid()
    assert account_id("4242", "user") == 4242 and account_id(None, "group") is None


@pytest.mark.parametrize("kind", ["user", "group"])
def test_account_id_names_an_account_the_node_lacks(kind):
    with pytest.raises(OSError, match="^there is no %s 'gpufleet-no-such-account' on this node$" % kind):
        account_id("gpufleet-no-such-account", kind)
