# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The lustre_client_layouts filter: lfs_stripe arguments per directory, errors under the filter's name, the
inventories' values, wrong types."""
from __future__ import annotations

import copy

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import lustre_client_layouts as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_client_layouts import lustre_client_layouts
from filter_docs import assert_documented
from group_vars import SOURCES, lustre_mounts, variables
from wrong_types import assert_only_refusals


def test_registered_and_documented():
    assert_documented(plugin, "lustre_client_layouts")


def test_layouts_filter():
    sizes = {"p50_bytes": 10485760, "p90_bytes": 524288000, "max_bytes": 53687091200}
    [layout] = lustre_client_layouts([{"name": "ckpt", "apply": "pfl", "sizes": sizes}], mountpoint="/lustre",
                                     ost_count=8)
    assert layout["command"] == "lfs setstripe -E 64M -c 1 -S 1M -E 1G -c 4 -S 1M -E -1 -c 8 -S 4M /lustre/ckpt"
    with pytest.raises(AnsibleFilterError, match=r"mountpoint must be an absolute path"):
        lustre_client_layouts([], mountpoint="lustre", ost_count=8)
    with pytest.raises(AnsibleFilterError, match=r"ost_count is required"):
        lustre_client_layouts([], mountpoint="/lustre")
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.lustre_client_layouts: "
                                                 r"lustre_client_directories\[0\]"):
        lustre_client_layouts([{"name": "x", "apply": "plain", "stripe_count": 0}], mountpoint="/lustre", ost_count=8)


# ---------------------------------------------------------------- the reference, lab and molecule/fabric values
@pytest.mark.parametrize("source", sorted(SOURCES))
def test_inventory_values_render(source):
    v = variables(source)
    mounts = lustre_mounts(v)
    directories = v.get("lustre_client_directories")
    if isinstance(directories, list) and directories:
        mountpoint = v.get("lustre_client_layout_mountpoint") or mounts[0]["path"]
        layouts = lustre_client_layouts(directories, mountpoint=mountpoint, ost_count=v["lustre_client_ost_count"],
                                        ost_bw_gbs=v.get("lustre_client_ost_bw_gbs"),
                                        mount_paths=[m["path"] for m in mounts])
        assert [d["path"] for d in layouts] == ["%s/%s" % (mountpoint, d["name"]) for d in directories]


# ------------------------------------------------------------------ wrong types: refused by a check, nothing else
VALID = [[{"name": "datasets", "apply": "stripe_plan", "pattern": "shared_file", "clients": 64,
           "client_bw_gbs": 1.5, "mode": "0755", "owner": "root", "group": "root",
           "description": "data"},
          {"name": "ckpt", "apply": "pfl", "pool": "flash",
           "sizes": {"p50_bytes": 1, "p90_bytes": 2, "max_bytes": 3}},
          {"name": "scratch", "apply": "plain", "stripe_count": 2}]]
VALID_KWARGS = {"mountpoint": "/mnt/lustre", "ost_count": 8, "ost_bw_gbs": 10.0,
                "mount_paths": ["/mnt/lustre"]}


def test_valid_call_works():
    assert lustre_client_layouts(*copy.deepcopy(VALID), **copy.deepcopy(VALID_KWARGS)) is not None


def test_wrong_types_and_missing_keys_are_refused():
    assert_only_refusals('lustre_client_layouts', lustre_client_layouts, VALID, VALID_KWARGS)
