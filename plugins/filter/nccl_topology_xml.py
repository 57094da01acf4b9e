# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: nccl_topology_xml
version_added: 0.1.0
short_description: Render a node layout as an NCCL topology XML file (NCCL_TOPO_FILE)
description:
  - Turns a node layout, a tree that mirrors NCCL's own XML with NCCL's attribute names, into the text
    NCCL's reader (C(src/graph/xml.cc)) accepts, with no XML declaration, spaces only (two per level),
    each tag with all its attributes on one line, attributes in NCCL's order, lower-case busids and
    affinity as a hex cpumap.
  - "The layout is C({version: 1, cpus: [cpu, ...]}). A cpu is C({numaid, affinity, arch, vendor, familyid,
    modelid, pci: [pci, ...]}). A pci is C({busid, class, vendor, device, subsystem_vendor, subsystem_device,
    link_speed, link_width, pci: [...], gpu: {dev, sm, rank, gdr, nvlink: [{target, count, tclass}]},
    nic: {net: [{name, dev, speed, port, ...}]}})."
  - "Shorthands: C(class) may be C(gpu) (0x030200), C(ib) (0x020700), C(nic)/C(ethernet) (0x020000),
    C(bridge)/C(switch) (0x060400), C(nvswitch) (0x068000), an int, or 4/6 hex digits; C(link_speed) may
    be GT/s (C(16)), C(gen1)..C(gen6) or a kernel string (C(16 GT/s) and C(16.0 GT/s PCIe) are kept as
    written, other forms become C(16.0 GT/s PCIe)); C(link_width) may be C(16), C(x16) or C(16x);
    C(affinity) may be a cpumap (8 hex digits per 32 CPUs, kept as written), a CPU list such as
    C(0-47,96-143), a list of CPU ids or an int mask; computed masks are written in comma groups of 32
    bits, all cpus padded to the same width as the kernel does; busids may be upper-case or carry
    nvidia-smi's 8-digit domain; C(arch) may be C(aarch64)/C(ppc64le); C(vendor) may be C(intel)/C(amd)."
  - Refuses, naming the device and the value, busids that are not C(dddd:bb:dd.f) hex, affinities that
    are malformed, empty or shared between NUMA nodes, a busid used twice, a repeated numaid, a pci missing
    busid/class/link_speed/link_width, a gpu missing dev/sm/rank/gdr, a net missing dev, classes NCCL does
    not know (it would take them for a PCIe switch), children under endpoints, unknown keys, values with
    quotes or C(<>&), values longer than 255 characters, more than 640 children, an x86 cpu without vendor,
    or an Intel cpu without familyid and modelid (AMD needs familyid).
positional: _input
options:
  _input:
    description:
      - The node layout.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Write the topology of a 2-socket box with one switch per socket
  ansible.builtin.copy:
    dest: /etc/nccl/topo.xml
    mode: "0644"
    content: "{{ layout | gpufleet.cluster.nccl_topology_xml }}"
  vars:
    layout:
      cpus:
        - numaid: 0
          affinity: "0-23"
          arch: x86_64
          vendor: GenuineIntel
          familyid: 6
          modelid: 143
          pci:
            - busid: "0000:50:00.0"
              class: bridge
              link_speed: gen5
              link_width: 16
              pci:
                - {busid: "0000:53:00.0", class: gpu, link_speed: 32, link_width: 16}
                - busid: "0000:52:00.0"
                  class: ib
                  link_speed: gen5
                  link_width: 16
                  nic: {net: [{name: mlx5_0, dev: 0, speed: 400000, port: 1}]}
  # <cpu numaid="0" affinity="00ffffff" ...> ... <pci busid="0000:53:00.0" class="0x030200"
  #   link_speed="32.0 GT/s PCIe" link_width="16"/>
"""

RETURN = r"""
_value:
  description: The topology XML, ending with a newline.
  type: string
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, of_type

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("nccl_topology_xml", unreadable="the layout",
                   hint="expected {cpus: [{numaid, affinity, pci: [...]}]} as documented")
def nccl_topology_xml(layout):
    """Render a node layout as NCCL topology XML."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.topology import render_xml
    of_type("input", layout, dict, "a layout mapping {cpus: [...]}")
    return str(render_xml(layout))


class FilterModule:
    def filters(self):
        return {"nccl_topology_xml": nccl_topology_xml}
