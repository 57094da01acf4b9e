# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The files the roles write on the lab's nodes, byte for byte: a SHA-256 of every regular file under PATHS on
every node of the inventory, read through podman exec (tests/e2e/lib.sh: the test's own commands on the nodes).

    node_files.py snapshot LAB_NAME INVENTORY_DIR OUT.json
    node_files.py compare BEFORE.json AFTER.json

PATHS holds every file the roles manage (/etc: Slurm's, munge's key, /etc/hosts' block, chrony's, the limits,
modprobe, NCCL, DCGM, the systemd units and drop-ins; /var/lib/gpufleet: the roles' state files; /usr/local: the
scripts) and nothing a daemon rewrites while it runs. compare exits 1 naming each node and file that differs, is
new or is gone, and prints how many files it compared.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Dict, List

import yaml

PATHS = ("/etc", "/var/lib/gpufleet", "/usr/local")


def hosts(inventory: str) -> List[str]:
    """Every host of the inventory's hosts.yml, sorted."""
    found = set()

    def walk(group: Dict) -> None:
        found.update((group.get("hosts") or {}).keys())
        for child in (group.get("children") or {}).values():
            walk(child or {})

    with open(os.path.join(inventory, "hosts.yml"), encoding="utf-8") as fh:
        walk(yaml.safe_load(fh).get("all") or {})
    return sorted(found)


def parse(listing: str) -> Dict[str, str]:
    """sha256sum's lines ("<digest>  <path>") as {path: digest}."""
    files = {}
    for line in listing.splitlines():
        digest, _sep, path = line.partition("  ")
        if path:
            files[path] = digest
    return files


def snapshot(lab: str, inventory: str) -> Dict[str, Dict[str, str]]:
    command = ("find " + " ".join(PATHS) + " -xdev -type f -print0 2>/dev/null | sort -z"
               " | xargs -0 -r sha256sum")
    result = {}
    for host in hosts(inventory):
        out = subprocess.run(["podman", "exec", f"{lab}-{host}", "sh", "-c", command], check=True,
                             capture_output=True, text=True).stdout
        result[host] = parse(out)
        if not result[host]:
            raise SystemExit(f"no file read on {host}: is {lab}-{host} running?")
    return result


def compare(before: Dict[str, Dict[str, str]], after: Dict[str, Dict[str, str]]) -> List[str]:
    problems = []
    for host in sorted(set(before) | set(after)):
        if host not in after or host not in before:
            problems.append(f"{host}: in one snapshot only")
            continue
        old, new = before[host], after[host]
        for path in sorted(set(old) | set(new)):
            if path not in new:
                problems.append(f"{host}: {path} is gone")
            elif path not in old:
                problems.append(f"{host}: {path} is new")
            elif old[path] != new[path]:
                problems.append(f"{host}: {path} differs")
    return problems


def main(argv: List[str]) -> int:
    if len(argv) == 4 and argv[0] == "snapshot":
        with open(argv[3], "w", encoding="utf-8") as fh:
            json.dump(snapshot(argv[1], argv[2]), fh, indent=1, sort_keys=True)
        return 0
    if len(argv) == 3 and argv[0] == "compare":
        with open(argv[1], encoding="utf-8") as fh:
            before = json.load(fh)
        with open(argv[2], encoding="utf-8") as fh:
            after = json.load(fh)
        problems = compare(before, after)
        count = sum(len(files) for files in before.values())
        for problem in problems:
            print(f"DIFFERS: {problem}")
        print(f"{count} files on {len(before)} nodes compared: "
              + (f"{len(problems)} differ" if problems else "byte-identical"))
        return 1 if problems else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
