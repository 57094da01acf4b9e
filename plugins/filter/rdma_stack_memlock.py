# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: rdma_stack_memlock
version_added: 0.1.0
short_description: Whether logins and services may lock (pin) as much memory as RDMA needs
description:
  - Works out the effective memlock limits from the pam_limits files and systemd's C(DefaultLimitMEMLOCK), and
    compares each with a minimum in KiB. pam_limits reads C(/etc/security/limits.conf) first, then
    C(limits.d/*.conf) in name order; a later line for the same domain replaces an earlier one; C(*) covers every
    user but root, which only C(root) lines cover; C(-) sets soft and hard. A login without a matching line keeps
    what sshd got from systemd.
  - Returns every check with the file and line that set the value, so a failure names the file to fix.
  - In check mode the common role has not written its limits yet. With O(pending), the checks are those of the node
    once it has (its pam_limits file replaced by its lines, systemd's C(DefaultLimitMEMLOCK) set to its value), and
    what the node has now is returned beside them.
positional: _input, systemd, minimum
options:
  _input:
    description: The limits files, C([{path, content}]) (content as text).
    type: list
    elements: dict
    required: true
  systemd:
    description: C({DefaultLimitMEMLOCK, DefaultLimitMEMLOCKSoft}) as C(systemctl show) prints them (bytes or C(infinity)).
    type: dict
    required: true
  minimum:
    description: The least memlock in KiB, or C(unlimited).
    type: raw
    required: true
  pending:
    description:
      - C({path, memlock_kib}), the memlock limit (KiB or C(unlimited)) the common role writes in this run to its
        pam_limits file at C(path) and to systemd's C(DefaultLimitMEMLOCK), not written yet (check mode).
      - Omitted or C(none), the node as it is.
    type: dict
    required: false
"""

EXAMPLES = r"""
- name: Check memlock
  ansible.builtin.set_fact:
    memlock: >-
      {{ [{'path': '/etc/security/limits.d/90-gpufleet.conf', 'content': '* - memlock 8192\n'}]
         | gpufleet.cluster.rdma_stack_memlock({'DefaultLimitMEMLOCK': '8388608'}, 'unlimited') }}
  # memlock.ok == false; memlock.problems[0] ==
  # "logins soft memlock is 8192 KiB (/etc/security/limits.d/90-gpufleet.conf:1), below rdma_memlock_min_kib unlimited"

- name: Check memlock on a bare node in check mode, after the write the common role would make
  ansible.builtin.set_fact:
    memlock: >-
      {{ [] | gpufleet.cluster.rdma_stack_memlock({'DefaultLimitMEMLOCK': '8388608'}, 'unlimited',
              pending={'path': '/etc/security/limits.d/90-gpufleet.conf', 'memlock_kib': 'unlimited'}) }}
  # memlock.ok == true; memlock.pending.now_ok == false; memlock.pending.now_problems[0] ==
  # "logins soft memlock is 8192 KiB (systemd DefaultLimitMEMLOCK (no pam_limits line)), below rdma_memlock_min_kib unlimited"
"""

RETURN = r"""
_value:
  description:
    - C(ok), C(minimum_kib), C(checks) (C({who, kind, value_kib, source, ok}) for logins, root logins and services,
      soft and hard; C(value_kib) is a number or C(unlimited)), C(problems) (one sentence per failed check) and
      C(pending) (C(none) without O(pending); otherwise C({memlock_kib, path, now_ok, now_problems}), the node as it
      is now).
  type: dict
"""

from collections.abc import Mapping

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, of_type, require

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("rdma_stack_memlock")
def rdma_stack_memlock(files, systemd, minimum, pending=None):
    """Effective memlock limits against a minimum (after the common role's pending write, if any)."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.rdma.stack import memlock_check
    require(isinstance(files, (list, tuple)) and all(
        isinstance(f, Mapping) and isinstance(f.get("path"), str) and isinstance(f.get("content", ""), str)
        for f in files), "input", files, "a list of {path, content} dicts")
    of_type("systemd", systemd, Mapping, "a dict of systemctl show properties")
    if pending is not None:
        of_type("pending", pending, Mapping, "a dict {path, memlock_kib}")
        pending = dict(pending)
    return memlock_check([dict(f) for f in files], dict(systemd), minimum, pending)


class FilterModule:
    def filters(self):
        return {"rdma_stack_memlock": rdma_stack_memlock}
