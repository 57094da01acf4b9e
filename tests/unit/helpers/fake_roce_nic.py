# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A fake ConnectX-7 RoCE port: its sysfs/configfs tree, and mlnx_qos and iproute2 dcb stand-ins that keep state and
print in the recorded formats; for the tests of fabric/roce/nic_sysfs.py, fabric/roce/nic_qos.py and roce_nic_qos."""
from __future__ import annotations

import os
import re

from reference import outputs

# The GID table of mlx5_0 port 1 as the kernel fills it: each address of the netdev gets a RoCE v1 and a RoCE v2
# entry, link-local first (from the MAC 0a:5c:c2:3d:7a:10), then a global IPv6, then IPv4 10.10.1.11
# (0a0a:010b), then a VLAN netdev's IPv4 10.20.1.11 (0a14:010b); the rest of the 16 slots are empty (zeros).
V1, V2 = "IB/RoCE v1", "RoCE v2"
GIDS = [
    ("fe80:0000:0000:0000:085c:c2ff:fe3d:7a10", V1, "eth2"),
    ("fe80:0000:0000:0000:085c:c2ff:fe3d:7a10", V2, "eth2"),
    ("fd00:0000:0000:0001:0000:0000:0000:0011", V1, "eth2"),
    ("fd00:0000:0000:0001:0000:0000:0000:0011", V2, "eth2"),
    ("0000:0000:0000:0000:0000:ffff:0a0a:010b", V1, "eth2"),
    ("0000:0000:0000:0000:0000:ffff:0a0a:010b", V2, "eth2"),
    ("0000:0000:0000:0000:0000:ffff:0a14:010b", V1, "eth2.100"),
    ("0000:0000:0000:0000:0000:ffff:0a14:010b", V2, "eth2.100"),
]
ROCE_V2_IPV4_INDEX = 5          # ::ffff:10.10.1.11, RoCE v2, eth2
ZERO = "0000:0000:0000:0000:0000:0000:0000:0000"


def _write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        handle.write(text + "\n")


def connectx7(tmp_path, device="mlx5_0", netdev="eth2", link_layer="Ethernet", gids=None, ecn=True):
    """(sysfs_root, configfs_root): one RoCE port, ECN all 0, rdma_cm loaded with nothing made yet."""
    sysfs, configfs = str(tmp_path / "sys"), str(tmp_path / "config")
    port = os.path.join(sysfs, "class", "infiniband", device, "ports", "1")
    for name, text in {"link_layer": link_layer, "state": "4: ACTIVE", "phys_state": "5: LinkUp",
                       "rate": "400 Gb/sec (4X NDR)", "lid": "0x0"}.items():
        _write(os.path.join(port, name), text)
    table = GIDS if gids is None else gids
    for index in range(16):
        gid, kind, ndev = table[index] if index < len(table) else (ZERO, "", "")
        _write(os.path.join(port, "gids", str(index)), gid)
        _write(os.path.join(port, "gid_attrs", "types", str(index)), kind)
        _write(os.path.join(port, "gid_attrs", "ndevs", str(index)), ndev)
    if ecn:
        for point in ("roce_np", "roce_rp"):
            for prio in range(8):
                _write(os.path.join(sysfs, "class", "net", netdev, "ecn", point, "enable", str(prio)), "0")
    os.makedirs(os.path.join(configfs, "rdma_cm"), exist_ok=True)
    return sysfs, configfs


def read(path):
    with open(path) as handle:
        return handle.read()


_ROCE = outputs("roce")
#: The DSCPs the firmware default puts on priority 3 with DSCP 26 (26 >> 3 == 3), which the class moves away.
NEIGHBOURS_OF_26 = [24, 25, 27, 28, 29, 30, 31]


def _recorded(name):
    with open(os.path.join(_ROCE, name)) as handle:
        return handle.read()


class FakeMlnxQos:
    """mlnx_qos with state: prints the recorded output with trust, the DSCP map (only with trust dscp, as
    mlnx_qos does) and the PFC row replaced; --trust, --pfc and --dscp2prio set,D,P change the state."""

    def __init__(self, trust="pcp", pfc="0,0,0,0,0,0,0,0", fail=None, ignore=False):
        self.template = _recorded("mlnx_qos-trust-dscp-pfc3.att-netarbiter.txt")
        self.trust, self.pfc, self.map = trust, pfc.split(","), {d: d >> 3 for d in range(64)}
        self.fail, self.ignore, self.calls, self.present = fail, ignore, [], True

    def which(self, name):
        return "/usr/bin/" + name if name == "mlnx_qos" and self.present else None

    def _print(self):
        text = self.template.replace("trust state: dscp", "trust state: " + self.trust)
        rows = "".join("        prio:%d dscp:%s,\n" % (p, ",".join("%02d" % d for d in sorted(
            (d for d in self.map if self.map[d] == p), reverse=True))) for p in range(8))
        text = re.sub(r"dscp2prio mapping:\n(?:\s+prio:.*\n)+", ("dscp2prio mapping:\n" + rows)
                      if self.trust == "dscp" else "", text)
        return re.sub(r"enabled(\s+\d)+", "enabled     " + "   ".join(self.pfc), text)

    def run(self, argv):
        self.calls.append(argv)
        if self.fail and self.fail in argv:
            return 1, "", "Error: failed to set %s" % self.fail
        if len(argv) > 3 and not self.ignore:
            option, value = argv[3], argv[4]
            if option == "--trust":
                self.trust = value
            elif option == "--pfc":
                self.pfc = value.split(",")
            elif option == "--dscp2prio":
                _op, dscp, prio = value.split(",")
                self.map[int(dscp)] = int(prio)
        return 0, self._print(), ""


class FakeDcb:
    """iproute2 dcb with state, printing in the man-page formats recorded beside mlnx_qos's."""

    def __init__(self):
        self.pfc, self.app, self.calls = {p: "off" for p in range(8)}, {}, []
        self.ets = _recorded("dcb-ets-show.iproute2-man.txt")

    def which(self, name):
        return "/usr/sbin/dcb" if name == "dcb" else None

    def run(self, argv):
        self.calls.append(argv)
        words = argv[1:]
        if words[:2] == ["pfc", "show"]:
            return 0, "pfc-cap 8 macsec-bypass off delay 4096\nprio-pfc %s\n" % " ".join(
                "%d:%s" % item for item in sorted(self.pfc.items())), ""
        if words[:3] == ["-N", "app", "show"]:
            return 0, ("dscp-prio %s\n" % " ".join("%d:%d" % item for item in sorted(self.app.items()))
                       if self.app else ""), ""
        if words[:2] == ["ets", "show"]:
            return 0, self.ets, ""
        if words[:2] == ["pfc", "set"]:
            self.pfc.update({int(k): v for k, v in (w.split(":") for w in words[5:])})
        elif words[:2] == ["app", "replace"]:
            self.app.update({int(k): int(v) for k, v in (w.split(":") for w in words[5:])})
        return 0, "", ""
