# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The filter gpufleet.cluster.cluster_plan_inputs: the inputs of the plan from the inventory, as plan.yml reads
them; plain data out, argument errors, names that become paths and missing keys refused (issue 13)."""
from __future__ import annotations

import copy
from collections import OrderedDict

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import cluster_plan_inputs as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.cluster_plan_inputs import cluster_plan_inputs

# Two 2300 W nodes in one rack, 2 PSUs each, PF 1.0.
from duo_plan import GROUPS, INVENTORY, with_node_type_name  # noqa: E402
from filter_docs import assert_documented

TRAVERSAL = "../../../etc/cron.d/x"


def test_lazy_mappings_and_subtypes_become_plain_data():
    class Tagged(str):
        pass

    inventory = OrderedDict(copy.deepcopy(INVENTORY))
    inventory["gpufleet_cluster_name"] = Tagged("duo")
    inputs = cluster_plan_inputs(inventory, OrderedDict(GROUPS), hostvars=None)
    assert isinstance(inputs["name"], str) and inputs["name"].__class__ is str
    assert inputs["node_types"][0]["hardware"] == {}
    yaml.safe_dump(inputs)  # plain data only: safe_dump refuses anything else


@pytest.mark.parametrize("args, kwargs, message", [
    (([], GROUPS), {}, r"input must be a dict of the inventory's gpufleet_\* variables, got \[\] of type list$"),
    ((INVENTORY, ["n1"]), {}, r"groups must be the 'groups' magic variable \(a dict\), got \['n1'\] of type list$"),
    ((INVENTORY, GROUPS, "n1"), {}, r"hostvars must be the 'hostvars' magic variable"),
    ((INVENTORY, GROUPS), {"pdus": "spare"}, r"pdus must be one of planned, as_built, got 'spare'"),
    ((INVENTORY, GROUPS), {"pdus": "as_built"}, r"pdus as_built lays the racks out on "
                                                r"gpufleet_plan_power\.as_built\.pdu, which is not set"),
    (({k: v for k, v in INVENTORY.items() if k != "gpufleet_lustre"}, GROUPS), {}, r"inventory\.gpufleet_lustre is "
                                                                                   r"missing"),
])
def test_inputs_errors(args, kwargs, message):
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.cluster_plan_inputs: " + message):
        cluster_plan_inputs(*args, **kwargs)


def test_registered_and_documented():
    assert_documented(plugin, "cluster_plan_inputs")


# ---------------------------------------------------------------- issue 13: names that become paths, missing keys
def test_node_type_named_like_a_path_is_refused():
    with pytest.raises(AnsibleFilterError) as err:
        cluster_plan_inputs(with_node_type_name(TRAVERSAL), GROUPS)
    text = str(err.value)
    assert text.startswith("gpufleet.cluster.cluster_plan_inputs: gpufleet_plan_node_types[0].name")
    assert repr(TRAVERSAL) in text or TRAVERSAL in text


@pytest.mark.parametrize("path, key", [
    (("gpufleet_plan_node_types", 0, "group"), "group"),
    (("gpufleet_plan_node_types", 0, "power"), "power"),
    (("gpufleet_plan_node_types", 0, "power", "psus"), "psus"),
    (("gpufleet_plan_power", "racks", 0, "name"), "name"),
    (("gpufleet_plan_power", "feeds"), "feeds"),
    (("gpufleet_lustre", "osts"), "osts"),
])
def test_missing_keys_are_named(path, key):
    bad = copy.deepcopy(INVENTORY)
    where = bad
    for part in path[:-1]:
        where = where[part]
    del where[path[-1]]
    with pytest.raises(AnsibleFilterError) as err:
        cluster_plan_inputs(bad, GROUPS)
    assert str(err.value).startswith("gpufleet.cluster.cluster_plan_inputs: ") and key in str(err.value)
