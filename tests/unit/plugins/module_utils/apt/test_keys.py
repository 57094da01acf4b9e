# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Repository signing keys: fingerprints as people write them, gpg's colon listing read, pinned keys checked.

The listings below are gpg 2.2.40's output (``gpg --show-keys --with-colons``) for NVIDIA's CUDA repository key
that the nvidia_driver role ships (roles/nvidia_driver/files/cuda-archive-keyring-3bf863cc.asc) and for throwaway
keys; where gpg is installed the same is read from a real run.
"""
from __future__ import annotations

import os
import subprocess

import pytest
from hypothesis import example, given, strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.apt.keys import (
    AptKeyError,
    check_pinned,
    check_trust,
    is_armoured,
    normalise_fingerprint,
    parse_colons,
    pinned_fingerprints,
)
from reference import REPO
from throwaway_keys import GPG, make_key, revoked

CUDA_KEY = os.path.join(REPO, "roles", "nvidia_driver", "files", "cuda-archive-keyring-3bf863cc.asc")
CUDA_FINGERPRINT = "EB693B3035CD5710E231E123A4B469963BF863CC"
CUDA_LISTING = """\
pub:-:4096:1:A4B469963BF863CC:1649973841:::-:::scSC::::::23::0:
fpr:::::::::EB693B3035CD5710E231E123A4B469963BF863CC:
uid:-::::1649973841::9FF1088D9DE9871986CC4451FA10E1E365CCA9C9::cudatools <cudatools@nvidia.com>::::::::::0:
"""
# Two keys in one file, the first with an encryption subkey and a ':' in its user ID (gpg writes \\x3a).
TWO_KEYS = """\
pub:-:255:22:1111111111111111:1700000000:::-:::scESC:::::ed25519:::0:
fpr:::::::::AAAAAAAAAAAAAAAAAAAAAAAA1111111111111111:
uid:-::::1700000000::00::Repo\\x3a signing <repo@example.org>::::::::::0:
sub:-:255:18:2222222222222222:1700000000::::::e:::::cv25519::
fpr:::::::::BBBBBBBBBBBBBBBBBBBBBBBB2222222222222222:
pub:e:255:22:3333333333333333:1600000000:1650000000::-:::sc:::::ed25519:::0:
fpr:::::::::CCCCCCCCCCCCCCCCCCCCCCCC3333333333333333:
"""


def test_the_cuda_key_listing():
    [key] = parse_colons(CUDA_LISTING)
    assert key.fingerprint == CUDA_FINGERPRINT and key.key_id == "A4B469963BF863CC"
    assert key.uids == ["cudatools <cudatools@nvidia.com>"] and key.subkeys == [] and key.validity == "-"
    assert check_pinned([key], [CUDA_FINGERPRINT], "the CUDA key") == [key]


def test_subkeys_user_ids_and_validity():
    first, second = parse_colons(TWO_KEYS)
    assert first.uids == ["Repo: signing <repo@example.org>"]
    assert first.subkeys == ["BBBBBBBBBBBBBBBBBBBBBBBB2222222222222222"]
    assert (second.fingerprint, second.validity, second.subkeys) == ("CCCCCCCCCCCCCCCCCCCCCCCC3333333333333333", "e", [])


def test_a_key_listed_without_its_fingerprint_is_refused():
    with pytest.raises(AptKeyError, match="without its fingerprint"):
        parse_colons("pub:-:4096:1:A4B469963BF863CC:1649973841:::-:::scSC::::::23::0:\n")
    with pytest.raises(AptKeyError, match="without a full fingerprint"):
        parse_colons("pub:-:4096:1:A4B469963BF863CC:1:::-:::scSC::::::23::0:\nfpr:::::::::A4B469963BF863CC:\n")
    with pytest.raises(AptKeyError, match="subkey before any primary key"):
        parse_colons("sub:-:255:18:2222222222222222:1700000000::::::e:::::cv25519::\n")


@pytest.mark.parametrize("written", [
    "EB69 3B30 35CD 5710 E231  E123 A4B4 6996 3BF8 63CC",
    "eb693b3035cd5710e231e123a4b469963bf863cc",
    "0xEB693B3035CD5710E231E123A4B469963BF863CC",
])
def test_fingerprints_as_people_write_them(written):
    assert normalise_fingerprint("f", written) == CUDA_FINGERPRINT


@pytest.mark.parametrize("bad", ["3BF863CC", "A4B469963BF863CC", CUDA_FINGERPRINT + "0", CUDA_FINGERPRINT[:-1] + "G",
                                 CUDA_FINGERPRINT + "\n" + "0" * 40, "", None, 42])
def test_key_ids_and_other_values_are_refused_naming_the_variable(bad):
    with pytest.raises(AptKeyError, match=r"^rdma_repository_key_fingerprints\[0\] must be a full key fingerprint"):
        pinned_fingerprints("rdma_repository_key_fingerprints", [bad])


def test_the_pinned_list_is_a_non_empty_list():
    with pytest.raises(AptKeyError, match="slurm_repository.fingerprints must not be empty; pin the fingerprint"):
        pinned_fingerprints("slurm_repository.fingerprints", [])
    with pytest.raises(AptKeyError, match="must be a list of full key fingerprints"):
        pinned_fingerprints("x", CUDA_FINGERPRINT)
    assert pinned_fingerprints("x", [CUDA_FINGERPRINT, CUDA_FINGERPRINT.lower()]) == [CUDA_FINGERPRINT]


@given(st.text(alphabet="0123456789abcdefABCDEF \t\nxX", max_size=90))
@example("0" * 40 + "\n")
@example(" " + "A" * 64)
def test_a_normalised_fingerprint_is_always_40_or_64_hex_digits(text):
    try:
        out = normalise_fingerprint("f", text)
    except AptKeyError:
        return
    assert len(out) in (40, 64) and all(c in "0123456789ABCDEF" for c in out)


def test_a_third_party_source_needs_its_key_and_pins():
    assert check_trust("k", "https://x.example.org/k.asc", "f", [CUDA_FINGERPRINT.lower()]) == [CUDA_FINGERPRINT]
    for key in ("", " ", None, 3):
        with pytest.raises(AptKeyError, match="^lustre_client_repository.signed_by must be the repository's signing"):
            check_trust("lustre_client_repository.signed_by", key, "f", [CUDA_FINGERPRINT])
    with pytest.raises(AptKeyError, match="^lustre_client_repository.fingerprints must not be empty"):
        check_trust("k", "/srv/key.gpg", "lustre_client_repository.fingerprints", [])


def test_a_file_with_a_key_not_pinned_is_refused():
    keys = parse_colons(TWO_KEYS)
    with pytest.raises(AptKeyError, match=r"holds the key\(s\) CCCC\S+ \(no user ID\), which the pinned"):
        check_pinned(keys, ["AAAAAAAAAAAAAAAAAAAAAAAA1111111111111111"], "k")
    with pytest.raises(AptKeyError, match=r"k: the key\(s\) CCCC\S+ are expired"):
        check_pinned(keys, ["AAAAAAAAAAAAAAAAAAAAAAAA1111111111111111", "CCCCCCCCCCCCCCCCCCCCCCCC3333333333333333"], "k")
    with pytest.raises(AptKeyError, match="holds no OpenPGP public key"):
        check_pinned([], [CUDA_FINGERPRINT], "k")


def test_armour_is_told_from_binary():
    with open(CUDA_KEY, "rb") as handle:
        assert is_armoured(handle.read())
    assert not is_armoured(b"\x99\x02\x0d\x04b")


# ---------------------------------------------------------------------------------------- the real gpg
needs_gpg = pytest.mark.skipif(GPG is None, reason="gpg is not installed here; the listings above stand for it")


def show_keys(path, home):
    os.makedirs(home, mode=0o700, exist_ok=True)
    return subprocess.run([GPG, "--batch", "--no-tty", "--no-default-keyring", "--homedir", str(home), "--show-keys",
                           "--with-colons", "--with-fingerprint", str(path)], check=True, capture_output=True,
                          text=True, env=dict(os.environ, LC_ALL="C")).stdout


@needs_gpg
def test_gpg_lists_the_shipped_cuda_key_with_the_pinned_fingerprint(tmp_path):
    [key] = parse_colons(show_keys(CUDA_KEY, tmp_path / "home"))
    assert key.fingerprint == CUDA_FINGERPRINT and key.uids == ["cudatools <cudatools@nvidia.com>"]


@needs_gpg
def test_gpg_listings_of_throwaway_keys(tmp_path):
    one, two = make_key(tmp_path, "One <one@example.org>"), make_key(tmp_path, "Two <two@example.org>")
    both = tmp_path / "both.gpg"
    both.write_bytes(one.binary + two.binary)
    keys = parse_colons(show_keys(both, tmp_path / "list"))
    assert [k.fingerprint for k in keys] == [one.fingerprint, two.fingerprint]
    assert check_pinned(keys, [one.fingerprint, two.fingerprint], "both") == keys
    with pytest.raises(AptKeyError, match=two.fingerprint):
        check_pinned(keys, [one.fingerprint], "both")
    gone = tmp_path / "revoked.asc"
    gone.write_bytes(revoked(one))
    [key] = parse_colons(show_keys(gone, tmp_path / "list"))
    with pytest.raises(AptKeyError, match="are revoked"):
        check_pinned([key], [one.fingerprint], "revoked")
