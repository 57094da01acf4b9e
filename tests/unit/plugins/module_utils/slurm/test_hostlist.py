# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""slurm/hostlist: expand/compress worked examples from Slurm's rules, refusals, round trips; at the end, the tests
that killed the mutants of `make mutation MODULES=slurm/hostlist` (docs/testing.md): every refusal in full."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist import (
    MAX_HOSTS,
    HostlistError,
    compress_hostlist,
    count_hosts,
    expand_hostlist,
    host_sort_key,
    hostlist_names,
    sort_hosts,
    split_hostname,
)


# ---------------------------------------------------------------- expand
@pytest.mark.parametrize("expr, names", [
    ("compute[01-08]", ["compute0%d" % i for i in range(1, 9)]),
    ("gpu[1-3,7],login1", ["gpu1", "gpu2", "gpu3", "gpu7", "login1"]),
    # padding is the width of the low bound: 2 digits here, so 08 09 10 11
    ("n[08-11]", ["n08", "n09", "n10", "n11"]),
    # low bound '8' has width 1: no padding at all
    ("n[8-11]", ["n8", "n9", "n10", "n11"]),
    # width 3 from '008' applies to the high bound too
    ("n[008-11]", ["n008", "n009", "n010", "n011"]),
    # the high bound's own padding does not matter ('8' decides)
    ("n[8-011]", ["n8", "n9", "n10", "n11"]),
    ("n[0-2]", ["n0", "n1", "n2"]),
    ("[1-3]", ["1", "2", "3"]),
    ("login", ["login"]),
    # only a comma separates names (blanks and line breaks are refused, see below)
    ("a,b,c,d", ["a", "b", "c", "d"]),
    # a suffix after the bracket (Slurm allows it on 1-D clusters)
    ("n[1-3]-ib", ["n1-ib", "n2-ib", "n3-ib"]),
    # duplicates and input order are kept, as `scontrol show hostnames` prints them
    ("n2,n1,n1", ["n2", "n1", "n1"]),
])
def test_expand_examples(expr, names):
    assert expand_hostlist(expr) == names
    assert count_hosts(expr) == len(names)


def test_expand_two_groups_is_row_major_like_slurm():
    # Slurm's _push_range_list: prefix group outer loop, last group inner loop.
    assert expand_hostlist("rack[1-2]-n[01-02]") == ["rack1-n01", "rack1-n02", "rack2-n01", "rack2-n02"]


def test_expand_three_groups_in_slurm_order():
    # With groups a, b, c Slurm loops b (outermost), then a, then c (innermost):
    # the recursion peels the group just before the last one first.
    assert expand_hostlist("a[1-2]b[1-2]c[1-2]") == [
        "a1b1c1", "a1b1c2", "a2b1c1", "a2b1c2",
        "a1b2c1", "a1b2c2", "a2b2c1", "a2b2c2",
    ]


def test_expand_group_with_several_ranges_in_prefix():
    assert expand_hostlist("r[1,3]n[1-2]") == ["r1n1", "r1n2", "r3n1", "r3n2"]


def test_count_hosts_does_not_expand():
    # 1000 x 1000 = 1,000,000 names counted without building them
    assert count_hosts("a[1-1000]b[1-1000]") == 1000000


def test_limit_is_exactly_max_hosts():
    assert MAX_HOSTS == 100000
    assert len(expand_hostlist("n[1-100000]")) == 100000
    with pytest.raises(HostlistError, match=r"expands to 100001 host names, more than the limit of 100000"):
        expand_hostlist("n[1-100000],x")


def test_limit_counts_the_cartesian_product():
    # 1000 x 101 = 101000 > 100000
    with pytest.raises(HostlistError, match=r"101000 host names"):
        expand_hostlist("a[1-1000]b[1-101]")


