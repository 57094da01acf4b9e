# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""slurm/keys: the catalogues, key by key and type by type, against each release's own parser tables; and what
the module computes from them (the 23.11 tables derived at import, key_status).

tests/fixtures/slurm-keys/<tag>.json were written by docs/tools/slurm_keys_extract.py from SchedMD/slurm at that tag
(the commit is in each file): every {"Name", S_P_TYPE[, handler]} row of the s_p_options_t arrays that parse
slurm.conf (and its NodeName= and PartitionName= lines), slurmdbd.conf, cgroup.conf, gres.conf and topology.conf.
Renaming a key, changing its type, or adding or dropping one in slurm/keys.py fails here.

The module builds the 23.11 tables at import (`_derive` over the 22.05 tables), so a changed `_derive` is only seen
when it is called again: the tests at the end (written to kill the mutants of `make mutation MODULES=slurm/keys`,
docs/testing.md) call it against the rows pinned from slurm-23-11-4-1, and check `key_status` entry by entry: what
holds for every release, and what one release adds or overrides.
"""
from __future__ import annotations

import json
import os
import sys

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm import keys as slurm_keys

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))))
_PINNED = os.path.join(_REPO, "tests", "fixtures", "slurm-keys")
RELEASES = {"22.05": "slurm-22-05-8-1", "23.11": "slurm-23-11-4-1", "24.11": "slurm-24-11-5-1"}
sys.path.insert(0, os.path.join(_REPO, "docs", "tools"))
import slurm_keys_extract  # noqa: E402  pylint: disable=wrong-import-position


def _pinned(tag):
    with open(os.path.join(_PINNED, tag + ".json"), encoding="utf-8") as handle:
        return json.load(handle)


def _pinned_rows(tag):
    """The pinned tables of ``tag``, each as its sorted rows."""
    return {conf: sorted(map(tuple, rows)) for conf, rows in _pinned(tag)["tables"].items()}


def test_every_release_in_the_catalogue_is_pinned():
    assert set(slurm_keys.TABLES) == set(RELEASES)
    assert sorted(os.listdir(_PINNED)) == sorted(tag + ".json" for tag in RELEASES.values())


@pytest.mark.parametrize("release", sorted(RELEASES))
def test_catalogue_equals_the_release_source(release):
    pinned = _pinned(RELEASES[release])
    assert pinned["source"] == "SchedMD/slurm" and pinned["tag"] == RELEASES[release]
    assert len(pinned["commit"]) == 40
    assert set(slurm_keys.TABLES[release]) == set(pinned["tables"])
    for conf, rows in pinned["tables"].items():
        ours = slurm_keys.TABLES[release][conf]
        # Row for row (topology.conf lists Nodes twice: in the tree's and in the block's line options).
        assert sorted(map(tuple, ours)) == sorted(map(tuple, rows)), f"{release} {conf} differs from the source"
        source = dict(map(tuple, rows))
        mine = dict(ours)
        assert sorted(mine) == sorted(source), (
            f"{release} {conf}: only in slurm_keys: {sorted(set(mine) - set(source))}, "
            f"only in {RELEASES[release]}: {sorted(set(source) - set(mine))}")
        retyped = {name: (mine[name], source[name]) for name in mine if mine[name] != source[name]}
        assert not retyped, f"{release} {conf}: types differ from the source (ours, source): {retyped}"


def test_pinned_files_hold_the_rows_the_catalogue_relies_on():
    """Spot checks of the pinned data itself, by hand from read_config.c of each tag."""
    conf = {tag: dict(map(tuple, _pinned(tag)["tables"]["slurm.conf"])) for tag in RELEASES.values()}
    assert conf["slurm-22-05-8-1"]["AccountingStoragePort"] == "u16"
    assert conf["slurm-22-05-8-1"]["AccountingStorageBackupHost"] == "str"
    assert conf["slurm-22-05-8-1"]["SchedulerAuth"] == "str!defunct"
    assert conf["slurm-23-11-4-1"]["MaxBatchRequeue"] == "u32"
    assert "SlurmctldPlugstack" not in conf["slurm-23-11-4-1"]
    assert conf["slurm-24-11-5-1"]["Prolog"] == "lines"
    topo = dict(map(tuple, _pinned("slurm-23-11-4-1")["tables"]["topology.conf"]))
    assert topo == {"SwitchName": "lines", "LinkSpeed": "u32", "Nodes": "str", "Switches": "str",
                    "BlockName": "lines", "BlockLevels": "str"}


def test_the_extractor_reads_a_parser_table():
    source = '''
    static s_p_options_t _gres_options[] = {
        {"AutoDetect", S_P_STRING},
        /* {"Commented", S_P_STRING}, */
        {"Count", S_P_STRING},
        {"CPUs", S_P_STRING}, // old name
        {"Name", S_P_ARRAY, _parse_gres_config, NULL},
        {"Old", S_P_UINT16, _defunct_option},
        {NULL}
    };'''
    assert slurm_keys_extract.array_rows(source, "_gres_options") == [
        ["AutoDetect", "str"], ["Count", "str"], ["CPUs", "str"], ["Name", "lines"], ["Old", "u16!defunct"]]
    assert slurm_keys_extract.array_rows(source, "options") is None


# ---------------------------------------------------------------- _derive and key_status
def test_derive_rebuilds_the_23_11_source_tables_from_22_05():
    before = {conf: sorted(rows) for conf, rows in slurm_keys._TABLES_22_05.items()}
    derived = slurm_keys._derive(slurm_keys._TABLES_22_05)
    assert {conf: sorted(rows) for conf, rows in derived.items()} == _pinned_rows("slurm-23-11-4-1")
    # the 22.05 tables it started from are left as they were (and still equal their own source)
    assert {conf: sorted(rows) for conf, rows in slurm_keys._TABLES_22_05.items()} == before == _pinned_rows(
        "slurm-22-05-8-1")


def test_key_status_merges_release_entries_over_the_common_ones():
    status = slurm_keys.key_status("23.11", "slurm.conf")
    assert status["ControlMachine"][:2] == ("renamed", "SlurmctldHost")  # common to every release
    assert status["RoutePlugin"][:2] == ("removed", "TopologyParam")  # 23.11 only
    assert status["LaunchType"] == ("removed", None, "in the table but never read: ignored")
    assert len(status) == 11 + 8
    assert "RoutePlugin" not in slurm_keys.key_status("22.05", "slurm.conf")
    assert sorted(slurm_keys.key_status("24.11", "cgroup.conf")) == [
        "AllowedDevicesFile", "CgroupAutomount", "CgroupReleaseAgentDir", "MemoryLimitEnforcement",
        "MemoryLimitThreshold"]


@pytest.mark.parametrize("version,conf,expected", [
    ("22.05", "topology.conf", {}),
    ("99.99", "gres.conf:line",
     {"CPUs": ("renamed", "Cores", "gres.c: 'CPUs to bind to Gres resource (deprecated, use Cores)'")}),
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
