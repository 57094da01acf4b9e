# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""slurm/conf/settings: the key catalogue and releases, check_settings (translation of old keys, refusals of
unknown, removed and conflicting ones), value rendering (numbers, yes/no, lists, option mappings, ports) and
cgroup.conf.

The first tests match the beginnings of the refusals; the later ones (written to kill the mutants of
`make mutation MODULES=slurm/conf/settings`, docs/testing.md) compare every refusal in full (the reader of a failed
play sees the whole text: field, value, what Slurm does and the fix), try each range at both edges and take every
branch of the settings translation and the port rules once. Expected values are worked by hand from the rules in the
module's docstrings and Slurm's parser (read_config.c, parse_config.c).
"""
from __future__ import annotations

import re
from decimal import Decimal

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm import keys as slurm_keys
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.conf.nodes import node_lines
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.conf.settings import (
    SlurmConfError,
    cgroup_conf,
    check_settings,
    key_table,
    known_versions,
    render_conf_lines,
    slurm_release,
)
from slurm_conf import SMALL_LINE, SRC_22, SRC_23, UNKNOWN, said, small


# ---------------------------------------------------------------- catalogue and versions
def test_catalogue_key_counts():
    # Counted from the s_p_options_t arrays of each tag (every row is checked by slurm/test_keys.py):
    # 23.11.4 = 226 + 3 (MaxBatchRequeue, PreemptParameters, SuspendExcStates) - 1 (SlurmctldPlugstack) = 228.
    counts = {v: len(slurm_keys.TABLES[v]["slurm.conf"]) for v in slurm_keys.TABLES}
    assert counts == {"22.05": 226, "23.11": 228, "24.11": 233}
    assert len(slurm_keys.TABLES["22.05"]["cgroup.conf"]) == 23
    # 23 - 4 kmem keys + EnableControllers + SignalChildrenProcesses = 21
    assert len(slurm_keys.TABLES["23.11"]["cgroup.conf"]) == 21
    assert len(slurm_keys.TABLES["24.11"]["slurmdbd.conf"]) == 64


def test_key_table_types_and_case():
    table = key_table("slurm.conf", "22.05.8")
    assert table["usepam"] == ("UsePAM", "bool")
    assert table["slurmctldhost"] == ("SlurmctldHost", "lines")
    assert table["schedulerauth"] == ("SchedulerAuth", "str")  # '!defunct' stripped from the type
    # Prolog became repeatable in 24.05 (24.11.5 S_P_ARRAY; the 23.11 wire still carries one string)
    assert key_table("slurm.conf", "23.11")["prolog"][1] == "str"
    assert key_table("slurm.conf", "24.11")["prolog"][1] == "lines"


@pytest.mark.parametrize("text, release", [
    ("22.05.8", "22.05"), ("22.05", "22.05"), ("23.11.4-1.2ubuntu5", "23.11"), ("24.11.5", "24.11"), ("23.11.10", "23.11"),
])
def test_slurm_release(text, release):
    assert slurm_release(text) == release


@pytest.mark.parametrize("text, message", [
    ("21.08.8", r"release 21.08\) is not in the key catalogue; known releases: 22.05, 23.11, 24.11"),
    ("latest", r"not a version string such as '22.05.8'"),
    (None, r"not a version string"),
])
def test_slurm_release_errors(text, message):
    with pytest.raises(SlurmConfError, match=message):
        slurm_release(text)


# ---------------------------------------------------------------- check_settings
def test_reference_design_control_machine_is_translated():
    result = check_settings("slurm.conf", {
        "ClusterName": "gpufleet", "ControlMachine": "head1", "ControlAddr": "10.0.0.1",
        "BackupController": "head2", "SelectType": "select/cons_tres"}, "22.05.8")
    assert result["settings"] == {"ClusterName": "gpufleet", "SelectType": "select/cons_tres",
                                  "SlurmctldHost": ["head1(10.0.0.1)", "head2"]}
    assert [(t["from"], t["to"]) for t in result["translated"]] == [
        ("ControlMachine", "SlurmctldHost"), ("ControlAddr", "SlurmctldHost"),
        ("BackupController", "SlurmctldHost")]
    assert render_conf_lines(result["settings"], "slurm.conf", "22.05") == [
        "ClusterName=gpufleet", "SelectType=select/cons_tres",
        "SlurmctldHost=head1(10.0.0.1)", "SlurmctldHost=head2"]


def test_keys_are_case_insensitive_and_canonicalised():
    result = check_settings("slurm.conf", {"clustername": "c", "SLURMCTLDHOST": "h"}, "23.11")
    assert result["settings"] == {"ClusterName": "c", "SlurmctldHost": "h"}


@pytest.mark.parametrize("key, close", [
    ("PriorityDecayType", "did you mean PriorityType or PriorityDecayHalfLife or PriorityCalcPeriod"),
    ("MaxConcurrentJobs", r"sacctmgr \.\.\. MaxJobs=N"),
    ("SlurmctldHosts", "did you mean SlurmctldHost"),
])
def test_reference_design_unknown_keys_are_refused(key, close):
    with pytest.raises(SlurmConfError, match=r"slurm.conf key '%s' is not accepted by Slurm 22.05 .*%s" % (key, close)):
        check_settings("slurm.conf", {key: 1}, "22.05.8")


def test_crypto_and_infiniband_renames_rewrite_the_value():
    result = check_settings("slurm.conf", {"CryptoType": "crypto/munge",
                                           "AcctGatherInfinibandType": "acct_gather_infiniband/ofed"}, "22.05")
    assert result["settings"] == {"CredType": "cred/munge",
                                  "AcctGatherInterconnectType": "acct_gather_interconnect/ofed"}


def test_keepalivetime_moves_into_communication_parameters():
    result = check_settings("slurm.conf", {"CommunicationParameters": "NoAddrCache", "KeepAliveTime": 60}, "22.05")
    assert result["settings"] == {"CommunicationParameters": ["NoAddrCache", "keepalivetime=60"]}
    assert render_conf_lines(result["settings"]) == ["CommunicationParameters=NoAddrCache,keepalivetime=60"]


@pytest.mark.parametrize("settings_, version, message", [
    ({"SallocDefaultCommand": "srun"}, "22.05", r"removed in Slurm 22.05: fatal\('SallocDefaultCommand has been removed"),
    ({"FastSchedule": 1}, "23.11", r"removed in Slurm 23.11: .*config_overrides; set SlurmdParameters instead"),
    ({"SchedulerAuth": "x"}, "22.05", r"is defunct.* delete it"),
    ({"SchedulerAuth": "x"}, "23.11", r"removed in Slurm 23.11: parsed by _defunct_option\(\)"),
    ({"RoutePlugin": "route/topology"}, "23.11", r"TopologyParam=RouteTree'; set TopologyParam instead"),
    ({"PowerPlugin": "power/x"}, "24.11", r"removed in Slurm 24.11: parsed by _defunct_option"),
    ({"SelectType": "select/cons_res"}, "23.11", r"SelectType=select/cons_res is refused by Slurm 23.11 .*use SelectType=select/cons_tres"),
    ({"ControlMachine": "a", "SlurmctldHost": "b"}, "22.05", r"SlurmctldHost and ControlMachine are both set"),
    ({"BackupAddr": "10.0.0.2", "ControlMachine": "a"}, "22.05", r"BackupAddr=10.0.0.2 without BackupController"),
    ({"ControlAddr": "10.0.0.1"}, "22.05", r"ControlAddr given without ControlMachine"),
    ({"CryptoType": "crypto/munge", "CredType": "cred/munge"}, "22.05", r"both CryptoType and CredType are set"),
    ({"ClusterName": "a", "clustername": "b"}, "22.05", r"given twice"),
    ({"DefMemPerCPU": 1, "DefMemPerNode": 2}, "22.05", r"DefMemPerCPU and DefMemPerNode are both set"),
    ({"MaxBatchRequeue": 5}, "22.05", r"'MaxBatchRequeue' is not accepted by Slurm 22.05"),
    ({"HashPlugin": "hash/k12"}, "23.11", r"'HashPlugin' is not accepted by Slurm 23.11"),
])
def test_check_settings_refusals(settings_, version, message):
    with pytest.raises(SlurmConfError, match=message):
        check_settings("slurm.conf", settings_, version)


def test_select_linear_with_tree_warns_on_23_11_and_is_refused_on_24_11():
    both = {"SelectType": "select/linear", "TopologyPlugin": "topology/tree"}
    assert check_settings("slurm.conf", both, "22.05")["warnings"] == []
    assert check_settings("slurm.conf", both, "23.11.4")["warnings"] == [
        "slurm.conf: select/linear with topology/tree draws a warning from Slurm 23.11 and is unsupported "
        "from 24.05 on (NEWS 23.11.4); prefer SelectType=select/cons_tres"]
    with pytest.raises(SlurmConfError, match=r"not supported by Slurm 24.11 \(removed in 24.05\)"):
        check_settings("slurm.conf", both, "24.11")


def test_select_cons_res_is_fine_on_22_05_and_new_keys_on_23_11():
    assert check_settings("slurm.conf", {"SelectType": "select/cons_res"}, "22.05") == {
        "settings": {"SelectType": "select/cons_res"}, "translated": [], "warnings": []}
    assert check_settings("slurm.conf", {"MaxBatchRequeue": 5}, "23.11")["settings"] == {"MaxBatchRequeue": 5}


def test_cgroup_conf_keys_per_release():
    assert check_settings("cgroup.conf", {"CgroupAutomount": True}, "22.05")["settings"] == {"CgroupAutomount": True}
    with pytest.raises(SlurmConfError, match=r"CgroupAutomount' is removed in Slurm 23.11"):
        check_settings("cgroup.conf", {"CgroupAutomount": True}, "23.11.4")
    with pytest.raises(SlurmConfError, match=r"'ConstrainKmemSpace' is not accepted by Slurm 23.11"):
        check_settings("cgroup.conf", {"ConstrainKmemSpace": False}, "23.11")
    with pytest.raises(SlurmConfError, match=r"'SignalChildrenProcesses' is not accepted by Slurm 22.05"):
        check_settings("cgroup.conf", {"SignalChildrenProcesses": True}, "22.05")


def test_gres_conf_file_level_autodetect():
    result = check_settings("gres.conf", {"AutoDetect": "nvml"}, "22.05")
    assert result["settings"] == {"AutoDetect": "nvml"}


# ---------------------------------------------------------------- value rendering
def test_render_values():
    lines = render_conf_lines({"UsePAM": False, "TrackWCKey": True, "SlurmdPort": 6818, "MaxJobCount": "UNLIMITED",
                               "SchedulerParameters": {"bf_continue": True, "bf_window": 1440},
                               "GresTypes": ["gpu", "shard"], "SlurmctldPort": "6817-6818"})
    assert lines == ["UsePAM=NO", "TrackWCKey=YES", "SlurmdPort=6818", "MaxJobCount=UNLIMITED",
                     "SchedulerParameters=bf_continue,bf_window=1440", "GresTypes=gpu,shard",
                     "SlurmctldPort=6817-6818"]


@pytest.mark.parametrize("settings_, message", [
    ({"ReturnToService": True}, r"Slurm parses ReturnToService as u16, not yes/no"),
    ({"UsePAM": 1}, r"UsePAM is a yes/no key; write true or false"),
    ({"UsePAM": "maybe"}, r"is not yes/no"),
    ({"SlurmctldTimeout": 70000}, r"SlurmctldTimeout=70000 is outside 0..65535"),
    ({"SlurmctldTimeout": "soon"}, r"is not a number"),
    ({"ClusterName": "my cluster"}, r"contains whitespace"),
    ({"ClusterName": "a#b"}, r"contains '#'"),
    ({"ClusterName": 'a"b'}, r"contains a double quote"),
    ({"ClusterName": ""}, r"is empty; omit the key"),
    ({"GresTypes": []}, r"empty list"),
    ({"GresTypes": ["gpu,mps"]}, r"contains a comma"),
    ({"SchedulerParameters": {"bf_continue": False}}, r"leave it out"),
    ({"NoSuchKey": 1}, r"'NoSuchKey' is not accepted"),
])
def test_render_refusals(settings_, message):
    with pytest.raises(SlurmConfError, match=message):
        render_conf_lines(settings_)


def test_cgroup_conf_per_release():
    expected = ["CgroupPlugin=autodetect", "ConstrainCores=YES", "ConstrainDevices=YES", "ConstrainRAMSpace=YES"]
    assert cgroup_conf("22.05.8") == expected
    assert cgroup_conf("23.11.4") == expected
    assert cgroup_conf("24.11", constrain_ram=False, cgroup_plugin="disabled")[0] == "CgroupPlugin=disabled"
    with pytest.raises(SlurmConfError, match=r"CgroupPlugin='disabled' is not accepted by Slurm 23.11"):
        cgroup_conf("23.11", cgroup_plugin="disabled")
    with pytest.raises(SlurmConfError, match=r"constrain_ram must be true or false"):
        cgroup_conf("22.05", constrain_ram="yes")


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
        "cgroup.conf settings must be a mapping of Key: value, got ['ConstrainCores'] of type list")


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
     "slurm.conf ClusterName must be a string, number, boolean or list, got None of type NoneType"),
    ("slurm.conf", {"ClusterName": b"x"},
     "slurm.conf ClusterName must be a string, number, boolean or list, got b'x' of type bytes"),
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
    ({"constrain_devices": "yes"}, "cgroup_conf constrain_devices must be true or false, got 'yes' of type str"),
    ({"constrain_cores": 1}, "cgroup_conf constrain_cores must be true or false, got 1 of type int"),
    ({"constrain_ram": None}, "cgroup_conf constrain_ram must be true or false, got None of type NoneType"),
])
def test_cgroup_conf_refusals_in_full(kwargs, message):
    assert said(cgroup_conf, "23.11", **kwargs) == message


def test_secret_keys_are_refused_without_their_value_and_names_lead_the_message():
    from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.conf import settings as conf_settings

    assert conf_settings.SECRET_KEYS == {"StoragePass", "AccountingStoragePass", "JobCompPass"}
    with pytest.raises(conf_settings.SlurmConfError) as err:
        conf_settings.check_settings("slurmdbd.conf", {"storagepass": "s3cret#tail-part"}, "24.11",
                                     names={"StoragePass": "slurm_db_password"})
    assert str(err.value).startswith("slurm_db_password: slurmdbd.conf StoragePass (its value is a secret and not shown)")
    assert "s3cret" not in str(err.value) and "tail-part" not in str(err.value)
    assert conf_settings.render_conf_lines({"StoragePass": "s3cret-long"}, "slurmdbd.conf", "24.11") == [
        "StoragePass=s3cret-long"]
