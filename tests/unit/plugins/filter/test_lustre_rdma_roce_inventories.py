# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Lustre, RDMA and RoCE values of the reference inventory (h100-64), the lab inventory and molecule/fabric
still pass the stricter input rules of issue 13 (each group_vars file through the filter the role calls)."""
from __future__ import annotations

import os

import jinja2.nativetypes
import pytest
import yaml

from ansible_collections.gpufleet.cluster.plugins.filter.lustre_client_layouts import lustre_client_layouts
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_client_lnet import lustre_client_lnet
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_client_mounts import lustre_client_mounts
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_client_tuning import lustre_client_tuning
from ansible_collections.gpufleet.cluster.plugins.filter.pfc_headroom import pfc_headroom
from ansible_collections.gpufleet.cluster.plugins.filter.rdma_stack_ipoib import rdma_stack_ipoib
from ansible_collections.gpufleet.cluster.plugins.filter.rdma_stack_plan import rdma_stack_plan
from ansible_collections.gpufleet.cluster.plugins.filter.roce_switch_config import roce_switch_config
from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce.nic_qos import check_params

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
SOURCES = {
    "h100-64": os.path.join(_ROOT, "inventories", "h100-64", "group_vars", "all"),
    "lab": os.path.join(_ROOT, "inventories", "lab", "group_vars", "all"),
    "molecule/fabric": os.path.join(_ROOT, "molecule", "fabric", "group_vars", "all"),
}


def _variables(source):
    """group_vars/all of one source, with the role defaults the filters need and the simple templates rendered."""
    values = {}
    for directory in (os.path.join(_ROOT, "roles", role, "defaults") for role in ("lustre_client", "rdma")):
        with open(os.path.join(directory, "main.yml")) as handle:
            values.update(yaml.safe_load(handle) or {})
    for name in sorted(os.listdir(SOURCES[source])):
        if name.endswith(".yml"):
            with open(os.path.join(SOURCES[source], name)) as handle:
                values.update(yaml.safe_load(handle) or {})
    values["gpufleet_plan_gpus"] = 64   # plan.yml reads it from hostvars: 8 nodes x 8 GPUs
    env = jinja2.nativetypes.NativeEnvironment()

    def render(value, depth=0):
        if isinstance(value, dict):
            return {k: render(v, depth) for k, v in value.items()}
        if isinstance(value, list):
            return [render(v, depth) for v in value]
        if isinstance(value, str) and "{{" in value and depth < 5:
            try:
                return render(env.from_string(value).render(values), depth + 1)
            except Exception:  # noqa: BLE001 - a template that needs Ansible's own filters or facts stays text
                return value
        return value
    return {k: render(v) for k, v in values.items()}


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_lustre_values_render(source):
    v = _variables(source)
    lnet = lustre_client_lnet(v["lustre_client_lnet_networks"], o2ib_tunables=v.get("lustre_client_o2ib_tunables"),
                              lnet_options=v.get("lustre_client_lnet_options"))
    mounts = lustre_client_mounts(v["lustre_client_mounts"], nets=lnet["nets"],
                                  flock=v.get("lustre_client_mount_flock", "flock"))
    assert mounts and all(m["unit"].endswith(".mount") for m in mounts)
    assert lustre_client_tuning(v["lustre_client_tuning"])["params"]
    directories = v.get("lustre_client_directories")
    if isinstance(directories, list) and directories:
        mountpoint = v.get("lustre_client_layout_mountpoint") or mounts[0]["path"]
        layouts = lustre_client_layouts(directories, mountpoint=mountpoint, ost_count=v["lustre_client_ost_count"],
                                        ost_bw_gbs=v.get("lustre_client_ost_bw_gbs"),
                                        mount_paths=[m["path"] for m in mounts])
        assert [d["path"] for d in layouts] == ["%s/%s" % (mountpoint, d["name"]) for d in directories]


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_rdma_values_render(source):
    v = _variables(source)
    assert rdma_stack_ipoib(v.get("rdma_ipoib_interfaces") or []) is not None
    if v.get("rdma_stack") != "inbox":
        plan = rdma_stack_plan({"stack": v["rdma_stack"], "os_label": "ubuntu24.04", "architecture": "x86_64",
                                "doca_version": v.get("rdma_doca_version"), "doca_profile": v.get("rdma_doca_profile"),
                                "doca_repository_base": v.get("rdma_doca_repository_base"),
                                "repository_key": v.get("rdma_repository_key")})
        assert plan["repository"]["uri"].startswith("https://")


def test_molecule_roce_values_render():
    v = _variables("molecule/fabric")
    ports = v["gpufleet_roce_class"]["ports"]
    headroom = pfc_headroom(ports, cell_bytes=144, mtu=9216)
    config = roce_switch_config(v["gpufleet_roce_class"], "sonic", headroom=headroom)
    assert list(config["BUFFER_PG"]) == ["Ethernet0|3"]
    check_params({"devices": v["roce_host_devices"], "mlnx_qos_command": v["roce_host_mlnx_qos_command"],
                  "dcb_command": "dcb", "sysfs_root": v["roce_host_sysfs_root"],
                  "configfs_root": v["roce_host_configfs_root"]})
