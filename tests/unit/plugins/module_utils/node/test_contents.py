# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node.contents: small files' content, text or base64, a file over the limit refused (never cut)."""
import base64
import os

import pytest
from ansible_collections.gpufleet.cluster.plugins.module_utils.node.contents import (
    ContentError, read_content, read_glob_contents,
)


def test_text_binary_missing_and_empty(tmp_path):
    (tmp_path / "t").write_text("DAEMON_OPTS=\"-F 1\"\n", encoding="utf-8")
    (tmp_path / "b").write_bytes(b"\xff\x00\x01")
    (tmp_path / "e").write_bytes(b"")
    text = read_content(str(tmp_path / "t"), 100)
    assert text == {"exists": True, "size": 19, "encoding": "text", "content": "DAEMON_OPTS=\"-F 1\"\n"}
    binary = read_content(str(tmp_path / "b"), 100)
    assert binary["encoding"] == "base64" and base64.b64decode(binary["content"]) == b"\xff\x00\x01"
    assert read_content(str(tmp_path / "missing"), 100) == {"exists": False}
    assert read_content(str(tmp_path / "e"), 100)["content"] == ""


def test_a_proc_file_that_says_it_is_empty_is_read_whole():
    result = read_content("/proc/self/limits", 65536)
    assert result["size"] > 0 and "Max locked memory" in result["content"]


def test_exactly_the_limit_is_read_one_byte_more_is_refused(tmp_path):
    (tmp_path / "f").write_bytes(b"x" * 10)
    assert read_content(str(tmp_path / "f"), 10)["size"] == 10
    with pytest.raises(ContentError, match="holds more than 9 bytes"):
        read_content(str(tmp_path / "f"), 9)


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(ContentError, match="is a directory"):
        read_content(str(tmp_path), 10)


def test_each_match_of_a_pattern_with_its_content_and_no_match_is_empty(tmp_path):
    (tmp_path / "90-gpufleet.conf").write_text("* soft memlock unlimited\n", encoding="utf-8")
    (tmp_path / "10-site.conf").write_text("", encoding="utf-8")
    (tmp_path / "README").write_text("not matched", encoding="utf-8")
    pattern, none = str(tmp_path / "*.conf"), str(tmp_path / "absent" / "*.conf")
    found = read_glob_contents([pattern, none], 100)
    assert list(found[pattern]) == [str(tmp_path / "10-site.conf"), str(tmp_path / "90-gpufleet.conf")]
    assert found[pattern][str(tmp_path / "90-gpufleet.conf")] == {
        "exists": True, "size": 25, "encoding": "text", "content": "* soft memlock unlimited\n"}
    assert found[none] == {}


def test_a_match_that_cannot_be_read_is_an_error_never_left_out(tmp_path):
    os.symlink("loop.conf", str(tmp_path / "loop.conf"))  # stat fails with ELOOP
    with pytest.raises(OSError):
        read_glob_contents([str(tmp_path / "*.conf")], 100)
    os.unlink(str(tmp_path / "loop.conf"))
    (tmp_path / "big.conf").write_bytes(b"x" * 11)
    with pytest.raises(ContentError, match="holds more than 10 bytes"):
        read_glob_contents([str(tmp_path / "*.conf")], 10)
