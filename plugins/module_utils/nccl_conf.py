# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""NCCL's configuration file (/etc/nccl.conf): parse, check and merge KEY=VALUE settings.

NCCL reads /etc/nccl.conf (and ~/.nccl.conf, or ${NCCL_CONF_FILE} since 2.23) in every process with
`setEnvFile` (src/include/param.h): each line is split at its first `=`; the part before is the variable, the
part after, up to the end of the line, its value, unquoted and unstripped; a line without `=` is skipped
(that is the only reason a `#` comment is ignored); `setenv(key, value, 0)` never overwrites, so the
environment beats the user's file, which beats /etc/nccl.conf, and the first line of a key wins over a later one.
Key and value are copied into 1024-byte buffers, so at most 1023 characters each.

This module is stdlib only: the filter gpufleet.cluster.nccl_conf_merge and the unit tests use it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence

__all__ = [
    "NcclConfError",
    "Setting",
    "MAX_LENGTH",
    "check_key",
    "check_value",
    "check_ib_hca",
    "check_socket_ifname",
    "parse_conf",
    "merge_settings",
    "render_conf",
]

# NCCL copies key and value into char[1024] buffers (setEnvFile): 1023 characters and the NUL.
MAX_LENGTH = 1023
KEY_PATTERN = re.compile(r"^NCCL_[A-Z0-9_]+$")
# A Linux interface name (dev_valid_name): 1-15 characters, none of them '/', ':' or white space; NCCL's list
# syntax also takes ',', '^' and '=' away.
_IFNAME = re.compile(r"^[^\s/:,^=]{1,15}$")
# An RDMA device name (IB_DEVICE_NAME_MAX 64) with an optional port: mlx5_0, mlx5_0:1, rocep1s0f0:1.
_HCA = re.compile(r"^([A-Za-z0-9_.-]{1,63})(?::([0-9]{1,3}))?$")


class NcclConfError(ValueError):
    """A setting NCCL would misread, or two sources that disagree."""


@dataclass(frozen=True)
class Setting:
    key: str
    value: str
    source: str

    def as_dict(self) -> Dict[str, str]:
        return {"key": self.key, "value": self.value, "source": self.source}


def check_key(key: Any, where: str) -> str:
    """A variable name NCCL reads: ^NCCL_[A-Z0-9_]+$, at most 1023 characters."""
    if not isinstance(key, str) or not KEY_PATTERN.match(key):
        raise NcclConfError(
            "%s: the key %r is not an NCCL variable: it must match ^NCCL_[A-Z0-9_]+$ (upper case, as NCCL's "
            "getenv looks it up; NCCL_IB_TIMEOUT, say)" % (where, key)
        )
    if len(key) > MAX_LENGTH:
        raise NcclConfError("%s: the key %s... is %d characters long; NCCL reads at most %d"
                            % (where, key[:32], len(key), MAX_LENGTH))
    return key


def check_value(value: Any, where: str) -> str:
    """One line of at most 1023 characters; ints become their decimal text. Booleans are refused."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise NcclConfError(
            "%s: the value %r is a %s; give a string or an integer (NCCL's switches take 0 or 1, not true/false)"
            % (where, value, type(value).__name__)
        )
    text = str(value)
    if text != text.strip():
        raise NcclConfError(
            "%s: the value %r starts or ends with white space, which NCCL would keep as part of the value; "
            "remove it" % (where, text)
        )
    if not text:
        raise NcclConfError("%s: the value is empty; NCCL would set the variable to an empty string. Leave the "
                            "key out instead" % where)
    bad = [c for c in text if c in "\r\n\0" or (ord(c) < 32 and c != "\t")]
    if bad:
        raise NcclConfError(
            "%s: the value %r holds the control character %r; /etc/nccl.conf is one KEY=VALUE per line, so the "
            "value must be a single line" % (where, text, bad[0])
        )
    if len(text) > MAX_LENGTH:
        raise NcclConfError("%s: the value is %d characters long; NCCL reads at most %d"
                            % (where, len(text), MAX_LENGTH))
    return text


def _split_list(value: str) -> List[str]:
    """NCCL's list syntax: an optional '^' (exclude), an optional '=' (exact names), then a comma list."""
    body = value
    if body.startswith("^"):
        body = body[1:]
    if body.startswith("="):
        body = body[1:]
    return body.split(",")


def check_ib_hca(value: str, where: str) -> str:
    """NCCL_IB_HCA: [^][=]dev[:port][,dev[:port]...] (mlx5, =mlx5_0:1,mlx5_1:1, ^=mlx5_3)."""
    value = check_value(value, where)
    for entry in _split_list(value):
        match = _HCA.match(entry)
        if not match or (match.group(2) is not None and not 1 <= int(match.group(2)) <= 255):
            raise NcclConfError(
                "%s: NCCL_IB_HCA %r has the entry %r; each entry is an RDMA device name or prefix with an "
                "optional port 1-255 (mlx5_0, mlx5_0:1), the list optionally led by ^ (exclude) and then = "
                "(exact names): =mlx5_0:1,mlx5_1:1" % (where, value, entry)
            )
    return value


