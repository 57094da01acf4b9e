# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""lustre_client_layouts: the reference design's directories, the same numbers as plan.yml, lfs_stripe's view."""
from __future__ import annotations

import copy
import os

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.build import lustre_plans
from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.client.checks import LustreClientError
from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.client.layouts import directory_layouts
from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.layout import (
    desired_layout,
    differences,
    layout_text,
    read_layout,
)
from reference import outputs

_LUSTRE = outputs("lustre")
GIB, MIB = 1024 ** 3, 1024 ** 2

# inventories/h100-64/group_vars/all/plan.yml, with its 64 GPUs.
PLAN = [
    {"name": "datasets", "pattern": "shared_file", "clients": 64, "client_bw_gbs": 1.5, "apply": "stripe_plan",
     "sizes": {"p50_bytes": GIB, "p90_bytes": 4 * GIB, "max_bytes": 100 * GIB}},
    {"name": "checkpoints", "pattern": "file_per_process", "clients": 64, "client_bw_gbs": 1.5, "apply": "pfl",
     "sizes": {"p50_bytes": 10 * MIB, "p90_bytes": 524288000, "max_bytes": 50 * GIB}},
    {"name": "scratch", "pattern": "file_per_process", "clients": 64, "client_bw_gbs": 1.0, "apply": "pfl",
     "sizes": {"p50_bytes": 4 * MIB, "p90_bytes": 256 * MIB, "max_bytes": 1024 * GIB}},
]


def _reference(name):
    with open(os.path.join(_LUSTRE, name)) as handle:
        return handle.read()


def test_reference_design_layouts():
    datasets, checkpoints, scratch = directory_layouts(PLAN, "/mnt/lustre", 8, 10.0)
    # 64 readers x 1.5 GB/s = 96 GB/s; ceil(96 / 10) = 10 stripes, only 8 OSTs: 8 x 1M.
    assert datasets["path"] == "/mnt/lustre/datasets" and datasets["layout"] == {"stripe_count": 8, "stripe_size": "1M"}
    assert datasets["command"] == "lfs setstripe -c 8 -S 1M /mnt/lustre/datasets"
    # p50 10 MiB -> E1 = max(64M, 16M) = 64M; p90 500 MiB -> E2 = max(1G, 512M) = 1G; counts 1, 4, 8 (OSTs).
    assert checkpoints["command"] == "lfs setstripe -E 64M -c 1 -S 1M -E 1G -c 4 -S 1M -E -1 -c 8 -S 4M /mnt/lustre/checkpoints"
    assert [(c["end"], c["stripe_count"], c["stripe_size"]) for c in checkpoints["layout"]["components"]] == [
        (64 * MIB, 1, MIB), (GIB, 4, MIB), (-1, 8, 4 * MIB)]
    # p50 4 MiB -> 64M; p90 256 MiB -> 1G: the same ladder.
    assert scratch["lfs_setstripe_args"] == checkpoints["lfs_setstripe_args"]
    assert {d["mode"] for d in (datasets, checkpoints, scratch)} == {"0755"}


def test_same_numbers_as_the_plan_playbook():
    # playbooks/plan.yml (cluster_plan.lustre_plans) and the role compute each directory's command alike.
    plans = lustre_plans({"mountpoint": "/mnt/lustre", "osts": 8, "ost_bw_gbs": 10.0, "directories": copy.deepcopy(PLAN)})
    ours = directory_layouts(copy.deepcopy(PLAN), "/mnt/lustre", 8, 10.0)
    assert [p["command"] for p in plans] == [o["command"] for o in ours]