@pytest.mark.parametrize("expr, message", [
    ("", r"is empty"),
    ("   ", r"is empty"),
    ("n[5-3]", r"range '5-3' in name 'n\[5-3\]' is reversed \(5 > 3\); write it low-high, e\.g\. '3-5'"),
    ("n[1-2", r"bracket opened at position 1 is never closed; add '\]'"),
    ("n1]", r"'\]' at position 2 closes no bracket"),
    ("n[[1]]", r"brackets do not nest"),
    ("n[1, 2]", r"blank ' ' at position 4 is not allowed"),
    ("n[]", r"empty bracket"),
    ("n[a-b]", r"'a-b' in name 'n\[a-b\]' is not a number or a low-high range"),
    ("n[1-]", r"'1-' in name"),
    ("n[-1]", r"'-1' in name"),
    ("n[1,,2]", r"'' in name"),
    ("a,,b", r"element 1 .* is empty; remove the extra comma"),
    ("a,", r"element 1 .* is empty"),
    (",a", r"element 0 .* is empty"),
    ("n\x00", r"control character '\\x00' at position 1 is not allowed"),
    ("né", r"not printable ASCII"),
    # Slurm reads blanks and line breaks as separators; here they are refused, so that a value
    # can never carry a second word into a slurm.conf line
    ("a, b", r"blank ' ' at position 2 is not allowed; names hold only letters, digits, '\.', '_' and '-'"),
    ("a\tb", r"control character '\\t' at position 1"),
    ("gpu01\n", r"control character '\\n' at position 5"),
    ("n1 NodeAddr=10.0.0.9", r"'n1 NodeAddr=10\.0\.0\.9': blank ' ' at position 2 is not allowed"),
    ("n1#x", r"character '#' at position 2 is not allowed; names hold only letters"),
    ("n=1", r"character '=' at position 1 is not allowed"),
    ("n/1", r"character '/' at position 1 is not allowed"),
    ("-n1", r"gives the name '-n1', which is not allowed; expected a letter or digit"),
    ("n" * 65, r"which is not allowed; expected a letter or digit, then up to 63"),
])
def test_expand_refuses_malformed(expr, message):
    with pytest.raises(HostlistError, match=message):
        expand_hostlist(expr)


@pytest.mark.parametrize("value", [None, 5, ["n1"], b"n1"])
def test_expand_refuses_non_strings(value):
    with pytest.raises(HostlistError, match=r"must be a string"):
        expand_hostlist(value)


# ---------------------------------------------------------------- compress
@pytest.mark.parametrize("names, expr", [
    (["n03", "n01", "n02"], "n[01-03]"),
    (["gpu1", "gpu2", "gpu3", "gpu7", "login1"], "gpu[1-3,7],login1"),
    # sorted and deduplicated
    (["n2", "n1", "n2", "n1"], "n[1-2]"),
    # 1 and 01 are different hosts and never merge; unpadded sorts first (shorter digits)
    (["n01", "n1"], "n[1,01]"),
    # an unpadded run crosses 9 -> 10 in one range, a padded run crosses 09 -> 10
    (["n8", "n9", "n10", "n11"], "n[8-11]"),
    (["n08", "n09", "n10", "n11"], "n[08-11]"),
    # holes in a padded cluster keep one bracket, ordered by value
    (["gpu[001-050]", "gpu[100-128]"], "gpu[001-050,100-128]"),
    # natural order of prefixes: rack2 before rack10
    (["rack10-n1", "rack2-n1"], "rack2-n1,rack10-n1"),
    # a name without number sorts before numbered names of the same prefix
    (["n1", "n"], "n,n1"),
    # names ending in non-digits are kept as they are (Slurm does the same)
    (["n2-ib", "n1-ib"], "n1-ib,n2-ib"),
    (["2", "1", "3"], "[1-3]"),
    (["7"], "7"),
    # items may be expressions themselves
    (["gpu[05-08]", "gpu[01-04]", "login[1-2]"], "gpu[01-08],login[1-2]"),
])
def test_compress_examples(names, expr):
    assert compress_hostlist(names) == expr


def test_compress_cartesian_product_groups_by_prefix():
    assert compress_hostlist(expand_hostlist("rack[1-2]-n[01-02]")) == "rack1-n[01-02],rack2-n[01-02]"


def test_compress_of_an_expression_string_recompresses_it():
    assert compress_hostlist("n[3,1-2],n2") == "n[1-3]"


def test_mixed_padding_uses_slurm_host_order():
    # Slurm's comparator puts n9 (1 digit) before n05 (2 digits) before n10: the order is
    # (digit count, value), so n9 and n10 are not neighbours and stay apart.
    assert sort_hosts(["n10", "n05", "n9"]) == ["n9", "n05", "n10"]
    assert compress_hostlist(["n10", "n05", "n9"]) == "n[9,05,10]"


@pytest.mark.parametrize("names, message", [
    ([], r"empty list"),
    (["n1", 3], r"item 1 must be a host name string \(quote it, e\.g\. '3'\), got 3 of type int"),
    (["n[1-2"], r"never closed"),
    ({"n1": 1}, r"must be a list of host names, got \{'n1': 1\} of type dict"),
])
def test_compress_refuses_bad_input(names, message):
    with pytest.raises(HostlistError, match=message):
        compress_hostlist(names)


