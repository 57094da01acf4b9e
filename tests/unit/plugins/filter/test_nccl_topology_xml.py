# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The nccl_topology_xml filter: the XML of a layout, shorthands expanded, NCCL's own topology files round-tripped
(read back as NCCL reads them), refusals naming the device and value under the filter's name, documentation."""
from __future__ import annotations

import os
import sys

import pytest
import yaml

from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import nccl_topology_xml as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.nccl_topology_xml import FilterModule, nccl_topology_xml
from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.topology import canonical_tree, layout_from_xml

_UNIT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if _UNIT not in sys.path:
    sys.path.insert(0, _UNIT)
from fake_sysfs.nccl_reader import nccl_read  # noqa: E402
from reference import nccl_topology  # noqa: E402  pylint: disable=wrong-import-position

REFERENCE = nccl_topology()
FQCN = "gpufleet.cluster.nccl_topology_xml"


def _layout(**pci):
    gpu = {"busid": "0000:53:00.0", "class": "gpu", "link_speed": 32, "link_width": 16}
    gpu.update(pci)
    return {"cpus": [{"numaid": 0, "affinity": "0-23", "arch": "x86_64", "vendor": "GenuineIntel",
                      "familyid": 6, "modelid": 143,
                      "pci": [{"busid": "0000:50:00.0", "class": "bridge", "link_speed": "gen5",
                               "link_width": 16, "pci": [gpu]}]}]}


def test_registered():
    assert FilterModule().filters() == {"nccl_topology_xml": nccl_topology_xml}


def test_renders_shorthands():
    text = nccl_topology_xml(_layout())
    assert text == (
        '<system version="1">\n'
        '  <cpu numaid="0" affinity="00ffffff" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">\n'
        '    <pci busid="0000:50:00.0" class="0x060400" link_speed="32.0 GT/s PCIe" link_width="16">\n'
        '      <pci busid="0000:53:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16"/>\n'
        '    </pci>\n'
        '  </cpu>\n'
        '</system>\n')
    assert isinstance(text, str) and text.__class__ is str  # a plain str, not a subclass


@pytest.mark.parametrize("name", ["ndv4-topo.xml", "p4d-24xl-topo.xml"])
def test_reference_files_round_trip(name):
    with open(os.path.join(REFERENCE, name)) as handle:
        text = handle.read()
    rendered = nccl_topology_xml(layout_from_xml(text))
    assert canonical_tree(rendered) == canonical_tree(text)
    assert nccl_read(rendered) == nccl_read(text)


def test_example_in_docs_renders():
    example = yaml.safe_load(plugin.EXAMPLES)[0]["vars"]["layout"]
    text = nccl_topology_xml(example)
    assert 'affinity="00ffffff"' in text
    assert '<pci busid="0000:53:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16"/>' in text
    assert '<net name="mlx5_0" dev="0" speed="400000" port="1"/>' in text


def _refused(layout):
    with pytest.raises(AnsibleFilterError) as info:
        nccl_topology_xml(layout)
    message = str(info.value)
    assert message.startswith(FQCN + ": ")
    return message


def test_not_a_mapping():
    assert "input must be a layout mapping" in _refused([1, 2])


def test_bad_busid_names_device_and_value():
    message = _refused(_layout(busid="0000:53:0.0"))
    assert "cpu[numaid=0] > pci[0000:50:00.0] > pci #0" in message and "'0000:53:0.0'" in message


def test_duplicate_device():
    layout = _layout()
    layout["cpus"][0]["pci"][0]["pci"].append({"busid": "0000:53:00.0", "class": "ib", "link_speed": 32,
                                               "link_width": 16})
    assert "busid 0000:53:00.0 appears twice" in _refused(layout)


def test_gpu_without_required_attributes():
    assert "gpu is missing required attribute(s) sm, gdr" in _refused(_layout(gpu={"dev": 0, "rank": 0}))


def test_unknown_class():
    assert "class 'storage' is not one NCCL understands" in _refused(_layout(**{"class": "storage"}))


def test_bad_affinity():
    layout = _layout()
    layout["cpus"][0]["affinity"] = "0-23:2"
    assert "cpu[numaid=0] affinity: affinity '0-23:2' is neither a cpumap" in _refused(layout)


def test_documentation():
    doc = yaml.safe_load(plugin.DOCUMENTATION)
    assert doc["name"] == "nccl_topology_xml" and doc["version_added"] == "0.1.0"
    assert doc["positional"] == "_input" and doc["options"]["_input"]["required"] is True
    assert yaml.safe_load(plugin.RETURN)["_value"]["type"] == "string"
