# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The cluster_description_entry filter: registered and documented, a fresh and a stale entry, errors under the
filter's name, wrong types refused by a check."""
from __future__ import annotations

import pytest

from ansible_collections.gpufleet.cluster.plugins.filter import cluster_description_entry as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.cluster_description import cluster_description
from ansible_collections.gpufleet.cluster.plugins.filter.cluster_description_entry import cluster_description_entry
from filter_docs import assert_documented
from filter_refusals import refused
from wrong_types import assert_only_refusals

DESCRIPTION = cluster_description({"hosts": {"head": {"gpufleet_ip": "10.0.0.1"}, "gpu01": {"gpufleet_ip": "10.0.0.11"}},
                                   "hosts_group": ["head", "gpu01"], "domain": ""})
OWN = {"variables": {"gpufleet_ip": "10.0.0.11"}, "member": {"hosts": True}}


def test_registered_and_documented():
    assert_documented(plugin, "cluster_description_entry", options_are_arguments=True)


def test_fresh_and_stale():
    assert cluster_description_entry(DESCRIPTION, "gpu01", OWN) == []
    stale = cluster_description_entry(DESCRIPTION, "gpu01", dict(OWN, variables={"gpufleet_ip": "10.0.0.12"}))
    assert len(stale) == 1 and "its address is '10.0.0.11' in the description, '10.0.0.12'" in stale[0]
    assert "is not defined" in cluster_description_entry(None, "gpu01", OWN)[0]


@pytest.mark.parametrize("args, message", [
    ((DESCRIPTION, "gpu01", "own"), r"^gpufleet\.cluster\.cluster_description_entry: own must be a mapping"),
    ((DESCRIPTION, 3, OWN), r"^gpufleet\.cluster\.cluster_description_entry: the host must be the node's inventory"),
    ((DESCRIPTION, "gpu01", {"member": {"x": 1}}),
     r"^gpufleet\.cluster\.cluster_description_entry: own member has unknown key"),
])
def test_refused_under_the_filter_name(args, message):
    refused(message, cluster_description_entry, *args)


def test_wrong_types_are_refused_not_crashes():
    assert_only_refusals("cluster_description_entry", cluster_description_entry, [DESCRIPTION, "gpu01", OWN])