def test_compress_limit_over_many_items():
    with pytest.raises(HostlistError, match=r"more than 100000 host names \(limit reached at item 1"):
        compress_hostlist(["n[1-60000]", "m[1-60000]"])


def test_split_hostname_and_sort_key():
    assert split_hostname("gpu07") == ("gpu", "07")
    assert split_hostname("rack1-n01") == ("rack1-n", "01")
    assert split_hostname("login") == ("login", None)
    assert split_hostname("n1-ib") == ("n1-ib", None)
    assert split_hostname("42") == ("", "42")
    assert host_sort_key("n9") < host_sort_key("n10") < host_sort_key("n010")


def test_error_is_a_value_error():
    assert issubclass(HostlistError, ValueError)


# ---------------------------------------------------------------- properties
_PREFIXES = ["n", "gpu", "rack1-n", "rack10-n", "a-", "x.y", "", "n0"]
_numbered = st.builds(
    lambda prefix, value, width: prefix + str(value).zfill(width),
    st.sampled_from(_PREFIXES), st.integers(0, 130), st.integers(0, 4),
)
_plain = st.sampled_from(["login", "n", "head", "n1-ib", "gpu", "x.y"])
_names = st.lists(st.one_of(_numbered, _numbered, _plain), min_size=1, max_size=40)


@settings(max_examples=200, deadline=None)
@given(_names)
def test_round_trip_expand_of_compress_is_sorted_unique(names):
    compressed = compress_hostlist(names)
    expanded = expand_hostlist(compressed)
    assert expanded == sort_hosts(names)
    assert set(expanded) == set(names)
    assert len(expanded) == len(set(names))


@settings(max_examples=200, deadline=None)
@given(_names, st.randoms(use_true_random=False))
def test_compress_is_canonical(names, rnd):
    compressed = compress_hostlist(names)
    shuffled = list(names)
    rnd.shuffle(shuffled)
    assert compress_hostlist(shuffled) == compressed
    assert compress_hostlist(expand_hostlist(compressed)) == compressed
    assert compress_hostlist(compressed) == compressed


def _range(lo, span, width):
    low = str(lo).zfill(width)
    return "%s-%s" % (low, str(lo + span).zfill(width)) if span else low


_range_text = st.builds(_range, st.integers(0, 120), st.integers(0, 15), st.integers(1, 3))
_group = st.lists(_range_text, min_size=1, max_size=3).map(lambda parts: "[%s]" % ",".join(parts))
_token = st.builds(
    lambda head, groups, mids: head + "".join(g + m for g, m in zip(groups, mids)),
    st.sampled_from(["n", "gpu", "rack", "", "a-"]),
    st.lists(_group, min_size=0, max_size=2),
    st.lists(st.sampled_from(["", "-n", "x"]), min_size=2, max_size=2),
).filter(bool)  # '' alone would be an empty element
_expr = st.lists(_token, min_size=1, max_size=4).map(",".join)


@settings(max_examples=200, deadline=None)
@given(_expr)
def test_generated_expressions(expr):
    names = expand_hostlist(expr)
    assert len(names) == count_hosts(expr)
    canonical = compress_hostlist(names)
    assert compress_hostlist(expr) == canonical
    assert expand_hostlist(canonical) == sort_hosts(names)


def test_compress_handles_a_full_rack_row_quickly():
    names = ["gpu%04d" % i for i in range(1, 4097)]
    random.Random(7).shuffle(names)
    assert compress_hostlist(names) == "gpu[0001-4096]"


# ---------------------------------------------------------------- refusals in full (mutation tests)
@pytest.mark.parametrize("bad, said", [
    ("gpu01", None),  # not refused: a control for the cases below
    (42, "sort_hosts must be a list of host names, got 42 of type int"),
    ([], "sort_hosts got an empty list of host names; give at least one name"),
    (["gpu01", 7], "sort_hosts item 1 must be a host name string (quote it, e.g. '7'), got 7 of type int"),
])
def test_sort_hosts_refusals_name_sort_hosts(bad, said):
    if said is None:
        assert sort_hosts(bad) == ["gpu01"]
        return
    with pytest.raises(HostlistError) as err:
        sort_hosts(bad)
    assert str(err.value) == said


def test_a_list_may_expand_to_exactly_max_hosts():
    # 50000 + 50000 names is the limit itself (MAX_HOSTS = 100000): accepted; one more name is refused.
    names = sort_hosts(["n[1-50000]", "m[1-50000]"])
    assert len(names) == 100000
    assert names[0] == "m1" and names[-1] == "n50000"


