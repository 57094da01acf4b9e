# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The default layout of each listed Lustre directory, as arguments for the lfs_stripe module.

The directories are described once, in the form of ``gpufleet_plan_lustre.directories`` (docs/plan.md): a
``name`` under the mount point (or an absolute ``path`` under one of the client's mounts) and ``apply``:

* ``stripe_plan``: one fixed count from bandwidth (``lustre.striping.stripe_plan``: ``pattern``, ``clients``,
  ``client_bw_gbs``, the OSTs' bandwidth): big files many GPUs read at once (datasets).
* ``pfl``: a progressive file layout from the file sizes (``lustre.striping.pfl_layout``: ``sizes``):
  directories of mixed sizes (checkpoints, scratch).
* ``plain``: an explicit ``stripe_count`` (-1 = every OST) and optional ``stripe_size``.

The numbers are those ``playbooks/plan.yml`` writes into lustre.md for the same directories, because both
call the same two functions (unit tests hold them equal).
"""
from __future__ import annotations

import posixpath
import re
import shlex
from typing import Any, Dict, List, Optional, Sequence

from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.client.checks import (
    LustreClientError,
    need_int,
    need_kind,
    need_list,
    need_mapping,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import unknown_keys
from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.striping import (
    DEFAULT_STRIPE_SIZE,
    MAX_STRIPE_COUNT,
    MAX_STRIPE_SIZE,
    STRIPE_ALIGN,
    StripingError,
    lfs_size,
    pfl_layout,
    stripe_plan,
)

APPLY = ("stripe_plan", "pfl", "plain")
DIRECTORY_KEYS = {"name", "path", "description", "apply", "pattern", "clients", "client_bw_gbs", "files", "sizes",
                  "stripe_size", "stripe_count", "pool", "mode", "owner", "group"}
POOL_RE = re.compile(r"[A-Za-z0-9_-]{1,15}")     # LOV_MAXPOOLNAME 15; applied with fullmatch
MODE_RE = re.compile(r"0?[0-7]{3,4}")
#: A user or group for ansible.builtin.file: a name (useradd's NAME_REGEX, widened to upper case and '.') or a number.
OWNER_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,31}|[0-9]{1,10}")
OWNER_ALLOWED = "a user/group name (a letter or '_', then up to 31 letters, digits, '_', '.' or '-') or a numeric id"


def _owner(value: Any, where: str) -> str:
    text = str(value) if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else value
    if not isinstance(text, str) or OWNER_RE.fullmatch(text) is None:
        raise LustreClientError("%s: %r is not allowed; expected %s" % (where, value, OWNER_ALLOWED))
    return text


def _under(path: str, mounts: Sequence[str]) -> Optional[str]:
    for mount in mounts:
        if path.startswith(mount.rstrip("/") + "/"):
            return mount
    return None


def directory_layouts(directories: Any, mountpoint: str, ost_count: Any, ost_bw_gbs: Any = None,
                      mount_paths: Optional[Sequence[str]] = None,
                      where: str = "lustre_client_directories") -> List[Dict[str, Any]]:
    """Per directory: ``path``, ``apply``, ``layout`` (lfs_stripe's arguments), ``command``, ``reasoning``,
    ``mode``/``owner``/``group`` for its creation, ``mount`` (the mount point it lies under).

    ``layout`` is ``{stripe_count, stripe_size ('1M'), pool}`` for stripe_plan and plain, and
    ``{components, pool}`` for pfl (the components pfl_layout returns). ``mount_paths`` defaults to
    ``[mountpoint]``; every directory must lie strictly below one of them.
    """
    mountpoint = need_kind("mount_path", mountpoint, "mount point")
    mounts = [need_kind("mount_path", m, "mount_paths[%d]" % i) for i, m in enumerate(mount_paths or [mountpoint])]
    result: List[Dict[str, Any]] = []
    seen: Dict[str, str] = {}
    for index, item in enumerate(need_list(directories, where)):
        here = "%s[%d]" % (where, index)
        d = need_mapping(item, here)
        unknown_keys(here, d, DIRECTORY_KEYS, LustreClientError,
                     hint="see docs/lustre-client.md for a directory's keys")
        if ("name" in d) == ("path" in d):
            raise LustreClientError("%s needs exactly one of name (under %s) or path (absolute, under a mount)" % (here, mountpoint))
        if "name" in d:
            name = need_kind("lustre_path", d["name"], here + ".name")
            path = posixpath.join(mountpoint, name)
        else:
            path = need_kind("mount_path", d["path"], here + ".path")
            if path != posixpath.normpath(path) or not path.startswith("/"):
                raise LustreClientError("%s.path %r must be absolute and normalised" % (here, path))
        mount = _under(path, mounts)
        if mount is None:
            raise LustreClientError("%s (%s) is not below a Lustre mount of this client (%s); a layout is set only on "
                                    "Lustre" % (here, path, ", ".join(mounts)))
        if path in seen:
            raise LustreClientError("%s (%s) is listed twice (also %s); one layout per directory" % (here, path, seen[path]))
        seen[path] = here
        apply = d.get("apply", "pfl")
        if apply not in APPLY:
            raise LustreClientError("%s.apply %r must be one of %s" % (here, apply, ", ".join(APPLY)))
        osts = need_int(ost_count, "OST count (lustre_client_ost_count)", 1)
        size = d.get("stripe_size", DEFAULT_STRIPE_SIZE)
        pool = d.get("pool")
        if pool is not None and not (isinstance(pool, str) and POOL_RE.fullmatch(pool)):
            raise LustreClientError("%s.pool: %r is not allowed; expected an OST pool name (1-15 of A-Z a-z 0-9 _ -)"
                                    % (here, pool))
        size = need_int(size, here + ".stripe_size", STRIPE_ALIGN, MAX_STRIPE_SIZE)
        if size % STRIPE_ALIGN:
            raise LustreClientError("%s.stripe_size %d is not a multiple of 64 KiB (65536); Lustre refuses it. Use %d"
                                    % (here, size, (size // STRIPE_ALIGN + 1) * STRIPE_ALIGN))
        try:
            if apply == "stripe_plan":
                if ost_bw_gbs is None:
                    raise LustreClientError("%s applies stripe_plan, which needs the OSTs' bandwidth "
                                            "(lustre_client_ost_bw_gbs); set it or use pfl/plain" % here)
                for key in ("pattern", "clients", "client_bw_gbs"):
                    if key not in d:
                        raise LustreClientError("%s applies stripe_plan and needs %s" % (here, key))
                plan = stripe_plan(osts, ost_bw_gbs, d["clients"], d["client_bw_gbs"], pattern=d["pattern"],
                                   stripe_size=size, files=d.get("files"))
                layout: Dict[str, Any] = {"stripe_count": plan["stripe_count"], "stripe_size": plan["stripe_size_lfs"]}
                args, reasoning = plan["lfs_setstripe_args"], plan["reasoning"]
            elif apply == "pfl":
                if "sizes" not in d:
                    raise LustreClientError("%s applies pfl and needs sizes ({p50_bytes, p90_bytes, max_bytes} or a list)" % here)
                sizes = d["sizes"]
                pfl = pfl_layout(dict(sizes) if isinstance(sizes, dict) else sizes, osts, stripe_size=size, path=path)
                layout = {"components": pfl["components"]}
                args, reasoning = pfl["lfs_setstripe_args"], pfl["reasoning"]
            else:
                count = need_int(d.get("stripe_count"), here + ".stripe_count", -1)
                if count == 0 or count > min(osts, MAX_STRIPE_COUNT):
                    raise LustreClientError("%s.stripe_count %d must be -1 (every OST) or 1-%d (the OSTs)"
                                            % (here, count, min(osts, MAX_STRIPE_COUNT)))
                layout = {"stripe_count": count, "stripe_size": lfs_size(size)}
                args = ["-c", str(count), "-S", lfs_size(size)]
                reasoning = ["explicit: %d stripe(s) of %s" % (count, lfs_size(size))]
        except StripingError as exc:
            raise LustreClientError("%s (%s): %s" % (here, path, exc))
        if pool is not None:
            layout["pool"] = pool
            args = list(args) + ["-p", pool]
        given = d.get("mode", "0755")
        mode = str(given) if isinstance(given, int) and not isinstance(given, bool) else given
        if not isinstance(mode, str) or not MODE_RE.fullmatch(mode):
            raise LustreClientError("%s.mode: %r is not allowed; expected an octal mode as a quoted string, like '0755' "
                                    "or '1777' (unquoted YAML 0755 is read as the number 493)" % (here, given))
        description = input_rules.free_text(here + ".description", d.get("description", ""), LustreClientError,
                                            allow_empty=True)
        result.append({
            "path": path, "mount": mount, "apply": apply, "description": description,
            "layout": layout, "lfs_setstripe_args": list(args), "reasoning": list(reasoning),
            "command": "lfs setstripe %s %s" % (" ".join(args), shlex.quote(path)),
            "mode": mode if len(mode) == 4 else "0" + mode,
            "owner": _owner(d.get("owner", "root"), here + ".owner"),
            "group": _owner(d.get("group", "root"), here + ".group"),
        })
    return result
