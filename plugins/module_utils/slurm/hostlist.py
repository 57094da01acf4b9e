# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Slurm hostlist expressions: expand ``gpu[01-04],login1`` and compress a list back.

Semantics follow Slurm's ``src/common/hostlist.c`` (one-dimensional clusters):

* names are separated by commas or whitespace outside brackets; commas inside brackets
  separate ranges (``n[1-3,7]``);
* a range's zero padding is the length of its low bound: ``n[08-11]`` gives n08..n11,
  ``n[8-11]`` gives n8..n11;
* several bracket groups in one name give their cartesian product, in Slurm's order:
  the last group varies fastest, then the groups before it from the first one outwards
  (for two groups that is plain row-major order);
* a name's range key is its trailing decimal digits; the rest is its prefix. Compression
  sorts names by prefix (natural order, like Slurm's ``strnatcmp``), then by the length
  of the digit string, then by value; merges consecutive numbers that print with the
  same zero padding (``n1`` and ``n01`` never merge) and puts all ranges of one prefix in
  one bracket. Names without trailing digits (``login``, ``n1-ib``) are kept as they are.

Stricter than Slurm on purpose (our output goes into slurm.conf): empty elements, an open
or stray bracket, anything but digits inside brackets, reversed ranges and expansions of more
than ``MAX_HOSTS`` names are refused instead of guessed at. Names are separated by commas only:
a blank, tab or newline (which Slurm also reads as a separator) is refused, so that a value such
as ``'n1 NodeAddr=10.0.0.9'`` can never smuggle a second word into a slurm.conf line. Every name
an expression gives must be a Slurm name (``input_rules`` kind ``slurm_name``: letters, digits,
``.``, ``_`` and ``-``, starting with a letter or digit, at most 64 characters); callers naming
other things (gres.conf device files) pass ``kind='device_path'``.
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any, Iterable, List, Optional, Sequence, Tuple, Type, Union

from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import must_be

#: Most names one expression (or one compress call) may produce; Slurm's own limit is
#: 64K per bracket range, this guards the controller's memory in the same spirit.
MAX_HOSTS = 100000

_RANGE_RE = re.compile(r"([0-9]+)(?:-([0-9]+))?")
_GROUP_SPLIT_RE = re.compile(r"(\[[^\]]*\])")
_TRAILING_DIGITS_RE = re.compile(r"(.*?)([0-9]+)")
_NATURAL_RE = re.compile(r"[0-9]+|[^0-9]")
#: Characters a name of each kind may hold (brackets and commas are the expression's own).
_NAME_CHARS = {
    "slurm_name": (re.compile(r"[A-Za-z0-9._-]"), "letters, digits, '.', '_' and '-'"),
    "device_path": (re.compile(r"[A-Za-z0-9._+/-]"), "letters, digits, '/', '.', '_', '+' and '-'"),
}


class HostlistError(ValueError):
    """A hostlist expression or host name that cannot be used."""


@dataclass(frozen=True)
class _Range:
    lo: int
    hi: int
    width: int

    @property
    def count(self) -> int:
        return self.hi - self.lo + 1

    def values(self) -> List[str]:
        return [str(v).zfill(self.width) for v in range(self.lo, self.hi + 1)]


@dataclass
class _HostRange:
    """Consecutive names ``prefix`` + number (zero padded to ``width``); single names have lo None."""

    prefix: str
    lo: Optional[int] = None
    hi: Optional[int] = None
    width: int = 0

    def numstr(self) -> str:
        lo = str(self.lo).zfill(self.width)
        if self.hi == self.lo:
            return lo
        return "%s-%s" % (lo, str(self.hi).zfill(self.width))


def _check_chars(expr: str, kind: str = "slurm_name") -> None:
    allowed, described = _NAME_CHARS[kind]
    for pos, ch in enumerate(expr):
        if ch in "[],":
            continue
        if ch.isspace() or input_rules.CONTROL_RE.match(ch):
            raise HostlistError(
                "hostlist %r: %s %r at position %d is not allowed; names hold only %s and are "
                "separated by ',' (a blank or line break would split a slurm.conf line)"
                % (expr, "blank" if ch == " " else "control character" if input_rules.CONTROL_RE.match(ch)
                   else "white space", ch, pos, described)
            )
        if not 33 <= ord(ch) <= 126:
            raise HostlistError(
                "hostlist %r: character %r at position %d is not printable ASCII; names hold only %s"
                % (expr, ch, pos, described)
            )
        if not allowed.fullmatch(ch):
            raise HostlistError(
                "hostlist %r: character %r at position %d is not allowed; names hold only %s "
                "(outside brackets, ',' separates names)" % (expr, ch, pos, described)
            )


def _elements(expr: str) -> List[str]:
    """Split at commas outside brackets; check brackets are balanced and hold no spaces."""
    elements: List[str] = []
    current: List[str] = []
    open_at = -1
    for pos, ch in enumerate(expr):
        if ch == "[":
            if open_at >= 0:
                raise HostlistError(
                    "hostlist %r: '[' at position %d opens a bracket inside the bracket opened at "
                    "position %d; brackets do not nest, close the first one with ']'" % (expr, pos, open_at)
                )
            open_at = pos
        elif ch == "]":
            if open_at < 0:
                raise HostlistError(
                    "hostlist %r: ']' at position %d closes no bracket; add the matching '[' or "
                    "remove it" % (expr, pos)
                )
            open_at = -1
        elif open_at >= 0 and ch.isspace():
            raise HostlistError(
                "hostlist %r: whitespace at position %d inside the bracket opened at position %d; "
                "write ranges without spaces, e.g. 'n[1-3,7]'" % (expr, pos, open_at)
            )
        elif open_at < 0 and ch == ",":
            elements.append("".join(current))
            current = []
            continue
        current.append(ch)
    if open_at >= 0:
        raise HostlistError(
            "hostlist %r: the bracket opened at position %d is never closed; add ']'" % (expr, open_at)
        )
    elements.append("".join(current))
    for index, element in enumerate(elements):
        if not element.strip():
            raise HostlistError(
                "hostlist %r: element %d (counting from 0, between commas) is empty; remove the "
                "extra comma or the empty item" % (expr, index)
            )
    return elements


def _parse_group(expr: str, token: str, body: str) -> List[_Range]:
    if not body:
        raise HostlistError(
            "hostlist %r: name %r has an empty bracket '[]'; put a number or range in it, e.g. "
            "'[1-4]'" % (expr, token)
        )
    ranges = []
    for part in body.split(","):
        match = _RANGE_RE.fullmatch(part)
        if not match:
            raise HostlistError(
                "hostlist %r: %r in name %r is not a number or a low-high range of decimal digits; "
                "write e.g. '7' or '01-16'" % (expr, part, token)
            )
        lo = int(match.group(1))
        hi = int(match.group(2)) if match.group(2) is not None else lo
        if lo > hi:
            raise HostlistError(
                "hostlist %r: range %r in name %r is reversed (%d > %d); write it low-high, e.g. "
                "'%s-%s'" % (expr, part, token, lo, hi, match.group(2), match.group(1))
            )
        # Slurm pads the whole range to the width of its low bound.
        ranges.append(_Range(lo, hi, len(match.group(1))))
    return ranges


def _parse_token(expr: str, token: str) -> Tuple[List[str], List[List[_Range]]]:
    """Split ``rack[1-2]-n[01-04]`` into literals ['rack', '-n', ''] and two range groups."""
    pieces = _GROUP_SPLIT_RE.split(token)
    literals = pieces[0::2]
    groups = [_parse_group(expr, token, piece[1:-1]) for piece in pieces[1::2]]
    return literals, groups


def _tokens(expr: str, kind: str = "slurm_name") -> List[Tuple[str, List[str], List[List[_Range]]]]:
    if not isinstance(expr, str):
        raise must_be("hostlist", expr, "a string such as 'gpu[01-08],login1'", HostlistError)
    if not expr.strip():
        raise HostlistError("hostlist %r is empty; give at least one host name, e.g. 'gpu[01-08]'" % (expr,))
    _check_chars(expr, kind)
    parsed = []
    for token in _elements(expr):
        literals, groups = _parse_token(expr, token)
        parsed.append((token, literals, groups))
    return parsed


def _check_names(expr: str, names: Sequence[str], kind: str) -> None:
    """Every name an expression gives is a valid ``kind`` (a name may not start with '-' or '.')."""
    rule = input_rules.RULES[kind]
    for name in names:
        if len(name) > rule.max_length or not rule.pattern.fullmatch(name):
            raise HostlistError("hostlist %r gives the name %r, which is not allowed; expected %s"
                                % (expr, name, rule.allowed))


def _token_count(groups: List[List[_Range]]) -> int:
    count = 1
    for group in groups:
        count *= sum(r.count for r in group)
    return count


def _check_budget(expr: str, total: int) -> None:
    if total > MAX_HOSTS:
        raise HostlistError(
            "hostlist %r expands to %d host names, more than the limit of %d; split it into "
            "smaller lists or check the ranges for a typo" % (expr, total, MAX_HOSTS)
        )


def count_hosts(expr: str, kind: str = "slurm_name") -> int:
    """Number of names ``expr`` expands to (duplicates counted), without building them."""
    return sum(_token_count(groups) for _token, _literals, groups in _tokens(expr, kind))


def _expand_token(literals: List[str], groups: List[List[_Range]]) -> List[str]:
    if not groups:
        return [literals[0]]
    values = [[v for r in group for v in r.values()] for group in groups]
    last = len(groups) - 1
    # Slurm's _push_range_list recursion: the group before the last is the outermost loop,
    # then the groups towards the front, the last group innermost.
    order = list(range(last - 1, -1, -1)) + [last]
    names = []
    for combo in itertools.product(*[values[i] for i in order]):
        chosen = [""] * len(groups)
        for index, value in zip(order, combo):
            chosen[index] = value
        parts = [literals[0]]
        for index, value in enumerate(chosen):
            parts.append(value)
            parts.append(literals[index + 1])
        names.append("".join(parts))
    return names


def expand_hostlist(expr: str, kind: str = "slurm_name") -> List[str]:
    """Expand a hostlist expression into names, in Slurm's order, duplicates kept.

    This is what ``scontrol show hostnames EXPR`` prints. Use :func:`sort_hosts` for the
    sorted, duplicate-free order. Every name must be a valid ``kind`` (an input_rules kind:
    ``slurm_name`` or ``device_path``).
    """
    if kind not in _NAME_CHARS:
        raise HostlistError("hostlist kind %r is not one of %s" % (kind, ", ".join(sorted(_NAME_CHARS))))
    tokens = _tokens(expr, kind)
    _check_budget(expr, sum(_token_count(groups) for _token, _literals, groups in tokens))
    names: List[str] = []
    for _token, literals, groups in tokens:
        names.extend(_expand_token(literals, groups))
    _check_names(expr, names, kind)
    return names


def hostlist_names(where: str, value: Any, error: Type[Exception]) -> List[str]:
    """The names of a hostlist expression, or of a non-empty list of expressions, as :func:`expand_hostlist` gives
    them; anything else, and an expression it refuses, is refused with the caller's ``error`` naming ``where``."""
    if isinstance(value, str):
        items = [value]
    elif isinstance(value, (list, tuple)) and value:
        items = list(value)
    else:
        raise must_be(where, value, "a hostlist string or a non-empty list of names", error)
    try:
        return [name for item in items for name in expand_hostlist(item)]
    except HostlistError as exc:
        raise error("%s: %s" % (where, exc)) from exc


def split_hostname(name: str) -> Tuple[str, Optional[str]]:
    """``('gpu', '07')`` for ``gpu07``; ``('login', None)`` when there are no trailing digits."""
    match = _TRAILING_DIGITS_RE.fullmatch(name)
    if not match:
        return name, None
    return match.group(1), match.group(2)


def _natural_key(text: str) -> Tuple[Tuple, ...]:
    # Digit runs compare by value (strnatcmp); 48 is ord('0') so a run sorts among the
    # characters exactly where its first digit would.
    return tuple((48, int(run), run) if run.isdigit() else (ord(run),) for run in _NATURAL_RE.findall(text))


def host_sort_key(name: str) -> Tuple:
    """Sort key of one host name, the order :func:`compress_hostlist` and :func:`sort_hosts` use."""
    prefix, digits = split_hostname(name)
    if digits is None:
        # Slurm sorts a name without number before numbered names of the same prefix.
        return (_natural_key(prefix), 0)
    return (_natural_key(prefix), 1, len(digits), int(digits))


def _names_of(names: Union[str, Iterable[str]], what: str, kind: str = "slurm_name") -> List[str]:
    if isinstance(names, str):
        return expand_hostlist(names, kind)
    if not isinstance(names, (list, tuple, set, frozenset)):
        raise must_be(what, names, "a list of host names", HostlistError)
    items = list(names)
    if not items:
        raise HostlistError("%s got an empty list of host names; give at least one name" % what)
    expanded: List[str] = []
    for index, item in enumerate(items):
        if not isinstance(item, str):
            raise must_be("%s item %d" % (what, index), item, "a host name string (quote it, e.g. '%s')" % (item,),
                          HostlistError)
        expanded.extend(expand_hostlist(item, kind))
        if len(expanded) > MAX_HOSTS:
            raise HostlistError(
                "%s: the %d items expand to more than %d host names (limit reached at item %d, %r); "
                "split the list" % (what, len(items), MAX_HOSTS, index, item)
            )
    return expanded


def _sorted_unique(names: Union[str, Iterable[str]], what: str, kind: str = "slurm_name") -> List[str]:
    return sorted(set(_names_of(names, what, kind)), key=host_sort_key)


def sort_hosts(names: Union[str, Iterable[str]]) -> List[str]:
    """Names (a list, whose items may be expressions, or one expression) sorted and deduplicated."""
    return _sorted_unique(names, "sort_hosts")


def _host_ranges(sorted_names: Sequence[str]) -> List[_HostRange]:
    ranges: List[_HostRange] = []
    for name in sorted_names:
        prefix, digits = split_hostname(name)
        if digits is None:
            ranges.append(_HostRange(prefix=name))
            continue
        value = int(digits)
        last = ranges[-1] if ranges else None
        if (
            last is not None
            and last.lo is not None
            and last.prefix == prefix
            and last.hi is not None
            and value == last.hi + 1
            and str(value).zfill(last.width) == digits
        ):
            last.hi = value
        else:
            ranges.append(_HostRange(prefix=prefix, lo=value, hi=value, width=len(digits)))
    return ranges


def compress_hostlist(names: Union[str, Iterable[str]], kind: str = "slurm_name") -> str:
    """Shortest Slurm hostlist for ``names``: sorted, deduplicated, ranges merged.

    ``compress_hostlist(['n03', 'n01', 'n02', 'login1'])`` is ``'login1,n[01-03]'``. Items may
    be expressions; every name must be a valid ``kind`` (see :func:`expand_hostlist`).
    """
    ranges = _host_ranges(_sorted_unique(names, "compress_hostlist", kind))
    parts = []
    index = 0
    while index < len(ranges):
        first = ranges[index]
        if first.lo is None:
            parts.append(first.prefix)
            index += 1
            continue
        group = [first]
        index += 1
        while index < len(ranges) and ranges[index].lo is not None and ranges[index].prefix == first.prefix:
            group.append(ranges[index])
            index += 1
        if len(group) == 1 and first.lo == first.hi:
            parts.append(first.prefix + first.numstr())
        else:
            parts.append("%s[%s]" % (first.prefix, ",".join(r.numstr() for r in group)))
    return ",".join(parts)
