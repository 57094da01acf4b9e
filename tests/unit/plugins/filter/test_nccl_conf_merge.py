# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The nccl_conf_merge filter: registration, result, input checks and the refusal of conflicts; its input rules
(issue 13): every refusal names the field, the value and what is allowed, and whatever it accepts the role's
template writes as lines NCCL reads back as exactly the input."""
from __future__ import annotations

import os

import jinja2
import pytest
from ansible.errors import AnsibleFilterError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.filter import nccl_conf_merge as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.nccl_conf_merge import nccl_conf_merge
from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.conf import known_parameters
from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.params import PARAMETERS, SOURCE_TAGS
from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import is_refusal
from filter_docs import assert_documented
from nasty_input import hostile_numbers, hostile_text, near_valid


OWN = [
    {"key": "NCCL_TOPO_FILE", "value": "/etc/nccl/topo.xml", "source": "nccl_topology_file"},
    {"key": "NCCL_IB_HCA", "value": "", "source": "nccl_ib_hca"},
    {"key": "NCCL_SOCKET_IFNAME", "value": "=eth0", "source": "nccl_socket_ifname"},
    {"key": "NCCL_IB_TIMEOUT", "value": 22, "source": "nccl_env_extra"},
]
ROCE_TEXT = "# roce_host\nNCCL_IB_GID_INDEX=3\nNCCL_IB_TC=106\nNCCL_IB_HCA=mlx5_0\n"


def test_registered_and_documented():
    assert_documented(plugin, "nccl_conf_merge")


def test_result():
    assert nccl_conf_merge(OWN, ROCE_TEXT) == [
        {"key": "NCCL_TOPO_FILE", "value": "/etc/nccl/topo.xml", "source": "nccl_topology_file"},
        {"key": "NCCL_SOCKET_IFNAME", "value": "=eth0", "source": "nccl_socket_ifname"},
        {"key": "NCCL_IB_TIMEOUT", "value": "22", "source": "nccl_env_extra"},
        {"key": "NCCL_IB_GID_INDEX", "value": "3", "source": "/etc/gpufleet/nccl-roce.conf"},
        {"key": "NCCL_IB_TC", "value": "106", "source": "/etc/gpufleet/nccl-roce.conf"},
        {"key": "NCCL_IB_HCA", "value": "mlx5_0", "source": "/etc/gpufleet/nccl-roce.conf"},
    ]
    # No RoCE file: only the role's own non-empty settings (3 of 4).
    assert [s["key"] for s in nccl_conf_merge(OWN)] == ["NCCL_TOPO_FILE", "NCCL_SOCKET_IFNAME", "NCCL_IB_TIMEOUT"]


def test_conflict_is_refused_with_the_filter_fqcn():
    own = [dict(entry) for entry in OWN]
    own[1]["value"] = "=mlx5_0:1,mlx5_1:1"
    with pytest.raises(AnsibleFilterError) as info:
        nccl_conf_merge(own, ROCE_TEXT, "/run/roce.conf")
    assert str(info.value).startswith(
        "gpufleet.cluster.nccl_conf_merge: the NCCL settings disagree: NCCL_IB_HCA is '=mlx5_0:1,mlx5_1:1' in "
        "nccl_ib_hca but 'mlx5_0' in /run/roce.conf. /etc/nccl.conf would hold only one of each")


@pytest.mark.parametrize("args, message", [
    (({"NCCL_IB_TC": 106},), "input must be a list of {key, value, source}"),
    ((OWN, b"NCCL_IB_TC=106"), "roce_text must be the file's text or null, got b'NCCL_IB_TC=106' of type bytes"),
    ((OWN, None, ""), "roce_source must be the path of the RoCE settings file, got '' of type str"),
    (([{"key": "nccl_debug", "value": "WARN", "source": "nccl_env_extra"}],), "is not an NCCL variable"),
    ((OWN, "NCCL_IB_TC\n"), "/etc/gpufleet/nccl-roce.conf line 1: 'NCCL_IB_TC' is not KEY=VALUE"),
])
def test_bad_input(args, message):
    with pytest.raises(AnsibleFilterError) as info:
        nccl_conf_merge(*args)
    assert str(info.value).startswith("gpufleet.cluster.nccl_conf_merge: ")
    assert message in str(info.value)


# ================================================================ issue 13: input rules


_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
_TEMPLATE = os.path.join(_ROOT, "roles", "nccl", "templates", "nccl.conf.j2")


def extra(key, value, source="nccl_env_extra"):
    return [{"key": key, "value": value, "source": source}]


def refused(match, *args, **kwargs):
    with pytest.raises(AnsibleFilterError, match=match) as info:
        nccl_conf_merge(*args, **kwargs)
    assert str(info.value).startswith("gpufleet.cluster.nccl_conf_merge: ")
    return str(info.value)


# ---------------------------------------------------------------- the cases
def test_a_key_with_a_trailing_newline_is_refused():
    # re.match(r"^NCCL_[A-Z0-9_]+$") let 'NCCL_IB_HCA\n' through, past the HCA syntax and the duplicate check.
    message = refused(r"the key 'NCCL_IB_HCA\\n' is not an NCCL variable: it must match \^NCCL_\[A-Z0-9_\]\+\$",
                      extra("NCCL_IB_HCA", "=mlx5_0:1") + extra("NCCL_IB_HCA\n", "mlx5 bad"))
    assert message.startswith("gpufleet.cluster.nccl_conf_merge: nccl_env_extra: ")


@pytest.mark.parametrize("source", ["nccl_env_extra\nNCCL_DEBUG=TRACE", "a=b", "x\r", "x\x1b[2J", "x\u2028y", ""])
def test_a_source_that_would_write_its_own_line_is_refused(source):
    # The source is written as '# {{ source }}' above the setting: a newline starts a line NCCL reads, and a
    # comment line holding '=' is a setting to NCCL.
    refused(r"own settings entry 0 source: .* (is not allowed; expected printable text .* no control character and "
            r"none of '='|is not allowed; expected non-empty text)", extra("NCCL_DEBUG", "WARN", source))


def test_a_source_that_is_not_text_is_refused():
    refused(r"own settings entry 0 source must be a string \(text\), got 5 of type int", extra("NCCL_DEBUG", "WARN", 5))


@pytest.mark.parametrize("value", ["22 # comment", "22#", "#22"])
def test_a_value_with_a_comment_is_refused(value):
    refused(r"nccl_env_extra NCCL_IB_TIMEOUT: the value %r holds '#'; NCCL has no inline comment .* Allowed: one "
            r"line without '#'" % value, extra("NCCL_IB_TIMEOUT", value))


@pytest.mark.parametrize("value", ["WARN\n", "WARN\tINFO", "a\x00b", "a\u0085b"])
def test_a_value_with_a_control_character_is_refused(value):
    refused(r"nccl_env_extra NCCL_DEBUG: the value .* holds the control character .* single line of printable",
            extra("NCCL_DEBUG", value))


def test_an_unknown_name_is_refused_with_a_did_you_mean():
    message = refused(r"nccl_env_extra: the key 'NCCL_TOPO' is not a variable NCCL 2.27/2.28/2.29 reads; "
                      r"did you mean NCCL_TOPO_FILE", extra("NCCL_TOPO", "/etc/nccl/topo.xml"))
    assert "allowed: the names of NCCL_PARAM and ncclGetEnv in NCCL's source" in message
    refused(r"'NCCL_IB_TIMEOUTS' is not a variable .*did you mean NCCL_IB_TIMEOUT", extra("NCCL_IB_TIMEOUTS", 22))
    refused(r"'NCCL_XYZZY' is not a variable NCCL 2.27/2.28/2.29 reads; allowed:",
            extra("NCCL_XYZZY", 1))


def test_the_name_is_checked_against_the_version_installed():
    # NCCL_ENV_PLUGIN came with 2.28: 2.27 does not read it.
    assert nccl_conf_merge(extra("NCCL_ENV_PLUGIN", "none"), nccl_version="2.28.9-1+cuda12.9")
    refused(r"'NCCL_ENV_PLUGIN' is not a variable NCCL 2.27 reads \(NCCL 2.28/2.29 does\)",
            extra("NCCL_ENV_PLUGIN", "none"), nccl_version="2.27.7-1+cuda12.9")
    # A version the catalogue lacks is checked against every catalogued one.
    assert nccl_conf_merge(extra("NCCL_ENV_PLUGIN", "none"), nccl_version="2.30.7-1+cuda13.0")
    refused(r"nccl_version: '2.27\\n' is not an NCCL version; expected apt's form such as 2.27.7-1\+cuda12.9",
            extra("NCCL_DEBUG", "WARN"), nccl_version="2.27\n")


def test_the_catalogue():
    assert sorted(PARAMETERS) == sorted(SOURCE_TAGS) == ["2.27", "2.28", "2.29"]
    # Counted from the tags with docs/tools/nccl_params.py.
    assert [len(PARAMETERS[v]) for v in ("2.27", "2.28", "2.29")] == [170, 187, 215]
    for names in PARAMETERS.values():
        assert {"NCCL_TOPO_FILE", "NCCL_IB_HCA", "NCCL_SOCKET_IFNAME", "NCCL_IB_TIMEOUT", "NCCL_IB_GID_INDEX",
                "NCCL_IB_TC", "NCCL_DEBUG", "NCCL_P2P_LEVEL", "NCCL_NET_GDR_LEVEL"} <= names
        assert "NCCL_TOPO" not in names
    assert known_parameters("2.28")[0] == PARAMETERS["2.28"]
    assert PARAMETERS["2.27"] <= PARAMETERS["2.28"] <= PARAMETERS["2.29"]


@pytest.mark.parametrize("key", ["NCCL_IB_GID_INDEX", "NCCL_IB_TC", "NCCL_IB_ROCE_VERSION_NUM"])
def test_roce_settings_are_refused_on_infiniband(key):
    refused(r"the fabric is InfiniBand but %s \(nccl_env_extra\) sets it, which only RoCE uses .* allowed on "
            r"InfiniBand: none of NCCL_IB_GID_INDEX, NCCL_IB_TC, NCCL_IB_ROCE_VERSION_NUM" % key,
            extra(key, 3), fabric="infiniband")
    assert nccl_conf_merge(extra(key, 3), fabric="roce") == extra(key, "3")
    assert nccl_conf_merge(extra(key, 3)) == extra(key, "3")


def test_roce_file_left_behind_is_refused_on_infiniband():
    message = refused(r"NCCL_IB_GID_INDEX \(/etc/gpufleet/nccl-roce.conf\), NCCL_IB_TC "
                      r"\(/etc/gpufleet/nccl-roce.conf\) "
                      r"set them", [], "NCCL_IB_GID_INDEX=3\nNCCL_IB_TC=106\n", fabric="infiniband")
    assert "or the RoCE settings file a roce_host run left behind" in message


def test_an_unknown_fabric_is_refused():
    refused(r"fabric: 'ib' is not a fabric kind; expected infiniband or roce, or null when unknown",
            extra("NCCL_DEBUG", "WARN"), fabric="ib")


# ---------------------------------------------------------------- no raw exception escapes
@pytest.mark.parametrize("args, kwargs", [
    ((None,), {}), (("NCCL_DEBUG=WARN",), {}), (({"key": "NCCL_DEBUG"},), {}), (([None],), {}), (([[1, 2]],), {}),
    (([{"key": None, "value": 1, "source": "s"}],), {}), (([{"key": "NCCL_DEBUG", "value": [1], "source": "s"}],), {}),
    (([{"key": "NCCL_DEBUG", "value": 1.5, "source": "s"}],), {}), (([], 5), {}), (([], b"x"), {}),
    (([], None, None), {}), (([], None, 5), {}), (([], None, "a=b"), {}), (([],), {"nccl_version": 2.28}),
    (([],), {"nccl_version": ["2.28"]}), (([],), {"fabric": 1}), (([],), {"fabric": ["roce"]}),
    (([{"key": "NCCL_DEBUG", "value": 1, "source": None}],), {}),
    (([{"key": "NCCL_DEBUG", "value": 1, "source": "s", "x": 1}],), {}),
])
def test_wrong_types_are_clear_errors(args, kwargs):
    with pytest.raises(AnsibleFilterError, match="^gpufleet.cluster.nccl_conf_merge: ") as info:
        nccl_conf_merge(*args, **kwargs)
    assert is_refusal(info.value.__context__)  # a check refused it, not the fallback


# ---------------------------------------------------------------- property: what is written is what NCCL reads
def render(settings_):
    """The role's template, as Ansible renders it (trim_blocks), with a stand-in for the comment filter."""
    env = jinja2.Environment(trim_blocks=True, keep_trailing_newline=True, undefined=jinja2.StrictUndefined)
    env.filters["comment"] = lambda text: "#\n# %s\n#" % text
    with open(_TEMPLATE, encoding="utf-8") as handle:
        return env.from_string(handle.read()).render(ansible_managed="Ansible managed", __nccl_settings=settings_)


