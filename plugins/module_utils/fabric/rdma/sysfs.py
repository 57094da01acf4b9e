# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Read HCAs and ports from sysfs (stdlib only, runs on the target).

The kernel's layout (Documentation/ABI/stable/sysfs-class-infiniband):

* ``class/infiniband/<dev>/{node_guid,sys_image_guid}`` as ``946d:ae03:00cd:e72c``, ``fw_ver``, ``hca_type``
  (``MT4129``), ``board_id``, ``hw_rev``;
* ``class/infiniband/<dev>/device`` -> the PCI function, with ``numa_node`` (-1: no NUMA information) and
  ``net/<ifname>`` (the IPoIB or RoCE netdev; ``dev_port`` tells the ports of a multi-port function apart);
* ``class/infiniband/<dev>/ports/<n>/{state,phys_state,rate,link_layer,lid,sm_lid,lid_mask_count,cap_mask}``
  as ``4: ACTIVE``, ``5: LinkUp``, ``400 Gb/sec (4X NDR)``, ``InfiniBand``, ``0x4b`` ...; ``gids/0`` whose
  lower 64 bits are the port GUID; ``gid_attrs/ndevs/0`` names the netdev of a RoCE port's GID 0 (preferred:
  it is the bond under RoCE LAG, and the only one for soft-RoCE devices that have no PCI ``device``).

A file that is missing or unreadable (reading an empty GID entry fails with EINVAL) leaves the value unset;
a value that cannot be parsed is reported in ``Reading.problems`` and left unset.
"""

from __future__ import annotations

import os
import re
from typing import Callable, Optional, TypeVar

from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.rdma.parse import (
    Device, Port, RdmaParseError, Reading, hex_version, natural_key, norm_link_layer, norm_phys_state, norm_state,
    parse_gid, parse_guid, parse_int, parse_rate, guid_of_gid,
)

T = TypeVar("T")
_BDF = re.compile(r"[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]")  # fullmatch


def _read(path: str) -> Optional[str]:
    try:
        with open(path) as handle:
            text = handle.read().strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text or None


def _value(reading: Reading, path: str, conv: Callable[[str], T]) -> Optional[T]:
    text = _read(path)
    if text is None:
        return None
    try:
        return conv(text)
    except RdmaParseError as exc:
        reading.problems.append("%s: %s" % (path, exc))
        return None


def _numa(text: str) -> Optional[int]:
    node = parse_int(text)
    return None if node < 0 else node


def _netdev(port_dir: str, number: int, device_dir: str, nports: int) -> Optional[str]:
    """The netdev of GID 0 (RoCE; a bond under RoCE LAG), else the PCI function's netdev for this port,
    a pkey child (ib0.8001) only when nothing else is there."""
    gid_netdev = _read(os.path.join(port_dir, "gid_attrs", "ndevs", "0"))
    if gid_netdev:
        return gid_netdev
    net_dir = os.path.join(device_dir, "net")
    names = sorted(os.listdir(net_dir)) if os.path.isdir(net_dir) else []
    if nports > 1:
        # dev_port counts from 0 (kernel >= 3.15); older drivers only set dev_id the same way.
        names = [n for n in names
                 if (_read(os.path.join(net_dir, n, "dev_port")) or _read(os.path.join(net_dir, n, "dev_id")) or "x")
                 in (str(number - 1), "0x%x" % (number - 1))]
    names.sort(key=lambda n: ("." in n, n))
    return names[0] if names else None


def _port(reading: Reading, device: Device, port_dir: str, number: int, device_dir: str, nports: int) -> Port:
    port = device.port(number)

    def path(name: str) -> str:
        return os.path.join(port_dir, name)

    port.state = _value(reading, path("state"), norm_state)
    port.phys_state = _value(reading, path("phys_state"), norm_phys_state)
    rate = _value(reading, path("rate"), parse_rate)
    if rate is not None:
        port.rate_gbps, port.rate_detail = rate
    port.link_layer = _value(reading, path("link_layer"), norm_link_layer)
    port.base_lid = _value(reading, path("lid"), parse_int)
    port.sm_lid = _value(reading, path("sm_lid"), parse_int)
    port.lmc = _value(reading, path("lid_mask_count"), parse_int)
    port.capability_mask = _read(path("cap_mask"))
    port.gid0 = _value(reading, os.path.join(port_dir, "gids", "0"), parse_gid)
    if port.gid0 is not None:
        port.port_guid = guid_of_gid(port.gid0)
    port.netdev = _netdev(port_dir, number, device_dir, nports)
    return port


def read_sysfs(sysfs_root: str) -> Reading:
    """Every device under <sysfs_root>/class/infiniband, in natural name order (no devices: an empty reading)."""
    reading = Reading("sysfs")
    base = os.path.join(sysfs_root, "class", "infiniband")
    if not os.path.isdir(base):
        return reading
    for name in sorted(os.listdir(base), key=natural_key):
        dev_dir = os.path.join(base, name)
        device = reading.device(name)
        device.node_guid = _value(reading, os.path.join(dev_dir, "node_guid"), parse_guid)
        device.sys_image_guid = _value(reading, os.path.join(dev_dir, "sys_image_guid"), parse_guid)
        device.firmware = _read(os.path.join(dev_dir, "fw_ver"))
        device.ca_type = _read(os.path.join(dev_dir, "hca_type"))
        device.board_id = _read(os.path.join(dev_dir, "board_id"))
        device.hardware_version = _value(reading, os.path.join(dev_dir, "hw_rev"), hex_version)
        device_dir = os.path.join(dev_dir, "device")
        if os.path.isdir(device_dir):
            device.numa_node = _value(reading, os.path.join(device_dir, "numa_node"), _numa)
            busid = os.path.basename(os.path.realpath(device_dir)).lower()
            device.pci_address = busid if _BDF.fullmatch(busid) else None
        ports_dir = os.path.join(dev_dir, "ports")
        numbers = sorted(int(n) for n in os.listdir(ports_dir) if n.isdigit()) if os.path.isdir(ports_dir) else []
        for number in numbers:
            _port(reading, device, os.path.join(ports_dir, str(number)), number, device_dir, len(numbers))
    return reading
