# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Tests that kill mutants `make mutation MODULES=slurm/hostlist` found alive (docs/testing.md)."""
from __future__ import annotations

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist import (
    HostlistError,
    compress_hostlist,
    expand_hostlist,
    sort_hosts,
)


@pytest.mark.parametrize("bad, said", [
    ("gpu01", None),  # not refused: a control for the cases below
    (42, "sort_hosts needs a list of host names, got int 42"),
    ([], "sort_hosts got an empty list of host names; give at least one name"),
    (["gpu01", 7], "sort_hosts: item 1 is int 7, not a host name string; quote it, e.g. '7'"),
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
])
def test_expression_refusals_whole_message(expr, said):
    with pytest.raises(HostlistError) as err:
        expand_hostlist(expr)
    assert str(err.value) == said


def test_compress_refusals_name_compress_hostlist():
    with pytest.raises(HostlistError) as err:
        compress_hostlist(["gpu01", None])
    assert str(err.value) == "compress_hostlist: item 1 is NoneType None, not a host name string; quote it, e.g. 'None'"


@pytest.mark.parametrize("expr, said", [
    ("[[1]]", "hostlist '[[1]]': '[' at position 1 opens a bracket inside the bracket opened at position 0; brackets "
              "do not nest, close the first one with ']'"),
    ("n[[1]]", "hostlist 'n[[1]]': '[' at position 2 opens a bracket inside the bracket opened at position 1; brackets "
               "do not nest, close the first one with ']'"),
    ("]n1", "hostlist ']n1': ']' at position 0 closes no bracket; add the matching '[' or remove it"),
    ("[ 1]", "hostlist '[ 1]': blank ' ' at position 1 is not allowed; names hold only letters, digits, '.', '_' and '-' "
             "and are separated by ',' (a blank or line break would split a slurm.conf line)"),
])
def test_bracket_refusals_at_position_zero_whole_message(expr, said):
    with pytest.raises(HostlistError) as err:
        expand_hostlist(expr)
    assert str(err.value) == said


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
    (5, "hostlist must be a string such as 'gpu[01-08],login1', got int 5"),
])
def test_more_refusals_whole_message(expr, said):
    with pytest.raises(HostlistError) as err:
        expand_hostlist(expr)
    assert str(err.value) == said
