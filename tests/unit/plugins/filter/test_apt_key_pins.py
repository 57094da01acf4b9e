# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The apt_key_pins filter: a third-party source's key and pinned fingerprints, refused naming the variable."""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import apt_key_pins as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.apt_key_pins import apt_key_pins
from filter_docs import assert_documented
from wrong_types import assert_only_refusals

CUDA = "EB69 3B30 35CD 5710 E231  E123 A4B4 6996 3BF8 63CC"
KEY = "https://mirror.example.org/slurm/key.asc"


def test_registered_and_documented():
    assert_documented(plugin, "apt_key_pins")


def test_normalised_fingerprints():
    assert apt_key_pins([CUDA, CUDA.lower()], "slurm_repository.fingerprints", key=KEY,
                        key_variable="slurm_repository.signed_by") == ["EB693B3035CD5710E231E123A4B469963BF863CC"]


@pytest.mark.parametrize("key", ["", "  ", None])
def test_a_source_without_its_key_is_refused_naming_the_variable(key):
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.apt_key_pins: slurm_repository.signed_by must "
                                                 r"be the repository's signing key: .*; every third-party apt source"):
        apt_key_pins([CUDA], "slurm_repository.fingerprints", key=key, key_variable="slurm_repository.signed_by")


@pytest.mark.parametrize("pins, message", [
    ([], r"rdma_repository_key_fingerprints must not be empty; pin the fingerprint"),
    (["3BF863CC"], r"rdma_repository_key_fingerprints\[0\] must be a full key fingerprint"),
    ([CUDA, "A4B469963BF863CC"], r"rdma_repository_key_fingerprints\[1\] must be a full key fingerprint"),
    (CUDA, r"rdma_repository_key_fingerprints must be a list of full key fingerprints"),
])
def test_missing_or_short_fingerprints_are_refused_naming_the_variable(pins, message):
    with pytest.raises(AnsibleFilterError, match="^gpufleet.cluster.apt_key_pins: " + message):
        apt_key_pins(pins, "rdma_repository_key_fingerprints", key=KEY, key_variable="rdma_repository_key")


VALID = [[CUDA], "x_fingerprints", KEY, "x_key"]


def test_valid_call_works():
    assert apt_key_pins(*VALID) == ["EB693B3035CD5710E231E123A4B469963BF863CC"]


def test_wrong_types_are_refused():
    assert_only_refusals("apt_key_pins", apt_key_pins, VALID)
