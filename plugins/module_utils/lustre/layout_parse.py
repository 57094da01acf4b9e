# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Read ``lfs getstripe`` output (plain and ``--yaml``, plain and composite layouts) into components.

One scanner reads both formats: every line is made of ``key: value`` pairs (a directory's plain
layout puts several on one line, ``stripe_count:  1 stripe_size:   1048576 ...``), object lines
(``- 0: { l_ost_idx: ...}``, the ``obdidx`` table) are skipped. PyYAML is not used because lfs's
"YAML" is not always YAML (old clients print the path as a bare first line) and because the managed
node may not have PyYAML. The printf formats it follows are lov_dump_user_lmm_header() and
lov_dump_comp_v1_entry() in lustre/utils/liblustreapi.c; see docs/lfs-stripe.md.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import must_be

#: lcme_extent.e_end of the last component is printed as "EOF"; LUSTRE_EOF is 2**64 - 1.
LUSTRE_EOF = 2 ** 64 - 1

_PAIR_RE = re.compile(r"(?:^|(?<=\s))([A-Za-z_][\w.]*):(?:[ \t]+('[^']*'|\S+))?")
_KNOWN_RE = re.compile(   # applied with fullmatch
    r"(?:lcm_\w+|lcme_[\w.]+|lmm_\w+|l_\w+|component\d+|sub_layout|composite_header|components|"
    r"stripe_count|stripe_size|extension_size|pattern|layout_gen|stripe_offset|pool)"
)
_OBDIDX_ROW_RE = re.compile(r"^\d+\s+\d+\s+0x[0-9a-fA-F]+\s+\S+")
#: Sub-layout fields, with or without the "lmm_" prefix lfs puts before them for files.
_SUB_FIELDS = ("stripe_count", "stripe_size", "extension_size", "pattern", "layout_gen", "stripe_offset", "pool")


class LayoutParseError(ValueError):
    """lfs getstripe output that cannot be read as a layout."""


@dataclass
class RawComponent:
    """One component as lfs printed it (a plain layout is one component 0..EOF)."""

    start: int = 0
    end: int = -1  # -1 = EOF
    stripe_count: Optional[int] = None
    stripe_size: Optional[int] = None
    pattern: Optional[str] = None  # as printed: raid0, 1, 0, mdt, raid0,overstriped, ...
    stripe_offset: Optional[int] = None
    pool: str = ""
    comp_id: Optional[str] = None  # lcme_id: a number, or N/A in a directory's default
    mirror_id: Optional[str] = None
    flags: List[str] = field(default_factory=list)
    extension_size: Optional[int] = None


@dataclass
class ParsedLayout:
    """What ``lfs getstripe [-d] [--yaml]`` printed for one path."""

    path: Optional[str]
    composite: bool
    components: List[RawComponent]
    mirror_count: int = 1
    entry_count: Optional[int] = None
    layout_gen: Optional[int] = None


def _int(key: str, value: str, lineno: int) -> int:
    try:
        return int(value, 0) if value.lower().startswith(("0x", "-0x")) else int(value)
    except ValueError:
        raise LayoutParseError("line %d: %s is %r, not an integer" % (lineno, key, value)) from None


def _end(value: str, lineno: int) -> int:
    if value.upper() == "EOF":
        return -1
    end = _int("lcme_extent.e_end", value, lineno)
    return -1 if end in (LUSTRE_EOF, -1) else end


def _pairs(line: str) -> List[tuple]:
    return [(m.group(1), (m.group(2) or "").strip("'")) for m in _PAIR_RE.finditer(line)]


