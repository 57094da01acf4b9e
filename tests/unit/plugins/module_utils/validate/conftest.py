# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The reference inventory's variables (inventories/h100-64) as validate.yml hands them to validate_expect, for the
tests of validate/expect.py and validate/checks.py."""
from __future__ import annotations

import os

import pytest
import yaml

_REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), *[os.pardir] * 5))
_INV = os.path.join(_REPO, "inventories", "h100-64", "group_vars")


def _yaml(*parts):
    with open(os.path.join(_INV, *parts), encoding="utf-8") as handle:
        return yaml.safe_load(handle)


@pytest.fixture(name="hardware")
def fixture_hardware():
    """The inventory's variables as Ansible would hand them over (the one Jinja value rendered by hand)."""
    names = _yaml("all", "hardware.yml")
    names.update({key: value for key, value in _yaml("gpu_nodes.yml").items() if key.startswith(("gpufleet_", "gpu_"))})
    names["gpufleet_plan_lustre"] = _yaml("all", "plan.yml")["gpufleet_plan_lustre"]
    profile = names["gpu_tuning_profiles"]["NVIDIA H100 80GB HBM3"]
    # The rack's GPU power cap where the plan chose one (all/plan.yml), else the TDP.
    assert profile["power_limit_w"] == ("{{ gpufleet_gpu_power_cap_w | default(none, true) "
                                        "or gpufleet_hardware.gpu_tdp_w }}")
    cap = _yaml("all", "plan.yml").get("gpufleet_gpu_power_cap_w")
    assert cap == 319
    profile["power_limit_w"] = cap or names["gpufleet_hardware"]["gpu_tdp_w"]
    return names
