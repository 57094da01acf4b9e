# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: lustre_pfl_layout
version_added: 0.1.0
short_description: Progressive file layout (PFL) for a directory's file sizes
description:
  - Builds a Lustre progressive file layout from the expected file sizes of a directory and its OST count,
    with the exact C(lfs setstripe) arguments.
  - Small files stay on 1 stripe; each further component has 4 times more stripes over a 16 times longer
    extent, up to all OSTs (at most 2000) in the last component, which runs to EOF.
  - The first extent end is C(max(first_extent_min, next power of two >= p50)); the second is at least the
    next power of two >= p90. Extent ends are multiples of both stripe sizes. Data-on-MDT is not used.
  - Components that a file never reaches are never instantiated, so the ladder costs small files nothing.
positional: _input
options:
  _input:
    description:
      - Expected file sizes, either a dict with C(p50_bytes), C(p90_bytes) and C(max_bytes), or a list of
        file sizes in bytes (percentiles by nearest rank).
      - Sizes are at most 2**63 - 1 bytes (Linux file offsets are signed 64-bit); a component end beyond 2**63
        (C(8388608T)) is refused, since no file reaches it and C(lfs) refuses C(16777216T) (2**64) outright.
    type: raw
    required: true
  ost_count:
    description: OSTs of the file system or pool.
    type: int
    required: true
  stripe_size:
    description: Stripe size of every component but the last, bytes (multiple of 64 KiB, below 4 GiB, so at most 4 GiB - 64 KiB).
    type: int
    default: 1048576
  last_stripe_size:
    description: Stripe size of the last (EOF) component when it has more than one stripe.
    type: int
    default: 4194304
  first_extent_min:
    description: Smallest end of the first (single stripe) component, bytes.
    type: int
    default: 67108864
  path:
    description:
      - Directory to put in the returned command; C(<dir>) when not given.
      - An absolute path of letters, digits, C(_), C(.), C(+) and C(-) (no blank, no C(.) or C(..) part, no trailing
        C(/)), or such a path relative to the current directory that does not start with C(-) (C(lfs) would read
        it as an option). Shell-quoted in the command.
    type: str
"""

EXAMPLES = r"""
- name: Layout for a checkpoint directory on 8 OSTs
  ansible.builtin.set_fact:
    gpufleet_ckpt_layout: >-
      {{ {'p50_bytes': 10485760, 'p90_bytes': 524288000, 'max_bytes': 53687091200}
         | gpufleet.cluster.lustre_pfl_layout(ost_count=8, path='/lustre/ckpt') }}
  # command: lfs setstripe -E 64M -c 1 -S 1M -E 1G -c 4 -S 1M -E -1 -c 8 -S 4M /lustre/ckpt

- name: Apply it
  ansible.builtin.command:
    argv: "{{ ['lfs', 'setstripe'] + gpufleet_ckpt_layout.lfs_setstripe_args + ['/lustre/ckpt'] }}"
"""

RETURN = r"""
_value:
  description: The layout.
  type: dict
  contains:
    components:
      description: Components in order, each with start, end (bytes, -1 for EOF), stripe_count, stripe_size.
      type: list
      elements: dict
    lfs_setstripe_args:
      description: Arguments for C(lfs setstripe), e.g. C([-E, 64M, -c, 1, -S, 1M, ...]).
      type: list
      elements: str
    command:
      description: The whole C(lfs setstripe) command line.
      type: str
    percentiles:
      description: p50, p90 and max used, in bytes.
      type: dict
    stripes_at:
      description: Stripe count a file of size p50, p90 and max ends up with.
      type: dict
    reasoning:
      description: How the layout was reached.
      type: list
      elements: str
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import FilterInputError, collection_filter

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).
# So the defaults are written out: striping's DEFAULT_STRIPE_SIZE (1 MiB), 4 MiB and 64 MiB (a unit test holds them
# equal to striping's constants).


@collection_filter("lustre_pfl_layout")
def lustre_pfl_layout(sizes, ost_count=None, stripe_size=1048576, last_stripe_size=4194304,
                      first_extent_min=67108864, path=None):
    """Progressive file layout with lfs setstripe arguments for a file size distribution."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.striping import pfl_layout
    if ost_count is None:
        raise FilterInputError("ost_count is required (number of OSTs)")
    if isinstance(sizes, dict):
        sizes = dict(sizes)
    elif isinstance(sizes, (list, tuple)):
        sizes = list(sizes)
    return pfl_layout(sizes, ost_count, stripe_size=stripe_size, last_stripe_size=last_stripe_size,
                      first_extent_min=first_extent_min, path=path)


class FilterModule:
    def filters(self):
        return {"lustre_pfl_layout": lustre_pfl_layout}
