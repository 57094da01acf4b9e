# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Lustre client tuning: the ``lctl set_param`` arguments a boot unit applies after the mounts, checked.

Limits (Lustre Operations Manual, "Tuning the Client I/O RPC Stream" and "Tuning File Readahead"; the
kernel's own checks in ``lustre/osc/lproc_osc.c`` and ``lustre/llite/lproc_llite.c``):

* ``osc.*.max_pages_per_rpc``: pages per bulk RPC, a power of two from 1 to ``PTLRPC_MAX_BRW_SIZE`` (16 MiB)
  in pages, 4096 with 4 KiB pages; 1024 pages = 4 MiB RPCs, the OST's default ``brw_size`` since 2.12.
* ``osc.*.max_rpcs_in_flight``: 1 to 256 (``OSC_MAX_RIF_MAX``).
* ``llite.*.max_read_ahead_mb``: 0 (off) to half the node's RAM.
* ``llite.*.max_read_ahead_per_file_mb``: 0 to ``max_read_ahead_mb``.
"""
from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping, Optional

from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre_client_checks import (
    LustreClientError,
    need_int,
    need_mapping,
)

MIB = 1024 * 1024
#: PTLRPC_MAX_BRW_SIZE: the largest bulk RPC, 16 MiB (lustre_net.h, LNET_MTU x PTLRPC_BULK_OPS_COUNT).
PTLRPC_MAX_BRW_SIZE = 16 * MIB
OSC_MAX_RIF_MAX = 256
#: The four settings the issue names, each with its lctl parameter.
PARAMS = (
    ("max_pages_per_rpc", "osc.*.max_pages_per_rpc"),
    ("max_rpcs_in_flight", "osc.*.max_rpcs_in_flight"),
    ("max_read_ahead_mb", "llite.*.max_read_ahead_mb"),
    ("max_read_ahead_per_file_mb", "llite.*.max_read_ahead_per_file_mb"),
)
#: Further parameters: device.name[.name...] with * globs, as lctl writes them.
EXTRA_NAME_RE = re.compile(r"^[a-z]+\.[A-Za-z0-9_*-]+(\.[A-Za-z0-9_*-]+)+$")
EXTRA_VALUE_RE = re.compile(r"^[A-Za-z0-9_.:%-]+$")


def tuning_plan(settings: Any, page_size: int = 4096, memtotal_mb: Optional[int] = None,
                extra: Optional[Mapping[str, Any]] = None, where: str = "lustre_client_tuning") -> Dict[str, Any]:
    """Checked ``lctl set_param`` arguments for the four client settings (all required) and extra parameters.

    Returns ``params`` (``["osc.*.max_pages_per_rpc=1024", ...]``), ``rpc_bytes`` (pages x page size),
    ``in_flight_bytes_per_ost`` (RPC size x RPCs in flight: what one client can have outstanding to one OST)
    and ``max_pages_per_rpc_limit``.
    """
    values = need_mapping(settings, where)
    unknown = sorted(set(values) - {k for k, _path in PARAMS})
    if unknown:
        raise LustreClientError("%s has unknown keys %s; put other parameters in lustre_client_tuning_extra" % (where, unknown))
    missing = [k for k, _path in PARAMS if k not in values]
    if missing:
        raise LustreClientError("%s is missing %s; give all four (the role's defaults show them)" % (where, ", ".join(missing)))
    page_size = need_int(page_size, "page size", 4096)
    if page_size & (page_size - 1):
        raise LustreClientError("page size %d is not a power of two; the kernel's page size is 4096 or 65536" % page_size)
    limit = PTLRPC_MAX_BRW_SIZE // page_size
    pages = need_int(values["max_pages_per_rpc"], where + ".max_pages_per_rpc", 1, limit)
    if pages & (pages - 1):
        lower = 1 << (pages.bit_length() - 1)
        raise LustreClientError("%s.max_pages_per_rpc %d is not a power of two; Lustre rounds RPCs to powers of two. Use "
                                "%d or %d (1024 = 4 MiB RPCs with 4 KiB pages)" % (where, pages, lower, min(lower * 2, limit)))
    rif = need_int(values["max_rpcs_in_flight"], where + ".max_rpcs_in_flight", 1, OSC_MAX_RIF_MAX)
    ahead = need_int(values["max_read_ahead_mb"], where + ".max_read_ahead_mb", 0)
    if memtotal_mb is not None and ahead > need_int(memtotal_mb, "memtotal_mb", 1) // 2:
        raise LustreClientError("%s.max_read_ahead_mb %d is above half this node's %d MiB of RAM (%d); Lustre refuses it. "
                                "Use at most %d" % (where, ahead, memtotal_mb, memtotal_mb // 2, memtotal_mb // 2))
    per_file = need_int(values["max_read_ahead_per_file_mb"], where + ".max_read_ahead_per_file_mb", 0)
    if per_file > ahead:
        raise LustreClientError("%s.max_read_ahead_per_file_mb %d is above max_read_ahead_mb %d; Lustre refuses a file "
                                "read-ahead above the client's. Use at most %d" % (where, per_file, ahead, ahead))
    checked = {"max_pages_per_rpc": pages, "max_rpcs_in_flight": rif, "max_read_ahead_mb": ahead,
               "max_read_ahead_per_file_mb": per_file}
    params: List[str] = ["%s=%d" % (name, checked[key]) for key, name in PARAMS]
    for name, value in (need_mapping(extra, "lustre_client_tuning_extra") if extra else {}).items():
        if not isinstance(name, str) or not EXTRA_NAME_RE.match(name):
            raise LustreClientError("lustre_client_tuning_extra key %r is not an lctl parameter like osc.*.checksums" % (name,))
        if any(name == p for _key, p in PARAMS):
            raise LustreClientError("lustre_client_tuning_extra sets %s, which %s already sets; set it there" % (name, where))
        text = ("1" if value else "0") if isinstance(value, bool) else str(value)
        if not EXTRA_VALUE_RE.match(text):
            raise LustreClientError("lustre_client_tuning_extra.%s value %r has blanks or quotes; lctl takes one word" % (name, text))
        params.append("%s=%s" % (name, text))
    rpc = pages * page_size
    return {"params": params, "settings": checked, "rpc_bytes": rpc, "in_flight_bytes_per_ost": rpc * rif,
            "max_pages_per_rpc_limit": limit}
