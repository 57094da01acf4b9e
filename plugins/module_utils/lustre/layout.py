# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A directory's default Lustre layout: normalise what lfs getstripe printed, check a desired layout,
compare the two and build the ``lfs setstripe`` argv. See docs/lfs-stripe.md.

Normalised layout (plain JSON data)::

    {"is_set": True | False | None, "mirror_count": 1,
     "components": [{"start": 0, "end": -1, "stripe_count": 4, "stripe_size": 1048576, "pool": "",
                     "pattern": "raid0", "stripe_offset": -1}]}

end -1 = EOF, stripe_count -1 = all OSTs (0 = data on the MDT, pattern "mdt"), pool "" = none,
is_set False = the directory has no default layout of its own (lfs printed the file system default in
its place), None = the lfs output cannot tell (old clients print no pattern for directories).
"""
from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping, Optional, Sequence

from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.layout_parse import (
    LayoutParseError,
    ParsedLayout,
    parse_getstripe,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.input_rules import CONTROL_RE
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import (
    list_of, mapping_of, must_be, unknown_keys)
from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.striping import (
    GIB,
    MAX_EXTENT_END,
    MAX_STRIPE_COUNT,
    STRIPE_ALIGN,
    lfs_size,
)

__all__ = ["LayoutError", "LayoutParseError", "parse_size", "normalise", "read_layout", "desired_layout",
           "layouts_equal", "differences", "setstripe_argv", "delete_argv", "layout_text"]

#: llapi_stripe_limit_check(): a stripe size is a multiple of 64 KiB below 4 GiB.
MAX_STRIPE_SIZE = 4 * GIB - STRIPE_ALIGN
#: LOV_MAXPOOLNAME
MAX_POOL_NAME = 15
_POOL_RE = re.compile(r"[A-Za-z0-9_-]+")   # patterns here are applied with fullmatch
_SIZE_RE = re.compile(r"(\d+) *([KMGTPE]?)(?:i?B)?", re.IGNORECASE)
_COUNT_RE = re.compile(r"-?\d+")
_UNITS = {"": 0, "K": 1, "M": 2, "G": 3, "T": 4, "P": 5, "E": 6}
_RAID0 = ("raid0", "1")  # lfs 2.10 printed lmm_pattern as the number 1


class LayoutError(ValueError):
    """A desired layout lfs would refuse, or one this module cannot express."""


# ---------------------------------------------------------------- sizes
def parse_size(value: Any, what: str, eof: bool = False) -> int:
    """Bytes from an int or an lfs size string: 4194304, '4M', '64K', '1G', '1048576'.

    With eof=True, -1, '-1', 'eof' and 'EOF' give -1 (end of file). Units are binary (K = 1024).
    """
    if isinstance(value, bool):
        raise LayoutError("%s is %r, a boolean; give bytes or a size like '1M'" % (what, value))
    if isinstance(value, int):
        number = value
    elif isinstance(value, str):
        text = value.strip(" ")
        if eof and text.lower() in ("eof", "-1"):
            return -1
        match = None if CONTROL_RE.search(text) else _SIZE_RE.fullmatch(text)
        if not match:
            raise LayoutError("%s %r is not a size; use bytes or a number with K, M, G or T (binary units), e.g. "
                              "'1M' or '4194304'%s" % (what, value, ", or 'eof'" if eof else ""))
        number = int(match.group(1)) * 1024 ** _UNITS[match.group(2).upper()]
    else:
        raise must_be(what, value, "an integer or a size string like '1M'", LayoutError)
    if eof and number == -1:
        return -1
    if number < 0:
        raise LayoutError("%s is %d; sizes are bytes >= 0%s" % (what, number, " (or -1 for EOF)" if eof else ""))
    return number


def _size_text(num_bytes: int) -> str:
    return "EOF" if num_bytes == -1 else lfs_size(num_bytes)


# ---------------------------------------------------------------- current layout
def _pattern(printed: Optional[str]) -> str:
    if printed is None or printed in _RAID0:
        return "raid0"
    return printed


def normalise(parsed: ParsedLayout) -> Dict[str, Any]:
    """The normalised layout (module docstring) of a parse_getstripe() result."""
    components = []
    for comp in parsed.components:
        pattern = _pattern(comp.pattern)
        if parsed.composite and comp.pattern == "0":
            pattern = "raid0"  # a component stored without pattern is raid0; only a plain "0" means "not set"
        if "extension" in comp.flags:
            pattern = "extension"
        components.append({
            "start": comp.start, "end": comp.end, "stripe_count": comp.stripe_count,
            "stripe_size": comp.stripe_size, "pool": comp.pool, "pattern": pattern,
            "stripe_offset": -1 if comp.stripe_offset is None else comp.stripe_offset,
        })
    if parsed.composite:
        is_set: Optional[bool] = True  # lfs never makes up a composite layout
    elif parsed.components[0].pattern is None:
        is_set = None
    else:
        # Without a default layout lfs fakes one with pattern 0 and the file system's count and size.
        is_set = parsed.components[0].pattern != "0"
    if is_set is False:
        components[0]["pattern"] = "raid0"
    return {"is_set": is_set, "mirror_count": parsed.mirror_count, "components": components}


def read_layout(text: str) -> Dict[str, Any]:
    """normalise(parse_getstripe(text))."""
    return normalise(parse_getstripe(text))


# ---------------------------------------------------------------- desired layout
def _count(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, str) and _COUNT_RE.fullmatch(value.strip(" ")):
            value = int(value)
        else:
            raise must_be(what, value, "an integer (-1 = all OSTs)", LayoutError)
    if value == 0:
        raise LayoutError("%s is 0, which lfs reads as 'the file system default'; give the count (1..%d) or -1 "
                          "for all OSTs" % (what, MAX_STRIPE_COUNT))
    if value < -1:
        raise LayoutError("%s is %d; lfs accepts -1 (all OSTs) or 1..%d" % (what, value, MAX_STRIPE_COUNT))
    if value > MAX_STRIPE_COUNT:
        raise LayoutError("%s is %d, above Lustre's limit of %d stripes per component; use at most %d or -1 for "
                          "all OSTs" % (what, value, MAX_STRIPE_COUNT, MAX_STRIPE_COUNT))
    return value


def _stripe_size(value: Any, what: str) -> int:
    size = parse_size(value, what)
    if size == 0:
        raise LayoutError("%s is 0, which lfs reads as 'the file system default'; give the size, e.g. '1M'" % what)
    if size % STRIPE_ALIGN:
        lower = size // STRIPE_ALIGN * STRIPE_ALIGN
        raise LayoutError("%s %d bytes is not a multiple of 64 KiB (65536); lfs refuses it, use %s or %s"
                          % (what, size, lfs_size(max(lower, STRIPE_ALIGN)), lfs_size(lower + STRIPE_ALIGN)))
    if size > MAX_STRIPE_SIZE:
        raise LayoutError("%s %d bytes is not below 4 GiB; lfs accepts at most %d (4G - 64K), 1M-16M is usual"
                          % (what, size, MAX_STRIPE_SIZE))
    return size


def _pool(value: Any, what: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise must_be(what, value, "a string", LayoutError)
    if value in ("", "none"):
        return ""
    if value == "ignore" or len(value) > MAX_POOL_NAME or not _POOL_RE.fullmatch(value):
        raise LayoutError("%s %r is not an OST pool name lfs stores as given: use 1-%d letters, digits, '_' or "
                          "'-' without the 'fsname.' prefix ('' = no pool)" % (what, value, MAX_POOL_NAME))
    return value


def _component(start: int, end: int, count: int, size: int, pool: str) -> Dict[str, Any]:
    return {"start": start, "end": end, "stripe_count": count, "stripe_size": size, "pool": pool,
            "pattern": "raid0", "stripe_offset": -1}


def desired_layout(stripe_count: Any = None, stripe_size: Any = None, pool: Any = None,
                   components: Optional[Sequence[Mapping[str, Any]]] = None) -> Dict[str, Any]:
    """Checked, normalised desired layout from the module's options (plain or components).

    With components, pool is the pool of every component that has no 'pool' key of its own.

    Raises LayoutError naming the option, the value, the limit and the fix.
    """
    if components is not None:
        if stripe_count is not None or stripe_size is not None:
            raise LayoutError("give either components or stripe_count/stripe_size, not both")
        return {"is_set": True, "mirror_count": 1, "components": _components(components, _pool(pool, "pool"))}
    if stripe_count is None or stripe_size is None:
        raise LayoutError("a plain layout needs both stripe_count and stripe_size (got %s); or give components"
                          % ("stripe_count" if stripe_count is not None else
                             "stripe_size" if stripe_size is not None else "neither"))
    comp = _component(0, -1, _count(stripe_count, "stripe_count"), _stripe_size(stripe_size, "stripe_size"),
                      _pool(pool, "pool"))
    return {"is_set": True, "mirror_count": 1, "components": [comp]}


def _components(items: Sequence[Mapping[str, Any]], pool: str = "") -> List[Dict[str, Any]]:
    """Checked components; pool is the pool of those without a 'pool' key of their own."""
    list_of("components", items, LayoutError, "a list of {end, stripe_count, stripe_size[, pool]} dicts")
    if not items:
        raise LayoutError("components is empty; give at least one component ending at eof (-1)")
    result: List[Dict[str, Any]] = []
    start = 0
    for index, item in enumerate(items):
        what = "components[%d]" % index
        mapping_of(what, item, LayoutError, "a dict {end, stripe_count, stripe_size[, pool]}")
        unknown_keys(what, item, ("start", "end", "stripe_count", "stripe_size", "pool"), LayoutError)
        missing = [k for k in ("end", "stripe_count", "stripe_size") if item.get(k) is None]
        if missing:
            raise LayoutError("%s lacks %s" % (what, ", ".join(missing)))
        if "start" in item and item["start"] is not None:
            given = parse_size(item["start"], what + ".start")
            if given != start:
                raise LayoutError("%s.start is %d but the previous component ends at %d; components must be "
                                  "contiguous from 0 (start may be left out)" % (what, given, start))
        if start == -1:
            raise LayoutError("%s follows a component that already ends at eof; eof must be the last end" % what)
        end = parse_size(item["end"], what + ".end", eof=True)
        size = _stripe_size(item["stripe_size"], what + ".stripe_size")
        if end != -1:
            if end > MAX_EXTENT_END:
                raise LayoutError("%s.end %d (%s) is beyond %d (%s): Linux file offsets stop at 2**63 - 1, so no file "
                                  "reaches it (lfs refuses 16777216T, 2**64, outright); use eof (-1) for the last "
                                  "component" % (what, end, _size_text(end), MAX_EXTENT_END, lfs_size(MAX_EXTENT_END)))
            if end <= start:
                raise LayoutError("%s.end %d is not above its start %d; extent ends must increase"
                                  % (what, end, start))
            if end % size:
                raise LayoutError("%s.end %d (%s) is not a multiple of its stripe_size %s; lfs refuses it, use %s"
                                  % (what, end, _size_text(end), lfs_size(size),
                                     lfs_size(-(-end // size) * size)))
        result.append(_component(start, end, _count(item["stripe_count"], what + ".stripe_count"), size,
                                 _pool(item["pool"], what + ".pool") if "pool" in item else pool))
        start = end
    if start != -1:
        raise LayoutError("the last component ends at %d (%s), not at eof; end it with -1 or 'eof' so files can "
                          "grow past it" % (start, _size_text(start)))
    return result


# ---------------------------------------------------------------- compare
def differences(current: Mapping[str, Any], desired: Mapping[str, Any]) -> List[str]:
    """Why current is not desired, one phrase each; [] when equal (see layouts_equal)."""
    if current.get("is_set") is False:
        return ["the directory has no default layout of its own (it inherits the file system default)"]
    if current["mirror_count"] != desired["mirror_count"]:
        return ["%d mirror(s) instead of %d" % (current["mirror_count"], desired["mirror_count"])]
    have, want = current["components"], desired["components"]
    if len(have) != len(want):
        return ["%d component(s) instead of %d" % (len(have), len(want))]
    found = []
    for index, (a, b) in enumerate(zip(have, want)):
        for key in ("start", "end", "stripe_count", "stripe_size", "pool", "pattern", "stripe_offset"):
            if a[key] != b[key]:
                found.append("component %d %s %r instead of %r" % (index, key, a[key], b[key]))
    return found


def layouts_equal(current: Mapping[str, Any], desired: Mapping[str, Any]) -> bool:
    """Equal when the directory has its own default layout (or lfs cannot tell) and every component has
    the same extent, stripe count, stripe size in bytes, pool ('' = none), pattern and offset.
    A plain layout equals a composite one with a single 0..EOF component."""
    return not differences(current, desired)


# ---------------------------------------------------------------- lfs setstripe
def setstripe_argv(lfs: str, desired: Mapping[str, Any], path: str, composite: bool) -> List[str]:
    """argv that sets desired as path's default layout (replacing any: no 'setstripe -d' needed first).

    Plain: -c COUNT -S SIZE [-p POOL]. Composite: per component -E END -c COUNT -S SIZE [-p POOL], and
    ``-p none`` on a component without pool that follows one with a pool (lfs would copy it over).
    """
    comps = desired["components"]
    argv = [lfs, "setstripe"]
    if not composite:
        if len(comps) != 1 or comps[0]["end"] != -1:
            raise LayoutError("a plain layout is one component 0..EOF; use composite=True for %d" % len(comps))
        comp = comps[0]
        argv += ["-c", str(comp["stripe_count"]), "-S", lfs_size(comp["stripe_size"])]
        if comp["pool"]:
            argv += ["-p", comp["pool"]]
        return argv + [path]
    previous_pool = ""
    for comp in comps:
        argv += ["-E", "-1" if comp["end"] == -1 else lfs_size(comp["end"]),
                 "-c", str(comp["stripe_count"]), "-S", lfs_size(comp["stripe_size"])]
        if comp["pool"]:
            argv += ["-p", comp["pool"]]
        elif previous_pool:
            argv += ["-p", "none"]
        previous_pool = comp["pool"]
    return argv + [path]


def delete_argv(lfs: str, path: str) -> List[str]:
    """argv that removes path's default layout (new files then use the file system default)."""
    return [lfs, "setstripe", "-d", path]


