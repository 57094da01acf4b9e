# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The plan's Markdown reports: power.md, lustre.md, hostlists.md and the README.md index (the HTML report is
:mod:`.page`'s).

The text is what the playbook's Jinja templates wrote, byte for byte, so a plan re-written by this code changes
nothing. Numbers are printed with str() (as Jinja does), percentages with %.1f, amps with %.2f.
"""

from __future__ import annotations

from typing import Any, List, Mapping, Optional, Sequence

from ansible_collections.gpufleet.cluster.plugins.module_utils.power.fit import cap_cost, psu_rows
from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.inputs import DEFAULT_POWER_FACTOR, unique


def _pct(value: float) -> str:
    return "%.1f" % (100 * value)


def _power_as_built(inputs: Mapping[str, Any], check: Mapping[str, Any], node_w: Any) -> List[str]:
    """power.md: why the design's cabling (pdu_check of it) does or does not hold."""
    derating = inputs["derating"]
    worst = sorted(check["circuits"], key=lambda c: c["utilisation"], reverse=True)[0]
    worst_nodes = unique(p.split("/")[0] for p in worst["psus"])
    overloaded = [v for v in check["violations"] if v["type"] == "overload"]
    others = [v["message"] for v in check["violations"] if v["type"] != "overload"]
    feed_breakers = unique("%s/%s" % (v["pdu"], v["circuit"]) for v in overloaded if v["scenario"].startswith("feed "))
    rows = [v for v in overloaded if (v["pdu"], v["circuit"]) == (worst["pdu"], worst["circuit"])]
    out = ["As built: %s, cabled as `gpufleet_plan_power.as_built.breakers` says.\n" % inputs["as_built"]["pdu_model"],
           "`pdu_check` finds **%s violation(s)**" % check["summary"]["violations"]]
    if overloaded:
        out.append(", %d of them overloads on %d of\n%s breakers" % (
            len(overloaded), len(unique("%s/%s" % (v["pdu"], v["circuit"]) for v in overloaded)),
            check["summary"]["circuits_available"]))
    out.append(".\n")
    if others:
        out.append("Other violations: %s.\n" % "; ".join(others))
    out.append("\nBusiest breaker: `%s/%s` (%s A x %s = %.2f A\nat %s V), holding %d PSUs of %d node(s): %s.\n\n" % (
        worst["pdu"], worst["circuit"], worst["rating_a"], derating, worst["limit_a"], worst["voltage"],
        len(worst["psus"]), len(worst_nodes), ", ".join(worst["psus"])))
    if rows:
        out.append("| scenario | watts | amps | %% of the %.2f A limit |\n| --- | --- | --- | --- |\n"
                   % worst["limit_a"])
        out.extend("| %s | %s | %.2f | %s %% |\n" % (r["scenario"], r["watts"], r["amps"], _pct(r["utilisation"]))
                   for r in rows)
        out.append("\n")
    out.append("* Normal operation: %s W = %.2f A,\n  %s %% of the continuous limit%s.\n" % (
        worst["normal_w"], worst["normal_a"], _pct(worst["normal_a"] / worst["limit_a"]),
        ", over it before anything fails" if worst["normal_a"] > worst["limit_a"] else ""))
    out.append('* Worst case, "%s": %s W\n  (%.2g x a %s W node)\n  = %.2f A, %s %% of the limit.\n' % (
        worst["worst_scenario"], worst["worst_w"], worst["worst_w"] / node_w, node_w, worst["worst_a"],
        _pct(worst["utilisation"])))
    if worst["utilisation"] > 1:
        out.append("  The breaker trips and takes %s down with it.\n" % " and ".join(worst_nodes))
    if feed_breakers:
        out.append("* %d breaker(s) overload when a feed is lost, so nodes go down on exactly the failure the\n"
                   "  feeds are there to survive.\n" % len(feed_breakers))
    if rows:
        out.append("* pdu_check's fix for the first row: %s.\n" % rows[0]["fix"])
    if inputs["pdus"] == "planned":
        out.append("* Whether other cabling of the same PDUs would do: `-e plan_pdus=as_built` lays the racks out on "
                   "them; when that\n  is impossible the play fails with the breakers missing (for the reference "
                   "design: docs/plan.md).\n")
    return out


