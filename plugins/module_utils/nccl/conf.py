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

Keys are checked against the variables NCCL reads (nccl/params, per NCCL version), values refuse control
characters and '#' (NCCL has no inline comment: '22 # comment' would be the value), and a setting's source, written
above it as a '# source' comment line, refuses control characters and '=' (NCCL reads any line with '=' as a setting).

This module is stdlib only: the filter gpufleet.cluster.nccl_conf_merge and the unit tests use it.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import must_be
from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.params import PARAMETERS

__all__ = [
    "NcclConfError",
    "Setting",
    "MAX_LENGTH",
    "check_key",
    "known_parameters",
    "FABRICS",
    "ROCE_ONLY",
    "check_value",
    "check_ib_hca",
    "check_socket_ifname",
    "parse_conf",
    "merge_settings",
    "render_conf",
]

# NCCL copies key and value into char[1024] buffers (setEnvFile): 1023 characters and the NUL.
MAX_LENGTH = 1023
# Applied with fullmatch: '$' would let a trailing newline through ('NCCL_IB_HCA\n').
KEY_PATTERN = re.compile(r"NCCL_[A-Z0-9_]+")
# A Linux interface name (dev_valid_name): 1-15 characters, none of them '/', ':' or white space; NCCL's list
# syntax also takes ',', '^' and '=' away.
_IFNAME = re.compile(r"[^\s/:,^=]{1,15}")
# An RDMA device name (IB_DEVICE_NAME_MAX 64) with an optional port: mlx5_0, mlx5_0:1, rocep1s0f0:1.
_HCA = re.compile(r"([A-Za-z0-9_.-]{1,63})(?::([0-9]{1,3}))?")
# apt's form of an NCCL version (2.27.7-1+cuda12.9), or its upstream part (2.28.9), or major.minor (2.28).
_VERSION = re.compile(r"([0-9]+)\.([0-9]+)(?:\.[0-9]+(?:-[0-9]+(?:\+cuda[0-9]+\.[0-9]+)?)?)?")

#: The fabrics the filter knows (gpufleet_fabric.kind).
FABRICS = ("infiniband", "roce")
#: Settings that only mean something on RoCE (Ethernet link layer): the GID index selects a RoCE v1/v2, IPv4/IPv6
#: GID, the traffic class the DSCP of RoCE's IP header, the version number which RoCE GID type to pick. On an
#: InfiniBand fabric they are a leftover of a RoCE setup (roce_host's file) or a mistake.
ROCE_ONLY = ("NCCL_IB_GID_INDEX", "NCCL_IB_TC", "NCCL_IB_ROCE_VERSION_NUM")


class NcclConfError(ValueError):
    """A setting NCCL would misread, or two sources that disagree."""


@dataclass(frozen=True)
class Setting:
    key: str
    value: str
    source: str

    def as_dict(self) -> Dict[str, str]:
        return {"key": self.key, "value": self.value, "source": self.source}


def known_parameters(version: Any = None) -> Tuple[FrozenSet[str], str]:
    """The variables NCCL ``version`` reads and a label for messages.

    version: None or "" (any catalogued version: the union), or apt's form 2.27.7-1+cuda12.9, 2.28.9 or 2.28.
    A version the catalogue lacks is checked against the union of all catalogued versions.
    """
    if version is None or version == "":
        return frozenset().union(*PARAMETERS.values()), "NCCL %s" % "/".join(sorted(PARAMETERS))
    match = _VERSION.fullmatch(version) if isinstance(version, str) else None
    if match is None:
        raise NcclConfError("nccl_version: %r is not an NCCL version; expected apt's form such as 2.27.7-1+cuda12.9, "
                            "or 2.28.9, or empty for the newest" % (version,))
    minor = "%s.%s" % (int(match.group(1)), int(match.group(2)))
    if minor in PARAMETERS:
        return PARAMETERS[minor], "NCCL %s" % minor
    return (frozenset().union(*PARAMETERS.values()),
            "NCCL %s (not catalogued; checked against %s)" % (minor, "/".join(sorted(PARAMETERS))))


def _other_versions(key: str) -> List[str]:
    return sorted(version for version, names in PARAMETERS.items() if key in names)


