# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The slurm_conf_check filter: results, errors under the filter's name, values a line cannot hold (issue 13),
the value checks (issue 16 item 4: the FQCN in every refusal, the cluster= and qos= arguments with hostile input,
the role's defaults and the inventories still passing), properties with hostile values, wrong types."""
from __future__ import annotations

import glob
import math
import os
import re

import pytest
import yaml
from ansible.errors import AnsibleFilterError
from hypothesis import example, event, given, settings, strategies as st
from nasty_input import hostile_numbers, hostile_text, near_valid

from ansible_collections.gpufleet.cluster.plugins.filter import slurm_conf_check as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.slurm_conf_check import slurm_conf_check
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.input_rules import is_valid
from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import is_refusal
from filter_docs import assert_documented
from slurm_lines import clean
from wrong_types import assert_only_refusals


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
FAST = settings(max_examples=200, deadline=None)
FQCN = r"^gpufleet\.cluster\.slurm_conf_check: "
RELEASES = ("22.05.8", "23.11.4", "24.11.5")
PREEMPT = {"PreemptType": "preempt/qos", "PreemptMode": "REQUEUE"}
HIGH = {"name": "high", "preempt": ["normal"], "preempt_mode": "requeue"}


def _yaml(*parts):
    with open(os.path.join(ROOT, *parts)) as handle:
        return yaml.safe_load(handle) or {}


def refused(match, *args, **kwargs):
    with pytest.raises(AnsibleFilterError, match=match) as error:
        slurm_conf_check(*args, **kwargs)
    return str(error.value)


# ---------------------------------------------------------------- through the filter
def test_issue_values_through_the_filter():
    cluster = {"nodes": 8, "cpus": 896, "gpus": 64}
    result = slurm_conf_check({"MaxJobCount": 64}, "slurm.conf", "22.05.8", cluster=cluster)
    assert result["lines"] == ["MaxJobCount=64"]
    assert len(result["warnings"]) == 1 and result["warnings"][0].startswith("slurm.conf MaxJobCount=64 is below 2688")
    refused(FQCN + r"slurm\.conf PriorityCalcPeriod=3600: Slurm reads it in minutes, so it is 3600 minutes \(60 "
                   r"hours\)",
            {"PriorityCalcPeriod": 3600}, "slurm.conf", "24.11.5")
    refused(FQCN + r"slurm\.conf MaxJobCount=4 is below the cluster's 8 nodes", {"MaxJobCount": 4}, "slurm.conf",
            "23.11.4", cluster=cluster)
    refused(FQCN + r"slurm\.conf PreemptType=preempt/qos, but no QOS in qos preempts another", PREEMPT, "slurm.conf",
            "22.05", qos=[{"name": "normal"}])


def test_positional_and_old_callers_still_work():
    assert slurm_conf_check({"ClusterName": "c"}, "slurm.conf", "22.05.8", False, None, None)["lines"] == [
        "ClusterName=c"]
    assert slurm_conf_check({}, "cgroup.conf", "23.11.4", defaults=True)["lines"][0] == "CgroupPlugin=autodetect"


@pytest.mark.parametrize("kwargs", [{"cluster": {"nodes": 1}}, {"qos": []}, {"topology": {"kind": "tree"}}])
def test_cluster_qos_and_topology_are_for_slurm_conf_only(kwargs):
    refused(FQCN + r"cluster, qos and topology apply to slurm\.conf only, not cgroup\.conf", {}, "cgroup.conf",
            "22.05", **kwargs)


BLOCKS = {"kind": "block", "blocks": [{"name": "nvl1", "nodes": "gpu[01-18]"}]}
TREE = {"kind": "tree", "leaves": [{"name": "leaf1", "nodes": "gpu[01-04]"}]}


@pytest.mark.parametrize("fabric, plugin", [(BLOCKS, "topology/block"), (TREE, "topology/tree"),
                                            ({"leaves": TREE["leaves"]}, "topology/tree")])
def test_the_topology_plugin_follows_the_topology_kind(fabric, plugin):
    # Issue 28: kind block got TopologyPlugin=topology/tree, which does not read BlockName= lines.
    result = slurm_conf_check({"SelectType": "select/cons_tres"}, "slurm.conf", "24.11", topology=fabric)
    assert result["settings"]["TopologyPlugin"] == plugin
    assert "TopologyPlugin=" + plugin in result["lines"]


def test_the_topology_plugin_is_seen_by_the_combination_checks():
    refused(FQCN + r"slurm\.conf: SelectType=select/linear with TopologyPlugin=topology/tree is not supported by "
            r"Slurm 24\.11",
            {"SelectType": "select/linear"}, "slurm.conf", "24.11", topology=TREE)
    result = slurm_conf_check({"SelectType": "select/linear"}, "slurm.conf", "24.11", topology=BLOCKS)
    assert result["settings"]["TopologyPlugin"] == "topology/block"


def test_a_topology_plugin_that_contradicts_the_topology_is_refused():
    refused(FQCN + r"slurm\.conf: topologyplugin=topology/tree contradicts gpufleet_fabric\.topology \(kind block\), "
            r"whose topology\.conf only topology/block reads", {"topologyplugin": "topology/tree"}, "slurm.conf",
            "24.11", topology=BLOCKS)
    same = slurm_conf_check({"TopologyPlugin": "topology/block"}, "slurm.conf", "24.11", topology=BLOCKS)
    assert same["lines"] == ["TopologyPlugin=topology/block"]


def test_block_topology_needs_slurm_23_11_and_a_mapping():
    refused(FQCN + r"topology/block needs Slurm >= 23\.11; Slurm 22\.05 has only topology/tree", {}, "slurm.conf",
            "22.05", topology=BLOCKS)
    refused(FQCN + r"fabric kind 'dragonfly' is not tree or block", {}, "slurm.conf", "24.11",
            topology={"kind": "dragonfly"})
    refused(FQCN + r"topology must be a topology mapping", {}, "slurm.conf", "24.11", topology=["tree"])


def test_value_checks_run_after_the_key_checks():
    # A whitespace value is refused by the renderer's rule before the time check sees it.
    refused(FQCN + r"slurm\.conf PriorityMaxAge='7 days' contains whitespace", {"PriorityMaxAge": "7 days"},
            "slurm.conf", "22.05")
    refused(FQCN + r"slurm\.conf PriorityMaxAge='7days' is not a time Slurm reads", {"PriorityMaxAge": "7days"},
            "slurm.conf", "22.05")


# ---------------------------------------------------------------- the role's defaults and the inventories
def _inventory_cases():
    defaults = _yaml("roles", "slurm", "defaults", "main.yml")
    cases = []
    for inventory in sorted(glob.glob(os.path.join(ROOT, "inventories", "*"))):
        name = os.path.basename(inventory)
        group_vars = {}
        for path in sorted(glob.glob(os.path.join(inventory, "group_vars", "all", "*.yml"))):
            group_vars.update(_yaml(path))
        nodes_vars = dict(defaults)
        nodes_vars.update(_yaml(inventory, "group_vars", "gpu_nodes.yml"))
        hosts = os.path.join(inventory, "hosts.yml")
        if os.path.exists(hosts):
            counts = [len(_yaml(hosts)["all"]["children"]["cluster"]["children"]["gpu_nodes"]["hosts"])]
        else:  # the lab's hosts are written by `lab up`: 1 controller + 2 or + 8 GPU nodes
            counts = [2, 8]
        for count in counts:
            cluster = {"nodes": count, "cpus": count * int(nodes_vars["slurm_node_cpus"]),
                       "gpus": count * int(nodes_vars["slurm_gpu_count"])}
            settings_ = dict(defaults["slurm_conf_defaults"])
            # PrivateData and SrunPortRange (roles/slurm/vars/main.yml __slurm_exposure_conf).
            settings_.update({"PrivateData": ",".join(defaults["slurm_private_data"]),
                              "SrunPortRange": defaults["slurm_srun_port_range"]})
            # The accounting keys the role adds (roles/slurm/vars/main.yml __slurm_accounting_conf).
            settings_.update({"AccountingStorageType": "accounting_storage/slurmdbd", "AccountingStorageHost": "head",
                              "AccountingStorageTRES": "gres/gpu",
                              "AccountingStorageEnforce": ",".join(defaults["slurm_accounting_enforce"])})
            settings_.update(group_vars.get("slurm_conf_extra") or {})
            qos = group_vars.get("slurm_qos")
            cases.append(pytest.param(settings_, cluster, qos, id="%s-%d-nodes" % (name, count)))
    return cases


def test_the_reference_design_figures():
    # inventories/h100-64: 8 nodes of 2 x 52 cores (SMT off) and 8 H100 each.
    assert [case.values[1] for case in _inventory_cases() if case.id == "h100-64-8-nodes"] == [
        {"nodes": 8, "cpus": 832, "gpus": 64}]


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("settings_, cluster, qos", _inventory_cases())
def test_role_defaults_and_inventories_pass(settings_, cluster, qos, release):
    result = slurm_conf_check(settings_, "slurm.conf", release, cluster=cluster, qos=qos)
    assert result["warnings"] == []
    assert "PreemptMode=%s" % settings_["PreemptMode"] in result["lines"]
    assert "PriorityDecayHalfLife=7-0" in result["lines"]
    assert "AccountingStorageEnforce=associations,limits,qos" in result["lines"]


# ---------------------------------------------------------------- hostile input in the new arguments
def _whole(value):
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 0xFFFFFFFF


@FAST
@given(field=st.sampled_from(["nodes", "cpus", "gpus"]), value=hostile_numbers())
def test_cluster_numbers(field, value):
    cluster = {"nodes": 8, "cpus": 832, "gpus": 64}
    cluster[field] = value
    try:
        result = slurm_conf_check({"MaxJobCount": 10000}, "slurm.conf", "22.05.8", cluster=cluster)
    except AnsibleFilterError as error:
        if _whole(value):  # a valid count: refused only for more nodes than MaxJobCount
            assert field == "nodes" and value > 10000
            assert re.match(FQCN + r"slurm\.conf MaxJobCount=10000 is below the cluster's %d nodes" % value, str(error))
        else:
            assert re.match(FQCN + r"cluster %s \(total %s in the cluster\)" % (field, field), str(error)), str(error)
        return
    assert _whole(value) and not (field == "nodes" and value > 10000)
    assert result["lines"] == ["MaxJobCount=10000"]
    running = max(cluster.values())
    assert len(result["warnings"]) == (1 if 10000 < 3 * running else 0)


@FAST
@given(cluster=st.one_of(hostile_numbers(), hostile_text(), st.lists(hostile_numbers(), max_size=3),
                         st.dictionaries(hostile_text(0, 6), hostile_numbers(), max_size=4)),
       qos=st.one_of(st.none(), hostile_numbers(), hostile_text(), st.lists(st.one_of(
           hostile_text(), st.dictionaries(st.sampled_from(["name", "state", "preempt", "preempt_mode", "x"]),
                                           st.one_of(hostile_text(), hostile_numbers(),
                                                     st.lists(hostile_text(), max_size=2)), max_size=5)), max_size=3)))
def test_no_raw_exception_for_any_argument(cluster, qos):
    try:
        slurm_conf_check(dict(PREEMPT), "slurm.conf", "24.11", cluster=cluster, qos=qos)
    except AnsibleFilterError as error:
        assert str(error).startswith("gpufleet.cluster.slurm_conf_check: ")
        assert is_refusal(error.__context__), error  # a check refused it, not the fallback


_VALID_NAME = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)


