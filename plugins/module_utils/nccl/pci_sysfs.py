# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Read a node's PCI tree from sysfs into an NCCL topology layout (runs on the target; stdlib only).

The tree is built the way NCCL's own detection builds it (src/graph/xml.cc, ncclTopoGetXmlFromSys):

* a device's parent element is found by going up the resolved sysfs path TWO components at a time,
  so a switch's downstream port and a CPU's root port are skipped and a Broadcom PEX switch
  (root port -> upstream port -> downstream port -> endpoint) appears as one ``pci`` bridge element
  (its upstream port) holding the endpoints; reaching a non-BDF component (``pci0000:4f``) means the CPU;
* the CPU element is the NUMA node named by ``numa_node`` of the top element, with its affinity read
  from ``devices/system/node/node<N>/cpumap``;
* ``link_speed``/``link_width`` are the lower of the device's ``max_link_*`` and those of the
  directory above it (the port it plugs into). ``current_link_*`` are reported but not used: idle
  GPUs train their links down to 2.5 GT/s to save power;
* RDMA NIC functions are merged into function 0 of the device, as NCCL's IB plugin does, and the
  ``net`` devs are numbered over ACTIVE ports in PCI order (NCCL_IB_DEVICE_PCI_ORDER=1, the default).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.values import (
    NcclTopologyError, normalise_link_speed, speed_gts,
)


class PciSysfsError(NcclTopologyError):
    """The sysfs or procfs tree cannot be read into a topology; the message names the file and the fix."""


NVIDIA_VENDOR = 0x10DE
GPU_CLASSES = (0x0302, 0x0300)  # 3D controller, VGA controller (class >> 8)
_BDF_RE = re.compile(r"[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-9a-fA-F]")  # fullmatch
# NCCL's default when a link speed is unreadable (kvDictPciGen fallback 60 = 8 GT/s per lane).
FALLBACK_SPEED = "8.0 GT/s PCIe"
FALLBACK_WIDTH = 16  # NCCL: "Width is 0 if the device is not present" -> 16


@dataclass
class PciDevice:
    busid: str
    path: str                    # resolved directory under <sysfs>/devices
    chain: Tuple[str, ...]       # path components below <sysfs>/devices, ending with busid
    pci_class: int
    vendor: int
    device: int
    subsystem_vendor: Optional[int]
    subsystem_device: Optional[int]
    numa_node: int
    max_link_speed: Optional[str]
    max_link_width: Optional[int]
    current_link_speed: Optional[str]
    current_link_width: Optional[int]


@dataclass
class RdmaPort:
    number: int
    rate_mbps: Optional[int]
    link_layer: str
    state: str

    @property
    def active(self) -> bool:
        return self.state.split(":")[-1].strip().upper() == "ACTIVE"


@dataclass
class RdmaDevice:
    name: str
    busid: str
    ports: List[RdmaPort]


@dataclass
class Scan:
    layout: Dict[str, Any]
    devices: List[Dict[str, Any]] = field(default_factory=list)
    rdma_ports: List[Dict[str, Any]] = field(default_factory=list)
    warnings: List[str] = field(default_factory=list)


def is_bdf(name: str) -> bool:
    """NCCL's checkBDFFormat: exactly 'dddd:bb:dd.f' in hex."""
    return bool(_BDF_RE.fullmatch(name))


def nccl_parent_index(chain: Tuple[str, ...], index: int) -> Optional[int]:
    """Index in `chain` of the element NCCL hangs chain[index] under, or None for the CPU.

    Steps up two components; a non-BDF component on the way (the ``pci0000:xx`` host bridge) is the CPU.
    """
    steps = 0
    for j in range(index - 1, -1, -1):
        steps += 1
        if not is_bdf(chain[j]):
            return None
        if steps == 2:
            return j
    return None


def _read(path: str) -> Optional[str]:
    try:
        with open(path) as handle:
            return handle.read().strip()
    except (IOError, OSError):
        return None


def _read_int(path: str, base: int = 0) -> Optional[int]:
    text = _read(path)
    try:
        return int(text, base) if text not in (None, "") else None
    except ValueError:
        return None


