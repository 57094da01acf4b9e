# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a RoCE port keeps in sysfs and configfs: the GID table, ECN per priority and rdma_cm's default ToS.

* GID table (Documentation/ABI/stable/sysfs-class-infiniband): ``class/infiniband/<dev>/ports/<n>/gids/<i>``
  (``0000:0000:0000:0000:0000:ffff:0a00:0002``), ``gid_attrs/types/<i>`` (``RoCE v2`` or ``IB/RoCE v1``) and
  ``gid_attrs/ndevs/<i>`` (the netdev the GID belongs to); reading an empty entry's type fails (EINVAL).
* ECN (mlx5 from MLNX_OFED): ``class/net/<if>/ecn/roce_np/enable/<prio>`` (notification point: the receiver
  sends CNPs for CE-marked packets) and ``roce_rp/enable/<prio>`` (reaction point: the sender slows down on
  CNPs), ``1`` or ``0``. The inbox driver has no such directory: DCQCN is then on by firmware default.
* ToS (rdma_cm configfs, what MLNX_OFED's cma_roce_tos script writes): ``mkdir <configfs>/rdma_cm/<dev>``
  makes the kernel create ``ports/<n>/default_roce_tos``; the ToS applies to every rdma_cm connection.

Why the RoCE v2 IPv4 GID for NCCL_IB_GID_INDEX: RoCE v1 GIDs are layer-2 frames without an IP header, so the
DSCP (the lossless class) and the ECN bits (DCQCN) the switches act on exist only in RoCE v2 (UDP/IP) packets,
and only RoCE v2 is routed across the leaf/spine layer 3 fabric; the IPv4-mapped GID (``::ffff:a.b.c.d``) is
the one that carries the data netdev's address (the link-local fe80:: GIDs do not route).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce.nic import RoceNicError

ROCE_V2 = "RoCE v2"
_ZERO_GID = "0000:0000:0000:0000:0000:0000:0000:0000"
_V4_PREFIX = "0000:0000:0000:0000:0000:ffff:"


def read_text(path: str) -> Optional[str]:
    """A sysfs/configfs value, stripped; None when missing or unreadable (EINVAL on an empty GID entry)."""
    try:
        with open(path) as handle:
            return handle.read().strip()
    except (OSError, UnicodeDecodeError):
        return None


def write_text(path: str, value: str) -> None:
    """Write like `echo value > path`; the error names the path (raised as RoceNicError)."""
    try:
        with open(path, "w") as handle:
            handle.write(value + "\n")
    except OSError as exc:
        raise RoceNicError("writing %s to %s failed: %s" % (value, path, exc.strerror or exc))


# ---------------------------------------------------------------- GID table
@dataclass(frozen=True)
class Gid:
    index: int
    gid: str
    type: Optional[str]
    netdev: Optional[str]

    @property
    def ipv4(self) -> Optional[str]:
        """::ffff:a.b.c.d -> a.b.c.d; None for any other GID."""
        if not self.gid.lower().startswith(_V4_PREFIX):
            return None
        hi, lo = self.gid.split(":")[6:8]
        return "%d.%d.%d.%d" % (int(hi[:2], 16), int(hi[2:], 16), int(lo[:2], 16), int(lo[2:], 16))

    def describe(self) -> str:
        return "%d %s (%s, %s)" % (self.index, self.ipv4 or self.gid, self.type or "no type", self.netdev or "no netdev")


def port_dir(sysfs_root: str, device: str, port: int) -> str:
    return os.path.join(sysfs_root, "class", "infiniband", device, "ports", str(port))


def read_gids(sysfs_root: str, device: str, port: int) -> List[Gid]:
    """The port's populated GID entries (all-zero GIDs are empty slots), by index."""
    base = port_dir(sysfs_root, device, port)
    gids_dir = os.path.join(base, "gids")
    if not os.path.isdir(gids_dir):
        raise RoceNicError("%s is missing: %s has no port %d (or sysfs_root %s is not a sysfs tree)"
                           % (gids_dir, device, port, sysfs_root))
    out: List[Gid] = []
    for name in sorted((n for n in os.listdir(gids_dir) if n.isdigit()), key=int):
        gid = read_text(os.path.join(gids_dir, name))
        if not gid or gid == _ZERO_GID:
            continue
        out.append(Gid(int(name), gid, read_text(os.path.join(base, "gid_attrs", "types", name)),
                       read_text(os.path.join(base, "gid_attrs", "ndevs", name))))
    return out


def choose_gid(gids: List[Gid], device: str, port: int, netdev: str) -> Gid:
    """The lowest-index RoCE v2 GID with an IPv4-mapped address on `netdev` (see the module docstring: why)."""
    for gid in gids:
        if gid.type == ROCE_V2 and gid.netdev == netdev and gid.ipv4:
            return gid
    found = "; ".join(g.describe() for g in gids) or "no populated GID"
    raise RoceNicError(
        "%s port %d has no RoCE v2 GID with an IPv4 address on %s (found: %s); NCCL_IB_GID_INDEX must name one, "
        "since only RoCE v2 carries the DSCP and ECN bits and routes over IP: give %s an IPv4 address (the "
        "kernel adds its RoCE v1 and v2 GIDs) or name the netdev that has it" % (device, port, netdev, found, netdev))


def link_layer(sysfs_root: str, device: str, port: int) -> Optional[str]:
    return read_text(os.path.join(port_dir(sysfs_root, device, port), "link_layer"))


def port_netdev(sysfs_root: str, device: str, port: int) -> Optional[str]:
    """The netdev of GID 0 (the bond under RoCE LAG), as rdma_info reads it."""
    return read_text(os.path.join(port_dir(sysfs_root, device, port), "gid_attrs", "ndevs", "0"))


def find_port_of_netdev(sysfs_root: str, netdev: str) -> Tuple[str, int]:
    """(rdma device, port) whose GID table has entries on `netdev`; GID 0's netdev wins over later ones."""
    base = os.path.join(sysfs_root, "class", "infiniband")
    hits: List[Tuple[int, str, int]] = []
    for device in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        ports = os.path.join(base, device, "ports")
        for port in sorted((p for p in os.listdir(ports) if p.isdigit()), key=int) if os.path.isdir(ports) else []:
            ndevs = os.path.join(ports, port, "gid_attrs", "ndevs")
            for name in sorted((n for n in os.listdir(ndevs) if n.isdigit()), key=int) if os.path.isdir(ndevs) else []:
                if read_text(os.path.join(ndevs, name)) == netdev:
                    hits.append((int(name), device, int(port)))
                    break
    if not hits:
        raise RoceNicError("no RDMA port has a GID on %s under %s: is %s a RoCE netdev (mlx5_core with mlx5_ib "
                           "loaded), and is it up?" % (netdev, base, netdev))
    hits.sort()
    return hits[0][1], hits[0][2]


# ---------------------------------------------------------------- ECN
def ecn_enable_dir(sysfs_root: str, netdev: str, point: str) -> str:
    """point: np (notification point) or rp (reaction point)."""
    return os.path.join(sysfs_root, "class", "net", netdev, "ecn", "roce_" + point, "enable")


def read_ecn(sysfs_root: str, netdev: str, point: str) -> Optional[Dict[int, bool]]:
    """Priority -> enabled, or None when the driver has no ECN sysfs (inbox mlx5)."""
    directory = ecn_enable_dir(sysfs_root, netdev, point)
    if not os.path.isdir(directory):
        return None
    out: Dict[int, bool] = {}
    for prio in range(8):
        text = read_text(os.path.join(directory, str(prio)))
        if text not in ("0", "1"):
            raise RoceNicError("%s/%d reads %r, not 0 or 1" % (directory, prio, text))
        out[prio] = text == "1"
    return out


def write_ecn(sysfs_root: str, netdev: str, point: str, priority: int, enabled: bool) -> None:
    write_text(os.path.join(ecn_enable_dir(sysfs_root, netdev, point), str(priority)), "1" if enabled else "0")


# ---------------------------------------------------------------- rdma_cm default ToS
def tos_paths(configfs_root: str, device: str, port: int) -> Tuple[str, str]:
    """(<configfs>/rdma_cm/<dev>, ports/<n>/default_roce_tos)."""
    return (os.path.join(configfs_root, "rdma_cm", device), os.path.join("ports", str(port), "default_roce_tos"))


def _rdma_cm_dir(configfs_root: str) -> str:
    path = os.path.join(configfs_root, "rdma_cm")
    if not os.path.isdir(path):
        raise RoceNicError("%s is missing: rdma_cm's configfs is not there, so the RoCE ToS cannot be read or set; "
                           "load rdma_cm (modprobe rdma_cm) and mount configfs on %s (sys-kernel-config.mount)"
                           % (path, configfs_root))
    return path


def read_tos(configfs_root: str, device: str, port: int) -> Optional[int]:
    """rdma_cm's default ToS for the port, or None while rdma_cm/<dev> has not been made (nothing set)."""
    _rdma_cm_dir(configfs_root)
    dev_dir, rel = tos_paths(configfs_root, device, port)
    if not os.path.isdir(dev_dir):
        return None
    text = read_text(os.path.join(dev_dir, rel))
    if text is None:
        return None
    if not text.isdigit():
        raise RoceNicError("%s reads %r, not a ToS 0..255" % (os.path.join(dev_dir, rel), text))
    return int(text)


def write_tos(configfs_root: str, device: str, port: int, tos: int) -> None:
    """mkdir rdma_cm/<dev> as cma_roce_tos does, then write the ToS to the port's default_roce_tos."""
    _rdma_cm_dir(configfs_root)
    dev_dir, rel = tos_paths(configfs_root, device, port)
    path = os.path.join(dev_dir, rel)
    try:
        if not os.path.isdir(dev_dir):
            os.mkdir(dev_dir)
        if not os.path.isdir(os.path.dirname(path)):
            # configfs creates ports/<n> on the mkdir above; only a plain directory tree standing in for it
            # (tests, the lab) gets here, and on real configfs this mkdir fails and says so.
            os.makedirs(os.path.dirname(path))
    except OSError as exc:
        raise RoceNicError("mkdir %s for the RoCE ToS failed: %s; does %s have port %d?"
                           % (os.path.dirname(path), exc.strerror or exc, device, port))
    write_text(path, str(tos))