def test_a_list_over_max_hosts_is_refused_naming_the_item():
    with pytest.raises(HostlistError) as err:
        sort_hosts(["n[1-50000]", "m[1-50000]", "x"])
    assert str(err.value) == (
        "sort_hosts: the 3 items expand to more than 100000 host names (limit reached at item 2, 'x'); "
        "split the list")


@pytest.mark.parametrize("expr, said", [
    ("gpu[]", "hostlist 'gpu[]': name 'gpu[]' has an empty bracket '[]'; put a number or range in it, e.g. '[1-4]'"),
    ("gpu[1-x]", "hostlist 'gpu[1-x]': '1-x' in name 'gpu[1-x]' is not a number or a low-high range of decimal "
                 "digits; write e.g. '7' or '01-16'"),
    ("n[1-100001]", "hostlist 'n[1-100001]' expands to 100001 host names, more than the limit of 100000; split it "
                    "into smaller lists or check the ranges for a typo"),
    # brackets and blanks at position zero (or one): the positions are counted from the expression's first character
    ("[[1]]", "hostlist '[[1]]': '[' at position 1 opens a bracket inside the bracket opened at position 0; brackets "
              "do not nest, close the first one with ']'"),
    ("n[[1]]", "hostlist 'n[[1]]': '[' at position 2 opens a bracket inside the bracket opened at position 1; brackets "
               "do not nest, close the first one with ']'"),
    ("]n1", "hostlist ']n1': ']' at position 0 closes no bracket; add the matching '[' or remove it"),
    ("[ 1]", "hostlist '[ 1]': blank ' ' at position 1 is not allowed; names hold only letters, digits, '.', '_' and '-' "
             "and are separated by ',' (a blank or line break would split a slurm.conf line)"),
])
def test_expression_refusals_whole_message(expr, said):
    with pytest.raises(HostlistError) as err:
        expand_hostlist(expr)
    assert str(err.value) == said


def test_compress_refusals_name_compress_hostlist():
    with pytest.raises(HostlistError) as err:
        compress_hostlist(["gpu01", None])
    assert str(err.value) == ("compress_hostlist item 1 must be a host name string (quote it, e.g. 'None'), got None "
                              "of type NoneType")


def test_printable_ascii_bounds():
    # Names are Slurm names (input_rules slurm_name): '!' and '~', the ends of printable ASCII, are refused as
    # characters a name may not hold; 127 DEL is refused as a control character.
    for char in "!~":
        with pytest.raises(HostlistError) as err:
            expand_hostlist(char)
        assert str(err.value) == ("hostlist '%s': character '%s' at position 0 is not allowed; names hold only letters, "
                                  "digits, '.', '_' and '-' (outside brackets, ',' separates names)" % (char, char))
    with pytest.raises(HostlistError) as err:
        expand_hostlist("n\x7f")
    assert str(err.value) == ("hostlist 'n\\x7f': control character '\\x7f' at position 1 is not allowed; names hold "
                              "only letters, digits, '.', '_' and '-' and are separated by ',' (a blank or line break "
                              "would split a slurm.conf line)")


@pytest.mark.parametrize("expr, said", [
    ("[1", "hostlist '[1': the bracket opened at position 0 is never closed; add ']'"),
    (" \t", "hostlist ' \\t' is empty; give at least one host name, e.g. 'gpu[01-08]'"),
    (5, "hostlist must be a string such as 'gpu[01-08],login1', got 5 of type int"),
])
def test_more_refusals_whole_message(expr, said):
    with pytest.raises(HostlistError) as err:
        expand_hostlist(expr)
    assert str(err.value) == said


# ---------------------------------------------------------------- hostlist_names (the callers' own error class)
class _CallerError(ValueError):
    pass


@pytest.mark.parametrize("value, names", [("n[1-2]", ["n1", "n2"]), (["n1", "m[1-2]"], ["n1", "m1", "m2"])])
def test_hostlist_names_of_an_expression_or_a_list(value, names):
    assert hostlist_names("nodes", value, _CallerError) == names


@pytest.mark.parametrize("value, message", [
    ([], "nodes must be a hostlist string or a non-empty list of names, got [] of type list"),
    (5, "nodes must be a hostlist string or a non-empty list of names, got 5 of type int"),
    ("n[1", "nodes: hostlist 'n[1': the bracket opened at position 1 is never closed; add ']'"),
    (["n1", 3], "nodes: hostlist must be a string such as 'gpu[01-08],login1', got 3 of type int"),
])
def test_hostlist_names_refuses_with_the_callers_error(value, message):
    with pytest.raises(_CallerError) as err:
        hostlist_names("nodes", value, _CallerError)
    assert str(err.value) == message
