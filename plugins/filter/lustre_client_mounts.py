# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: lustre_client_mounts
version_added: 0.1.0
short_description: Lustre client mounts as systemd mount units (unit name, What=, Options=), checked
description:
  - Checks each mount (fsname of 1-8 characters, MGS NIDs C(<IPv4>@o2ib<N>) or C(@tcp<N>) on one of the client's
    LNet networks, an absolute mount point, the options) and returns what a systemd C(.mount) unit needs.
  - The unit name is the mount point escaped as C(systemd-escape --path) does (C(/mnt/lustre) -> C(mnt-lustre.mount)).
  - Two MGS nodes (a failover pair) are joined with C(:); the NIDs of one node with C(,).
    C(_netdev) is always set and C(retry=N) (0-99, mount.lustre's own retries) is added.
  - The locking mode is O(flock). It is put first when a mount's options do not name it, and options naming
    another mode (C(flock), C(localflock), C(noflock)) are refused.
positional: _input
options:
  _input:
    description: The mounts, C([{fsname, mgs_nids, path, options, retry, timeout_s}]).
    type: list
    elements: dict
    required: true
  nets:
    description: The client's LNet networks (C(lustre_client_lnet)'s C(nets)); every NID must be on one of them.
    type: list
    elements: str
  flock:
    description:
      - The locking mode every mount gets. V(flock) is coherent across clients; V(localflock) is coherent on
        this client only; V(noflock) makes C(flock()) fail with C(ENOSYS).
    type: str
    choices: [flock, localflock, noflock]
    default: flock
"""

EXAMPLES = r"""
- name: Units for the training file system
  ansible.builtin.set_fact:
    mounts: >-
      {{ [{'fsname': 'training', 'mgs_nids': ['10.0.0.1@o2ib', '10.0.0.2@o2ib'], 'path': '/mnt/lustre'}]
         | gpufleet.cluster.lustre_client_mounts(nets=['o2ib0']) }}
  # [{unit: mnt-lustre.mount, what: "10.0.0.1@o2ib:10.0.0.2@o2ib:/training", options: "flock,_netdev,retry=5", ...}]
"""

RETURN = r"""
_value:
  description: One entry per mount, in order.
  type: list
  elements: dict
  contains:
    unit:
      description: The .mount unit name (systemd-escaped mount point).
      type: str
    path:
      description: The mount point.
      type: str
    fsname:
      description: The file system name.
      type: str
    what:
      description: The mount source, C(<mgs1>[:<mgs2>]:/<fsname>).
      type: str
    mgs_nids:
      description: One entry per MGS node (comma-joined NIDs of that node).
      type: list
      elements: str
    options:
      description: The mount options as one string, ending in C(retry=N).
      type: str
    retry:
      description: mount.lustre's retries.
      type: int
    timeout_s:
      description: The unit's TimeoutSec=.
      type: int
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, of_type

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("lustre_client_mounts")
def lustre_client_mounts(mounts, nets=None, flock="flock"):
    """Checked mounts with their systemd unit names, sources and options."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.client.mounts import mount_plan
    of_type("input", mounts, (list, tuple), "a list of mounts")
    of_type("nets", nets, (list, tuple), "a list of LNet network names", optional=True)
    return mount_plan(list(mounts), list(nets) if nets is not None else None, flock=flock)


class FilterModule:
    def filters(self):
        return {"lustre_client_mounts": lustre_client_mounts}
