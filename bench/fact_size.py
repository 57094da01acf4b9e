# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a fleet-sized value costs every task of every host, by where it lives (issue 29).

    python3 bench/fact_size.py [--hosts 16] [--tasks 40] [--entries 20000] [--forks 8] [--repeat 2]

One playbook, HOSTS hosts (connection local), TASKS cheap set_fact tasks each, run three ways with ansible-core's
own ansible-playbook:
  none        no big value
  inventory   a dict of ENTRIES strings in group_vars/all (what describe.yml's rendered description is)
  set_fact    the same dict set with set_fact and run_once, so every host holds it as a fact (what site.yml does
              with the description when the inventory has no rendered file)
and prints the controller's CPU (user + system of ansible-playbook and its children) and wall time of each, best
of REPEAT, and the difference per host-task evaluation against `none`. Everything is written to a temporary folder
and removed.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import yaml


def write(folder: str, hosts: int, tasks: int, entries: int) -> None:
    inventory = {"all": {"vars": {"ansible_connection": "local", "ansible_python_interpreter": sys.executable},
                         "hosts": {"h%04d" % index: {} for index in range(hosts)}}}
    for kind in ("none", "inventory", "set_fact"):
        os.makedirs(os.path.join(folder, kind, "group_vars", "all"))
        with open(os.path.join(folder, kind, "hosts.yml"), "w", encoding="utf-8") as handle:
            yaml.safe_dump(inventory, handle)
    big = {str(index): "value-%d" % index for index in range(entries)}
    with open(os.path.join(folder, "inventory", "group_vars", "all", "big.yml"), "w", encoding="utf-8") as handle:
        yaml.safe_dump({"bench_big": big}, handle)
    steps = [{"name": "task %d" % index, "ansible.builtin.set_fact": {"bench_x%d" % index: "{{ inventory_hostname }}"}}
             for index in range(tasks)]
    for kind in ("none", "inventory", "set_fact"):
        first = []
        if kind == "set_fact":
            first = [{"name": "The big value as a fact of every host", "run_once": True, "ansible.builtin.set_fact": {
                "bench_big": "{{ dict(range(%d) | map('string') | zip(range(%d) | map('string')"
                             " | map('regex_replace', '^', 'value-'))) }}" % (entries, entries)}}]
        with open(os.path.join(folder, kind, "play.yml"), "w", encoding="utf-8") as handle:
            yaml.safe_dump([{"name": kind, "hosts": "all", "gather_facts": False, "tasks": first + steps}], handle,
                           sort_keys=False)


def run(folder: str, kind: str, forks: int) -> tuple:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    env = dict(os.environ, ANSIBLE_CACHE_PLUGIN="memory", ANSIBLE_LOCALHOST_WARNING="false")
    proc = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i",
                           os.path.join(folder, kind, "hosts.yml"), "-f", str(forks),
                           os.path.join(folder, kind, "play.yml")], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, check=False)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit("fact_size: the %s run failed (exit %d):\n%s" % (kind, proc.returncode, proc.stdout[-3000:]))
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, default=16)
    parser.add_argument("--tasks", type=int, default=40)
    parser.add_argument("--entries", type=int, default=20000)
    parser.add_argument("--forks", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args(argv)
    folder = tempfile.mkdtemp(prefix="gpufleet-fact-size-")
    try:
        write(folder, args.hosts, args.tasks, args.entries)
        evaluations = args.hosts * args.tasks
        best = {}
        for _round in range(args.repeat):
            for kind in ("none", "inventory", "set_fact"):
                cpu, wall = run(folder, kind, args.forks)
                best[kind] = min(best.get(kind, (cpu, wall)), (cpu, wall))
        print("%d hosts x %d tasks (%d evaluations), a dict of %d entries, forks %d, best of %d"
              % (args.hosts, args.tasks, evaluations, args.entries, args.forks, args.repeat))
        print("| where the value lives | controller CPU | wall | CPU per evaluation over none |")
        print("| --- | ---: | ---: | ---: |")
        for kind in ("none", "inventory", "set_fact"):
            cpu, wall = best[kind]
            print("| %s | %.1f s | %.1f s | %+.1f ms |" % (kind, cpu, wall, 1000 * (cpu - best["none"][0]) / evaluations))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