def check_socket_ifname(value: str, where: str) -> str:
    """NCCL_SOCKET_IFNAME: [^][=]name[,name...], each a Linux interface name or prefix (<= 15 characters)."""
    value = check_value(value, where)
    for entry in _split_list(value):
        if not _IFNAME.match(entry):
            raise NcclConfError(
                "%s: NCCL_SOCKET_IFNAME %r has the entry %r; each entry is an interface name or prefix of 1-15 "
                "characters without '/', ':', ',' or white space, the list optionally led by ^ (exclude) and "
                "then = (exact names): =eth0, ens, ^docker,lo" % (where, value, entry)
            )
    return value


# Keys whose syntax is checked beyond "one line", wherever they come from.
_SYNTAX = {"NCCL_IB_HCA": check_ib_hca, "NCCL_SOCKET_IFNAME": check_socket_ifname}


def _check(key: Any, value: Any, where: str) -> Setting:
    key = check_key(key, where)
    value = _SYNTAX.get(key, check_value)(value, "%s %s" % (where, key))
    return Setting(key, value, where)


def parse_conf(text: str, source: str) -> List[Setting]:
    """Parse a KEY=VALUE file such as the one roce_host writes (/etc/gpufleet/nccl-roce.conf).

    Blank lines and lines whose first non-blank character is '#' are skipped. Every other line must be
    NCCL_KEY=VALUE with nothing around the key; white space around the value is dropped. A line NCCL would
    silently skip (no '=') or misread ('KEY =') is refused, naming the file and line, and so is a key twice.
    """
    if not isinstance(text, str):
        raise NcclConfError("%s: expected the file's text, got %s" % (source, type(text).__name__))
    settings: List[Setting] = []
    seen: Dict[str, int] = {}
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.rstrip("\r")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = "%s line %d" % (source, number)
        if "=" not in line:
            raise NcclConfError("%s: %r is not KEY=VALUE (NCCL would skip it silently); write NCCL_KEY=VALUE or "
                                "start the line with #" % (where, line))
        key, value = line.split("=", 1)
        if key != key.strip():
            raise NcclConfError("%s: the key %r has white space around it; NCCL would set a variable named %r. "
                                "Write %s=%s" % (where, key, key, key.strip(), value.strip()))
        if re.search(r"\s#", value):
            raise NcclConfError("%s: the value %r holds an inline comment; NCCL has none and would keep it as part "
                                "of the value. Put the comment on its own line" % (where, value.strip()))
        setting = _check(key, value.strip(), where)
        if key in seen:
            raise NcclConfError("%s: %s is set again (first on line %d); NCCL keeps only the first. Keep one"
                                % (where, key, seen[key]))
        seen[key] = number
        settings.append(Setting(setting.key, setting.value, source))
    return settings


def merge_settings(own: Sequence[Mapping[str, Any]], roce: Optional[str], roce_source: str) -> List[Setting]:
    """The settings /etc/nccl.conf gets: the role's own, then the RoCE file's keys the role does not set.

    own: [{key, value, source}] in the order to write them; a value of None or "" means "not set". A key given
    twice in own (say nccl_env_extra naming NCCL_IB_HCA beside nccl_ib_hca) is refused, naming both sources.
    roce: the text of roce_source, or None when the file does not exist. A key set in both with different values
    is refused, naming the key, both values and both sources; every conflict is listed in one message. A key
    set in both with the same value is written once, its source naming both.
    """
    mine: List[Setting] = []
    where_set: Dict[str, str] = {}
    for index, entry in enumerate(own):
        if not isinstance(entry, Mapping) or set(entry) != {"key", "value", "source"}:
            raise NcclConfError("own settings entry %d is %r; expected a mapping of key, value and source"
                                % (index, entry))
        if entry["value"] is None or entry["value"] == "":
            continue
        setting = _check(entry["key"], entry["value"], str(entry["source"]))
        if setting.key in where_set:
            raise NcclConfError(
                "%s and %s both set %s; set it in one place only (the role's own variables nccl_ib_hca, "
                "nccl_socket_ifname and nccl_topology_file own their keys, nccl_env_extra takes the others)"
                % (where_set[setting.key], setting.source, setting.key)
            )
        where_set[setting.key] = setting.source
        mine.append(setting)
    theirs = parse_conf(roce, roce_source) if roce is not None else []
    by_key = {setting.key: setting for setting in mine}
    conflicts = [
        "%s is %r in %s but %r in %s" % (other.key, by_key[other.key].value, by_key[other.key].source, other.value,
                                         other.source)
        for other in theirs if other.key in by_key and by_key[other.key].value != other.value
    ]
    if conflicts:
        raise NcclConfError(
            "the NCCL settings disagree: %s. /etc/nccl.conf would hold only one of each, so nothing was written. "
            "Make the role variable and the roce_host role's settings agree, or leave the role variable empty to "
            "take the value %s gives" % ("; ".join(conflicts), roce_source)
        )
    merged = [
        Setting(s.key, s.value, "%s and %s" % (s.source, roce_source)) if s.key in {o.key for o in theirs} else s
        for s in mine
    ]
    merged.extend(other for other in theirs if other.key not in by_key)
    return merged


def render_conf(settings: Sequence[Setting], header: Sequence[str] = ()) -> str:
    """The file NCCL reads: '# ' header lines (without '='), then one KEY=VALUE line per setting."""
    lines = []
    for comment in header:
        if "=" in comment or "\n" in comment:
            raise NcclConfError("header line %r holds '=' or a line break; NCCL would read it as a setting"
                                % (comment,))
        lines.append(("# " + comment).rstrip())
    lines.extend("%s=%s" % (s.key, s.value) for s in settings)
    return "\n".join(lines) + "\n"