def _power_budget_md(inputs: Mapping[str, Any], layout: Mapping[str, Any]) -> List[str]:
    """power.md: each rack's draw at full power against its budget, the way out taken, warnings, PSU loads."""
    budget = inputs["power_budget"]
    out = ["\n## Rack budgets\n\n`gpufleet.cluster.rack_power_fit` at full power (every node at its `max_power_w`, "
           "every load at its\nmaximum), `gpufleet_power_cap: %s`.\n\n" % budget["choice"],
           "| rack | draw at full power | budget | fits | over | nodes that fit at full power "
           "| GPU cap that would fit |\n| --- | --- | --- | --- | --- | --- | --- |\n"]
    counts = {r["name"]: r["count"] for r in inputs["racks"]}
    out.extend("| %s | %s W | %s W | %s | %s W | %s of %s | %s |\n" % (
        f["name"], f["draw_w"], f["budget_w"], "yes" if f["fits"] else "**no**", f["over_w"], f["max_nodes"],
        counts.get(f["name"]),
        "%s W per GPU" % f["gpu_power_cap_w"] if f["gpu_power_cap_w"] is not None else "none needed" if f["fits"] else
        "none (below the GPUs' lowest limit)") for f in budget["fit"])
    cap = budget["gpu_power_cap_w"]
    if cap is not None:
        gpu_w = budget.get("gpu_power_w")
        out.append("\n**GPU power cap applied: %s W per GPU.** The rack does not fit at full power, and the inventory "
                   "chose\n`gpufleet_power_cap: rack_budget`: %s\nThe layout below is planned on the capped nodes "
                   "(`max_power_w` less each GPU's watts above the cap).\n"
                   % (cap, cap_cost(cap, gpu_w) if gpu_w else "see docs/power.md"))
    elif all(f["fits"] for f in budget["fit"]):
        out.append("\nEvery rack fits its budget at full power: no GPU power cap.\n")
    for warning in budget["warnings"]:
        out.append("\n**Warning:** %s.\n" % warning)
    rows = psu_rows(layout.get("psu_loads") or [])
    if rows:
        out.append("\n### PSU load in the worst scenario\n\n| node type | nodes | PSUs left | watts per PSU | scenario "
                   "| PSU rating | % of rating |\n| --- | --- | --- | --- | --- | --- | --- |\n")
        out.extend("| %s | %s | %s | %s W | %s | %s | %s |\n" % (
            r["what"], r["nodes"], r["live_psus"], r["worst_w"], r["worst_scenario"],
            "%g W" % r["rating_w"] if r["rating_w"] is not None else "not given",
            _pct(r["worst_w"] / r["rating_w"]) + " %" if r["rating_w"] else "n/a") for r in rows)
    return out


