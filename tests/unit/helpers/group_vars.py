# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Lustre, RDMA and RoCE values of the reference inventory (h100-64), the lab inventory and molecule/fabric, as
the roles hand them to their filters (issue 13: they still pass the stricter input rules)."""
from __future__ import annotations

import os

import jinja2.nativetypes
import yaml

from ansible_collections.gpufleet.cluster.plugins.filter.lustre_client_lnet import lustre_client_lnet
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_client_mounts import lustre_client_mounts

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SOURCES = {
    "h100-64": os.path.join(_ROOT, "inventories", "h100-64", "group_vars", "all"),
    "lab": os.path.join(_ROOT, "inventories", "lab", "group_vars", "all"),
    "molecule/fabric": os.path.join(_ROOT, "molecule", "fabric", "group_vars", "all"),
}


def variables(source):
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


def lustre_mounts(values):
    """The mounts of lustre_client_mounts for the LNet networks of lustre_client_lnet, as the lustre_client role
    chains them."""
    lnet = lustre_client_lnet(values["lustre_client_lnet_networks"],
                              o2ib_tunables=values.get("lustre_client_o2ib_tunables"),
                              lnet_options=values.get("lustre_client_lnet_options"))
    return lustre_client_mounts(values["lustre_client_mounts"], nets=lnet["nets"],
                                flock=values.get("lustre_client_mount_flock", "flock"))
