# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Waiting in the e2e tests: poll until something happens in the lab, or fail saying what did not."""
import time


def until(what, check, timeout=60):
    """check() every 2 s until it returns something true (returned); fails after timeout seconds naming what."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        assert time.monotonic() < deadline, f"{what} did not happen within {timeout} s"
        time.sleep(2)
