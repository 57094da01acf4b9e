# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: validate_report
version_added: 0.1.0
short_description: The validation report, as JSON and as a self-contained HTML page
description:
  - Combines check results C({check, node or nodes, status, measured, expected, unit, detail, derivation}) into one
    report (schema C(gpufleet.validate/v1), docs/validate.md). C(status) may be left out when C(expected) is a
    C(validate_expect) result; it is then judged (not applicable, error without a measurement, pass or fail).
  - The report fails when any result is C(fail) or C(error). Nodes named alone by a failing result are listed in
    C(drain) with a Slurm reason (one line, no double quotes, at most 249 characters).
  - The output is deterministic (sorted); give O(generated) to stamp it.
positional: _input
options:
  _input:
    description: The check results.
    type: list
    elements: dict
    required: true
  cluster:
    description: Cluster name for the title.
    type: str
  generated:
    description: Time stamp text shown in the report (for example C(ansible_date_time.iso8601)).
    type: str
  title:
    description: Page title.
    type: str
"""

EXAMPLES = r"""
- name: Write both reports
  vars:
    validate_out: "{{ validate_results | gpufleet.cluster.validate_report(cluster=gpufleet_cluster_name,
                      generated=ansible_date_time.iso8601) }}"
  block:
    - ansible.builtin.copy: {content: "{{ validate_out.json }}", dest: /var/tmp/validate.json, mode: "0644"}
    - ansible.builtin.copy: {content: "{{ validate_out.html }}", dest: /var/tmp/validate.html, mode: "0644"}
    - ansible.builtin.fail: {msg: "validation failed: see /var/tmp/validate.html"}
      when: validate_out.failed
"""

RETURN = r"""
_value:
  description: C(json) (text), C(html) (text), C(failed) (bool), C(drain) (list of node, reason, checks) and
    C(report) (the JSON document as data).
  type: dict
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, of_type

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("validate_report", unreadable="the check results")
def validate_report(results, cluster=None, generated=None, title=None):
    """{json, html, failed, drain, report} of the check results."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.report import report
    of_type("input", results, list, "a list of check results")
    for name, value in (("cluster", cluster), ("generated", generated), ("title", title)):
        of_type(name, value, str, "text", optional=True)
    return report(list(results), cluster=cluster, generated=generated, title=title)


class FilterModule:
    def filters(self):
        return {"validate_report": validate_report}
