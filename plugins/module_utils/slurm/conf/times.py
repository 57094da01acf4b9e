# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Slurm's time strings as slurm.conf's parser reads them (for :mod:`.values`).

``src/common/parse_time.c`` ``time_str2secs``/``time_str2mins`` (SchedMD/slurm, the same at the tags the key
catalogue uses): the forms M, M:S, H:M:S, D-H, D-H:M, D-H:M:S; "-1", INFINITE and UNLIMITED; minutes are rounded
up; the result is a C int. :func:`time_seconds` and :func:`time_minutes` read one value of a slurm.conf key and
raise :class:`~.settings.SlurmConfError` naming the key, the value and the forms.
"""
from __future__ import annotations

import re
from typing import Any, Optional

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import must_be
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.conf.settings import SlurmConfError

# parse_time.c time_str2secs, the documented forms only (applied with fullmatch). _is_valid_timespec lets
# through odd strings such as "5-" or "-5" that sscanf then reads as something else; they are refused here.
_TIME_FORMS = (
    (re.compile(r"([0-9]+)"), ("m",)),
    (re.compile(r"([0-9]+):([0-9]+)"), ("m", "s")),
    (re.compile(r"([0-9]+):([0-9]+):([0-9]+)"), ("h", "m", "s")),
    (re.compile(r"([0-9]+)-([0-9]+)"), ("d", "h")),
    (re.compile(r"([0-9]+)-([0-9]+):([0-9]+)"), ("d", "h", "m")),
    (re.compile(r"([0-9]+)-([0-9]+):([0-9]+):([0-9]+)"), ("d", "h", "m", "s")),
)
_UNIT_SECONDS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
TIME_ALLOWED = ("a Slurm time string: MINUTES, MINUTES:SECONDS, HOURS:MINUTES:SECONDS, DAYS-HOURS, "
                "DAYS-HOURS:MINUTES or DAYS-HOURS:MINUTES:SECONDS (e.g. 5, 30:00, 7-0, 1-12:00:00)")
_INFINITE_WORDS = ("-1", "INFINITE", "UNLIMITED")
# time_str2secs returns a C int: anything above this overflows.
_INT_MAX = 0x7FFFFFFF


def hours_text(minutes: int) -> str:
    """3600 -> '60 hours', 90 -> '1 hour 30 minutes'."""
    hours, rest = divmod(minutes, 60)
    text = "%d hour%s" % (hours, "" if hours == 1 else "s")
    return text if not rest else "%s %d minute%s" % (text, rest, "" if rest == 1 else "s")


def time_seconds(key: str, value: Any, infinite_ok: bool = True) -> Optional[int]:
    """Seconds in a Slurm time string as time_str2secs reads it; None for INFINITE/UNLIMITED/-1."""
    where = "slurm.conf %s" % key
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise must_be(where, value, TIME_ALLOWED, SlurmConfError)
    text = str(value)
    if text.upper() in _INFINITE_WORDS:
        if not infinite_ok:
            raise SlurmConfError("%s=%s: Slurm refuses an infinite %s (read_config.c 'Bad value'); expected %s"
                                 % (where, text, key, TIME_ALLOWED))
        return None
    for pattern, units in _TIME_FORMS:
        match = pattern.fullmatch(text)
        if match:
            seconds = sum(int(number) * _UNIT_SECONDS[unit] for number, unit in zip(match.groups(), units))
            if seconds > _INT_MAX:
                raise SlurmConfError("%s=%s is %d seconds, more than Slurm's time_str2secs can hold (a C int, "
                                     "at most %d); expected %s" % (where, text, seconds, _INT_MAX, TIME_ALLOWED))
            return seconds
    raise SlurmConfError("%s=%r is not a time Slurm reads (parse_time.c time_str2secs); expected %s%s"
                         % (where, value, TIME_ALLOWED, ", or INFINITE" if infinite_ok else ""))


def time_minutes(key: str, value: Any, infinite_ok: bool = True) -> Optional[int]:
    """Minutes as time_str2mins gives them (seconds rounded up); None for INFINITE."""
    seconds = time_seconds(key, value, infinite_ok)
    return None if seconds is None else (seconds + 59) // 60
