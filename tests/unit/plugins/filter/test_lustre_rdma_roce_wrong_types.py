# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 13: no raw Python exception escapes a Lustre, RDMA or RoCE filter.

Each filter is called with a valid input, then with every argument, and every value nested in the input, replaced
by a value of the wrong type (None, a number, a string with a newline, a list, a dict, NaN, a bool, ...) or with a
key removed. The result must be either a return value or an AnsibleFilterError whose message names the filter;
KeyError, TypeError, AttributeError, ValueError or OverflowError escaping is a failure.
"""
from __future__ import annotations

import copy
import math

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter.lustre_client_layouts import lustre_client_layouts
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_client_lnet import lustre_client_lnet
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_client_mounts import lustre_client_mounts
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_client_tuning import lustre_client_tuning
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_pfl_layout import lustre_pfl_layout
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_stripe_count import lustre_stripe_count
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_stripe_plan import lustre_stripe_plan
from ansible_collections.gpufleet.cluster.plugins.filter.pfc_headroom import pfc_headroom
from ansible_collections.gpufleet.cluster.plugins.filter.rdma_stack_conflicts import rdma_stack_conflicts
from ansible_collections.gpufleet.cluster.plugins.filter.rdma_stack_ipoib import rdma_stack_ipoib
from ansible_collections.gpufleet.cluster.plugins.filter.rdma_stack_memlock import rdma_stack_memlock
from ansible_collections.gpufleet.cluster.plugins.filter.rdma_stack_plan import rdma_stack_plan
from ansible_collections.gpufleet.cluster.plugins.filter.rdma_stack_port_check import rdma_stack_port_check
from ansible_collections.gpufleet.cluster.plugins.filter.roce_qos_check import roce_qos_check
from ansible_collections.gpufleet.cluster.plugins.filter.roce_switch_config import roce_switch_config

WRONG = [None, 0, -1, 2 ** 70, 1.5, math.nan, math.inf, True, "", "x\n", "ib0\n", [], [None], {}, {"x": None},
         ("a",), object()]

ROCE_CLASS = {"priority": 3, "dscp": [26], "ports": [{"name": "Ethernet0", "speed_gbps": 400, "cable_m": 5}],
              "ecn": {"min_threshold_bytes": 150000}, "pfc_watchdog": {"detection_ms": 200}}
HEADROOM = {"Ethernet0": {"xoff": 139785, "xon": 16885, "size": 156670}}

#: filter, positional input, keyword arguments of one valid call
CALLS = {
    "lustre_client_mounts": (lustre_client_mounts,
                             [{"fsname": "training", "mgs_nids": ["10.0.0.1@o2ib", "10.0.0.2@o2ib"],
                               "path": "/mnt/lustre", "options": ["flock", "noatime"], "retry": 5, "timeout_s": 300}],
                             {"nets": ["o2ib0"], "flock": "flock"}),
    "lustre_client_lnet": (lustre_client_lnet, [{"net": "o2ib0", "interfaces": ["ib0", "ib1"]}],
                           {"o2ib_tunables": {"peer_credits": 32, "peer_credits_hiw": 16, "concurrent_sends": 64},
                            "lnet_options": {"lnet_transaction_timeout": 50},
                            "observed": {"ib0": {"exists": True, "type": 32, "rdma": True}}}),
    "lustre_client_tuning": (lustre_client_tuning,
                             {"max_pages_per_rpc": 1024, "max_rpcs_in_flight": 64, "max_read_ahead_mb": 1024,
                              "max_read_ahead_per_file_mb": 256},
                             {"page_size": 4096, "memtotal_mb": 2063937, "extra": {"osc.*.checksums": 0}}),
    "lustre_client_layouts": (lustre_client_layouts,
                              [{"name": "datasets", "apply": "stripe_plan", "pattern": "shared_file", "clients": 64,
                                "client_bw_gbs": 1.5, "mode": "0755", "owner": "root", "group": "root",
                                "description": "data"},
                               {"name": "ckpt", "apply": "pfl", "pool": "flash",
                                "sizes": {"p50_bytes": 1, "p90_bytes": 2, "max_bytes": 3}},
                               {"name": "scratch", "apply": "plain", "stripe_count": 2}],
                              {"mountpoint": "/mnt/lustre", "ost_count": 8, "ost_bw_gbs": 10.0,
                               "mount_paths": ["/mnt/lustre"]}),
    "lustre_pfl_layout": (lustre_pfl_layout, {"p50_bytes": 10485760, "p90_bytes": 524288000, "max_bytes": 2 ** 36},
                          {"ost_count": 8, "stripe_size": 1048576, "last_stripe_size": 4194304,
                           "first_extent_min": 67108864, "path": "/lustre/ckpt"}),
    "lustre_stripe_count": (lustre_stripe_count, 53687091200,
                            {"ost_avail_kib": [10737418240] * 8, "cap": 100, "min_free_kib": 262144,
                             "max_free_kib": 10737418240, "round_up": False}),
    "lustre_stripe_plan": (lustre_stripe_plan, 8,
                           {"ost_bw_gbs": 10.0, "clients": 64, "client_bw_gbs": 1.5, "pattern": "file_per_process",
                            "files": 4, "stripe_size": 1048576}),
    "pfc_headroom": (pfc_headroom, [{"name": "Ethernet0", "speed_gbps": 400, "cable_m": 5, "mtu": 9216}],
                     {"cell_bytes": 144, "lossless_mtu": 4200, "ns_per_m": 5.13, "phy_delay_ns": 100,
                      "wire_overhead_bytes": 20, "small_packet_percent": 100}),
    "rdma_stack_conflicts": (rdma_stack_conflicts, {"rdma-core": "44.0-2", "doca-ofed": "3.2.1"}, {"stack": "doca"}),
    "rdma_stack_ipoib": (rdma_stack_ipoib, [{"name": "ib0", "address": "10.10.0.11/16", "mtu": 2044,
                                             "mode": "datagram", "pkey": "0x8001"}], {"prefix": "60-gpufleet-rdma"}),
    "rdma_stack_memlock": (rdma_stack_memlock, [{"path": "/etc/security/limits.conf", "content": "* - memlock 8192\n"}],
                           {"systemd": {"DefaultLimitMEMLOCK": "8388608"}, "minimum": "unlimited"}),
    "rdma_stack_plan": (rdma_stack_plan, {"stack": "doca", "os_label": "ubuntu24.04", "architecture": "x86_64",
                                          "doca_version": "3.2.1", "doca_profile": "doca-ofed",
                                          "doca_repository_base": "https://mirror.example.org/doca",
                                          "repository_key": "https://mirror.example.org/doca/GPG-KEY-Mellanox.pub",
                                          "extra_packages": ["perftest"], "opensm": False}, {}),
    "rdma_stack_port_check": (rdma_stack_port_check,
                              [{"device": "mlx5_0", "port": 1, "state": "ACTIVE", "rate_gbps": 400,
                                "link_layer": "InfiniBand"}],
                              {"expected": [{"device": "mlx5_0", "port": 1, "state": "ACTIVE", "rate_gbps": 400,
                                             "link_layer": "InfiniBand"}], "expect_devices": True}),
    "roce_qos_check": (roce_qos_check, ROCE_CLASS,
                       {"host": {"priority": 3, "dscp": [26]}, "headroom": HEADROOM, "platform": "sonic"}),
    "roce_switch_config": (roce_switch_config, ROCE_CLASS,
                           {"platform": "sonic", "host": {"priority": 3, "dscp": [26]}, "headroom": HEADROOM}),
}


def _paths(value, prefix=()):
    """Every nested position (dict key or list index) of value, outermost first."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield prefix + (key,)
            yield from _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield prefix + (index,)
            yield from _paths(item, prefix + (index,))