@FAST
@given(name=st.one_of(_VALID_NAME, near_valid(_VALID_NAME), hostile_text(1, 12)))
def test_qos_names(name):
    qos = [{"name": name, "preempt": ["normal"]}]
    try:
        result = slurm_conf_check(dict(PREEMPT), "slurm.conf", "22.05.8", qos=qos)
    except AnsibleFilterError as error:
        assert not is_valid("slurm_name", name) or name == "normal"
        assert re.match(FQCN + r"qos(\[0\] name: .* is not allowed| normal lists itself)", str(error)), str(error)
        return
    assert is_valid("slurm_name", name)
    assert result["lines"] == ["PreemptType=preempt/qos", "PreemptMode=REQUEUE"]


@FAST
@given(mode=st.one_of(st.sampled_from(["requeue", "CANCEL", "Off", "cluster", "suspend"]), hostile_text(0, 10)))
def test_qos_preempt_modes(mode):
    try:
        slurm_conf_check({"PreemptType": "preempt/qos", "PreemptMode": "SUSPEND,GANG"}, "slurm.conf", "22.05.8",
                         qos=[dict(HIGH, preempt_mode=mode)])
    except AnsibleFilterError as error:
        assert mode.lower() not in ("cluster", "cancel", "requeue", "suspend", "off")
        assert re.match(FQCN + r"qos high preempt_mode: .* is not allowed; expected one of", str(error))
        return
    assert mode.lower() in ("cluster", "cancel", "requeue", "suspend", "off")


