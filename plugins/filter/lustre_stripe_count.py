# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: lustre_stripe_count
version_added: 0.1.0
short_description: Stripe count lfs_migrate --auto-stripe would choose for a file
description:
  - Reproduces C(calc_stripe) of Lustre's C(lfs_migrate -A) (options C(-C cap), C(-M min_free),
    C(-X max_free)) for a file of the given size and the OSTs' available space.
  - C(size_gib = size_kib // 1048576), C(count = 1 + isqrt(size_gib)); an OST is eligible when it has at
    least O(min_free_kib) available; the object cap is the smallest eligible OST's available KiB divided by
    O(cap); a file under 1 GiB that fits in one object gets 1 stripe; when the file is larger than
    count x cap the count becomes C((size_kib + cap_kib - 1024) // cap_kib); the count is clamped to the
    eligible OSTs.
  - Fails when no OST is eligible (C(calc_stripe) would print C(-1), all OSTs, and write onto full ones), naming
    O(min_free_kib), the most any active OST has available and the inactive OSTs.
  - The size is converted to KiB by integer division, as lfs_migrate does (C(stat %s / 1024)); set
    O(round_up) to round partial KiB up instead.
positional: _input
options:
  _input:
    description: File size in bytes.
    type: int
    required: true
  ost_avail_kib:
    description:
      - Available KiB of each OST (column 4 of C(lfs df)); C(null) marks an inactive OST.
      - Give this or O(lfs_df).
    type: list
    elements: raw
  lfs_df:
    description:
      - Raw output of C(lfs df) (or C(lfs df -h), whose rounded sizes make the result approximate),
        instead of O(ost_avail_kib).
    type: str
  mount:
    description: File system to use when O(lfs_df) covers several, e.g. C(/scratch2).
    type: str
  cap:
    description: lfs_migrate C(-C); an object may use at most 1/cap of the smallest eligible OST.
    type: int
    default: 100
  min_free_kib:
    description: lfs_migrate C(-M); KiB an OST must have available to be eligible.
    type: int
    default: 262144
  max_free_kib:
    description: lfs_migrate C(-X); available space above this many KiB is not counted.
    type: int
  round_up:
    description: Round the byte size up to whole KiB instead of down.
    type: bool
    default: false
"""

EXAMPLES = r"""
- name: 50 GiB file on 8 OSTs with 10 TiB available each
  ansible.builtin.debug:
    msg: "{{ 53687091200 | gpufleet.cluster.lustre_stripe_count(ost_avail_kib=[10737418240] * 8) }}"
  # size_gib 50, 1 + isqrt(50) = 8, cap 107374182 KiB x 8 > size: 8

- name: Straight from lfs df
  ansible.builtin.debug:
    msg: "{{ file_bytes | gpufleet.cluster.lustre_stripe_count(lfs_df=lfs_df_result.stdout, mount='/scratch2') }}"
"""

RETURN = r"""
_value:
  description: The stripe count, 1 to the number of eligible OSTs.
  type: int
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import (
    FilterInputError,
    collection_filter,
    flag,
    of_type,
    require,
)

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("lustre_stripe_count")
def lustre_stripe_count(size_bytes, ost_avail_kib=None, lfs_df=None, mount=None, cap=100,
                        min_free_kib=262144, max_free_kib=None, round_up=False):
    """Stripe count of lfs_migrate --auto-stripe for a file of size_bytes."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.striping import (
        StripingError,
        ost_avail_kib as _ost_avail_from_entries,
        parse_lfs_df,
        stripe_count_auto,
    )
    require(not isinstance(size_bytes, bool) and isinstance(size_bytes, int) and size_bytes >= 0, "input", size_bytes,
            "a file size in bytes (an integer >= 0)")
    flag("round_up", round_up)
    if (ost_avail_kib is None) == (lfs_df is None):
        raise FilterInputError("give exactly one of ost_avail_kib (list of KiB) or lfs_df (lfs df output)")
    if lfs_df is not None:
        of_type("lfs_df", lfs_df, str, "the text output of 'lfs df'")
        avail = _ost_avail_from_entries(parse_lfs_df(lfs_df), mount)
    else:
        if mount is not None:
            raise StripingError("mount only applies together with lfs_df; drop it")
        avail = list(ost_avail_kib) if isinstance(ost_avail_kib, (list, tuple)) else ost_avail_kib
    size_kib = -(-size_bytes // 1024) if round_up else size_bytes // 1024
    return stripe_count_auto(size_kib, avail, cap=cap, min_free_kib=min_free_kib, max_free_kib=max_free_kib)


class FilterModule:
    def filters(self):
        return {"lustre_stripe_count": lustre_stripe_count}
