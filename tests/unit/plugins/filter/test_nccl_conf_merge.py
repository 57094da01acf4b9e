# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The nccl_conf_merge filter: registration, result, input checks and the refusal of conflicts."""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import nccl_conf_merge as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.nccl_conf_merge import nccl_conf_merge

OWN = [
    {"key": "NCCL_TOPO_FILE", "value": "/etc/nccl/topo.xml", "source": "nccl_topology_file"},
    {"key": "NCCL_IB_HCA", "value": "", "source": "nccl_ib_hca"},
    {"key": "NCCL_SOCKET_IFNAME", "value": "=eth0", "source": "nccl_socket_ifname"},
    {"key": "NCCL_IB_TIMEOUT", "value": 22, "source": "nccl_env_extra"},
]
ROCE_TEXT = "# roce_host\nNCCL_IB_GID_INDEX=3\nNCCL_IB_TC=106\nNCCL_IB_HCA=mlx5_0\n"


def test_registered_under_its_name():
    assert plugin.FilterModule().filters() == {"nccl_conf_merge": nccl_conf_merge}


def test_result():
    assert nccl_conf_merge(OWN, ROCE_TEXT) == [
        {"key": "NCCL_TOPO_FILE", "value": "/etc/nccl/topo.xml", "source": "nccl_topology_file"},
        {"key": "NCCL_SOCKET_IFNAME", "value": "=eth0", "source": "nccl_socket_ifname"},
        {"key": "NCCL_IB_TIMEOUT", "value": "22", "source": "nccl_env_extra"},
        {"key": "NCCL_IB_GID_INDEX", "value": "3", "source": "/etc/gpufleet/nccl-roce.conf"},
        {"key": "NCCL_IB_TC", "value": "106", "source": "/etc/gpufleet/nccl-roce.conf"},
        {"key": "NCCL_IB_HCA", "value": "mlx5_0", "source": "/etc/gpufleet/nccl-roce.conf"},
    ]
    # No RoCE file: only the role's own non-empty settings (3 of 4).
    assert [s["key"] for s in nccl_conf_merge(OWN)] == ["NCCL_TOPO_FILE", "NCCL_SOCKET_IFNAME", "NCCL_IB_TIMEOUT"]


def test_conflict_is_refused_with_the_filter_fqcn():
    own = [dict(entry) for entry in OWN]
    own[1]["value"] = "=mlx5_0:1,mlx5_1:1"
    with pytest.raises(AnsibleFilterError) as info:
        nccl_conf_merge(own, ROCE_TEXT, "/run/roce.conf")
    assert str(info.value).startswith(
        "gpufleet.cluster.nccl_conf_merge: the NCCL settings disagree: NCCL_IB_HCA is '=mlx5_0:1,mlx5_1:1' in "
        "nccl_ib_hca but 'mlx5_0' in /run/roce.conf. /etc/nccl.conf would hold only one of each")


@pytest.mark.parametrize("args, message", [
    (({"NCCL_IB_TC": 106},), "input must be a list of {key, value, source}"),
    ((OWN, b"NCCL_IB_TC=106"), "roce_text must be the file's text or null, got b'NCCL_IB_TC=106' of type bytes"),
    ((OWN, None, ""), "roce_source must be the path of the RoCE settings file, got '' of type str"),
    (([{"key": "nccl_debug", "value": "WARN", "source": "nccl_env_extra"}],), "is not an NCCL variable"),
    ((OWN, "NCCL_IB_TC\n"), "/etc/gpufleet/nccl-roce.conf line 1: 'NCCL_IB_TC' is not KEY=VALUE"),
])
def test_bad_input(args, message):
    with pytest.raises(AnsibleFilterError) as info:
        nccl_conf_merge(*args)
    assert str(info.value).startswith("gpufleet.cluster.nccl_conf_merge: ")
    assert message in str(info.value)
