# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What tests/local/validate_limit/run.sh expects of validate.yml --limit gpu09 (its report, log and the stand-ins'
calls): RDMA against gpu02 outside the limit (gpu01 unreachable), Slurm from login01 outside the limit.

    check.py VALIDATE_JSON PLAY_LOG CALLS_LOG     exits non-zero naming every expectation that does not hold
"""
from __future__ import annotations

import json
import re
import sys
from typing import List


def main(argv: List[str]) -> int:
    with open(argv[1], encoding="utf-8") as handle:
        report = json.load(handle)
    with open(argv[2], encoding="utf-8") as handle:
        log = handle.read()
    with open(argv[3], encoding="utf-8") as handle:
        calls = handle.read().splitlines()
    problems: List[str] = []

    def expect(condition: bool, text: str) -> None:
        if not condition:
            problems.append(text)

    checks = report["checks"]
    named = sorted({node for check in checks for node in check["nodes"]})
    expect(named == ["gpu09"], "results name %s, expected gpu09 alone" % named)
    expect(report["status"] == "pass", "report status %s: %s" % (report["status"], [
        (c["check"], c["detail"]) for c in checks if c["status"] != "pass" and c["status"] != "not_applicable"]))
    bandwidth = [c for c in checks if c["check"] == "rdma_bw"]
    expect(len(bandwidth) == 2, "rdma_bw: %d results, expected one per rail (mlx5_0, mlx5_1)" % len(bandwidth))
    for check in bandwidth:
        expect(check["status"] == "pass" and check["nodes"] == ["gpu09"], "rdma_bw: %s" % check)
        expect(check["detail"].startswith("gpu09 -> gpu02 (peer from the inventory's RDMA nodes, outside this run) "),
               "rdma_bw does not name its peer outside the run: %r" % check["detail"])
    # The probe met gpu01 unreachable and went on; the perftest servers ran on gpu02, started by gpu09.
    expect(re.search(r"\[gpu09 -> gpu01\].*\"unreachable\": true", log) is not None, "gpu01 was not probed")
    expect(log.count("ok: [gpu09 -> gpu02] => (item=ib_write_bw mlx5_") >= 2,
           "the perftest servers were not started on gpu02")
    servers = [c for c in calls if c.startswith("ib_write_bw ") and not c.endswith(" gpu02")]
    clients = [c for c in calls if c.startswith("ib_write_bw ") and c.endswith(" gpu02")]
    expect(len(servers) == 2 and len(clients) == 2, "perftest calls: %s" % calls)
    for check in ("slurm_node", "slurm_srun", "slurm_sbatch"):
        found = [c for c in checks if c["check"] == check]
        expect(len(found) == 1 and found[0]["status"] == "pass" and found[0]["nodes"] == ["gpu09"],
               "%s: %s" % (check, found))
    for check in ("slurm_srun", "slurm_sbatch"):
        expect(any("from login01, outside this run" in c["detail"] for c in checks if c["check"] == check),
               "%s does not say it ran from login01 outside the run" % check)
    for task in ("Node states (sinfo)", "srun hostname on every GPU node", "sbatch across all nodes"):
        expect(re.search(r"TASK \[[^\]]*Slurm \| %s[^\n]*\n(?:[^\n]*\n){0,2}ok: \[gpu09 -> login01\]"
                         % re.escape(task), log) is not None, "Slurm's %r was not delegated to login01" % task)
    expect(any(c.startswith("srun --nodes=1 --nodelist=gpu09 ") for c in calls), "srun not on gpu09 alone: %s" % calls)
    for problem in problems:
        print("FAIL: " + problem)
    print("validate --limit gpu09: %d problem(s)" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