def read_device(sysfs_root: str, path: str) -> PciDevice:
    """One PCI device directory (already resolved) -> PciDevice."""
    devices_root = os.path.realpath(os.path.join(sysfs_root, "devices"))
    rel = os.path.relpath(path, devices_root)
    if rel.startswith(".."):
        raise PciSysfsError("%s resolves outside %s; the tree is not laid out like the kernel's sysfs "
                            "(bus/pci/devices/* must link into devices/pci*/...)" % (path, devices_root))
    chain = tuple(rel.split(os.sep))
    pci_class = _read_int(os.path.join(path, "class"))
    vendor = _read_int(os.path.join(path, "vendor"))
    if pci_class is None or vendor is None:
        raise PciSysfsError("%s has no readable class/vendor file; is sysfs_root=%s a sysfs tree?" % (path, sysfs_root))
    numa = _read_int(os.path.join(path, "numa_node"), 10)
    return PciDevice(
        busid=chain[-1].lower(), path=path, chain=chain, pci_class=pci_class, vendor=vendor,
        device=_read_int(os.path.join(path, "device")) or 0,
        subsystem_vendor=_read_int(os.path.join(path, "subsystem_vendor")),
        subsystem_device=_read_int(os.path.join(path, "subsystem_device")),
        numa_node=-1 if numa is None else numa,
        max_link_speed=_read(os.path.join(path, "max_link_speed")),
        max_link_width=_read_int(os.path.join(path, "max_link_width"), 10),
        current_link_speed=_read(os.path.join(path, "current_link_speed")),
        current_link_width=_read_int(os.path.join(path, "current_link_width"), 10),
    )


def read_pci_devices(sysfs_root: str) -> Dict[str, PciDevice]:
    """All devices listed in <sysfs>/bus/pci/devices, keyed by lower-case busid."""
    listing = os.path.join(sysfs_root, "bus", "pci", "devices")
    try:
        names = sorted(os.listdir(listing))
    except OSError as exc:
        raise PciSysfsError("cannot list %s (%s); point sysfs_root at a sysfs tree" % (listing, exc.strerror))
    devices = {}
    for name in names:
        dev = read_device(sysfs_root, os.path.realpath(os.path.join(listing, name)))
        devices[dev.busid] = dev
    return devices


def read_cpumaps(sysfs_root: str) -> Dict[int, str]:
    """NUMA node -> cpumap text exactly as the kernel writes it (what NCCL copies into affinity)."""
    base = os.path.join(sysfs_root, "devices", "system", "node")
    maps = {}
    for name in os.listdir(base) if os.path.isdir(base) else []:
        m = re.fullmatch(r"node(\d+)", name)
        text = _read(os.path.join(base, name, "cpumap")) if m else None
        if m and text:
            maps[int(m.group(1))] = text
    return maps


def read_cpuinfo(procfs_root: str) -> Dict[str, Any]:
    """arch/vendor/familyid/modelid from the first processor block of <procfs>/cpuinfo."""
    path = os.path.join(procfs_root, "cpuinfo")
    text = _read(path)
    if text is None:
        raise PciSysfsError("cannot read %s; point procfs_root at a procfs tree" % path)
    info = {}  # type: Dict[str, str]
    for line in text.splitlines():
        if not line.strip() and info:
            break
        key, sep, value = line.partition(":")
        if sep:
            info.setdefault(key.strip().lower(), value.strip())
    if "vendor_id" in info:
        out = {"arch": "x86_64", "vendor": info["vendor_id"]}  # type: Dict[str, Any]
        for src, dst in (("cpu family", "familyid"), ("model", "modelid")):
            if info.get(src, "").isdigit():
                out[dst] = int(info[src])
        return out
    if "cpu implementer" in info:
        return {"arch": "arm64"}
    if "power" in info.get("cpu", "").lower() or "platform" in info and "pseries" in info.get("platform", "").lower():
        return {"arch": "ppc64"}
    raise PciSysfsError("%s names no vendor_id (x86), CPU implementer (arm64) or POWER cpu (ppc64); "
                        "NCCL needs the CPU arch" % path)


def read_rdma_devices(sysfs_root: str) -> List[RdmaDevice]:
    """<sysfs>/class/infiniband/* -> devices with their PCI busid and ports (IB and RoCE alike)."""
    base = os.path.join(sysfs_root, "class", "infiniband")
    found = []
    for name in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        target = os.path.realpath(os.path.join(base, name, "device"))
        if not is_bdf(os.path.basename(target)):
            continue  # soft-RoCE/siw devices have no PCI function
        ports = []
        ports_dir = os.path.join(base, name, "ports")
        for port in sorted(os.listdir(ports_dir), key=lambda p: int(p) if p.isdigit() else -1) \
                if os.path.isdir(ports_dir) else []:
            pdir = os.path.join(ports_dir, port)
            rate = re.match(r"\s*(\d+(?:\.\d+)?)\s*Gb/sec", _read(os.path.join(pdir, "rate")) or "")
            ports.append(RdmaPort(number=int(port), rate_mbps=int(float(rate.group(1)) * 1000) if rate else None,
                                  link_layer=_read(os.path.join(pdir, "link_layer")) or "",
                                  state=_read(os.path.join(pdir, "state")) or ""))
        found.append(RdmaDevice(name=name, busid=os.path.basename(target).lower(), ports=ports))
    return found


