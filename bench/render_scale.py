# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Render cost per host of the node layers' cluster-wide variables at 256 and 2,048 hosts (issue 29), for two
checkouts side by side in one run (the commit before the cluster description and this one).

    python bench/render_scale.py --before DIR [--after .] [--sizes 256,2048] [--sample 4] [--json FILE]

For each size, a synthetic inventory is written to a temporary folder (N GPU nodes in gpu_nodes and cluster, one
head node, one switch per 32 nodes) and loaded by ansible-core's own InventoryManager and VariableManager. For each
checkout, the tasks below are read from its role files and their templates rendered by ansible-core's templar with
the variables a task sees (role defaults, the inventory, role vars, task vars, hostvars, groups), for a sample of
hosts (switches for roce_switch); a run_once task is rendered once and its cost spread over the play's hosts (the N
nodes, or the switches), its facts given to every sampled host, as Ansible does:

* slurm: tasks/preflight.yml's "Work out and check the Slurm configuration" (and, after, its run_once description);
* common: tasks/preflight.yml's address checks (the missing-address check and the input check), tasks/hosts.yml's
  block (run_once in both);
* roce_switch: vars/main.yml's host problems and the side handed to the renderer (and, after, the run_once sides).

Both checkouts' templates run with the filters of --after (the filters they share are unchanged). The per-host figure
is the best of --repeat rounds; nothing here is a test, and other jobs on the machine slow every figure alike.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from typing import Any, Dict, List, Tuple

import yaml

TASKS = {  # role: [(file, task name, run_once)]
    "slurm": [("tasks/preflight.yml", "Preflight | Work out the cluster's Slurm nodes, partitions, gres and topology "
               "(once for the run)", True),
              ("tasks/preflight.yml", "Preflight | Work out and check the Slurm configuration", False)],
    "common": [("tasks/preflight.yml", "Preflight | Work out the cluster's hosts and addresses (once for the run)", True),
               ("tasks/preflight.yml", "Preflight | Check every cluster host has an address for /etc/hosts", False),
               ("tasks/preflight.yml", "Preflight | Check the values written to chrony.conf, /etc/hosts, sysctl.d and "
                "the limits files", False),
               ("tasks/hosts.yml", "Hosts | The /etc/hosts block, from the inventory's hosts (once for the run)", True)],
    "roce_switch": [("tasks/preflight.yml", "Preflight | Work out the RoCE hosts' sides (once for the run)", True),
                    ("vars", "__roce_switch_host_problems", False), ("vars", "__roce_switch_host_for_render", False)],
}


