# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Tests that kill mutants of `make mutation MODULES=slurm_conf` (docs/testing.md).

test_slurm_conf.py matches the beginnings of the refusals; here every refusal is compared in full (the reader of a
failed play sees the whole text: field, value, what Slurm does and the fix), each range is tried at both edges, and
every branch of the settings translation, the port rules, the node/partition grouping and gres.conf is taken once.
Expected values are worked by hand from the rules in the module's docstrings and Slurm's parser (read_config.c,
parse_config.c); the large nodes are the reference H100 node of test_slurm_conf.py (2 x 52 cores, 8 GPUs).
"""
from __future__ import annotations

import re
from decimal import Decimal

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm import keys as slurm_keys
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.conf.settings import (
    SlurmConfError,
    cgroup_conf,
    check_gres_counts,
    check_settings,
    gres_conf_lines,
    key_table,
    known_versions,
    node_lines,
    partition_lines,
    render_conf_lines,
    slurm_release,
)

SRC_22 = "SchedMD/slurm tag slurm-22-05-8-1 (read from the source)"
SRC_23 = "SchedMD/slurm tag slurm-23-11-4-1 (read from the source, kept as its differences from 22.05.8)"
UNKNOWN = "slurmctld would stop at 'Parsing error at unrecognized key'"


def said(call, *args, **kwargs):
    """The whole text of the SlurmConfError that call(*args, **kwargs) raises."""
    with pytest.raises(SlurmConfError) as error:
        call(*args, **kwargs)
    return str(error.value)


def node(name, **over):
    """The reference H100 node of test_slurm_conf.py: 2 sockets x 52 cores x 1 thread = 104 CPUs, 8 GPUs."""
    spec = {"name": name, "sockets": 2, "cores_per_socket": 52, "threads_per_core": 1, "cpus": 104,
            "real_memory": 2063937, "gres": [{"type": "gpu", "model": "h100", "count": 8}], "features": ["h100", "ib"]}
    spec.update(over)
    return spec


def small(name, **over):
    """A 1 x 4 x 1 node without gres or features (lines short enough to compare whole)."""
    spec = {"name": name, "sockets": 1, "cores_per_socket": 4, "threads_per_core": 1, "real_memory": 1000}
    spec.update(over)
    return spec


SMALL_LINE = "CPUs=4 Sockets=1 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=1000"
NODES8 = [node("compute%02d" % i) for i in range(1, 9)]


# ---------------------------------------------------------------- releases and the catalogue
def test_known_versions():
    assert known_versions() == ["22.05", "23.11", "24.11"]


@pytest.mark.parametrize("version, release", [(22.05, "22.05"), ("22.5", "22.05"), ("slurm 23.11.4", "23.11"),
                                              (" 24.11.5\n", "24.11")])
def test_release_of_numbers_and_sinfo_output(version, release):
    # a float 22.05 reads as the text '22.05'; one minor digit is padded like Slurm's '22.05'
    assert slurm_release(version) == release


@pytest.mark.parametrize("version", [Decimal("22.05"), b"22.05", ["22.05"], None, 22])
def test_release_of_other_types_refused_in_full(version):
    # only str, int and float are read as text: a Decimal or bytes whose text would match is refused too
    assert said(slurm_release, version) == (
        "Slurm version %r is not a version string such as '22.05.8' or '23.11'; give the installed Slurm version "
        "(sinfo --version)" % (version,))


def test_release_outside_the_catalogue_in_full():
    assert said(slurm_release, "21.08.8") == (
        "Slurm version '21.08.8' (release 21.08) is not in the key catalogue; known releases: 22.05, 23.11, 24.11. "
        "Use one of them or extend plugins/module_utils/slurm/keys.py from that release's source")


def test_key_table_of_a_file_outside_the_catalogue():
    assert said(key_table, "plugstack.conf", "22.05") == (
        "configuration file 'plugstack.conf' is not in the catalogue; known: slurm.conf, slurmdbd.conf, "
        "cgroup.conf, gres.conf")


# ---------------------------------------------------------------- unknown keys
def test_unknown_key_without_a_close_key_in_full():
    assert said(check_settings, "slurm.conf", {"Zzz": 1}, "22.05.8") == (
        "slurm.conf key 'Zzz' is not accepted by Slurm 22.05 (%s): %s; remove it" % (SRC_22, UNKNOWN))


def test_unknown_keys_with_a_hint_in_full():
    assert said(check_settings, "slurm.conf", {"MaxConcurrentJobs": 1}, "22.05") == (
        "slurm.conf key 'MaxConcurrentJobs' is not accepted by Slurm 22.05 (%s): %s; remove it (running-job limits "
        "are association/QOS limits (sacctmgr ... MaxJobs=N, GrpJobs=N); MaxJobCount is the controller-wide total "
        "of jobs kept in memory)" % (SRC_22, UNKNOWN))
    assert said(check_settings, "slurm.conf", {"PriorityDecayType": 1}, "22.05") == (
        "slurm.conf key 'PriorityDecayType' is not accepted by Slurm 22.05 (%s): %s; did you mean PriorityType or "
        "PriorityDecayHalfLife or PriorityCalcPeriod? (Slurm's decay is set by PriorityDecayHalfLife (and "
        "PriorityCalcPeriod); there is no decay type)" % (SRC_22, UNKNOWN))


def test_unknown_key_names_at_most_three_close_keys():
    # PriorityWeight is close to every PriorityWeight* key of 22.05: three are offered, in their own spelling
    message = said(check_settings, "slurm.conf", {"PriorityWeight": 1}, "22.05")
    offered = re.fullmatch(r".*; did you mean (\S+) or (\S+) or (\S+)\?", message).groups()
    table = {k for k, _t in slurm_keys.TABLES["22.05"]["slurm.conf"]}
    assert len(set(offered)) == 3 and all(k.startswith("PriorityWeight") and k in table for k in offered)


def test_render_unknown_key_names_the_release_of_the_version():
    assert said(render_conf_lines, {"Zzz": 1}, "slurm.conf", "22.05.8") == (
        "slurm.conf key 'Zzz' is not accepted by Slurm 22.05 (%s): %s; remove it" % (SRC_22, UNKNOWN))
    assert said(render_conf_lines, {"Zzz": 1}, "cgroup.conf", "23.11") == (
        "cgroup.conf key 'Zzz' is not accepted by Slurm 23.11 (%s): %s; remove it" % (SRC_23, UNKNOWN))


# ---------------------------------------------------------------- check_settings: its own refusals
def test_settings_of_an_unknown_file_or_type():
    assert said(check_settings, "x.conf", {}, "22.05") == (
        "configuration file 'x.conf' is not one of slurm.conf, slurmdbd.conf, cgroup.conf, gres.conf")
    assert said(check_settings, "cgroup.conf", ["ConstrainCores"], "22.05") == (
        "cgroup.conf settings must be a mapping of Key: value, got list")


@pytest.mark.parametrize("key", [5, "", None])
def test_settings_key_that_is_no_name(key):
    assert said(check_settings, "slurm.conf", {key: "x"}, "22.05") == (
        "slurm.conf: key %r is not a non-empty string" % (key,))


def test_settings_key_given_twice_in_full():
    assert said(check_settings, "slurm.conf", {"ClusterName": "a", "clustername": "b"}, "22.05") == (
        "slurm.conf: key 'clustername' is given twice ('ClusterName' and 'clustername'); Slurm keys are "
        "case-insensitive, keep one")


def test_removed_keys_in_full():
    assert said(check_settings, "slurm.conf", {"FastSchedule": 1}, "23.11") == (
        "slurm.conf key 'FastSchedule' is removed in Slurm 23.11: fatal('The FastSchedule option has been "
        "removed...'); FastSchedule=2 is SlurmdParameters=config_overrides; set SlurmdParameters instead")
    assert said(check_settings, "slurm.conf", {"AccountingStorageLoc": "/x"}, "22.05") == (
        "slurm.conf key 'AccountingStorageLoc' is removed in Slurm 22.05: fatal('The AccountingStorageLoc option "
        "has been removed. It is safe to remove from your configuration.'); delete it")


def test_removed_key_that_is_no_longer_in_the_table():
    # 23.11 dropped SlurmctldPlugstack from its table: it is refused as removed, not as unknown
    assert said(check_settings, "slurm.conf", {"SlurmctldPlugstack": "x"}, "23.11") == (
        "slurm.conf key 'SlurmctldPlugstack' is removed in Slurm 23.11: no longer in 23.11's "
        "slurm_conf_options[]; delete it")


def test_renamed_key_and_its_replacement_in_full():
    assert said(check_settings, "slurm.conf", {"CryptoType": "crypto/munge", "CredType": "cred/munge"}, "22.05") == (
        "slurm.conf: both CryptoType and CredType are set; Slurm 22.05 uses CredType and ignores CryptoType ('read "
        "only when CredType is absent, 'crypto' replaced by 'cred' in the value'); keep only CredType")


def test_renamed_keys_report_the_translation_in_full():
    result = check_settings("slurm.conf", {"ClusterName": "c", "CryptoType": "crypto/munge",
                                           "AcctGatherInfinibandType": "acct_gather_infiniband/ofed"}, "24.11")
    assert result == {
        "settings": {"ClusterName": "c", "CredType": "cred/munge",
                     "AcctGatherInterconnectType": "acct_gather_interconnect/ofed"},
        "translated": [
            {"from": "CryptoType", "to": "CredType",
             "why": "read only when CredType is absent, 'crypto' replaced by 'cred' in the value"},
            {"from": "AcctGatherInfinibandType", "to": "AcctGatherInterconnectType",
             "why": "read only when AcctGatherInterconnectType is absent, 'infiniband' replaced by 'interconnect' "
                    "in the value"}],
        "warnings": []}


def test_renamed_value_that_is_not_text_is_kept():
    assert check_settings("slurm.conf", {"CryptoType": 5, "AcctGatherInfinibandType": 6}, "22.05")["settings"] == {
        "CredType": 5, "AcctGatherInterconnectType": 6}


def test_deprecated_key_is_kept_with_a_warning(monkeypatch):
    # No catalogue entry is 'deprecated' today; a release that deprecates ClusterName would keep it and warn.
    real = slurm_keys.key_status

    def status(release, conf):
        entries = dict(real(release, conf))
        if conf == "slurm.conf":
            entries["ClusterName"] = ("deprecated", None, "logs 'ClusterName is deprecated'")
        return entries

    monkeypatch.setattr(slurm_keys, "key_status", status)
    result = check_settings("slurm.conf", {"clustername": "c", "SlurmctldHost": "h"}, "22.05")
    assert result == {"settings": {"ClusterName": "c", "SlurmctldHost": "h"}, "translated": [],
                      "warnings": ["slurm.conf: ClusterName is deprecated in Slurm 22.05: logs 'ClusterName is "
                                   "deprecated'"]}


# ---------------------------------------------------------------- controller keys
WHY_MACHINE = ("read only when SlurmctldHost is absent, else 'Ignoring ControlMachine since SlurmctldHost is set.' "
               "(read_config.c _load_slurmctld_host)")


def test_control_machine_alone_is_one_host_not_a_list():
    result = check_settings("slurm.conf", {"ControlMachine": "head1", "ClusterName": "c"}, "22.05")
    assert result == {"settings": {"ClusterName": "c", "SlurmctldHost": "head1"},
                      "translated": [{"from": "ControlMachine", "to": "SlurmctldHost", "why": WHY_MACHINE}],
                      "warnings": []}


def test_every_controller_key_with_addresses():
    result = check_settings("slurm.conf", {"controlmachine": "head1", "BackupAddr": "10.0.0.2",
                                           "BackupController": "head2", "ControlAddr": "10.0.0.1"}, "23.11")
    assert result["settings"] == {"SlurmctldHost": ["head1(10.0.0.1)", "head2(10.0.0.2)"]}
    assert result["translated"] == [
        {"from": "controlmachine", "to": "SlurmctldHost", "why": WHY_MACHINE},
        {"from": "ControlAddr", "to": "SlurmctldHost",
         "why": "old-style address of ControlMachine; becomes SlurmctldHost=name(addr)"},
        {"from": "BackupController", "to": "SlurmctldHost",
         "why": "old-style backup controller; becomes a second SlurmctldHost line"},
        {"from": "BackupAddr", "to": "SlurmctldHost",
         "why": "address of BackupController; becomes the second SlurmctldHost=name(addr)"}]


def test_controller_key_refusals_in_full():
    assert said(check_settings, "slurm.conf", {"ControlAddr": "10.0.0.1", "BackupController": "b"}, "22.05") == (
        "slurm.conf: BackupController, ControlAddr given without ControlMachine; Slurm 22.05 reads the old-style "
        "controller keys only as a set ('No SlurmctldHost defined.'); write SlurmctldHost=<host>[(<addr>)] instead")
    assert said(check_settings, "slurm.conf", {"ControlMachine": "a", "BackupAddr": "10.0.0.2"}, "22.05") == (
        "slurm.conf: BackupAddr=10.0.0.2 without BackupController; Slurm 22.05 stops with 'BackupAddr specified "
        "without BackupController'; add the backup host or drop BackupAddr")
    assert said(check_settings, "slurm.conf", {"ControlMachine": "a", "BackupController": "b",
                                               "SlurmctldHost": "c"}, "22.05") == (
        "slurm.conf: SlurmctldHost and BackupController, ControlMachine are both set; Slurm 22.05 ignores the old "
        "keys ('Ignoring ControlMachine since SlurmctldHost is set.'); keep only SlurmctldHost")


@pytest.mark.parametrize("settings_, key, host", [
    ({"ControlMachine": "h1,h2"}, "ControlMachine", "h1,h2"),
    ({"ControlMachine": "h1", "BackupController": "h2,h3"}, "BackupController", "h2,h3"),
])
def test_several_controller_hosts_need_an_address(settings_, key, host):
    assert said(check_settings, "slurm.conf", settings_, "24.11") == (
        "slurm.conf: %s=%s names several hosts but has no address; Slurm 24.11 stops with 'ControlMachine has "
        "multiple host names, so ControlAddr must be specified'; give one host per SlurmctldHost" % (key, host))


def test_several_controller_hosts_with_an_address_meet_the_host_rule():
    assert said(check_settings, "slurm.conf", {"ControlMachine": "h1,h2", "ControlAddr": "10.0.0.1"}, "24.11") == (
        "slurm.conf SlurmctldHost='h1,h2(10.0.0.1)': expected NAME or NAME(ADDRESS): a host name of letters, "
        "digits, '.', '_' and '-' and an address of letters, digits, '.', ':' and '-' (an IPv4 or IPv6 address or "
        "a DNS name)")


@pytest.mark.parametrize("value", ["head 1", "head1(10.0.0.1", 5, ["head1", "-x"]])
def test_slurmctld_host_rule(value):
    shown = "'-x'" if isinstance(value, list) else repr(value)
    assert said(render_conf_lines, {"SlurmctldHost": value}) == (
        "slurm.conf SlurmctldHost=%s: expected NAME or NAME(ADDRESS): a host name of letters, digits, '.', '_' and "
        "'-' and an address of letters, digits, '.', ':' and '-' (an IPv4 or IPv6 address or a DNS name)" % shown)


def test_slurmctld_host_accepts_an_ipv6_address():
    assert render_conf_lines({"SlurmctldHost": "head1(fd00::1)"}) == ["SlurmctldHost=head1(fd00::1)"]


# ---------------------------------------------------------------- KeepAliveTime, value rules, combinations
def test_keepalivetime_alone_and_first():
    result = check_settings("slurm.conf", {"KeepAliveTime": 60, "ClusterName": "c"}, "22.05")
    assert result == {"settings": {"ClusterName": "c", "CommunicationParameters": ["keepalivetime=60"]},
                      "translated": [{"from": "KeepAliveTime", "to": "CommunicationParameters",
                                      "why": "'KeepAliveTime parameter has moved to CommunicationParameters' "
                                             "(keepalivetime=N there takes precedence)"}],
                      "warnings": []}


@pytest.mark.parametrize("params, items", [
    ("NoAddrCache,,NoInAddrAny,", ["NoAddrCache", "NoInAddrAny"]),
    (["NoAddrCache", "block_null_hash"], ["NoAddrCache", "block_null_hash"]),
    ({"NoAddrCache": True, "getnameinfo_cache_timeout": 30}, ["NoAddrCache", "getnameinfo_cache_timeout=30"]),
    (7, ["7"]),
])
def test_keepalivetime_joins_every_form_of_communication_parameters(params, items):
    settings_ = check_settings("slurm.conf", {"CommunicationParameters": params, "KeepAliveTime": 60},
                               "22.05")["settings"]
    assert settings_ == {"CommunicationParameters": items + ["keepalivetime=60"]}


def test_keepalivetime_twice_in_full():
    assert said(check_settings, "slurm.conf", {"CommunicationParameters": "NoAddrCache,KeepAliveTime=30",
                                               "KeepAliveTime": 60}, "22.05") == (
        "slurm.conf: KeepAliveTime=60 and CommunicationParameters keepalivetime= are both set; Slurm uses the "
        "CommunicationParameters one; drop KeepAliveTime")


def test_value_rule_in_full_and_only_on_text():
    assert said(check_settings, "slurm.conf", {"SelectType": " Select/Cons_Res"}, "23.11") == (
        "slurm.conf: SelectType= Select/Cons_Res is refused by Slurm 23.11 (NEWS 23.11.0rc1: 'Removed "
        "select/cons_res. Please update your configuration to select/cons_tres.'); use SelectType=select/cons_tres")
    assert check_settings("slurm.conf", {"SelectType": ["select/cons_tres"]}, "23.11")["settings"] == {
        "SelectType": ["select/cons_tres"]}


def test_linear_with_tree_refusal_in_full_and_other_pairs_pass():
    assert said(check_settings, "slurm.conf", {"SelectType": "select/linear",
                                               "TopologyPlugin": "topology/tree"}, "24.11") == (
        "slurm.conf: SelectType=select/linear with TopologyPlugin=topology/tree is not supported by Slurm 24.11 "
        "(removed in 24.05); use SelectType=select/cons_tres")
    for version in ("23.11", "24.11"):
        assert check_settings("slurm.conf", {"SelectType": "select/cons_tres", "TopologyPlugin": "topology/tree"},
                              version)["warnings"] == []
        assert check_settings("slurm.conf", {"SelectType": "select/linear", "TopologyPlugin": "topology/flat"},
                              version)["warnings"] == []


@pytest.mark.parametrize("first, second", [("DefMemPerCPU", "DefMemPerNode"), ("MaxMemPerCPU", "MaxMemPerNode")])
def test_exclusive_memory_keys_in_full(first, second):
    assert said(check_settings, "slurm.conf", {first: 1, second: 2}, "24.11") == (
        "slurm.conf: %s and %s are both set; Slurm 24.11 keeps one and ignores the other; set only one"
        % (first, second))
    assert check_settings("slurm.conf", {first: 1}, "24.11")["settings"] == {first: 1}
    assert check_settings("slurm.conf", {second: 2}, "24.11")["settings"] == {second: 2}


def test_settings_values_are_checked_with_the_file_name():
    assert said(check_settings, "slurm.conf", {"ClusterName": "a b"}, "22.05") == (
        "slurm.conf ClusterName='a b' contains whitespace; Slurm splits values at whitespace and this collection "
        "does not quote slurm.conf values, use commas as Slurm's lists do")
    assert said(check_settings, "slurmdbd.conf", {"DbdPort": 0}, "22.05") == (
        "slurmdbd.conf DbdPort: 0 is not allowed; expected a port: a whole number 1-65535 (0 is outside 1-65535)")


# ---------------------------------------------------------------- scalar values
@pytest.mark.parametrize("settings_, lines", [
    ({"TreeWidth": 0, "VSizeFactor": 65535}, ["TreeWidth=0", "VSizeFactor=65535"]),
    ({"MaxJobCount": 4294967295}, ["MaxJobCount=4294967295"]),
    ({"DefMemPerCPU": 2 ** 64 - 1}, ["DefMemPerCPU=18446744073709551615"]),
    ({"TreeWidth": "0x10", "VSizeFactor": "0xFFFF", "MaxJobCount": "infinite"},
     ["TreeWidth=0x10", "VSizeFactor=0xFFFF", "MaxJobCount=infinite"]),
    ({"ClusterName": 5, "Epilog": 2.5}, ["ClusterName=5", "Epilog=2.5"]),
    ({"DownNodes": 1.5}, ["DownNodes=1.5"]),
    ({"DownNodes": ["n[1-2],n5", 2.5]}, ["DownNodes=n[1-2],n5", "DownNodes=2.5"]),
])
def test_render_numbers_at_their_edges(settings_, lines):
    assert render_conf_lines(settings_) == lines


@pytest.mark.parametrize("value", ["yes", "No", "TRUE", "false", "Up", "down", "1", "0"])
def test_every_yes_no_word(value):
    # parse_value.c reads these in any case; they are written as given
    assert render_conf_lines({"UsePAM": value}) == ["UsePAM=%s" % value]


@pytest.mark.parametrize("value, text", [(99.5, "99.5"), ("99.5", "99.5"), ("95", "95"), (".5", ".5"), ("5.", "5.")])
def test_float_keys(value, text):
    assert render_conf_lines({"AllowedRAMSpace": value}, "cgroup.conf", "22.05") == ["AllowedRAMSpace=%s" % text]


@pytest.mark.parametrize("conf, settings_, message", [
    ("slurm.conf", {"ReturnToService": True},
     "slurm.conf ReturnToService=True: Slurm parses ReturnToService as u16, not yes/no; write the number or word "
     "Slurm documents for it (e.g. 0 or 1)"),
    ("slurm.conf", {"UsePAM": 1}, "slurm.conf UsePAM=1: UsePAM is a yes/no key; write true or false"),
    ("slurm.conf", {"TreeWidth": -1}, "slurm.conf TreeWidth=-1 is outside 0..65535 (Slurm parses it as u16)"),
    ("slurm.conf", {"TreeWidth": 65536}, "slurm.conf TreeWidth=65536 is outside 0..65535 (Slurm parses it as u16)"),
    ("slurm.conf", {"MaxJobCount": 2 ** 32},
     "slurm.conf MaxJobCount=4294967296 is outside 0..4294967295 (Slurm parses it as u32)"),
    ("slurm.conf", {"DefMemPerCPU": 2 ** 64},
     "slurm.conf DefMemPerCPU=18446744073709551616 is outside 0..18446744073709551615 (Slurm parses it as u64)"),
    ("slurm.conf", {"SlurmctldTimeout": "70000"},
     "slurm.conf SlurmctldTimeout=70000 is outside 0..65535 (Slurm parses it as u16)"),
    ("slurm.conf", {"SlurmctldTimeout": "0x10000"},
     "slurm.conf SlurmctldTimeout=65536 is outside 0..65535 (Slurm parses it as u16)"),
    ("slurm.conf", {"SlurmctldTimeout": "010"},
     "slurm.conf SlurmctldTimeout='010': Slurm reads a number with a leading 0 as octal; write it without the "
     "leading zeros"),
    ("slurm.conf", {"SlurmctldTimeout": "soon"},
     "slurm.conf SlurmctldTimeout='soon' is not a number (Slurm parses it as u16; decimal digits, 0x hex or "
     "UNLIMITED are accepted)"),
    ("slurm.conf", {"SlurmctldTimeout": 1.5},
     "slurm.conf SlurmctldTimeout=1.5: Slurm parses SlurmctldTimeout as u16; give a whole number"),
    ("cgroup.conf", {"AllowedRAMSpace": float("inf")},
     "cgroup.conf AllowedRAMSpace=inf: expected a finite number, not NaN or infinity"),
    ("cgroup.conf", {"AllowedRAMSpace": "1e3"},
     "cgroup.conf AllowedRAMSpace='1e3' is not a number such as 95 or 99.5 (Slurm parses it as float)"),
    ("cgroup.conf", {"AllowedRAMSpace": "ninety"},
     "cgroup.conf AllowedRAMSpace='ninety' is not a number such as 95 or 99.5 (Slurm parses it as float)"),
    ("cgroup.conf", {"AllowedRAMSpace": "inf"},
     "cgroup.conf AllowedRAMSpace='inf' is not a number such as 95 or 99.5 (Slurm parses it as float)"),
    ("slurm.conf", {"ClusterName": None},
     "slurm.conf ClusterName=None: value must be a string, number, boolean or list, not NoneType"),
    ("slurm.conf", {"ClusterName": b"x"},
     "slurm.conf ClusterName=b'x': value must be a string, number, boolean or list, not bytes"),
    ("slurm.conf", {"ClusterName": ""}, "slurm.conf ClusterName is empty; omit the key to get Slurm's default"),
    ("slurm.conf", {"ClusterName": "a\nb"},
     "slurm.conf ClusterName='a\\nb' contains a control character (a line break, tab, NUL, ESC ...); expected "
     "printable text without blanks, '#' or '\"'"),
    ("slurm.conf", {"ClusterName": "a#b"},
     "slurm.conf ClusterName='a#b' contains '#' (starts a comment anywhere on a Slurm line); Slurm cannot take it "
     "in a value, remove it"),
    ("slurm.conf", {"ClusterName": 'a"b'},
     "slurm.conf ClusterName='a\"b' contains a double quote; Slurm cannot take it in a value, remove it"),
    ("slurm.conf", {"UsePAM": "maybe"},
     "slurm.conf UsePAM='maybe' is not yes/no (parse_value.c accepts yes, no, true, false, up, down, 1, 0)"),
    ("slurm.conf", {"TreeWidth": [70000]}, "slurm.conf TreeWidth=70000 is outside 0..65535 (Slurm parses it as u16)"),
])
def test_scalar_refusals_in_full(conf, settings_, message):
    assert said(render_conf_lines, settings_, conf, "22.05") == message


# ---------------------------------------------------------------- lists and option mappings
def test_option_mapping_with_capitals_and_dots():
    assert render_conf_lines({"CommunicationParameters": {"NoAddrCache": True, "block_null_hash": True},
                              "SchedulerParameters": {"bf_window": 1440, "max_rpc_cnt": 150}}) == [
        "CommunicationParameters=NoAddrCache,block_null_hash", "SchedulerParameters=bf_window=1440,max_rpc_cnt=150"]


@pytest.mark.parametrize("settings_, message", [
    ({"UsePAM": {"x": True}}, "slurm.conf UsePAM: a mapping only renders for list-of-options keys"),
    ({"SchedulerParameters": {"bf_continue": False}},
     "slurm.conf SchedulerParameters: option 'bf_continue' is False; leave it out instead"),
    ({"SchedulerParameters": {"bf_continue": None}},
     "slurm.conf SchedulerParameters: option 'bf_continue' is None; leave it out instead"),
    ({"SchedulerParameters": {"bf window": 1}},
     "slurm.conf SchedulerParameters: option name 'bf window' is not allowed; expected letters, digits, '_', '.', "
     "'+', '/' and '-' (no '=', ',', blank or '#')"),
    ({"SchedulerParameters": {5: True}},
     "slurm.conf SchedulerParameters: option name 5 is not allowed; expected letters, digits, '_', '.', '+', '/' "
     "and '-' (no '=', ',', blank or '#')"),
    ({"GresTypes": []}, "slurm.conf GresTypes is an empty list; omit the key instead"),
    ({"GresTypes": ["gpu,mps"]}, "slurm.conf GresTypes: list item 'gpu,mps' contains a comma; give the items "
                                 "separately"),
])
def test_list_and_mapping_refusals_in_full(settings_, message):
    assert said(render_conf_lines, settings_) == message


# ---------------------------------------------------------------- ports
@pytest.mark.parametrize("settings_, lines", [
    ({"SlurmdPort": 1}, ["SlurmdPort=1"]), ({"SlurmdPort": "65535"}, ["SlurmdPort=65535"]),
    ({"SlurmctldPort": 6817}, ["SlurmctldPort=6817"]), ({"SlurmctldPort": "1-65535"}, ["SlurmctldPort=1-65535"]),
    ({"SrunPortRange": "60001-63000"}, ["SrunPortRange=60001-63000"]),
    ({"JobCompPort": 3306, "AccountingStoragePort": "6819"}, ["JobCompPort=3306", "AccountingStoragePort=6819"]),
])
def test_ports_accepted(settings_, lines):
    assert render_conf_lines(settings_) == lines


ONE = "a port: a whole number 1-65535"
RANGE = "a port 1-65535, or a range LOW-HIGH of ports (LOW < HIGH), e.g. 6817 or 6817-6818"
SRUN = "a range LOW-HIGH of ports 1-65535, e.g. 60001-63000"
NODE = "a port 1-65535, or ports and LOW-HIGH ranges in hostlist form, e.g. 6818 or [17001-17004]"


@pytest.mark.parametrize("key, value, message", [
    ("SlurmdPort", 0, "0 is not allowed; expected %s (0 is outside 1-65535)" % ONE),
    ("SlurmdPort", 65536, "65536 is not allowed; expected %s (65536 is outside 1-65535)" % ONE),
    ("SlurmdPort", "6817-6818", "'6817-6818' is not allowed; expected %s" % ONE),
    ("SlurmdPort", "abc", "'abc' is not allowed; expected %s" % ONE),
    ("SrunPortRange", "60001", "'60001' is not allowed; expected %s" % SRUN),
    ("SlurmctldPort", "0-6818", "'0-6818' is not allowed; expected %s (0-6818 is outside 1-65535)" % RANGE),
    ("SlurmctldPort", "6817-65536",
     "'6817-65536' is not allowed; expected %s (6817-65536 is outside 1-65535)" % RANGE),
    ("SlurmctldPort", "65536-65535",
     "'65536-65535' is not allowed; expected %s (65536-65535 is outside 1-65535)" % RANGE),
    ("SlurmctldPort", "6817-0", "'6817-0' is not allowed; expected %s (6817-0 is outside 1-65535)" % RANGE),
    ("SlurmctldPort", "6818-6817",
     "'6818-6817' is not allowed; expected %s (the range 6818-6817 does not go from a lower to a higher port; "
     "Slurm: 'Invalid SlurmctldPort')" % RANGE),
    ("SlurmctldPort", "1-1",
     "'1-1' is not allowed; expected %s (the range 1-1 does not go from a lower to a higher port; Slurm: 'Invalid "
     "SlurmctldPort')" % RANGE),
])
def test_port_refusals_in_full(key, value, message):
    assert said(render_conf_lines, {key: value}) == "slurm.conf %s: %s" % (key, message)


@pytest.mark.parametrize("value, kind", [(True, "bool"), (6818.0, "float"), (None, "NoneType")])
def test_port_of_another_type_in_full(value, kind):
    assert said(render_conf_lines, {"SlurmdPort": value}) == (
        "slurm.conf SlurmdPort must be a number or a string (%s), got %r of type %s" % (ONE, value, kind))


def test_slurmdbd_ports():
    assert render_conf_lines({"DbdPort": 6819, "StoragePort": "3306"}, "slurmdbd.conf", "24.11") == [
        "DbdPort=6819", "StoragePort=3306"]
    assert said(render_conf_lines, {"StoragePort": "3306-3307"}, "slurmdbd.conf", "24.11") == (
        "slurmdbd.conf StoragePort: '3306-3307' is not allowed; expected %s" % ONE)


@pytest.mark.parametrize("port", ["6818", "[17001-17004]", "6818,6820-6821", "[1-1]", "65535"])
def test_node_port_forms(port):
    assert node_lines([small("n1", extra={"Port": port})]) == ["NodeName=n1 %s Port=%s" % (SMALL_LINE, port)]


@pytest.mark.parametrize("port, why", [
    ("[6818", ""), ("6818]", ""), ("abc", ""), ("[0-4]", " (0-4 is outside 1-65535)"),
    ("6818,6818-6817", " (the range 6818-6817 does not go from a lower to a higher port; Slurm: 'Invalid Port')"),
])
def test_node_port_refusals_in_full(port, why):
    assert said(node_lines, [small("n1", extra={"Port": port})]) == (
        "NodeName Port: %r is not allowed; expected %s%s" % (port, NODE, why))


# ---------------------------------------------------------------- cgroup.conf
def test_cgroup_conf_every_flag_off():
    assert cgroup_conf("24.11", constrain_devices=False, constrain_cores=False, constrain_ram=False,
                       cgroup_plugin="cgroup/v2") == [
        "CgroupPlugin=cgroup/v2", "ConstrainCores=NO", "ConstrainDevices=NO", "ConstrainRAMSpace=NO"]
    assert cgroup_conf("22.05", constrain_cores=False) == [
        "CgroupPlugin=autodetect", "ConstrainCores=NO", "ConstrainDevices=YES", "ConstrainRAMSpace=YES"]


@pytest.mark.parametrize("kwargs, message", [
    ({"cgroup_plugin": "disabled"},
     "cgroup.conf CgroupPlugin='disabled' is not accepted by Slurm 23.11; use one of autodetect, cgroup/v1, cgroup/v2"),
    ({"constrain_devices": "yes"}, "cgroup_conf constrain_devices must be true or false, got 'yes'"),
    ({"constrain_cores": 1}, "cgroup_conf constrain_cores must be true or false, got 1"),
    ({"constrain_ram": None}, "cgroup_conf constrain_ram must be true or false, got None"),
])
def test_cgroup_conf_refusals_in_full(kwargs, message):
    assert said(cgroup_conf, "23.11", **kwargs) == message


# ---------------------------------------------------------------- nodes
def test_smallest_and_largest_node_numbers():
    nodes = [small("n1", sockets=1, cores_per_socket=1, real_memory=1, weight=0),
             small("n2", sockets=65535, cores_per_socket=1, cpus=65535, real_memory=2 ** 64 - 1, weight=4294967294,
                   gres=[{"type": "gpu", "count": 1}, {"type": "gpu", "model": "a100", "count": 4294967295}])]
    assert node_lines(nodes) == [
        "NodeName=n1 CPUs=1 Sockets=1 CoresPerSocket=1 ThreadsPerCore=1 RealMemory=1 Weight=0",
        "NodeName=n2 CPUs=65535 Sockets=65535 CoresPerSocket=1 ThreadsPerCore=1 RealMemory=18446744073709551615 "
        "Gres=gpu:1,gpu:a100:4294967295 Weight=4294967294"]


def test_node_cpus_default_to_the_product_and_boards_spread_sockets():
    # 4 sockets on 2 boards x 8 cores x 2 threads = 64 CPUs; the extra keys are written sorted by name whatever
    # their case, in Slurm's spelling
    assert node_lines([small("n1", sockets=4, boards=2, cores_per_socket=8, threads_per_core=2,
                             extra={"TmpDisk": 100, "memspeclimit": 2000})], "24.11") == [
        "NodeName=n1 CPUs=64 Boards=2 Sockets=4 CoresPerSocket=8 ThreadsPerCore=2 RealMemory=1000 MemSpecLimit=2000 "
        "TmpDisk=100"]


@pytest.mark.parametrize("over, message", [
    ({"sockets": 65536}, "node n1 sockets=65536 is outside 1..65535"),
    ({"sockets": True}, "node n1 sockets must be a whole number, got True"),
    ({"cores_per_socket": 0}, "node n1 cores_per_socket=0 is outside 1..65535"),
    ({"threads_per_core": "2"}, "node n1 threads_per_core must be a whole number, got '2'"),
    ({"boards": 0}, "node n1 boards=0 is outside 1..65535"),
    ({"boards": 3, "sockets": 2},
     "node n1: sockets=2 is not a multiple of boards=3; Slurm's Sockets is the node total, spread evenly over the "
     "boards"),
    ({"cpus": 8},
     "node n1: cpus=8 but sockets*cores_per_socket*threads_per_core = 1*4*1 = 4; slurmd would reset CPUs "
     "(read_config.c _parse_nodename). Fix the numbers from 'slurmd -C'; to schedule whole cores set "
     "threads_per_core=1"),
    ({"cpus": 0}, "node n1 cpus=0 is outside 1..65535"),
    ({"real_memory": 0}, "node n1 real_memory (MiB)=0 is outside 1..18446744073709551615"),
    ({"real_memory": 2 ** 64}, "node n1 real_memory (MiB)=18446744073709551616 is outside 1..18446744073709551615"),
    ({"features": "h100"}, "node n1 features must be a list of names, got 'h100'"),
    ({"features": ["ib", "a b"]}, "node n1 features[1]: 'a b' is not allowed; expected a letter or digit, then up "
                                  "to 63 letters, digits, '.', '_' or '-'"),
    ({"features": ["ib", "ib"]}, "node n1 features ['ib', 'ib'] repeat a feature"),
    ({"weight": 4294967295}, "node n1 weight=4294967295 is outside 0..4294967294"),
    ({"weight": -1}, "node n1 weight=-1 is outside 0..4294967294"),
    ({"extra": ["TmpDisk"]}, "node n1 extra must be a mapping of Slurm options (Key: value), got ['TmpDisk'] of "
                             "type list"),
    ({"extra": {"Procs": 4}}, "node n1 extra sets Procs, which this function writes from its own fields; use the "
                              "field instead"),
    ({"extra": {"Zzz": 4}}, "slurm.conf NodeName key 'Zzz' is not accepted by Slurm 22.05 (%s): %s; remove it"
                            % (SRC_22, UNKNOWN)),
    ({"extra": {"TmpDisk": 2 ** 32}}, "NodeName TmpDisk=4294967296 is outside 0..4294967295 (Slurm parses it as u32)"),
    ({"gres": "gpu:8"}, "node n1 gres must be a list of {type, model, count}, got 'gpu:8'"),
    ({"gres": ["gpu"]}, "node n1 gres[0] must be a mapping with type, optional model and count, got 'gpu'"),
    ({"gres": [{"count": 1}]}, "node n1 gres[0] must be a mapping with type, optional model and count, got "
                               "{'count': 1}"),
    ({"gres": [{"type": "gpu", "count": 1, "colour": "red"}]},
     "node n1 gres[0] must be a mapping with type, optional model and count, got {'type': 'gpu', 'count': 1, "
     "'colour': 'red'}"),
    ({"gres": [{"type": 5, "count": 1}]},
     "node n1 gres[0] type: 5 is not allowed; expected a letter, then up to 63 letters, digits or '_' (e.g. gpu)"),
    ({"gres": [{"type": "gpu", "model": "h 100", "count": 1}]},
     "node n1 gres[0] model (e.g. h100): 'h 100' is not allowed; expected a letter or digit, then up to 63 "
     "letters, digits, '.', '_' or '-'"),
    ({"gres": [{"type": "gpu", "count": 4294967296}]}, "node n1 gres[0] count=4294967296 is outside 1..4294967295"),
    ({"gres": [{"type": "gpu", "model": "h100", "count": 4}, {"type": "gpu", "model": "h100", "count": 4}]},
     "node n1 gres[1] repeats gpu:h100; give each type/model once with its total count"),
])
def test_node_refusals_in_full(over, message):
    assert said(node_lines, [small("n1", **over)]) == message


def test_extra_keys_are_read_in_case_insensitive_order():
    # 'z_zz' sorts before 'zzz' ('_' < 'z'), but 'Z_ZZ' after 'ZZZ': the first unknown key in lower-case order is named
    assert said(node_lines, [small("n1", extra={"Zzz": 1, "Z_zz": 2})]) == (
        "slurm.conf NodeName key 'Z_zz' is not accepted by Slurm 22.05 (%s): %s; remove it" % (SRC_22, UNKNOWN))
    assert said(partition_lines, [{"name": "a", "nodes": "ALL", "extra": {"Zzz": 1, "Z_zz": 2}}], [small("n1")]) == (
        "slurm.conf PartitionName key 'Z_zz' is not accepted by Slurm 22.05 (%s): %s; remove it" % (SRC_22, UNKNOWN))


@pytest.mark.parametrize("nodes, message", [
    ([], "nodes must be a non-empty list of node mappings, got []"),
    ("n1", "nodes must be a non-empty list of node mappings, got 'n1'"),
    (["n1"], "node 0 must be a mapping with name, cpus, sockets, ..., got 'n1'"),
    ([small("n1", colour="red", age=3)],
     "node 0 (n1): unknown field(s) age, colour; known: name, cpus, boards, sockets, cores_per_socket, "
     "threads_per_core, real_memory, gres, features, weight, extra"),
    ([small("n 1")], "node 0 name: 'n 1' is not allowed; expected a letter or digit, then up to 63 letters, digits, "
                     "'.', '_' or '-'"),
    ([small("n1"), small("n2"), small("n1")], "node n1 is listed twice (items 0 and 2); give each node once"),
])
def test_node_list_refusals_in_full(nodes, message):
    assert said(node_lines, nodes) == message


def test_groups_are_ordered_by_their_first_host_in_natural_order():
    # n9 and n10 share a spec: the group's first host is n9 (natural order), which sorts before n09 (one digit
    # before two); plain text order would make n10 the group's first host, after n09.
    nodes = [small("n10"), small("n09", real_memory=2000), small("n9")]
    assert node_lines(nodes) == ["NodeName=n[9-10] %s" % SMALL_LINE,
                                 "NodeName=n09 %s" % SMALL_LINE.replace("1000", "2000")]
    # the group holding gpu2 comes before gpu10's, whatever their CPU counts
    assert node_lines([small("gpu10"), small("gpu2", sockets=2, cpus=8)]) == [
        "NodeName=gpu2 CPUs=8 Sockets=2 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=1000",
        "NodeName=gpu10 %s" % SMALL_LINE]


# ---------------------------------------------------------------- partitions
def test_partition_every_field():
    parts = [{"name": "a", "nodes": ["n[1-2]", "n3"], "default": True, "max_time": 5, "state": "drain",
              "extra": {"PriorityTier": 2, "maxnodes": 4}},
             {"name": "b", "nodes": "all", "default": False, "max_time": "unlimited", "state": "Inactive"},
             {"name": "c", "nodes": "n1", "default": None, "max_time": "1-12:00"}]
    nodes = [small("n3"), small("n1"), small("n2")]
    assert partition_lines(parts, nodes) == [
        "PartitionName=a Nodes=n[1-3] Default=YES MaxTime=5 State=DRAIN MaxNodes=4 PriorityTier=2",
        "PartitionName=b Nodes=n[1-3] MaxTime=UNLIMITED State=INACTIVE",
        "PartitionName=c Nodes=n1 MaxTime=1-12:00"]


@pytest.mark.parametrize("parts, message", [
    ([], "partitions must be a non-empty list of partition mappings, got []"),
    ("a", "partitions must be a non-empty list of partition mappings, got 'a'"),
    (["a"], "partition 0 must be a mapping with fields name, nodes, default, max_time, state, extra, got 'a'"),
    ([{"name": "a", "nodes": "ALL", "colour": "red"}],
     "partition 0 must be a mapping with fields name, nodes, default, max_time, state, extra, got {'name': 'a', "
     "'nodes': 'ALL', 'colour': 'red'}"),
    ([{"name": "a b", "nodes": "ALL"}], "partition 0 name: 'a b' is not allowed; expected a letter or digit, then "
                                        "up to 63 letters, digits, '.', '_' or '-'"),
    ([{"name": "Default", "nodes": "ALL"}],
     "partition 0 name 'Default' is Slurm's keyword for defaults; choose another name"),
    ([{"name": "a", "nodes": "ALL"}, {"name": "a", "nodes": "ALL"}],
     "partition a is defined twice; Slurm would merge or reject it"),
    ([{"name": "a", "nodes": []}], "partition a nodes must be a hostlist string or a non-empty list of names, got []"),
    ([{"name": "a", "nodes": 5}], "partition a nodes must be a hostlist string or a non-empty list of names, got 5"),
    ([{"name": "a", "nodes": "n[1-5]"}],
     "partition a references node(s) n[4-5] that have no NodeName line; add them to the node list or remove them"),
    ([{"name": "a", "nodes": ["n1", "n2"]}],
     "node(s) n3 are in no partition, so no job could ever use them; add them to a partition or drop their NodeName "
     "line"),
    ([{"name": "a", "nodes": "ALL", "default": "yes"}], "partition a default must be true or false, got 'yes'"),
    ([{"name": "a", "nodes": "ALL", "default": True}, {"name": "b", "nodes": "ALL", "default": True}],
     "partitions a and b are both default; Slurm takes one default partition"),
    ([{"name": "a", "nodes": "ALL", "max_time": True}],
     "partition a max_time True is not a Slurm time (minutes, [D-]HH:MM:SS or UNLIMITED)"),
    ([{"name": "a", "nodes": "ALL", "max_time": "2 days"}],
     "partition a max_time '2 days' is not a Slurm time (minutes, [D-]HH:MM:SS or UNLIMITED)"),
    ([{"name": "a", "nodes": "ALL", "state": 5}], "partition a state 5 is not one of UP, DOWN, DRAIN, INACTIVE"),
    ([{"name": "a", "nodes": "ALL", "extra": "x"}],
     "partition a extra must be a mapping of Slurm options (Key: value), got 'x' of type str"),
    ([{"name": "a", "nodes": "ALL", "extra": {"Zzz": 1}}],
     "slurm.conf PartitionName key 'Zzz' is not accepted by Slurm 22.05 (%s): %s; remove it" % (SRC_22, UNKNOWN)),
    ([{"name": "a", "nodes": "ALL", "extra": {"PriorityTier": 70000}}],
     "PartitionName PriorityTier=70000 is outside 0..65535 (Slurm parses it as u16)"),
])
def test_partition_refusals_in_full(parts, message):
    assert said(partition_lines, parts, [small("n1"), small("n2"), small("n3")]) == message


@pytest.mark.parametrize("key, field", [("PartitionName", "name"), ("Nodes", "nodes"), ("Default", "default"),
                                        ("MaxTime", "max_time"), ("State", "state"), ("maxtime", "max_time")])
def test_partition_extra_cannot_set_a_field(key, field):
    # The message names the partition's own field that writes the key (slurm_partitions[].max_time, not maxtime).
    assert said(partition_lines, [{"name": "a", "nodes": "ALL", "extra": {key: "x"}}], [small("n1")]) == (
        "partition a extra sets %s; use the %s field" % (key, field))


def test_partition_bad_hostlist_names_the_partition():
    message = said(partition_lines, [{"name": "a", "nodes": "n[3-1]"}], [small("n1")])
    assert message.startswith("partition a nodes: ") and "n[3-1]" in message


# ---------------------------------------------------------------- gres.conf
@pytest.mark.parametrize("mode", ["nvml", "rsmi", "oneapi", "nrt", "off"])
def test_every_autodetect_mode(mode):
    assert gres_conf_lines([{"nodes": "n[1-2]", "autodetect": mode}]) == ["NodeName=n[1-2] AutoDetect=%s" % mode]


def test_gres_numa_order_string_keys_and_device_prefix():
    # NUMA 1 before the GPUs of no NUMA node; numa_cores may use string keys (YAML); File= holds the indexes
    entry = {"nodes": "n1", "name": "gpu", "type": "a100", "device": "/dev/nvidia", "numa_cores": {"1": [7, 0, 2, 3]},
             "gpus": [{"index": 65535}, {"index": 1, "numa_node": 1}, {"index": 0, "numa_node": 1}]}
    assert gres_conf_lines([entry], version="24.11") == [
        "NodeName=n1 Name=gpu Type=a100 File=/dev/nvidia[0-1] Cores=0,2-3,7",
        "NodeName=n1 Name=gpu Type=a100 File=/dev/nvidia65535"]


def test_gres_numa_nodes_without_core_lists():
    entry = {"nodes": "n1", "gpus": [{"index": 2, "numa_node": 65535}, {"index": 1, "numa_node": 0}]}
    assert gres_conf_lines([entry]) == ["NodeName=n1 Name=gpu File=/dev/nvidia1",
                                        "NodeName=n1 Name=gpu File=/dev/nvidia2"]


def test_gres_gpu_without_numa_node_gets_no_cores():
    entry = {"nodes": "n1", "gpus": [{"index": 0, "numa_node": 0}, {"index": 1}], "numa_cores": {0: "0-3"}}
    assert gres_conf_lines([entry]) == ["NodeName=n1 Name=gpu File=/dev/nvidia0 Cores=0-3",
                                        "NodeName=n1 Name=gpu File=/dev/nvidia1"]


@pytest.mark.parametrize("cores, text", [("3-3", "3"), ("7", "7"), ("0-1,5", "0-1,5"), ("0-1,1-2", "0-2"),
                                         ([65535], "65535"), ((4, 5), "4-5")])
def test_core_lists(cores, text):
    entry = {"nodes": "n1", "gpus": [{"index": 0, "numa_node": 0}], "numa_cores": {0: cores}}
    assert gres_conf_lines([entry]) == ["NodeName=n1 Name=gpu File=/dev/nvidia0 Cores=%s" % text]


W = "gres.conf NodeName=n1"


@pytest.mark.parametrize("entry, message", [
    ("n1", "gres entry 0 must be a mapping with fields autodetect, count, device, gpus, name, nodes, numa_cores, "
           "type, got 'n1'"),
    ({"nodes": "n1", "gpu": [{"index": 0}]},
     "gres entry 0 must be a mapping with fields autodetect, count, device, gpus, name, nodes, numa_cores, type, got "
     "{'nodes': 'n1', 'gpu': [{'index': 0}]}"),
    ({"nodes": []}, "gres entry 0 nodes must be a hostlist string or a non-empty list of names, got []"),
    ({"nodes": "n1", "name": 5}, "%s name: 5 is not allowed; expected a letter, then up to 63 letters, digits or '_' "
                                 "(e.g. gpu)" % W),
    ({"nodes": "n1", "type": "a 100"}, "%s type (e.g. h100): 'a 100' is not allowed; expected a letter or digit, "
                                       "then up to 63 letters, digits, '.', '_' or '-'" % W),
    ({"nodes": "n1", "autodetect": "cuda"}, "%s autodetect 'cuda' is not nvml, rsmi, oneapi, nrt or off" % W),
    ({"nodes": "n1", "autodetect": "nvml", "gpus": [{"index": 0}]},
     "%s has both autodetect and gpus; AutoDetect finds the devices itself, give one or the other" % W),
    ({"nodes": "n1", "autodetect": "nvml", "count": 0}, "%s count=0 is outside 1..4294967295" % W),
    ({"nodes": "n1", "autodetect": "nvml", "count": 2 ** 32}, "%s count=4294967296 is outside 1..4294967295" % W),
    ({"nodes": "n1", "gpus": []}, "%s needs gpus: [{index, numa_node}] (or autodetect: nvml)" % W),
    ({"nodes": "n1", "gpus": "0"}, "%s needs gpus: [{index, numa_node}] (or autodetect: nvml)" % W),
    ({"nodes": "n1", "gpus": [{"index": 0}], "numa_cores": [0]}, "%s numa_cores must map NUMA node -> cores, got [0]"
     % W),
    ({"nodes": "n1", "gpus": [0]}, "%s gpus[0] must be {index, numa_node}, got 0" % W),
    ({"nodes": "n1", "gpus": [{"numa_node": 0}]}, "%s gpus[0] must be {index, numa_node}, got {'numa_node': 0}" % W),
    ({"nodes": "n1", "gpus": [{"index": 65536}]}, "%s gpus[0] index=65536 is outside 0..65535" % W),
    ({"nodes": "n1", "gpus": [{"index": 0}, {"index": 0}]}, "%s gpus[1]: GPU index 0 is listed twice" % W),
    ({"nodes": "n1", "gpus": [{"index": 0, "numa_node": 65536}]}, "%s gpus[0] numa_node=65536 is outside 0..65535"
     % W),
    ({"nodes": "n1", "gpus": [{"index": 0, "numa_node": 2}], "numa_cores": {0: "0-3", "1": "4-7"}},
     "%s gpus[0]: numa_node 2 has no entry in numa_cores (0, 1)" % W),
    ({"nodes": "n1", "gpus": [{"index": 0}], "device": "dev/x"},
     "%s device: 'dev/x' is not allowed; expected an absolute path under /dev of letters, digits, '_', '.', '+' and "
     "'-' (no '.' or '..' parts)" % W),
    ({"nodes": "n1", "gpus": [{"index": 0}], "device": "/dev/nvidia0"},
     "%s device: '/dev/nvidia0' ends in a digit; it is the prefix the GPU index is appended to (/dev/nvidia gives "
     "/dev/nvidia0), so '/dev/nvidia00' would read as another device" % W),
    ({"nodes": "n1", "gpus": [{"index": 0, "numa_node": 0}], "numa_cores": {0: "5-3"}},
     "%s numa_cores[0] '5-3' is not a core list such as '0-51' or '0-25,52-77'" % W),
    ({"nodes": "n1", "gpus": [{"index": 0, "numa_node": 0}], "numa_cores": {0: "0-3,x"}},
     "%s numa_cores[0] '0-3,x' is not a core list such as '0-51' or '0-25,52-77'" % W),
    ({"nodes": "n1", "gpus": [{"index": 0, "numa_node": 0}], "numa_cores": {0: 5}},
     "%s numa_cores[0] must be a core list string or a list of core numbers, got 5" % W),
    ({"nodes": "n1", "gpus": [{"index": 0, "numa_node": 0}], "numa_cores": {0: []}},
     "%s numa_cores[0] must be a core list string or a list of core numbers, got []" % W),
    ({"nodes": "n1", "gpus": [{"index": 0, "numa_node": 0}], "numa_cores": {0: [True]}},
     "%s numa_cores[0] must be a core list string or a list of core numbers, got [True]" % W),
    ({"nodes": "n1", "gpus": [{"index": 0, "numa_node": 0}], "numa_cores": {0: ["1"]}},
     "%s numa_cores[0] must be a core list string or a list of core numbers, got ['1']" % W),
    ({"nodes": "n1", "gpus": [{"index": 0, "numa_node": 0}], "numa_cores": {0: [65536]}},
     "%s numa_cores[0] must be a core list string or a list of core numbers, got [65536]" % W),
    ({"nodes": "n1", "gpus": [{"index": 0, "numa_node": 0}], "numa_cores": {0: [-1]}},
     "%s numa_cores[0] must be a core list string or a list of core numbers, got [-1]" % W),
])
def test_gres_entry_refusals_in_full(entry, message):
    assert said(gres_conf_lines, [entry]) == message


@pytest.mark.parametrize("gres, message", [
    ([], "gres must be a non-empty list of gres.conf entries, got []"),
    ("x", "gres must be a non-empty list of gres.conf entries, got 'x'"),
    ([{"nodes": "n1", "autodetect": "nvml"}, {"nodes": "n[1-2]", "autodetect": "nvml"}],
     "node n1 gets gpu from gres entries 0 and 1; describe each node's gpu once"),
])
def test_gres_list_refusals_in_full(gres, message):
    assert said(gres_conf_lines, gres) == message


def test_autodetect_count_edges():
    assert gres_conf_lines([{"nodes": "n1", "autodetect": "nvml", "count": 1},
                            {"nodes": "n2", "autodetect": "nvml", "count": 4294967295}]) == [
        "NodeName=n1 AutoDetect=nvml", "NodeName=n2 AutoDetect=nvml"]


def test_gres_entries_of_other_names_share_a_node():
    assert gres_conf_lines([{"nodes": "n1", "autodetect": "nvml"}, {"nodes": "n1", "name": "mps", "autodetect": "off"}],
                           version="23.11") == ["NodeName=n1 AutoDetect=nvml", "NodeName=n1 AutoDetect=off"]


# ---------------------------------------------------------------- gres counts against the node lines
MIXED = [small("m1", gres=[{"type": "gpu", "model": "h100", "count": 8}, {"type": "gpu", "model": "a100", "count": 2},
                           {"type": "mps", "count": 100}])]


def test_counts_per_model_and_name():
    # a100 entries count the node's a100 only; an entry without type counts every model of its name
    assert check_gres_counts(MIXED, [{"nodes": "m1", "type": "a100", "autodetect": "nvml", "count": 2}]) == {"m1": 2}
    assert check_gres_counts(MIXED, [{"nodes": "m1", "type": "a100",
                                      "gpus": [{"index": 0}, {"index": 1}]}], "24.11") == {"m1": 2}
    assert check_gres_counts(MIXED, [{"nodes": "m1", "autodetect": "nvml", "count": 10}]) == {"m1": 10}
    assert check_gres_counts(MIXED, [{"nodes": "m1", "name": "mps", "autodetect": "nvml", "count": 100}]) == {"m1": 100}
    # a node Gres without model is counted for an entry of any type
    plain = [small("p1", gres=[{"type": "gpu", "count": 4}])]
    assert check_gres_counts(plain, [{"nodes": "p1", "type": "h100", "gpus": [{"index": i} for i in range(4)]}]) == {
        "p1": 4}
    # AutoDetect without a count is not compared, and the declared count is returned
    assert check_gres_counts(MIXED, [{"nodes": "m1", "autodetect": "nvml"}]) == {"m1": 10}


def test_gres_conf_lines_checks_the_nodes_of_its_release():
    # RestrictedCoresPerGPU is a NodeName key from 24.05 on: the node list is read with the release given
    nodes = [small("n1", gres=[{"type": "gpu", "count": 2}], extra={"RestrictedCoresPerGPU": 1})]
    assert gres_conf_lines([{"nodes": "n1", "autodetect": "nvml", "count": 2}], nodes, "24.11") == [
        "NodeName=n1 AutoDetect=nvml"]


def test_gres_conf_lines_checks_counts_only_with_nodes():
    entry = {"nodes": "m1", "type": "a100", "autodetect": "nvml", "count": 3}
    assert gres_conf_lines([entry], version="22.05") == ["NodeName=m1 AutoDetect=nvml"]
    assert said(gres_conf_lines, [entry], MIXED, "22.05") == (
        "node m1: slurm.conf Gres=gpu:h100:8,gpu:a100:2,mps:100 declares 2 gpu but gres.conf has 3 device(s); slurmd "
        "would drain the node ('gres/gpu count too low' or an inconsistent count). Make them equal")


def test_count_refusal_for_a_node_without_gres():
    assert said(check_gres_counts, [small("p1")], [{"nodes": "p1", "autodetect": "nvml", "count": 1}]) == (
        "node p1: slurm.conf Gres=(none) declares 0 gpu but gres.conf has 1 device(s); slurmd would drain the node "
        "('gres/gpu count too low' or an inconsistent count). Make them equal")


def test_count_refusal_for_a_node_without_a_line():
    assert said(check_gres_counts, [small("p1")], [{"nodes": "p[1-2]", "autodetect": "nvml"}]) == (
        "gres.conf entry 0 names node p2, which has no NodeName line")


def test_core_indexes_against_the_node():
    # 2 sockets x 52 cores = 104 cores, indexes 0-103: 104 is one too many; the unused NUMA node 1 is checked too
    gpus = [{"index": i, "numa_node": 0} for i in range(8)]
    assert check_gres_counts(NODES8, [{"nodes": "compute[01-08]", "gpus": gpus, "numa_cores": {0: "0-103"}}])[
        "compute08"] == 8
    assert said(check_gres_counts, NODES8, [{"nodes": "compute[01-08]", "gpus": gpus, "numa_cores": {0: "0-104"}}]) == (
        "gres.conf entry 0: Cores up to 104 for NUMA node 0, but node compute01 has only 104 cores (2 sockets x 52); "
        "Cores= counts cores, not hardware threads")
    assert said(check_gres_counts, NODES8, [{"nodes": "compute[01-08]", "gpus": gpus,
                                             "numa_cores": {0: "0-51", 1: "x"}}]) == (
        "gres entry 0 numa_cores[1] 'x' is not a core list such as '0-51' or '0-25,52-77'")