def read_net_devices(sysfs_root: str) -> Dict[str, str]:
    """<sysfs>/class/net/* with a PCI device -> {ifname: busid} (virtual interfaces have no device link)."""
    base = os.path.join(sysfs_root, "class", "net")
    found = {}
    for name in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        link = os.path.join(base, name, "device")
        target = os.path.basename(os.path.realpath(link)) if os.path.exists(link) else ""
        if is_bdf(target):
            found[name] = target.lower()
    return found


def _link(dev: PciDevice, warnings: List[str]) -> Tuple[str, int]:
    """NCCL's rule: the slower of the device's max link and the max link of the port above it."""
    port = os.path.dirname(dev.path)
    speeds = [s for s in (dev.max_link_speed, _read(os.path.join(port, "max_link_speed")))
              if s and speed_gts(s) is not None]
    widths = [w for w in (dev.max_link_width, _read_int(os.path.join(port, "max_link_width"), 10)) if w]
    if not speeds:
        warnings.append("%s: no readable max_link_speed here or on its port; wrote %s, NCCL's own fallback"
                        % (dev.busid, FALLBACK_SPEED))
    if not widths:
        warnings.append("%s: no readable max_link_width here or on its port; wrote x%d, NCCL's own fallback"
                        % (dev.busid, FALLBACK_WIDTH))
    # min() keeps the first of equals: the device's own string on a tie, as NCCL does.
    speed = min(speeds, key=lambda s: speed_gts(s) or 0.0) if speeds else FALLBACK_SPEED
    return normalise_link_speed(speed, "%s max_link_speed" % dev.busid), min(widths) if widths else FALLBACK_WIDTH


def _function0(busid: str, devices: Dict[str, PciDevice]) -> str:
    """Port functions of one NIC (.0/.1) share one element, as NCCL's IB plugin merges them."""
    first = busid[:-1] + "0"
    if first != busid and first in devices and devices[first].vendor == devices[busid].vendor:
        return first
    return busid


def _rdma_nets(sysfs_root: str, devices: Dict[str, PciDevice]
               ) -> Tuple[Dict[str, List[Dict[str, Any]]], List[Dict[str, Any]]]:
    """{function-0 busid: [net, ...]} plus a report row per RDMA device."""
    nets = {}  # type: Dict[str, List[Dict[str, Any]]]
    report = []
    dev_index = 0
    # PCI order, as NCCL_IB_DEVICE_PCI_ORDER=1 (default) sorts the IB plugin's devices.
    for rdma in sorted(read_rdma_devices(sysfs_root), key=lambda r: (r.busid, r.name)):
        if rdma.busid not in devices:
            continue
        owner = _function0(rdma.busid, devices)
        siblings = nets.setdefault(owner, [])
        real_port = len(set(n["name"] for n in siblings))
        for port in rdma.ports:
            usable = port.active and port.link_layer in ("InfiniBand", "Ethernet")
            report.append({"name": rdma.name, "busid": rdma.busid, "port": port.number, "state": port.state,
                           "link_layer": port.link_layer, "rate_mbps": port.rate_mbps,
                           "dev": dev_index if usable else None})
            if not usable:
                continue  # the IB plugin lists only ACTIVE IB/RoCE ports
            net = {"name": rdma.name, "dev": dev_index, "port": port.number + real_port}  # type: Dict[str, Any]
            if port.rate_mbps:
                net["speed"] = port.rate_mbps
            siblings.append(net)
            dev_index += 1
    return nets, report


