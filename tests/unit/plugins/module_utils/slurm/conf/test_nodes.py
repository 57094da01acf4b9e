# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""slurm/conf/nodes: NodeName= and PartitionName= lines (grouping, Slurm's rules, extra keys) and gres.conf (explicit
and AutoDetect lines, core lists, the counts against the node lines).

The first tests match the beginnings of the refusals against the reference design; the later ones (written to kill
the mutants of `make mutation MODULES=slurm/conf/nodes`, docs/testing.md) compare every refusal in full, try each
range at both edges and take every branch of the node/partition grouping and gres.conf once. The large nodes are the
reference H100 node (2 x 52 cores, 8 GPUs).
"""
from __future__ import annotations

import os
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.conf.nodes import (
    check_gres_counts,
    gres_conf_lines,
    node_lines,
    partition_lines,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.conf.settings import SlurmConfError
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist import expand_hostlist
from reference import outputs
from slurm_conf import SMALL_LINE, SRC_22, UNKNOWN, node, said, small

_OUTPUTS = outputs()


def _reference(*parts):
    with open(os.path.join(_OUTPUTS, *parts)) as handle:
        return handle.read()


# ---------------------------------------------------------------- nodes and partitions
REFERENCE_NODES = [node("compute%02d" % i) for i in range(8, 0, -1)]
NODES8 = [node("compute%02d" % i) for i in range(1, 9)]


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
    nodes = [node("gpu03", weight=10), node("gpu01"), node("gpu02"), node("cpu1", gres=None, features=[]),
             node("gpu04", boards=2, extra={"TmpDisk": 100000})]
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
    ({"colour": "red"}, r"node 0 \(compute01\) has unknown key\(s\) 'colour'; allowed: boards, "),
])
def test_node_refusals(over, message):
    with pytest.raises(SlurmConfError, match=message):
        node_lines([node("compute01", **over)], "23.11")


def test_duplicate_node_refused():
    with pytest.raises(SlurmConfError, match=r"node compute01 is listed twice \(items 0 and 1\)"):
        node_lines([node("compute01"), node("compute01")])


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
    ([{"nodes": "n1", "gpus": [{"index": 0}], "numa_cores": {0: "5-3"}, "gpus_": 1}], r"has unknown key\(s\) 'gpus_'"),
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
    ({"sockets": True}, "node n1 sockets must be a whole number, got True of type bool"),
    ({"cores_per_socket": 0}, "node n1 cores_per_socket=0 is outside 1..65535"),
    ({"threads_per_core": "2"}, "node n1 threads_per_core must be a whole number, got '2' of type str"),
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
    ({"features": "h100"}, "node n1 features must be a list of names, got 'h100' of type str"),
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
    ({"gres": "gpu:8"}, "node n1 gres must be a list of {type, model, count}, got 'gpu:8' of type str"),
    ({"gres": ["gpu"]}, "node n1 gres[0] must be a mapping with type, optional model and count, got 'gpu' of type str"),
    ({"gres": [{"count": 1}]}, "node n1 gres[0] is missing 'type' (it has: count)"),
    ({"gres": [{"type": "gpu", "count": 1, "colour": "red"}]},
     "node n1 gres[0] has unknown key(s) 'colour'; allowed: count, model, type"),
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
    ([], "nodes must not be empty"),
    ("n1", "nodes must be a non-empty list of node mappings, got 'n1' of type str"),
    (["n1"], "node 0 must be a mapping with name, cpus, sockets, ..., got 'n1' of type str"),
    ([small("n1", colour="red", age=3)],
     "node 0 (n1) has unknown key(s) 'age', 'colour'; allowed: boards, cores_per_socket, cpus, extra, features, gres, "
     "name, real_memory, sockets, threads_per_core, weight"),
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
    ([], "partitions must not be empty"),
    ("a", "partitions must be a non-empty list of partition mappings, got 'a' of type str"),
    (["a"], "partition 0 must be a mapping with fields name, nodes, default, max_time, state, extra, got 'a' of type "
            "str"),
    ([{"name": "a", "nodes": "ALL", "colour": "red"}],
     "partition 0 has unknown key(s) 'colour'; allowed: default, extra, max_time, name, nodes, state"),
    ([{"name": "a b", "nodes": "ALL"}], "partition 0 name: 'a b' is not allowed; expected a letter or digit, then "
                                        "up to 63 letters, digits, '.', '_' or '-'"),
    ([{"name": "Default", "nodes": "ALL"}],
     "partition 0 name 'Default' is Slurm's keyword for defaults; choose another name"),
    ([{"name": "a", "nodes": "ALL"}, {"name": "a", "nodes": "ALL"}],
     "partition a is defined twice; Slurm would merge or reject it"),
    ([{"name": "a", "nodes": []}],
     "partition a nodes must be a hostlist string or a non-empty list of names, got [] of type list"),
    ([{"name": "a", "nodes": 5}],
     "partition a nodes must be a hostlist string or a non-empty list of names, got 5 of type int"),
    ([{"name": "a", "nodes": "n[1-5]"}],
     "partition a references node(s) n[4-5] that have no NodeName line; add them to the node list or remove them"),
    ([{"name": "a", "nodes": ["n1", "n2"]}],
     "node(s) n3 are in no partition, so no job could ever use them; add them to a partition or drop their NodeName "
     "line"),
    ([{"name": "a", "nodes": "ALL", "default": "yes"}],
     "partition a default must be true or false, got 'yes' of type str"),
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
           "type, got 'n1' of type str"),
    ({"nodes": "n1", "gpu": [{"index": 0}]},
     "gres entry 0 has unknown key(s) 'gpu'; allowed: autodetect, count, device, gpus, name, nodes, numa_cores, "
     "type"),
    ({"nodes": []}, "gres entry 0 nodes must be a hostlist string or a non-empty list of names, got [] of type list"),
    ({"nodes": "n1", "name": 5}, "%s name: 5 is not allowed; expected a letter, then up to 63 letters, digits or '_' "
                                 "(e.g. gpu)" % W),
    ({"nodes": "n1", "type": "a 100"}, "%s type (e.g. h100): 'a 100' is not allowed; expected a letter or digit, "
                                       "then up to 63 letters, digits, '.', '_' or '-'" % W),
    ({"nodes": "n1", "autodetect": "cuda"}, "%s autodetect 'cuda' is not nvml, rsmi, oneapi, nrt or off" % W),
    ({"nodes": "n1", "autodetect": "nvml", "gpus": [{"index": 0}]},
     "%s has both autodetect and gpus; AutoDetect finds the devices itself, give one or the other" % W),
    ({"nodes": "n1", "autodetect": "nvml", "count": 0}, "%s count=0 is outside 1..4294967295" % W),
    ({"nodes": "n1", "autodetect": "nvml", "count": 2 ** 32}, "%s count=4294967296 is outside 1..4294967295" % W),
    ({"nodes": "n1"}, "%s needs gpus: [{index, numa_node}] (or autodetect: nvml)" % W),
    ({"nodes": "n1", "gpus": []}, "%s gpus must not be empty" % W),
    ({"nodes": "n1", "gpus": "0"}, "%s gpus must be a list [{index, numa_node}], got '0' of type str" % W),
    ({"nodes": "n1", "gpus": [{"index": 0}], "numa_cores": [0]},
     "%s numa_cores must be a mapping of NUMA node to cores, got [0] of type list" % W),
    ({"nodes": "n1", "gpus": [0]}, "%s gpus[0] must be a mapping {index, numa_node}, got 0 of type int" % W),
    ({"nodes": "n1", "gpus": [{"numa_node": 0}]},
     "%s gpus[0] must be a mapping {index, numa_node}, got {'numa_node': 0} of type dict" % W),
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
     "%s numa_cores[0] must be a core list string or a list of core numbers, got 5 of type int" % W),
    ({"nodes": "n1", "gpus": [{"index": 0, "numa_node": 0}], "numa_cores": {0: []}},
     "%s numa_cores[0] must be a core list string or a list of core numbers, got [] of type list" % W),
    ({"nodes": "n1", "gpus": [{"index": 0, "numa_node": 0}], "numa_cores": {0: [True]}},
     "%s numa_cores[0] must be a core list string or a list of core numbers, got [True] of type list" % W),
    ({"nodes": "n1", "gpus": [{"index": 0, "numa_node": 0}], "numa_cores": {0: ["1"]}},
     "%s numa_cores[0] must be a core list string or a list of core numbers, got ['1'] of type list" % W),
    ({"nodes": "n1", "gpus": [{"index": 0, "numa_node": 0}], "numa_cores": {0: [65536]}},
     "%s numa_cores[0] must be a core list string or a list of core numbers, got [65536] of type list" % W),
    ({"nodes": "n1", "gpus": [{"index": 0, "numa_node": 0}], "numa_cores": {0: [-1]}},
     "%s numa_cores[0] must be a core list string or a list of core numbers, got [-1] of type list" % W),
])
def test_gres_entry_refusals_in_full(entry, message):
    assert said(gres_conf_lines, [entry]) == message


@pytest.mark.parametrize("gres, message", [
    ([], "gres must not be empty"),
    ("x", "gres must be a non-empty list of gres.conf entries, got 'x' of type str"),
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