_TIME = re.compile(r"([0-9]+)(?::([0-9]+))?(?::([0-9]+))?|([0-9]+)-([0-9]+)(?::([0-9]+))?(?::([0-9]+))?")


def _seconds(text):
    """Seconds of a Slurm time string, worked independently of the code under test; None when not one."""
    if text.upper() in ("-1", "INFINITE", "UNLIMITED"):
        return -1
    match = _TIME.fullmatch(text)
    if not match:
        return None
    parts = [int(p) if p is not None else None for p in match.groups()]
    if parts[0] is not None:
        given_ = [p for p in parts[:3] if p is not None]
        scale = {1: [60], 2: [60, 1], 3: [3600, 60, 1]}[len(given_)]
    else:
        given_ = [p for p in parts[3:] if p is not None]
        scale = [86400, 3600, 60, 1][:len(given_)]
    return sum(p * s for p, s in zip(given_, scale))


_VALID_TIME = st.one_of(st.from_regex(r"[0-9]{1,4}(:[0-9]{2}){0,2}", fullmatch=True),
                        st.from_regex(r"[0-9]{1,3}-[0-9]{1,2}(:[0-9]{2}){0,2}", fullmatch=True),
                        st.sampled_from(["INFINITE", "unlimited", "-1"]))


@FAST
@given(value=st.one_of(_VALID_TIME, near_valid(_VALID_TIME), hostile_text(1, 12)))
def test_time_values(value):
    try:
        result = slurm_conf_check({"PriorityMaxAge": value}, "slurm.conf", "24.11")
    except AnsibleFilterError as error:
        seconds = _seconds(value)
        assert seconds is None or seconds > 0x7FFFFFFF, (value, str(error))
        assert str(error).startswith("gpufleet.cluster.slurm_conf_check: slurm.conf PriorityMaxAge=")
        return
    assert _seconds(value) is not None and _seconds(value) <= 0x7FFFFFFF
    assert result["lines"] == ["PriorityMaxAge=%s" % value]
    assert result["lines"][0].split("=", 1)[1] == value


