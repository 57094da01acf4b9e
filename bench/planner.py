# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Time the planner behind playbooks/plan.yml for 256, 1,024 and 2,048 GPU nodes.

    python bench/planner.py [--sizes 256,1024,2048] [--repeat 5] [--json bench/results/planner.json]

Stdlib only; imports the collection's module_utils from collections/ (a link to this checkout). Each figure is the
best of --repeat runs (the least disturbed by other jobs on the machine):

* pdu_layout: the whole call for the fleet (validation, placement, and the full scenario check it always runs), with
  racks of 32 nodes x 5.6 kW x 4 PSUs (2 required), two 400 V wye PDUs per rack (feed A and B), 48 x 32 A breakers
  each; pdu_check: a separate check of that layout;
* lustre_stripe_plan for N x 8 GPU readers of one shared file on 64 OSTs, lustre_pfl_layout from a list of N x 8
  file sizes (it sorts them for the percentiles);
* hostlist compress of the N node names (shuffled, so the sort is exercised), and the expansion back;
* NCCL topology XML of one 8-GPU HGX node (independent of N).

Sub-millisecond calls are looped so that one timed run lasts about 20 ms, and reported per call.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "collections"))

from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist import (  # noqa: E402
    compress_hostlist,
    expand_hostlist,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.striping import (  # noqa: E402
    pfl_layout,
    stripe_plan,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.topology import render_xml  # noqa: E402
from ansible_collections.gpufleet.cluster.plugins.module_utils.power.scenarios import check_assignment  # noqa: E402
from ansible_collections.gpufleet.cluster.plugins.module_utils.power.layout import plan_layout  # noqa: E402

NODES_PER_RACK = 32
BREAKERS_PER_PDU = 48
GPUS_PER_NODE = 8
OSTS = 64


def power_input(nodes):
    """Racks of NODES_PER_RACK nodes, two 3-phase PDUs per rack with enough 32 A breakers."""
    racks = -(-nodes // NODES_PER_RACK)
    circuits = [{"name": "cb%02d" % (i + 1), "rating_a": 32, "phase": "L%d" % (i % 3 + 1)} for i in range(BREAKERS_PER_PDU)]
    return {
        "nodes": [{"name": "gpu%04d" % (i + 1), "rack": "r%03d" % (i // NODES_PER_RACK + 1), "max_power_w": 5600,
                   "psus": 4, "psus_required": 2} for i in range(nodes)],
        "pdus": [{"name": "r%03d-pdu-%s" % (r + 1, feed.lower()), "rack": "r%03d" % (r + 1), "feed": feed,
                  "voltage": 400, "phases": 3, "wiring": "wye", "circuits": circuits}
                 for r in range(racks) for feed in ("A", "B")],
    }


def hgx_layout():
    """The HGX H100 node of inventories/h100-64: 2 NUMA nodes, 4 switches, 2 GPUs + 2 HDR HCAs on each."""
    cpus, hca = [], 0
    for numa, (cpulist, first_gpus) in enumerate((("0-51", (0x53, 0x75)), ("52-103", (0x97, 0xB9)))):
        switches = []
        for gpu_a in first_gpus:
            ends = []
            for gpu in (gpu_a, gpu_a + 0x11):  # each HCA sits one bus below its GPU
                ends.append({"busid": "0000:%02x:00.0" % (gpu - 1), "class": "ib", "vendor": 0x15B3, "device": 0x101B,
                             "link_speed": "gen4", "link_width": 16,
                             "nic": {"net": [{"name": "mlx5_%d" % hca, "dev": hca, "speed": 200000, "port": 1}]}})
                ends.append({"busid": "0000:%02x:00.0" % gpu, "class": "gpu", "vendor": 0x10DE, "device": 0x2330,
                             "link_speed": "gen5", "link_width": 16})
                hca += 1
            switches.append({"busid": "0000:%02x:00.0" % (gpu_a - 3), "class": "bridge", "vendor": 0x1000,
                             "device": 0xC030, "link_speed": "gen5", "link_width": 16, "pci": ends})
        cpus.append({"numaid": numa, "affinity": cpulist, "arch": "x86_64", "vendor": "GenuineIntel", "familyid": 6,
                     "modelid": 143, "pci": switches})
    return {"version": 1, "cpus": cpus}


def best(func, repeat, min_run_s=0.02):
    """Best per-call seconds over `repeat` runs; fast calls are looped so one run takes about min_run_s."""
    loops, t0 = 1, time.perf_counter()
    result = func()
    once = time.perf_counter() - t0
    if once < min_run_s:
        loops = max(1, int(min_run_s / max(once, 1e-7)))
    times = []
    for _run in range(repeat):
        t0 = time.perf_counter()
        for _loop in range(loops):
            func()
        times.append((time.perf_counter() - t0) / loops)
    return min(times), result


def bench_size(n, repeat):
    """All figures for a fleet of n nodes."""
    data = power_input(n)
    t_layout, layout = best(lambda: plan_layout(data), repeat)
    assert layout["summary"]["psus"] == 4 * n, layout["summary"]
    t_check, check = best(lambda: check_assignment(data, layout), repeat)
    assert check["ok"], check["violations"][:1]
    readers = n * GPUS_PER_NODE
    t_stripe, plan = best(lambda: stripe_plan(OSTS, 10.0, readers, 1.5), repeat)
    assert plan["stripe_count"] == OSTS
    rng = random.Random(n)
    sizes_bytes = [int(rng.lognormvariate(17, 3)) for _reader in range(readers)]
    t_pfl, _pfl = best(lambda: pfl_layout(sizes_bytes, OSTS, path="/lustre/ckpt"), repeat)
    names = [node["name"] for node in data["nodes"]]
    rng.shuffle(names)
    t_compress, hostlist = best(lambda: compress_hostlist(names), repeat)
    assert hostlist == "gpu[0001-%04d]" % n, hostlist
    t_expand, expanded = best(lambda: expand_hostlist(hostlist), repeat)
    assert len(expanded) == n
    return {
        "nodes": n, "racks": len(layout["racks"]), "psus": 4 * n, "breakers": layout["summary"]["circuits_available"],
        "breakers_used": layout["summary"]["circuits_used"], "scenarios": layout["summary"]["scenarios"],
        "pdu_layout_s": t_layout, "pdu_check_s": t_check, "stripe_plan_s": t_stripe, "pfl_layout_s": t_pfl,
        "hostlist_compress_s": t_compress, "hostlist_expand_s": t_expand,
    }


def fmt(seconds):
    if seconds >= 0.1:
        return "%.3f s" % seconds
    if seconds >= 1e-3:
        return "%.2f ms" % (seconds * 1e3)
    return "%.1f µs" % (seconds * 1e6)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--sizes", default="256,1024,2048", help="node counts, comma separated")
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure; the best is reported")
    parser.add_argument("--json", help="also write the figures (seconds) to this file")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    start = time.perf_counter()
    rows = [bench_size(n, args.repeat) for n in sizes]
    layout = hgx_layout()
    t_nccl, xml = best(lambda: render_xml(layout), args.repeat)
    assert xml.count('class="0x030200"') == 8 and xml.count("<net ") == 8
    total = time.perf_counter() - start

    print("# planner benchmark\n")
    print("`python %s%s`, Python %s, %s, %d CPUs, best of %d runs\n" % (
        os.path.relpath(os.path.abspath(__file__), os.getcwd()), "".join(" " + a for a in (argv if argv is not None else sys.argv[1:])),
        platform.python_version(), platform.platform(terse=True), os.cpu_count() or 0, args.repeat))
    print("| nodes | racks | PSUs | breakers (used) | scenarios | pdu_layout | pdu_check | stripe_plan (8N readers) "
          "| PFL (8N sizes) | hostlist compress (N) | hostlist expand (N) |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print("| {:,} | {} | {:,} | {:,} ({:,}) | {:,} | {} | {} | {} | {} | {} | {} |".format(
            r["nodes"], r["racks"], r["psus"], r["breakers"], r["breakers_used"], r["scenarios"], fmt(r["pdu_layout_s"]),
            fmt(r["pdu_check_s"]), fmt(r["stripe_plan_s"]), fmt(r["pfl_layout_s"]), fmt(r["hostlist_compress_s"]),
            fmt(r["hostlist_expand_s"])))
    print("\nNCCL topology XML of one 8-GPU HGX node (2 CPUs, 4 switches, 8 GPUs, 8 HCAs): %s per render" % fmt(t_nccl))
    print("Total benchmark time: %.1f s" % total)
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as handle:
            json.dump({"rows": rows, "nccl_render_s": t_nccl, "repeat": args.repeat, "python": platform.python_version(),
                       "cpus": os.cpu_count(), "total_s": total}, handle, indent=2)
            handle.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
