# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Wrong types and missing keys for any filter (issue 13): no raw Python exception escapes, nothing is refused
only by the fallback.

A filter is called with a valid call's arguments, each argument, and every value nested in one (a dict key or a
list index), replaced by a value of the wrong type (None, a number, a string with a newline, a list, a dict, NaN,
a bool, an object, ...) or removed. The filter must return, or refuse: an AnsibleFilterError whose message starts
with the filter's FQCN and that a check raised (plugin_utils.filters.is_refusal: a ValueError of the collection),
not the "could not be read" fallback of plugin_utils.filters.collection_filter, which catches what no check foresaw.
"""
from __future__ import annotations

import copy
import math

from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import fqcn, is_refusal

WRONG = [None, 0, -1, 2 ** 70, 1.5, math.nan, math.inf, True, "", "x\n", "ib0\n", b"x", [], [None], [1], [[]], [{}],
         {}, {"x": None}, {None: 1}, ("a",), object()]

_REMOVE = object()


def _paths(value, prefix=()):
    """Every nested position (dict key or list index) of value, outermost first."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield prefix + (key,)
            yield from _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield prefix + (index,)
            yield from _paths(item, prefix + (index,))


def _replaced(value, path, new):
    """A deep copy of value with the item at path replaced by new (or removed when new is _REMOVE)."""
    value = copy.deepcopy(value)
    target = value
    for step in path[:-1]:
        target = target[step]
    if new is _REMOVE:
        del target[path[-1]]
    else:
        target[path[-1]] = new
    return value


def _spoilt(value, label):
    """(label, spoilt value) for value replaced by each wrong value, then for each nested value replaced or removed."""
    for new in WRONG:
        yield "%s=%r" % (label, new), new
    for path in _paths(value):
        for new in WRONG + [_REMOVE]:
            yield "%s%s=%r" % (label, list(path), new), _replaced(value, path, new)


def spoilt_calls(args, kwargs):
    """(label, args, kwargs) of every spoilt call: one argument (positional or keyword) spoilt at a time."""
    for index, value in enumerate(args):
        for label, new in _spoilt(value, "input" if index == 0 else "args[%d]" % index):
            yield label, args[:index] + [new] + args[index + 1:], kwargs
    for key, value in kwargs.items():
        for label, new in _spoilt(value, key):
            yield label, args, dict(kwargs, **{key: new})


def assert_only_refusals(name, function, args, kwargs=None):
    """Every spoilt call of ``function(*args, **kwargs)`` returns or is refused by a check naming the filter."""
    args, kwargs, prefix = list(args), dict(kwargs or {}), fqcn(name) + ": "
    function(*copy.deepcopy(args), **copy.deepcopy(kwargs))  # the valid call works
    failures, tried = [], 0
    for label, spoilt_args, spoilt_kwargs in spoilt_calls(args, kwargs):
        tried += 1
        try:
            function(*spoilt_args, **spoilt_kwargs)
        except AnsibleFilterError as exc:
            if not str(exc).startswith(prefix) or not is_refusal(exc.__context__):
                failures.append("%s: no check refused it: %s" % (label, exc))
        except Exception as exc:  # noqa: BLE001 - any other exception is the failure looked for
            failures.append("%s: %s: %s" % (label, type(exc).__name__, exc))
    assert tried >= len(WRONG) * (len(args) + len(kwargs))
    assert not failures, "\n".join(failures[:40])
