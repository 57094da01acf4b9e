# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The filter gpufleet.cluster.pdu_check: a thin wrapper; overloads found, errors, documentation."""
from __future__ import annotations

import json

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import pdu_check as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.pdu_check import pdu_check
from ansible_collections.gpufleet.cluster.plugins.filter.pdu_layout import pdu_layout
from filter_docs import assert_documented
from pdu_inputs import power


class TestPduCheck:
    def test_overloaded_assignment(self):
        # All four PSUs of both nodes on cb0 of each PDU: 2 x 2800 W = 5600 W -> 25.525 A normally (ok),
        # 11200 W = 51.050 A after the other feed is lost.
        assignment = [{"node": n, "psu": psu, "pdu": "pa" if psu <= 2 else "pb", "circuit": "cb0"}
                      for n in ("gpu01", "gpu02") for psu in range(1, 5)]
        result = pdu_check(power(), assignment)
        assert result["ok"] is False
        over = [v for v in result["violations"] if v["type"] == "overload" and v["scenario"].startswith("feed")]
        assert [(v["pdu"], v["scenario"], v["amps"], v["watts"], v["limit_a"]) for v in over] == [
            ("pb", "feed A lost", 51.05, 11200.0, 25.6), ("pa", "feed B lost", 51.05, 11200.0, 25.6)]
        assert json.loads(json.dumps(result)) == result

    def test_assignment_in_input(self):
        data = power()
        data["assignment"] = pdu_layout(power())["placements"]
        assert pdu_check(data)["ok"] is True

    @pytest.mark.parametrize("assignment, words", [
        ("gpu01:pa", "assignment must be a list of {node, psu, pdu, circuit} dicts, got 'gpu01:pa' of type str"),
        ([{"node": "gpu01"}], "entry #1 must be a dict with keys node, psu, pdu, circuit"),
        (None, "no assignment given"),
    ])
    def test_bad_assignment(self, assignment, words):
        with pytest.raises(AnsibleFilterError) as info:
            pdu_check(power(), assignment)
        assert str(info.value).startswith("gpufleet.cluster.pdu_check: ")
        assert words in str(info.value)

    def test_bad_input(self):
        with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.pdu_check: input must be a dict"):
            pdu_check(["nodes"], [])
        with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.pdu_check: power input: 'derating'=0 is out "
                                                     r"of range"):
            pdu_check(dict(power(), derating=0), [])

    def test_filter_module(self):
        assert plugin.FilterModule().filters() == {"pdu_check": pdu_check}


def test_registered_and_documented():
    doc = assert_documented(plugin, "pdu_check")
    assert doc["options"]["_input"]["type"] == "dict"
    assert isinstance(yaml.safe_load(plugin.EXAMPLES), list)
