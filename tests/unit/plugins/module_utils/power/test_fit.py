# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""rack_power_fit: hand-worked racks, refusals, and hypothesis properties (the cap and max_nodes to the watt)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from ansible.errors import AnsibleFilterError
from hypothesis import given, settings
from hypothesis import strategies as st

from nasty_input import hostile_numbers
from ansible_collections.gpufleet.cluster.plugins.filter.rack_power_fit import rack_power_fit as fit_filter
from ansible_collections.gpufleet.cluster.plugins.module_utils.power.fit import (
    PowerFitError, capped_node_w, parse_fit_input, rack_power_fit, way_out)

H100 = {"max_power_w": 10200, "gpus": 8, "gpu_power_w": 700, "gpu_min_power_w": 200}
LOADS = [{"name": "leaf1", "max_power_w": 650}, {"name": "leaf2", "max_power_w": 650},
         {"name": "spine1", "max_power_w": 650}, {"name": "slurm-head", "max_power_w": 800}]


def rack(count, budget=60000, loads=None, node=None, name="r01"):
    node = H100 if node is None else node
    return {"name": name, "budget_w": budget, "nodes": [dict(node, name="compute%02d" % (i + 1)) for i in range(count)],
            "loads": LOADS if loads is None else loads}


def test_reference_rack_of_eight_h100_nodes_does_not_fit():
    # draw: 8 x 10200 + 3 x 650 + 800 = 81600 + 2750 = 84350 W; 24350 W over 60000.
    # max_nodes: floor((60000 - 2750) / 10200) = floor(5.61) = 5.
    # cap: (60000 - 2750 - 8 x (10200 - 5600)) / 64 = (57250 - 36800) / 64 = 20450 / 64 = 319.53 -> 319 W.
    assert rack_power_fit({"racks": [rack(8)]}) == [
        {"name": "r01", "draw_w": 84350, "budget_w": 60000, "fits": False, "over_w": 24350, "max_nodes": 5, "gpu_power_cap_w": 319}]


def test_capped_draw_at_319_fits_and_at_320_does_not():
    node = dict(H100, name="n")
    assert capped_node_w(node, 319) == 10200 - 8 * (700 - 319) == 7152
    assert 8 * 7152 + 2750 == 59966 <= 60000
    assert 8 * capped_node_w(node, 320) + 2750 == 60030 > 60000


def test_four_nodes_fit_without_a_cap():
    # 4 x 10200 + 2750 = 43550 W <= 60000: fits, no cap, all four nodes fit.
    assert rack_power_fit({"racks": [rack(4)]}) == [
        {"name": "r01", "draw_w": 43550, "budget_w": 60000, "fits": True, "over_w": 0, "max_nodes": 4, "gpu_power_cap_w": None}]


def test_exactly_at_budget_fits():
    assert rack_power_fit({"racks": [rack(2, budget=20400, loads=[])]})[0]["fits"] is True
    assert rack_power_fit({"racks": [rack(2, budget=20399, loads=[])]})[0] == {
        "name": "r01", "draw_w": 20400, "budget_w": 20399, "fits": False, "over_w": 1, "max_nodes": 1,
        "gpu_power_cap_w": 699}


def test_cap_below_the_gpus_minimum_is_null():
    # 8 nodes in 40 kW with no loads: (40000 - 36800) / 64 = 50 W < 200 W minimum: no cap, only fewer nodes.
    result = rack_power_fit({"racks": [rack(8, budget=40000, loads=[])]})[0]
    assert result["gpu_power_cap_w"] is None and result["max_nodes"] == 3 and result["over_w"] == 41600
    # exactly at the minimum is a cap: (x - 36800) / 64 = 200 -> x = 49600
    assert rack_power_fit({"racks": [rack(8, budget=49600, loads=[])]})[0]["gpu_power_cap_w"] == 200


def test_loads_alone_over_budget_and_empty_rack():
    assert rack_power_fit({"racks": [rack(2, budget=2000)]})[0]["max_nodes"] == 0
    empty = rack_power_fit({"racks": [rack(0, budget=3000)]})[0]
    assert empty == {"name": "r01", "draw_w": 2750, "budget_w": 3000, "fits": True, "over_w": 0, "max_nodes": 0,
                     "gpu_power_cap_w": None}
    no_gpus = rack_power_fit({"racks": [rack(3, budget=1000, loads=[], node={"max_power_w": 800, "gpus": 0})]})[0]
    assert no_gpus["gpu_power_cap_w"] is None and no_gpus["max_nodes"] == 1


def test_way_out_names_racks_and_cap():
    fit = rack_power_fit({"racks": [rack(8)]})[0]
    message = way_out(fit, 8, cap_chosen=False)
    assert "84350 W" in message and "24350 W over" in message and "2 racks of this budget (5 nodes each)" in message
    assert "gpufleet_power_cap: rack_budget" in message and "319 W" in message
    assert way_out(fit, 8, cap_chosen=True) is None
    assert way_out(rack_power_fit({"racks": [rack(4)]})[0], 4, cap_chosen=False) is None


