# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A generated munge key must be unpredictable: anyone who can guess it can forge Slurm credentials.

Length, mode and a hash compared with itself all hold for a constant key (bytes(1024)); these checks do not.
"""
import collections
import grp
import math
import os
import pwd

from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm import munge_key as core
from ansible_collections.gpufleet.cluster.plugins.modules import munge_key as module

ME = pwd.getpwuid(os.getuid()).pw_name
MY_GROUP = grp.getgrgid(os.getgid()).gr_name


def _entropy_bits_per_byte(key: bytes) -> float:
    counts = collections.Counter(key)
    return -sum(n / len(key) * math.log2(n / len(key)) for n in counts.values())


def _assert_not_degenerate(key: bytes) -> None:
    """1024 random bytes: about 7.8 bits of Shannon entropy per byte and about 650 distinct values.
    The bounds are far below that, and far above any constant, repeating or counting pattern."""
    assert len(set(key)) >= 128, f"only {len(set(key))} distinct byte values in the key"
    assert _entropy_bits_per_byte(key) > 6.5
    assert max(collections.Counter(key).values()) < len(key) // 16, "one byte value dominates the key"
    half = len(key) // 2
    assert key[:half] != key[half:], "the key repeats itself"
    assert key != bytes(range(256)) * (len(key) // 256)


def test_two_generations_differ_and_are_not_degenerate():
    first, second = core.new_key(), core.new_key()
    assert len(first) == len(second) == 1024
    assert first != second
    for key in (first, second):
        _assert_not_degenerate(key)
    # Two independent 1024-byte keys share about 4 positions by chance, never hundreds.
    assert sum(a == b for a, b in zip(first, second)) < 64


def test_the_module_writes_a_fresh_random_key_on_each_node_that_generates(run_main, tmp_path):
    keys = []
    for node in ("head", "head2"):
        path = tmp_path / node / "munge.key"
        path.parent.mkdir()
        result = run_main(module, {"path": str(path), "owner": ME, "group": MY_GROUP, "generate": True})
        assert result["generated"] is True
        keys.append(path.read_bytes())
    assert keys[0] != keys[1]
    for key in keys:
        _assert_not_degenerate(key)


def test_the_checks_catch_the_breakages_they_are_for():
    """The degeneracy check itself fails for the constant, repeating and counting keys it guards against."""
    for bad in (bytes(1024), b"\xff" * 1024, bytes(range(256)) * 4, os.urandom(512) * 2):
        try:
            _assert_not_degenerate(bad)
        except AssertionError:
            continue
        raise AssertionError(f"a degenerate key passed: {bad[:16]!r}...")
