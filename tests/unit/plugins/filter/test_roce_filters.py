# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""roce_switch_config and roce_qos_check: registration, results, input checks, errors with the FQCN."""
from __future__ import annotations

import json

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import roce_qos_check as check_plugin
from ansible_collections.gpufleet.cluster.plugins.filter import roce_switch_config as config_plugin
from ansible_collections.gpufleet.cluster.plugins.filter.roce_qos_check import roce_qos_check
from ansible_collections.gpufleet.cluster.plugins.filter.roce_switch_config import roce_switch_config


def _class(names):
    return {"ports": [{"name": n, "speed_gbps": 400, "cable_m": 5} for n in names]}


SONIC = _class(["Ethernet%d" % (8 * i) for i in range(8)])
HEADROOM = {"Ethernet%d" % (8 * i): {"xoff": 139785, "xon": 16885, "size": 156670} for i in range(8)}
HOST = {"priority": 3, "dscp": [26]}


def test_filters_are_registered_under_their_names():
    assert config_plugin.FilterModule().filters() == {"roce_switch_config": roce_switch_config}
    assert check_plugin.FilterModule().filters() == {"roce_qos_check": roce_qos_check}


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
    nvue = roce_switch_config(_class(["swp1", "swp2"]), "nvue", host=HOST)
    assert yaml.safe_load(nvue)[0]["set"]["interface"]["swp2"]["qos"]["pfc"] == {"profile": "roce-pfc-5m"}
    eos = roce_switch_config(_class(["Ethernet1/1"]), platform="eos", host=HOST)
    assert "   priority-flow-control priority 3 no-drop" in eos.splitlines()


def test_qos_check_result():
    result = roce_qos_check(_class(["swp1"]), host=HOST, platform="nvue")
    assert result["lossless_class"]["ecn"] == {"min_threshold_bytes": 150000, "max_threshold_bytes": 1500000,
                                               "probability_percent": 100}
    assert len(result["dscp_to_priority"]) == 64 and result["dscp_to_priority"][26] == 3
    assert sum(result["dscp_to_priority"]) == 3  # every other DSCP is on priority 0
    assert result["priority_to_queue"] == list(range(8))
    assert (result["pfc_priorities"], result["ecn_queues"]) == ([3], [3])


@pytest.mark.parametrize("args, kwargs, match", [
    (["not a dict"], {}, r"^gpufleet\.cluster\.roce_switch_config: input must be a mapping"),
    ([SONIC, "junos"], {}, r"^gpufleet\.cluster\.roce_switch_config: platform must be one of sonic, nvue, eos, got 'junos'"),
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
