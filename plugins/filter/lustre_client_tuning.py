# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: lustre_client_tuning
version_added: 0.1.0
short_description: Lustre client RPC and read-ahead settings as checked lctl set_param arguments
description:
  - Checks C(max_pages_per_rpc) (a power of two, 1 to 16 MiB in pages), C(max_rpcs_in_flight) (1-256),
    C(max_read_ahead_mb) (0 to half the RAM, when O(memtotal_mb) is given) and C(max_read_ahead_per_file_mb)
    (0 to max_read_ahead_mb), and returns the C(lctl set_param) arguments for C(osc.*) and C(llite.*).
positional: _input
options:
  _input:
    description: C({max_pages_per_rpc, max_rpcs_in_flight, max_read_ahead_mb, max_read_ahead_per_file_mb}).
    type: dict
    required: true
  page_size:
    description: The kernel's page size in bytes (4096 on x86_64).
    type: int
    default: 4096
  memtotal_mb:
    description: The node's RAM in MiB; omitted, the read-ahead is not checked against it.
    type: int
  extra:
    description: "Further parameters, C({'osc.*.checksums': 0}); one word each."
    type: dict
"""

EXAMPLES = r"""
- name: The client settings
  ansible.builtin.set_fact:
    tuning: >-
      {{ {'max_pages_per_rpc': 1024, 'max_rpcs_in_flight': 64, 'max_read_ahead_mb': 1024,
          'max_read_ahead_per_file_mb': 256} | gpufleet.cluster.lustre_client_tuning(memtotal_mb=2063937) }}
  # tuning.params: [osc.*.max_pages_per_rpc=1024, osc.*.max_rpcs_in_flight=64, llite.*.max_read_ahead_mb=1024,
  #                 llite.*.max_read_ahead_per_file_mb=256]; tuning.rpc_bytes: 4194304
"""

RETURN = r"""
_value:
  description: The checked settings.
  type: dict
  contains:
    params:
      description: C(lctl set_param) arguments, C(name=value).
      type: list
      elements: str
    settings:
      description: The four settings as numbers.
      type: dict
    rpc_bytes:
      description: Bytes per bulk RPC (pages x page size).
      type: int
    in_flight_bytes_per_ost:
      description: RPC bytes x RPCs in flight, what one client may have outstanding to one OST.
      type: int
    max_pages_per_rpc_limit:
      description: 16 MiB in pages.
      type: int
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, of_type

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("lustre_client_tuning")
def lustre_client_tuning(settings, page_size=4096, memtotal_mb=None, extra=None):
    """Checked lctl set_param arguments for the client settings."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.client.tuning import tuning_plan
    of_type("input", settings, dict, "a dict of the four settings")
    return tuning_plan(dict(settings), page_size=page_size, memtotal_mb=memtotal_mb, extra=extra)


class FilterModule:
    def filters(self):
        return {"lustre_client_tuning": lustre_client_tuning}
