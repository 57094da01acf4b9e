# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Stage 2 of playbooks/plan.yml: the plan built from the inputs of stage 1 (:mod:`.inputs`) and the results of the
playbook's power checks (docs/plan.md).

:func:`build_plan` takes those inputs and the ``pdu_layout`` / ``pdu_check`` results, plans every Lustre directory,
renders every NCCL topology and hostlist, and returns every file the playbook writes, by relative path (the Markdown
reports are :mod:`..report.markdown`'s, the HTML report :mod:`..report.page`'s).

The math is the other domains' (power, lustre.striping, nccl.topology, slurm.hostlist); this module only assembles
their inputs and writes their results as JSON.
"""

from __future__ import annotations

import json
import shlex
from typing import Any, Dict, List, Mapping, Optional, Sequence

from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist import expand_hostlist
from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.striping import (
    DEFAULT_STRIPE_SIZE,
    StripingError,
    pfl_layout,
    stripe_plan,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.topology import render_xml
from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.values import NcclTopologyError
from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.inputs import ClusterPlanError, compress, need
from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.report.markdown import (
    render_hostlists_md,
    render_lustre_md,
    render_power_md,
    render_readme,
)

APPLY_CHOICES = ("stripe_plan", "pfl")
# What build_plan needs of the inputs (the result of plan_inputs / cluster_plan_inputs).
INPUT_KEYS = ("name", "pdus", "derating", "pdu_model", "racks", "power_budget", "layout_input", "lustre", "node_types",
              "groups")


def to_json(data: Any) -> str:
    """JSON as the playbook always wrote it: to_nice_json(indent=2), sorted keys, one trailing newline."""
    return json.dumps(data, indent=2, sort_keys=True, separators=(",", ": ")) + "\n"


# ---------------------------------------------------------------- stage 2: Lustre, NCCL, hostlists


def lustre_plans(lustre: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """Both plans for every directory: lustre_stripe_plan (with its lfs setstripe `command`) and lustre_pfl_layout;
    `apply` (default pfl) picks the `command` to run."""
    plans = []
    for index, d in enumerate(lustre["directories"]):
        where = "gpufleet_plan_lustre.directories[%d]" % index
        # The name becomes a directory under the mount point and a word of the lfs command: a plain name, never a path.
        name = input_rules.plain_name(where + ".name", need(d, "name", where), ClusterPlanError)
        path = "%s/%s" % (lustre["mountpoint"], name)
        size = d.get("stripe_size", DEFAULT_STRIPE_SIZE)
        try:
            stripes = stripe_plan(lustre["osts"], lustre["ost_bw_gbs"], need(d, "clients", where),
                                  need(d, "client_bw_gbs", where), pattern=need(d, "pattern", where), stripe_size=size,
                                  files=d.get("files"))
            sizes = need(d, "sizes", where)
            pfl = pfl_layout(dict(sizes) if isinstance(sizes, Mapping) else sizes, lustre["osts"], stripe_size=size,
                             path=path)
        except StripingError as exc:
            raise ClusterPlanError("%s (%s): %s" % (where, path, exc))
        stripes["command"] = "lfs setstripe %s %s" % (" ".join(stripes["lfs_setstripe_args"]), shlex.quote(path))
        apply = d.get("apply", "pfl")
        plans.append({"path": path, "description": d.get("description", ""), "pattern": d["pattern"],
                      "clients": d["clients"], "client_bw_gbs": d["client_bw_gbs"], "sizes": sizes,
                      "stripe_plan": stripes, "pfl": pfl, "apply": apply,
                      "command": stripes["command"] if apply == "stripe_plan" else pfl["command"]})
    return plans


def nccl_plans(node_types: Sequence[Mapping[str, Any]]) -> List[Dict[str, Any]]:
    """NCCL_TOPO_FILE of every node type that has an nccl_layout and hosts, with the GPUs (class 0x03...) and
    RDMA ports (<net>) it declares next to what gpufleet_hardware says (None when it says nothing)."""
    plans = []
    for t in node_types:
        if t.get("nccl_layout") is None or not t["hosts"]:
            continue
        input_rules.plain_name("gpufleet_plan_node_types %r name" % (t["name"],), t["name"], ClusterPlanError)
        try:
            xml = str(render_xml(t["nccl_layout"]))
        except NcclTopologyError as exc:
            raise ClusterPlanError("gpufleet_plan_node_types %s: nccl_layout: %s" % (t["name"], exc))
        plans.append({"name": t["name"], "group": t["group"], "file": "nccl/%s.xml" % t["name"],
                      "hosts": compress(t["hosts"]), "gpus": xml.count('class="0x03'), "nets": xml.count("<net "),
                      "hardware_gpus": t["hardware"].get("gpus"), "hardware_hcas": t["hardware"].get("rdma_hcas"),
                      "xml": xml})
    return plans


def hostlists(groups: Mapping[str, Sequence[str]]) -> List[Dict[str, Any]]:
    """Every group's Slurm hostlist ('' when empty) and its expansion (sorted, unique)."""
    out = []
    for group, hosts in groups.items():
        hostlist = compress(hosts)
        out.append({"group": group, "count": len(hosts), "hostlist": hostlist,
                    "hosts": expand_hostlist(hostlist) if hostlist else []})
    return out


