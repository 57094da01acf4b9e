# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: validate_expect
version_added: 0.1.0
short_description: Threshold of a validation check, derived from the inventory's hardware description
description:
  - C(rdma) - perftest bandwidth floor, O(fraction) (0.9) x the port rate (from O(rdma_info) when given, else
    C(gpufleet_fabric.rate_gbps)), x 2 for a O(bidirectional) test, in Gb/s.
  - C(rdma_lat) - ib_write_lat t_typical ceiling by C(gpufleet_fabric.kind) (InfiniBand 3 usec, RoCE 5 usec).
  - C(nccl) - all_reduce_perf busbw floor, O(fraction) (0.75) x min(per-GPU NVLink bandwidth of
    C(gpufleet_hardware.gpu_model), and for O(nodes) > 1 the node's network, C(rdma_hcas) x rate / 8), in GB/s.
  - C(lustre) - aggregate read floor, O(fraction) (0.8) x C(gpufleet_lustre.osts) x
    C(gpufleet_plan_lustre.ost_bw_gbs), in GB/s; not applicable without Lustre servers.
  - C(filesystem) - a given floor O(min_gbs) for a local mount (the lab).
  - C(gpu) - power limit and application clocks of the gpu_tuning profile for O(model).
  - 'Every result has C(applicable), C(value), C(unit), C(compare) and C(derivation) (the arithmetic in words);
    a not applicable one has C(reason), for example C(not applicable: no Lustre file system (gpufleet_lustre is not set)).'
positional: _input
options:
  _input:
    description: The kind of check.
    type: str
    choices: [rdma, rdma_lat, nccl, lustre, filesystem, gpu]
    required: true
  hardware:
    description:
      - The inventory variables by name - C(gpufleet_fabric), C(gpufleet_hardware), C(gpufleet_lustre),
        C(gpufleet_plan_lustre), C(gpu_tuning_profiles), C(gpu_tuning_profile_overrides), C(gpu_tuning_node_profile).
    type: dict
    required: true
  nodes:
    description: Nodes in the NCCL run (kind nccl).
    type: int
  fraction:
    description: Override of the kind's documented fraction (rdma, nccl, lustre).
    type: float
  rdma_info:
    description: The rdma_info module's result or its C(ports) (kinds rdma and nccl); the slowest ACTIVE port's rate is used.
    type: raw
  device:
    description: Only this RDMA device's ports (kind rdma).
    type: str
  bidirectional:
    description: The perftest run was bidirectional (C(-b)); kind rdma.
    type: bool
    default: false
  nvlink_gbs:
    description: Per-GPU unidirectional NVLink GB/s for a GPU model the table does not know (kind nccl).
    type: float
  min_gbs:
    description: Floor in GB/s (kind filesystem).
    type: float
  path:
    description: The mount measured (kind filesystem, for the text).
    type: str
  model:
    description: GPU name as nvidia-smi prints it (kind gpu).
    type: str
"""

EXAMPLES = r"""
- name: Expectations of the reference design
  ansible.builtin.set_fact:
    validate_hardware:
      gpufleet_fabric: "{{ gpufleet_fabric }}"
      gpufleet_hardware: "{{ gpufleet_hardware }}"
      gpufleet_lustre: "{{ gpufleet_lustre | default({}) }}"
      gpufleet_plan_lustre: "{{ gpufleet_plan_lustre | default({}) }}"
      gpu_tuning_profiles: "{{ gpu_tuning_profiles | default({}) }}"
- ansible.builtin.debug:
    msg: "{{ 'nccl' | gpufleet.cluster.validate_expect(hardware=validate_hardware, nodes=8) }}"
  # value 150.0 GB/s: 0.75 x min(450 NVLink, 8 x 200 / 8 = 200 network)
"""

RETURN = r"""
_value:
  description: C(kind), C(applicable), C(value), C(unit), C(compare), C(derivation), C(inputs) (and C(reason) when
    not applicable; C(power_limit_w), C(application_clocks_mhz), C(locked_clocks) for kind gpu).
  type: dict
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import (
    FilterInputError,
    collection_filter,
    of_type,
    one_of,
)

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).

_OPTIONS = {
    "rdma": ("rdma_info", "device", "fraction", "bidirectional"),
    "rdma_lat": (),
    "nccl": ("nodes", "fraction", "nvlink_gbs", "rdma_info"),
    "lustre": ("fraction",),
    "filesystem": ("min_gbs", "path"),
    "gpu": ("model",),
}


@collection_filter("validate_expect", unreadable="the inventory variables",
                   hint="see docs/validate.md for the inventory variables it takes")
def validate_expect(kind, hardware=None, **options):
    """The expectation of one check kind."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.expect import expect
    one_of("input", kind, _OPTIONS)
    of_type("hardware", hardware, dict, "a dict of the inventory variables (gpufleet_fabric, gpufleet_hardware, ...)")
    unknown = sorted(set(options) - set(_OPTIONS[kind]))
    if unknown:
        raise FilterInputError("kind %s takes no option %s (it takes: %s)"
                               % (kind, ", ".join(unknown), ", ".join(_OPTIONS[kind]) or "none"))
    if "nvlink_gbs" in options:
        options["nvlink"] = options.pop("nvlink_gbs")
    return expect(kind, hardware, **options)


class FilterModule:
    def filters(self):
        return {"validate_expect": validate_expect}
