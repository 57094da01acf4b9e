# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The roce_qos_check filter: the lossless class with its DSCP, priority and queue maps, errors under the filter's
name, values refused (issue 13), wrong types."""
from __future__ import annotations

import copy

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import roce_qos_check as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.roce_qos_check import roce_qos_check
from filter_docs import assert_documented
from filter_refusals import refused_with
from roce_inputs import HOST, PORTS, REFUSED, ROCE_CLASS, ROCE_HEADROOM, SONIC, lossless_class
from wrong_types import assert_only_refusals


def test_registered_and_documented():
    assert_documented(plugin, "roce_qos_check")


def test_qos_check_result():
    result = roce_qos_check(lossless_class(["swp1"]), host=HOST, platform="nvue")
    assert result["lossless_class"]["ecn"] == {"min_threshold_bytes": 150000, "max_threshold_bytes": 1500000,
                                               "probability_percent": 100}
    assert len(result["dscp_to_priority"]) == 64 and result["dscp_to_priority"][26] == 3
    assert sum(result["dscp_to_priority"]) == 3  # every other DSCP is on priority 0
    assert result["priority_to_queue"] == list(range(8))
    assert (result["pfc_priorities"], result["ecn_queues"]) == ([3], [3])


@pytest.mark.parametrize("args, kwargs, match", [
    ([None], {}, r"^gpufleet\.cluster\.roce_qos_check: input must be a mapping"),
    ([SONIC], {"platform": "ios"}, r"^gpufleet\.cluster\.roce_qos_check: platform must be one of"),
    ([SONIC], {"host": {"priority": 3, "dscp": [24]}},
     r"^gpufleet\.cluster\.roce_qos_check: host DSCP \[24\] / switch DSCP \[26\]"),
    ([dict(SONIC, dscp=[26, 26])], {}, r"roce_qos_check: dscp lists DSCP 26 twice"),
    ([SONIC], {"platform": "sonic"}, r"roce_qos_check: sonic: headroom is required"),
])
def test_qos_check_errors(args, kwargs, match):
    with pytest.raises(AnsibleFilterError, match=match):
        roce_qos_check(*args, **kwargs)


# ---------------------------------------------------------------- issue 13: refused naming field, value and rule
@pytest.mark.parametrize("description, parts", REFUSED)
def test_roce_values_refused(description, parts):
    refused_with(lambda: roce_qos_check(description), *parts)


def test_roce_host_side_values_refused():
    refused_with(lambda: roce_qos_check({"ports": PORTS}, host={"priority": 3, "dscp": [99]}),
                 "host.dscp[0] 99 is outside 0..63")
    refused_with(lambda: roce_qos_check({"ports": PORTS}, host={"priority": "3", "dscp": [26]}),
                 "host.priority must be an integer in 0..7, got '3'")


# ------------------------------------------------------------------ wrong types: refused by a check, nothing else
VALID = [ROCE_CLASS]
VALID_KWARGS = {"host": {"priority": 3, "dscp": [26]}, "headroom": ROCE_HEADROOM, "platform": "sonic"}


def test_valid_call_works():
    assert roce_qos_check(*copy.deepcopy(VALID), **copy.deepcopy(VALID_KWARGS)) is not None


def test_wrong_types_and_missing_keys_are_refused():
    assert_only_refusals('roce_qos_check', roce_qos_check, VALID, VALID_KWARGS)
