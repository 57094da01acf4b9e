# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Lustre striping: lfs_migrate's auto stripe count, a bandwidth stripe plan, PFL layouts, lfs df.

All sizes are integers (bytes or KiB as the name says); bandwidths are GB/s floats that are
converted to exact fractions (``Fraction(str(x))``) so that ``ceil`` never suffers from
binary rounding (3 x 0.1 / 0.3 is exactly 1). See docs/lustre-striping.md for the formulas
and worked examples.
"""
from __future__ import annotations

import math
import re
import shlex
from fractions import Fraction
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import list_of, must_be

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB
#: Lustre: stripe size is a multiple of 64 KiB and below 4 GiB (lfs takes at most 4 GiB - 64 KiB); a layout has at
#: most 2000 stripes.
STRIPE_ALIGN = 64 * KIB
MAX_STRIPE_SIZE = 4 * GIB - STRIPE_ALIGN
MAX_STRIPE_COUNT = 2000
DEFAULT_STRIPE_SIZE = 1 * MIB
#: The largest component end that means anything: Linux keeps file offsets in a signed 64-bit loff_t, so no file
#: (Lustre's included: llite caps s_maxbytes at MAX_LFS_FILESIZE, 2**63 - 1) reaches byte 2**63. lfs's own size
#: parser (llapi_parse_size) refuses 2**64 (16777216T) outright; anything from 2**64 - 1 up is LUSTRE_EOF.
MAX_EXTENT_END = 2 ** 63
#: Bandwidth in GB/s of one OST or one client: far above any device (an 800 Gb/s NIC is 100 GB/s), low enough
#: that clients x bandwidth stays a finite float.
MAX_RATE_GBS = 100000
#: OSTs of one file system: an OST index is 16 bits (LOV_V1_INSANE_STRIPE_COUNT 65532 stripes at most).
MAX_OST_COUNT = 65536
#: Clients or files of one access pattern.
MAX_CLIENTS = 10 ** 9

PATTERNS = ("shared_file", "file_per_process")


class StripingError(ValueError):
    """An input that cannot give a valid Lustre layout."""


# ---------------------------------------------------------------- checks and units
def _int(name: str, value: Any, minimum: Optional[int] = None, maximum: Optional[int] = None) -> int:
    # bool is an int subclass; True stripes is a bug, not 1.
    if isinstance(value, bool) or not isinstance(value, int):
        raise must_be(name, value, "an integer", StripingError)
    if minimum is not None and value < minimum:
        raise StripingError("%s is %d, below the minimum of %d; use a value >= %d" % (name, value, minimum, minimum))
    if maximum is not None and value > maximum:
        raise StripingError("%s is %d, above the maximum of %d; use a value <= %d" % (name, value, maximum, maximum))
    return value


def _rate(name: str, value: Any) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise must_be(name, value, "a number of GB/s", StripingError)
    if not math.isfinite(value) or not 0 < value <= MAX_RATE_GBS:
        raise StripingError("%s is %r GB/s; it must be a finite number above 0 and at most %d GB/s"
                            % (name, value, MAX_RATE_GBS))
    return Fraction(str(value))


def _stripe_size(name: str, value: Any) -> int:
    _int(name, value, 1)
    if value % STRIPE_ALIGN:
        lower = value // STRIPE_ALIGN * STRIPE_ALIGN
        raise StripingError(
            "%s %d bytes is not a multiple of 64 KiB (65536); Lustre refuses it, use %d or %d"
            % (name, value, max(lower, STRIPE_ALIGN), lower + STRIPE_ALIGN)
        )
    if value > MAX_STRIPE_SIZE:
        raise StripingError(
            "%s %d bytes is above Lustre's limit of 4 GiB - 64 KiB (%d); use at most 4095M, 1M-4M is usual"
            % (name, value, MAX_STRIPE_SIZE)
        )
    return value


def lfs_size(num_bytes: int) -> str:
    """Bytes in lfs syntax with the largest exact unit: 1048576 -> '1M', 65536 -> '64K'."""
    for suffix, factor in (("T", 1024 * GIB), ("G", GIB), ("M", MIB), ("K", KIB)):
        if num_bytes and num_bytes % factor == 0:
            return "%d%s" % (num_bytes // factor, suffix)
    return str(num_bytes)


_HUMAN_RE = re.compile(r"(\d+(?:\.\d+)?)([KMGTPE]?)")
_HUMAN_POWER = {"": 0, "K": 1, "M": 2, "G": 3, "T": 4, "P": 5, "E": 6}


def human_to_kib(text: str) -> int:
    """``lfs df -h`` value (binary units, 1 decimal) to KiB, rounded to nearest: '2.6G' -> 2726298."""
    match = _HUMAN_RE.fullmatch(text)
    if not match:
        raise StripingError("%r is not an lfs -h size like '2.6G' or '512.0K'" % (text,))
    num_bytes = Fraction(match.group(1)) * 1024 ** _HUMAN_POWER[match.group(2)]
    return int(num_bytes / KIB + Fraction(1, 2))


# ---------------------------------------------------------------- lfs df
_LINE_RE = re.compile(
    r"(?P<uuid>\S+)\s+(?P<size>\S+)\s+(?P<used>\S+)\s+(?P<avail>\S+)\s+(?P<pct>\d+%|-)\s+"
    r"(?P<mount>\S+?)\[(?P<kind>MDT|OST):(?P<index>\d+)\]"
)
_INACTIVE_RE = re.compile(r"(?P<uuid>\S+?)\s*:\s*inactive device")
_TARGET_RE = re.compile(r"(MDT|OST)([0-9a-fA-F]{4,})")


def parse_lfs_df(text: str) -> List[Dict[str, Any]]:
    """Per-target entries of ``lfs df`` or ``lfs df -h`` output (several file systems allowed).

    Each entry: uuid, kind ('OST'/'MDT'), index, size_kib, used_kib, avail_kib, use_pct, mount,
    active, approximate (True for -h values, which lfs rounds to 3 significant digits).
    Inactive targets (``OST0001 : inactive device``) have active False and None sizes; their
    mount is the one of the block they appear in.
    """
    if not isinstance(text, str):
        raise must_be("lfs df output", text, "a string", StripingError)
    entries: List[Dict[str, Any]] = []
    human = None
    mount = None
    block_start = 0

    def close_block() -> None:  # inactive lines carry no mount: take their block's
        mounts = [e["mount"] for e in entries[block_start:] if e["mount"]]
        for entry in entries[block_start:]:
            entry["mount"] = entry["mount"] or (mounts[0] if mounts else None)

    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("filesystem"):
            continue
        if line.startswith("UUID"):
            header = line.split()
            if len(header) < 2 or header[1] not in ("1K-blocks", "bytes"):
                raise StripingError(
                    "lfs df header %r: expected '1K-blocks' or 'bytes' as second column (inode "
                    "output 'lfs df -i' is not supported); run 'lfs df' or 'lfs df -h'" % line
                )
            close_block()
            human, mount, block_start = header[1] == "bytes", None, len(entries)
            continue
        inactive = _INACTIVE_RE.fullmatch(line)
        if inactive:
            target = _TARGET_RE.search(inactive.group("uuid"))
            if target is None:
                raise StripingError("lfs df line %r: cannot find MDTxxxx/OSTxxxx in the name" % line)
            entries.append({
                "uuid": inactive.group("uuid"), "kind": target.group(1), "index": int(target.group(2), 16),
                "size_kib": None, "used_kib": None, "avail_kib": None, "use_pct": None,
                "mount": mount, "active": False, "approximate": False,
            })
            continue
        match = _LINE_RE.fullmatch(line)
        if match is None:
            raise StripingError("lfs df line %r is not a target line '<uuid> <size> <used> <avail> <use%%> "
                                "<mount>[OST:n]'" % line)
        if human is None:
            raise StripingError("lfs df line %r comes before any 'UUID ...' header line" % line)
        convert = human_to_kib if human else int
        mount = match.group("mount")
        pct = match.group("pct")
        entries.append({
            "uuid": match.group("uuid"), "kind": match.group("kind"), "index": int(match.group("index")),
            "size_kib": convert(match.group("size")), "used_kib": convert(match.group("used")),
            "avail_kib": convert(match.group("avail")), "use_pct": None if pct == "-" else int(pct[:-1]),
            "mount": mount, "active": True, "approximate": bool(human),
        })
    close_block()
    return entries


def ost_avail_kib(entries: Sequence[Mapping[str, Any]], mount: Optional[str] = None) -> List[Optional[int]]:
    """OST available KiB (None for inactive OSTs) of one file system from parse_lfs_df() entries."""
    mounts = sorted({e["mount"] for e in entries if e["kind"] == "OST"})
    if not mounts:
        raise StripingError("the lfs df output lists no OST; run 'lfs df <mountpoint>' on a Lustre client")
    if mount is None:
        if len(mounts) > 1:
            raise StripingError("the lfs df output covers %d file systems (%s); say which with mount=..."
                                % (len(mounts), ", ".join(mounts)))
        mount = mounts[0]
    elif mount not in mounts:
        raise StripingError("mount %r is not in the lfs df output; it has %s" % (mount, ", ".join(mounts)))
    return [e["avail_kib"] for e in entries if e["kind"] == "OST" and e["mount"] == mount]


# ---------------------------------------------------------------- lfs_migrate --auto-stripe
def stripe_count_auto(
    size_kib: int,
    ost_avail_kib: Sequence[Optional[int]],
    cap: int = 100,
    min_free_kib: int = 262144,
    max_free_kib: Optional[int] = None,
) -> int:
    """Stripe count ``lfs_migrate -A [-C cap] [-M min_free] [-X max_free]`` picks for a file.

    Follows calc_stripe() in lustre/scripts/lfs_migrate: size_gib = size_kib // 1048576;
    count = 1 + isqrt(size_gib); an OST is eligible when its available KiB (clipped to
    max_free_kib) is >= min_free_kib; cap_kib = smallest eligible avail // cap; a file
    under 1 GiB that fits in cap_kib gets 1; if size_kib > count * cap_kib then
    count = (size_kib + cap_kib - 1024) // cap_kib; count is clamped to the eligible OSTs.
    No eligible OST is refused (calc_stripe's -1 would stripe onto full OSTs). None in ost_avail_kib is an
    inactive OST.
    """
    _int("size_kib", size_kib, 0)
    _int("cap", cap, 1)
    _int("min_free_kib", min_free_kib, 0)
    if max_free_kib is not None:
        _int("max_free_kib", max_free_kib, 0)
    list_of("ost_avail_kib", ost_avail_kib, StripingError, "a list of per-OST available KiB")
    if not ost_avail_kib:
        raise StripingError("ost_avail_kib is empty; give the available KiB of each OST (column 4 of 'lfs df')")
    eligible = []
    for index, avail in enumerate(ost_avail_kib):
        if avail is None:
            continue  # inactive: lfs_migrate's '-ge' test fails on 'device' and skips it
        _int("ost_avail_kib[%d]" % index, avail, 0)
        if max_free_kib is not None and avail > max_free_kib:
            avail = max_free_kib
        if avail >= min_free_kib:
            eligible.append(avail)
    if not eligible:
        active = [a for a in ost_avail_kib if a is not None]
        raise StripingError(
            "no OST is eligible: none of the %d OST(s) has min_free_kib=%d KiB available (the most any active OST "
            "has is %s KiB; %d inactive), so lfs_migrate would stripe over all OSTs (-1) onto full ones; free space "
            "on the OSTs or lower min_free_kib" % (len(ost_avail_kib), min_free_kib,
                                                   max(active) if active else "none", len(ost_avail_kib) - len(active)))
    cap_kib = min(eligible) // cap
    if cap_kib == 0:
        raise StripingError(
            "object size cap is 0 KiB: the smallest eligible OST has %d KiB available, fewer than "
            "cap=%d (lfs_migrate would divide by zero); lower cap or raise min_free_kib" % (min(eligible), cap)
        )
    size_gib = size_kib // 1048576
    if size_gib < 1 and size_kib <= cap_kib:
        return 1
    count = 1 + math.isqrt(size_gib)
    if size_kib > count * cap_kib:
        count = (size_kib + cap_kib - 1024) // cap_kib  # lfs_migrate: "round up to the nearest MB"
    # The caller in lfs_migrate turns counts below 1 into 1 (only possible when cap_kib < 1024).
    return max(1, min(count, len(eligible)))


# ---------------------------------------------------------------- bandwidth plan
def _gbs(value: Fraction) -> float:
    return round(float(value), 6)


def stripe_plan(
    ost_count: int,
    ost_bw_gbs: float,
    clients: int,
    client_bw_gbs: float,
    pattern: str = "shared_file",
    stripe_size: int = DEFAULT_STRIPE_SIZE,
    stripe_count: Optional[int] = None,
    files: Optional[int] = None,
) -> Dict[str, Any]:
    """Stripe count and size for an access pattern, with the expected bandwidth and why.

    shared_file: all clients on one file, stripes = ceil(clients x client_bw / ost_bw) in
    [1, OSTs]. file_per_process: one file per client (or ``files``), 1 stripe each unless
    files < OSTs, then ceil(OSTs / files) so that files x stripes covers every OST.
    """
    _int("ost_count", ost_count, 1, MAX_OST_COUNT)
    _int("clients", clients, 1, MAX_CLIENTS)
    ost_bw = _rate("ost_bw_gbs", ost_bw_gbs)
    client_bw = _rate("client_bw_gbs", client_bw_gbs)
    if pattern not in PATTERNS:
        raise StripingError("pattern %r is unknown; use one of %s" % (pattern, ", ".join(PATTERNS)))
    _stripe_size("stripe_size", stripe_size)
    limit = min(ost_count, MAX_STRIPE_COUNT)
    nfiles = 1 if pattern == "shared_file" else (clients if files is None else _int("files", files, 1, MAX_CLIENTS))
    if files is not None and pattern == "shared_file":
        raise StripingError("files=%r only applies to pattern 'file_per_process'; drop it" % (files,))
    demand = clients * client_bw
    reasons = ["demand: %d clients x %s GB/s = %s GB/s" % (clients, _gbs(client_bw), _gbs(demand))]
    if stripe_count is not None:
        _int("stripe_count", stripe_count, -1)
        if stripe_count == 0:
            raise StripingError("stripe_count 0 means 'file system default'; give 1..%d or -1 for all OSTs" % limit)
        if stripe_count > MAX_STRIPE_COUNT:
            raise StripingError("stripe_count %d is above Lustre's %d stripe limit; use at most %d"
                                % (stripe_count, MAX_STRIPE_COUNT, limit))
        if stripe_count > ost_count:
            raise StripingError("stripe_count %d asks for more stripes than the %d OSTs; use at most %d "
                                "or -1 for all" % (stripe_count, ost_count, limit))
        count = limit if stripe_count == -1 else stripe_count
        reasons.append("stripe count %d given explicitly%s" % (count, " (-1 = all OSTs)" if stripe_count == -1 else ""))
    elif pattern == "shared_file":
        needed = math.ceil(demand / ost_bw)
        count = max(1, min(needed, limit))
        reasons.append("stripes needed: ceil(%s / %s GB/s per OST) = %d" % (_gbs(demand), _gbs(ost_bw), needed))
        if needed > limit:
            reasons.append("clamped to %d: only %d OSTs%s" % (
                limit, ost_count, " (Lustre max 2000 stripes)" if ost_count > MAX_STRIPE_COUNT else ""))
    elif nfiles >= ost_count:
        count = 1
        reasons.append("%d files >= %d OSTs: 1 stripe per file spreads the files over all OSTs" % (nfiles, ost_count))
    else:
        count = min(-(-ost_count // nfiles), limit)
        reasons.append("%d files < %d OSTs: ceil(%d / %d) = %d stripes per file so files x stripes covers "
                       "every OST" % (nfiles, ost_count, ost_count, nfiles, count))
    if pattern == "shared_file":
        ost_limit = count * ost_bw
        aggregate = min(demand, ost_limit)
        reasons.append("aggregate: min(demand %s, %d stripes x %s = %s) = %s GB/s"
                       % (_gbs(demand), count, _gbs(ost_bw), _gbs(ost_limit), _gbs(aggregate)))
        ost_side = ost_limit
    else:
        # Round-robin placement: the files' stripes land on min(OSTs, files x count) OSTs.
        touched = min(ost_count, nfiles * count)
        ost_side = touched * ost_bw
        aggregate = min(demand, ost_side)
        reasons.append("aggregate: min(demand %s, %d OSTs used x %s = %s) = %s GB/s"
                       % (_gbs(demand), touched, _gbs(ost_bw), _gbs(ost_side), _gbs(aggregate)))
    if aggregate == demand:
        limiting = "client_bandwidth"
    elif count < limit and stripe_count is not None:
        limiting = "stripe_count"
    else:
        limiting = "ost_bandwidth"
    reasons.append("limited by %s" % limiting.replace("_", " "))
    return {
        "pattern": pattern, "ost_count": ost_count, "files": nfiles, "stripe_count": count,
        "stripe_size": stripe_size, "stripe_size_lfs": lfs_size(stripe_size),
        "demand_gbs": _gbs(demand), "ost_capacity_gbs": _gbs(ost_side), "aggregate_gbs": _gbs(aggregate),
        "limiting_factor": limiting, "reasoning": reasons,
        "lfs_setstripe_args": ["-c", str(count), "-S", lfs_size(stripe_size)],
    }


# ---------------------------------------------------------------- progressive file layout
def _percentiles(distribution: Union[Mapping[str, Any], Sequence[int]]) -> Dict[str, int]:
    if isinstance(distribution, Mapping):
        missing = [k for k in ("p50_bytes", "p90_bytes", "max_bytes") if k not in distribution]
        if missing:
            raise StripingError("file size distribution lacks %s; give p50_bytes, p90_bytes and max_bytes"
                                % ", ".join(missing))
        p = {k[:-6]: _int(k, distribution[k], 0, MAX_EXTENT_END - 1) for k in ("p50_bytes", "p90_bytes", "max_bytes")}
        if not p["p50"] <= p["p90"] <= p["max"]:
            raise StripingError("file sizes must satisfy p50 <= p90 <= max, got %d, %d, %d"
                                % (p["p50"], p["p90"], p["max"]))
        return p
    if isinstance(distribution, (str, bytes)) or not isinstance(distribution, (list, tuple)):
        raise must_be("file sizes", distribution, "a dict {p50_bytes, p90_bytes, max_bytes} or a list of sizes in "
                      "bytes", StripingError)
    if not distribution:
        raise StripingError("the list of file sizes is empty; give at least one size in bytes")
    sizes = sorted(_int("file size [%d]" % i, s, 0, MAX_EXTENT_END - 1) for i, s in enumerate(distribution))

    def rank(q: int) -> int:  # nearest-rank percentile
        return sizes[max(1, -(-q * len(sizes) // 100)) - 1]

    return {"p50": rank(50), "p90": rank(90), "max": sizes[-1]}


def _round_up(value: int, step: int) -> int:
    return -(-value // step) * step


def _pow2_ceil(value: int) -> int:
    return 1 << max(0, value - 1).bit_length()


def pfl_path(path: Any, where: str = "path") -> str:
    """The directory of an ``lfs setstripe`` command, shell-quoted: an absolute path (input rule mount_path) or one
    relative to the current directory (lustre_path) that does not start with '-', which lfs would read as an
    option (``lfs setstripe ... -c`` sets a stripe count instead of naming a directory)."""
    if isinstance(path, str) and path.startswith("/"):
        return shlex.quote(input_rules.check("mount_path", where, path, StripingError))
    text = input_rules.check("lustre_path", where, path, StripingError)
    if text.startswith("-"):
        raise StripingError("%s: %r is not allowed; expected a directory path that does not start with '-' (lfs "
                            "would read it as an option); give the absolute path, e.g. /lustre/%s"
                            % (where, path, text.lstrip("-") or "dir"))
    return shlex.quote(text)


def pfl_layout(
    sizes: Union[Mapping[str, Any], Sequence[int]],
    ost_count: int,
    stripe_size: int = DEFAULT_STRIPE_SIZE,
    last_stripe_size: int = 4 * MIB,
    first_extent_min: int = 64 * MIB,
    path: Optional[str] = None,
) -> Dict[str, Any]:
    """Progressive file layout: 1 stripe for small files, 4x more stripes per 16x longer extent.

    E1 = max(first_extent_min, pow2_ceil(p50)); E2 = max(16 x E1, pow2_ceil(p90)); then x16.
    Counts 1, 4, 16, ... clamped to the OSTs; the component that reaches all OSTs (or 2000)
    runs to EOF with last_stripe_size. Ends are multiples of both stripe sizes.
    """
    p = _percentiles(sizes)
    _int("ost_count", ost_count, 1, MAX_OST_COUNT)
    _stripe_size("stripe_size", stripe_size)
    _stripe_size("last_stripe_size", last_stripe_size)
    _int("first_extent_min", first_extent_min, 1, MAX_EXTENT_END)
    target = "<dir>" if path is None else pfl_path(path)
    limit = min(ost_count, MAX_STRIPE_COUNT)
    align = stripe_size * last_stripe_size // math.gcd(stripe_size, last_stripe_size)
    reasons = ["p50 %d, p90 %d, max %d bytes; %d OSTs" % (p["p50"], p["p90"], p["max"], ost_count)]
    end = _round_up(max(first_extent_min, _pow2_ceil(p["p50"])), align)
    reasons.append("first extent %s holds the median file in 1 stripe" % lfs_size(end))
    components: List[Dict[str, Any]] = []
    start, count = 0, 1
    while count < limit:
        if end > MAX_EXTENT_END:
            raise StripingError(
                "component %d would end at %d bytes (%s), beyond %d (%s): no file reaches it, since Linux file "
                "offsets stop at 2**63 - 1 and lfs refuses 16777216T (2**64); lower first_extent_min or the file "
                "sizes" % (len(components) + 1, end, lfs_size(end), MAX_EXTENT_END, lfs_size(MAX_EXTENT_END)))
        components.append({"start": start, "end": end, "stripe_count": count, "stripe_size": stripe_size})
        start, count = end, min(count * 4, limit)
        end = _round_up(max(end * 16, _pow2_ceil(p["p90"]) if len(components) == 1 else 0), align)
    last_size = last_stripe_size if count > 1 else stripe_size
    components.append({"start": start, "end": -1, "stripe_count": count, "stripe_size": last_size})
    reasons.append("stripe count x4 per component (x16 longer extents) up to %d, the last runs to EOF" % limit)
    args: List[str] = []
    for comp in components:
        args += ["-E", "-1" if comp["end"] == -1 else lfs_size(comp["end"]),
                 "-c", str(comp["stripe_count"]), "-S", lfs_size(comp["stripe_size"])]

    def stripes_for(size: int) -> int:  # stripe count in effect once a file of `size` is written
        return max([c["stripe_count"] for c in components if c["start"] < max(size, 1)] or [1])

    return {
        "components": components, "lfs_setstripe_args": args,
        "command": "lfs setstripe %s %s" % (" ".join(args), target),
        "percentiles": p, "stripes_at": {k: stripes_for(v) for k, v in p.items()},
        "reasoning": reasons,
    }
