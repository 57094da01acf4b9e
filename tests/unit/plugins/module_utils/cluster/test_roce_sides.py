# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""cluster/roce_sides.py: the RoCE hosts' sides equal to what roce_switch's per-switch template rendered
(cluster_reference, by Ansible's templar), and each different side once."""
from __future__ import annotations

import pytest
from hypothesis import example, given, settings, strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.cluster.inputs import ClusterDescriptionError
from ansible_collections.gpufleet.cluster.plugins.module_utils.cluster.roce_sides import roce_part
from cluster_reference import ROCE_SIDES, render

VARS = {"priority": "roce_host_priority", "dscp": "roce_host_dscp"}
HOST = st.fixed_dictionaries({}, optional={
    "roce_host_priority": st.sampled_from([3, 4, "3"]),
    "roce_host_dscp": st.sampled_from([[26], [24, 26], "26"]),
    "roce_host_enabled": st.sampled_from([True, False, "yes", "no", "false"]),
    "gpufleet_roce_class": st.sampled_from([{}, {"priority": 5}, {"dscp": [30]}, {"priority": 3, "dscp": [26]}]),
})
HOSTS = st.dictionaries(st.sampled_from(["gpu%02d" % n for n in range(1, 9)]), HOST, max_size=6)


@settings(max_examples=80)
@given(HOSTS)
@example({"gpu01": {"roce_host_priority": 4}, "gpu02": {}, "gpu03": {"roce_host_enabled": False}})
def test_sides_are_what_the_template_rendered(hosts):
    group = list(hosts)
    part = roce_part(hosts, {"hosts": group, "vars": VARS})
    rendered = render(ROCE_SIDES, {"groups": {"gpu_nodes": group}, "roce_switch_host_group": "gpu_nodes",
                                   "roce_switch_host_vars": VARS, "hostvars": hosts})
    assert part["sides"] == rendered
    # Each different side once, first seen first, naming every host that has it.
    order = [side["source"] for side in rendered]
    assert sorted(source for kind in part["distinct"] for source in kind["sources"]) == sorted(order)
    assert all(kind["sources"] == sorted(kind["sources"], key=order.index) for kind in part["distinct"])
    assert [kind["sources"][0] for kind in part["distinct"]] == sorted(
        (kind["sources"][0] for kind in part["distinct"]), key=order.index)
    assert {(repr(kind["priority"]), repr(kind["dscp"])) for kind in part["distinct"]} == {
        (repr(side["priority"]), repr(side["dscp"])) for side in rendered}
    assert len(part["distinct"]) == len({(repr(side["priority"]), repr(side["dscp"])) for side in rendered})


def test_distinct_example():
    hosts = {"gpu01": {}, "gpu02": {"roce_host_priority": 4}, "gpu03": {}, "ib01": {"roce_host_enabled": False}}
    part = roce_part(hosts, {"hosts": list(hosts), "vars": VARS})
    assert part["distinct"] == [{"priority": 3, "dscp": [26], "sources": ["gpu01", "gpu03"]},
                                {"priority": 4, "dscp": [26], "sources": ["gpu02"]}]
    assert part["group"] == list(hosts) and part["vars"] == VARS


@pytest.mark.parametrize("roce, message", [
    ({"hosts": ["gpu01"]}, r"^roce vars must be a mapping \{priority, dscp\}"),
    ({"hosts": ["gpu01"], "vars": {"priority": "p"}}, r"^roce vars must name the host variables of priority and dscp"),
    ({"hosts": ["gpu01"], "vars": dict(VARS, pcp="x")}, r"^roce vars has unknown key\(s\) 'pcp'"),
    ({"hosts": ["gpu01"], "vars": VARS, "group": "x"}, r"^roce has unknown key\(s\) 'group'"),
])
def test_refusals(roce, message):
    with pytest.raises(ClusterDescriptionError, match=message):
        roce_part({"gpu01": {}}, roce)
