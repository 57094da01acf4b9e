# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The rdma_stack_memlock filter: the effective memlock limits against a minimum, errors under the filter's
name, wrong types."""
from __future__ import annotations

import copy

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import rdma_stack_memlock as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.rdma_stack_memlock import rdma_stack_memlock
from filter_docs import assert_documented
from wrong_types import assert_only_refusals


def test_registered_and_documented():
    assert_documented(plugin, "rdma_stack_memlock")


def test_memlock_filter_takes_a_number_given_as_text():
    out = rdma_stack_memlock([], {"DefaultLimitMEMLOCK": "8388608"}, "8192")
    assert out["ok"] and out["minimum_kib"] == 8192
    with pytest.raises(AnsibleFilterError, match="^gpufleet.cluster.rdma_stack_memlock: systemctl show"):
        rdma_stack_memlock([], {"DefaultLimitMEMLOCK": "8M"}, 8192)
    with pytest.raises(AnsibleFilterError, match=r"list of \{path, content\}"):
        rdma_stack_memlock([{"content": ""}], {}, 8192)


def test_memlock_filter_checks_after_the_pending_write_of_the_common_role():
    pending = {"path": "/etc/security/limits.d/90-gpufleet.conf", "memlock_kib": "unlimited"}
    out = rdma_stack_memlock([], {"DefaultLimitMEMLOCK": "8388608"}, "unlimited", pending=pending)
    assert out["ok"] and out["pending"]["memlock_kib"] == "unlimited" and not out["pending"]["now_ok"]
    assert out["pending"]["now_problems"][0] == ("logins soft memlock is 8192 KiB (systemd DefaultLimitMEMLOCK (no "
                                                 "pam_limits line)), below rdma_memlock_min_kib unlimited")
    assert rdma_stack_memlock([], {"DefaultLimitMEMLOCK": "8388608"}, "unlimited")["pending"] is None
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.rdma_stack_memlock: pending must be a dict"):
        rdma_stack_memlock([], {"DefaultLimitMEMLOCK": "8388608"}, 8192, pending="unlimited")
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.rdma_stack_memlock: common_memlock_kib must be"):
        rdma_stack_memlock([], {"DefaultLimitMEMLOCK": "8388608"}, 8192, pending=dict(pending, memlock_kib=-1))


# ------------------------------------------------------------------ wrong types: refused by a check, nothing else
VALID = [[{"path": "/etc/security/limits.conf", "content": "* - memlock 8192\n"}]]
VALID_KWARGS = {"systemd": {"DefaultLimitMEMLOCK": "8388608"}, "minimum": "unlimited"}


def test_valid_call_works():
    assert rdma_stack_memlock(*copy.deepcopy(VALID), **copy.deepcopy(VALID_KWARGS)) is not None


def test_wrong_types_and_missing_keys_are_refused():
    assert_only_refusals('rdma_stack_memlock', rdma_stack_memlock, VALID, VALID_KWARGS)
