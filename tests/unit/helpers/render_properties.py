# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Hypothesis values for the renderers' properties (issue 13): mostly valid, so that rendered output is checked too,
else hostile (newlines, '#', '=', ',', quotes, blanks, non-ASCII, controls); and the check that a line holds no
control character."""
from __future__ import annotations

from hypothesis import settings, strategies as st
from nasty_input import hostile_numbers, hostile_text, near_valid

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.input_rules import CONTROL_RE

FAST = settings(max_examples=150, deadline=None)


def mostly(valid, hostile):
    """The valid value in about 7 draws of 10 (so that rendered output is checked too), else the hostile one."""
    return st.tuples(st.integers(0, 9), valid, hostile).map(lambda t: t[1] if t[0] < 7 else t[2])


def text(*values):
    """A valid value, a spoilt one (one hostile character added) or any hostile text."""
    valid = st.sampled_from(values)
    return mostly(valid, st.one_of(near_valid(valid), hostile_text(0, 20)))


def number(valid):
    """A valid number, or anything a numeric field may be given."""
    return mostly(valid, hostile_numbers())


def no_control(*texts):
    for line in texts:
        assert not CONTROL_RE.search(line), line
