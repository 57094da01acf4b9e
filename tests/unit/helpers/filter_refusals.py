# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Asserting a filter's refusal: the call raises AnsibleFilterError with the expected message."""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError


def refused(match, function, *args, **kwargs):
    """function(*args, **kwargs) raises AnsibleFilterError whose message matches the regex ``match``."""
    with pytest.raises(AnsibleFilterError, match=match) as error:
        function(*args, **kwargs)
    return str(error.value)


def refused_with(call, *parts):
    """call() raises AnsibleFilterError whose message holds every one of parts (plain substrings)."""
    with pytest.raises(AnsibleFilterError) as info:
        call()
    message = str(info.value)
    for part in parts:
        assert part in message, (part, message)
    return message
