# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The rdma_stack_conflicts filter: the installed stacks other than the wanted one, errors under the filter's
name, wrong types."""
from __future__ import annotations

import copy

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import rdma_stack_conflicts as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.rdma_stack_conflicts import rdma_stack_conflicts
from filter_docs import assert_documented
from wrong_types import assert_only_refusals


def test_registered_and_documented():
    assert_documented(plugin, "rdma_stack_conflicts")


def test_conflicts_filter():
    out = rdma_stack_conflicts({"rdma-core": "44.0-2"}, "mlnx_ofed")
    assert out["packages"] == ["rdma-core=44.0-2"]
    with pytest.raises(AnsibleFilterError, match="^gpufleet.cluster.rdma_stack_conflicts: rdma_stack 'rxe'"):
        rdma_stack_conflicts({}, "rxe")
    with pytest.raises(AnsibleFilterError, match="package name to version"):
        rdma_stack_conflicts({"rdma-core": 44}, "inbox")


# ------------------------------------------------------------------ wrong types: refused by a check, nothing else
VALID = [{"rdma-core": "44.0-2", "doca-ofed": "3.2.1"}]
VALID_KWARGS = {"stack": "doca"}


def test_valid_call_works():
    assert rdma_stack_conflicts(*copy.deepcopy(VALID), **copy.deepcopy(VALID_KWARGS)) is not None


def test_wrong_types_and_missing_keys_are_refused():
    assert_only_refusals('rdma_stack_conflicts', rdma_stack_conflicts, VALID, VALID_KWARGS)