def build_layout(sysfs_root: str = "/sys", procfs_root: str = "/proc", include_nics: bool = True,
                 include_ethernet: bool = False) -> Scan:
    """GPUs (vendor 0x10de, class 0x0302xx/0x0300xx), RDMA NICs and the switches above them, per NUMA node."""
    devices = read_pci_devices(sysfs_root)
    warnings = []  # type: List[str]
    roles = {b: "gpu" for b, d in devices.items() if d.vendor == NVIDIA_VENDOR and d.pci_class >> 8 in GPU_CLASSES}
    nets, rdma_report = ({}, []) if not include_nics else _rdma_nets(sysfs_root, devices)
    for busid in nets:
        roles.setdefault(busid, "nic")
    if include_ethernet:
        for ifname, busid in read_net_devices(sysfs_root).items():
            if busid in devices and devices[busid].pci_class >> 16 == 0x02 and _function0(busid, devices) not in nets:
                roles.setdefault(busid, "ethernet")
    if roles and not any(r == "gpu" for r in roles.values()):
        warnings.append("no NVIDIA GPU (vendor 0x10de, class 0x0302xx/0x0300xx) under %s/bus/pci/devices; "
                        "the file describes NICs only" % sysfs_root)

    devices_root = os.path.realpath(os.path.join(sysfs_root, "devices"))
    children = {}  # type: Dict[str, set]
    parents = {}  # type: Dict[str, str]
    tops = {}  # type: Dict[int, set]
    for busid in sorted(roles):
        dev = devices[busid]
        while dev.busid not in parents:
            index = nccl_parent_index(dev.chain, len(dev.chain) - 1)
            if index is None:
                parents[dev.busid] = "cpu"
                tops.setdefault(dev.numa_node, set()).add(dev.busid)
                break
            up = dev.chain[index].lower()
            if up not in devices:
                devices[up] = read_device(sysfs_root, os.path.join(devices_root, *dev.chain[:index + 1]))
            parents[dev.busid] = up
            children.setdefault(up, set()).add(dev.busid)
            dev = devices[up]

    report = []
    links = {}  # type: Dict[str, Tuple[str, int]]

    def element(busid: str) -> Dict[str, Any]:
        dev = devices[busid]
        links[busid] = _link(dev, warnings)
        elem = {"busid": busid, "class": "0x%06x" % dev.pci_class, "vendor": "0x%04x" % dev.vendor,
                "device": "0x%04x" % dev.device}  # type: Dict[str, Any]
        if dev.subsystem_vendor is not None and dev.subsystem_device is not None:
            elem["subsystem_vendor"] = "0x%04x" % dev.subsystem_vendor
            elem["subsystem_device"] = "0x%04x" % dev.subsystem_device
        elem["link_speed"], elem["link_width"] = links[busid]
        if busid in children:
            elem["pci"] = [element(k) for k in sorted(children[busid])]
        if nets.get(busid):
            elem["nic"] = {"net": nets[busid]}
        report.append({"busid": busid, "role": roles.get(busid, "bridge"), "parent": parents[busid],
                       "numa_node": dev.numa_node, "class": elem["class"], "vendor": elem["vendor"],
                       "device": elem["device"], "link_speed": elem["link_speed"], "link_width": elem["link_width"],
                       "max_link_speed": dev.max_link_speed, "max_link_width": dev.max_link_width,
                       "current_link_speed": dev.current_link_speed, "current_link_width": dev.current_link_width})
        return elem

    if not tops:
        raise PciSysfsError("found no NVIDIA GPU%s under %s/bus/pci/devices; nothing to describe to NCCL"
                            % (" or RDMA NIC" if include_nics else "", sysfs_root))
    cpumaps = read_cpumaps(sysfs_root)
    cpuinfo = read_cpuinfo(procfs_root)
    cpus = []
    for numa in sorted(tops):
        cpu = dict({"numaid": numa}, **cpuinfo)  # type: Dict[str, Any]
        if numa in cpumaps:
            cpu["affinity"] = cpumaps[numa]
        elif numa < 0:
            warnings.append("%s report numa_node -1 (no NUMA information: single-socket board or VM); they go under "
                            "cpu numaid -1 without affinity, as NCCL's own detection does"
                            % ", ".join(sorted(tops[numa])))
        else:
            warnings.append("NUMA node %d has no %s/devices/system/node/node%d/cpumap; affinity left out, NCCL "
                            "will not pin its threads for devices there" % (numa, sysfs_root, numa))
        cpu["pci"] = [element(b) for b in sorted(tops[numa])]
        cpus.append(cpu)
    report.sort(key=lambda r: r["busid"])
    return Scan(layout={"version": 1, "cpus": cpus}, devices=report, rdma_ports=rdma_report, warnings=warnings)
