# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Tests that kill mutants `make mutation MODULES=slurm/keys` found alive (docs/testing.md).

slurm_keys builds the 23.11 tables at import (`_derive` over the 22.05 tables), so a changed `_derive` is only seen
when it is called again: here, against the rows pinned from slurm-23-11-4-1 (tests/fixtures/slurm-keys/). And
`key_status`, entry by entry: what holds for every release, and what one release adds or overrides.
"""
from __future__ import annotations

import json
import os

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm import keys as slurm_keys

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(os.path.dirname(__file__)))))))


def _pinned(tag):
    with open(os.path.join(_REPO, "tests", "fixtures", "slurm-keys", tag + ".json"), encoding="utf-8") as handle:
        return {conf: sorted(map(tuple, rows)) for conf, rows in json.load(handle)["tables"].items()}


def test_derive_rebuilds_the_23_11_source_tables_from_22_05():
    before = {conf: sorted(rows) for conf, rows in slurm_keys._TABLES_22_05.items()}
    derived = slurm_keys._derive(slurm_keys._TABLES_22_05)
    assert {conf: sorted(rows) for conf, rows in derived.items()} == _pinned("slurm-23-11-4-1")
    # the 22.05 tables it started from are left as they were (and still equal their own source)
    assert {conf: sorted(rows) for conf, rows in slurm_keys._TABLES_22_05.items()} == before == _pinned("slurm-22-05-8-1")


def test_key_status_merges_release_entries_over_the_common_ones():
    status = slurm_keys.key_status("23.11", "slurm.conf")
    assert status["ControlMachine"][:2] == ("renamed", "SlurmctldHost")  # common to every release
    assert status["RoutePlugin"][:2] == ("removed", "TopologyParam")  # 23.11 only
    assert status["LaunchType"] == ("removed", None, "in the table but never read: ignored")
    assert len(status) == 11 + 8
    assert "RoutePlugin" not in slurm_keys.key_status("22.05", "slurm.conf")
    assert sorted(slurm_keys.key_status("24.11", "cgroup.conf")) == [
        "AllowedDevicesFile", "CgroupAutomount", "CgroupReleaseAgentDir", "MemoryLimitEnforcement", "MemoryLimitThreshold"]


@pytest.mark.parametrize("version,conf,expected", [
    ("22.05", "topology.conf", {}),
    ("99.99", "gres.conf:line", {"CPUs": ("renamed", "Cores", "gres.c: 'CPUs to bind to Gres resource (deprecated, use Cores)'")}),
    ("24.11", "gres.conf", {}),
])
def test_key_status_of_files_and_releases_without_entries(version, conf, expected):
    assert slurm_keys.key_status(version, conf) == expected


def test_key_status_returns_a_copy():
    slurm_keys.key_status("24.11", "slurm.conf")["ControlMachine"] = ("removed", None, "changed by a caller")
    assert slurm_keys.key_status("24.11", "slurm.conf")["ControlMachine"][0] == "renamed"


def test_derive_on_tables_it_has_no_changes_for():
    # a file 23.11 does not change is carried over; a key 23.11 drops that the base lacks is no error; topology.conf
    # gets 23.11's block options (BlockName lines, BlockLevels, Nodes) after its own rows
    derived = slurm_keys._derive({"topology.conf": (("SwitchName", "lines"),), "extra.conf": (("Key", "u16"),),
                                  "cgroup.conf": (("CgroupPlugin", "str"),)})
    assert derived == {
        "topology.conf": (("SwitchName", "lines"), ("BlockName", "lines"), ("BlockLevels", "str"), ("Nodes", "str")),
        "extra.conf": (("Key", "u16"),),
        "cgroup.conf": (("CgroupPlugin", "str"), ("CgroupAutomount", "bool!defunct"), ("EnableControllers", "bool"),
                        ("SignalChildrenProcesses", "bool")),
    }
