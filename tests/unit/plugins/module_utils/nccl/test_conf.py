# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""nccl_conf: the KEY=VALUE file NCCL reads, the RoCE file's parser and the conflict check."""
from __future__ import annotations

import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.conf import (
    NcclConfError,
    Setting,
    check_ib_hca,
    check_key,
    check_socket_ifname,
    check_value,
    merge_settings,
    parse_conf,
    render_conf,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.params import PARAMETERS

ROCE = "/etc/gpufleet/nccl-roce.conf"
# What roce_host writes: comments, then the three keys (GID index 3 = RoCE v2 over IPv4, TC 106 = DSCP 26 << 2).
ROCE_TEXT = (
    "# Written by gpufleet.cluster.roce_host: RoCE v2 GID and traffic class of the lossless priority\n"
    "\n"
    "NCCL_IB_HCA==mlx5_0:1\n"
    "NCCL_IB_GID_INDEX=3\n"
    "NCCL_IB_TC=106\n"
)


def own(**values):
    """The role's settings in its order; a value of None or '' is 'not set'."""
    names = {"NCCL_TOPO_FILE": "nccl_topology_file", "NCCL_IB_HCA": "nccl_ib_hca",
             "NCCL_SOCKET_IFNAME": "nccl_socket_ifname"}
    return [{"key": key, "value": values.get(key), "source": names[key]} for key in names]


# ---------------------------------------------------------------- keys and values
def test_keys():
    assert check_key("NCCL_IB_TIMEOUT", "x") == "NCCL_IB_TIMEOUT"
    for bad in ["nccl_ib_hca", "NCCL_", "CUDA_VISIBLE_DEVICES", "NCCL IB", "NCCL_IB-HCA", 5]:
        with pytest.raises(NcclConfError, match=r"must match \^NCCL_\[A-Z0-9_\]\+\$"):
            check_key(bad, "nccl_env_extra")


def test_values():
    assert check_value(22, "x") == "22" and check_value("WARN", "x") == "WARN"
    with pytest.raises(NcclConfError) as err:
        check_value(True, "nccl_env_extra NCCL_IB_DISABLE")
    assert str(err.value) == ("nccl_env_extra NCCL_IB_DISABLE: the value must be a string or an integer (NCCL's switches "
                              "take 0 or 1, not true/false), got True of type bool")
    with pytest.raises(NcclConfError, match="must be a single line"):
        check_value("WARN\nNCCL_DEBUG_SUBSYS=ALL", "nccl_env_extra NCCL_DEBUG")
    with pytest.raises(NcclConfError, match="white space, which NCCL would keep"):
        check_value("WARN ", "x")
    with pytest.raises(NcclConfError, match="Leave the key out"):
        check_value("", "x")
    # 1023 characters fit NCCL's char[1024]; 1024 do not.
    assert len(check_value("a" * 1023, "x")) == 1023
    with pytest.raises(NcclConfError, match="is 1024 characters long; NCCL reads at most 1023"):
        check_value("a" * 1024, "x")


@pytest.mark.parametrize("value", ["mlx5", "mlx5_0", "=mlx5_0:1,mlx5_1:1", "^=mlx5_1,mlx5_4", "^mlx5_3",
                                   "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1"])
def test_ib_hca_accepted(value):
    assert check_ib_hca(value, "nccl_ib_hca") == value


@pytest.mark.parametrize("value", ["mlx5_0 mlx5_1", "mlx5_0;mlx5_1", "=^mlx5_0", "mlx5_0:0", "mlx5_0:256",
                                   "mlx5_0,", "mlx5_0:1:2", "^"])
def test_ib_hca_refused(value):
    with pytest.raises(NcclConfError, match="optional port 1-255"):
        check_ib_hca(value, "nccl_ib_hca")


@pytest.mark.parametrize("value", ["eth0", "=eth0", "=eth0,eth1", "^docker", "^=docker0", "ens", "^docker,lo",
                                   "=enp193s0f0np0"])
def test_socket_ifname_accepted(value):
    assert check_socket_ifname(value, "nccl_socket_ifname") == value


@pytest.mark.parametrize("value", ["=eth0:1", "eth 0", "=abcdefghijklmnop", "eth/0", "=", "^", "eth0,,eth1"])
def test_socket_ifname_refused(value):
    # =abcdefghijklmnop: 16 characters, one more than IFNAMSIZ - 1 = 15.
    with pytest.raises(NcclConfError, match="interface name or prefix of 1-15"):
        check_socket_ifname(value, "nccl_socket_ifname")


# ---------------------------------------------------------------- the RoCE file
def test_parse_roce_file():
    assert parse_conf(ROCE_TEXT, ROCE) == [
        Setting("NCCL_IB_HCA", "=mlx5_0:1", ROCE),
        Setting("NCCL_IB_GID_INDEX", "3", ROCE),
        Setting("NCCL_IB_TC", "106", ROCE),
    ]
    # CRLF line ends, an indented comment and white space after the value are tolerated.
    assert parse_conf("  # c\r\nNCCL_IB_TC=106  \r\n", ROCE) == [Setting("NCCL_IB_TC", "106", ROCE)]
    assert parse_conf("", ROCE) == []
    with pytest.raises(NcclConfError, match=r"^%s must be the file's text, got None of type NoneType$" % re.escape(ROCE)):
        parse_conf(None, ROCE)


@pytest.mark.parametrize("text, message", [
    ("NCCL_IB_TC 106\n", "line 1: 'NCCL_IB_TC 106' is not KEY=VALUE"),
    ("# ok\nNCCL_IB_TC =106\n", "line 2: the key 'NCCL_IB_TC ' has white space around it"),
    ("NCCL_IB_TC=106\nNCCL_IB_TC=96\n", "line 2: NCCL_IB_TC is set again \\(first on line 1\\)"),
    ("ib_tc=106\n", "line 1: the key 'ib_tc' is not an NCCL variable"),
    ("NCCL_IB_HCA=mlx5_0 mlx5_1\n", "line 1 NCCL_IB_HCA: NCCL_IB_HCA 'mlx5_0 mlx5_1' has the entry"),
    ("NCCL_IB_GID_INDEX=\n", "line 1 NCCL_IB_GID_INDEX: the value is empty"),
    ("NCCL_IB_TC=106   # DSCP 26\n", "line 1: the value '106   # DSCP 26' holds an inline comment"),
])
def test_parse_refuses_what_nccl_would_misread(text, message):
    with pytest.raises(NcclConfError, match=message):
        parse_conf(text, ROCE)


# ---------------------------------------------------------------- merge and conflicts
def test_merge_without_a_roce_file():
    merged = merge_settings(own(NCCL_TOPO_FILE="/etc/nccl/topo.xml", NCCL_SOCKET_IFNAME="=eth0"), None, ROCE)
    assert merged == [Setting("NCCL_TOPO_FILE", "/etc/nccl/topo.xml", "nccl_topology_file"),
                      Setting("NCCL_SOCKET_IFNAME", "=eth0", "nccl_socket_ifname")]


def test_merge_adds_the_roce_keys_after_the_roles_own():
    merged = merge_settings(own(NCCL_TOPO_FILE="/etc/nccl/topo.xml", NCCL_SOCKET_IFNAME="=eth0"), ROCE_TEXT, ROCE)
    assert [(s.key, s.value, s.source) for s in merged] == [
        ("NCCL_TOPO_FILE", "/etc/nccl/topo.xml", "nccl_topology_file"),
        ("NCCL_SOCKET_IFNAME", "=eth0", "nccl_socket_ifname"),
        ("NCCL_IB_HCA", "=mlx5_0:1", ROCE),
        ("NCCL_IB_GID_INDEX", "3", ROCE),
        ("NCCL_IB_TC", "106", ROCE),
    ]


def test_merge_the_same_value_twice_is_written_once():
    merged = merge_settings(own(NCCL_IB_HCA="=mlx5_0:1"), ROCE_TEXT, ROCE)
    assert [s.key for s in merged] == ["NCCL_IB_HCA", "NCCL_IB_GID_INDEX", "NCCL_IB_TC"]
    assert merged[0].source == "nccl_ib_hca and " + ROCE


def test_conflict_is_refused_naming_both_values_and_sources():
    extra = [{"key": "NCCL_IB_TC", "value": 96, "source": "nccl_env_extra"}]
    with pytest.raises(NcclConfError) as info:
        merge_settings(own(NCCL_IB_HCA="mlx5") + extra, ROCE_TEXT, ROCE)
    assert str(info.value) == (
        "the NCCL settings disagree: NCCL_IB_HCA is 'mlx5' in nccl_ib_hca but '=mlx5_0:1' in "
        "/etc/gpufleet/nccl-roce.conf; NCCL_IB_TC is '96' in nccl_env_extra but '106' in "
        "/etc/gpufleet/nccl-roce.conf. /etc/nccl.conf would hold only one of each, so nothing was written. Make the "
        "role variable and the roce_host role's settings agree, or leave the role variable empty to take the value "
        "/etc/gpufleet/nccl-roce.conf gives")


def test_a_key_twice_among_the_roles_own_is_refused():
    extra = [{"key": "NCCL_SOCKET_IFNAME", "value": "eth", "source": "nccl_env_extra"}]
    with pytest.raises(NcclConfError, match="^nccl_socket_ifname and nccl_env_extra both set NCCL_SOCKET_IFNAME"):
        merge_settings(own(NCCL_SOCKET_IFNAME="=eth0") + extra, None, ROCE)


def test_bad_own_entries_are_refused():
    with pytest.raises(NcclConfError, match=r"^own settings entry 0 must be a mapping of key, value and source, got "
                                            r"\{'key': 'NCCL_IB_TC', 'value': 1\} of type dict$"):
        merge_settings([{"key": "NCCL_IB_TC", "value": 1}], None, ROCE)
    with pytest.raises(NcclConfError, match="^nccl_socket_ifname NCCL_SOCKET_IFNAME: NCCL_SOCKET_IFNAME 'eth0:1'"):
        merge_settings(own(NCCL_SOCKET_IFNAME="eth0:1"), None, ROCE)


# ---------------------------------------------------------------- rendering, and NCCL reading it back
def nccl_reads(text):
    """setEnvFile (src/include/param.h): split at the first '=', no stripping, first occurrence wins."""
    env = {}
    for line in text.split("\n"):
        if "=" not in line:
            continue
        key, value = line.split("=", 1)
        env.setdefault(key, value)
    return env


def test_render():
    settings_ = merge_settings(own(NCCL_TOPO_FILE="/etc/nccl/topo.xml"), ROCE_TEXT, ROCE)
    text = render_conf(settings_, ["Ansible managed", ""])
    # As the role's template: each setting under a '# <source>' comment.
    assert text == ("# Ansible managed\n#\n# nccl_topology_file\nNCCL_TOPO_FILE=/etc/nccl/topo.xml\n"
                    "# %s\nNCCL_IB_HCA==mlx5_0:1\n# %s\nNCCL_IB_GID_INDEX=3\n# %s\nNCCL_IB_TC=106\n" % (ROCE, ROCE, ROCE))
    # NCCL_IB_HCA==mlx5_0:1 splits at the first '=': the value keeps its own '='.
    assert nccl_reads(text) == {"NCCL_TOPO_FILE": "/etc/nccl/topo.xml", "NCCL_IB_HCA": "=mlx5_0:1",
                                "NCCL_IB_GID_INDEX": "3", "NCCL_IB_TC": "106"}
    with pytest.raises(NcclConfError, match="NCCL would read it as a setting"):
        render_conf([], ["managed by=ansible"])


_KEYS = st.sampled_from(sorted(PARAMETERS["2.28"]))
_VALUES = st.text(alphabet=string.ascii_letters + string.digits + "=:,^/._-+ ", min_size=1, max_size=40).filter(
    lambda v: v == v.strip())


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(_KEYS, _VALUES, max_size=8), st.dictionaries(_KEYS, _VALUES, max_size=8))
def test_property_merge_is_what_nccl_reads(mine, theirs):
    """Whatever merges, NCCL reads back exactly; whatever conflicts is refused and names every conflict."""
    entries = [{"key": k, "value": v, "source": "nccl_env_extra"} for k, v in mine.items()]
    roce_text = "# roce\n" + "".join("%s=%s\n" % kv for kv in theirs.items())
    syntax_keys = {"NCCL_IB_HCA", "NCCL_SOCKET_IFNAME"}
    if syntax_keys & (set(mine) | set(theirs)):
        return  # their syntax is tested above
    conflicts = sorted(k for k in set(mine) & set(theirs) if mine[k] != theirs[k])
    if conflicts:
        with pytest.raises(NcclConfError) as info:
            merge_settings(entries, roce_text, ROCE)
        for key in conflicts:
            assert "%s is %r in nccl_env_extra but %r in %s" % (key, mine[key], theirs[key], ROCE) in str(info.value)
        return
    merged = merge_settings(entries, roce_text, ROCE)
    expected = dict(theirs)
    expected.update(mine)
    assert nccl_reads(render_conf(merged, ["managed"])) == expected
    assert len(merged) == len(expected)
    assert [s.key for s in merged][:len(mine)] == list(mine)