def _replaced(value, path, new):
    """A deep copy of value with the item at path replaced by new (or removed when new is _REMOVE)."""
    value = copy.deepcopy(value)
    target = value
    for step in path[:-1]:
        target = target[step]
    if new is _REMOVE:
        del target[path[-1]]
    else:
        target[path[-1]] = new
    return value


_REMOVE = object()


def _variants(name):
    function, data, kwargs = CALLS[name]
    for new in WRONG:
        yield "input=%r" % (new,), new, kwargs
        for key in kwargs:
            yield "%s=%r" % (key, new), data, dict(kwargs, **{key: new})
    for path in _paths(data):
        for new in WRONG + [_REMOVE]:
            yield "input%s=%r" % (list(path), new), _replaced(data, path, new), kwargs
    for key, value in kwargs.items():
        for path in _paths(value):
            for new in WRONG + [_REMOVE]:
                yield "%s%s=%r" % (key, list(path), new), data, dict(kwargs, **{key: _replaced(value, path, new)})


@pytest.mark.parametrize("name", sorted(CALLS))
def test_valid_call_works(name):
    function, data, kwargs = CALLS[name]
    assert function(copy.deepcopy(data), **copy.deepcopy(kwargs)) is not None


@pytest.mark.parametrize("name", sorted(CALLS))
def test_wrong_types_give_only_filter_errors(name):
    function = CALLS[name][0]
    fqcn = "gpufleet.cluster.%s" % name
    escaped = []
    for label, data, kwargs in _variants(name):
        try:
            function(data, **kwargs)
        except AnsibleFilterError as exc:
            assert fqcn in str(exc), (label, str(exc))
        except Exception as exc:  # noqa: BLE001 - any other exception is the failure this test looks for
            escaped.append("%s: %s: %s" % (label, type(exc).__name__, exc))
    assert not escaped, "\n".join(escaped[:40])
