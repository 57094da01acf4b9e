# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/e2e/node_files.py: the nodes' files byte for byte, before and after a run."""
from __future__ import annotations

import json
import os
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(_ROOT, "tests", "e2e"))
import node_files  # noqa: E402  pylint: disable=wrong-import-position

A, B = "a" * 64, "b" * 64


def test_parse_reads_sha256sum_lines_with_spaces_in_paths():
    listing = f"{A}  /etc/slurm/slurm.conf\n{B}  /etc/odd name.conf\n\n"
    assert node_files.parse(listing) == {"/etc/slurm/slurm.conf": A, "/etc/odd name.conf": B}


def test_hosts_are_every_host_of_the_inventory(tmp_path):
    (tmp_path / "hosts.yml").write_text(
        "all:\n  children:\n    cluster:\n      children:\n        slurm_controller: {hosts: {head: {}, head2: {}}}\n"
        "        gpu_nodes: {hosts: {gpu02: {}, gpu01: {}}}\n    lustre_clients:\n      children:\n"
        "        gpu_nodes:\n    rdma_switches: {hosts: {}}\n")
    assert node_files.hosts(str(tmp_path)) == ["gpu01", "gpu02", "head", "head2"]


def test_compare_names_every_difference():
    before = {"gpu01": {"/etc/a": A, "/etc/b": A, "/etc/gone": A}, "head": {"/etc/a": A}}
    after = {"gpu01": {"/etc/a": A, "/etc/b": B, "/etc/new": A}, "head": {"/etc/a": A}}
    assert node_files.compare(before, after) == [
        "gpu01: /etc/b differs", "gpu01: /etc/gone is gone", "gpu01: /etc/new is new"]
    assert node_files.compare(before, before) == []
    assert node_files.compare(before, {"gpu01": before["gpu01"]}) == ["head: in one snapshot only"]


def test_the_command_compares_two_snapshots(tmp_path, capsys):
    same = {"gpu01": {"/etc/a": A, "/etc/b": B}, "head": {"/etc/a": A}}
    (tmp_path / "1.json").write_text(json.dumps(same))
    (tmp_path / "2.json").write_text(json.dumps(same))
    assert node_files.main(["compare", str(tmp_path / "1.json"), str(tmp_path / "2.json")]) == 0
    assert capsys.readouterr().out == "3 files on 2 nodes compared: byte-identical\n"
    (tmp_path / "2.json").write_text(json.dumps({"gpu01": {"/etc/a": B, "/etc/b": B}, "head": {"/etc/a": A}}))
    assert node_files.main(["compare", str(tmp_path / "1.json"), str(tmp_path / "2.json")]) == 1
    assert capsys.readouterr().out == "DIFFERS: gpu01: /etc/a differs\n3 files on 2 nodes compared: 1 differ\n"
    assert node_files.main(["nonsense"]) == 2
