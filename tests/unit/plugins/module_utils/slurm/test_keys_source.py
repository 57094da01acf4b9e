# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""slurm_keys' catalogues, key by key and type by type, against each release's own parser tables.

tests/fixtures/slurm-keys/<tag>.json were written by docs/tools/slurm_keys_extract.py from SchedMD/slurm at that tag
(the commit is in each file): every {"Name", S_P_TYPE[, handler]} row of the s_p_options_t arrays that parse
slurm.conf (and its NodeName= and PartitionName= lines), slurmdbd.conf, cgroup.conf, gres.conf and topology.conf.
Renaming a key, changing its type, or adding or dropping one in slurm_keys.py fails here.
"""
from __future__ import annotations

import json
import os
import sys

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm import keys as slurm_keys

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(os.path.dirname(__file__)))))))
_PINNED = os.path.join(_REPO, "tests", "fixtures", "slurm-keys")
RELEASES = {"22.05": "slurm-22-05-8-1", "23.11": "slurm-23-11-4-1", "24.11": "slurm-24-11-5-1"}
sys.path.insert(0, os.path.join(_REPO, "docs", "tools"))
import slurm_keys_extract  # noqa: E402  pylint: disable=wrong-import-position


def _pinned(tag):
    with open(os.path.join(_PINNED, tag + ".json"), encoding="utf-8") as handle:
        return json.load(handle)


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
