# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""slurm/munge_key: what munged accepts, and how one key file compares with the wanted one (the tests that killed the
mutants of `make mutation MODULES=slurm/munge_key`, docs/testing.md; the module's own runs are in
tests/unit/plugins/modules/test_munge_key.py).

The limits are MUNGE's (munge_defs.h): a key of 32 to 1024 bytes, both ends included.
"""
from __future__ import annotations

import base64
import hashlib
import os

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.munge_key import (
    MungeKeyError,
    check_length,
    decode_key,
    describe,
    key_file_problems,
)

KEY = bytes(range(32))  # 32 bytes: the smallest key munged accepts


@pytest.mark.parametrize("size", [32, 33, 1023, 1024])
def test_lengths_munged_accepts(size):
    check_length(size)


@pytest.mark.parametrize("size", [0, 31, 1025])
def test_lengths_munged_refuses(size):
    with pytest.raises(MungeKeyError) as err:
        check_length(size)
    assert str(err.value) == (
        "a munge key of %d bytes is outside what munged accepts (32 to 1024 bytes); "
        "generate a new one (1024 random bytes)" % size)


def test_decode_joins_wrapped_base64_without_adding_anything():
    text = base64.b64encode(KEY).decode()  # 44 characters
    wrapped = "\n".join(text[i:i + 16] for i in range(0, len(text), 16)) + "\n"
    assert decode_key(wrapped) == KEY


def test_decode_refuses_a_character_outside_base64():
    # Without validation b64decode drops the '*' and returns the 32 bytes; munged would get a key the user never gave.
    text = base64.b64encode(KEY).decode()
    with pytest.raises(MungeKeyError, match=r"^the munge key is not valid base64 \("):
        decode_key(text[:20] + "*" + text[20:])


def _write(path, data, mode=0o600):
    path.write_bytes(data)
    os.chmod(path, mode)
    return str(path)


@pytest.mark.parametrize("size", [32, 1024])
def test_key_files_at_both_limits_have_no_problem(tmp_path, size):
    assert key_file_problems(_write(tmp_path / "munge.key", b"k" * size)) == []


@pytest.mark.parametrize("size", [31, 1025])
def test_key_files_past_the_limits_are_reported(tmp_path, size):
    path = _write(tmp_path / "munge.key", b"k" * size)
    assert key_file_problems(path) == ["%s holds %d bytes, outside 32..1024" % (path, size)]


def test_a_directory_is_not_a_key_file(tmp_path):
    assert key_file_problems(str(tmp_path)) == ["%s is not a regular file" % tmp_path]


def test_describe_reads_one_byte_past_the_limit_and_no_more(tmp_path):
    # A 1030-byte file: describe reads 1025 bytes, enough to show it is too long, without reading a huge file whole.
    data = bytes(range(256)) * 4 + b"abcdef"
    info = describe(_write(tmp_path / "munge.key", data))
    assert info["size"] == 1025
    assert info["sha256"] == hashlib.sha256(data[:1025]).hexdigest()
    assert info["mode"] == "0600"
