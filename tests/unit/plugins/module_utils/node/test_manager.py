# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node/manager.py: the systemd manager's properties from `systemctl show --property=...` with no unit."""
import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.node.manager import (
    ManagerPropertyError, parse_manager_properties,
)

# What systemd 252 (Debian 12) prints for the two memlock properties of the manager.
SHOWN = "DefaultLimitMEMLOCK=8388608\nDefaultLimitMEMLOCKSoft=8388608\n"


def test_each_property_asked_by_name():
    assert parse_manager_properties(["DefaultLimitMEMLOCKSoft", "DefaultLimitMEMLOCK"], SHOWN) == {
        "DefaultLimitMEMLOCKSoft": "8388608", "DefaultLimitMEMLOCK": "8388608"}


def test_a_value_holding_an_equals_sign_is_kept_whole_and_infinity_is_text():
    assert parse_manager_properties(["Environment", "DefaultLimitMEMLOCK"],
                                    "Environment=A=1 B=2\nDefaultLimitMEMLOCK=infinity\n") == {
        "Environment": "A=1 B=2", "DefaultLimitMEMLOCK": "infinity"}


def test_a_property_systemctl_does_not_print_is_an_error_not_an_empty_value():
    # An older systemd without DefaultLimitMEMLOCKSoft prints only the other line.
    with pytest.raises(ManagerPropertyError, match="printed no DefaultLimitMEMLOCKSoft for the systemd manager"):
        parse_manager_properties(["DefaultLimitMEMLOCK", "DefaultLimitMEMLOCKSoft"], "DefaultLimitMEMLOCK=65536\n")