@FAST
@given(value=st.one_of(st.sampled_from(["REQUEUE", "cancel,gang", "SUSPEND,GANG", "requeue,within"]),
                       near_valid(st.sampled_from(["REQUEUE", "CANCEL,GANG"])), hostile_text(1, 12)))
@example(value=",")  # found by hypothesis (2026-11-29): a mode of no words is OFF
def test_preempt_mode_values(value):
    try:
        result = slurm_conf_check({"PreemptType": "preempt/qos", "PreemptMode": value}, "slurm.conf", "22.05.8")
    except AnsibleFilterError as error:
        # A mode of no words (',') is OFF: refused as preemption on with the cluster-wide mode OFF.
        assert str(error).startswith(("gpufleet.cluster.slurm_conf_check: slurm.conf PreemptMode",
                                      "gpufleet.cluster.slurm_conf_check: slurm.conf PreemptType=preempt/qos with "
                                      "PreemptMode=%s: preemption is on but the cluster-wide mode is OFF" % value))
        return
    words = [w.upper() for w in value.split(",") if w]
    modes = [w for w in words if w not in ("GANG", "WITHIN")]
    assert set(words) <= {"OFF", "CLUSTER", "CANCEL", "REQUEUE", "SUSPEND", "ON", "GANG", "WITHIN"}
    assert len(modes) == 1 and modes[0] not in ("OFF", "CLUSTER")
    assert result["lines"] == ["PreemptType=preempt/qos", "PreemptMode=%s" % value]


# ---------------------------------------------------------------- results and errors under the filter's name
def test_registered_and_documented():
    assert_documented(plugin, "slurm_conf_check")


def test_conf_check_result():
    result = slurm_conf_check({"ControlMachine": "head1", "ClusterName": "gpufleet", "UsePAM": False}, "slurm.conf",
                              "22.05.8")
    assert result["lines"] == ["ClusterName=gpufleet", "UsePAM=NO", "SlurmctldHost=head1"]
    assert result["translated"][0]["from"] == "ControlMachine"
    assert result["warnings"] == []


