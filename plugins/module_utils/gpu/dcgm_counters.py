# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""dcgm-exporter's counters CSV: check the metric entries, render the file, read it back.

The file format is the one dcgm-exporter reads with ``-f`` / ``--collectors`` (its
``etc/default-counters.csv``)::

    # Format
    # DCGM FIELD, Prometheus metric type, help message
    DCGM_FI_DEV_SM_CLOCK,  gauge, SM clock frequency (in MHz).

dcgm-exporter reads it with Go's ``encoding/csv`` reader (internal/pkg/counters/counter_config.go, ReadCSVFile:
``csv.NewReader``, ``Comment = '#'``, LazyQuotes off, the first record's field count required of every record), then
trims the spaces (only ' ') around each field and needs exactly 3 (ExtractCounters). So a help text must not
contain a comma (a fourth field), a double quote (Go refuses a bare quote in an unquoted field, and a quoted field
cannot follow the ', ' this file aligns with) or any control character (a line break starts a record of its own).
Names are matched whole (fullmatch: '$' would let 'DCGM_FI_X\n' through).
Plain Python, no Ansible import: the filter ``gpufleet.cluster.dcgm_counters_csv`` is a thin face.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import list_of, mapping_of, unknown_keys

NAME_PATTERN = r"^DCGM_FI_[A-Z0-9_]+$"  # shown in messages; applied as _NAME_RE.fullmatch
# Prometheus types dcgm-exporter accepts for a DCGM field; `label` turns the field into a label on
# every other metric (the driver version, say) instead of a series of its own.
TYPES = ("gauge", "counter", "label")
ENTRY_KEYS = ("name", "type", "help")
HELP_MAX = 200

_NAME_RE = re.compile(r"DCGM_FI_[A-Z0-9_]+")
_FORBIDDEN_HELP = {",": "a comma", '"': "a double quote"}
# C0 controls (newline, tab, NUL, ESC ...), DEL, C1 controls and the Unicode line separators (input_rules.CONTROL_RE).
_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u0085]")
TITLE_MAX = 120

HEADER = (
    "# Format",
    "# Lines starting with '#' are comments.",
    "# DCGM FIELD, Prometheus metric type, help message",
)


class DcgmCountersError(ValueError):
    """A metric entry or a counters file that dcgm-exporter would refuse or misread."""


@dataclass(frozen=True)
class Counter:
    """One line of the counters CSV."""

    name: str
    type: str
    help: str

    def as_dict(self) -> Dict[str, str]:
        return {"name": self.name, "type": self.type, "help": self.help}


def check_counter(entry: Any, where: str) -> Counter:
    """The entry as a Counter, or DcgmCountersError naming `where` (e.g. `dcgm_exporter_metrics[3]`)."""
    mapping_of(where, entry, DcgmCountersError, "a mapping {name: DCGM_FI_..., type: gauge|counter|label, help: text}")
    unknown_keys(where, entry, ENTRY_KEYS, DcgmCountersError, hint="an entry has exactly these; see docs/dcgm.md")
    name = entry.get("name")
    label = "%s (%s)" % (where, name) if isinstance(name, str) else where
    if not isinstance(name, str) or not _NAME_RE.fullmatch(name):
        raise DcgmCountersError(
            "%s: name %r must match %s (a DCGM field name as dcgm_fields.h and `dcgmi dmon -l` write it, "
            "upper case, e.g. DCGM_FI_DEV_GPU_UTIL); fix the name" % (where, name, NAME_PATTERN))
    kind = entry.get("type")
    if not isinstance(kind, str) or kind not in TYPES:
        raise DcgmCountersError(
            "%s: type %r must be one of %s (dcgm-exporter refuses any other); fix the type"
            % (label, kind, ", ".join(TYPES)))
    text = entry.get("help")
    if not isinstance(text, str) or not text.strip():
        raise DcgmCountersError(
            "%s: help %r must be a non-empty text: Prometheus shows it as the metric's HELP line" % (label, text))
    control = _CONTROL_RE.search(text)
    if control:
        raise DcgmCountersError(
            "%s: help %r contains the control character %r (a line break would start a CSV record of its own); "
            "allowed: one line of printable text without ',' or '\"'" % (label, text, control.group(0)))
    text = text.strip(" ")
    for char, what in _FORBIDDEN_HELP.items():
        if char in text:
            raise DcgmCountersError(
                "%s: help %r contains %s, which dcgm-exporter's CSV reader would split or refuse "
                "(3 fields a line); write it without" % (label, text, what))
    if len(text) > HELP_MAX:
        raise DcgmCountersError(
            "%s: help is %d characters long, at most %d; shorten it" % (label, len(text), HELP_MAX))
    return Counter(name, kind, text)


