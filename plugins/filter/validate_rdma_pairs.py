# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: validate_rdma_pairs
version_added: 0.1.0
short_description: Which node runs perftest against which in validate.yml, a peer outside the run included
description:
  - Computed once per run from the run's nodes and the inventory's groups (no per-host loop). The nodes of the run
    that can take part are paired among themselves, two by two (an odd one out against the first).
  - With O(peer) (C(validate_rdma_peer)) every node runs against it, one at a time, each result naming the tested
    node alone; a peer outside the run (a C(--limit) or an AWX slice) is probed first.
  - A run with one node that can take part (C(--limit gpu09)) gets a peer outside the run - the healthy one of the
    first three of the inventory's RDMA nodes outside it (reachable, perftest, an ACTIVE port) that shares the
    most rails with it. Only when the inventory has no other RDMA node is it C(not run - not paired) (not
    applicable).
  - Two steps - without O(probed_info)/O(probed_which) the result's C(probe) lists the nodes to probe (empty when
    no probe is needed, and then C(rounds) is final); with them, C(rounds) is final.
  - O(peer) must be one of O(inventory); otherwise the filter fails naming C(validate_rdma_peer).
positional: _input
options:
  _input:
    description: The run's nodes that can take part - node name to its devices with an ACTIVE port.
    type: dict
    required: true
  run:
    description: The hosts of this run (C(ansible_play_hosts_all) of the first play).
    type: list
    elements: str
    required: true
  inventory:
    description: The inventory's RDMA nodes, in inventory order - GPU nodes with C(gpufleet_hardware.rdma_hcas) > 0.
    type: list
    elements: str
    required: true
  peer:
    description: C(validate_rdma_peer); empty for none.
    type: str
    default: ""
  tests:
    description: The perftest tools a peer must have (C(validate_rdma_tests)).
    type: list
    elements: str
    default: [ib_write_bw]
  probed_info:
    description: The C(results) of the C(gpufleet.cluster.rdma_info) loop over C(probe) (delegated, C(ignore_unreachable)).
    type: list
    elements: dict
  probed_which:
    description: The C(results) of the C(which <tests>) loop over C(probe).
    type: list
    elements: dict
"""

EXAMPLES = r"""
- name: Step one - whom to probe (validating gpu09 alone)
  ansible.builtin.set_fact:
    pairs: "{{ {'gpu09': ['mlx5_0', 'mlx5_1']} | gpufleet.cluster.validate_rdma_pairs(run=['gpu09'],
               inventory=['gpu01', 'gpu02', 'gpu09']) }}"
  # pairs.probe == ['gpu01', 'gpu02']
"""

RETURN = r"""
_value:
  description:
    - C(probe) (nodes to probe; empty when C(rounds) is final), C(rounds) (a list of rounds, each a list of
      C([client, server]) run at once), C(peer), C(peer_outside) (the peer is not a host of the run; the client
      starts its servers with C(delegate_to)), C(peer_source) (C(validate_rdma_peer), C(inventory) or empty),
      C(peer_devices), C(unpaired) (node to C({status, detail}) for a node in no round), C(untested_rails) (client
      to its devices the server has no ACTIVE port on) and C(summary) (in words).
  type: dict
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, of_type

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("validate_rdma_pairs", unreadable="the run's RDMA nodes",
                   hint="see docs/validate.md, 'RDMA pairs' for what it takes")
def validate_rdma_pairs(ready, run=None, inventory=None, peer="", tests=None, probed_info=None, probed_which=None):
    """The RDMA rounds of validate.yml (or the nodes to probe for a peer outside the run)."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.pairs import rdma_pairs
    of_type("input", ready, dict, "a dict of node -> its ACTIVE RDMA devices")
    of_type("run", run, list, "the hosts of this run (a list)")
    of_type("inventory", inventory, list, "the inventory's RDMA nodes (a list)")
    of_type("peer", peer, str, "validate_rdma_peer (a node name, or empty)", optional=True)
    of_type("tests", tests, list, "validate_rdma_tests (a list)", optional=True)
    of_type("probed_info", probed_info, list, "the rdma_info probe's results (a list)", optional=True)
    of_type("probed_which", probed_which, list, "the which probe's results (a list)", optional=True)
    return rdma_pairs(ready, run, inventory, peer or "", tests if tests is not None else ["ib_write_bw"],
                      probed_info, probed_which)


class FilterModule:
    def filters(self):
        return {"validate_rdma_pairs": validate_rdma_pairs}