def test_conf_check_cgroup_defaults_overlay():
    result = slurm_conf_check({"constrainramspace": False, "ConstrainSwapSpace": True}, "cgroup.conf", "23.11.4",
                              defaults=True)
    assert result["lines"] == ["CgroupPlugin=autodetect", "ConstrainCores=YES", "ConstrainDevices=YES",
                               "ConstrainRAMSpace=NO", "ConstrainSwapSpace=YES"]


@pytest.mark.parametrize("call, message", [
    (lambda: slurm_conf_check({"PriorityDecayType": "x"}, "slurm.conf", "22.05.8"),
     r"^gpufleet\.cluster\.slurm_conf_check: slurm.conf key 'PriorityDecayType' is not accepted by Slurm 22.05"),
    (lambda: slurm_conf_check({"MaxConcurrentJobs": 1}, "slurm.conf", "23.11.4"),
     r"^gpufleet\.cluster\.slurm_conf_check: .*'MaxConcurrentJobs' is not accepted by Slurm 23.11"),
    (lambda: slurm_conf_check([], "slurm.conf", "22.05"), r"^gpufleet\.cluster\.slurm_conf_check: input must be a "
                                                          r"mapping"),
    (lambda: slurm_conf_check({}, "slurm.cfg", "22.05"), r"^gpufleet\.cluster\.slurm_conf_check: conf must be one of"),
    (lambda: slurm_conf_check({}, "slurm.conf", 22.05), r"^gpufleet\.cluster\.slurm_conf_check: version must be a "
                                                        r"string"),
    (lambda: slurm_conf_check({}, "slurm.conf", "21.08"), r"^gpufleet\.cluster\.slurm_conf_check: .*known releases: "
                                                          r"22.05, 23.11, 24.11"),
    (lambda: slurm_conf_check({}, "slurm.conf", "22.05", defaults=True), r"defaults=true exists for cgroup.conf only"),
    (lambda: slurm_conf_check({}, "slurm.conf", "22.05", defaults="yes"), r"defaults must be true or false"),
])
def test_errors_name_the_filter(call, message):
    with pytest.raises(AnsibleFilterError, match=message):
        call()


# ---------------------------------------------------------------- issue 13: values a line cannot hold
@pytest.mark.parametrize("value, shown", [("head\x00", r"'head\\x00'"), ("head\x1b[31m", r"'head\\x1b\[31m'"),
                                          ("head\n", r"'head\\n'"), ("head\u2028", r"'head\\u2028'")])
def test_control_characters_in_a_value(value, shown):
    refused(r"^gpufleet\.cluster\.slurm_conf_check: slurm\.conf ClusterName=%s contains a control character"
            % shown, {"ClusterName": value}, "slurm.conf", "22.05.8")


@pytest.mark.parametrize("key, value, allowed", [
    ("SlurmctldPort", -1, r"a port 1-65535, or a range LOW-HIGH of ports"),
    ("SlurmctldPort", "-1", r"a port 1-65535, or a range LOW-HIGH of ports"),
    ("SlurmctldPort", 0, r"a port 1-65535, or a range LOW-HIGH of ports .* \(0 is outside 1-65535\)"),
    ("SlurmctldPort", 65536, r"a port 1-65535, .* \(65536 is outside 1-65535\)"),
    ("SlurmctldPort", "6818-6817", r"a port 1-65535, .* \(the range 6818-6817 does not go from a lower to a higher"),
    ("SlurmctldPort", "6817-6817", r"a port 1-65535, .* \(the range 6817-6817 does not go from a lower to a higher "
                                   r"port"),
    ("SlurmctldPort", "6817-", r"a port 1-65535, or a range LOW-HIGH of ports"),
    ("SlurmdPort", 0, r"a port: a whole number 1-65535 \(0 is outside 1-65535\)"),
    ("SlurmdPort", "6818-6819", r"a port: a whole number 1-65535"),
    ("AccountingStoragePort", 70000, r"a port: a whole number 1-65535"),
    ("JobCompPort", "0x1AE1", r"a port: a whole number 1-65535"),
    ("SrunPortRange", "60001", r"a range LOW-HIGH of ports 1-65535"),
    ("SrunPortRange", "60001-70000", r"a range LOW-HIGH of ports 1-65535, e\.g\. 60001-63000 \(60001-70000 is outside"),
])
def test_port_keys(key, value, allowed):
    refused(r"^gpufleet\.cluster\.slurm_conf_check: slurm\.conf %s: %r is not allowed; expected %s"
            % (key, value, allowed), {key: value}, "slurm.conf", "22.05.8")


