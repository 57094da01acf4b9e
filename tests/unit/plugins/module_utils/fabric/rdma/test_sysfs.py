# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""fabric/rdma/sysfs.py: a sysfs tree of the recorded H100 node (tests/unit/helpers/fake_rdma_sysfs.py) reads back as
the ibstat recorded on it. Trees with soft RoCE, a dual-port function, RoCE LAG and unreadable values are read through
the rdma_info module in tests/unit/plugins/modules/test_rdma_info.py."""
from __future__ import annotations

import os

from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.rdma.parse import merge, parse_ibstat
from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.rdma.sysfs import read_sysfs
import fake_rdma_sysfs as sysfs_tree
from reference import outputs

_IB = outputs("infiniband")
COMMON = ("node_guid", "sys_image_guid", "ca_type", "firmware", "hardware_version")
COMMON_PORT = ("state", "phys_state", "rate_gbps", "link_layer", "base_lid", "sm_lid", "lmc", "port_guid",
               "capability_mask")


def _reference(name):
    with open(os.path.join(_IB, name)) as handle:
        return handle.read()


def test_sysfs_tree_reads_back_as_the_recorded_ibstat(tmp_path):
    """The whole recorded node (full=True, 12 devices) read from sysfs equals what ibstat printed for it."""
    from_sysfs = merge([read_sysfs(sysfs_tree.h100_ndr(tmp_path, full=True))])
    from_ibstat = merge([parse_ibstat(_reference("ibstat.h100-cx7-ib-ndr-some-down.gpud.txt"))])
    assert [d["name"] for d in from_sysfs] == [d["name"] for d in from_ibstat] == \
        ["mlx5_%d" % i for i in range(12)]
    for mine, theirs in zip(from_sysfs, from_ibstat):
        assert {k: mine[k] for k in COMMON} == {k: theirs[k] for k in COMMON}, mine["name"]
        assert [{k: p[k] for k in COMMON_PORT} for p in mine["ports"]] == \
            [{k: p[k] for k in COMMON_PORT} for p in theirs["ports"]], mine["name"]
