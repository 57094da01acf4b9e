# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The lustre_client_lnet filter: lnet.conf data and modprobe lines, observed interfaces, errors under the
filter's name, issue 13's values, the inventories' values, the property that lines parse back, wrong types."""
from __future__ import annotations

import copy

import pytest
import yaml
from ansible.errors import AnsibleFilterError
from hypothesis import given, strategies as st

from ansible_collections.gpufleet.cluster.plugins.filter import lustre_client_lnet as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_client_lnet import lustre_client_lnet
from filter_docs import assert_documented
from filter_refusals import refused_with
from group_vars import SOURCES, variables
from render_properties import FAST, no_control, number, text
from wrong_types import assert_only_refusals


def test_registered_and_documented():
    assert_documented(plugin, "lustre_client_lnet")


def test_lnet_filter_doc_example():
    result = lustre_client_lnet([{"net": "o2ib0", "interfaces": ["ib0"]}],
                                o2ib_tunables={"peer_credits": 32, "peer_credits_hiw": 16, "concurrent_sends": 64})
    assert result["lnet_conf"] == {"net": [{"net type": "o2ib0", "local NI(s)": [
        {"interfaces": {0: "ib0"}, "tunables": {"peer_credits": 32}, "lnd tunables": {"concurrent_sends": 64}}]}]}
    assert result["modprobe_lines"] == ["options ko2iblnd concurrent_sends=64 peer_credits=32 peer_credits_hiw=16"]
    assert result["nets"] == ["o2ib0"] and result["problems"] == []


def test_lnet_filter_observed_and_errors():
    result = lustre_client_lnet([{"net": "o2ib0", "interfaces": ["eth0"]}],
                                observed={"eth0": {"exists": True, "type": 1, "rdma": False}})
    assert len(result["problems"]) == 1 and "o2ib needs an IPoIB interface" in result["problems"][0]
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.lustre_client_lnet: input must be a list of "
                                                 r"\{net, interfaces\}, "
                       r"got 'o2ib0\(ib0\)' of type str$"):
        lustre_client_lnet("o2ib0(ib0)")
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.lustre_client_lnet: "
                                                 r"lustre_client_o2ib_tunables\.peer_credits is 300"):
        lustre_client_lnet([{"net": "o2ib0", "interfaces": ["ib0"]}], o2ib_tunables={"peer_credits": 300})
    with pytest.raises(AnsibleFilterError, match=r"observed must be a dict"):
        lustre_client_lnet([{"net": "o2ib0", "interfaces": ["ib0"]}], observed=["ib0"])


def test_lnet_filter_o2ib_interface_without_ipv4():
    # Issue 28: o2ib0 on an ib0 without an IPv4 address passed the link-type check, and the mount failed.
    ib0 = {"exists": True, "type": 32, "rdma": True}
    nets = [{"net": "o2ib0", "interfaces": ["ib0"]}]
    bare = lustre_client_lnet(nets, observed={"ib0": dict(ib0, addresses=[])})["problems"]
    assert len(bare) == 1 and bare[0].startswith("o2ib0: interface ib0 has no IPv4 address, and none is given to it")
    assert "rdma_ipoib_interfaces [{name: ib0, address: <IPv4>/<prefix>}]" in bare[0]
    assert lustre_client_lnet(nets, observed={"ib0": dict(ib0, addresses=["10.10.1.11/16"])})["problems"] == []


# ---------------------------------------------------------------- issue 13: refused naming field, value and rule
def test_lnet_interface_with_newline_refused():
    refused_with(lambda: lustre_client_lnet([{"net": "o2ib0", "interfaces": ["ib0\n"]}]),
                 "gpufleet.cluster.lustre_client_lnet", "lustre_client_lnet_networks[0].interfaces[0]", "'ib0\\n'",
                 "a Linux interface name: 1 to 15 letters")


def test_lnet_interface_with_newline_does_not_slip_past_the_duplicate_check():
    # ib0 and 'ib0\n' were two NIs on the same interface; now the second is refused for what it is
    message = refused_with(lambda: lustre_client_lnet([{"net": "o2ib0", "interfaces": ["ib0"]},
                                                       {"net": "tcp0", "interfaces": ["ib0\n"]}]),
                           "lustre_client_lnet_networks[1].interfaces[0]", "'ib0\\n'", "a Linux interface name")
    assert "already in" not in message
    refused_with(lambda: lustre_client_lnet([{"net": "o2ib0", "interfaces": ["ib0"]},
                                             {"net": "tcp0", "interfaces": ["ib0"]}]),
                 "interface ib0 is already in o2ib0")