# ---------------------------------------------------------------- text
def component_text(comp: Mapping[str, Any]) -> str:
    """'0-64M: 1 x 1M', '64M-EOF: all x 4M pool flash', '0-1M: mdt x 1M'."""
    count = comp["stripe_count"]
    if comp["pattern"] == "mdt":
        what = "mdt"
    else:
        what = "all" if count == -1 else str(count)
    text = "%s-%s: %s x %s" % (
        _size_text(comp["start"]), _size_text(comp["end"]), what, lfs_size(comp["stripe_size"]))
    if comp["pool"]:
        text += " pool %s" % comp["pool"]
    if comp["pattern"] not in ("raid0", "mdt"):
        text += " (%s)" % comp["pattern"]
    if comp["stripe_offset"] != -1:
        text += " offset %d" % comp["stripe_offset"]
    return text


def layout_text(layout: Optional[Mapping[str, Any]]) -> str:
    """One line per component, for diff before/after."""
    if layout is None or not layout["components"]:
        return "(no default layout)\n"
    lines = [component_text(c) for c in layout["components"]]
    if layout["mirror_count"] > 1:
        mirror, numbered = 0, []
        for comp, line in zip(layout["components"], lines):
            mirror += comp["start"] == 0
            numbered.append("mirror %d: %s" % (mirror, line))
        lines = numbered
    if layout.get("is_set") is False:
        lines = ["(no default layout; the file system default applies: %s)" % "; ".join(lines)]
    return "\n".join(lines) + "\n"
