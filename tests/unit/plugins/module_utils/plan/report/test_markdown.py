# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The plan's Markdown reports (module_utils/plan/report/markdown.py): README.md, power.md, lustre.md and
hostlists.md of the small inventory worked by hand and of the reference one."""

from __future__ import annotations

import json

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.build import hostlists
from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.report.markdown import render_hostlists_md

from small_plan import reference_inputs, reference_plan, small_plan


def test_small_plan_reports():
    _inputs, _layout, _check, plan = small_plan()
    files = plan["files"]
    readme = files["README.md"].splitlines()
    assert readme[7] == ("| [power.md](power.md), [power.json](power.json) | Racks at full power: r1 4600 W of 5000 W; r2 2300 W of "
                         "3000 W. PDU breaker layout: 6 breakers, worst 78.1 % of a limit "
                         "(r1-pdu-a/cb1). The design's as-built plan: 4 violations, worst 156.2 % |")
    assert readme[8:] == ["| [lustre.md](lustre.md), [lustre.json](lustre.json) | `/lus/data`: stripe_plan |",
                          "| [nccl/gpu2.xml](nccl/gpu2.xml) | NCCL_TOPO_FILE for `n[1-3]` (gpu_nodes): 2 GPUs, 1 RDMA ports |",
                          "| [hostlists.md](hostlists.md), [hostlists.json](hostlists.json) | `all` = `head,n[1-3]`, "
                          "`gpu_nodes` = `n[1-3]`, `head_nodes` = `head` |"]
    power = files["power.md"]
    assert "| r1 | `n[1-2]` (2) | 4600 W | 5000 W (92.0 % used) |\n" in power
    assert "| feed B lost | 4600.0 | 20.00 | 156.2 % |\n| PSU n1/2 lost | 3450.0 | 15.00 | 117.2 % |\n" in power
    # Spare on the layout's busiest breaker: 12.8 A x 230 V x PF 1.0 - 2300 W = 644 W.
    assert "78.1 % of its 12.80 A limit,\n644.0 W to spare at PF 1.0.\n" in power
    assert "| r1-pdu-a | 10.0 | None | None | 20.0 | feed B lost | 25.6 |\n" in power  # input limit 32 A x 0.8
    assert power.endswith("| n3 | r2 | r2-pdu-a/cb1 | r2-pdu-b/cb1 |\n")
    assert json.loads(files["power.json"])["as_built"]["check"]["summary"]["violations"] == 4
    assert json.loads(files["lustre.json"])["directories"][0]["stripe_plan"]["stripe_count"] == 3
    assert json.loads(files["hostlists.json"])["ungrouped"] == {"group": "ungrouped", "count": 0, "hostlist": "", "hosts": []}
    assert files["nccl/gpu2.xml"].count('class="0x030200"') == 2
    assert "| `/lus/data` | shared_file | 3 x 1.5 | 3 x 1M | 4.5 (client bandwidth) | 1 / 1 / 4 | stripe_plan |\n" in files["lustre.md"]


def test_hostlists_md():
    lists = hostlists({"all": ["b2", "b1", "a"], "none": []})
    assert render_hostlists_md("x", lists).endswith(
        "| `all` | 3 | `a,b[1-2]` |\n| `none` | 0 | (empty) |\n\n## Expansions\n\n* `all`: a, b1, b2\n* `none`: (empty)\n")


# ---------------------------------------------------------------- the reference inventory (inventories/h100-64)


@pytest.fixture(scope="module")
def reference():
    """The reference inventory's plan inputs."""
    return reference_inputs()


def test_reference_reports(reference):
    _check, plan = reference_plan(reference)
    readme = plan["files"]["README.md"]
    assert ("| [power.md](power.md), [power.json](power.json) | Racks at full power: r01 84350 W of 60000 W (does not fit). "
            "GPU power cap 319 W per GPU (gpufleet_power_cap: rack_budget). PDU breaker layout: 24 breakers, worst 99.1 % of a "
            "limit (r01-pdu-a/cb01). The design's as-built plan: 24 violations, worst 255.7 %") in readme
    power = plan["files"]["power.md"]
    assert "| r01 | 84350 W | 60000 W | **no** | 24350 W | 5 of 8 | 319 W per GPU |\n" in power
    assert "**GPU power cap applied: 319 W per GPU.**" in power and "(45.6 % of its 700 W)" in power
    assert "It is a power limit, not a clock setting" in power
    # Worst PSU load: after a feed loss 3 PSUs carry the capped 7152 W, 2384 W each, 72.2 % of 3300 W.
    assert "| hgx-h100 | compute[01-08] | 3 | 2384 W | feed A lost | 3300 W | 72.2 % |\n" in power
    assert "`pdu_check` finds **24 violation(s)**, 24 of them overloads on 8 of\n8 breakers.\n" in power
    assert "| r01-pdu-a | 45.289 / 46.428 / 44.947 | 1.343 | 0.0192 | 92.856 | feed B lost | 100.0 |\n" in power
    assert "| r01-pdu-a | cb01 | L1 | 230.94 | compute01/1, compute01/3, slurm-head/1 | 12.69 | 25.379 | feed B lost | 99.1 |\n" in power
