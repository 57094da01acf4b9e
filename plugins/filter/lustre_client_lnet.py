# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: lustre_client_lnet
version_added: 0.1.0
short_description: A Lustre client's LNet networks as /etc/lnet.conf data and modprobe options, checked
description:
  - Checks the client's LNet networks (C(o2ib<N>) over IPoIB or RoCE, C(tcp<N>) as the fallback), the ko2iblnd
    tunables against the rules the kernel would otherwise apply silently, and the lnet module options.
  - Returns the data of C(/etc/lnet.conf) for C(lnetctl import) (one NI per interface, o2ib NIs with the
    tunables lnetctl reads) and the C(options ko2iblnd) / C(options lnet) lines for C(/etc/modprobe.d).
  - With O(observed), also says what is wrong with the node's interfaces (missing, or not IPoIB/RoCE for o2ib, or
    an o2ib interface without an IPv4 address - o2ib names the node by it).
positional: _input
options:
  _input:
    description: "The networks, a list of C({net, interfaces}), e.g. C([{net: o2ib0, interfaces: [ib0]}])."
    type: list
    elements: dict
    required: true
  o2ib_tunables:
    description:
      - ko2iblnd tunables - peer_credits, peer_credits_hiw, credits, concurrent_sends, map_on_demand, ntx,
        fmr_pool_size, fmr_flush_trigger, fmr_cache, conns_per_peer, peer_timeout, peer_buffer_credits.
    type: dict
    default: {}
  lnet_options:
    description: lnet module options; C(networks), C(ip2nets) and C(routes) are refused (lnet.conf says the networks).
    type: dict
    default: {}
  observed:
    description:
      - "Per interface C({exists, type, rdma, addresses}): C(exists), C(type) and C(rdma) as read from
        /sys/class/net; omitted, no interface check."
      - "C(addresses): the IP addresses (with or without prefix length) the interface holds or is given in this
        run; an o2ib interface with none of IPv4 is a problem. Absent or null, the address check does not run."
    type: dict
"""

EXAMPLES = r"""
- name: LNet over the HDR fabric's IPoIB interface
  ansible.builtin.set_fact:
    lnet: >-
      {{ [{'net': 'o2ib0', 'interfaces': ['ib0']}]
         | gpufleet.cluster.lustre_client_lnet(o2ib_tunables={'peer_credits': 32, 'peer_credits_hiw': 16,
                                                               'concurrent_sends': 64}) }}
  # lnet.lnet_conf: {net: [{net type: o2ib0, local NI(s): [{interfaces: {0: ib0}, tunables: {peer_credits: 32},
  #                  lnd tunables: {concurrent_sends: 64}}]}]}
  # lnet.modprobe_lines: ["options ko2iblnd concurrent_sends=64 peer_credits=32 peer_credits_hiw=16"]
"""

RETURN = r"""
_value:
  description: The checked LNet configuration.
  type: dict
  contains:
    networks:
      description: C([{net (canonical, o2ib0), lnd (o2ib or tcp), interfaces}]).
      type: list
      elements: dict
    nets:
      description: The canonical network names, C([o2ib0]).
      type: list
      elements: str
    o2ib:
      description: Whether any network uses ko2iblnd.
      type: bool
    interfaces:
      description: Every interface, in order.
      type: list
      elements: str
    lnet_conf:
      description: The data of /etc/lnet.conf (render with to_nice_yaml, sort_keys=false).
      type: dict
    o2ib_tunables:
      description: The checked ko2iblnd tunables.
      type: dict
    modprobe_lines:
      description: C(options ko2iblnd ...) (only with an o2ib network) and C(options lnet ...), when not empty.
      type: list
      elements: str
    problems:
      description: What is wrong with the observed interfaces; empty when nothing is, or when observed is not given.
      type: list
      elements: str
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, of_type

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("lustre_client_lnet")
def lustre_client_lnet(networks, o2ib_tunables=None, lnet_options=None, observed=None):
    """Checked LNet networks, lnet.conf data and modprobe lines."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.client.lnet import lnet_plan
    of_type("input", networks, (list, tuple), "a list of {net, interfaces}")
    of_type("observed", observed, dict, "a dict of interface -> {exists, type, rdma}", optional=True)
    return lnet_plan(list(networks), o2ib_tunables, lnet_options, observed)


class FilterModule:
    def filters(self):
        return {"lustre_client_lnet": lustre_client_lnet}
