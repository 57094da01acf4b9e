# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: lustre_client_layouts
version_added: 0.1.0
short_description: The default layout of each listed Lustre directory, as gpufleet.cluster.lfs_stripe arguments
description:
  - Takes directories in the form of C(gpufleet_plan_lustre.directories) and computes each one's layout with the
    same functions as C(gpufleet.cluster.lustre_stripe_plan) (C(apply=stripe_plan)) and
    C(gpufleet.cluster.lustre_pfl_layout) (C(apply=pfl)), or takes an explicit C(stripe_count) (C(apply=plain)).
  - Returns per directory the path, the layout as C(gpufleet.cluster.lfs_stripe) arguments, the equivalent
    C(lfs setstripe) command and the reasoning.
positional: _input
options:
  _input:
    description: The directories, C([{name or path, apply, pattern, clients, client_bw_gbs, sizes, stripe_size,
      stripe_count, files, pool, mode, owner, group, description}]).
    type: list
    elements: dict
    required: true
  mountpoint:
    description: Where a directory given by C(name) lies.
    type: str
    required: true
  ost_count:
    description: OSTs of the file system.
    type: int
    required: true
  ost_bw_gbs:
    description: One OST's bandwidth in GB/s (needed by C(apply=stripe_plan)).
    type: float
  mount_paths:
    description: The client's Lustre mount points; every directory must lie below one. Default C([mountpoint]).
    type: list
    elements: str
"""

EXAMPLES = r"""
- name: Layouts of the reference design's directories
  ansible.builtin.set_fact:
    layouts: >-
      {{ gpufleet_plan_lustre.directories
         | gpufleet.cluster.lustre_client_layouts(mountpoint=gpufleet_lustre.mountpoint, ost_count=gpufleet_lustre.osts,
                                                  ost_bw_gbs=gpufleet_plan_lustre.ost_bw_gbs) }}
  # datasets: {stripe_count: 8, stripe_size: 1M}; checkpoints: components 64M c1, 1G c4, EOF c8 4M
"""

RETURN = r"""
_value:
  description: One entry per directory, in order.
  type: list
  elements: dict
  contains:
    path:
      description: The directory.
      type: str
    mount:
      description: The mount point it lies under.
      type: str
    apply:
      description: stripe_plan, pfl or plain.
      type: str
    layout:
      description: C({stripe_count, stripe_size, pool}) or C({components, pool}), for gpufleet.cluster.lfs_stripe.
      type: dict
    lfs_setstripe_args:
      description: The same layout as C(lfs setstripe) arguments.
      type: list
      elements: str
    command:
      description: The whole C(lfs setstripe) command.
      type: str
    reasoning:
      description: How the layout was reached.
      type: list
      elements: str
    mode:
      description: The directory's mode (four octal digits).
      type: str
    owner:
      description: Its owner.
      type: str
    group:
      description: Its group.
      type: str
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import (
    FilterInputError,
    collection_filter,
    of_type,
    require,
)

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("lustre_client_layouts")
def lustre_client_layouts(directories, mountpoint=None, ost_count=None, ost_bw_gbs=None, mount_paths=None):
    """Layouts of the listed directories as lfs_stripe arguments."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.client.layouts import directory_layouts
    of_type("input", directories, (list, tuple), "a list of directories")
    require(isinstance(mountpoint, str) and mountpoint.startswith("/"), "mountpoint", mountpoint, "an absolute path")
    if ost_count is None:
        raise FilterInputError("ost_count is required (number of OSTs)")
    of_type("mount_paths", mount_paths, (list, tuple), "a list of paths", optional=True)
    return directory_layouts(list(directories), mountpoint, ost_count, ost_bw_gbs,
                             list(mount_paths) if mount_paths is not None else None)


class FilterModule:
    def filters(self):
        return {"lustre_client_layouts": lustre_client_layouts}
