# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Throwaway OpenPGP keys made by the real gpg, for the tests of the signing-key checks.

``make_key(folder, uid)`` makes an ed25519 key in a scratch home directory under ``folder`` and returns its public
key (armoured and binary) with the fingerprint gpg announced when it made it (its ``KEY_CREATED`` status line, not
a listing: the tests compare the parser's reading against it). ``GPG`` is None where gpg is not installed; the
tests that need it are skipped there and say so. Imported by plain name: ``from throwaway_keys import make_key``.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from typing import Optional

GPG: Optional[str] = shutil.which("gpg")


@dataclass(frozen=True)
class Key:
    armoured: bytes
    binary: bytes
    fingerprint: str
    home: str


def _gpg(home: str, *args: str, stdin: bytes = b"") -> bytes:
    assert GPG is not None
    return subprocess.run([GPG, "--batch", "--no-tty", "--homedir", home, *args], input=stdin, check=True,
                          capture_output=True, env=dict(os.environ, LC_ALL="C")).stdout


def make_key(folder: str, uid: str = "Throwaway <throwaway@example.org>", expire: str = "never") -> Key:
    """A new key in ``folder``/<uid's first word>; ``expire`` as gpg's quick-gen-key takes it (``never``,
    ``seconds=1``)."""
    home = os.path.join(str(folder), "home-" + uid.split()[0].lower())
    os.makedirs(home, mode=0o700)
    status = _gpg(home, "--status-fd", "1", "--passphrase", "", "--pinentry-mode", "loopback",
                  "--quick-gen-key", uid, "ed25519", "sign", expire).decode()
    created = [line.split()[3] for line in status.splitlines() if line.startswith("[GNUPG:] KEY_CREATED")]
    assert len(created) == 1, status
    return Key(_gpg(home, "--armor", "--export", created[0]), _gpg(home, "--export", created[0]), created[0], home)


def revoked(key: Key) -> bytes:
    """The key's armoured public key with its revocation certificate applied (gpg writes one at creation)."""
    certificate = os.path.join(key.home, "openpgp-revocs.d", key.fingerprint + ".rev")
    with open(certificate, "rb") as handle:
        text = handle.read().replace(b":-----BEGIN PGP PUBLIC KEY BLOCK-----", b"-----BEGIN PGP PUBLIC KEY BLOCK-----")
    _gpg(key.home, "--import", stdin=text)
    return _gpg(key.home, "--armor", "--export", key.fingerprint)
