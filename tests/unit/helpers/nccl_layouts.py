# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Small NCCL topology layouts (a cpu, a GPU, an InfiniBand NIC, a PCIe bridge) and the refusal they draw, for the
tests of module_utils/nccl (test_values.py, test_topology.py)."""

from __future__ import annotations

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.topology import render_xml
from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.values import NcclTopologyError


def refusal_of(call, *args, **kwargs):
    """The message of the NcclTopologyError `call(*args, **kwargs)` raises (the test fails when it raises none)."""
    with pytest.raises(NcclTopologyError) as caught:
        call(*args, **kwargs)
    return str(caught.value)


def layout_refusal(layout):
    """The message of the NcclTopologyError render_xml raises for `layout`."""
    return refusal_of(render_xml, layout)


def make_cpu(numaid=0, affinity="0-23", **extra):
    """An Intel Sapphire Rapids NUMA node owning CPUs `affinity`, with no devices unless `pci` is given; an extra
    key given as None is left out."""
    cpu = {"numaid": numaid, "affinity": affinity, "arch": "x86_64", "vendor": "GenuineIntel",
           "familyid": 6, "modelid": 143, "pci": []}
    cpu.update(extra)
    return {k: v for k, v in cpu.items() if v is not None}


def make_gpu(busid="0000:53:00.0", **extra):
    """A PCIe Gen5 x16 GPU (no <gpu> element unless given)."""
    pci = {"busid": busid, "class": "gpu", "link_speed": "gen5", "link_width": 16}
    pci.update(extra)
    return pci


def make_nic(busid="0000:52:00.0", **extra):
    """A 32 GT/s x16 InfiniBand NIC (no <nic> element unless given)."""
    pci = {"busid": busid, "class": "ib", "link_speed": 32, "link_width": 16}
    pci.update(extra)
    return pci


def make_bridge(busid="0000:50:00.0", kids=None, **extra):
    """A 32 GT/s x16 PCIe switch over the devices `kids`."""
    pci = {"busid": busid, "class": "bridge", "link_speed": 32, "link_width": 16, "pci": kids or []}
    pci.update(extra)
    return pci
