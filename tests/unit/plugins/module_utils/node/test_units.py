# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node.units: `systemctl show` blocks mapped to the units asked, with further properties when asked."""
import os

import pytest
from ansible_collections.gpufleet.cluster.plugins.module_utils.node.units import (
    PROPERTY_RE, UnitStateError, parse_units,
)

from reference import FIXTURES

with open(os.path.join(FIXTURES, "systemd", "show-state.lab-gpu-slurmd-disabled.debian12.txt"),
          encoding="utf-8") as _handle:
    GPU = _handle.read()


def test_the_recorded_node_without_properties():
    units = parse_units(["munge", "slurmd", "slurmctld"], GPU)
    assert units["slurmd"] == {"load": "loaded", "active": "inactive", "sub": "dead", "enabled": "disabled"}
    assert "properties" not in units["munge"]


def test_further_properties_by_name_empty_when_not_printed():
    output = ("LoadState=loaded\nActiveState=active\nSubState=running\nUnitFileState=enabled\n"
              "FragmentPath=/lib/systemd/system/chrony.service\nExecStart={ path=/usr/sbin/chronyd ; argv[]=x }\n")
    units = parse_units(["chrony"], output, ["FragmentPath", "ExecStart", "DropInPaths"])
    assert units["chrony"]["properties"] == {"FragmentPath": "/lib/systemd/system/chrony.service",
                                             "ExecStart": "{ path=/usr/sbin/chronyd ; argv[]=x }", "DropInPaths": ""}


def test_fewer_blocks_or_a_missing_state_is_refused():
    with pytest.raises(UnitStateError, match="printed 1 blocks of properties for 2 units"):
        parse_units(["a", "b"], "LoadState=loaded\nActiveState=active\nSubState=running\nUnitFileState=enabled\n")
    with pytest.raises(UnitStateError, match="printed no UnitFileState for a"):
        parse_units(["a"], "LoadState=loaded\nActiveState=active\nSubState=running\n")


@pytest.mark.parametrize("name, ok", [("ExecStart", True), ("LimitMEMLOCK", True), ("execStart", False),
                                      ("Exec-Start", False), ("A" * 65, False), ("X\n", False)])
def test_property_names(name, ok):
    assert bool(PROPERTY_RE.fullmatch(name)) is ok
