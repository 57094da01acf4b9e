# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Project a fleet's node-job converge from a measured lab run (issue 29).

    python3 bench/projection.py RUN_CPU.json --node gpu01 [--nodes 2048] [--execution-nodes 8] [--cores 16]
                        [--slices-per-execution-node 2] [--node-seconds S]

RUN_CPU.json is what bench/callback_plugins/run_cpu.py wrote for a measured run of the node job (or site.yml): the
main process's CPU, its workers' CPU and the evaluations per host. From it:
  main      seconds of the main process per evaluation (one core; it takes every host through every task in turn)
  worker    seconds of worker CPU per evaluation (forked per host-task: templating, the module's payload, ssh)
and for NODES nodes dealt over SLICES = EXECUTION_NODES x SLICES_PER_EXECUTION_NODE slices, h = ceil(NODES / SLICES)
hosts per slice, E = the evaluations of one node (--node) in the measured run:
  M = h x E x main                      the main process of one slice, serial
  W = k x h x E x worker / (C - k)      the workers of the k slices an execution node runs, on its C cores less the
                                        k its main processes hold
  R = the node's own seconds            the slowest node's work on itself (packages, services), which the slices'
                                        nodes do at the same time (forks >= h); --node-seconds, else the measured
                                        run's wall time, an upper bound (on the lab it includes the controller's CPU)
  lower bound max(M, W, R)              the controller's work fully overlapped with the nodes'
  upper bound max(M, W) + R             not overlapped at all
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass
from typing import Dict


@dataclass(frozen=True)
class Projection:
    hosts_per_slice: int
    main_s: float
    workers_s: float
    node_s: float

    @property
    def lower_s(self) -> float:
        return max(self.main_s, self.workers_s, self.node_s)

    @property
    def upper_s(self) -> float:
        return max(self.main_s, self.workers_s) + self.node_s


def per_evaluation(run: Dict) -> Dict[str, float]:
    """The measured run's controller seconds per task evaluation: main process and workers."""
    total = sum(run["evaluations"].values())
    if total <= 0:
        raise ValueError("the measured run has no task evaluations")
    return {"main": run["main_cpu_s"] / total, "worker": run["workers_cpu_s"] / total}


def project(run: Dict, node: str, nodes: int, execution_nodes: int, cores: int, slices_per_execution_node: int,
            node_seconds: float | None = None) -> Projection:
    if node not in run["evaluations"]:
        raise ValueError(f"the measured run has no host {node}")
    if min(nodes, execution_nodes, slices_per_execution_node) < 1 or cores <= slices_per_execution_node:
        raise ValueError("nodes, execution nodes and slices must be at least 1, and cores more than the slices an"
                         " execution node runs (each slice's main process holds a core)")
    cost = per_evaluation(run)
    evaluations = run["evaluations"][node]
    hosts = math.ceil(nodes / (execution_nodes * slices_per_execution_node))
    k = slices_per_execution_node
    return Projection(hosts_per_slice=hosts,
                      main_s=hosts * evaluations * cost["main"],
                      workers_s=k * hosts * evaluations * cost["worker"] / (cores - k),
                      node_s=run["wall_s"] if node_seconds is None else node_seconds)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run")
    parser.add_argument("--node", required=True)
    parser.add_argument("--nodes", type=int, default=2048)
    parser.add_argument("--execution-nodes", type=int, default=8)
    parser.add_argument("--cores", type=int, default=16)
    parser.add_argument("--slices-per-execution-node", type=int, default=2)
    parser.add_argument("--node-seconds", type=float)
    args = parser.parse_args(argv)
    with open(args.run, encoding="utf-8") as fh:
        run = json.load(fh)
    try:
        cost = per_evaluation(run)
        p = project(run, args.node, args.nodes, args.execution_nodes, args.cores, args.slices_per_execution_node,
                    args.node_seconds)
    except (ValueError, KeyError) as exc:
        print(f"projection.py: {exc}", file=sys.stderr)
        return 2
    slices = args.execution_nodes * args.slices_per_execution_node
    print(f"measured: {cost['main'] * 1000:.1f} ms main process and {cost['worker'] * 1000:.1f} ms worker CPU per"
          f" evaluation; {run['evaluations'][args.node]} evaluations for {args.node}")
    print(f"{args.nodes} nodes, {slices} slices on {args.execution_nodes} execution nodes of {args.cores} cores:"
          f" {p.hosts_per_slice} hosts per slice")
    print(f"main process {p.main_s:.0f} s, workers {p.workers_s:.0f} s, the node's own work {p.node_s:.0f} s")
    print(f"projected wall time: {p.lower_s / 60:.1f} to {p.upper_s / 60:.1f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
