# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""validate/parse.py: what the validation tools' parsers share: the error naming the tool and the line, the input
check, and reading numbers as the tools print them."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.parse import (
    ValidateParseError, is_number, number, rounded, text_input,
)


class ToolError(ValidateParseError):
    tool = "sometool"


def test_the_error_names_the_tool_the_line_and_the_text_cut_to_160():
    assert str(ToolError("no table")) == "sometool: no table"
    assert str(ToolError("not a number", 3, "  x y \n")) == "sometool line 3: not a number: 'x y'"
    long = ToolError("too long", 1, "a" * 400)
    assert str(long) == "sometool line 1: too long: %r" % ("a" * 160) and long.line == 1
    assert ToolError("x").line is None and isinstance(long, ValueError)
    assert str(ValidateParseError("x")) == "output: x"


def test_text_input_takes_a_string_and_refuses_the_rest_in_the_one_wording():
    assert text_input("", "the text output of sometool", ToolError) == ""
    with pytest.raises(ToolError) as err:
        text_input(b"bytes", "the text output of sometool", ToolError)
    assert str(err.value) == "sometool: input must be the text output of sometool, got b'bytes' of type bytes"


@pytest.mark.parametrize("token, value", [("20000", 20000), ("-3", -3), ("+7", 7), ("24056.72", 24056.72),
                                          ("7e-07", 7e-07), (".5", 0.5), ("5.", 5.0), ("1E3", 1000.0)])
def test_numbers_as_the_tools_print_them(token, value):
    assert is_number(token)
    assert number(token) == value and type(number(token)) is type(value)  # pylint: disable=unidiomatic-typecheck


@pytest.mark.parametrize("token", ["", "x", "1.2.3", "N/A", "1e", "8\n", " 8", "0x10", "inf", "nan", 8, None])
def test_what_is_not_a_number(token):
    assert not is_number(token)


def test_rounded_keeps_three_digits_by_default():
    assert rounded(113.28912) == 113.289 and rounded(2.5, 0) == 2.0 and isinstance(rounded(3), float)


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12, max_value=1e12))
def test_every_printed_float_reads_back(value):
    assert is_number(repr(value)) and number(repr(value)) == value
