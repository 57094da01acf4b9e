# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 13 in the Slurm, hostlist and APT filters: every case the issue lists is refused with a message that
names the field, the value and what is allowed; no wrong-typed input gets past as a raw Python exception."""
from __future__ import annotations

import math
import re

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter.apt_add_components import apt_add_components
from ansible_collections.gpufleet.cluster.plugins.filter.apt_sources import apt_sources
from ansible_collections.gpufleet.cluster.plugins.filter.dpkg_installed import dpkg_installed
from ansible_collections.gpufleet.cluster.plugins.filter.hostlist_compress import hostlist_compress
from ansible_collections.gpufleet.cluster.plugins.filter.hostlist_expand import hostlist_expand
from ansible_collections.gpufleet.cluster.plugins.filter.nvidia_driver_reboot_reasons import (
    nvidia_driver_reboot_reasons,
)
from ansible_collections.gpufleet.cluster.plugins.filter.slurm_conf_check import slurm_conf_check
from ansible_collections.gpufleet.cluster.plugins.filter.slurm_gres_lines import slurm_gres_lines
from ansible_collections.gpufleet.cluster.plugins.filter.slurm_node_lines import slurm_node_lines
from ansible_collections.gpufleet.cluster.plugins.filter.slurm_topology_conf import slurm_topology_conf

SLURM_NAME = r"expected a letter or digit, then up to 63 letters, digits, '\.', '_' or '-'"
NO_CONTROL = r"\(control characters such as a newline are never allowed\)"
DEVICE = r"expected an absolute path under /dev of letters, digits, '_', '\.', '\+' and '-' \(no '\.' or '\.\.' parts\)"
NODE = {"name": "gpu01", "sockets": 2, "cores_per_socket": 52, "threads_per_core": 1, "real_memory": 2063937,
        "gres": [{"type": "gpu", "model": "h100", "count": 8}], "features": ["h100", "ib"]}
GRES = {"nodes": "gpu01", "type": "h100", "gpus": [{"index": i, "numa_node": i // 4} for i in range(8)],
        "numa_cores": {0: "0-51", 1: "52-103"}}
DEBIAN = {"path": "/etc/apt/sources.list.d/debian.sources",
          "content": "Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-updates\n"
                     "Components: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n"}
FABRIC = {"kind": "tree", "leaves": [{"name": "leaf1", "nodes": "gpu[01-02]"}, {"name": "leaf2", "nodes": "gpu[03-04]"}],
          "spines": [{"name": "spine1", "leaves": ["leaf1", "leaf2"]}]}


def refused(match, function, *args, **kwargs):
    with pytest.raises(AnsibleFilterError, match=match) as error:
        function(*args, **kwargs)
    return str(error.value)


# ------------------------------------------------------------------ slurm_node_lines
def test_partition_name_with_a_trailing_newline():
    refused(r"^gpufleet\.cluster\.slurm_node_lines: partition 0 name: 'batch\\n' is not allowed; %s %s"
            % (SLURM_NAME, NO_CONTROL),
            slurm_node_lines, [NODE], [{"name": "batch\n", "nodes": "ALL"}])


def test_a_node_given_twice_once_with_a_trailing_newline():
    # before: two NodeName=gpu01 lines with different CPUs
    refused(r"^gpufleet\.cluster\.slurm_node_lines: node 1 name: 'gpu01\\n' is not allowed; %s" % SLURM_NAME,
            slurm_node_lines, [NODE, dict(NODE, name="gpu01\n", sockets=1)])


@pytest.mark.parametrize("gres, field", [
    ({"type": "gpu", "model": "h100\n", "count": 8}, r"gres\[0\] model \(e\.g\. h100\): 'h100\\n'"),
    ({"type": "gpu\n", "model": "h100", "count": 8}, r"gres\[0\] type: 'gpu\\n'"),
    ({"type": "gpu", "model": "h100:8", "count": 8}, r"gres\[0\] model \(e\.g\. h100\): 'h100:8'"),
])
def test_gres_type_and_model_with_a_newline(gres, field):
    # before: Gres=gpu:h100\n:8
    refused(r"node gpu01 %s is not allowed; expected" % field, slurm_node_lines, [dict(NODE, gres=[gres])])


@pytest.mark.parametrize("feature", ["h100\n", "a b", "ib#x", "a=b", "a,b"])
def test_features_are_slurm_names(feature):
    refused(r"node gpu01 features\[1\]: %r is not allowed; %s" % (feature, SLURM_NAME) if "\n" not in feature
            else r"features\[1\]: 'h100\\n' is not allowed",
            slurm_node_lines, [dict(NODE, features=["h100", feature])])


@pytest.mark.parametrize("port, message", [
    (0, r"NodeName Port: 0 is not allowed; expected a port 1-65535"),
    ("6818\n", r"NodeName Port: '6818\\n' is not allowed"),
    ("[17001-17004", r"NodeName Port: '\[17001-17004' is not allowed"),
])
def test_node_port_is_a_port(port, message):
    refused(message, slurm_node_lines, [dict(NODE, extra={"Port": port})])


def test_node_port_ranges_as_slurm_takes_them():
    lines = slurm_node_lines([dict(NODE, extra={"Port": "[17001-17004]"})])["node_lines"]
    assert lines[0].endswith(" Port=[17001-17004]")


def test_partition_extra_that_is_no_mapping():
    refused(r"partition batch extra must be a mapping of Slurm options \(Key: value\), got \['MaxNodes'\] of type list",
            slurm_node_lines, [NODE], [{"name": "batch", "nodes": "ALL", "extra": ["MaxNodes"]}])


def test_names_with_underscores_are_slurm_names():
    # slurm_name, not hostname: an inventory name such as gpu_01 stays usable
    out = slurm_node_lines([dict(NODE, name="gpu_01")], [{"name": "gpu_batch", "nodes": "ALL"}])
    assert out["lines"][1] == "PartitionName=gpu_batch Nodes=gpu_01"


# ------------------------------------------------------------------ slurm_gres_lines
@pytest.mark.parametrize("device, shown", [
    ("/dev/nvidia#", r"'/dev/nvidia#'"),  # before: File=/dev/nvidia#[0-3], the rest of the line a comment
    ("/dev/nvidia,Cores=", r"'/dev/nvidia,Cores='"),  # before: File=/dev/nvidia,Cores=[00-03]
    ("/dev/nvidia ", r"'/dev/nvidia '"),
    ("/dev/nvidia\n", r"'/dev/nvidia\\n'"),
    ("/dev/../etc/nvidia", r"'/dev/\.\./etc/nvidia'"),
    ("nvidia", r"'nvidia'"),
])
def test_gres_device_is_a_device_path(device, shown):
    refused(r"^gpufleet\.cluster\.slurm_gres_lines: gres\.conf NodeName=gpu01 device: %s is not allowed; %s"
            % (shown, DEVICE), slurm_gres_lines, [dict(GRES, device=device)])


def test_gres_device_none():
    # before: File=None[0-3]
    refused(r"gres\.conf NodeName=gpu01 device must be a string \(an absolute path under /dev .*\), got None of type NoneType",
            slurm_gres_lines, [dict(GRES, device=None)])


def test_gres_device_ending_in_a_digit():
    refused(r"device: '/dev/nvidia1' ends in a digit; it is the prefix the GPU index is appended to",
            slurm_gres_lines, [dict(GRES, device="/dev/nvidia1")])


def test_gres_other_device_prefix_still_renders():
    assert slurm_gres_lines([dict(GRES, device="/dev/accel/accel")])[0] == \
        "NodeName=gpu01 Name=gpu Type=h100 File=/dev/accel/accel[0-3] Cores=0-51"


@pytest.mark.parametrize("field, value, shown", [
    ("type", "h100\n", r"type \(e\.g\. h100\): 'h100\\n'"),
    ("name", "gpu\n", r"name: 'gpu\\n'"),
    ("nodes", "gpu01\n", r"gres entry 0 nodes: hostlist 'gpu01\\n': control character '\\n' at position 5 is not allowed"),
])
def test_gres_fields_with_a_newline(field, value, shown):
    refused(shown + " is not allowed" if field != "nodes" else shown, slurm_gres_lines, [dict(GRES, **{field: value})])


def test_gres_core_list_with_a_newline():
    refused(r"numa_cores\[0\] '0-51\\n' is not a core list", slurm_gres_lines,
            [dict(GRES, numa_cores={0: "0-51\n", 1: "52-103"})])


# ------------------------------------------------------------------ slurm_conf_check
@pytest.mark.parametrize("value, shown", [("head\x00", r"'head\\x00'"), ("head\x1b[31m", r"'head\\x1b\[31m'"),
                                          ("head\n", r"'head\\n'"), ("head\u2028", r"'head\\u2028'")])
def test_control_characters_in_a_value(value, shown):
    refused(r"^gpufleet\.cluster\.slurm_conf_check: slurm\.conf ClusterName=%s contains a control character"
            % shown, slurm_conf_check, {"ClusterName": value}, "slurm.conf", "22.05.8")


@pytest.mark.parametrize("key, value, allowed", [
    ("SlurmctldPort", -1, r"a port 1-65535, or a range LOW-HIGH of ports"),
    ("SlurmctldPort", "-1", r"a port 1-65535, or a range LOW-HIGH of ports"),
    ("SlurmctldPort", 0, r"a port 1-65535, or a range LOW-HIGH of ports .* \(0 is outside 1-65535\)"),
    ("SlurmctldPort", 65536, r"a port 1-65535, .* \(65536 is outside 1-65535\)"),
    ("SlurmctldPort", "6818-6817", r"a port 1-65535, .* \(the range 6818-6817 does not go from a lower to a higher"),
    ("SlurmctldPort", "6817-6817", r"a port 1-65535, .* \(the range 6817-6817 does not go from a lower to a higher port"),
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
            % (key, value, allowed), slurm_conf_check, {key: value}, "slurm.conf", "22.05.8")


@pytest.mark.parametrize("key, value, port", [
    ("DbdPort", 0, r"slurmdbd\.conf DbdPort: 0"), ("StoragePort", "3306\n", r"slurmdbd\.conf StoragePort: '3306\\n'")])
def test_slurmdbd_ports(key, value, port):
    refused(port + r" is not allowed; expected a port: a whole number 1-65535",
            slurm_conf_check, {key: value}, "slurmdbd.conf", "22.05.8")


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
    refused(message, slurm_conf_check, {key: value}, "slurm.conf", "22.05.8")


@pytest.mark.parametrize("value", [math.nan, math.inf, "nan", "1e3", "95\n"])
def test_float_keys_are_finite_numbers(value):
    refused(r"cgroup\.conf MaxRAMPercent", slurm_conf_check, {"MaxRAMPercent": value}, "cgroup.conf", "22.05.8")


@pytest.mark.parametrize("host", ["head1 (10.0.0.1)", "head1(10.0.0.1", "head#1", "head1(10.0.0.1)x", "(10.0.0.1)"])
def test_slurmctld_host_form(host):
    refused(re.escape("slurm.conf SlurmctldHost=%r: expected NAME or NAME(ADDRESS): a host name of" % host),
            slurm_conf_check, {"SlurmctldHost": host}, "slurm.conf", "22.05.8")


def test_option_mapping_names():
    refused(r"SchedulerParameters: option name 'bf_interval=30,x' is not allowed", slurm_conf_check,
            {"SchedulerParameters": {"bf_interval=30,x": True}}, "slurm.conf", "22.05.8")


# ------------------------------------------------------------------ hostlists and topology
@pytest.mark.parametrize("names, message", [
    (["n1 NodeAddr=10.0.0.9"], r"hostlist 'n1 NodeAddr=10\.0\.0\.9': blank ' ' at position 2 is not allowed"),
    (["n1#x"], r"hostlist 'n1#x': character '#' at position 2 is not allowed; names hold only letters, digits"),
    (["n=1"], r"hostlist 'n=1': character '=' at position 1 is not allowed"),
    (["gpu01\n"], r"hostlist 'gpu01\\n': control character '\\n' at position 5 is not allowed"),
])
def test_hostlist_filters_refuse_names_that_would_split_a_line(names, message):
    refused(r"^gpufleet\.cluster\.hostlist_compress: " + message, hostlist_compress, names)
    refused(r"^gpufleet\.cluster\.hostlist_expand: " + message, hostlist_expand, names)
    refused(r"^gpufleet\.cluster\.hostlist_expand: " + message, hostlist_expand, names[0])


@pytest.mark.parametrize("nodes", [["n1 NodeAddr=10.0.0.9"], "n1#x", "n[1-2],n=3", ["gpu01\n"]])
def test_topology_without_nodes_refuses_such_names(nodes):
    fabric = {"kind": "tree", "leaves": [{"name": "leaf1", "nodes": nodes}]}
    refused(r"^gpufleet\.cluster\.slurm_topology_conf: switch leaf1 nodes: hostlist .* is not allowed", slurm_topology_conf, fabric)
    refused(r"slurm_topology_conf: nodes: hostlist .* is not allowed", slurm_topology_conf, FABRIC, "22.05",
            nodes if isinstance(nodes, list) else [nodes])


@pytest.mark.parametrize("name, shown", [("leaf 1", r"'leaf 1'"), ("leaf1\n", r"'leaf1\\n'"), ("leaf#1", r"'leaf#1'")])
def test_topology_switch_names(name, shown):
    fabric = {"kind": "tree", "leaves": [{"name": name, "nodes": "n1"}]}
    refused(r"SwitchName name: %s is not allowed; %s" % (shown, SLURM_NAME), slurm_topology_conf, fabric)


def test_topology_block_names():
    fabric = {"kind": "block", "blocks": [{"name": "b1\n", "nodes": "n[1-2]"}]}
    refused(r"BlockName name: 'b1\\n' is not allowed", slurm_topology_conf, fabric, "24.11.5")


# ------------------------------------------------------------------ apt and dpkg
@pytest.mark.parametrize("field, value, shown, allowed", [
    ("suites", ["bookworm\n"], r"suites\[0\]: 'bookworm\\n'", r"expected a suite of letters"),
    ("suites", ["bookworm updates"], r"suites\[0\]: 'bookworm updates'", r"expected a suite"),
    ("components", ["contrib non-free"], r"components\[0\]: 'contrib non-free'", r"expected a component"),
    ("components", ["contrib\nEnabled: no"], r"components\[0\]: 'contrib\\nEnabled: no'", r"expected a component"),
    ("components", ["#contrib"], r"components\[0\]: '#contrib'", r"expected a component"),
    ("uris", ["http://deb.debian.org/debian\nSigned-By: /tmp/k"], r"uris\[0\]: 'http://deb\.debian\.org/debian\\nSigned-By: /tmp/k'",
     r"expected a URI: a scheme"),
    ("uris", ["http://deb.debian.org/ debian"], r"uris\[0\]: 'http://deb\.debian\.org/ debian'", r"expected a URI"),
    ("uris", ["deb.debian.org/debian"], r"uris\[0\]: 'deb\.debian\.org/debian'", r"expected a URI"),
])
def test_apt_add_components_refuses_what_a_deb822_field_cannot_hold(field, value, shown, allowed):
    args = {"suites": ["bookworm"], "components": ["contrib"], "uris": ["http://deb.debian.org/debian"]}
    args[field] = value
    refused(r"^gpufleet\.cluster\.apt_add_components: %s is not allowed; %s" % (shown, allowed),
            apt_add_components, [DEBIAN], **args)


def test_apt_add_components_refuses_a_host_uri_with_a_blank():
    cdrom = {"path": "/etc/apt/sources.list", "content": 'deb "cdrom:[Debian GNU/Linux 12]/" bookworm main\n'}
    refused(r"the URI of the host's entry /etc/apt/sources\.list:1: 'cdrom:\[Debian GNU/Linux 12\]/' is not allowed",
            apt_add_components, [cdrom], ["bookworm"], ["contrib"])


def test_apt_add_components_still_plans_the_lab():
    stanza = apt_add_components([DEBIAN], ["bookworm", "bookworm-updates"], ["contrib", "non-free"])[0]
    assert stanza["deb822"] == ("Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-updates\n"
                                "Components: contrib non-free\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n")


@pytest.mark.parametrize("line, why", [
    ("Slurmd installed 1.0", r"package 'Slurmd' is not a Debian package name"),
    ("slurmd instaled 1.0", r"state 'instaled' is not one of dpkg's"),
    ("slurmd installed 1.0#x", r"version '1\.0#x' is not a Debian version"),
])
def test_dpkg_fields(line, why):
    refused(r"^gpufleet\.cluster\.dpkg_installed: line 1 .*" + why, dpkg_installed, [line])


@pytest.mark.parametrize("running, installed, why", [
    ("535.1\n535.2", "", r"running module version '535\.1\\n535\.2' is not a driver version"),
    ("", "535.2\n", None),  # output's own trailing newline: stripped, as read from the package
])
def test_driver_versions_fullmatch(running, installed, why):
    if why is None:
        assert nvidia_driver_reboot_reasons(running, installed) == []
    else:
        refused(why, nvidia_driver_reboot_reasons, running, installed)


def test_driver_blacklist_path():
    refused(r"blacklist_path: '/etc/modprobe\.d/x\.conf\\n' is not allowed; expected an absolute path",
            nvidia_driver_reboot_reasons, "", "535.2", True, "/etc/modprobe.d/x.conf\n")


# ------------------------------------------------------------------ wrong types: AnsibleFilterError, nothing else
WRONG = [None, 0, -1, 2 ** 70, 1.5, math.nan, True, "", "x\n", [], [None], [1], {}, {"a": None}, {None: 1},
         b"x", (1,), [[]], [{}]]
GOOD = {
    "slurm_node_lines": (slurm_node_lines, [[dict(NODE, weight=1, extra={"Port": 6818})],
                                            [{"name": "batch", "nodes": "gpu01", "default": True,
                                              "max_time": "1-00:00:00", "state": "UP", "extra": {"MaxNodes": 2}}],
                                            "22.05.8"]),
    "slurm_gres_lines": (slurm_gres_lines, [[dict(GRES, device="/dev/nvidia")], [NODE], "22.05.8"]),
    "slurm_conf_check": (slurm_conf_check, [{"SlurmctldPort": "6817-6818", "SchedulerParameters": {"bf_interval": 30},
                                             "ClusterName": "c", "SlurmctldHost": ["h1(10.0.0.1)"]},
                                            "slurm.conf", "22.05.8"]),
    "slurm_topology_conf": (slurm_topology_conf, [FABRIC, "22.05.8", ["gpu01", "gpu02", "gpu03", "gpu04"]]),
    "slurm_topology_conf block": (slurm_topology_conf, [{"kind": "block", "blocks": [{"name": "b1", "nodes": "gpu[01-02]"}],
                                                         "block_sizes": [2, 4]}, "24.11.5", ["gpu01", "gpu02"]]),
    "hostlist_expand": (hostlist_expand, ["gpu[01-02]", False]),
    "hostlist_compress": (hostlist_compress, [["gpu01", "gpu02"]]),
    "apt_sources": (apt_sources, [[DEBIAN], "http://deb.debian.org/debian", []]),
    "apt_add_components": (apt_add_components, [[DEBIAN], ["bookworm", "bookworm-updates"], ["contrib"], [], []]),
    "dpkg_installed": (dpkg_installed, [["bash installed 5.2.15-2+b8"]]),
    "nvidia_driver_reboot_reasons": (nvidia_driver_reboot_reasons, ["535.1", "535.2-1", False, "/etc/modprobe.d/x.conf"]),
}


def _mutations(value):
    """``value`` with each field (at any depth) replaced by each wrong value, or left out."""
    yield from WRONG
    if isinstance(value, dict):
        for key in value:
            for wrong in _mutations(value[key]):
                yield {**value, key: wrong}
            yield {k: v for k, v in value.items() if k != key}
    elif isinstance(value, list):
        for index, item in enumerate(value):
            for wrong in _mutations(item):
                yield value[:index] + [wrong] + value[index + 1:]


@pytest.mark.parametrize("name", sorted(GOOD))
def test_wrong_types_and_missing_keys_give_only_filter_errors(name):
    function, args = GOOD[name]
    function(*args)  # the unspoilt input renders
    fqcn = "gpufleet.cluster." + name.split()[0]
    tried = 0
    for position, value in enumerate(args):
        for wrong in _mutations(value):
            spoilt = list(args)
            spoilt[position] = wrong
            tried += 1
            try:
                function(*spoilt)
            except AnsibleFilterError as error:
                assert str(error).startswith(fqcn + ": "), str(error)
    assert tried >= 19 * len(args)
