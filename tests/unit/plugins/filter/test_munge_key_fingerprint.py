# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""munge_key_fingerprint: the SHA-256 a node's key file would have, from the key given base64-encoded
(slurm_munge_key, issue 29: the key of a sliced node job comes from a vault); refusals name the variable and never
show the key."""
from __future__ import annotations

import base64
import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.filter import munge_key_fingerprint as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.munge_key_fingerprint import munge_key_fingerprint
from filter_docs import assert_documented
from filter_refusals import refused


def test_documented():
    assert_documented(plugin, "munge_key_fingerprint", options_are_arguments=True)


@given(st.binary(min_size=32, max_size=1024))
def test_the_sha256_of_the_bytes_as_the_key_file_has_it(key):
    text = base64.b64encode(key).decode()
    assert munge_key_fingerprint(text, "slurm_munge_key") == hashlib.sha256(key).hexdigest()
    # As `base64` wraps it, or as a vault's block scalar keeps it: blanks and newlines are not the key's.
    wrapped = "\n".join(text[i:i + 76] for i in range(0, len(text), 76)) + "\n"
    assert munge_key_fingerprint(wrapped) == hashlib.sha256(key).hexdigest()


SECRET = base64.b64encode(b"s3cr3t-" * 2).decode()  # 14 bytes: too short, and must never be shown


@pytest.mark.parametrize("value, said", [
    (SECRET, r"slurm_munge_key: a munge key of 14 bytes is outside what munged accepts \(32 to 1024 bytes\)"),
    (base64.b64encode(bytes(1025)).decode(), r"slurm_munge_key: a munge key of 1025 bytes"),
    ("not base64 at all!" + SECRET, r"slurm_munge_key: the munge key is not valid base64"),
    ("", r"slurm_munge_key: a munge key of 0 bytes"),
])
def test_what_munged_refuses_is_refused_naming_the_variable_not_the_key(value, said):
    message = refused(r"^gpufleet\.cluster\.munge_key_fingerprint: " + said, munge_key_fingerprint, value,
                      "slurm_munge_key")
    assert SECRET not in message and "s3cr3t" not in message


@pytest.mark.parametrize("value", [None, 42, ["a"], {"k": "v"}, b"bytes"])
def test_another_type_is_refused_by_its_type_only(value):
    message = refused(r"slurm_munge_key must be the key's bytes base64-encoded \(a string\), got a value of type ",
                      munge_key_fingerprint, value, "slurm_munge_key")
    assert repr(value) not in message or value is None
