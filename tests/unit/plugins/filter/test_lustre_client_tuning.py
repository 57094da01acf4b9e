# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The lustre_client_tuning filter: lctl set_param arguments, errors under the filter's name, issue 13's
values, the inventories' values, the property that lines parse back, wrong types."""
from __future__ import annotations

import copy
import math
import shlex

import pytest
from ansible.errors import AnsibleFilterError
from hypothesis import given, strategies as st
from nasty_input import hostile_numbers

from ansible_collections.gpufleet.cluster.plugins.filter import lustre_client_tuning as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_client_tuning import lustre_client_tuning
from filter_docs import assert_documented
from filter_refusals import refused_with
from group_vars import SOURCES, variables
from render_properties import FAST, no_control, number, text
from wrong_types import assert_only_refusals


TUNING = {"max_pages_per_rpc": 1024, "max_rpcs_in_flight": 64, "max_read_ahead_mb": 1024,
          "max_read_ahead_per_file_mb": 256}


def test_registered_and_documented():
    assert_documented(plugin, "lustre_client_tuning")


def test_tuning_filter():
    assert lustre_client_tuning(TUNING)["params"][0] == "osc.*.max_pages_per_rpc=1024"
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.lustre_client_tuning: "
                                                 r"lustre_client_tuning\.max_pages_per_rpc 1000"):
        lustre_client_tuning(dict(TUNING, max_pages_per_rpc=1000))
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.lustre_client_tuning: input must be a dict of "
                                                 r"the four settings, "
                       r"got \[1024\] of type list$"):
        lustre_client_tuning([1024])


# ---------------------------------------------------------------- issue 13: refused naming field, value and rule
@pytest.mark.parametrize("value, shown", [(None, "None of type NoneType"), (math.nan, "nan of type float"),
                                          ("0\n", "'0\\n' of type str")])
def test_tuning_setting_none_nan_newline_refused(value, shown):
    refused_with(lambda: lustre_client_tuning(dict(TUNING, max_rpcs_in_flight=value)),
                 "gpufleet.cluster.lustre_client_tuning", "lustre_client_tuning.max_rpcs_in_flight must be a whole "
                                                          "number",
                 shown)


@pytest.mark.parametrize("value, shown", [(None, "None (NoneType)"), (math.nan, "nan (float)"),
                                          (math.inf, "inf (float)"), ("0\n", "'0\\n' (str)")])
def test_tuning_extra_none_nan_newline_refused(value, shown):
    # was: osc.*.checksums=None, osc.*.checksums=nan and osc.*.checksums=0\n in the lctl set_param lines
    refused_with(lambda: lustre_client_tuning(TUNING, extra={"osc.*.checksums": value}),
                 "lustre_client_tuning_extra.osc.*.checksums", shown, "is not allowed; expected one word of 1-255 "
                                                                      "letters")


def test_tuning_page_size_states_the_real_maximum():
    # was: "max_pages_per_rpc is 1024, above the maximum of 0" (16 MiB // 1 GiB)
    message = refused_with(lambda: lustre_client_tuning(TUNING, page_size=2 ** 30),
                           "page size is 1073741824, above the maximum of 65536; use a value <= 65536")
    assert "maximum of 0" not in message
    refused_with(lambda: lustre_client_tuning(TUNING, page_size=8192), "page size 8192 is not a kernel page size; use "
                                                                       "one "
                 "of 4096, 16384, 65536")
    assert lustre_client_tuning(dict(TUNING, max_pages_per_rpc=256), page_size=65536)["max_pages_per_rpc_limit"] == 256


# ---------------------------------------------------------------- the reference, lab and molecule/fabric values
@pytest.mark.parametrize("source", sorted(SOURCES))
def test_inventory_values_render(source):
    assert lustre_client_tuning(variables(source)["lustre_client_tuning"])["params"]


# ---------------------------------------------------------------- property: refused, or lines that parse back
@FAST
@given(number(st.sampled_from([256, 1024, 4096])), number(st.integers(1, 256)),
       st.dictionaries(text("osc.*.checksums", "llite.*.statahead_max", "mdc.*.max_rpcs_in_flight"),
                       st.one_of(hostile_numbers(), text("0", "1", "lz4")), max_size=2))
def test_tuning_lines_parse_back(pages, in_flight, extra):
    settings_ = {"max_pages_per_rpc": pages, "max_rpcs_in_flight": in_flight, "max_read_ahead_mb": 1024,
                 "max_read_ahead_per_file_mb": 256}
    try:
        plan = lustre_client_tuning(settings_, extra=extra)
    except AnsibleFilterError as exc:
        assert "gpufleet.cluster.lustre_client_tuning" in str(exc)
        return
    params = plan["params"]
    no_control(*params)
    assert len(params) == 4 + len(extra)
    assert all(len(shlex.split(p)) == 1 for p in params)   # one argument of lctl set_param each
    parsed = dict(p.split("=", 1) for p in params)
    assert parsed["osc.*.max_pages_per_rpc"] == str(pages) and parsed["osc.*.max_rpcs_in_flight"] == str(in_flight)
    for name, value in extra.items():
        text = parsed[name]
        if isinstance(value, bool):
            assert text == ("1" if value else "0")
        elif isinstance(value, (int, float)):
            assert type(value)(text) == value
        else:
            assert text == value


# ------------------------------------------------------------------ wrong types: refused by a check, nothing else
VALID = [{"max_pages_per_rpc": 1024, "max_rpcs_in_flight": 64, "max_read_ahead_mb": 1024,
          "max_read_ahead_per_file_mb": 256}]
VALID_KWARGS = {"page_size": 4096, "memtotal_mb": 2063937, "extra": {"osc.*.checksums": 0}}


def test_valid_call_works():
    assert lustre_client_tuning(*copy.deepcopy(VALID), **copy.deepcopy(VALID_KWARGS)) is not None


def test_wrong_types_and_missing_keys_are_refused():
    assert_only_refusals('lustre_client_tuning', lustre_client_tuning, VALID, VALID_KWARGS)
