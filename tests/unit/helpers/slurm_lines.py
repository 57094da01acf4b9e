# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Slurm filter inputs (a GPU node, its gres.conf entry, a two-leaf fabric, eight compute nodes), the wording of
input_rules' refusals, and the readers and hypothesis strategies the Slurm and hostlist filter tests share."""
from __future__ import annotations

from hypothesis import strategies as st
from nasty_input import hostile_text, near_valid

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.input_rules import CONTROL_RE, is_valid
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist import host_sort_key

# input_rules' wording of what a Slurm name, a control character and a device path may be (regexes).
SLURM_NAME = r"expected a letter or digit, then up to 63 letters, digits, '\.', '_' or '-'"
NO_CONTROL = r"\(control characters such as a newline are never allowed\)"
DEVICE = r"expected an absolute path under /dev of letters, digits, '_', '\.', '\+' and '-' \(no '\.' or '\.\.' parts\)"

NODE = {"name": "gpu01", "sockets": 2, "cores_per_socket": 52, "threads_per_core": 1, "real_memory": 2063937,
        "gres": [{"type": "gpu", "model": "h100", "count": 8}], "features": ["h100", "ib"]}
GRES = {"nodes": "gpu01", "type": "h100", "gpus": [{"index": i, "numa_node": i // 4} for i in range(8)],
        "numa_cores": {0: "0-51", 1: "52-103"}}
FABRIC = {"kind": "tree",
          "leaves": [{"name": "leaf1", "nodes": "gpu[01-02]"}, {"name": "leaf2", "nodes": "gpu[03-04]"}],
          "spines": [{"name": "spine1", "leaves": ["leaf1", "leaf2"]}]}
NODES = [{"name": "compute%02d" % i, "sockets": 2, "cores_per_socket": 52, "threads_per_core": 1,
          "real_memory": 2063937, "gres": [{"type": "gpu", "model": "h100", "count": 8}]} for i in range(1, 9)]

# Half valid names, half hostile ones, so that both outcomes are common.
VALID_NAME = st.from_regex(r"[a-z][a-z0-9_.-]{0,8}[0-9]{0,2}", fullmatch=True)
NAME = st.one_of(VALID_NAME, VALID_NAME, near_valid(VALID_NAME), hostile_text(1, 12))
VALID_DEVICE = st.from_regex(r"/dev/[a-z][a-z/_-]{0,8}[a-z]", fullmatch=True)


def slurm_name(value):
    return is_valid("slurm_name", value)


def clean(line):
    """Nothing in a rendered line that could start another line, a comment or a field."""
    return not CONTROL_RE.search(line) and "#" not in line and "\t" not in line


def key_values(line):
    """Key=Value tokens of a Slurm line, each split at its first '='."""
    tokens = line.split(" ")
    assert all(token.count("=") >= 1 for token in tokens), line
    pairs = [token.split("=", 1) for token in tokens]
    assert len({key for key, _value in pairs}) == len(pairs), line
    return dict(pairs)


def hosts(names):
    return sorted(set(names), key=host_sort_key)


# Issue 13: names that would split a Slurm line, and the words of the hostlist filters' refusal.
SPLITTING_NAMES = [
    (["n1 NodeAddr=10.0.0.9"], r"hostlist 'n1 NodeAddr=10\.0\.0\.9': blank ' ' at position 2 is not allowed"),
    (["n1#x"], r"hostlist 'n1#x': character '#' at position 2 is not allowed; names hold only letters, digits"),
    (["n=1"], r"hostlist 'n=1': character '=' at position 1 is not allowed"),
    (["gpu01\n"], r"hostlist 'gpu01\\n': control character '\\n' at position 5 is not allowed"),
]
