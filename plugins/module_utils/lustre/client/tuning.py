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

import math
import re
from typing import Any, Dict, List, Mapping, Optional

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import unknown_keys
from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.client.checks import (
    LustreClientError,
    need_int,
    need_mapping,
)

MIB = 1024 * 1024
#: PTLRPC_MAX_BRW_SIZE: the largest bulk RPC, 16 MiB (lustre_net.h, LNET_MTU x PTLRPC_BULK_OPS_COUNT).
PTLRPC_MAX_BRW_SIZE = 16 * MIB
OSC_MAX_RIF_MAX = 256
#: Read-ahead in MiB: the kernel keeps it in an unsigned long of pages; 2**31 - 1 MiB (2 PiB) is far above any RAM.
MAX_MB = 2 ** 31 - 1
#: The four settings the issue names, each with its lctl parameter.
PARAMS = (
    ("max_pages_per_rpc", "osc.*.max_pages_per_rpc"),
    ("max_rpcs_in_flight", "osc.*.max_rpcs_in_flight"),
    ("max_read_ahead_mb", "llite.*.max_read_ahead_mb"),
    ("max_read_ahead_per_file_mb", "llite.*.max_read_ahead_per_file_mb"),
)
#: Linux page sizes: 4 KiB (x86_64), 16 KiB and 64 KiB (arm64, ppc64le). Lustre's largest RPC (16 MiB) must hold
#: at least one page, and lustre supports pages up to 64 KiB.
PAGE_SIZES = (4096, 16384, 65536)
#: Further parameters: device.name[.name...] with * globs, as lctl writes them (applied with fullmatch).
EXTRA_NAME_RE = re.compile(r"[a-z]+\.[A-Za-z0-9_*-]+(\.[A-Za-z0-9_*-]+)+")
EXTRA_VALUE_RE = re.compile(r"[A-Za-z0-9_.:%-]{1,255}")
EXTRA_VALUE_ALLOWED = ("one word of 1-255 letters, digits, '_', '.', ':', '%' or '-', a whole number, a finite "
                       "number or true/false (lctl set_param takes name=value with no blank)")


def _extra_value(name: str, value: Any) -> str:
    """The text lctl set_param gets for one extra parameter; None, NaN, infinity and control characters refused."""
    where = "lustre_client_tuning_extra.%s" % name
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)
    if isinstance(value, str) and EXTRA_VALUE_RE.fullmatch(value):
        return value
    raise LustreClientError("%s: %r (%s) is not allowed; expected %s"
                            % (where, value, type(value).__name__, EXTRA_VALUE_ALLOWED))


def tuning_plan(settings: Any, page_size: int = 4096, memtotal_mb: Optional[int] = None,
                extra: Optional[Mapping[str, Any]] = None, where: str = "lustre_client_tuning") -> Dict[str, Any]:
    """Checked ``lctl set_param`` arguments for the four client settings (all required) and extra parameters.

    Returns ``params`` (``["osc.*.max_pages_per_rpc=1024", ...]``), ``rpc_bytes`` (pages x page size),
    ``in_flight_bytes_per_ost`` (RPC size x RPCs in flight: what one client can have outstanding to one OST)
    and ``max_pages_per_rpc_limit``.
    """
    values = need_mapping(settings, where)
    unknown_keys(where, values, (k for k, _path in PARAMS), LustreClientError,
                 hint="put other parameters in lustre_client_tuning_extra")
    missing = [k for k, _path in PARAMS if k not in values]
    if missing:
        raise LustreClientError("%s is missing %s; give all four (the role's defaults show them)" % (where, ", ".join(missing)))
    page_size = need_int(page_size, "page size", PAGE_SIZES[0], PAGE_SIZES[-1])
    if page_size not in PAGE_SIZES:
        raise LustreClientError("page size %d is not a kernel page size; use one of %s (bytes)"
                                % (page_size, ", ".join(str(p) for p in PAGE_SIZES)))
    limit = PTLRPC_MAX_BRW_SIZE // page_size   # 4096 pages of 4 KiB ... 256 pages of 64 KiB, never 0
    pages = need_int(values["max_pages_per_rpc"], where + ".max_pages_per_rpc", 1, limit)
    if pages & (pages - 1):
        lower = 1 << (pages.bit_length() - 1)
        raise LustreClientError("%s.max_pages_per_rpc %d is not a power of two; Lustre rounds RPCs to powers of two. Use "
                                "%d or %d (1024 = 4 MiB RPCs with 4 KiB pages)" % (where, pages, lower, min(lower * 2, limit)))
    rif = need_int(values["max_rpcs_in_flight"], where + ".max_rpcs_in_flight", 1, OSC_MAX_RIF_MAX)
    ahead = need_int(values["max_read_ahead_mb"], where + ".max_read_ahead_mb", 0, MAX_MB)
    if memtotal_mb is not None and ahead > need_int(memtotal_mb, "memtotal_mb", 1) // 2:
        raise LustreClientError("%s.max_read_ahead_mb %d is above half this node's %d MiB of RAM (%d); Lustre refuses it. "
                                "Use at most %d" % (where, ahead, memtotal_mb, memtotal_mb // 2, memtotal_mb // 2))
    per_file = need_int(values["max_read_ahead_per_file_mb"], where + ".max_read_ahead_per_file_mb", 0, MAX_MB)
    if per_file > ahead:
        raise LustreClientError("%s.max_read_ahead_per_file_mb %d is above max_read_ahead_mb %d; Lustre refuses a file "
                                "read-ahead above the client's. Use at most %d" % (where, per_file, ahead, ahead))
    checked = {"max_pages_per_rpc": pages, "max_rpcs_in_flight": rif, "max_read_ahead_mb": ahead,
               "max_read_ahead_per_file_mb": per_file}
    params: List[str] = ["%s=%d" % (name, checked[key]) for key, name in PARAMS]
    for name, value in (need_mapping(extra, "lustre_client_tuning_extra") if extra else {}).items():
        if not isinstance(name, str) or len(name) > 255 or not EXTRA_NAME_RE.fullmatch(name):
            raise LustreClientError("lustre_client_tuning_extra: key %r is not allowed; expected an lctl parameter like "
                                    "osc.*.checksums (a lower-case device type, then '.'-separated names of letters, "
                                    "digits, '_', '*' or '-')" % (name,))
        if any(name == p for _key, p in PARAMS):
            raise LustreClientError("lustre_client_tuning_extra sets %s, which %s already sets; set it there" % (name, where))
        text = _extra_value(name, value)
        params.append("%s=%s" % (name, text))
    rpc = pages * page_size
    return {"params": params, "settings": checked, "rpc_bytes": rpc, "in_flight_bytes_per_ost": rpc * rif,
            "max_pages_per_rpc_limit": limit}
