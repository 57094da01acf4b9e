# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""slurm_conf: key catalogue, settings check/translation, value rendering, node/partition/gres lines."""
from __future__ import annotations

import os
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm import keys as slurm_keys
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist import expand_hostlist
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.conf.settings import (
    SlurmConfError,
    cgroup_conf,
    check_gres_counts,
    check_settings,
    gres_conf_lines,
    key_table,
    node_lines,
    partition_lines,
    render_conf_lines,
    slurm_release,
)
from reference import outputs

_OUTPUTS = outputs()


def _reference(*parts):
    with open(os.path.join(_OUTPUTS, *parts)) as handle:
        return handle.read()


# ---------------------------------------------------------------- catalogue and versions
def test_catalogue_key_counts():
    # Counted from the s_p_options_t arrays of each tag (every row is checked by test_slurm_keys_source.py):
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


# ---------------------------------------------------------------- nodes and partitions
def _h100(node_name, **over):
    # Reference H100 node, from outputs/nvidia-smi/topo-m.8xH100-NV18.ml-engineering.txt: 8 GPUs,
    # CPU affinity 0-51 (GPU0-3, NUMA 0) and 52-103 (GPU4-7, NUMA 1) = 104 logical CPUs in 2 NUMA
    # nodes. ASSUMPTION (the capture has no lscpu): 2 sockets x 52 cores, SMT off (1 thread), one
    # NUMA node per socket; RealMemory 2063937 MiB (about 2 TiB less the kernel's share) is assumed.
    node = {"name": node_name, "sockets": 2, "cores_per_socket": 52, "threads_per_core": 1, "cpus": 104,
            "real_memory": 2063937, "gres": [{"type": "gpu", "model": "h100", "count": 8}],
            "features": ["h100", "ib"]}
    node.update(over)
    return node


REFERENCE_NODES = [_h100("compute%02d" % i) for i in range(8, 0, -1)]


def test_reference_design_node_line():
    # 2 x 52 x 1 = 104 CPUs; eight identical nodes, given in reverse, compress to compute[01-08]
    assert node_lines(REFERENCE_NODES) == [
        "NodeName=compute[01-08] CPUs=104 Sockets=2 CoresPerSocket=52 ThreadsPerCore=1 RealMemory=2063937 "
        "Gres=gpu:h100:8 Feature=h100,ib"]


def test_scontrol_reference_node_numbers():
    text = _reference("slurm", "scontrol-show-node.gpu-t4x6.aau-aicloud-docs.txt")
    fields = dict(re.findall(r"(\w+)=(\S+)", text))
    node = {"name": fields["NodeName"], "sockets": int(fields["Sockets"]),
            "cores_per_socket": int(fields["CoresPerSocket"]), "threads_per_core": int(fields["ThreadsPerCore"]),
            "cpus": int(fields["CPUTot"]), "real_memory": int(fields["RealMemory"]),
            "gres": [{"type": "gpu", "model": "t4", "count": 6}]}
    # Sockets=2 x CoresPerSocket=16 x ThreadsPerCore=2 = 64 = CPUTot; Gres=gpu:t4:6 as scontrol shows it
    assert node_lines([node]) == ["NodeName=a256-t4-01 CPUs=64 Sockets=2 CoresPerSocket=16 ThreadsPerCore=2 "
                                  "RealMemory=244584 Gres=gpu:t4:6"]