def parse_getstripe(text: str) -> ParsedLayout:
    """Components of one ``lfs getstripe`` output, in the order printed.

    Raises LayoutParseError when the text holds no layout, two plain layouts (getstripe of several
    paths), a component without stripe count or size, or lcm_entry_count components are missing.
    """
    if not isinstance(text, str):
        raise must_be("lfs getstripe output", text, "text", LayoutParseError)
    path: Optional[str] = None
    header: Dict[str, int] = {}
    components: List[RawComponent] = []
    plain: Optional[RawComponent] = None
    composite = False
    labelled = False  # the current component was opened by "componentN:" (YAML) and awaits its lcme_id
    seen_any = False
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith("(Default)"):  # -v marks a directory's default layout this way
            line = line[len("(Default)"):].strip()
        if not line or line.startswith(("-", "{")) or line.startswith("obdidx") or _OBDIDX_ROW_RE.match(line):
            continue
        pairs = _pairs(line)
        if not pairs or not _KNOWN_RE.fullmatch(pairs[0][0]) or not line.startswith(pairs[0][0] + ":"):
            if not seen_any and path is None:
                path = line  # getstripe without -d (and old clients) print the path first
                continue
            raise LayoutParseError("line %d %r is not a 'key: value' line of lfs getstripe" % (lineno, line))
        seen_any = True
        for key, value in pairs:
            if not _KNOWN_RE.fullmatch(key):
                raise LayoutParseError("line %d: unexpected key %r in lfs getstripe output" % (lineno, key))
            if key.startswith("lcm_"):
                composite = True
                if key in ("lcm_layout_gen", "lcm_mirror_count", "lcm_entry_count"):
                    header[key] = _int(key, value, lineno)
                continue
            if re.fullmatch(r"component\d+", key):
                components.append(RawComponent())
                composite, labelled = True, True
                continue
            if key == "lcme_id":
                composite = True
                if not (labelled and components and components[-1].comp_id is None):
                    components.append(RawComponent())
                labelled = False
                components[-1].comp_id = value
                continue
            if key.startswith("lcme_"):
                if not components:
                    raise LayoutParseError("line %d: %s comes before any lcme_id" % (lineno, key))
                comp = components[-1]
                if key == "lcme_mirror_id":
                    comp.mirror_id = value
                elif key == "lcme_flags":
                    comp.flags = [] if value in ("0", "") else value.split(",")
                elif key == "lcme_extent.e_start":
                    comp.start = _int(key, value, lineno)
                elif key == "lcme_extent.e_end":
                    comp.end = _end(value, lineno)
                continue  # lcme_offset, lcme_size, lcme_timestamp, lcme_compr_*: not layout parameters
            name = key[4:] if key.startswith("lmm_") else key
            if name not in _SUB_FIELDS or name == "layout_gen":
                continue  # lmm_magic, lmm_fid, lmm_objects, l_ost_idx, sub_layout, ...
            if composite:
                if not components:
                    raise LayoutParseError("line %d: %s comes before any component" % (lineno, key))
                target = components[-1]
            else:
                if plain is None:
                    plain = RawComponent()
                elif getattr(plain, name) not in (None, "") and name != "pool":
                    raise LayoutParseError(
                        "line %d: a second %s: the output holds more than one layout; run lfs getstripe -d on "
                        "one directory" % (lineno, key))
                target = plain
            if name == "pattern":
                target.pattern = value
            elif name == "pool":
                target.pool = value
            else:
                setattr(target, name, _int(key, value, lineno))
    if composite:
        if plain is not None:
            raise LayoutParseError("the output mixes a plain and a composite layout; run lfs getstripe -d on "
                                   "one directory")
        count = header.get("lcm_entry_count")
        if count is not None and count != len(components):
            raise LayoutParseError("lcm_entry_count is %d but %d component(s) follow; the output is cut short"
                                   % (count, len(components)))
        result = ParsedLayout(path, True, components, header.get("lcm_mirror_count", 1), count,
                              header.get("lcm_layout_gen"))
    elif plain is not None:
        result = ParsedLayout(path, False, [plain])
    else:
        raise LayoutParseError("no layout in the lfs getstripe output%s"
                               % (" (only the line %r)" % path if path else " (it is empty)"))
    for index, comp in enumerate(result.components):
        if "extension" in comp.flags and comp.stripe_size is None:
            comp.stripe_size = comp.extension_size  # self-extending: lfs prints extension_size instead
        missing = [n for n in ("stripe_count", "stripe_size") if getattr(comp, n) is None]
        if missing:
            raise LayoutParseError("component %d (%s) has no %s in the lfs getstripe output"
                                   % (index, _extent(comp), " or ".join(missing)))
    return result


def _extent(comp: RawComponent) -> str:
    return "%d-%s" % (comp.start, "EOF" if comp.end == -1 else comp.end)
