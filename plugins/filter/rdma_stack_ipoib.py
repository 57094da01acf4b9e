# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: rdma_stack_ipoib
version_added: 0.1.0
short_description: Checked IPoIB interfaces and their systemd-networkd .network / .netdev files
description:
  - Checks each C({name, address, mtu, mode, pkey}) - an interface name of at most 15 characters, an address with
    its prefix length (not the network or broadcast address of an IPv4 subnet), C(datagram) (MTU 68-4092, default
    2044 - the 2048-byte IB MTU less the 4-byte IPoIB header) or C(connected) (68-65520, default 65520), and an
    optional partition key - and returns the files systemd-networkd reads.
  - A partition key makes a child interface C(<name>.<pkey with the full-member bit>) (C(ib0.8001) for C(0x0001) or
    C(0x8001)), a C(.netdev) of kind C(ipoib) created from the parent's C(.network) (C(IPoIB=)), with the address
    on the child.
positional: _input, prefix
options:
  _input:
    description: The interfaces (rdma_ipoib_interfaces).
    type: list
    elements: dict
    required: true
  prefix:
    description: File name prefix under /etc/systemd/network.
    type: str
    default: 60-gpufleet-rdma
"""

EXAMPLES = r"""
- name: Render the IPoIB files
  ansible.builtin.set_fact:
    ipoib: "{{ [{'name': 'ib0', 'address': '10.10.0.11/16'}] | gpufleet.cluster.rdma_stack_ipoib }}"
  # ipoib.files[0].name == "60-gpufleet-rdma-ib0.network", with MTUBytes=2044 and Mode=datagram
"""

RETURN = r"""
_value:
  description:
    - C(interfaces) (each with C(name), C(link) - the interface the address goes on -, C(address), C(mtu), C(mode),
      C(pkey) as C(0x8001) or null) and C(files) (C({name, sections}), sections as C([section, [[key, value]]])).
  type: dict
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, of_type

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("rdma_stack_ipoib")
def rdma_stack_ipoib(interfaces, prefix="60-gpufleet-rdma"):
    """IPoIB interfaces checked and rendered as networkd files."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.common.input_rules import plain_name
    from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.rdma.stack import RdmaStackError, ipoib_plan
    of_type("input", interfaces, (list, tuple), "a list of interfaces")
    plain_name("prefix", prefix, RdmaStackError)
    return ipoib_plan(list(interfaces), prefix)


class FilterModule:
    def filters(self):
        return {"rdma_stack_ipoib": rdma_stack_ipoib}