def test_the_module_sees_the_recorded_layouts_differ():
    # The lab's recordings (molecule/fabric/files/lustre) read by lustre_layout, against our desired layouts.
    # getstripe-yaml-plain is a FILE's layout (it has lmm_objects): it stands for scratch's plain default because
    # it is the only recorded --yaml output (tests/fixtures/reference has no YAML of a directory default); the header
    # keys are the ones a directory's plain default prints, and read_layout ignores the objects list.
    recorded = ["getstripe-d-dir-plain.lustre-manual.txt", "getstripe-dir-default-pfl.lustre-manual.txt",
                "getstripe-yaml-plain.lustre-manual.txt"]
    befores, afters = [], []
    for layout, name in zip(directory_layouts(PLAN, "/mnt/lustre", 8, 10.0), recorded):
        current = read_layout(_reference(name))
        wanted = layout["layout"]
        desired = desired_layout(wanted.get("stripe_count"), wanted.get("stripe_size"), wanted.get("pool"),
                                 wanted.get("components"))
        assert differences(current, desired)
        befores.append(layout_text(current))
        afters.append(layout_text(desired))
    assert befores == ["0-EOF: 1 x 1M\n", "0-256M: 1 x 1M\n256M-16G: 4 x 1M\n16G-EOF: all x 4M\n", "0-EOF: 1 x 128K offset 7\n"]
    pfl = "0-64M: 1 x 1M\n64M-1G: 4 x 1M\n1G-EOF: 8 x 4M\n"
    assert afters == ["0-EOF: 8 x 1M\n", pfl, pfl]


def test_plain_and_pool_and_path():
    [plain] = directory_layouts([{"path": "/mnt/lustre/big", "apply": "plain", "stripe_count": -1, "stripe_size": 4 * MIB,
                                  "pool": "flash", "mode": "1777"}], "/mnt/lustre", 8)
    assert plain["layout"] == {"stripe_count": -1, "stripe_size": "4M", "pool": "flash"}
    assert plain["command"] == "lfs setstripe -c -1 -S 4M -p flash /mnt/lustre/big"
    assert plain["mode"] == "1777"


@pytest.mark.parametrize("entry, kwargs, message", [
    ({"name": "x", "path": "/mnt/lustre/x"}, {}, r"exactly one of name"),
    ({"name": "../etc"}, {}, r"name: '../etc' is not allowed; expected a relative path"),
    ({"path": "/scratch/x", "apply": "plain", "stripe_count": 1}, {}, r"is not below a Lustre mount of this client \(/mnt/lustre\)"),
    ({"name": "x", "apply": "raid"}, {}, r"apply 'raid' must be one of stripe_plan, pfl, plain"),
    ({"name": "x", "apply": "stripe_plan", "pattern": "shared_file", "clients": 4, "client_bw_gbs": 1.0}, {},
     r"needs the OSTs' bandwidth"),
    ({"name": "x", "apply": "pfl"}, {}, r"applies pfl and needs sizes"),
    ({"name": "x", "apply": "plain", "stripe_count": 9}, {}, r"stripe_count 9 must be -1 \(every OST\) or 1-8"),
    ({"name": "x", "apply": "plain", "stripe_count": 1, "stripe_size": 100000}, {}, r"not a multiple of 64 KiB.*Use 131072"),
    ({"name": "x", "apply": "plain", "stripe_count": 1, "pool": "a pool"}, {}, r"is not allowed; expected an OST pool name"),
    ({"name": "x", "apply": "plain", "stripe_count": 1, "mode": "rwx"}, {}, r"is not allowed; expected an octal mode"),
    ({"name": "x", "apply": "pfl", "sizes": {"p50_bytes": -1, "p90_bytes": 1, "max_bytes": 2}}, {}, r"lustre_client_directories\[0\] \(/mnt/lustre/x\): "),
    ({"name": "x", "owner": "root", "apply": "plain", "stripe_count": 1, "colour": "red"}, {},
     r"^lustre_client_directories\[0\] has unknown key\(s\) 'colour'; allowed: apply, client_bw_gbs, clients, .*, "
     r"stripe_size; see docs/lustre-client\.md for a directory's keys$"),
])
def test_bad_directories_refused(entry, kwargs, message):
    with pytest.raises(LustreClientError, match=message):
        directory_layouts([entry], "/mnt/lustre", 8, **kwargs)


def test_twice_refused():
    with pytest.raises(LustreClientError, match="is listed twice"):
        directory_layouts([{"name": "x", "apply": "plain", "stripe_count": 1},
                           {"path": "/mnt/lustre/x", "apply": "plain", "stripe_count": 2}], "/mnt/lustre", 8)
