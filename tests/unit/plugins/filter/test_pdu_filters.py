# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Filters gpufleet.cluster.pdu_layout and gpufleet.cluster.pdu_check: thin wrappers, errors, docs."""

from __future__ import annotations

import json

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import pdu_check as check_plugin
from ansible_collections.gpufleet.cluster.plugins.filter import pdu_layout as layout_plugin
from ansible_collections.gpufleet.cluster.plugins.filter.pdu_check import pdu_check
from ansible_collections.gpufleet.cluster.plugins.filter.pdu_layout import pdu_layout


def _power(circuits=3):
    """Two 5.6 kW nodes (4 PSUs, 2 required) on 400 V wye PDUs, feed A and B."""
    pdu = {"rack": "r01", "voltage": 400, "phases": 3, "wiring": "wye",
           "circuits": [{"name": "cb%d" % i, "rating_a": 32, "phase": "L%d" % (i % 3 + 1)} for i in range(circuits)]}
    return {
        "nodes": [{"name": "gpu%02d" % i, "rack": "r01", "max_power_w": 5600, "psus": 4, "psus_required": 2} for i in (1, 2)],
        "pdus": [dict(pdu, name="pa", feed="A"), dict(pdu, name="pb", feed="B")],
    }


class TestPduLayout:
    def test_layout(self):
        # 2800 W per PSU after a feed loss = 12.762 A at 230.94 V; two per breaker (25.525 A of 25.6 A):
        # 4 PSUs per feed -> 2 breakers per feed, on L1 and L2 (least-loaded line first).
        result = pdu_layout(_power())
        assert json.loads(json.dumps(result)) == result  # plain JSON-able data
        assert len(result["placements"]) == 8
        assert result["placements"][0] == {"node": "gpu01", "psu": 1, "pdu": "pa", "circuit": "cb0"}
        assert result["summary"]["circuits_used"] == 4
        assert result["summary"]["worst_utilisation"] == 0.9971
        used = [c for c in result["circuits"] if c["used"] and c["feed"] == "A"]
        assert [(c["circuit"], c["phase"], c["worst_a"]) for c in used] == [("cb0", "L1", 25.525), ("cb1", "L2", 25.525)]
        assert pdu_check(_power(), result)["ok"] is True

    def test_no_layout(self):
        # Only one breaker per feed: 2 of the 4 PSUs per feed are left over, 2 x 2800 W = 5600 W missing,
        # 5600 / (230.94 x 0.95) = 25.52 A.
        with pytest.raises(AnsibleFilterError) as info:
            pdu_layout(_power(circuits=1))
        message = str(info.value)
        assert message.startswith("gpufleet.cluster.pdu_layout: no layout exists: rack 'r01' is out of circuits on feed A")
        assert "missing 5600.0 W worst case (25.52 A at 230.9 V)" in message

    @pytest.mark.parametrize("bad, words", [
        ([], "input must be a dict with 'nodes' and 'pdus', got [] of type list"),
        ("power", "got 'power' of type str"),
        ({"nodes": [], "pdus": []}, "'nodes' must be a non-empty list"),
    ])
    def test_bad_input(self, bad, words):
        with pytest.raises(AnsibleFilterError) as info:
            pdu_layout(bad)
        assert str(info.value).startswith("gpufleet.cluster.pdu_layout: ")
        assert words in str(info.value)

    def test_bad_circuit(self):
        data = _power()
        data["pdus"][0]["circuits"][0]["phase"] = "L1-N"
        with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.pdu_layout: pdu 'pa' circuit 'cb0': phase 'L1-N'"):
            pdu_layout(data)

    def test_filter_module(self):
        assert layout_plugin.FilterModule().filters() == {"pdu_layout": pdu_layout}


class TestPduCheck:
    def test_overloaded_assignment(self):
        # All four PSUs of both nodes on cb0 of each PDU: 2 x 2800 W = 5600 W -> 25.525 A normally (ok),
        # 11200 W = 51.050 A after the other feed is lost.
        assignment = [{"node": n, "psu": psu, "pdu": "pa" if psu <= 2 else "pb", "circuit": "cb0"}
                      for n in ("gpu01", "gpu02") for psu in range(1, 5)]
        result = pdu_check(_power(), assignment)
        assert result["ok"] is False
        over = [v for v in result["violations"] if v["type"] == "overload" and v["scenario"].startswith("feed")]
        assert [(v["pdu"], v["scenario"], v["amps"], v["watts"], v["limit_a"]) for v in over] == [
            ("pb", "feed A lost", 51.05, 11200.0, 25.6), ("pa", "feed B lost", 51.05, 11200.0, 25.6)]
        assert json.loads(json.dumps(result)) == result

    def test_assignment_in_input(self):
        data = _power()
        data["assignment"] = pdu_layout(_power())["placements"]
        assert pdu_check(data)["ok"] is True

    @pytest.mark.parametrize("assignment, words", [
        ("gpu01:pa", "assignment must be a list of {node, psu, pdu, circuit} dicts, got 'gpu01:pa' of type str"),
        ([{"node": "gpu01"}], "entry #1 must be a dict with keys node, psu, pdu, circuit"),
        (None, "no assignment given"),
    ])
    def test_bad_assignment(self, assignment, words):
        with pytest.raises(AnsibleFilterError) as info:
            pdu_check(_power(), assignment)
        assert str(info.value).startswith("gpufleet.cluster.pdu_check: ")
        assert words in str(info.value)

    def test_bad_input(self):
        with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.pdu_check: input must be a dict"):
            pdu_check(["nodes"], [])
        with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.pdu_check: power input: 'derating'=0 is out of range"):
            pdu_check(dict(_power(), derating=0), [])

    def test_filter_module(self):
        assert check_plugin.FilterModule().filters() == {"pdu_check": pdu_check}


@pytest.mark.parametrize("plugin, name", [(layout_plugin, "pdu_layout"), (check_plugin, "pdu_check")])
def test_documentation_is_valid_yaml(plugin, name):
    doc = yaml.safe_load(plugin.DOCUMENTATION)
    assert doc["name"] == name and doc["version_added"] == "0.1.0"
    assert doc["options"]["_input"] == {**doc["options"]["_input"], "type": "dict", "required": True}
    assert doc["positional"].startswith("_input")
    assert isinstance(yaml.safe_load(plugin.EXAMPLES), list)
    assert "_value" in yaml.safe_load(plugin.RETURN)