@pytest.mark.parametrize("observed, parts", [
    ({"ib0": "yes"}, ("observed['ib0'] must be a mapping", "got 'yes' of type str")),
    ({"ib0": {"exists": "yes"}}, ("observed['ib0'].exists must be true or false", "got 'yes' of type str")),
    ({"ib0": {"exists": True, "type": "32"}}, ("observed['ib0'].type must be a whole number", "got '32' of type str")),
    ({"ib0": {"exists": True, "kind": 32}},
     ("observed['ib0'] has unknown key(s) 'kind'; allowed: addresses, exists, rdma, type",)),
    ({"ib0": {"exists": True, "addresses": "10.10.1.11"}},
     ("observed['ib0'].addresses must be a list", "got '10.10.1.11' of type str")),
    ({"ib0": {"exists": True, "addresses": ["10.10.1.11\n"]}},
     ("observed['ib0'].addresses[0] must be an IP address (10.10.1.11 or 10.10.1.11/16)", "got '10.10.1.11\\n'")),
])
def test_lnet_observed_of_the_wrong_type_refused(observed, parts):
    # was: AttributeError: 'str' object has no attribute 'get'
    refused_with(lambda: lustre_client_lnet([{"net": "o2ib0", "interfaces": ["ib0"]}], observed=observed), *parts)


# ---------------------------------------------------------------- the reference, lab and molecule/fabric values
@pytest.mark.parametrize("source", sorted(SOURCES))
def test_inventory_values_render(source):
    v = variables(source)
    lnet = lustre_client_lnet(v["lustre_client_lnet_networks"], o2ib_tunables=v.get("lustre_client_o2ib_tunables"),
                              lnet_options=v.get("lustre_client_lnet_options"))
    assert lnet["nets"] == [n["net"] for n in v["lustre_client_lnet_networks"]]


# ---------------------------------------------------------------- property: refused, or lines that parse back
@FAST
@given(st.lists(text("ib0", "ib1", "enp1s0f0"), min_size=1, max_size=3),
       number(st.integers(1, 255)),
       st.dictionaries(text("lnet_transaction_timeout", "lnet_retry_count"),
                       st.one_of(st.integers(0, 100), st.booleans(), text("50", "on")), max_size=2))
def test_lnet_conf_and_modprobe_lines_parse_back(interfaces, credits, options):
    try:
        plan = lustre_client_lnet([{"net": "o2ib0", "interfaces": interfaces}], o2ib_tunables={"peer_credits": credits},
                                  lnet_options=options)
    except AnsibleFilterError as exc:
        assert "gpufleet.cluster.lustre_client_lnet" in str(exc)
        return
    # lnet.conf: the YAML lnetctl import reads holds one NI per interface, exactly the given names
    loaded = yaml.safe_load(yaml.safe_dump(plan["lnet_conf"], sort_keys=False))
    (net,) = loaded["net"]
    assert net["net type"] == "o2ib0"
    assert [ni["interfaces"][0] for ni in net["local NI(s)"]] == interfaces
    assert all(ni["tunables"] == {"peer_credits": credits} for ni in net["local NI(s)"])
    # modprobe lines: "options <module> k=v ..." split on blanks back into every key and value
    lines = plan["modprobe_lines"]
    no_control(*lines)
    assert lines[0].split() == ["options", "ko2iblnd", "peer_credits=%d" % credits]
    expected = {k: ("1" if v is True else "0" if v is False else str(v)) for k, v in options.items()}
    if options:
        assert len(lines) == 2
        words = lines[1].split()
        assert words[:2] == ["options", "lnet"] and dict(w.split("=", 1) for w in words[2:]) == expected
    else:
        assert len(lines) == 1


# ------------------------------------------------------------------ wrong types: refused by a check, nothing else
VALID = [[{"net": "o2ib0", "interfaces": ["ib0", "ib1"]}]]
VALID_KWARGS = {"o2ib_tunables": {"peer_credits": 32, "peer_credits_hiw": 16, "concurrent_sends": 64},
                "lnet_options": {"lnet_transaction_timeout": 50},
                "observed": {"ib0": {"exists": True, "type": 32, "rdma": True}}}


def test_valid_call_works():
    assert lustre_client_lnet(*copy.deepcopy(VALID), **copy.deepcopy(VALID_KWARGS)) is not None


def test_wrong_types_and_missing_keys_are_refused():
    assert_only_refusals('lustre_client_lnet', lustre_client_lnet, VALID, VALID_KWARGS)