def check_key(key: Any, where: str, known: Optional[FrozenSet[str]] = None, label: str = "NCCL") -> str:
    """A variable NCCL reads: NCCL_[A-Z0-9_]+ (fullmatch), at most 1023 characters, and in ``known`` (by default
    the union of the catalogue, params.PARAMETERS), with a "did you mean" when it is not."""
    if not isinstance(key, str) or not KEY_PATTERN.fullmatch(key):
        raise NcclConfError(
            "%s: the key %r is not an NCCL variable: it must match ^NCCL_[A-Z0-9_]+$ (upper case, as NCCL's "
            "getenv looks it up; NCCL_IB_TIMEOUT, say)" % (where, key)
        )
    if len(key) > MAX_LENGTH:
        raise NcclConfError("%s: the key %s... is %d characters long; NCCL reads at most %d"
                            % (where, key[:32], len(key), MAX_LENGTH))
    if known is None:
        known, label = known_parameters(None)
    if key not in known:
        close = difflib.get_close_matches(key, sorted(known), n=3, cutoff=0.6)
        elsewhere = _other_versions(key)
        raise NcclConfError(
            "%s: the key %r is not a variable %s reads%s%s; allowed: the names of NCCL_PARAM and ncclGetEnv in "
            "NCCL's source (plugins/module_utils/nccl/params.py)" % (
                where, key, label,
                " (NCCL %s does)" % "/".join(elsewhere) if elsewhere else "",
                "; did you mean %s?" % " or ".join(close) if close else "")
        )
    return key


