# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The inventories of an AWX sliced job, built the way AWX builds them.

    awx_slices.py --inventory DIR --count N --out DIR     (writes DIR/slice<k>/hosts, k = 1..N, and prints the hosts)

What AWX does, read from its source (ansible/awx, awx/main/...; read, not copied):
  * The inventory sync (tasks/jobs.py RunInventoryUpdate.build_args) runs `ansible-inventory --list --export` on
    the source and imports the result (utils/mem_inventory.py dict_to_mem_data, management/commands/
    inventory_import.py): the "all" group's variables become the inventory's variables; hosts of "all" and of
    "ungrouped" belong to no group; every other group keeps its own hosts, children and variables; each host its
    own variables (--export keeps group variables on the groups instead of merging them into the hosts).
  * A job template with job_slice_count N > 1 launches a workflow job named after the template (is_sliced_job), of
    min(N, number of hosts) nodes (models/jobs.py JobTemplate.get_effective_slice_ct, create_unified_job); node k
    runs the template as a job with job_slice_number k, job_slice_count N and launch type "workflow"
    (models/workflow.py WorkflowJobNode.get_job_kwargs).
  * That job's inventory is Inventory.get_script_data(hostvars=True, towervars=True, slice_number=k,
    slice_count=N) (models/inventory.py, with get_sliced_hosts; tasks/jobs.py BaseTask.build_inventory): the
    enabled hosts ordered by name, sliced hosts[k-1::N]; each group lists only its hosts in the slice, keeps its
    children and variables, and appears only when it has one of the three; "all" has the inventory's variables,
    the slice's hosts that are in no group, and every group as a child (empty ones too); _meta.hostvars has the
    slice's hosts only, each with remote_tower_enabled/remote_tower_id and remote_host_enabled/remote_host_id.
    AWX writes it as an executable script printing the JSON (BaseTask.write_inventory_file), and so does this.
Hosts are ordered by Python's string order, which is PostgreSQL's under the C collation; AWX orders by its
database's collation, the same for names of letters, digits and one kind of separator, such as the lab's.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from typing import Any, Dict, List, Optional

# The groups AWX's import folds into the inventory itself (utils/mem_inventory.py).
IMPLICIT = ("all", "ungrouped")


class Imported:
    """An inventory as AWX holds it after a sync: its variables, its hosts and its groups."""

    def __init__(self, export: Dict[str, Any]):
        self.variables: Dict[str, Any] = dict((export.get("all") or {}).get("vars") or {})
        hostvars = (export.get("_meta") or {}).get("hostvars") or {}
        self.hosts: Dict[str, Dict[str, Any]] = {}
        self.groups: Dict[str, Dict[str, Any]] = {}
        for name, entry in export.items():
            if name == "_meta" or not isinstance(entry, dict):
                continue
            hosts = entry.get("hosts") or []
            for host in hosts:
                self.hosts.setdefault(host, {})
            if name in IMPLICIT:
                continue
            group = self.groups.setdefault(name, {"hosts": [], "children": [], "vars": {}})
            group["hosts"] += [h for h in hosts if h not in group["hosts"]]
            group["vars"].update(entry.get("vars") or {})
            group["children"] += [c for c in entry.get("children") or [] if c not in IMPLICIT
                                  and c not in group["children"]]
        for name, variables in hostvars.items():
            self.hosts.setdefault(name, {}).update(variables or {})
        # Children named but never described are groups too (empty ones).
        for group in list(self.groups.values()):
            for child in group["children"]:
                self.groups.setdefault(child, {"hosts": [], "children": [], "vars": {}})
        for child in (export.get("all") or {}).get("children") or []:
            if child not in IMPLICIT:
                self.groups.setdefault(child, {"hosts": [], "children": [], "vars": {}})
        # AWX gives every host a database id; these are stable for one inventory.
        self.ids = {name: index for index, name in enumerate(sorted(self.hosts), start=1)}

    def sliced_hosts(self, slice_number: int = 1, slice_count: int = 1) -> List[str]:
        """Inventory.get_sliced_hosts over the hosts ordered by name."""
        hosts = sorted(self.hosts)
        if slice_count > 1 and slice_number > 0:
            return hosts[slice_number - 1::slice_count]
        return hosts

    def script_data(self, slice_number: int = 1, slice_count: int = 1) -> Dict[str, Any]:
        """Inventory.get_script_data(hostvars=True, towervars=True, slice_number, slice_count)."""
        hosts = self.sliced_hosts(slice_number, slice_count)
        in_slice = set(hosts)
        data: Dict[str, Any] = {"all": {}}
        if self.variables:
            data["all"]["vars"] = dict(self.variables)
        grouped = set()
        for name in sorted(self.groups):
            group = self.groups[name]
            info: Dict[str, Any] = {}
            members = [h for h in group["hosts"] if h in in_slice]
            if members:
                info["hosts"] = members
                grouped.update(members)
            if group["children"]:
                info["children"] = list(group["children"])
            if group["vars"]:
                info["vars"] = dict(group["vars"])
            if info:
                data[name] = info
        data["all"]["hosts"] = [h for h in hosts if h not in grouped]
        if self.groups:
            data["all"]["children"] = sorted(self.groups)
        hostvars = {}
        for host in hosts:
            variables = dict(self.hosts[host])
            for prefix in ("host", "tower"):
                variables[f"remote_{prefix}_enabled"] = "true"
                variables[f"remote_{prefix}_id"] = self.ids[host]
            hostvars[host] = variables
        data["_meta"] = {"hostvars": hostvars}
        return data

    def effective_slice_count(self, count: int) -> int:
        """JobTemplate.get_effective_slice_ct: never more slices than hosts."""
        return min(count, len(self.hosts))


def export(inventory: str, env: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    """What AWX's inventory sync reads from an inventory file or directory."""
    out = subprocess.run(["ansible-inventory", "-i", inventory, "--list", "--export"], check=True,
                         capture_output=True, text=True, env=env).stdout
    return json.loads(out)


def script(data: Dict[str, Any]) -> str:
    """The inventory file AWX writes for a job: a script that prints the inventory's JSON."""
    return "#! /usr/bin/env python3\n# -*- coding: utf-8 -*-\nprint(%r)\n" % json.dumps(data)


def write_script(data: Dict[str, Any], path: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    # Created with its final mode (the inventory holds the lab's secrets), as AWX does (0700).
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o700)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(script(data))


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--inventory", required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    if args.count < 1:
        parser.error("--count must be 1 or more")
    inventory = Imported(export(args.inventory))
    count = inventory.effective_slice_count(args.count)
    for number in range(1, count + 1):
        write_script(inventory.script_data(number, count), os.path.join(args.out, f"slice{number}", "hosts"))
        print(f"slice {number} of {count}: {','.join(inventory.sliced_hosts(number, count))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
