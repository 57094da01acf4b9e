# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What every filter of the collection does the same way: its name, its argument checks and its errors.

* ``@collection_filter("<name>")`` wraps a filter function so that whatever it raises reaches Ansible as an
  ``AnsibleFilterError`` naming the filter: ``gpufleet.cluster.<name>: <message>``.

  - A refusal (:func:`is_refusal`: a ``ValueError`` whose class the collection defines, i.e. a domain's error from
    module_utils, input_rules' ``InputRuleError`` or this module's :class:`FilterInputError`) keeps its message.
  - Any other exception (a ``TypeError``, ``KeyError``, a stdlib ``ValueError`` ... from a value of a shape the
    checks did not foresee) becomes ``<what> could not be read (<type>: <exception>); <hint>``, with the
    filter's ``unreadable`` and ``hint``.
  - Ansible's own errors (an undefined variable, ...) pass as they are. Nothing else escapes as a raw exception.

* The argument checks raise :class:`FilterInputError` with the collection's one wording
  (module_utils/common/refusals.py): ``<where> must be <what>, got <value> of type <type>``.

The engineering core stays out of this file and out of the filter files' top level: a filter imports the
module_utils it needs inside its function, because ansible imports every filter file of the collection, in every
worker, to find one filter (docs/performance.md). This module is all a filter file loads up front; it imports
refusals.py only to word a refusal.

Private to the gpufleet.cluster collection: not a public API, and it may change in any release.
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Iterable, List, Tuple, Type, TypeVar, Union

from ansible.errors import AnsibleError, AnsibleFilterError

__all__ = ["COLLECTION", "FilterInputError", "collection_filter", "flag", "fqcn", "is_refusal", "non_empty_strings",
           "of_type", "one_of", "require", "slurped_files", "string_list", "unreadable_message"]

COLLECTION = "gpufleet.cluster"

#: The collection's Python packages: a ValueError whose class is defined under them is one of its refusals.
_PACKAGES = "ansible_collections.gpufleet.cluster.plugins."

#: What a filter's unreadable-input message says when the filter names nothing better.
UNREADABLE = "the arguments"
HINT = "see the filter's documentation for what it takes"

#: ``if_none`` of :func:`string_list` when None is refused like any other value that is no list.
REFUSED = object()

Types = Union[Type[Any], Tuple[Type[Any], ...]]
Function = TypeVar("Function", bound=Callable[..., Any])


class FilterInputError(ValueError):
    """A filter's own refusal of one of its arguments; :func:`collection_filter` puts the filter's name in front."""


def fqcn(name: str) -> str:
    """``gpufleet.cluster.<name>``: how a message names the filter."""
    return "%s.%s" % (COLLECTION, name)


def is_refusal(exc: BaseException) -> bool:
    """True for the collection's own refusals: a ``ValueError`` whose class is defined in the collection."""
    return isinstance(exc, ValueError) and type(exc).__module__.startswith(_PACKAGES)


def unreadable_message(exc: BaseException, unreadable: str = UNREADABLE, hint: str = HINT) -> str:
    """``<unreadable> could not be read (<type>: <exception>); <hint>``."""
    return "%s could not be read (%s: %s); %s" % (unreadable, type(exc).__name__, exc, hint)


def collection_filter(name: str, unreadable: str = UNREADABLE, hint: str = HINT) -> Callable[[Function], Function]:
    """Decorate the filter ``name``: every exception it raises becomes an AnsibleFilterError naming it.

    ``unreadable`` (what could not be read, e.g. "the output") and ``hint`` (where the user learns what the filter
    takes) word the message of an exception that is no refusal (see the module's docstring).
    """
    prefix = fqcn(name)

    def decorate(function: Function) -> Function:
        @functools.wraps(function)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return function(*args, **kwargs)
            except AnsibleError:
                raise
            except Exception as exc:  # pylint: disable=broad-except
                # Any exception: none escapes raw.
                message = str(exc) if is_refusal(exc) else unreadable_message(exc, unreadable, hint)
                # No "from exc": ansible-core appends a cause's message to the error's; the message says it all.
                raise AnsibleFilterError("%s: %s" % (prefix, message))  # pylint: disable=raise-missing-from

        return run  # type: ignore[return-value]

    return decorate


def require(ok: Any, where: str, value: Any, what: str) -> None:
    """Refuse ``value`` unless ``ok``: ``<where> must be <what>, got <value> of type <type>``."""
    if not ok:
        # refusals.py only on the way out: it is module_utils, which a filter file never loads up front.
        from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import must_be

        raise must_be(where, value, what, FilterInputError)


def of_type(where: str, value: Any, types: Types, what: str, optional: bool = False) -> Any:
    """``value`` when it is an instance of ``types`` (or None, when ``optional``); refused otherwise."""
    require(isinstance(value, types) or (optional and value is None), where, value, what)
    return value


def one_of(where: str, value: Any, choices: Iterable[str], optional: bool = False) -> Any:
    """``value`` when it is one of the strings ``choices`` (or None, when ``optional``); refused otherwise."""
    choices = tuple(choices)
    require((isinstance(value, str) and value in choices) or (optional and value is None), where, value,
            "one of %s" % ", ".join(choices))
    return value


def flag(where: str, value: Any) -> bool:
    """``value`` when it is a bool; refused otherwise (``must be true or false``)."""
    require(isinstance(value, bool), where, value, "true or false")
    return value


def string_list(where: str, value: Any, what: str, types: Types = list, non_empty: bool = False,
                if_none: Any = REFUSED) -> Any:
    """A list copy of ``value`` when it is a ``types`` (never a string) of strings, non-empty ones when
    ``non_empty``; ``if_none`` for None when it is given; refused otherwise."""
    if value is None and if_none is not REFUSED:
        return if_none
    require(isinstance(value, types) and not isinstance(value, (str, bytes))
            and all(isinstance(item, str) and (item or not non_empty) for item in value), where, value, what)
    return list(value)


def non_empty_strings(where: str, value: Any, if_none: Any = REFUSED) -> Any:
    """:func:`string_list` of a list or tuple of non-empty strings."""
    return string_list(where, value, "a list of non-empty strings", (list, tuple), True, if_none)


def slurped_files(where: str, value: Any) -> List[Tuple[str, str]]:
    """The (path, text) pairs of a list of {path, content} dicts (content: the file's text)."""
    require(isinstance(value, (list, tuple)), where, value, "a list of {path, content} dicts")
    for index, item in enumerate(value):
        require(isinstance(item, dict) and isinstance(item.get("path"), str) and isinstance(item.get("content"), str),
                "%s[%d]" % (where, index), item,
                "a dict with the string keys path and content (the file's text, b64decode slurp's content)")
    return [(item["path"], item["content"]) for item in value]
