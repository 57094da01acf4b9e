# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""cluster/inputs.py: Jinja's int and Ansible's bool as the roles' templates applied them, and the input's shape."""
from __future__ import annotations

import pytest
from hypothesis import example, given, strategies as st
from jinja2.filters import do_int

from ansible_collections.gpufleet.cluster.plugins.module_utils.cluster.inputs import (
    ClusterDescriptionError, ansible_bool, host_vars, jinja_int, lookup, names, part)

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats(allow_nan=False, allow_infinity=False, width=32),
                    st.text(max_size=8), st.sampled_from(["8", " 8 ", "8.5", "1e3", "x", "", "0x10", "-3"]))


@given(SCALARS)
@example("42.23")
def test_jinja_int_is_the_int_filter(value):
    assert jinja_int(value) == do_int(value)


def test_jinja_int_of_infinity_is_zero():
    # Jinja's int raised OverflowError there (the template failed); the description reads it as no number.
    assert jinja_int(float("inf")) == 0 and jinja_int("-inf") == 0


@pytest.mark.parametrize("value, expected", [
    (True, True), (False, False), ("yes", True), ("On", True), ("TRUE", True), ("1", True), (1, True),
    ("no", False), ("off", False), ("0", False), (0, False), ("", False), ("maybe", False), (None, False),
    (1.0, True), (2, False), ([], False)])
def test_ansible_bool(value, expected):
    assert ansible_bool(value) is expected


def test_host_vars_and_names():
    hosts = {"gpu01": {"gpufleet_ip": "10.0.0.1"}, "gpu02": {}}
    assert host_vars({"hosts": hosts}) is hosts
    assert names("group", ["gpu02", "gpu01"], hosts) == ["gpu02", "gpu01"]
    assert lookup(hosts["gpu01"], "gpufleet_ip", {"gpufleet_ip": "x"}) == "10.0.0.1"
    assert lookup(hosts["gpu02"], "gpufleet_ip", {"gpufleet_ip": "x"}) == "x"
    assert lookup(hosts["gpu02"], "other", {}) is None
    assert part({"slurm": None}, "slurm") is None and part({}, "roce") is None
    assert part({"roce": {"hosts": []}}, "roce") == {"hosts": []}


@pytest.mark.parametrize("call, message", [
    (lambda: host_vars({}), r"^hosts must be a mapping of each host to the variables it sets, got None"),
    (lambda: host_vars({"hosts": {"": {}}}), r"^hosts has the key '': each key is a host's inventory name"),
    (lambda: host_vars({"hosts": {"gpu01": ["10.0.0.1"]}}), r"^hosts\[gpu01\] must be a mapping of variable names"),
    (lambda: names("slurm computes", "gpu01", {"gpu01": {}}), r"^slurm computes must be a list of host names"),
    (lambda: names("roce hosts", ["gpu01", "gpu09"], {"gpu01": {}}),
     r"^roce hosts names 'gpu09', which hosts does not hold: extract the variables of every host"),
    (lambda: part({"slurm": ["x"]}, "slurm"), r"^slurm must be a mapping \(or null, to leave this part out\)"),
])
def test_refusals(call, message):
    with pytest.raises(ClusterDescriptionError, match=message):
        call()
