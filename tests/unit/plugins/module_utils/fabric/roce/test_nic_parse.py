# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""roce_nic_parse against the recorded mlnx_qos and dcb outputs (tests/fixtures/reference/outputs/roce)."""
from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce.nic import (
    RoceNicError, default_dscp2prio, desired_state, qos_changes,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce.nic_parse import (
    DSCP_NAMES, dcb_state, dscp_value, parse_dcb_app_dscp, parse_dcb_ets, parse_dcb_pfc, parse_mlnx_qos,
)
from reference import outputs

_ROCE = outputs("roce")


def _recorded(name):
    with open(os.path.join(_ROCE, name)) as handle:
        return handle.read()


def test_mlnx_qos_trust_dscp_pfc3():
    state = parse_mlnx_qos(_recorded("mlnx_qos-trust-dscp-pfc3.att-netarbiter.txt"))
    assert state.trust == "dscp"
    assert state.pfc == (0, 0, 0, 1, 0, 0, 0, 0)
    # "prio:3 dscp:31,30,29,28,27,26,25,24," -> 24..31 on 3; the whole map is the firmware default DSCP >> 3.
    assert state.dscp2prio == default_dscp2prio()
    assert state.dscp2prio[26] == 3 and state.dscp2prio[0] == 0 and state.dscp2prio[63] == 7
    assert state.extra["dcbx_mode"] == "OS controlled" and state.extra["cable_len"] == 7
    # tc 0 carries priority 1 and tc 1 priority 0 (802.1Q's default swap), the rest tc == priority.
    assert state.extra["prio_tc"] == {0: 1, 1: 0, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7}
    assert state.extra["tcs"][3] == {"ratelimit": "unlimited", "tsa": "vendor", "bw_percent": None,
                                     "priorities": [3]}


def test_recorded_mlnx_qos_port_needs_only_the_neighbours_of_26_moved():
    state = parse_mlnx_qos(_recorded("mlnx_qos-trust-dscp-pfc3.att-netarbiter.txt"))
    changes = qos_changes(state, desired_state())
    # Trust and PFC are already right; DSCPs 24, 25, 27..31 share priority 3 with RoCE and move to 0.
    assert [(c.setting, c.key, c.before, c.after) for c in changes] == \
        [("dscp2prio", d, 3, 0) for d in (24, 25, 27, 28, 29, 30, 31)]


def test_mlnx_qos_trust_pcp_without_map():
    text = _recorded("mlnx_qos-trust-dscp-pfc3.att-netarbiter.txt")
    head, _sep, rest = text.partition("dscp2prio mapping:")
    pcp = head.replace("trust state: dscp", "trust state: pcp") + "Cable len:" + rest.split("Cable len:", 1)[1]
    state = parse_mlnx_qos(pcp)
    assert state.trust == "pcp" and state.dscp2prio is None and state.pfc == (0, 0, 0, 1, 0, 0, 0, 0)


def test_mlnx_qos_newer_tc_format_with_bw():
    state = parse_mlnx_qos("Priority trust state: dscp\nPFC configuration:\n\tpriority    0   1   2   3   4   5   6   7\n"
                           "\tenabled     0   0   0   1   0   0   0   0   \n\tbuffer      0   0   0   1   0   0   0   0\n"
                           "tc: 3 ratelimit: unlimited, tsa: ets, bw: 50%\n\t priority:  3\n")
    assert state.pfc == (0, 0, 0, 1, 0, 0, 0, 0)
    assert state.extra["tcs"][3]["bw_percent"] == 50 and state.extra["prio_tc"] == {3: 3}


def test_mlnx_qos_refuses_other_text():
    with pytest.raises(RoceNicError, match="not the output of mlnx_qos"):
        parse_mlnx_qos("mlnx_qos: command not found\n")
    with pytest.raises(RoceNicError, match="8 flags"):
        parse_mlnx_qos("Priority trust state: dscp\n  priority 0 1 2 3\n  enabled 0 0 0 1\n")
    cut = "Priority trust state: dscp\ndscp2prio mapping:\n        prio:3 dscp:31,30,29,28,27,26,25,24,\n"
    with pytest.raises(RoceNicError, match="lists 8 DSCPs, not all 64"):
        parse_mlnx_qos(cut)


def test_dcb_pfc_show_man_page_example():
    flags, extra = parse_dcb_pfc(_recorded("dcb-pfc-show.iproute2-man.txt"))
    assert flags == (0, 0, 0, 0, 0, 0, 1, 1)
    assert extra == {"pfc-cap": "8", "macsec-bypass": "off", "delay": "4096"}


def test_dcb_ets_show_man_page_example():
    ets = parse_dcb_ets(_recorded("dcb-ets-show.iproute2-man.txt"))
    assert ets["prio-tc"] == {p: str(p) for p in range(8)}
    assert ets["tc-tsa"][2] == "ets" and ets["tc-tsa"][3] == "strict"
    # 33 + 33 + 34 = 100 % over the three ETS classes.
    assert sum(int(ets["tc-bw"][tc]) for tc in range(8)) == 100


def test_dcb_pfc_refusals():
    with pytest.raises(RoceNicError, match="no prio-pfc"):
        parse_dcb_pfc("pfc-cap 8")
    with pytest.raises(RoceNicError, match="expected 0:on"):
        parse_dcb_pfc("prio-pfc 0:off 1:off")
    assert parse_dcb_pfc("prio-pfc all:off 3:on")[0] == (0, 0, 0, 1, 0, 0, 0, 0)


def test_dcb_app_numeric_and_named():
    assert parse_dcb_app_dscp("dscp-prio 24:0 26:3\n") == {24: [0], 26: [3]}
    # Without -N iproute2 prints rt_dsfield names: AF31 = 8*3 + 2*1 = 26, CS3 = 24, EF = 46.
    assert parse_dcb_app_dscp("dscp-prio CS3:0 AF31:3 EF:5") == {24: [0], 26: [3], 46: [5]}
    assert parse_dcb_app_dscp("") == {}
    with pytest.raises(RoceNicError, match="not a priority"):
        parse_dcb_app_dscp("dscp-prio 26:9")
    with pytest.raises(RoceNicError, match="neither a DSCP"):
        dscp_value("AF51")


def test_dcb_state():
    pfc = _recorded("dcb-pfc-show.iproute2-man.txt")
    empty = dcb_state(pfc, "")
    assert empty.trust == "pcp" and empty.dscp2prio is None and empty.pfc == (0, 0, 0, 0, 0, 0, 1, 1)
    doubled = dcb_state(pfc, "dscp-prio 26:3 26:4 24:0")
    assert doubled.trust == "dscp" and doubled.dscp2prio == {26: -1, 24: 0}


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.integers(0, 63), st.integers(0, 7), min_size=1))
def test_dcb_app_round_trip(table):
    text = "dscp-prio " + " ".join("%d:%d" % item for item in sorted(table.items()))
    assert {d: p[0] for d, p in parse_dcb_app_dscp(text).items()} == table


def test_dscp_names_are_the_rt_dsfield_values():
    assert (DSCP_NAMES["CS0"], DSCP_NAMES["CS7"], DSCP_NAMES["AF11"], DSCP_NAMES["AF43"]) == (0, 56, 10, 38)