def nccl_reads(text):
    """setEnvFile (src/misc/param.cc): split at the first '=', nothing stripped, the first of a key wins."""
    env = {}
    for line in text.split("\n"):
        if "=" in line:
            key, value = line.split("=", 1)
            env.setdefault(key, value)
    return env


_KNOWN = sorted(PARAMETERS["2.27"] - {"NCCL_IB_HCA", "NCCL_SOCKET_IFNAME"})
_KEYS = st.one_of(st.sampled_from(_KNOWN), near_valid(st.sampled_from(_KNOWN)), hostile_text(min_size=1))
_VALUES = st.one_of(hostile_text(min_size=0), hostile_numbers())
_SOURCES = st.one_of(st.just("nccl_env_extra"), hostile_text(min_size=0))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(_KEYS, _VALUES, _SOURCES), max_size=6))
def test_property_written_lines_read_back_or_refused(entries):
    own = [{"key": k, "value": v, "source": s} for k, v, s in entries]
    try:
        result = nccl_conf_merge(own, nccl_version="2.27.7-1+cuda12.9")
    except AnsibleFilterError as exc:
        assert str(exc).startswith("gpufleet.cluster.nccl_conf_merge: ")
        return
    text = render(result)
    set_ = [(k, v, s) for k, v, s in entries if v is not None and v != ""]
    expected = {k: str(v) for k, v, _source in set_}
    assert nccl_reads(text) == expected
    # Exactly one KEY=VALUE line per setting, under its '# source' line; every other line a comment without '='.
    lines = text.split("\n")
    assert lines[-1] == ""
    settings_lines = [line for line in lines if line and not line.startswith("#")]
    assert settings_lines == ["%s=%s" % (k, v) for k, v in expected.items()]
    assert all("=" not in line for line in lines if line.startswith("#"))
    for key, value, source in set_:
        index = lines.index("%s=%s" % (key, value))
        assert lines[index - 1] == "# " + source
