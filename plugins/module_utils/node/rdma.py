# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The node's RDMA devices and ports as sysfs gives them (``class/infiniband/<dev>/ports/<n>/{state,phys_state,rate,
link_layer,...}``), read by fabric.rdma.sysfs as rdma_info reads them, in node_state's one call: what a role checks
against the ports a site expects on every run, without running rdma_info (whose tools, ibstat and ibv_devinfo, add
nothing to the state, rate and link layer sysfs gives).
"""
from __future__ import annotations

from typing import Any, Dict

from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.rdma.parse import merge, summarise
from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.rdma.sysfs import read_sysfs

__all__ = ["rdma_state"]


def rdma_state(sysfs_root: str) -> Dict[str, Any]:
    """``devices`` (as rdma_info returns them), ``ports`` (flat, each with its ``device``), ``summary``,
    ``problems`` (values sysfs gave that could not be parsed) and ``msg`` (the summary in words)."""
    reading = read_sysfs(sysfs_root)
    devices = merge([reading])
    summary = summarise(devices)
    ports = [dict(port, device=device["name"]) for device in devices for port in device["ports"]]
    if not devices:
        msg = ("no RDMA device found: %s/class/infiniband is empty or missing; is the HCA driver (mlx5_ib, ib_core) "
               "loaded?" % sysfs_root.rstrip("/"))
    else:
        layers = ", ".join("%s %d" % item for item in summary["active_by_link_layer"].items())
        msg = "%d RDMA device(s), %d port(s): %d ACTIVE%s%s" % (
            summary["devices"], summary["ports"], summary["active"], " (%s)" % layers if layers else "",
            ", %d not ACTIVE" % len(summary["not_active"]) if summary["not_active"] else "")
    return {"devices": devices, "ports": ports, "summary": summary, "problems": list(reading.problems), "msg": msg}
