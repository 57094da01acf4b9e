# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""slurm/conf/times: Slurm's time strings as slurm.conf's parser reads them.

Expected numbers are worked by hand from Slurm's own rules (parse_time.c time_str2secs: D-H:M:S; minutes are
rounded up by time_str2mins), not from the code under test.
"""
from __future__ import annotations

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.conf.settings import SlurmConfError
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.conf.times import time_minutes, time_seconds


# ---------------------------------------------------------------- time strings (parse_time.c)
@pytest.mark.parametrize("value, seconds", [
    ("5", 300), (5, 300), ("0", 0), ("30:00", 1800), ("0:30", 30), ("1:02:03", 3723), ("7-0", 604800),
    ("1-12", 129600), ("1-12:30", 131400), ("1-0:0:1", 86401), ("2-00:00:00", 172800), (90, 5400),
])
def test_time_forms(value, seconds):
    assert time_seconds("PriorityMaxAge", value) == seconds


@pytest.mark.parametrize("value", ["-1", "INFINITE", "unlimited", -1])
def test_time_infinite(value):
    assert time_seconds("PriorityMaxAge", value) is None


@pytest.mark.parametrize("value, minutes", [("0:30", 1), ("1:01", 2), ("1:00", 1), ("1:00:00", 60), ("7-0", 10080)])
def test_time_minutes_round_up_like_slurm(value, minutes):
    assert time_minutes("PriorityDecayHalfLife", value) == minutes


@pytest.mark.parametrize("value", ["5-", "-5", "1:2:3:4", "7d", "1.5", "", " 5", "5 ", "1-2-3", "1:2-3", "0x10", "5\n"])
def test_time_bad_forms_are_refused_with_the_forms(value):
    with pytest.raises(SlurmConfError, match=r"^slurm\.conf PriorityMaxAge=.* is not a time Slurm reads "
                                             r"\(parse_time\.c time_str2secs\); expected a Slurm time string: "
                                             r"MINUTES, MINUTES:SECONDS, HOURS:MINUTES:SECONDS, DAYS-HOURS"):
        time_seconds("PriorityMaxAge", value)


@pytest.mark.parametrize("value, shown", [(1.5, "1.5 of type float"), (True, "True of type bool"),
                                          (None, "None of type NoneType"), (["5"], "['5'] of type list"),
                                          ({"m": 5}, "{'m': 5} of type dict")])
def test_time_wrong_types(value, shown):
    with pytest.raises(SlurmConfError) as error:
        time_seconds("PriorityMaxAge", value)
    assert str(error.value) == (
        "slurm.conf PriorityMaxAge must be a Slurm time string: MINUTES, MINUTES:SECONDS, HOURS:MINUTES:SECONDS, "
        "DAYS-HOURS, DAYS-HOURS:MINUTES or DAYS-HOURS:MINUTES:SECONDS (e.g. 5, 30:00, 7-0, 1-12:00:00), got " + shown)


def test_time_overflowing_a_c_int():
    # 24856 days = 2147558400 s > 2147483647
    with pytest.raises(SlurmConfError, match=r"PriorityMaxAge=24856-0 is 2147558400 seconds, more than .* 2147483647"):
        time_seconds("PriorityMaxAge", "24856-0")
    assert time_seconds("PriorityMaxAge", "24855-0") == 2147472000