@pytest.mark.parametrize("key, value, port", [
    ("DbdPort", 0, r"slurmdbd\.conf DbdPort: 0"), ("StoragePort", "3306\n", r"slurmdbd\.conf StoragePort: '3306\\n'")])
def test_slurmdbd_ports(key, value, port):
    refused(port + r" is not allowed; expected a port: a whole number 1-65535",
            {key: value}, "slurmdbd.conf", "22.05.8")


@pytest.mark.parametrize("settings, lines", [
    ({"SlurmctldPort": 6817}, ["SlurmctldPort=6817"]),
    ({"SlurmctldPort": "6817-6818"}, ["SlurmctldPort=6817-6818"]),  # Slurm takes a range (read_config.c)
    ({"SlurmdPort": "6818", "SrunPortRange": "60001-63000"}, ["SlurmdPort=6818", "SrunPortRange=60001-63000"]),
    ({"MaxJobCount": "0x10"}, ["MaxJobCount=0x10"]),  # strtoul(..., 0) reads hex
])
def test_ports_and_numbers_slurm_accepts(settings, lines):
    assert slurm_conf_check(settings, "slurm.conf", "22.05.8")["lines"] == lines


@pytest.mark.parametrize("key, value, message", [
    ("MaxJobCount", "010", r"MaxJobCount='010': Slurm reads a number with a leading 0 as octal"),
    ("MaxJobCount", "1_000", r"MaxJobCount='1_000' is not a number \(Slurm parses it as u32; decimal digits"),
    ("MaxJobCount", "\u0661\u0662", r"MaxJobCount='\u0661\u0662' is not a number"),
    ("MaxJobCount", -1, r"MaxJobCount=-1 is outside 0\.\.4294967295"),
    ("TreeWidth", 2 ** 16, r"TreeWidth=65536 is outside 0\.\.65535"),
])
def test_numeric_keys_typed_per_catalogue(key, value, message):
    refused(message, {key: value}, "slurm.conf", "22.05.8")


@pytest.mark.parametrize("value", [math.nan, math.inf, "nan", "1e3", "95\n"])
def test_float_keys_are_finite_numbers(value):
    refused(r"cgroup\.conf MaxRAMPercent", {"MaxRAMPercent": value}, "cgroup.conf", "22.05.8")


@pytest.mark.parametrize("host", ["head1 (10.0.0.1)", "head1(10.0.0.1", "head#1", "head1(10.0.0.1)x", "(10.0.0.1)"])
def test_slurmctld_host_form(host):
    refused(re.escape("slurm.conf SlurmctldHost=%r: expected NAME or NAME(ADDRESS): a host name of" % host),
            {"SlurmctldHost": host}, "slurm.conf", "22.05.8")


def test_option_mapping_names():
    refused(r"SchedulerParameters: option name 'bf_interval=30,x' is not allowed",
            {"SchedulerParameters": {"bf_interval=30,x": True}}, "slurm.conf", "22.05.8")


# ---------------------------------------------------------------- properties: refused, or written as given
_PLAIN_VALUE = re.compile(r"[!$-~]+")  # printable ASCII without blank, '"' and '#'


@FAST
@given(value=st.one_of(hostile_text(0, 16), near_valid(st.from_regex(r"[a-z][a-z0-9_-]{0,10}", fullmatch=True))))
def test_string_values_are_refused_or_written_as_given(value):
    try:
        out = slurm_conf_check({"ClusterName": value}, "slurm.conf", "22.05.8")
    except AnsibleFilterError as error:
        event("refused")
        assert str(error).startswith("gpufleet.cluster.slurm_conf_check: slurm.conf ClusterName")
        assert (value == "" or not all(c.isprintable() and not c.isspace() for c in value) or "#" in value
                or '"' in value)
        return
    assert out["lines"] == ["ClusterName=" + value]
    assert clean(out["lines"][0]) and out["lines"][0].split("=", 1)[1] == value and " " not in value


@FAST
@given(value=st.one_of(hostile_numbers(), st.integers(-5, 70000).map(str),
                       near_valid(st.sampled_from(["6817", "6817-6818"])),
                       st.tuples(st.integers(0, 70000), st.integers(0, 70000)).map(lambda t: "%d-%d" % t)))
