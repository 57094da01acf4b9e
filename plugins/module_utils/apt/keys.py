# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Repository signing keys: pinned fingerprints, and what ``gpg --show-keys --with-colons`` says a key file holds.

A third-party apt source is trusted with a key file (``Signed-By``). A key fetched from the network, or typed into
an inventory, is only as good as that fetch: the inventory therefore pins the full fingerprint of each key it
trusts, and a key file is installed only when every primary key in it is one of those pinned (a file holding a
further key would let apt trust that key too). The fingerprint is the full one (40 hex digits for an OpenPGP v4
key, 64 for v5/v6): a short or long key ID names no key (ID collisions are cheap to make).

``gpg --with-colons`` (GnuPG's doc/DETAILS) prints one record per line, fields separated by ':'. Field 1 is the
record type: ``pub`` (a primary key: field 2 its validity, ``r`` revoked, ``e`` expired; field 5 its key ID),
``sub`` (a subkey), ``fpr`` (the fingerprint of the key record just before it, in field 10), ``uid`` (a user ID,
field 10, with ':' written as ``\\x3a``).

Stdlib only; it runs on the target (the apt_signing_key module) as well as on the controller (filters).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, List, Sequence

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import list_of, must_be

__all__ = ["AptKeyError", "GpgKey", "normalise_fingerprint", "pinned_fingerprints", "check_trust", "parse_colons",
           "check_pinned", "is_armoured"]

#: A full OpenPGP fingerprint: 40 hex digits (v4) or 64 (v5, v6), once the blanks people write between groups of
#: four are taken out.
FINGERPRINT_RE = re.compile(r"[0-9A-F]{40}|[0-9A-F]{64}")
_ARMOUR_RE = re.compile(rb"\s*-----BEGIN PGP PUBLIC KEY BLOCK-----")


class AptKeyError(ValueError):
    """A fingerprint that is not a full one, or a key file that is not the key(s) pinned."""


@dataclass(frozen=True)
class GpgKey:
    """One primary key of a key file, as gpg lists it."""

    fingerprint: str
    key_id: str
    validity: str
    uids: List[str] = field(default_factory=list)
    subkeys: List[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"fingerprint": self.fingerprint, "key_id": self.key_id, "validity": self.validity,
                "uids": list(self.uids), "subkeys": list(self.subkeys)}


def normalise_fingerprint(where: str, value: Any) -> str:
    """``value`` as 40 (or 64) upper-case hex digits; the blanks of the printed form (``EB69 3B30 ...``) and a
    leading ``0x`` are dropped. A key ID (8 or 16 digits) or anything else is refused, naming ``where``."""
    if not isinstance(value, str):
        raise must_be(where, value, "a full key fingerprint (40 hex digits) as a string", AptKeyError)
    text = "".join(value.split()).upper()
    if text.startswith("0X"):
        text = text[2:]
    if not FINGERPRINT_RE.fullmatch(text):
        raise must_be(where, value, "a full key fingerprint: 40 hex digits (64 for a v5/v6 key), blanks allowed "
                      "between groups (gpg --show-keys prints it); a key ID names no key", AptKeyError)
    return text


def pinned_fingerprints(where: str, values: Any) -> List[str]:
    """The pinned fingerprints of ``where`` (a non-empty list), each normalised; duplicates kept once."""
    items = list_of(where, values, AptKeyError, "a list of full key fingerprints (40 hex digits each)",
                    allow_empty=False,
                    hint="pin the fingerprint(s) of the key the repository is signed with, from the vendor's "
                         "documentation (docs/security.md, Supply chain)")
    out: List[str] = []
    for index, value in enumerate(items):
        fingerprint = normalise_fingerprint("%s[%d]" % (where, index), value)
        if fingerprint not in out:
            out.append(fingerprint)
    return out


def check_trust(key_variable: str, key: Any, fingerprints_variable: str, fingerprints: Any) -> List[str]:
    """A third-party source's trust, as preflight checks it before any change: the key (``Signed-By``: a URL, a
    path or the armoured text) is given, and its fingerprints are pinned; the normalised fingerprints."""
    if not isinstance(key, str) or not key.strip():
        raise must_be(key_variable, key, "the repository's signing key: its URL, a path on the node or the "
                      "ASCII-armoured key", AptKeyError,
                      hint="every third-party apt source is trusted with its own key only (Signed-By); apt would "
                           "otherwise accept the repository signed by any key the node trusts")
    return pinned_fingerprints(fingerprints_variable, fingerprints)


def _unescape(text: str) -> str:
    return re.sub(r"\\x([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), text)


def parse_colons(text: str) -> List[GpgKey]:
    """The primary keys of ``gpg --show-keys --with-colons`` output, in the order gpg lists them."""
    keys: List[dict] = []
    last = None  # the record a following fpr belongs to: 'pub' or 'sub'
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split(":")
        kind = fields[0]
        if kind == "pub":
            if len(fields) < 5:
                raise AptKeyError("gpg output line %d: a pub record with %d fields: %r" % (number, len(fields), line))
            keys.append({"fingerprint": "", "key_id": fields[4].upper(), "validity": fields[1], "uids": [],
                         "subkeys": []})
            last = "pub"
        elif kind == "sub":
            if not keys:
                raise AptKeyError("gpg output line %d: a subkey before any primary key: %r" % (number, line))
            last = "sub"
        elif kind == "fpr" and last is not None:
            if len(fields) < 10 or not FINGERPRINT_RE.fullmatch(fields[9].upper()):
                raise AptKeyError("gpg output line %d: an fpr record without a full fingerprint: %r" % (number, line))
            if last == "pub":
                if keys[-1]["fingerprint"]:
                    raise AptKeyError("gpg output line %d: a second fingerprint for one primary key: %r"
                                      % (number, line))
                keys[-1]["fingerprint"] = fields[9].upper()
            else:
                keys[-1]["subkeys"].append(fields[9].upper())
            last = None
        elif kind == "uid" and keys:
            keys[-1]["uids"].append(_unescape(fields[9]) if len(fields) > 9 else "")
    for key in keys:
        if not key["fingerprint"]:
            raise AptKeyError("gpg listed the primary key %s without its fingerprint (fpr record); was "
                              "--with-colons given twice, or --with-fingerprint left out by an old gpg?"
                              % key["key_id"])
    return [GpgKey(**key) for key in keys]


def check_pinned(keys: Sequence[GpgKey], pinned: Sequence[str], what: str) -> List[GpgKey]:
    """``keys`` when the file holds at least one key and every primary key in it is pinned, none revoked or
    expired; AptKeyError saying which key is not pinned otherwise. ``what`` names the key's source in the message
    (``rdma_repository_key (https://.../GPG-KEY-Mellanox.pub)``)."""
    if not keys:
        raise AptKeyError("%s holds no OpenPGP public key (gpg --show-keys lists none); nothing was installed"
                          % what)
    stranger = [key for key in keys if key.fingerprint not in pinned]
    if stranger:
        raise AptKeyError(
            "%s holds the key(s) %s, which the pinned fingerprints (%s) do not name; nothing was installed. The "
            "key is not the one the vendor publishes, or the vendor changed its key: compare with the vendor's "
            "documentation before pinning a new fingerprint."
            % (what, ", ".join("%s (%s)" % (k.fingerprint, "; ".join(k.uids) or "no user ID") for k in stranger),
               ", ".join(pinned)))
    unusable = [key for key in keys if key.validity in ("r", "e")]
    if unusable:
        raise AptKeyError("%s: the key(s) %s are %s; apt would refuse every signature they make; nothing was "
                          "installed." % (what, ", ".join(k.fingerprint for k in unusable),
                                          " and ".join(sorted({"revoked" if k.validity == "r" else "expired"
                                                               for k in unusable}))))
    return list(keys)


def is_armoured(data: bytes) -> bool:
    """Whether a key file is ASCII-armoured (apt takes it as ``.asc``) rather than binary (``.gpg``)."""
    return bool(_ARMOUR_RE.match(data))