def check_value(value: Any, where: str) -> str:
    """One line of at most 1023 characters; ints become their decimal text. Booleans are refused."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise must_be("%s: the value" % where, value,
                      "a string or an integer (NCCL's switches take 0 or 1, not true/false)", NcclConfError)
    text = str(value)
    bad = input_rules.CONTROL_RE.search(text)
    if bad:
        raise NcclConfError(
            "%s: the value %r holds the control character %r; /etc/nccl.conf is one KEY=VALUE per line, so the "
            "value must be a single line of printable characters" % (where, text, bad.group(0))
        )
    if text != text.strip():
        raise NcclConfError(
            "%s: the value %r starts or ends with white space, which NCCL would keep as part of the value; "
            "remove it" % (where, text)
        )
    if not text:
        raise NcclConfError("%s: the value is empty; NCCL would set the variable to an empty string. Leave the "
                            "key out instead" % where)
    if "#" in text:
        raise NcclConfError(
            "%s: the value %r holds '#'; NCCL has no inline comment and would keep it (and what follows) as part "
            "of the value. Allowed: one line without '#'; put a comment on its own line" % (where, text)
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
        match = _HCA.fullmatch(entry)
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
        if not _IFNAME.fullmatch(entry):
            raise NcclConfError(
                "%s: NCCL_SOCKET_IFNAME %r has the entry %r; each entry is an interface name or prefix of 1-15 "
                "characters without '/', ':', ',' or white space, the list optionally led by ^ (exclude) and "
                "then = (exact names): =eth0, ens, ^docker,lo" % (where, value, entry)
            )
    return value


# Keys whose syntax is checked beyond "one line", wherever they come from.
_SYNTAX = {"NCCL_IB_HCA": check_ib_hca, "NCCL_SOCKET_IFNAME": check_socket_ifname}


def _check(key: Any, value: Any, where: str, known: Optional[FrozenSet[str]] = None, label: str = "NCCL") -> Setting:
    key = check_key(key, where, known, label)
    value = _SYNTAX.get(key, check_value)(value, "%s %s" % (where, key))
    return Setting(key, value, where)


def parse_conf(text: str, source: str, known: Optional[FrozenSet[str]] = None, label: str = "NCCL") -> List[Setting]:
    """Parse a KEY=VALUE file such as the one roce_host writes (/etc/gpufleet/nccl-roce.conf).

    Blank lines and lines whose first non-blank character is '#' are skipped. Every other line must be
    NCCL_KEY=VALUE with nothing around the key; white space around the value is dropped. A line NCCL would
    silently skip (no '=') or misread ('KEY =') is refused, naming the file and line, and so is a key twice.
    """
    if not isinstance(text, str):
        raise must_be(source, text, "the file's text", NcclConfError)
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
        setting = _check(key, value.strip(), where, known, label)
        if key in seen:
            raise NcclConfError("%s: %s is set again (first on line %d); NCCL keeps only the first. Keep one"
                                % (where, key, seen[key]))
        seen[key] = number
        settings.append(Setting(setting.key, setting.value, source))
    return settings


def check_source(source: Any, where: str) -> str:
    """A setting's source, written above it as '# <source>': printable, one line, no '=' (NCCL would read a comment
    line holding '=' as a setting)."""
    return input_rules.free_text(where, source, NcclConfError, forbid="=", max_length=256)


def check_fabric(fabric: Any) -> Optional[str]:
    """None (unknown: not checked) or one of FABRICS."""
    if fabric is None or fabric == "":
        return None
    if fabric not in FABRICS:
        raise NcclConfError("fabric: %r is not a fabric kind; expected %s, or null when unknown"
                            % (fabric, " or ".join(FABRICS)))
    return fabric


def merge_settings(own: Sequence[Mapping[str, Any]], roce: Optional[str], roce_source: str, *,
                   nccl_version: Optional[str] = None, fabric: Optional[str] = None) -> List[Setting]:
    """The settings /etc/nccl.conf gets: the role's own, then the RoCE file's keys the role does not set.

    own: [{key, value, source}] in the order to write them; a value of None or "" means "not set". A key given
    twice in own (say nccl_env_extra naming NCCL_IB_HCA beside nccl_ib_hca) is refused, naming both sources.
    roce: the text of roce_source, or None when the file does not exist. A key set in both with different values
    is refused, naming the key, both values and both sources; every conflict is listed in one message. A key
    set in both with the same value is written once, its source naming both.
    nccl_version: the NCCL the node gets (apt's form; None or "" for any catalogued version): keys must be
    variables it reads. fabric: "infiniband" refuses the RoCE-only keys (ROCE_ONLY), "roce" or None does not.
    """
    known, label = known_parameters(nccl_version)
    fabric = check_fabric(fabric)
    roce_source = check_source(roce_source, "roce_source")
    mine: List[Setting] = []
    where_set: Dict[str, str] = {}
    for index, entry in enumerate(own):
        if not isinstance(entry, Mapping) or set(entry) != {"key", "value", "source"}:
            raise must_be("own settings entry %d" % index, entry, "a mapping of key, value and source", NcclConfError)
        if entry["value"] is None or entry["value"] == "":
            continue
        source = check_source(entry["source"], "own settings entry %d source" % index)
        setting = _check(entry["key"], entry["value"], source, known, label)
        if setting.key in where_set:
            raise NcclConfError(
                "%s and %s both set %s; set it in one place only (the role's own variables nccl_ib_hca, "
                "nccl_socket_ifname and nccl_topology_file own their keys, nccl_env_extra takes the others)"
                % (where_set[setting.key], setting.source, setting.key)
            )
        where_set[setting.key] = setting.source
        mine.append(setting)
    theirs = parse_conf(roce, roce_source, known, label) if roce is not None else []
    if fabric == "infiniband":
        roce_only = ["%s (%s)" % (s.key, s.source) for s in list(mine) + theirs if s.key in ROCE_ONLY]
        if roce_only:
            raise NcclConfError(
                "the fabric is InfiniBand but %s set%s %s, which only RoCE uses (a GID index picks a RoCE v1/v2 "
                "GID, the traffic class the DSCP of RoCE's IP header); allowed on InfiniBand: none of %s. Remove "
                "them, or the RoCE settings file a roce_host run left behind" % (
                    ", ".join(roce_only), "s" if len(roce_only) == 1 else "", "it" if len(roce_only) == 1 else "them",
                    ", ".join(ROCE_ONLY)))
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
        if not isinstance(comment, str) or "=" in comment or input_rules.CONTROL_RE.search(comment):
            raise NcclConfError("header line %r holds '=' or a control character such as a line break; NCCL would "
                                "read it as a setting"
                                % (comment,))
        lines.append(("# " + comment).rstrip())
    for setting in settings:
        lines.append("# " + check_source(setting.source, "the source of %s" % setting.key))
        lines.append("%s=%s" % (setting.key, setting.value))
    return "\n".join(lines) + "\n"
