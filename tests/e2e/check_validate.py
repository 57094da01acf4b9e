# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Check validate.yml's report from the lab (tests/e2e/validate.sh).

    check_validate.py REPORT_DIR pass GPU_NODE...    the lab's healthy run
    check_validate.py REPORT_DIR check GPU_NODE...   the check-mode run (no load test run, said so)
    check_validate.py REPORT_DIR fail GPU_NODE...    the run with an impossible storage floor
    check_validate.py REPORT_DIR limit GPU_NODE...   a --limit run of these nodes alone: Slurm's checks ran from a
                                                     submit host outside the run, on these nodes only

Exits non-zero naming every expectation that does not hold.
"""

from __future__ import annotations

import json
import os
import sys
from html.parser import HTMLParser
from typing import Any, Dict, List, Tuple, Union

VOID = {"meta", "br", "hr", "img", "input", "link", "col", "wbr"}


class Balanced(HTMLParser):
    """Every opened element is closed in order; collects the text."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: List[str] = []
        self.errors: List[str] = []
        self.text: List[str] = []

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("</%s> closes %s" % (tag, self.stack[-1] if self.stack else "nothing"))
        else:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def results(report: Dict[str, Any], check: str, node: str = "") -> List[Dict[str, Any]]:
    return [r for r in report["checks"] if r["check"] == check and (not node or node in r["nodes"])]


def main(argv: List[str]) -> int:
    folder, mode, nodes = argv[1], argv[2], argv[3:]
    problems: List[str] = []

    def expect(condition: bool, text: str) -> None:
        if not condition:
            problems.append(text)

    def status_of(check: str, node: str, status: str, detail: Union[str, Tuple[str, ...]] = "") -> None:
        """Every result of `check` on `node` has `status` and says `detail` (or one of the details given)."""
        details = (detail,) if isinstance(detail, str) else detail
        found = results(report, check, node)
        expect(bool(found), "%s on %s: no result" % (check, node or "the cluster"))
        for r in found:
            expect(r["status"] == status, "%s on %s is %s (%s), expected %s" % (
                check, r["nodes"], r["status"], r["detail"], status))
            expect(any(d in r["detail"] for d in details), "%s on %s says %r, expected it to say %s" % (
                check, r["nodes"], r["detail"], " or ".join(repr(d) for d in details)))

    with open(os.path.join(folder, "validate.json"), encoding="utf-8") as fh:
        report = json.load(fh)
    expect(report.get("schema") == "gpufleet.validate/v1", "schema is %r" % report.get("schema"))
    na_gpu, na_hca = "not applicable: no GPUs", "not applicable: no RDMA HCAs"

    # The hardware the lab lacks is named, in every mode.
    for node in nodes:
        status_of("gpu", node, "not_applicable", na_gpu)
        status_of("dcgm_diag", node, "not_applicable", na_gpu)
        status_of("rdma_ports", node, "not_applicable", na_hca)
        status_of("rdma_bw", node, "not_applicable", na_hca)
        status_of("rdma_lat", node, "not_applicable", na_hca)
        # A quiet lab node is idle, or planned: sinfo shows an idle node the backfill scheduler holds for a pending
        # job as planned until its next pass (up to bf_interval after that job started), and validate.yml passes it
        # (docs/validate.md). The node tests' multi-node srun just before can leave gpu01 so.
        status_of("slurm_node", node, "pass", ("sinfo: idle", "sinfo: planned"))
    nccl = results(report, "nccl_all_reduce") + results(report, "nccl_all_reduce_node")
    expect(len(nccl) == 1 and nccl[0]["status"] == "not_applicable" and na_gpu in nccl[0]["detail"],
           "NCCL: expected one not applicable result naming the GPUs, got %s" % nccl)
    status_of("lustre_read", "", "not_applicable", "not applicable: no Lustre file system")

    if mode == "limit":
        # Only the limited nodes are validated: no result names another node.
        named = sorted({n for r in report["checks"] for n in r["nodes"]})
        expect(named == sorted(nodes), "the limited run's results name %s, expected only %s" % (named, sorted(nodes)))
        # Slurm ran, from a submit host outside the run (a login node or controller of the inventory), on them alone.
        status_of("slurm_srun", "", "pass", "answered: " + ", ".join(sorted(nodes)))
        status_of("slurm_srun", "", "pass", ", outside this run)")
        status_of("slurm_sbatch", "", "pass", ", outside this run)")
        for r in results(report, "slurm_srun") + results(report, "slurm_sbatch"):
            expect(r["nodes"] == sorted(nodes), "%s ran on %s, expected %s" % (r["check"], r["nodes"], sorted(nodes)))
        expect(not [r for r in report["checks"] if "not run: no login node" in r["detail"]],
               "the limited run says Slurm was not run")
        for node in nodes:
            status_of("storage_read", node, "not_applicable", "no node-local storage to measure")
        expect(report["status"] == "pass" and report["drain"] == [], "limited report: %s, drain %s"
               % (report["status"], report["drain"]))
    elif mode == "check":
        for node in nodes:
            status_of("storage_read", node, "not_applicable", "not run: check mode")
            status_of("rdma_tools", node, "pass", "ib_write_bw")
        status_of("slurm_srun", "", "not_applicable", "not run: check mode")
        status_of("slurm_sbatch", "", "not_applicable", "not run: check mode")
        expect(report["status"] == "pass", "check-mode report status is %s" % report["status"])
    else:
        status_of("slurm_srun", "", "pass", "answered: " + ", ".join(sorted(nodes)))
        status_of("slurm_sbatch", "", "pass", "COMPLETED, exit code 0:0")
        for node in nodes:
            status_of("rdma_tools", node, "pass", "/usr/bin/ib_write_bw")
            for r in results(report, "storage_read", node):
                expect(isinstance(r["measured"], float) and r["unit"] == "GB/s",
                       "storage_read on %s measured %r %s" % (node, r["measured"], r["unit"]))
        if mode == "pass":
            for node in nodes:
                status_of("storage_read", node, "pass", "read ")
            expect(report["status"] == "pass" and report["drain"] == [], "report: %s, drain %s"
                   % (report["status"], report["drain"]))
        else:
            for node in nodes:
                status_of("storage_read", node, "fail", "read ")
            expect(report["status"] == "fail", "report status is %s, expected fail" % report["status"])
            drained = {d["node"]: d["reason"] for d in report["drain"]}
            expect(sorted(drained) == sorted(nodes), "drain lists %s, expected %s" % (sorted(drained), sorted(nodes)))
            for node, reason in drained.items():
                expect(reason.startswith("validate: storage_read") and "expected 100000 GB/s" in reason,
                       "drain reason of %s is %r" % (node, reason))

    with open(os.path.join(folder, "validate.html"), encoding="utf-8") as fh:
        page = Balanced()
        page.feed(fh.read())
        page.close()
    text = " ".join(page.text)
    expect(not page.errors and not page.stack, "validate.html is not well formed: %s, unclosed %s"
           % (page.errors[:3], page.stack))
    for word in ["slurm_srun", "storage_read", "rdma_tools", "not applicable: no GPUs", "not applicable: no RDMA HCAs"]:
        expect(word in text, "validate.html does not show %r" % word)

    for problem in problems:
        print("FAIL: " + problem)
    counts = report["counts"]
    print("%s report (%s): %s - %d pass, %d fail, %d error, %d not applicable; %d problem(s)"
          % (mode, folder, report["status"], counts["pass"], counts["fail"], counts["error"],
             counts["not_applicable"], len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
