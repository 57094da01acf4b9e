# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: lustre_stripe_plan
version_added: 0.1.0
short_description: Stripe count and size for an I/O pattern, with the bandwidth it should reach
description:
  - Plans striping from bandwidth, for a dataset read or written by many clients at once.
  - C(shared_file) (N clients on one file) takes C(ceil(clients x client_bw / ost_bw)) stripes, at least 1
    and at most the OSTs (and Lustre's 2000).
  - C(file_per_process) gives each file 1 stripe, unless there are fewer files than OSTs; then
    C(ceil(osts / files)) stripes so that files x stripes covers every OST.
  - Returns the count, the size, the demand, the expected aggregate bandwidth, the limiting factor and
    the reasoning, one line per step.
positional: _input
options:
  _input:
    description: Number of OSTs the file system (or the OST pool) has.
    type: int
    required: true
  ost_bw_gbs:
    description: Bandwidth of one OST in GB/s, above 0 and at most 100000.
    type: float
    required: true
  clients:
    description: Clients reading or writing at the same time (processes, GPUs or nodes).
    type: int
    required: true
  client_bw_gbs:
    description: Bandwidth one client can drive in GB/s, above 0 and at most 100000.
    type: float
    required: true
  pattern:
    description: Access pattern.
    type: str
    choices: [shared_file, file_per_process]
    default: shared_file
  files:
    description: Number of files for C(file_per_process); defaults to O(clients).
    type: int
  stripe_size:
    description: Stripe size in bytes, a multiple of 64 KiB, below 4 GiB (at most 4 GiB - 64 KiB).
    type: int
    default: 1048576
  stripe_count:
    description: Use this stripe count (1 to the OSTs, or -1 for all) instead of planning one.
    type: int
"""

EXAMPLES = r"""
- name: 64 GPU readers on one shared dataset, 8 OSTs
  ansible.builtin.set_fact:
    gpufleet_dataset_striping: >-
      {{ 8 | gpufleet.cluster.lustre_stripe_plan(ost_bw_gbs=10.0, clients=64, client_bw_gbs=1.5) }}
  # stripe_count 8 (ceil(96 / 10) = 10, clamped to 8 OSTs), aggregate_gbs 80.0, limiting_factor ost_bandwidth

- name: Apply it
  ansible.builtin.command:
    argv: "{{ ['lfs', 'setstripe'] + gpufleet_dataset_striping.lfs_setstripe_args + ['/lustre/datasets/imagenet'] }}"
"""

RETURN = r"""
_value:
  description: The plan.
  type: dict
  contains:
    stripe_count:
      description: Stripes per file.
      type: int
    stripe_size:
      description: Stripe size in bytes.
      type: int
    stripe_size_lfs:
      description: Stripe size in lfs syntax, for example C(1M).
      type: str
    files:
      description: Files the pattern uses (1 for a shared file).
      type: int
    demand_gbs:
      description: Clients times the bandwidth of one client, GB/s.
      type: float
    ost_capacity_gbs:
      description: Bandwidth of the OSTs the layout uses, GB/s.
      type: float
    aggregate_gbs:
      description: Expected aggregate bandwidth, GB/s.
      type: float
    limiting_factor:
      description: What limits the aggregate, one of C(client_bandwidth), C(ost_bandwidth), C(stripe_count).
      type: str
    reasoning:
      description: How the numbers were reached, one line per step.
      type: list
      elements: str
    lfs_setstripe_args:
      description: The C(-c) and C(-S) arguments for C(lfs setstripe).
      type: list
      elements: str
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import (
    FilterInputError,
    collection_filter,
    of_type,
)

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).
# So the default stripe_size is written out: striping's DEFAULT_STRIPE_SIZE, 1 MiB (a unit test holds them equal).


@collection_filter("lustre_stripe_plan")
def lustre_stripe_plan(ost_count, ost_bw_gbs=None, clients=None, client_bw_gbs=None, pattern="shared_file",
                       files=None, stripe_size=1048576, stripe_count=None):
    """Plan stripe count and size for a shared file or file-per-process pattern."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.striping import stripe_plan
    missing = [n for n, v in (("ost_bw_gbs", ost_bw_gbs), ("clients", clients), ("client_bw_gbs", client_bw_gbs))
               if v is None]
    if missing:
        raise FilterInputError("missing required option(s) %s" % ", ".join(missing))
    of_type("pattern", pattern, str, "a string")
    return stripe_plan(ost_count, ost_bw_gbs, clients, client_bw_gbs, pattern=pattern,
                       stripe_size=stripe_size, stripe_count=stripe_count, files=files)


class FilterModule:
    def filters(self):
        return {"lustre_stripe_plan": lustre_stripe_plan}
