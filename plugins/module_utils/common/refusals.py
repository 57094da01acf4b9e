# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The one set of refusal helpers: how every domain names a bad value, checks a type and refuses unknown keys.

Each helper takes ``where`` (the field as the user wrote it, e.g. ``nodes[2]``) and the ``error`` class of the
calling domain (a ``ValueError`` subclass), so a domain raises its own exception with the collection's one
wording:

* ``describe(value)``: the value as ``repr``, cut to 80 characters;
* ``must_be(where, value, what, error)``: ``<where> must be <what>, got <value> of type <type>``;
* ``mapping_of`` / ``list_of``: that refusal for a mapping, or a list (a string is never a list);
* ``integer_in(where, value, low, high, error)``: an int (never a bool) in low..high, refused as
  ``<where> must be an integer in <low>..<high>, got ...`` or ``<where> <value> is outside <low>..<high>``;
* ``unknown_keys(where, value, allowed, error)``:
  ``<where> has unknown key(s) 'a', 'b'; allowed: x, y``.

Each refusal takes an optional ``hint``, the caller's pointer to the fix (a default, the docs page), written after
a '; '.

Stdlib only; it runs on the target (modules) as well as on the controller (filters).
"""
from __future__ import annotations

from typing import Any, Iterable, List, Mapping, Optional, Sequence, Type

__all__ = ["describe", "type_name", "must_be", "mapping_of", "list_of", "integer_in", "unknown_keys"]

#: A value named in a message is cut to this many characters (its repr).
DESCRIBE_LIMIT = 80


def describe(value: Any) -> str:
    """``repr(value)``, cut to 80 characters with '...' so that a huge value cannot flood a message."""
    text = repr(value)
    return text if len(text) <= DESCRIBE_LIMIT else text[:DESCRIBE_LIMIT - 3] + "..."


def type_name(value: Any) -> str:
    """The type's name as a user reads it in a message (``dict``, ``list``, ``str``, ``NoneType``)."""
    return type(value).__name__


def _hinted(text: str, hint: Optional[str]) -> str:
    return "%s; %s" % (text, hint) if hint else text


def must_be(where: str, value: Any, what: str, error: Type[Exception], hint: Optional[str] = None) -> Exception:
    """The refusal ``<where> must be <what>, got <value> of type <type>[; hint]``, returned for the caller to
    raise."""
    return error(_hinted("%s must be %s, got %s of type %s" % (where, what, describe(value), type_name(value)),
                         hint))


def mapping_of(where: str, value: Any, error: Type[Exception], what: str = "a mapping",
               hint: Optional[str] = None) -> Mapping[Any, Any]:
    """``value`` when it is a mapping; refused with :func:`must_be` otherwise."""
    if not isinstance(value, Mapping):
        raise must_be(where, value, what, error, hint)
    return value


def list_of(where: str, value: Any, error: Type[Exception], what: str = "a list", *,
            allow_empty: bool = True, hint: Optional[str] = None) -> Sequence[Any]:
    """``value`` when it is a list or tuple (never a string); refused with :func:`must_be` otherwise, and when
    empty (``<where> must not be empty[; hint]``) unless ``allow_empty``."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise must_be(where, value, what, error, hint)
    if not value and not allow_empty:
        raise error(_hinted("%s must not be empty" % where, hint))
    return value


def integer_in(where: str, value: Any, low: int, high: int, error: Type[Exception],
               hint: Optional[str] = None) -> int:
    """``value`` when it is an int in ``low..high``; a bool (YAML ``true``) is never a number here."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise must_be(where, value, "an integer in %d..%d" % (low, high), error, hint)
    if not low <= value <= high:
        raise error(_hinted("%s %d is outside %d..%d" % (where, value, low, high), hint))
    return value


def unknown_keys(where: str, value: Mapping[Any, Any], allowed: Iterable[str], error: Type[Exception],
                 hint: Optional[str] = None) -> None:
    """Refuse the keys of ``value`` outside ``allowed``, naming them, the allowed keys and the caller's hint."""
    allowed = list(allowed)
    known = set(allowed)
    unknown: List[str] = sorted(repr(str(key)) for key in value if key not in known)
    if unknown:
        raise error(_hinted("%s has unknown key(s) %s; allowed: %s"
                            % (where, ", ".join(unknown), ", ".join(sorted(allowed))), hint))