def build_plan(inputs: Mapping[str, Any], layout: Mapping[str, Any],
               as_built: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """Stage 2: every file plan.yml writes ({relative path: content}), the Lustre and NCCL rows its checks loop
    over, and a summary. `layout` is pdu_layout of inputs.layout_input, `as_built` pdu_check of inputs.as_built."""
    for key in INPUT_KEYS:
        need(inputs, key, "cluster_plan input (the result of cluster_plan_inputs)")
    for key in ("summary", "circuits", "pdus", "racks", "placements"):
        need(layout, key, "cluster_plan layout (the result of pdu_layout)")
    if inputs.get("as_built") is not None and as_built is None:
        raise ClusterPlanError("the inventory describes as-built cabling: pass the pdu_check result of inputs.as_built")
    lustre, nccl, lists = lustre_plans(inputs["lustre"]), nccl_plans(inputs["node_types"]), hostlists(inputs["groups"])
    model = inputs["pdu_model"]
    power_json = {
        "racks": inputs["racks"],
        "budget": inputs["power_budget"],
        "layout": {"pdu_model": model["model"] or "", "input_rating_a": model["input_rating_a"],
                   "input": inputs["layout_input"], "result": layout},
        "as_built": None if inputs.get("as_built") is None else {
            "pdu_model": inputs["as_built"]["pdu_model"], "assignment": inputs["as_built"]["assignment"],
            "check": as_built},
    }
    files = {
        "power.json": to_json(power_json),
        "power.md": render_power_md(inputs, layout, as_built),
        "lustre.json": to_json(dict({k: inputs["lustre"][k] for k in ("fsname", "mountpoint", "osts", "ost_bw_gbs")},
                                    directories=lustre)),
        "lustre.md": render_lustre_md(inputs["lustre"], lustre),
    }
    files.update((t["file"], t["xml"]) for t in nccl)
    files["hostlists.json"] = to_json({g["group"]: g for g in lists})
    files["hostlists.md"] = render_hostlists_md(inputs["name"], lists)
    files["README.md"] = render_readme(inputs["name"], layout, as_built, lustre, nccl, lists, inputs["power_budget"])
    return {
        "files": files,
        "lustre": [{k: d[k] for k in ("path", "apply", "command")} for d in lustre],
        "nccl": [{k: v for k, v in t.items() if k != "xml"} for t in nccl],
        "summary": {"circuits_used": layout["summary"]["circuits_used"],
                    "gpu_power_cap_w": inputs["power_budget"]["gpu_power_cap_w"],
                    "warnings": inputs["power_budget"]["warnings"],
                    "as_built_violations": None if as_built is None else as_built["summary"]["violations"],
                    "lustre_directories": len(lustre), "nccl_files": [t["file"] for t in nccl],
                    "hostlists": {g["group"]: g["hostlist"] for g in lists}},
    }
