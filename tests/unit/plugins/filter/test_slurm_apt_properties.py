# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Property tests of the Slurm, hostlist and APT renderers with hostile names and values (issue 13).

Each renderer gets names and values from ``nasty_input`` (newlines, '#', '=', ',', quotes, blanks,
non-ASCII, control characters, one of them slipped into an otherwise valid value). The result must be
either an AnsibleFilterError, exactly when the input breaks a rule, or exactly the expected lines,
each of which parses back to the input.
"""
from __future__ import annotations

import re

from ansible.errors import AnsibleFilterError
from hypothesis import event, given, settings, strategies as st
from nasty_input import hostile_numbers, hostile_text, near_valid

from ansible_collections.gpufleet.cluster.plugins.filter.apt_add_components import apt_add_components
from ansible_collections.gpufleet.cluster.plugins.filter.hostlist_compress import hostlist_compress
from ansible_collections.gpufleet.cluster.plugins.filter.hostlist_expand import hostlist_expand
from ansible_collections.gpufleet.cluster.plugins.filter.slurm_conf_check import slurm_conf_check
from ansible_collections.gpufleet.cluster.plugins.filter.slurm_gres_lines import slurm_gres_lines
from ansible_collections.gpufleet.cluster.plugins.filter.slurm_node_lines import slurm_node_lines
from ansible_collections.gpufleet.cluster.plugins.filter.slurm_topology_conf import slurm_topology_conf
from ansible_collections.gpufleet.cluster.plugins.module_utils.apt.sources import FIELD_RULES, parse_deb822
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist import expand_hostlist, host_sort_key
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.input_rules import CONTROL_RE, is_valid
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.topology import parse_topology_conf

FAST = settings(max_examples=200, deadline=None)
_VALID_NAME = st.from_regex(r"[a-z][a-z0-9_.-]{0,8}[0-9]{0,2}", fullmatch=True)
# Half valid names, half hostile ones, so that both outcomes are common.
NAME = st.one_of(_VALID_NAME, _VALID_NAME, near_valid(_VALID_NAME), hostile_text(1, 12))
_VALID_DEVICE = st.from_regex(r"/dev/[a-z][a-z/_-]{0,8}[a-z]", fullmatch=True)


def _slurm_name(value):
    return is_valid("slurm_name", value)


def _clean(line):
    """Nothing in a rendered line that could start another line, a comment or a field."""
    return not CONTROL_RE.search(line) and "#" not in line and "\t" not in line


def _fields(line):
    """Key=Value tokens of a Slurm line, each split at its first '='."""
    tokens = line.split(" ")
    assert all(token.count("=") >= 1 for token in tokens), line
    pairs = [token.split("=", 1) for token in tokens]
    assert len({key for key, _value in pairs}) == len(pairs), line
    return dict(pairs)


def _hosts(names):
    return sorted(set(names), key=host_sort_key)


# ------------------------------------------------------------------ slurm_node_lines
@FAST
@given(names=st.lists(NAME, min_size=1, max_size=3), partition=NAME, model=NAME, feature=NAME,
       sockets=st.integers(1, 4), cores=st.integers(1, 64), threads=st.integers(1, 2),
       memory=st.integers(1, 2 ** 40), count=st.integers(1, 16))
def test_node_lines_are_refused_or_parse_back(names, partition, model, feature, sockets, cores, threads, memory, count):
    nodes = [{"name": name, "sockets": sockets, "cores_per_socket": cores, "threads_per_core": threads,
              "real_memory": memory, "gres": [{"type": "gpu", "model": model, "count": count}],
              "features": [feature]} for name in names]
    valid = (all(_slurm_name(n) for n in names) and len(set(names)) == len(names) and _slurm_name(partition)
             and partition.upper() != "DEFAULT" and _slurm_name(model) and _slurm_name(feature))
    try:
        out = slurm_node_lines(nodes, [{"name": partition, "nodes": names}], "22.05.8")
    except AnsibleFilterError as error:
        event("refused")
        assert not valid, error
        assert str(error).startswith("gpufleet.cluster.slurm_node_lines: ")
        return
    assert valid
    assert out["lines"] == out["node_lines"] + out["partition_lines"]
    assert len(out["node_lines"]) == 1 and len(out["partition_lines"]) == 1
    assert all(_clean(line) for line in out["lines"])
    node = _fields(out["node_lines"][0])
    assert expand_hostlist(node["NodeName"]) == _hosts(names)
    assert node == {"NodeName": node["NodeName"], "CPUs": str(sockets * cores * threads), "Sockets": str(sockets),
                    "CoresPerSocket": str(cores), "ThreadsPerCore": str(threads), "RealMemory": str(memory),
                    "Gres": "gpu:%s:%d" % (model, count), "Feature": feature}
    part = _fields(out["partition_lines"][0])
    assert part["PartitionName"] == partition and expand_hostlist(part["Nodes"]) == _hosts(names)


# ------------------------------------------------------------------ slurm_gres_lines
@FAST
@given(names=st.lists(NAME, min_size=1, max_size=3), model=NAME,
       device=st.one_of(_VALID_DEVICE, near_valid(_VALID_DEVICE), hostile_text(1, 16)))
def test_gres_lines_are_refused_or_parse_back(names, model, device):
    entry = {"nodes": names, "type": model, "device": device,
             "gpus": [{"index": i, "numa_node": i // 4} for i in range(8)], "numa_cores": {0: "0-51", 1: "52-103"}}
    valid = (all(_slurm_name(n) for n in names) and len(set(names)) == len(names) and _slurm_name(model)
             and is_valid("device_path", device) and not device[-1].isdigit())
    try:
        lines = slurm_gres_lines([entry], None, "22.05.8")
    except AnsibleFilterError as error:
        event("refused")
        assert not valid, error
        assert str(error).startswith("gpufleet.cluster.slurm_gres_lines: ")
        return
    assert valid and len(lines) == 2 and all(_clean(line) for line in lines)
    for numa, line in enumerate(lines):
        fields = _fields(line)
        assert set(fields) == {"NodeName", "Name", "Type", "File", "Cores"}
        assert expand_hostlist(fields["NodeName"]) == _hosts(names)
        assert (fields["Name"], fields["Type"], fields["Cores"]) == ("gpu", model, ["0-51", "52-103"][numa])
        assert expand_hostlist(fields["File"], "device_path") == ["%s%d" % (device, i) for i in range(4 * numa, 4 * numa + 4)]


# ------------------------------------------------------------------ slurm_conf_check
_PLAIN_VALUE = re.compile(r"[!$-~]+")  # printable ASCII without blank, '"' and '#'


@FAST
@given(value=st.one_of(hostile_text(0, 16), near_valid(st.from_regex(r"[a-z][a-z0-9_-]{0,10}", fullmatch=True))))
def test_string_values_are_refused_or_written_as_given(value):
    try:
        out = slurm_conf_check({"ClusterName": value}, "slurm.conf", "22.05.8")
    except AnsibleFilterError as error:
        event("refused")
        assert str(error).startswith("gpufleet.cluster.slurm_conf_check: slurm.conf ClusterName")
        assert value == "" or not all(c.isprintable() and not c.isspace() for c in value) or "#" in value or '"' in value
        return
    assert out["lines"] == ["ClusterName=" + value]
    assert _clean(out["lines"][0]) and out["lines"][0].split("=", 1)[1] == value and " " not in value


@FAST
@given(value=st.one_of(hostile_numbers(), st.integers(-5, 70000).map(str), near_valid(st.sampled_from(["6817", "6817-6818"])),
                       st.tuples(st.integers(0, 70000), st.integers(0, 70000)).map(lambda t: "%d-%d" % t)))
def test_ports_are_refused_or_in_range(value):
    text = str(value)
    match = re.fullmatch(r"([0-9]+)(?:-([0-9]+))?", text) if isinstance(value, (int, str)) and not isinstance(value, bool) else None
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


# ------------------------------------------------------------------ slurm_topology_conf
@FAST
@given(leaves=st.lists(st.tuples(NAME, st.lists(NAME, min_size=1, max_size=3)), min_size=1, max_size=3), spine=NAME)
def test_topology_is_refused_or_parses_back(leaves, spine):
    fabric = {"kind": "tree", "leaves": [{"name": name, "nodes": nodes} for name, nodes in leaves],
              "spines": [{"name": spine, "leaves": [name for name, _nodes in leaves]}]}
    switch_names = [name for name, _nodes in leaves] + [spine]
    all_nodes = [node for _name, nodes in leaves for node in nodes]
    valid = (all(_slurm_name(n) and len(n) < 64 for n in switch_names) and len(set(switch_names)) == len(switch_names)
             and all(_slurm_name(n) for n in all_nodes) and len(set(all_nodes)) == len(all_nodes))
    try:
        lines = slurm_topology_conf(fabric, "22.05.8")
    except AnsibleFilterError as error:
        event("refused")
        # a valid-looking switch name may still be refused when it does not survive hostlist compression
        assert not valid or "does not survive hostlist compression" in str(error), error
        return
    assert valid and len(lines) == len(leaves) + 1 and all(_clean(line) for line in lines)
    back = parse_topology_conf("\n".join(lines) + "\n")
    assert back == {"kind": "tree", "switches": [
        {"name": name, "nodes": _hosts(nodes)} for name, nodes in leaves] + [
        {"name": spine, "switches": _hosts(name for name, _nodes in leaves)}]}


# ------------------------------------------------------------------ hostlist round trip
@settings(max_examples=200, deadline=None)
@given(names=st.lists(st.one_of(NAME, st.from_regex(r"[a-z]{1,3}[0-9]{1,3}", fullmatch=True)), min_size=1, max_size=8))
def test_hostlist_round_trip(names):
    plain = all(not set(n) & set("[],") for n in names)
    try:
        expression = hostlist_compress(names)
    except AnsibleFilterError as error:
        event("refused")
        assert not plain or not all(_slurm_name(n) for n in names), error
        return
    if plain:
        assert all(_slurm_name(n) for n in names)
        assert hostlist_expand(expression) == _hosts(names)
    assert hostlist_expand(expression, sort=True) == hostlist_expand(expression)
    assert _clean(expression) and " " not in expression and "=" not in expression


# ------------------------------------------------------------------ apt sources
def _apt_valid(kind, value):
    pattern, _allowed = FIELD_RULES[kind]
    return bool(pattern.fullmatch(value)) and "#" not in value


@FAST
@given(suites=st.lists(st.one_of(st.sampled_from(["bookworm", "bookworm-updates"]), hostile_text(1, 10)),
                       min_size=1, max_size=2, unique=True),
       components=st.lists(st.one_of(st.sampled_from(["contrib", "non-free"]), near_valid(st.just("contrib")),
                                     hostile_text(1, 10)), min_size=1, max_size=2, unique=True),
       uri=st.one_of(st.just("http://deb.debian.org/debian"), near_valid(st.just("http://deb.debian.org/debian")),
                     hostile_text(1, 16)))
def test_apt_stanzas_are_refused_or_parse_back(suites, components, uri):
    valid = (all(_apt_valid("suite", s) and not s.endswith("/") for s in suites)
             and all(_apt_valid("component", c) for c in components) and _apt_valid("uri", uri))
    try:
        stanzas = apt_add_components([], suites, components, [uri])
    except AnsibleFilterError as error:
        event("refused")
        assert not valid, error
        assert str(error).startswith("gpufleet.cluster.apt_add_components: ")
        return
    assert valid and len(stanzas) == 1
    text = stanzas[0]["deb822"]
    assert all(not CONTROL_RE.search(line) for line in text.splitlines())
    back = parse_deb822(text, "gpufleet.sources")
    assert len(back) == 1
    assert (list(back[0].uris), list(back[0].suites), list(back[0].components)) == ([uri], suites, components)
