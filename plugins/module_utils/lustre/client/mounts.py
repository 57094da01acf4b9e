# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Lustre client mounts as systemd mount units: unit names, NIDs, the mount source and options.

* :func:`systemd_escape_path` is ``systemd-escape --path`` (systemd's ``unit_name_path_escape``):
  ``/mnt/lustre`` -> ``mnt-lustre``, ``/mnt/my-fs`` -> ``mnt-my\\x2dfs``; a mount unit must be named after
  its mount point, so the unit for ``/mnt/lustre`` is ``mnt-lustre.mount``.
* :func:`mount_plan` checks each mount (fsname, MGS NIDs on a configured LNet network, absolute path) and
  returns what the unit template needs. ``mount.lustre`` retries with ``retry=N`` (at most 99,
  ``MAX_RETRIES`` in ``lustre/utils/mount_lustre.c``); a mount unit has no restart of its own.
"""
from __future__ import annotations

import ipaddress
import posixpath
import re
from typing import Any, Dict, List, Optional, Sequence

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import unknown_keys
from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.client.checks import (
    LustreClientError,
    need_int,
    need_kind,
    need_list,
    need_mapping,
    need_str,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.client.lnet import canonical_net

#: Lustre fsname: 1-8 characters of letters, digits, _ and - (mkfs.lustre --fsname). Applied with fullmatch.
FSNAME_RE = re.compile(r"[A-Za-z0-9_-]{1,8}")
NID_RE = re.compile(r"([0-9.]+)@((?:o2ib|tcp)[0-9]{0,4})")
#: A mount option: a word, or word=value. No blank, ',' (the option separator), quote or control character.
OPTION_RE = re.compile(r"[A-Za-z0-9_.:/+-]+(=[A-Za-z0-9_.:/+@-]+)?")
OPTION_ALLOWED = ("a mount option: a word of letters, digits, '_', '.', ':', '/', '+' or '-', optionally "
                  "=value (value may also hold '@'); no blank, ',' or control character")
#: mount.lustre caps retry= at MAX_RETRIES (lustre/utils/mount_lustre.c).
MAX_RETRIES = 99
#: flock, localflock and noflock pick one locking mode: at most one of them.
FLOCK_OPTIONS = ("flock", "localflock", "noflock")
DEFAULT_OPTIONS = ("flock", "_netdev")
#: Options this role sets from other keys, or that make no sense for a client mount unit.
RESERVED_OPTIONS = {"retry": "the mount's retry key", "x-systemd.automount": "no automount (docs/lustre-client.md)",
                    "x-systemd.mount-timeout": "the mount's timeout_s key (TimeoutSec=)", "noauto": "lustre_client_mount_now"}
MOUNT_KEYS = {"fsname", "mgs_nids", "path", "options", "retry", "timeout_s"}
_VALID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:_.")


def systemd_escape_path(path: str) -> str:
    """``systemd-escape --path PATH``: the unit name stem systemd derives from an absolute path.

    Duplicate and trailing slashes are dropped (``path_simplify``); ``/`` alone is ``-``; ``/`` becomes ``-``;
    bytes outside ``[A-Za-z0-9:_.]`` and a leading ``.`` become ``\\xNN`` (lower-case hex of each UTF-8 byte).
    Paths with ``.`` or ``..`` components are refused, as systemd refuses them.
    """
    if not isinstance(path, str) or not path.startswith("/"):
        raise LustreClientError("mount path %r is not absolute; use a path like /mnt/lustre" % (path,))
    parts = [p for p in path.split("/") if p]
    if any(p in (".", "..") for p in parts):
        raise LustreClientError("mount path %r has . or .. components; systemd cannot name a unit after it. Use %s"
                                % (path, posixpath.normpath(path)))
    if not parts:
        return "-"
    out = []
    for index, char in enumerate("/".join(parts)):
        if char == "/":
            out.append("-")
        elif char in _VALID_CHARS and not (index == 0 and char == "."):
            out.append(char)
        else:
            out.extend("\\x%02x" % byte for byte in char.encode("utf-8"))
    return "".join(out)


def mount_unit_name(path: str) -> str:
    """The .mount unit systemd requires for a mount point: ``/mnt/lustre`` -> ``mnt-lustre.mount``."""
    return systemd_escape_path(path) + ".mount"


def check_nid(nid: Any, where: str) -> Dict[str, str]:
    """``10.0.0.1@o2ib`` -> ``{nid, address, net (canonical: o2ib0)}``; IPv4 address, o2ib<N> or tcp<N> network."""
    text = need_kind("nid", need_str(nid, where), where)
    match = NID_RE.fullmatch(text)
    if not match:  # input_rules' nid already refused anything else; kept as a guard
        raise LustreClientError("%s %r is not a NID <IPv4>@o2ib<N> or <IPv4>@tcp<N>, e.g. 10.0.0.1@o2ib" % (where, text))
    ipaddress.IPv4Address(match.group(1))
    return {"nid": text, "address": match.group(1), "net": canonical_net(match.group(2))}


def check_options(options: Any, where: str, flock: str = "flock") -> List[str]:
    """Mount options: words or key=value, no duplicates, and the locking mode ``flock`` (one of FLOCK_OPTIONS).

    ``flock`` is the role's lustre_client_mount_flock: an option naming another locking mode is refused, and the
    mode is put first when the options do not name it.
    """
    if flock not in FLOCK_OPTIONS:
        raise LustreClientError("lustre_client_mount_flock %r is not one of %s" % (flock, ", ".join(FLOCK_OPTIONS)))
    result: List[str] = []
    for index, value in enumerate(need_list(options, where)):
        option = need_str(value, "%s[%d]" % (where, index))
        if OPTION_RE.fullmatch(option) is None or len(option) > 255:
            raise LustreClientError("%s[%d]: %r is not allowed; expected %s" % (where, index, option, OPTION_ALLOWED))
        key = option.split("=", 1)[0]
        if key in RESERVED_OPTIONS:
            raise LustreClientError("%s[%d] %r is set by the role: use %s instead" % (where, index, option, RESERVED_OPTIONS[key]))
        if option in result:
            raise LustreClientError("%s lists %r twice; list it once" % (where, option))
        result.append(option)
    locks = [o for o in result if o in FLOCK_OPTIONS]
    if len(locks) > 1:
        raise LustreClientError("%s has %s; pick one locking mode (flock: coherent across clients, which training "
                                "frameworks' file locks need)" % (where, " and ".join(locks)))
    if locks and locks[0] != flock:
        raise LustreClientError(
            "%s has %s but lustre_client_mount_flock is %s: drop %s from the options (the role sets %s), or set "
            "lustre_client_mount_flock: %s with lustre_client_mount_flock_reason saying why file locks need not be "
            "coherent across clients (flock is, and training frameworks' and HDF5's file locks rely on it)"
            % (where, locks[0], flock, locks[0], flock, locks[0]))
    if not locks:
        result.insert(0, flock)
    return result


def mount_plan(mounts: Any, nets: Optional[Sequence[str]] = None, where: str = "lustre_client_mounts",
               flock: str = "flock") -> List[Dict[str, Any]]:
    """Check the client mounts and return, per mount: unit, path, what, fsname, options (text), retry, timeout_s.

    Each mount: ``fsname``; ``mgs_nids``: one entry per MGS node (two for a failover pair), each entry one NID or
    a comma-joined list of that node's NIDs; ``path``; optional ``options`` (default flock, _netdev; _netdev is
    always added; the locking mode is ``flock``, put first when the options do not name it, and an option naming
    another mode is refused), ``retry`` (0-99, default 5) and ``timeout_s`` (TimeoutSec= of the unit, default 300). With
    ``nets`` given, every NID must be on one of those LNet networks (no routes are configured by this role).
    """
    known = [canonical_net(n, "nets[%d]" % i) for i, n in enumerate(nets)] if nets is not None else None
    result: List[Dict[str, Any]] = []
    paths: Dict[str, str] = {}
    for index, item in enumerate(need_list(mounts, where)):
        here = "%s[%d]" % (where, index)
        mount = need_mapping(item, here)
        unknown_keys(here, mount, MOUNT_KEYS, LustreClientError)
        fsname = need_str(mount.get("fsname"), here + ".fsname")
        if not FSNAME_RE.fullmatch(fsname):
            raise LustreClientError("%s.fsname: %r is not allowed; expected a Lustre fsname, 1-8 of A-Z a-z 0-9 _ -"
                                    % (here, fsname))
        path = need_kind("mount_path", need_str(mount.get("path"), here + ".path"), here + ".path")
        if path != posixpath.normpath(path) or not path.startswith("/") or path == "/" or path.startswith("//"):
            raise LustreClientError("%s.path %r must be an absolute, normalised path other than / (e.g. /mnt/lustre)"
                                    % (here, path))
        if path in paths:
            raise LustreClientError("%s.path %s is already mounted by %s; one file system per mount point" % (here, path, paths[path]))
        for other, other_where in paths.items():
            if path.startswith(other + "/") or other.startswith(path + "/"):
                raise LustreClientError("%s.path %s and %s (%s) are nested; mount Lustre file systems side by side"
                                        % (here, path, other, other_where))
        paths[path] = here
        nodes = need_list(mount.get("mgs_nids"), here + ".mgs_nids")
        if not nodes:
            raise LustreClientError("%s.mgs_nids is empty; give the MGS NID, and the failover MGS's as a second entry" % here)
        specs = []
        for node_index, node in enumerate(nodes):
            node_where = "%s.mgs_nids[%d]" % (here, node_index)
            nids = [check_nid(n, node_where) for n in need_str(node, node_where).split(",")]
            for nid in nids:
                if known is not None and nid["net"] not in known:
                    raise LustreClientError(
                        "%s NID %s is on LNet network %s, which this client does not have (%s); add it to "
                        "lustre_client_lnet_networks (this role configures no LNet routes)"
                        % (node_where, nid["nid"], nid["net"], ", ".join(known) or "none"))
            specs.append(",".join(n["nid"] for n in nids))
        if len(set(specs)) != len(specs):
            raise LustreClientError("%s.mgs_nids lists one MGS node twice: %s" % (here, specs))
        options = check_options(mount.get("options", list(DEFAULT_OPTIONS[1:])), here + ".options", flock)
        if "_netdev" not in options:
            options.append("_netdev")   # a network file system: ordered after the network, unmounted before it
        retry = need_int(mount.get("retry", 5), here + ".retry", 0, MAX_RETRIES)
        timeout = need_int(mount.get("timeout_s", 300), here + ".timeout_s", 1, 86400)
        result.append({
            "unit": mount_unit_name(path),
            "path": path,
            "fsname": fsname,
            "what": "%s:/%s" % (":".join(specs), fsname),
            "mgs_nids": specs,
            "options": ",".join(options + ["retry=%d" % retry]),
            "retry": retry,
            "timeout_s": timeout,
        })
    return result