def check_title(title: Any, where: str) -> str:
    """A section title, written as a '# title' comment line: one line of printable text."""
    if not isinstance(title, str) or not title.strip() or _CONTROL_RE.search(title) or len(title) > TITLE_MAX:
        raise DcgmCountersError(
            "%s %r is written as a '# ...' comment line; allowed: non-empty printable text of at most %d characters "
            "with no control character (a line break would start a record of its own)" % (where, title, TITLE_MAX))
    return title


def merge_counters(metrics: Sequence[Any], extra: Sequence[Any] = (),
                   metrics_name: str = "metrics", extra_name: str = "extra") -> List[Counter]:
    """`metrics` then `extra`, each entry checked; a field named twice is refused (which one wins?)."""
    for what, title in (("metrics_name", metrics_name), ("extra_name", extra_name)):
        check_title(title, what)
    for list_name, entries in ((metrics_name, metrics), (extra_name, extra)):
        list_of(list_name, entries, DcgmCountersError, "a list of metric entries")
    seen: Dict[str, str] = {}
    out: List[Counter] = []
    for list_name, entries in ((metrics_name, metrics), (extra_name, extra)):
        for index, entry in enumerate(entries):
            where = "%s[%d]" % (list_name, index)
            counter = check_counter(entry, where)
            if counter.name in seen:
                raise DcgmCountersError(
                    "%s (%s) repeats %s: each DCGM field appears once in the counters file; change the entry "
                    "there or drop this one" % (where, counter.name, seen[counter.name]))
            seen[counter.name] = where
            out.append(counter)
    if not out:
        raise DcgmCountersError(
            "%s and %s are both empty: dcgm-exporter would export nothing; keep the defaults" % (metrics_name, extra_name))
    return out


def render_counters_csv(counters: Sequence[Counter], sections: Optional[Sequence[str]] = None,
                        split: Optional[int] = None) -> str:
    """The CSV text: the format header, then one aligned line per counter.

    Names are padded so the types line up (name + comma, then one space): width = longest name + 1.
    With `split`, the first `split` counters go under `sections[0]` and the rest under `sections[1]`.
    """
    if not counters:
        raise DcgmCountersError("no counters to render: dcgm-exporter would export nothing")
    width = max(len(counter.name) for counter in counters) + 1
    type_width = max(len(kind) for kind in TYPES) + 1
    groups = [(None, list(counters))]
    if sections is not None and split is not None:
        groups = [(sections[0], list(counters[:split])), (sections[1], list(counters[split:]))]
    lines = list(HEADER)
    for title, group in groups:
        if not group:
            continue
        lines.append("")
        if title:
            lines.append("# " + title)
        for counter in group:
            lines.append(("%-*s %-*s %s" % (width, counter.name + ",", type_width, counter.type + ",", counter.help)))
    return "\n".join(lines) + "\n"


def parse_counters_csv(text: str) -> List[Counter]:
    """Read a counters CSV the way dcgm-exporter does (unquoted fields only), each entry checked."""
    out: List[Counter] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        if '"' in line:
            raise DcgmCountersError("line %d: quoted fields are not read here: %r" % (number, line))
        fields = [field.strip() for field in line.split(",")]
        if len(fields) != 3:
            raise DcgmCountersError(
                "line %d has %d fields, dcgm-exporter needs 3 (field, type, help): %r" % (number, len(fields), line))
        out.append(check_counter(dict(zip(ENTRY_KEYS, fields)), "line %d" % number))
    return out


def counters_csv(metrics: Sequence[Any], extra: Sequence[Any] = (),
                 metrics_name: str = "metrics", extra_name: str = "extra") -> Dict[str, Any]:
    """Check and merge both lists, render the file; what the filter returns."""
    counters = merge_counters(metrics, extra, metrics_name, extra_name)
    split = len(metrics)
    text = render_counters_csv(counters, (metrics_name, extra_name), split)
    return {
        "content": text,
        "names": [counter.name for counter in counters],
        "count": len(counters),
        "profiling": [counter.name for counter in counters if counter.name.startswith("DCGM_FI_PROF_")],
        "labels": [counter.name for counter in counters if counter.type == "label"],
    }
