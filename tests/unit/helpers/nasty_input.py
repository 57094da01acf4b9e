# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Hypothesis strategies for the input-rule property tests: names and values that a renderer must
either refuse or write back exactly (newlines, '#', '=', ',', quotes, blanks, non-ASCII, controls)."""
from __future__ import annotations

from hypothesis import strategies as st

#: Characters that change the meaning of a config line in one file format or another.
HOSTILE = "\n\r\t #=,;:\"'`$\\[]{}()/.%@*?!<>|&\x00\x1b\x7f\u0085\u2028é中"

_SAFE = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-."


def hostile_text(min_size: int = 0, max_size: int = 24) -> st.SearchStrategy[str]:
    """Mostly plain characters with hostile ones mixed in, so both outcomes (refused, written) occur."""
    return st.text(alphabet=st.sampled_from(_SAFE + HOSTILE), min_size=min_size, max_size=max_size)


def near_valid(valid: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """A valid value with one hostile character inserted, prefixed or appended (a trailing newline too)."""
    def _spoil(draw_value: str, char: str, where: int) -> str:
        where = min(where, len(draw_value))
        return draw_value[:where] + char + draw_value[where:]
    return st.builds(_spoil, valid, st.sampled_from(HOSTILE), st.integers(min_value=0, max_value=64))


def hostile_numbers() -> st.SearchStrategy[object]:
    """Numbers and non-numbers a numeric field must refuse or accept knowingly."""
    return st.one_of(st.integers(min_value=-2**70, max_value=2**70), st.floats(allow_nan=True, allow_infinity=True),
                     st.booleans(), st.none(), st.sampled_from(["8", "eight", "0\n", "", "1e3"]))