@pytest.mark.parametrize("data, words", [
    ({}, "racks"),
    ({"racks": []}, "non-empty"),
    ({"racks": [{"name": "r", "nodes": []}]}, "budget_w is required"),
    ({"racks": [{"name": "r", "budget_w": float("nan")}]}, "finite"),
    ({"racks": [{"name": "r", "budget_w": -1}]}, "out of range"),
    ({"racks": [{"name": "r", "budget_w": "60000"}]}, "number"),
    ({"racks": [{"budget_w": 1}]}, "'name'"),
    ({"racks": [{"name": "r\n", "budget_w": 1}]}, "name"),
    ({"racks": [{"name": "r", "budget_w": 1, "nodes": [{"name": "n", "max_power_w": 10, "gpus": "eight"}]}]}, "gpus"),
    ({"racks": [{"name": "r", "budget_w": 1, "nodes": [dict(H100, name="n", max_power_w=5000)]}]}, "whole node"),
    ({"racks": [{"name": "r", "budget_w": 1, "nodes": [dict(H100, name="n", gpu_min_power_w=800)]}]}, "gpu_min_power_w"),
    ({"racks": [{"name": "r", "budget_w": 1, "nodes": [dict(H100, name="a"), dict(H100, name="b", max_power_w=11000)]}]},
     "one node type"),
    ({"racks": [{"name": "r", "budget_w": 1, "loads": [{"name": "x"}]}]}, "max_power_w is required"),
    ({"racks": [{"name": "r", "budget_w": 1, "colour": 1}]}, "unknown key"),
    ({"racks": [{"name": "r", "budget_w": 1}, {"name": "r", "budget_w": 1}]}, "twice"),
    ({"racks": "r01"}, "list"),
])
def test_bad_input_is_refused_by_the_filter(data, words):
    with pytest.raises(AnsibleFilterError) as err:
        fit_filter(data)
    assert "gpufleet.cluster.rack_power_fit" in str(err.value) and words in str(err.value)


@pytest.mark.parametrize("data, message", [
    (["r"], "rack_power_fit input must be a mapping, got ['r'] of type list"),
    ({"racks": "r01"}, "rack_power_fit input.racks must be a list, got 'r01' of type str"),
    ({"racks": []}, "rack_power_fit input.racks must be a non-empty list of racks, got [] of type list"),
    ({"racks": [{"name": "r", "budget_w": 1, "colour": 1}]},
     "rack_power_fit racks[0] has unknown key(s) 'colour'; allowed: budget_w, loads, name, nodes"),
    ({"racks": [{"name": "r", "budget_w": "60000"}]},
     "rack_power_fit rack 'r'.budget_w must be a finite number of watts, got '60000' of type str"),
    ({"racks": [{"name": "r", "budget_w": 1, "nodes": [{"name": "n", "max_power_w": 10, "gpus": "eight"}]}]},
     "rack_power_fit rack 'r' nodes[0].gpus must be a whole number of GPUs from 0 to 1024, got 'eight' of type str"),
    ({"racks": [{"name": "r", "budget_w": 1, "loads": "sw"}]},
     "rack_power_fit rack 'r'.loads must be a list, got 'sw' of type str"),
])
def test_type_and_key_refusals_in_full(data, message):
    with pytest.raises(PowerFitError) as err:
        parse_fit_input(data)
    assert str(err.value) == message


@given(value=hostile_numbers())
def test_hostile_budgets_are_refused_or_valid(value):
    try:
        out = fit_filter({"racks": [{"name": "r", "budget_w": value, "nodes": [dict(H100, name="n")]}]})
    except AnsibleFilterError as exc:
        assert "budget_w" in str(exc)
    else:
        assert isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value <= 1e9
        assert out[0]["budget_w"] == pytest.approx(value, abs=1e-3)


watts = st.integers(1, 20000) | st.floats(1, 20000, allow_nan=False, allow_infinity=False)


@st.composite
def racks(draw):
    gpus = draw(st.integers(0, 8))
    gpu_w = draw(st.integers(100, 1000))
    node_w = gpus * gpu_w + draw(watts)
    node = {"max_power_w": node_w, "gpus": gpus, "gpu_power_w": gpu_w, "gpu_min_power_w": draw(st.integers(0, gpu_w))}
    loads = [{"name": "l%d" % i, "max_power_w": draw(watts)} for i in range(draw(st.integers(0, 4)))]
    return rack(draw(st.integers(0, 12)), budget=draw(watts) * draw(st.integers(1, 10)), loads=loads, node=node)


def _draw(parsed, cap=None):
    loads = sum(parsed["loads"], Fraction(0))
    return loads + sum((capped_node_w(n, cap) if cap is not None else n["max_power_w"] for n in parsed["nodes"]), Fraction(0))


@settings(max_examples=300, deadline=None)
@given(data=racks())
def test_fit_answers_hold(data):
    (result,), (parsed,) = rack_power_fit({"racks": [data]}), parse_fit_input({"racks": [data]})
    budget, nodes = parsed["budget_w"], parsed["nodes"]
    assert result["fits"] == (_draw(parsed) <= budget)
    assert result["over_w"] == (0 if result["fits"] else pytest.approx(float(_draw(parsed) - budget), abs=1e-3))
    # max_nodes fit beside the loads; one more (when the rack has one more) does not.
    loads = sum(parsed["loads"], Fraction(0))
    k = result["max_nodes"]
    assert 0 <= k <= len(nodes)
    if k:
        assert loads + k * nodes[0]["max_power_w"] <= budget
    if k < len(nodes) and loads <= budget:
        assert loads + (k + 1) * nodes[0]["max_power_w"] > budget
    cap = result["gpu_power_cap_w"]
    if result["fits"] or not sum(n["gpus"] for n in nodes):
        assert cap is None
    elif cap is not None:
        assert isinstance(cap, int) and cap >= nodes[0]["gpu_min_power_w"] and cap < nodes[0]["gpu_power_w"]
        assert _draw(parsed, cap) <= budget            # at the cap the rack fits
        assert _draw(parsed, cap + 1) > budget         # at one watt more it does not
    else:
        # No cap: even at the GPUs' lowest limit (rounded up to a whole watt) the rack does not fit.
        lowest = -(-nodes[0]["gpu_min_power_w"] // 1)
        assert _draw(parsed, lowest) > budget
