# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: pfc_headroom
version_added: 0.1.0
short_description: PFC headroom (xoff, xon, buffer size) of lossless switch ports, term by term
description:
  - Computes, for one lossless priority group of each port, the buffer that must stay free above the XOFF
    point (C(xoff)), the XON reserve below it (C(xon)) and their sum (C(headroom_bytes), SONiC's buffer
    profile C(size)), in bytes and in buffer cells.
  - "C(xoff) = (local frame + PFC frame + MAC/PHY latency + 2 x cable delay + peer reaction) in wire bytes
    x cell factor + the peer's last lossless frame in whole cells. A delay of t ns at S Gb/s is t x S / 8 bytes."
  - The peer reaction defaults to IEEE 802.3 Annex 31B (pause quanta of 512 bit times per speed); the cell
    factor is the worst buffer-to-wire ratio of any frame size (a frame one byte longer than a cell uses two
    cells).
  - "C(xon) = (local frame + PFC frame + MAC/PHY + 2 x cable) in wire bytes: what the PG drains while an XON
    travels and the peer's traffic returns; O(xon_bytes) replaces it with a fixed reserve."
  - Every result lists its C(terms), each with bytes, cells and a one-line explanation, so the numbers can be
    checked by hand. See docs/pfc-headroom.md.
  - Refuses speeds other than 10, 25, 40, 50, 100, 200, 400, 800 Gb/s, cables outside 0.5 m..10 km, MTUs outside
    1500..9216 bytes and cells outside 64..512 bytes, naming the value, the range and the fix.
positional: _input
options:
  _input:
    description:
      - A port dict or a list of port dicts with the keys C(name) (optional), C(speed_gbps), C(cable_m)
        (metres, or a SONiC CABLE_LENGTH string such as C(5m)) and optionally C(mtu), C(lossless_mtu),
        C(ns_per_m), C(phy_delay_ns), C(peer_response_bits), C(xon_bytes), which override the switch-wide
        options of the same name.
    type: raw
    required: true
  cell_bytes:
    description: Buffer cell size of the switch ASIC in bytes (96 on NVIDIA Spectrum-1, 144 on Spectrum-2/-3).
    type: int
    required: true
  mtu:
    description: Largest frame any class sends on the ports, in bytes (1500..9216), for ports without C(mtu).
    type: int
  lossless_mtu:
    description: Largest frame of the lossless (RoCE) class, 1500 up to the port MTU; defaults to the port MTU.
    type: int
  ns_per_m:
    description: Propagation delay of the cable in ns per metre (1 / velocity); 5.13 is single-mode fibre.
    type: float
    default: 5.13
  phy_delay_ns:
    description: MAC/PCS/FEC latency of this switch's port, transmit plus receive path, in ns.
    type: float
    default: 100
  peer_response_bits:
    description:
      - Peer reaction time in bit times, for every port. Unset means IEEE 802.3 Annex 31B per speed
        (67, 80, 118, 147, 394, 453, 905, 905 pause quanta for 10..800 Gb/s, times 512).
    type: int
  wire_overhead_bytes:
    description: Preamble, start delimiter and inter-frame gap per frame; 0 reproduces models that ignore them.
    type: int
    default: 20
  small_packet_percent:
    description: Share of in-flight frames assumed to fill cells worst; 100 is the safe worst case.
    type: float
    default: 100
  xon_bytes:
    description: A fixed XON reserve in bytes (for example an ASIC pipeline allowance) instead of the model.
    type: int
"""

EXAMPLES = r"""
- name: Headroom of a 400G port with a 5 m cable on a Spectrum-3 switch (144 B cells)
  ansible.builtin.debug:
    msg: "{{ {'name': 'Ethernet0', 'speed_gbps': 400, 'cable_m': 5, 'mtu': 9216}
             | gpufleet.cluster.pfc_headroom(cell_bytes=144) }}"
  # xoff_bytes 139785 (971 cells), xon_bytes 16885 (118 cells), headroom_bytes 156670, cells 1089

- name: Buffer profiles for all lossless ports of a leaf
  ansible.builtin.set_fact:
    gpufleet_pfc_profiles: >-
      {{ gpufleet_leaf_ports | gpufleet.cluster.pfc_headroom(cell_bytes=144, mtu=9216, lossless_mtu=4200) }}
"""

RETURN = r"""
_value:
  description: One dict per port (a list for a list input, a dict for a dict input).
  type: raw
  contains:
    name:
      description: The port name, or null.
      type: str
    xoff_bytes:
      description: Bytes that must stay free above the XOFF point (exact requirement, rounded up to a byte).
      type: int
    xoff_cells:
      description: C(ceil(xoff_bytes / cell_bytes)).
      type: int
    xon_bytes:
      description: XON reserve in bytes.
      type: int
    xon_cells:
      description: C(ceil(xon_bytes / cell_bytes)).
      type: int
    headroom_bytes:
      description: C(xoff_bytes + xon_bytes), the per-PG buffer (SONiC buffer profile C(size)).
      type: int
    cells:
      description: C(xoff_cells + xon_cells), the cells to reserve (each threshold is programmed in whole cells).
      type: int
    size_bytes:
      description: C(cells x cell_bytes).
      type: int
    cell_factor:
      description: Buffer bytes per wire byte assumed for in-flight frames.
      type: float
    terms:
      description: The parts of xoff and xon, each with C(name), C(part) (xoff or xon), C(bytes), C(cells),
        C(wire_bytes) and C(explanation).
      type: list
      elements: dict
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, require

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("pfc_headroom")
def pfc_headroom(ports, cell_bytes=None, mtu=None, lossless_mtu=None, ns_per_m=None, phy_delay_ns=None,
                 peer_response_bits=None, wire_overhead_bytes=None, small_packet_percent=None, xon_bytes=None):
    """Per-port PFC headroom; a dict for a dict input, a list for a list input."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce.pfc_headroom import port_headroom
    single = isinstance(ports, dict)
    require(single or (not isinstance(ports, (str, bytes)) and isinstance(ports, (list, tuple))), "input", ports,
            "a port dict or a list of port dicts")
    switch = {"cell_bytes": cell_bytes, "mtu": mtu, "lossless_mtu": lossless_mtu, "ns_per_m": ns_per_m,
              "phy_delay_ns": phy_delay_ns, "peer_response_bits": peer_response_bits,
              "wire_overhead_bytes": wire_overhead_bytes, "small_packet_percent": small_packet_percent,
              "xon_bytes": xon_bytes}
    if single:
        return port_headroom(ports, switch).to_dict()
    return [port_headroom(port, switch, "ports[%d]" % index).to_dict() for index, port in enumerate(ports)]


class FilterModule:
    def filters(self):
        return {"pfc_headroom": pfc_headroom}