def test_groups_split_on_any_difference_and_sort_by_host():
    nodes = [_h100("gpu03", weight=10), _h100("gpu01"), _h100("gpu02"), _h100("cpu1", gres=None, features=[]),
             _h100("gpu04", boards=2, extra={"TmpDisk": 100000})]
    assert node_lines(nodes, "23.11") == [
        "NodeName=cpu1 CPUs=104 Sockets=2 CoresPerSocket=52 ThreadsPerCore=1 RealMemory=2063937",
        "NodeName=gpu[01-02] CPUs=104 Sockets=2 CoresPerSocket=52 ThreadsPerCore=1 RealMemory=2063937 "
        "Gres=gpu:h100:8 Feature=h100,ib",
        "NodeName=gpu03 CPUs=104 Sockets=2 CoresPerSocket=52 ThreadsPerCore=1 RealMemory=2063937 "
        "Gres=gpu:h100:8 Feature=h100,ib Weight=10",
        "NodeName=gpu04 CPUs=104 Boards=2 Sockets=2 CoresPerSocket=52 ThreadsPerCore=1 RealMemory=2063937 "
        "Gres=gpu:h100:8 Feature=h100,ib TmpDisk=100000"]


@pytest.mark.parametrize("over, message", [
    ({"cpus": 208}, r"cpus=208 but sockets\*cores_per_socket\*threads_per_core = 2\*52\*1 = 104"),
    ({"real_memory": 0}, r"real_memory \(MiB\)=0 is outside 1\.\."),
    ({"gres": [{"type": "gpu", "model": "h100", "count": 0}]}, r"gres\[0\] count=0 is outside 1\.\."),
    ({"gres": [{"type": "gpu", "count": 4}, {"type": "gpu", "count": 4}]}, r"repeats gpu:None"),
    ({"name": "compute[09]"}, r"node 0 name: 'compute\[09\]' is not allowed; expected a letter or digit"),
    ({"name": "bad name"}, r"node 0 name: 'bad name' is not allowed"),
    ({"boards": 3}, r"sockets=2 is not a multiple of boards=3"),
    ({"features": ["a b"]}, r"features\[0\]: 'a b' is not allowed; expected a letter or digit"),
    ({"extra": {"CPUs": 4}}, r"extra sets CPUs"),
    ({"extra": {"RestrictedCoresPerGPU": 4}}, r"'RestrictedCoresPerGPU' is not accepted by Slurm 23.11"),
    ({"colour": "red"}, r"unknown field\(s\) colour"),
])
def test_node_refusals(over, message):
    with pytest.raises(SlurmConfError, match=message):
        node_lines([_h100("compute01", **over)], "23.11")


def test_duplicate_node_refused():
    with pytest.raises(SlurmConfError, match=r"node compute01 is listed twice \(items 0 and 1\)"):
        node_lines([_h100("compute01"), _h100("compute01")])


def test_partitions():
    parts = [{"name": "gpu", "nodes": "compute[01-08]", "default": True, "max_time": "2-00:00:00", "state": "up"},
             {"name": "debug", "nodes": ["compute01", "compute02"], "max_time": 30, "extra": {"PriorityTier": 2}},
             {"name": "all", "nodes": "ALL", "max_time": "infinite"}]
    assert partition_lines(parts, REFERENCE_NODES) == [
        "PartitionName=gpu Nodes=compute[01-08] Default=YES MaxTime=2-00:00:00 State=UP",
        "PartitionName=debug Nodes=compute[01-02] MaxTime=30 PriorityTier=2",
        "PartitionName=all Nodes=compute[01-08] MaxTime=INFINITE"]


@pytest.mark.parametrize("parts, message", [
    ([{"name": "gpu", "nodes": "compute[01-09]"}], r"partition gpu references node\(s\) compute09 that have no NodeName"),
    ([{"name": "gpu", "nodes": "compute[01-07]"}], r"node\(s\) compute08 are in no partition"),
    ([{"name": "a", "nodes": "ALL", "default": True}, {"name": "b", "nodes": "ALL", "default": True}], r"both default"),
    ([{"name": "a", "nodes": "ALL"}, {"name": "a", "nodes": "ALL"}], r"defined twice"),
    ([{"name": "a", "nodes": "ALL", "max_time": "2 days"}], r"is not a Slurm time"),
    ([{"name": "a", "nodes": "ALL", "state": "OPEN"}], r"state 'OPEN' is not one of UP, DOWN, DRAIN, INACTIVE"),
    ([{"name": "a", "nodes": "ALL", "extra": {"Nodes": "x"}}], r"extra sets Nodes"),
    ([{"name": "a", "nodes": "ALL", "extra": {"MaxTimeLimit": 5}}], r"'MaxTimeLimit' is not accepted .* did you mean"),
    ([{"name": "default", "nodes": "ALL"}], r"partition 0 name 'default' is Slurm's keyword for defaults"),
])
def test_partition_refusals(parts, message):
    with pytest.raises(SlurmConfError, match=message):
        partition_lines(parts, REFERENCE_NODES)