def render_power_md(inputs: Mapping[str, Any], layout: Mapping[str, Any],
                    check: Optional[Mapping[str, Any]]) -> str:
    """power.md: rack budgets, the as-built check, the computed layout, per-PDU currents, breakers, cabling per node."""
    derating, model, nodes = inputs["derating"], inputs["pdu_model"], inputs["layout_input"]["nodes"]
    node_w, pf = nodes[0]["max_power_w"], nodes[0].get("power_factor", DEFAULT_POWER_FACTOR)
    out = ["# Power plan: %s\n\n" % inputs["name"],
           "Written by `playbooks/plan.yml` with `gpufleet.cluster.pdu_layout` and `gpufleet.cluster.pdu_check`\n"
           "(formulas in docs/power.md). A breaker may carry `rating x %s` continuously; a node's\n"
           "load is shared by its live PSUs; every layout is checked in normal operation, after the loss of each\n"
           "feed and after the loss of each PSU. Numbers: `power.json`.\n\n" % derating,
           "| rack | nodes | worst-case draw | budget |\n| --- | --- | --- | --- |\n"]
    out.extend("| %s | `%s` (%s)%s | %s W | %s W (%.1f %% used) |\n" % (
        r["name"], r["nodes"], r["count"], " and %s" % ", ".join(r["loads"]) if r.get("loads") else "",
        r["max_power_w"], r["budget_w"], 100 * r["max_power_w"] / r["budget_w"]) for r in inputs["racks"])
    out.extend(_power_budget_md(inputs, layout))
    out.append("\n## The design's as-built breaker plan\n\n")
    if check is not None:
        out.extend(_power_as_built(inputs, check, node_w))
    else:
        out.append("The inventory describes no as-built cabling (`gpufleet_plan_power.as_built`), so there is nothing "
                   "to check.\n")
    used = [c for c in layout["circuits"] if c["used"]]
    top = sorted(layout["circuits"], key=lambda c: c["utilisation"], reverse=True)[0]
    out.append("\n## What the computed layout does instead\n\nPDUs (%s): %s, one per rack and feed.\n" % (
        inputs["pdus"], model["model"] if model["model"] is not None else "as described in the inventory"))
    for rack in layout["racks"]:
        feeds = list(rack["circuits_used"].items())
        out.append("Rack %s uses%s\n" % (rack["rack"], "".join(" %s of %s breakers on feed %s%s" % (
            count, rack["circuits_available"][feed], feed, "," if i < len(feeds) - 1 else ".")
            for i, (feed, count) in enumerate(feeds))))
    doubled = ["%s/%s" % (c["pdu"], c["circuit"]) for c in used
               if len(unique(p.split("/")[0] for p in c["psus"])) < len(c["psus"])]
    out.append("No breaker holds more than %s PSUs%s,\nand the layout passes all %s scenarios.\n" % (
        max(len(c["psus"]) for c in used),
        " (two PSUs of one node on %s)" % ", ".join(doubled) if doubled else ", none holds two of one node",
        layout["summary"]["scenarios"]))
    out.append('The busiest breaker, `%s/%s` at %s V, carries\n%s W = %.2f A normally and\n%s W = %.2f A after "%s":\n'
               "%s %% of its %.2f A limit,\n%.1f W to spare at PF %s.\n" % (
                   top["pdu"], top["circuit"], top["voltage"], top["normal_w"], top["normal_a"], top["worst_w"],
                   top["worst_a"], top["worst_scenario"], _pct(top["utilisation"]), top["limit_a"],
                   top["limit_a"] * top["voltage"] * pf - top["worst_w"], pf))
    if check is not None:
        worst = sorted(check["circuits"], key=lambda c: c["utilisation"], reverse=True)[0]
        out.append("After a feed loss the design's breaker carries %s W\n(%.2g x a %s W node),\nthe layout's busiest "
                   "%s W (%.2g x).\n"
                   % (worst["worst_w"], worst["worst_w"] / node_w, node_w, top["worst_w"], top["worst_w"] / node_w))
    limit = model["input_rating_a"] * derating if model["input_rating_a"] is not None else "n/a"
    out.append("\n| PDU | normal line currents (A) | neutral (A) | imbalance | worst line (A) | worst line scenario "
               "| input limit (A) |\n| --- | --- | --- | --- | --- | --- | --- |\n")
    out.extend("| %s |\n" % " | ".join(str(v) for v in (
        p["pdu"], " / ".join(str(a) for a in p["line_currents_a"].values()), p["neutral_a"], p["imbalance"],
        p["worst_line_a"], p["worst_line_scenario"], limit)) for p in layout["pdus"])
    out.append("\n### Breakers in use\n\n| PDU | breaker | phase | V | PSUs | normal A | worst A | worst scenario "
               "| % of limit |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
    out.extend("| %s |\n" % " | ".join(str(v) for v in (
        c["pdu"], c["circuit"], c["phase"], c["voltage"], ", ".join(c["psus"]), c["normal_a"], c["worst_a"],
        c["worst_scenario"], _pct(c["utilisation"]))) for c in used)
    psu_max = max(n["psus"] for n in nodes)
    out.append("\n### Cabling, per node\n\n| node | rack | %s |\n| --- | --- |%s\n" % (
        " | ".join("PSU %d" % i for i in range(1, psu_max + 1)), " --- |" * psu_max))
    for node in nodes:
        cords = ["%s/%s" % (p["pdu"], p["circuit"]) for p in layout["placements"] if p["node"] == node["name"]]
        out.append("| %s | %s | %s |\n" % (node["name"], node["rack"], " | ".join(cords)))
    return "".join(out)


def render_lustre_md(lustre: Mapping[str, Any], plans: Sequence[Mapping[str, Any]]) -> str:
    """lustre.md: summary table, the commands to run, then both plans of every directory with their reasoning."""
    out = ["# Lustre plan: %s at %s\n\n" % (lustre["fsname"], lustre["mountpoint"]),
           "%s OSTs x %s GB/s. Written by `playbooks/plan.yml` with\n"
           "`gpufleet.cluster.lustre_stripe_plan` and `gpufleet.cluster.lustre_pfl_layout` (docs/lustre-striping.md).\n"
           "Each directory gets both plans; `apply` (from the inventory) says which one to set on the directory.\n\n"
           % (lustre["osts"], lustre["ost_bw_gbs"]),
           "| directory | pattern | clients x GB/s | stripe plan | aggregate GB/s | PFL stripes at p50 / p90 / max "
           "| apply |\n| --- | --- | --- | --- | --- | --- | --- |\n"]
    for d in plans:
        s, at = d["stripe_plan"], d["pfl"]["stripes_at"]
        out.append("| `%s` | %s | %s x %s | %s x %s | %s (%s) | %s / %s / %s | %s |\n" % (
            d["path"], d["pattern"], d["clients"], d["client_bw_gbs"], s["stripe_count"], s["stripe_size_lfs"],
            s["aggregate_gbs"],
            s["limiting_factor"].replace("_", " "), at["p50"], at["p90"], at["max"], d["apply"]))
    out.append("\nTo apply (as root on a client, on an empty directory):\n\n```sh\n")
    out.extend("%s\n" % d["command"] for d in plans)
    out.append("```\n")
    for d in plans:
        s, pfl, pct = d["stripe_plan"], d["pfl"], d["pfl"]["percentiles"]
        args = pfl["lfs_setstripe_args"]  # -E end -c count -S size per component
        out.append("\n## %s\n\n%s%s\n" % (d["path"], d["description"], "." if d["description"] else ""))
        out.append("Pattern %s, %s clients at %s GB/s each; file sizes p50 %s,\np90 %s, max %s bytes. "
                   "Applied: **%s**.\n\n"
                   % (d["pattern"], d["clients"], d["client_bw_gbs"], pct["p50"], pct["p90"], pct["max"], d["apply"]))
        out.append("Stripe plan (`lustre_stripe_plan`): %s stripe(s) of %s.\n\n"
                   % (s["stripe_count"], s["stripe_size_lfs"]))
        out.extend("* %s\n" % line for line in s["reasoning"])
        out.append("\n```sh\n%s\n```\n\nProgressive file layout (`lustre_pfl_layout`):\n\n" % s["command"])
        out.append("| component | extent end | stripes | stripe size |\n| --- | --- | --- | --- |\n")
        out.extend("| %d | %s | %s | %s |\n" % (i + 1, args[6 * i + 1], c["stripe_count"], args[6 * i + 5])
                   for i, c in enumerate(pfl["components"]))
        out.append("\n")
        out.extend("* %s\n" % line for line in pfl["reasoning"])
        out.append("\n```sh\n%s\n```\n" % pfl["command"])
    return "".join(out)


def render_hostlists_md(name: str, lists: Sequence[Mapping[str, Any]]) -> str:
    """hostlists.md: every group's hostlist, then its expansion."""
    out = ["# Hostlists: %s\n\n" % name,
           "Slurm hostlist of every inventory group (`gpufleet.cluster.hostlist_compress`: sorted, deduplicated, "
           "ranges\nmerged, as Slurm writes them). Empty groups have no hostlist.\n\n"
           "| group | hosts | hostlist |\n| --- | --- | --- |\n"]
    out.extend("| `%s` | %s | %s |\n" % (g["group"], g["count"], "`%s`" % g["hostlist"] if g["hostlist"] else "(empty)")
               for g in lists)
    out.append("\n## Expansions\n\n")
    out.extend("* `%s`: %s\n" % (g["group"], ", ".join(g["hosts"]) if g["hosts"] else "(empty)") for g in lists)
    return "".join(out)


def _row_end(items: Sequence[str]) -> str:
    """' a, b, c |' (or '' for no items): the README's inline lists, closing the table row."""
    return "".join(" %s%s" % (item, "," if i < len(items) - 1 else " |") for i, item in enumerate(items))


def render_readme(name: str, layout: Mapping[str, Any], check: Optional[Mapping[str, Any]],
                  lustre: Sequence[Mapping[str, Any]], nccl: Sequence[Mapping[str, Any]],
                  lists: Sequence[Mapping[str, Any]], budget: Optional[Mapping[str, Any]] = None) -> str:
    """README.md: the index, with the headline numbers of every file."""
    summary = layout["summary"]
    power = ""
    if budget is not None:
        power = "Racks at full power: %s. " % "; ".join("%s %s W of %s W%s" % (
            f["name"], f["draw_w"], f["budget_w"], "" if f["fits"] else " (does not fit)") for f in budget["fit"])
        if budget["gpu_power_cap_w"] is not None:
            power += "GPU power cap %s W per GPU (gpufleet_power_cap: rack_budget). " % budget["gpu_power_cap_w"]
        power += "".join("Warning: %s. " % w for w in budget["warnings"])
    power += "PDU breaker layout: %s breakers, worst %s %% of a limit (%s)." % (
        summary["circuits_used"], _pct(summary["worst_utilisation"]), summary["worst_circuit"])
    if check is not None:
        power += " The design's as-built plan: %s" % ("passes" if check["ok"] else "%s violations, worst %s %%" % (
            check["summary"]["violations"], _pct(check["summary"]["worst_utilisation"])))
    out = ["# Plan: %s\n\n" % name,
           "Written by `ansible-playbook playbooks/plan.yml -i <inventory>` from the inventory alone (docs/plan.md).\n"
           "Re-running it on an unchanged inventory changes nothing.\n\n| file | what |\n| --- | --- |\n",
           "| [power.md](power.md), [power.json](power.json) | %s |\n" % power,
           "| [lustre.md](lustre.md), [lustre.json](lustre.json) |%s\n"
           % _row_end(["`%s`: %s" % (d["path"], d["apply"]) for d in lustre])]
    out.extend("| [%s](%s) | NCCL_TOPO_FILE for `%s` (%s): %s GPUs, %s RDMA ports |\n" % (
        t["file"], t["file"], t["hosts"], t["group"], t["gpus"], t["nets"]) for t in nccl)
    out.append("| [hostlists.md](hostlists.md), [hostlists.json](hostlists.json) |%s\n" % _row_end(
        ["`%s` = `%s`" % (g["group"], g["hostlist"]) for g in lists if g["hostlist"]]))
    return "".join(out)
