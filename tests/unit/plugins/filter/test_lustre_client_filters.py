# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The lustre_client_lnet, lustre_client_mounts, lustre_client_tuning and lustre_client_layouts filters."""
from __future__ import annotations

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import lustre_client_layouts as layouts_plugin
from ansible_collections.gpufleet.cluster.plugins.filter import lustre_client_lnet as lnet_plugin
from ansible_collections.gpufleet.cluster.plugins.filter import lustre_client_mounts as mounts_plugin
from ansible_collections.gpufleet.cluster.plugins.filter import lustre_client_tuning as tuning_plugin
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_client_layouts import lustre_client_layouts
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_client_lnet import lustre_client_lnet
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_client_mounts import lustre_client_mounts
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_client_tuning import lustre_client_tuning

TUNING = {"max_pages_per_rpc": 1024, "max_rpcs_in_flight": 64, "max_read_ahead_mb": 1024, "max_read_ahead_per_file_mb": 256}


@pytest.mark.parametrize("plugin, name, func", [
    (lnet_plugin, "lustre_client_lnet", lustre_client_lnet),
    (mounts_plugin, "lustre_client_mounts", lustre_client_mounts),
    (tuning_plugin, "lustre_client_tuning", lustre_client_tuning),
    (layouts_plugin, "lustre_client_layouts", lustre_client_layouts),
])
def test_registered_and_documented(plugin, name, func):
    assert plugin.FilterModule().filters() == {name: func}
    doc = yaml.safe_load(plugin.DOCUMENTATION)
    assert doc["name"] == name and doc["version_added"] == "0.1.0" and "_input" in doc["options"]
    yaml.safe_load(plugin.EXAMPLES)
    assert "_value" in yaml.safe_load(plugin.RETURN)


def test_lnet_filter_doc_example():
    result = lustre_client_lnet([{"net": "o2ib0", "interfaces": ["ib0"]}],
                                o2ib_tunables={"peer_credits": 32, "peer_credits_hiw": 16, "concurrent_sends": 64})
    assert result["lnet_conf"] == {"net": [{"net type": "o2ib0", "local NI(s)": [
        {"interfaces": {0: "ib0"}, "tunables": {"peer_credits": 32}, "lnd tunables": {"concurrent_sends": 64}}]}]}
    assert result["modprobe_lines"] == ["options ko2iblnd concurrent_sends=64 peer_credits=32 peer_credits_hiw=16"]
    assert result["nets"] == ["o2ib0"] and result["problems"] == []


def test_lnet_filter_observed_and_errors():
    result = lustre_client_lnet([{"net": "o2ib0", "interfaces": ["eth0"]}], observed={"eth0": {"exists": True, "type": 1, "rdma": False}})
    assert len(result["problems"]) == 1 and "o2ib needs an IPoIB interface" in result["problems"][0]
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.lustre_client_lnet: input must be a list of \{net, interfaces\}, "
                       r"got 'o2ib0\(ib0\)' of type str$"):
        lustre_client_lnet("o2ib0(ib0)")
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.lustre_client_lnet: lustre_client_o2ib_tunables\.peer_credits is 300"):
        lustre_client_lnet([{"net": "o2ib0", "interfaces": ["ib0"]}], o2ib_tunables={"peer_credits": 300})
    with pytest.raises(AnsibleFilterError, match=r"observed must be a dict"):
        lustre_client_lnet([{"net": "o2ib0", "interfaces": ["ib0"]}], observed=["ib0"])


def test_mounts_filter():
    [unit] = lustre_client_mounts([{"fsname": "training", "mgs_nids": ["10.0.0.1@o2ib", "10.0.0.2@o2ib"], "path": "/mnt/lustre"}],
                                  nets=["o2ib0"])
    assert (unit["unit"], unit["what"], unit["options"]) == ("mnt-lustre.mount", "10.0.0.1@o2ib:10.0.0.2@o2ib:/training",
                                                             "flock,_netdev,retry=5")
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.lustre_client_mounts: lustre_client_mounts\[0\]\.fsname"):
        lustre_client_mounts([{"fsname": "toolongname", "mgs_nids": ["10.0.0.1@o2ib"], "path": "/mnt/l"}])
    with pytest.raises(AnsibleFilterError, match=r"nets must be a list"):
        lustre_client_mounts([], nets="o2ib0")
    with pytest.raises(AnsibleFilterError, match=r"options has localflock but lustre_client_mount_flock is flock"):
        lustre_client_mounts([{"fsname": "training", "mgs_nids": ["10.0.0.1@o2ib"], "path": "/mnt/l",
                               "options": ["localflock"]}], nets=["o2ib0"])
    [unit] = lustre_client_mounts([{"fsname": "training", "mgs_nids": ["10.0.0.1@o2ib"], "path": "/mnt/l",
                                    "options": ["localflock"]}], nets=["o2ib0"], flock="localflock")
    assert unit["options"] == "localflock,_netdev,retry=5"
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.lustre_client_mounts: input must be a list of mounts, "
                       r"got \{'fsname': 'x'\} of type dict$"):
        lustre_client_mounts({"fsname": "x"})


def test_tuning_filter():
    assert lustre_client_tuning(TUNING)["params"][0] == "osc.*.max_pages_per_rpc=1024"
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.lustre_client_tuning: lustre_client_tuning\.max_pages_per_rpc 1000"):
        lustre_client_tuning(dict(TUNING, max_pages_per_rpc=1000))
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.lustre_client_tuning: input must be a dict of the four settings, "
                       r"got \[1024\] of type list$"):
        lustre_client_tuning([1024])


def test_layouts_filter():
    [layout] = lustre_client_layouts([{"name": "ckpt", "apply": "pfl",
                                       "sizes": {"p50_bytes": 10485760, "p90_bytes": 524288000, "max_bytes": 53687091200}}],
                                     mountpoint="/lustre", ost_count=8)
    assert layout["command"] == "lfs setstripe -E 64M -c 1 -S 1M -E 1G -c 4 -S 1M -E -1 -c 8 -S 4M /lustre/ckpt"
    with pytest.raises(AnsibleFilterError, match=r"mountpoint must be an absolute path"):
        lustre_client_layouts([], mountpoint="lustre", ost_count=8)
    with pytest.raises(AnsibleFilterError, match=r"ost_count is required"):
        lustre_client_layouts([], mountpoint="/lustre")
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.lustre_client_layouts: lustre_client_directories\[0\]"):
        lustre_client_layouts([{"name": "x", "apply": "plain", "stripe_count": 0}], mountpoint="/lustre", ost_count=8)