# ---------------------------------------------------------------- gres.conf
def _topo_gpus():
    """(index, numa) per GPU and NUMA -> CPU list, read from the real nvidia-smi topo -m capture."""
    text = _reference("nvidia-smi", "topo-m.8xH100-NV18.ml-engineering.txt")
    gpus, cores = [], {}
    for line in text.splitlines():
        match = re.match(r"^GPU(\d+)\s.*\s(\d+-\d+)\s+(\d+)\s*$", line)
        if match:
            gpus.append({"index": int(match.group(1)), "numa_node": int(match.group(3))})
            cores[int(match.group(3))] = match.group(2)
    return gpus, cores


def test_reference_design_gres_from_topo_capture():
    gpus, numa_cores = _topo_gpus()
    assert numa_cores == {0: "0-51", 1: "52-103"}
    entry = {"nodes": "compute[01-08]", "name": "gpu", "type": "h100", "gpus": gpus, "numa_cores": numa_cores}
    # With SMT off, CPU ids 0-103 are also Slurm's core indexes 0-103 (2 sockets x 52 cores).
    assert gres_conf_lines([entry], REFERENCE_NODES, "22.05.8") == [
        "NodeName=compute[01-08] Name=gpu Type=h100 File=/dev/nvidia[0-3] Cores=0-51",
        "NodeName=compute[01-08] Name=gpu Type=h100 File=/dev/nvidia[4-7] Cores=52-103"]


def test_gres_matches_the_parallelcluster_reference_lines():
    text = _reference("slurm", "gres.conf.pcluster-generated-gpu-queue.conf")
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        fields = dict(item.split("=", 1) for item in line.split())
        files = expand_hostlist(fields["File"], "device_path")
        entry = {"nodes": fields["NodeName"], "name": fields["Name"], "type": fields["Type"],
                 "gpus": [{"index": int(f[len("/dev/nvidia"):])} for f in files]}
        # Same line; Slurm's own writer keeps 'xlarge-[1-1]', a single host compresses to 'xlarge-1'.
        assert gres_conf_lines([entry]) == [line.replace("-[1-1]", "-1")]


def test_gres_autodetect_and_uneven_numa():
    entries = [{"nodes": "compute[01-04]", "autodetect": "nvml", "count": 8},
               {"nodes": "compute[05-08]", "type": "h100", "gpus": [{"index": i, "numa_node": [0, 0, 1, 1, 0, 0, 1, 1][i]} for i in range(8)],
                "numa_cores": {0: [0, 1, 2, 52, 53], 1: "26-51"}}]
    assert gres_conf_lines(entries, REFERENCE_NODES) == [
        "NodeName=compute[01-04] AutoDetect=nvml",
        "NodeName=compute[05-08] Name=gpu Type=h100 File=/dev/nvidia[0-1,4-5] Cores=0-2,52-53",
        "NodeName=compute[05-08] Name=gpu Type=h100 File=/dev/nvidia[2-3,6-7] Cores=26-51"]