def test_ports_are_refused_or_in_range(value):
    text = str(value)
    number = isinstance(value, (int, str)) and not isinstance(value, bool)
    match = re.fullmatch(r"([0-9]+)(?:-([0-9]+))?", text) if number else None
    valid = bool(match) and 1 <= int(match.group(1)) <= 65535 and (
        match.group(2) is None or int(match.group(1)) < int(match.group(2)) <= 65535)
    try:
        out = slurm_conf_check({"SlurmctldPort": value}, "slurm.conf", "24.11.5")
    except AnsibleFilterError as error:
        event("refused")
        assert not valid, error
        assert "SlurmctldPort" in str(error) and "1-65535" in str(error)
        return
    assert valid and out["lines"] == ["SlurmctldPort=" + text]


# ---------------------------------------------------------------- wrong types: refused by a check, nothing else
VALID = [{"SlurmctldPort": "6817-6818", "SchedulerParameters": {"bf_interval": 30}, "ClusterName": "c",
          "SlurmctldHost": ["h1(10.0.0.1)"]}, "slurm.conf", "22.05.8"]


def test_valid_call_works():
    assert slurm_conf_check(*VALID) is not None


def test_wrong_types_and_missing_keys_are_refused():
    assert_only_refusals("slurm_conf_check", slurm_conf_check, VALID)


# ---------------------------------------------------------------- secrets and the variables the values come from
DBD = {"StorageLoc": "slurm_acct_db", "StorageUser": "slurm"}
NAMES = {"StorageLoc": "slurm_db_name", "StorageUser": "slurm_db_user", "StoragePass": "slurm_db_password"}


@pytest.mark.parametrize("password, why", [
    ("correct#horse-battery", "'#', which starts a comment"), ("correct horse battery", "a blank"),
    ("correct-horse\nbattery", "a control character"), ("correct-horse-battery\n", "a control character"),
    ('correct"horse"battery', "a double quote or backslash"), ("correct\\horse\\battery", "a double quote"),
    ("", "must be a non-empty string"), (12345678901234, "must be a non-empty string"),
])
def test_a_password_slurmdbd_would_cut_is_refused_naming_the_variable_not_the_value(password, why):
    with pytest.raises(AnsibleFilterError) as err:
        slurm_conf_check(dict(DBD, StoragePass=password), "slurmdbd.conf", "23.11.4", names=NAMES)
    message = str(err.value)
    assert message.startswith("gpufleet.cluster.slurm_conf_check: slurm_db_password: slurmdbd.conf StoragePass (its "
                              "value is a secret and not shown)"), message
    assert why in message
    if isinstance(password, str) and password:
        assert password not in message and password.split()[0] not in message and "correct" not in message


@given(hostile_text(min_size=1))
@example("pass#word-long-enough")
def test_a_secret_never_reaches_a_message(password):
    for conf, key in (("slurmdbd.conf", "StoragePass"), ("slurm.conf", "AccountingStoragePass")):
        try:
            result = slurm_conf_check({key: password}, conf, "23.11.4")
        except AnsibleFilterError as err:
            assert repr(password) not in str(err) and "(its value is a secret and not shown)" in str(err)
        else:
            assert result["lines"] == ["%s=%s" % (key, password)]
            assert not set(password) & set("#\"\\") and not any(ch.isspace() for ch in password)


def test_names_lead_the_message_of_the_value_they_name():
    assert slurm_conf_check(dict(DBD, StoragePass="Xy7-long-password"), "slurmdbd.conf", "22.05.8",
                            names=NAMES)["lines"] == [
        "StorageLoc=slurm_acct_db", "StorageUser=slurm", "StoragePass=Xy7-long-password"]
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.slurm_conf_check: slurm_db_name: slurmdbd\.conf "
                                                 r"StorageLoc='acct db' contains whitespace"):
        slurm_conf_check(dict(DBD, StorageLoc="acct db"), "slurmdbd.conf", "23.11.4", names=NAMES)
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.slurm_conf_check: slurmdbd\.conf StorageLoc"):
        slurm_conf_check(dict(DBD, StorageLoc="acct db"), "slurmdbd.conf", "23.11.4")
    for bad in (["StorageLoc"], {"StorageLoc": 1}, "x"):
        with pytest.raises(AnsibleFilterError, match="names"):
            slurm_conf_check(DBD, "slurmdbd.conf", "23.11.4", names=bad)
