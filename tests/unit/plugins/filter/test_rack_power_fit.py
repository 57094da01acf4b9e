# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The rack_power_fit filter: registration and documentation, the documented example, refusals under the
filter's name, wrong types. The arithmetic is tested in tests/unit/plugins/module_utils/power/test_fit.py."""
from __future__ import annotations

import copy

import yaml
from ansible.errors import AnsibleFilterError
import pytest

from ansible_collections.gpufleet.cluster.plugins.filter import rack_power_fit as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.rack_power_fit import rack_power_fit
from filter_docs import assert_documented
from wrong_types import assert_only_refusals

H100 = {"max_power_w": 10200, "gpus": 8, "gpu_power_w": 700, "gpu_min_power_w": 200}
EXAMPLE = {"racks": [{"name": "r01", "budget_w": 15000, "nodes": [dict(H100, name="gpu01"), dict(H100, name="gpu02")],
                      "loads": [{"name": "leaf1", "max_power_w": 650}]}]}


def test_registered_and_documented():
    assert_documented(plugin, "rack_power_fit", "0.2.0")
    assert yaml.safe_load(plugin.EXAMPLES)[0]["vars"]["rack"] == EXAMPLE["racks"][0]


def test_the_documented_example():
    # (15000 - 650 - 2 x (10200 - 8 x 700)) / 16 = 321.9, rounded down
    assert rack_power_fit(copy.deepcopy(EXAMPLE)) == [
        {"name": "r01", "draw_w": 21050, "budget_w": 15000, "fits": False, "over_w": 6050, "max_nodes": 1,
         "gpu_power_cap_w": 321}]


@pytest.mark.parametrize("data, message", [
    ({"racks": []}, "racks"),
    ({"racks": [{"name": "r", "budget_w": -1}]}, "out of range"),
    ({"racks": [{"name": "r", "budget_w": 1, "colour": 1}]}, "unknown key"),
])
def test_refusals_name_the_filter(data, message):
    with pytest.raises(AnsibleFilterError, match="^gpufleet.cluster.rack_power_fit: ") as info:
        rack_power_fit(data)
    assert message in str(info.value)


# ---------------------------------------------------------------- wrong types: refused by a check, nothing else
def test_wrong_types_and_missing_keys_are_refused():
    assert_only_refusals("rack_power_fit", rack_power_fit, [EXAMPLE])
