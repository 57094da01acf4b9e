# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The roce_switch_config filter: SONiC tables, NVUE and EOS text, the pfc_headroom list taken, errors under the
filter's name, values refused (issue 13), the molecule/fabric values, the property that hostile names and numbers
are refused or rendered so that they parse back, wrong types."""
from __future__ import annotations

import copy
import json

import pytest
import yaml
from ansible.errors import AnsibleFilterError
from hypothesis import given, strategies as st

from ansible_collections.gpufleet.cluster.plugins.filter import roce_switch_config as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.roce_switch_config import roce_switch_config
from ansible_collections.gpufleet.cluster.plugins.filter.pfc_headroom import pfc_headroom
from filter_docs import assert_documented
from filter_refusals import refused_with
from group_vars import variables
from render_properties import FAST, no_control, number, text
from roce_inputs import HEADROOM, HOST, PORTS, REFUSED, ROCE_CLASS, ROCE_HEADROOM, SONIC, lossless_class
from wrong_types import assert_only_refusals


def test_registered_and_documented():
    assert_documented(plugin, "roce_switch_config")


def test_sonic_result_is_plain_json_data():
    result = roce_switch_config(SONIC, host=HOST, headroom=HEADROOM)  # platform defaults to sonic
    assert json.loads(json.dumps(result)) == result
    assert result["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] == "3"
    assert result["BUFFER_PG"]["Ethernet8|3"] == {"profile": "pg_lossless_400000_5m_profile"}


def test_sonic_takes_the_pfc_headroom_list():
    # the shape gpufleet.cluster.pfc_headroom returns for a list of ports
    headroom = [{"name": name, "xoff_bytes": 139785, "xon_bytes": 16885, "headroom_bytes": 156670, "cells": 1089}
                for name in HEADROOM]
    result = roce_switch_config(SONIC, "sonic", headroom=headroom)
    assert result["BUFFER_PROFILE"]["pg_lossless_400000_5m_profile"]["size"] == "156670"


def test_nvue_and_eos_results_are_text():
    nvue = roce_switch_config(lossless_class(["swp1", "swp2"]), "nvue", host=HOST)
    assert yaml.safe_load(nvue)[0]["set"]["interface"]["swp2"]["qos"]["pfc"] == {"profile": "roce-pfc-5m"}
    eos = roce_switch_config(lossless_class(["Ethernet1/1"]), platform="eos", host=HOST)
    assert "   priority-flow-control priority 3 no-drop" in eos.splitlines()


@pytest.mark.parametrize("args, kwargs, match", [
    (["not a dict"], {}, r"^gpufleet\.cluster\.roce_switch_config: input must be a mapping"),
    ([SONIC, "junos"], {}, r"^gpufleet\.cluster\.roce_switch_config: platform must be one of sonic, nvue, eos, got "
                           r"'junos'"),
    ([SONIC], {"host": [3, 26]}, r"^gpufleet\.cluster\.roce_switch_config: host must be a mapping"),
    ([SONIC], {"headroom": "big"}, r"^gpufleet\.cluster\.roce_switch_config: headroom must be a mapping"),
    ([SONIC], {"headroom": HEADROOM, "host": {"priority": 4, "dscp": 26}},
     r"^gpufleet\.cluster\.roce_switch_config: host priority 4 / switch priority 3"),
    ([SONIC], {}, r"^gpufleet\.cluster\.roce_switch_config: sonic: headroom is required"),
    ([dict(SONIC, priority=9)], {"headroom": HEADROOM}, r"roce_switch_config: priority 9 is outside 0\.\.7"),
    ([SONIC, "nvue"], {}, r"roce_switch_config: ports Ethernet0, .* are not nvue port names"),
])
def test_switch_config_errors(args, kwargs, match):
    with pytest.raises(AnsibleFilterError, match=match):
        roce_switch_config(*args, **kwargs)


# ---------------------------------------------------------------- issue 13: refused naming field, value and rule
def test_switch_config_headroom_size_below_xoff_plus_xon_refused():
    # was: BUFFER_PROFILE ... "size": "0"
    refused_with(lambda: roce_switch_config({"ports": PORTS}, "sonic",
                                            headroom={"Ethernet0": {"xoff": 139785, "xon": 16885, "size": 0}}),
                 "gpufleet.cluster.roce_switch_config", "headroom[Ethernet0].size 0 is below xoff + xon = 139785 + "
                                                        "16885 "
                 "= 156670 bytes", "use size >= 156670")


@pytest.mark.parametrize("description, parts", REFUSED)
def test_roce_values_refused(description, parts):
    refused_with(lambda: roce_switch_config(description, "eos"), *parts)


# ---------------------------------------------------------------- the reference, lab and molecule/fabric values
def test_molecule_values_render():
    v = variables("molecule/fabric")
    headroom = pfc_headroom(v["gpufleet_roce_class"]["ports"], cell_bytes=144, mtu=9216)
    config = roce_switch_config(v["gpufleet_roce_class"], "sonic", headroom=headroom)
    assert list(config["BUFFER_PG"]) == ["Ethernet0|3"]


# ---------------------------------------------------------------- property: refused, or output that parses back
_PORT = text("Ethernet0", "Ethernet8", "Ethernet1/1")


@FAST
@given(st.lists(_PORT, min_size=1, max_size=3, unique=True), number(st.just(3) | st.integers(2, 7)),
       st.lists(number(st.integers(0, 63)), min_size=1, max_size=3, unique_by=repr),
       number(st.integers(150000, 200000)))
def test_roce_switch_config_parses_back(names, priority, dscp, size):
    ports = [{"name": n, "speed_gbps": 400, "cable_m": 5} for n in names]
    description = {"ports": ports, "priority": priority, "dscp": dscp}
    headroom = {n: {"xoff": 139785, "xon": 16885, "size": size} for n in names}
    for platform in ("sonic", "nvue", "eos"):
        try:
            result = roce_switch_config(description, platform, headroom=headroom)
        except AnsibleFilterError as exc:
            assert "gpufleet.cluster.roce_switch_config" in str(exc)
            continue
        assert size >= 139785 + 16885   # a smaller buffer profile is never written
        if platform == "sonic":
            tables = json.loads(json.dumps(result))
            assert sorted(k.split("|") for k in tables["BUFFER_PG"]) == sorted([n, str(priority)] for n in names)
            assert {p["size"] for p in tables["BUFFER_PROFILE"].values()} == {str(size)}
            assert sorted(tables["CABLE_LENGTH"]["AZURE"]) == sorted(names)
            lossless = sorted(int(d) for d, tc in tables["DSCP_TO_TC_MAP"]["AZURE"].items() if tc == str(priority))
            assert lossless == sorted(set(dscp))
        elif platform == "nvue":
            (document,) = yaml.safe_load(result)
            assert sorted(document["set"]["interface"]) == sorted(names)
            no_control(*result.splitlines())
        else:
            lines = result.splitlines()
            no_control(*lines)
            interfaces = [line.split(" ", 1)[1] for line in lines if line.startswith("interface ")]
            assert interfaces == names
            (mapped,) = [line for line in lines if line.endswith("to traffic-class %d" % priority)]
            assert [int(d) for d in mapped.split()[3:-3]] == sorted(set(dscp))


# ------------------------------------------------------------------ wrong types: refused by a check, nothing else
VALID = [ROCE_CLASS]
VALID_KWARGS = {"platform": "sonic", "host": {"priority": 3, "dscp": [26]}, "headroom": ROCE_HEADROOM}


def test_valid_call_works():
    assert roce_switch_config(*copy.deepcopy(VALID), **copy.deepcopy(VALID_KWARGS)) is not None


def test_wrong_types_and_missing_keys_are_refused():
    assert_only_refusals('roce_switch_config', roce_switch_config, VALID, VALID_KWARGS)