def inventory(count: int) -> Dict[str, Any]:
    """N GPU nodes (8 x H100, two NUMA nodes, gpufleet_ip), a head node, a leaf switch per 32 nodes."""
    nodes = {"gpu%04d" % n: {"gpufleet_ip": "10.%d.%d.%d" % (n // 65536, n // 256 % 256, n % 256)}
             for n in range(1, count + 1)}
    switches = {"leaf%03d" % n: {"roce_switch_platform": "sonic", "roce_switch_ports": [
        {"name": "Ethernet0", "speed_gbps": 400, "cable_m": 3}]} for n in range(1, count // 32 + 2)}
    node_vars = {"slurm_node_cpus": 2, "slurm_node_sockets": 1, "slurm_node_cores_per_socket": 2,
                 "slurm_node_threads_per_core": 1, "slurm_node_real_memory_mib": 2048,
                 "slurm_node_features": ["h100"], "slurm_gpu_count": 8, "slurm_gpu_type": "h100",
                 "slurm_gpu_numa": [0, 0, 0, 0, 1, 1, 1, 1], "roce_host_priority": 3, "roce_host_dscp": [26]}
    return {"all": {"vars": {"ansible_connection": "local", "slurm_version": "23.11", "slurm_accounting": False,
                             "common_chrony_servers": ["10.0.0.1"], "common_neigh_gc_thresh1": 65536,
                             "common_neigh_gc_thresh2": 131072, "common_neigh_gc_thresh3": 262144},
                    "children": {
                        "cluster": {"children": {"slurm_controllers": {"hosts": {"head": {"gpufleet_ip": "10.255.0.1"}}},
                                                 "gpu_nodes": {"hosts": nodes, "vars": node_vars}}},
                        "switches": {"hosts": switches}}}}


def _task(loader: Any, root: str, role: str, path: str, name: str) -> Any:
    """The task named ``name`` of a role file (its strings trusted as templates, as Ansible loads them), or a role
    variable (path "vars"); None when the checkout lacks it."""
    if path == "vars":
        return name
    for task in loader.load_from_file(os.path.join(root, "roles", role, path), trusted_as_template=True):
        if task.get("name") == name:
            return task
    return None


def _role_vars(loader: Any, root: str, role: str) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    base = os.path.join(root, "roles", role)

    def load(part: str) -> Dict[str, Any]:
        return loader.load_from_file(os.path.join(base, part, "main.yml"), trusted_as_template=True) or {}

    return load("defaults"), load("vars")


def _templates(task: Any) -> Tuple[Dict[str, Any], List[Any]]:
    """(task vars, what to render): set_fact's arguments, assert's conditions (each wrapped in {{ }})."""
    args = task.get("ansible.builtin.set_fact")
    if args is not None:
        return task.get("vars", {}) or {}, [("set_fact", args)]
    that = task["ansible.builtin.assert"]["that"]
    conditions = [that] if isinstance(that, str) else that
    return task.get("vars", {}) or {}, [("assert", "{{ %s }}" % item) for item in conditions]


def measure(root: str, size: int, sample: int, inv_path: str) -> Dict[str, float]:
    """Seconds of rendering per host of each role's tasks (run_once ones spread over ``size`` hosts)."""
    from ansible.inventory.manager import InventoryManager
    from ansible.parsing.dataloader import DataLoader
    from ansible.template import Templar, trust_as_template
    from ansible.vars.hostvars import HostVars
    from ansible.vars.manager import VariableManager

    loader = DataLoader()
    inv = InventoryManager(loader=loader, sources=[inv_path])
    manager = VariableManager(loader=loader, inventory=inv)
    hostvars = HostVars(inventory=inv, variable_manager=manager, loader=loader)
    out = {}
    for role, tasks in TASKS.items():
        defaults, role_vars = _role_vars(loader, root, role)
        group = "switches" if role == "roce_switch" else "gpu_nodes"
        hosts = inv.get_groups_dict()[group][:sample]
        facts: Dict[str, Any] = {}
        once = per_host = 0.0
        for index, name in enumerate(hosts):
            seen = manager.get_vars(host=inv.get_host(name), include_hostvars=False)
            base = dict(defaults, **{k: v for k, v in seen.items() if k != "hostvars"})
            base.update(role_vars)
            base["hostvars"] = hostvars
            base["inventory_hostname"] = name
            base["ansible_play_hosts_all"] = base["ansible_play_hosts"] = inv.get_groups_dict()[group]
            if role == "roce_switch":
                base["__roce_switch_checked"] = {"lossless_class": {"priority": 3, "dscp": [26], "default_priority": 0}}
            base.update(facts)
            for path, task_name, run_once in tasks:
                if run_once and index > 0:
                    continue
                task = _task(loader, root, role, path, task_name)
                if task is None:
                    continue
                if isinstance(task, str):
                    task_vars, renders = {}, [("var", "{{ %s }}" % task)]
                else:
                    task_vars, renders = _templates(task)
                variables = dict(base, **task_vars)
                templar = Templar(loader=loader, variables=variables)
                start = time.perf_counter()
                for kind, item in renders:
                    if kind == "set_fact":
                        result = {key: templar.template(value) for key, value in item.items()}
                        if run_once:
                            facts.update(result)
                            base.update(result)
                    else:
                        templar.template(trust_as_template(item))
                spent = time.perf_counter() - start
                if run_once:
                    once += spent
                else:
                    per_host += spent
        out[role] = per_host / max(len(hosts), 1) + once / len(inv.get_groups_dict()[group])
        out[role + " (run_once share)"] = once / len(inv.get_groups_dict()[group])
    out["total"] = sum(out[role] for role in TASKS)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--before", required=True, help="checkout of the commit before (a git worktree)")
    parser.add_argument("--after", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser.add_argument("--sizes", default="256,2048")
    parser.add_argument("--sample", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--json")
    args = parser.parse_args()
    after = os.path.abspath(args.after)
    sys.path.insert(0, os.path.join(after, "collections"))
    from ansible.plugins.loader import init_plugin_loader

    init_plugin_loader([os.path.join(after, "collections")])
    results: Dict[str, Dict[str, Dict[str, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="render-scale-") as tmp:
        for size in [int(s) for s in args.sizes.split(",")]:
            inv_path = os.path.join(tmp, "inventory-%d.yml" % size)
            with open(inv_path, "w", encoding="utf-8") as handle:
                yaml.safe_dump(inventory(size), handle)
            for label, root in (("before", os.path.abspath(args.before)), ("after", after)):
                rounds = [measure(root, size, args.sample, inv_path) for _round in range(args.repeat)]
                results.setdefault(str(size), {})[label] = {key: min(r[key] for r in rounds) for key in rounds[0]}
                print("%5d hosts %-6s %s" % (size, label, "  ".join(
                    "%s %.1f ms" % (key, value * 1000) for key, value in results[str(size)][label].items())),
                    flush=True)
    sizes = list(results)
    if len(sizes) >= 2:
        for label in ("before", "after"):
            print("%s: per-host cost at %s / at %s = %.2fx" % (label, sizes[-1], sizes[0], results[sizes[-1]][label]
                                                               ["total"] / results[sizes[0]][label]["total"]))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
