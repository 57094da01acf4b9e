# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The cluster description, from the compact inventory extract the roles (or a rendered file) give it.

:func:`describe` reads each host's variables once and returns every host's address and the parts asked for: the
/etc/hosts part (``hosts_group``), the Slurm part (``slurm``) and the RoCE part (``roce``). Its cost grows with the
number of hosts, once per run; a node then reads its own entry and the cluster-wide parts
(docs/cluster-description.md has the shapes).
"""
from __future__ import annotations

from typing import Any, Dict, Mapping

from ansible_collections.gpufleet.cluster.plugins.module_utils.cluster.addresses import addresses, hosts_part
from ansible_collections.gpufleet.cluster.plugins.module_utils.cluster.inputs import (
    ClusterDescriptionError, host_vars, part)
from ansible_collections.gpufleet.cluster.plugins.module_utils.cluster.roce_sides import roce_part
from ansible_collections.gpufleet.cluster.plugins.module_utils.cluster.slurm_nodes import slurm_part
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import mapping_of, unknown_keys

#: The input's keys; only ``hosts`` is required.
INPUT_KEYS = ("hosts", "hosts_group", "domain", "slurm", "roce")
#: The description's format, which a rendered file records (docs/cluster-description.md).
VERSION = 1


def describe(inputs: Any) -> Dict[str, Any]:
    """The cluster description: ``{version, addresses, hosts?, slurm?, roce?}`` (a part only when its input is given;
    ``hosts`` when ``hosts_group`` is a key of the input, even null: the inventory has no such group)."""
    mapping_of("input", inputs, ClusterDescriptionError, "a mapping with hosts and the parts to describe")
    unknown_keys("input", inputs, INPUT_KEYS, ClusterDescriptionError)
    hosts = host_vars(inputs)
    out: Dict[str, Any] = {"version": VERSION, "addresses": addresses(hosts)}
    if "hosts_group" in inputs:
        out["hosts"] = hosts_part(hosts, inputs["hosts_group"], inputs.get("domain", ""))
    slurm: Mapping[str, Any] = part(inputs, "slurm") or {}
    if slurm:
        out["slurm"] = slurm_part(hosts, slurm)
    roce: Mapping[str, Any] = part(inputs, "roce") or {}
    if roce:
        out["roce"] = roce_part(hosts, roce)
    return out
