# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The filter gpufleet.cluster.pdu_layout: a thin wrapper; the layout, no layout, errors, documentation."""
from __future__ import annotations

import json

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import pdu_layout as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.pdu_check import pdu_check
from ansible_collections.gpufleet.cluster.plugins.filter.pdu_layout import pdu_layout
from filter_docs import assert_documented
from pdu_inputs import power


class TestPduLayout:
    def test_layout(self):
        # 2800 W per PSU after a feed loss = 12.762 A at 230.94 V; two per breaker (25.525 A of 25.6 A):
        # 4 PSUs per feed -> 2 breakers per feed, on L1 and L2 (least-loaded line first).
        result = pdu_layout(power())
        assert json.loads(json.dumps(result)) == result  # plain JSON-able data
        assert len(result["placements"]) == 8
        assert result["placements"][0] == {"node": "gpu01", "psu": 1, "pdu": "pa", "circuit": "cb0"}
        assert result["summary"]["circuits_used"] == 4
        assert result["summary"]["worst_utilisation"] == 0.9971
        used = [c for c in result["circuits"] if c["used"] and c["feed"] == "A"]
        assert [(c["circuit"], c["phase"], c["worst_a"]) for c in used] == [
            ("cb0", "L1", 25.525), ("cb1", "L2", 25.525)]
        assert pdu_check(power(), result)["ok"] is True

    def test_no_layout(self):
        # Only one breaker per feed: 2 of the 4 PSUs per feed are left over, 2 x 2800 W = 5600 W missing,
        # 5600 / (230.94 x 0.95) = 25.52 A.
        with pytest.raises(AnsibleFilterError) as info:
            pdu_layout(power(circuits=1))
        message = str(info.value)
        assert message.startswith("gpufleet.cluster.pdu_layout: no layout exists: rack 'r01' is out of circuits on "
                                  "feed A")
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
        data = power()
        data["pdus"][0]["circuits"][0]["phase"] = "L1-N"
        with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.pdu_layout: pdu 'pa' circuit 'cb0': phase "
                                                     r"'L1-N'"):
            pdu_layout(data)

    def test_filter_module(self):
        assert plugin.FilterModule().filters() == {"pdu_layout": pdu_layout}


def test_registered_and_documented():
    doc = assert_documented(plugin, "pdu_layout")
    assert doc["options"]["_input"]["type"] == "dict"
    assert isinstance(yaml.safe_load(plugin.EXAMPLES), list)
