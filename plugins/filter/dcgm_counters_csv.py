# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: dcgm_counters_csv
version_added: 0.1.0
short_description: dcgm-exporter's counters CSV from a metric list and its extension, every entry checked
description:
  - Checks every entry of the metric list and of the extra list, then renders the file dcgm-exporter reads with
    C(-f) (its C(default-counters.csv) format) - a C(# Format) header, then one C(DCGM_FI_..., type, help) line
    per metric, names padded so the types line up.
  - An entry is C({name, type, help}). C(name) must match C(^DCGM_FI_[A-Z0-9_]+$); C(type) is C(gauge),
    C(counter) or C(label); C(help) is a non-empty text without commas, double quotes or line breaks (dcgm-exporter
    reads the file with Go's CSV reader, three fields a line). A field named twice (in either list) is refused.
  - "Errors name the list, the index and the metric, for example
    C(dcgm_exporter_extra_metrics[1] (DCGM_FI_DEV_X): type 'histogram' must be one of gauge, counter, label)."
positional: _input, extra, metrics_name, extra_name
options:
  _input:
    description: The metric list (the role's C(dcgm_exporter_metrics)).
    type: list
    elements: dict
    required: true
  extra:
    description: Metrics added after the list (the role's C(dcgm_exporter_extra_metrics)).
    type: list
    elements: dict
    default: []
  metrics_name:
    description: What the first list is called in error messages and in the file's section comment.
    type: str
    default: metrics
  extra_name:
    description: What the second list is called in error messages and in the file's section comment.
    type: str
    default: extra
"""

EXAMPLES = r"""
- name: Write the exporter's counters file
  ansible.builtin.copy:
    dest: /etc/dcgm-exporter/gpufleet-counters.csv
    content: >-
      {{ (dcgm_exporter_metrics | gpufleet.cluster.dcgm_counters_csv(dcgm_exporter_extra_metrics,
          'dcgm_exporter_metrics', 'dcgm_exporter_extra_metrics')).content }}
  # # Format
  # # Lines starting with '#' are comments.
  # # DCGM FIELD, Prometheus metric type, help message
  #
  # # dcgm_exporter_metrics
  # DCGM_FI_DEV_GPU_UTIL,   gauge,   GPU utilisation (in %).
  # DCGM_FI_PROF_SM_ACTIVE, gauge,   Ratio of cycles an SM has at least one warp assigned.
  #
  # # dcgm_exporter_extra_metrics
  # DCGM_FI_DEV_FAN_SPEED,  gauge,   Fan speed (in %).
"""

RETURN = r"""
_value:
  description: The rendered file and what it holds.
  type: dict
  contains:
    content:
      description: The CSV text, ending in a newline.
      type: str
    names:
      description: The field names in file order.
      type: list
      elements: str
    count:
      description: How many metrics the file has.
      type: int
    profiling:
      description: The DCP (profiling) fields, C(DCGM_FI_PROF_*); they need a datacenter GPU and the profiling module.
      type: list
      elements: str
    labels:
      description: The fields of type C(label).
      type: list
      elements: str
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, of_type, require

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("dcgm_counters_csv", unreadable="the metric entries",
                   hint="each is {name: DCGM_FI_..., type: gauge|counter|label, help: text}")
def dcgm_counters_csv(metrics, extra=None, metrics_name="metrics", extra_name="extra"):
    """The counters CSV of `metrics` + `extra`, every entry checked."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.gpu.dcgm_counters import counters_csv
    extra = [] if extra is None else extra
    for what, value in (("input", metrics), ("extra", extra)):
        of_type(what, value, list, "a list of {name, type, help} entries")
    for what, value in (("metrics_name", metrics_name), ("extra_name", extra_name)):
        require(isinstance(value, str) and value, what, value, "a non-empty string")
    return counters_csv(metrics, extra, metrics_name, extra_name)


class FilterModule:
    def filters(self):
        return {"dcgm_counters_csv": dcgm_counters_csv}
