# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The one set of refusal helpers (module_utils/common/refusals.py): naming a value, type checks, unknown keys."""
from __future__ import annotations

from collections import OrderedDict

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.common import refusals
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import (
    DESCRIBE_LIMIT, describe, integer_in, list_of, mapping_of, must_be, type_name, unknown_keys,
)


class DomainError(ValueError):
    """A domain's own exception, as every caller passes one."""


# ---------------------------------------------------------------- naming a value
def test_describe_is_the_repr_cut_to_80_characters():
    assert describe("mlx5_0") == "'mlx5_0'"
    assert describe(None) == "None" and describe([1, 2]) == "[1, 2]"
    long = "x" * 200
    assert describe(long) == repr(long)[:77] + "..." and len(describe(long)) == DESCRIBE_LIMIT == 80
    assert describe("y" * 78) == repr("y" * 78)                   # exactly 80 characters: kept whole


def test_type_name_is_what_a_user_reads():
    assert [type_name(v) for v in ({}, [], "", None, 1, True, 1.5)] == \
        ["dict", "list", "str", "NoneType", "int", "bool", "float"]


# ---------------------------------------------------------------- type checks
def test_must_be_returns_the_domain_error_in_the_one_wording():
    err = must_be("ports[2].speed_gbps", "400G", "a whole number of Gb/s", DomainError)
    assert type(err) is DomainError  # pylint: disable=unidiomatic-typecheck
    assert str(err) == "ports[2].speed_gbps must be a whole number of Gb/s, got '400G' of type str"
    hinted = must_be("priority", True, "an integer in 0..7", DomainError, hint="RoCE convention is 3")
    assert str(hinted) == "priority must be an integer in 0..7, got True of type bool; RoCE convention is 3"


def test_mapping_of_accepts_any_mapping_and_refuses_the_rest():
    ordered = OrderedDict(a=1)
    assert mapping_of("ecn", ordered, DomainError) is ordered
    with pytest.raises(DomainError) as err:
        mapping_of("ecn", [("a", 1)], DomainError)
    assert str(err.value) == "ecn must be a mapping, got [('a', 1)] of type list"
    with pytest.raises(DomainError) as err:
        mapping_of("headroom", "x", DomainError, "a mapping port -> {xoff, xon, size}", hint="see docs/roce-switch.md")
    assert str(err.value) == ("headroom must be a mapping port -> {xoff, xon, size}, got 'x' of type str; "
                              "see docs/roce-switch.md")


def test_list_of_takes_lists_and_tuples_never_a_string():
    assert list_of("dscp", [26], DomainError) == [26] and list_of("dscp", (26,), DomainError) == (26,)
    assert list_of("dscp", [], DomainError) == []
    for value, kind in (("26", "str"), (b"26", "bytes"), ({"a": 1}, "dict"), (None, "NoneType"), (26, "int")):
        with pytest.raises(DomainError) as err:
            list_of("dscp", value, DomainError, "a list of DSCP values")
        assert str(err.value) == "dscp must be a list of DSCP values, got %r of type %s" % (value, kind)


def test_list_of_refuses_an_empty_list_only_when_asked():
    with pytest.raises(DomainError) as err:
        list_of("ports", [], DomainError, allow_empty=False)
    assert str(err.value) == "ports must not be empty"
    with pytest.raises(DomainError) as err:
        list_of("ports", (), DomainError, allow_empty=False, hint="list every switch port that carries RoCE")
    assert str(err.value) == "ports must not be empty; list every switch port that carries RoCE"


def test_integer_in_takes_ints_in_range_never_a_bool():
    assert integer_in("priority", 0, 0, 7, DomainError) == 0 and integer_in("priority", 7, 0, 7, DomainError) == 7
    for value, kind in ((True, "bool"), ("3", "str"), (3.0, "float"), (None, "NoneType")):
        with pytest.raises(DomainError) as err:
            integer_in("priority", value, 0, 7, DomainError, hint="RoCE convention is 3")
        assert str(err.value) == "priority must be an integer in 0..7, got %r of type %s; RoCE convention is 3" % (
            value, kind)
    for value in (-1, 8):
        with pytest.raises(DomainError) as err:
            integer_in("priority", value, 0, 7, DomainError)
        assert str(err.value) == "priority %d is outside 0..7" % value
    with pytest.raises(DomainError) as err:
        integer_in("queue", 0, 1, 7, DomainError, hint="queue 0 is the best-effort queue")
    assert str(err.value) == "queue 0 is outside 1..7; queue 0 is the best-effort queue"


# ---------------------------------------------------------------- unknown keys
def test_unknown_keys_names_them_and_the_allowed_ones_sorted():
    unknown_keys("ecn", {"np": True}, ["rp", "np"], DomainError)                  # all known: nothing raised
    with pytest.raises(DomainError) as err:
        unknown_keys("ecn", {"np": 1, "zz": 2, "aa": 3, 4: 5}, ("rp", "np"), DomainError)
    assert str(err.value) == "ecn has unknown key(s) '4', 'aa', 'zz'; allowed: np, rp"
    with pytest.raises(DomainError) as err:
        unknown_keys("results[0]", {"nod": "a"}, iter(["node", "check"]), DomainError, hint="see docs/validate.md")
    assert str(err.value) == "results[0] has unknown key(s) 'nod'; allowed: check, node; see docs/validate.md"


def test_the_module_exports_exactly_its_helpers():
    assert sorted(refusals.__all__) == sorted(["describe", "type_name", "must_be", "mapping_of", "list_of",
                                               "integer_in", "unknown_keys"])


# ---------------------------------------------------------------- property: every refusal names where
WHERE = st.text(min_size=1, max_size=40)
VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                      lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                  max_size=3),
                      max_leaves=8)
HINTS = st.none() | st.text(min_size=1, max_size=30)


def _refusals(where, value, hint):
    """Every refusal the helpers can make of value at where (those that refuse it), as exceptions."""
    found = [must_be(where, value, "a thing", DomainError, hint)]
    for check in (lambda: mapping_of(where, value, DomainError, hint=hint),
                  lambda: integer_in(where, value, 0, 7, DomainError, hint),
                  lambda: list_of(where, value, DomainError, allow_empty=False, hint=hint),
                  lambda: unknown_keys(where, value if isinstance(value, dict) else {"k": value}, ["other"],
                                       DomainError, hint)):
        try:
            check()
        except DomainError as exc:
            found.append(exc)
    return found


@given(where=WHERE, value=VALUES, hint=HINTS)
def test_every_refusal_names_where_first_and_the_hint_last(where, value, hint):
    for exc in _refusals(where, value, hint):
        text = str(exc)
        assert isinstance(exc, DomainError) and text.startswith(where + " ")
        if hint:
            assert text.endswith("; " + hint)


@given(value=VALUES)
def test_a_named_value_never_floods_the_message(value):
    assert len(describe(value)) <= DESCRIBE_LIMIT
    assert describe(value) == repr(value) or describe(value).endswith("...")