@pytest.mark.parametrize("entry, message", [
    ({"nodes": "compute[01-08]", "type": "h100", "gpus": [{"index": i} for i in range(4)]},
     r"node compute01: slurm.conf Gres=gpu:h100:8 declares 8 gpu but gres.conf has 4 device\(s\)"),
    ({"nodes": "compute[01-08]", "autodetect": "nvml", "count": 7}, r"declares 8 gpu but gres.conf has 7"),
    ({"nodes": "compute[01-09]", "autodetect": "nvml"}, r"names node compute09, which has no NodeName line"),
    ({"nodes": "compute[01-08]", "type": "h100", "gpus": [{"index": i, "numa_node": 0} for i in range(8)],
      "numa_cores": {0: "0-207"}}, r"Cores up to 207 for NUMA node 0, but node compute01 has only 104 cores"),
])
def test_gres_count_and_core_refusals(entry, message):
    with pytest.raises(SlurmConfError, match=message):
        gres_conf_lines([entry], REFERENCE_NODES)


@pytest.mark.parametrize("entries, message", [
    ([{"nodes": "n1", "gpus": [{"index": 0}, {"index": 0}]}], r"GPU index 0 is listed twice"),
    ([{"nodes": "n1", "gpus": [{"index": 0, "numa_node": 2}], "numa_cores": {0: "0-3"}}], r"numa_node 2 has no entry"),
    ([{"nodes": "n1", "autodetect": "cuda"}], r"autodetect 'cuda' is not nvml"),
    ([{"nodes": "n1", "autodetect": "nvml", "gpus": [{"index": 0}]}], r"both autodetect and gpus"),
    ([{"nodes": "n1"}], r"needs gpus"),
    ([{"nodes": "n1", "autodetect": "nvml"}, {"nodes": "n[1-2]", "autodetect": "nvml"}], r"node n1 gets gpu from gres entries 0 and 1"),
    ([{"nodes": "n1", "gpus": [{"index": 0}], "numa_cores": {0: "5-3"}, "gpus_": 1}], r"must be a mapping with fields"),
])
def test_gres_entry_refusals(entries, message):
    with pytest.raises(SlurmConfError, match=message):
        gres_conf_lines(entries)


def test_check_gres_counts_returns_declared_counts():
    counts = check_gres_counts(REFERENCE_NODES, [{"nodes": "compute[01-08]", "autodetect": "nvml", "count": 8}])
    assert counts == {"compute%02d" % i: 8 for i in range(1, 9)}


# ---------------------------------------------------------------- property: grouping round trip
_SPECS = [
    {"sockets": 2, "cores_per_socket": 52, "threads_per_core": 1, "real_memory": 2063937,
     "gres": [{"type": "gpu", "model": "h100", "count": 8}]},
    {"sockets": 2, "cores_per_socket": 56, "threads_per_core": 2, "real_memory": 1031000},
    {"sockets": 1, "cores_per_socket": 64, "threads_per_core": 2, "real_memory": 515000, "features": ["amd"]},
]


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(
    st.tuples(st.sampled_from(["gpu", "cpu", "rack1-n"]), st.integers(0, 60), st.sampled_from([1, 2, 3])),
    st.integers(0, len(_SPECS) - 1), min_size=1, max_size=40))
def test_grouping_round_trips(assignment):
    nodes = []
    for (prefix, number, width), spec in assignment.items():
        nodes.append(dict(_SPECS[spec], name="%s%s" % (prefix, str(number).zfill(width))))
    by_name = {n["name"]: n for n in nodes}
    if len(by_name) != len(nodes):  # 'gpu1' with width 1 and 'gpu01' are different names, duplicates are not
        return
    seen = []
    for line in node_lines(nodes):
        fields = dict(item.split("=", 1) for item in line.split())
        for host in expand_hostlist(fields["NodeName"]):
            node = by_name[host]
            assert int(fields["Sockets"]) == node["sockets"]
            assert int(fields["CoresPerSocket"]) == node["cores_per_socket"]
            assert int(fields["CPUs"]) == node["sockets"] * node["cores_per_socket"] * node["threads_per_core"]
            assert int(fields["RealMemory"]) == node["real_memory"]
            seen.append(host)
    assert sorted(seen) == sorted(by_name)
    assert len(seen) == len(set(seen))
