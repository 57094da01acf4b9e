# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node/files.py: a path's type, owner, group, mode and hash; a secret file's match; a marked block's hash. The module's
own tests (tests/unit/plugins/modules/test_node_state.py) read them through node_state."""
import hashlib
import os

import pytest
from ansible_collections.gpufleet.cluster.plugins.module_utils.node.files import (
    block_state, path_state, read_text, secret_state,
)

BLOCK = {"marker": "# {mark} ANSIBLE MANAGED BLOCK", "marker_begin": "BEGIN", "marker_end": "END"}


def test_a_file_a_directory_and_nothing(tmp_path):
    (tmp_path / "f").write_text("x\n", encoding="utf-8")
    os.chmod(tmp_path / "f", 0o640)
    state = path_state(str(tmp_path / "f"))
    assert state["exists"] and not state["isdir"] and state["mode"] == "0640"
    assert state["sha256"] == hashlib.sha256(b"x\n").hexdigest()
    assert "sha256" not in path_state(str(tmp_path / "f"), digest=False)
    assert path_state(str(tmp_path))["isdir"] and "sha256" not in path_state(str(tmp_path))
    assert path_state(str(tmp_path / "absent")) == {"exists": False, "isdir": False}


def test_a_secret_says_whether_it_matches_never_its_hash(tmp_path):
    (tmp_path / "s").write_text("StoragePass=hunter2\n", encoding="utf-8")
    right = hashlib.sha256(b"StoragePass=hunter2\n").hexdigest()
    assert secret_state(str(tmp_path / "s"), right)["matches"] is True
    wrong = secret_state(str(tmp_path / "s"), "0" * 64)
    assert wrong["matches"] is False and "sha256" not in wrong


def test_a_marked_block_and_a_missing_file(tmp_path):
    (tmp_path / "hosts").write_text("a\n# BEGIN ANSIBLE MANAGED BLOCK\n10.0.0.1 n1\n# END ANSIBLE MANAGED BLOCK\n",
                                    encoding="utf-8")
    assert block_state(dict(BLOCK, path=str(tmp_path / "hosts"))) == {
        "exists": True, "found": True, "sha256": hashlib.sha256(b"10.0.0.1 n1").hexdigest()}
    assert block_state(dict(BLOCK, path=str(tmp_path / "absent"))) == {"exists": False, "found": False}
    assert read_text(str(tmp_path / "absent")) is None


def test_a_file_that_is_not_utf8_is_an_error_not_nothing(tmp_path):
    (tmp_path / "b").write_bytes(b"\xff\xfe")
    with pytest.raises(UnicodeDecodeError):
        read_text(str(tmp_path / "b"))
