# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Lustre, NCCL and Slurm pictures of the plan report (page.py).

* Lustre: per directory its progressive file layout as a ladder (one step per component, the step's height is
  its stripe count out of the OSTs), with the file-size percentiles marked in the component that holds them.
* NCCL: per node type the PCIe tree of its topology (CPU / NUMA node -> PCIe switches -> GPUs and NICs).
* Slurm: the topology.conf tree (spines -> leaves -> nodes, the nodes as one compressed hostlist per leaf), or
  the blocks of topology/block.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence

from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist import compress_hostlist
from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.topology import normalise_layout
from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.values import (
    NcclTopologyError, class_kind, format_cpulist, parse_affinity)
from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.report.svg import (
    Box, Ids, PlanReportError, esc, num, px, rect, svg, text, tree_svg)
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.conf.settings import SlurmConfError
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.topology import parse_topology_conf, topology_conf_lines

# The newest release in the Slurm key catalogue: the picture accepts every topology any supported release does.
TOPOLOGY_RELEASE = "24.11"
STEP_W = 120.0
STEP_H = 72.0


# ---------------------------------------------------------------- Lustre


def _extent(value: int) -> str:
    """Bytes as lfs writes extents: 1073741824 -> 1G; -1 -> EOF."""
    if value < 0:
        return "EOF"
    for suffix, shift in (("T", 40), ("G", 30), ("M", 20), ("K", 10)):
        if value and value % (1 << shift) == 0:
            return "%d%s" % (value >> shift, suffix)
    return str(value)


def _holds(component: Mapping[str, Any], size: int) -> bool:
    """Whether a file of `size` bytes ends in this component: its last byte is at size - 1, so a 1 GiB file ends in
    the component [0, 1G), the way lustre_pfl_layout counts stripes_at."""
    last = max(0, size - 1)
    return component["start"] <= last and (component["end"] < 0 or last < component["end"])


def pfl_ladder(ids: Ids, d: Mapping[str, Any], osts: int) -> str:
    """The directory's PFL components as a staircase: width per component, height = stripes / OSTs."""
    components, sizes = d["pfl"]["components"], d["pfl"]["percentiles"]
    top = 18.0
    height = top + STEP_H + 48
    body = []
    for i, c in enumerate(components):
        x = 8 + i * STEP_W
        h = STEP_H * min(c["stripe_count"], osts) / max(1, osts)
        body.append(rect(x, top + STEP_H - h, STEP_W - 4, h, "step", "component %d: %s to %s, %s stripe(s) of %s bytes" % (
            i + 1, _extent(c["start"]), _extent(c["end"]), num(c["stripe_count"]), num(c["stripe_size"])),
            ' data-stripes="%s"' % esc(num(c["stripe_count"]))))
        body.append(text(x + (STEP_W - 4) / 2, top + STEP_H - h - 4, "%s x %s" % (num(c["stripe_count"]), _extent(c["stripe_size"])),
                         "value", "middle"))
        body.append(text(x + (STEP_W - 4) / 2, top + STEP_H + 14, "%s - %s" % (_extent(c["start"]), _extent(c["end"])), "sub", "middle"))
        marks = [name for name in ("p50", "p90", "max") if _holds(c, sizes[name])]
        if marks:
            body.append(text(x + (STEP_W - 4) / 2, top + STEP_H + 30, "holds " + ", ".join(marks), "sub", "middle"))
    body.append(text(8, 12, "stripes of %d OSTs per file extent" % osts, "sub"))
    desc = "PFL of %s: %s" % (d["path"], "; ".join("%s to %s on %s stripe(s)" % (
        _extent(c["start"]), _extent(c["end"]), num(c["stripe_count"])) for c in components))
    return svg(ids, 16 + len(components) * STEP_W, height, "Progressive file layout of %s" % d["path"], desc, body, "ladder")


def lustre_section(ids: Ids, lustre: Mapping[str, Any]) -> str:
    """A table of the directories (pattern, demand, both plans, what is applied) with the PFL ladder of each."""
    rows = ['<tr><th scope="col">directory</th><th scope="col">pattern</th><th scope="col">stripe plan</th>'
            '<th scope="col">PFL ladder</th><th scope="col">applied</th></tr>']
    for d in lustre["directories"]:
        s = d["stripe_plan"]
        plan = "%s x %s: %s GB/s of %s GB/s demand (%s)" % (
            num(s["stripe_count"]), s["stripe_size_lfs"], num(s["aggregate_gbs"]), num(s["demand_gbs"]), s["limiting_factor"].replace("_", " "))
        rows.append("<tr><th scope=\"row\"><code>%s</code><br><small>%s</small></th><td>%s<br><small>%s clients x %s GB/s</small></td>"
                    "<td>%s</td><td>%s</td><td><strong>%s</strong><br><code>%s</code></td></tr>" % (
                        esc(d["path"]), esc(d.get("description") or ""), esc(d["pattern"]), esc(num(d["clients"])),
                        esc(num(d["client_bw_gbs"])), esc(plan), pfl_ladder(ids, d, int(lustre["osts"])), esc(d["apply"]), esc(d["command"])))
    return ("<p>File system <code>%s</code> at <code>%s</code>: %s OSTs x %s GB/s. A ladder step is one PFL component, "
            "labelled with the file extent it covers (start - end); its height is its stripe count out of the OSTs, and the "
            "component holding the median (p50), the p90 and the largest file is marked.</p><div class=\"scroll\"><table class=\"lustre\">%s"
            "</table></div>" % (esc(lustre["fsname"]), esc(lustre["mountpoint"]), esc(num(lustre["osts"])), esc(num(lustre["ost_bw_gbs"])),
                                "".join(rows)))


# ---------------------------------------------------------------- NCCL


def _short_bus(busid: str) -> str:
    return busid[5:] if busid.startswith("0000:") else busid


def _link(node: Mapping[str, Any]) -> str:
    speed = str(node.get("link_speed", "")).replace(" PCIe", "").replace(".0 GT/s", " GT/s")
    return "%s x%s" % (speed, node.get("link_width", "?"))


def _pci_box(node: Mapping[str, Any]) -> Box:
    kind = class_kind(int(node["class"], 16))
    bus = _short_bus(node["busid"])
    children = [_pci_box(c) for c in node.get("pci", [])]
    if kind == "gpu":
        return Box("GPU %s" % bus, _link(node), "gpu", tip="GPU %s, %s, device %s" % (node["busid"], _link(node), node.get("device", "?")))
    if kind == "nic":
        nets = node.get("nic", {}).get("net", [])
        names = ",".join(n.get("name", "dev %s" % n.get("dev")) for n in nets) or "NIC"
        speeds = sorted({n["speed"] for n in nets if n.get("speed")})
        rate = " %s Gb/s" % "/".join(str(int(s) // 1000) for s in speeds) if speeds else ""
        return Box(names, "%s%s" % (bus, rate), "nic", tip="NIC %s (%s), %s%s" % (names, node["busid"], _link(node), rate))
    label = {"bridge": "switch", "nvswitch": "NVSwitch"}.get(kind, kind)
    return Box("%s %s" % (label, bus), _link(node), "switch", children, tip="%s %s, %s" % (label, node["busid"], _link(node)))


def nccl_tree(ids: Ids, name: str, layout: Mapping[str, Any], hosts: str = "") -> str:
    """The node type's PCIe tree from its NCCL layout (the inventory's nccl_layout, or the XML read back)."""
    try:
        norm = normalise_layout(layout)
    except NcclTopologyError as exc:
        raise PlanReportError("NCCL layout of node type %s: %s" % (name, exc))
    cpus = []
    for cpu in norm["cpus"]:
        cpulist = format_cpulist(parse_affinity(cpu["affinity"])[0]) if cpu.get("affinity") else "?"
        cpus.append(Box("NUMA %s" % cpu["numaid"], "CPUs %s" % cpulist, "cpu", [_pci_box(p) for p in cpu.get("pci", [])],
                        tip="CPU socket / NUMA node %s (%s %s), CPUs %s" % (cpu["numaid"], cpu.get("vendor", ""), cpu.get("arch", ""), cpulist)))
    every = _all(cpus)
    gpus, nics = sum(1 for b in every if b.kind == "gpu"), sum(1 for b in every if b.kind == "nic")
    switches = sum(1 for b in every if b.kind == "switch")
    root = Box(name, hosts or "node type", "system", cpus)
    desc = "%s: %d NUMA node(s), %d PCIe switch(es), %d GPU(s), %d NIC(s); %s" % (
        name, len(cpus), switches, gpus, nics, "; ".join("%s: %s" % (b.label, ", ".join(c.label for c in b.children)) for b in every
                                                         if b.kind == "switch"))
    return tree_svg(ids, [root], "NCCL topology of %s" % name, desc)


def _all(boxes: Sequence[Box]) -> List[Box]:
    out = []
    for b in boxes:
        out.append(b)
        out.extend(_all(b.children))
    return out


def nccl_section(ids: Ids, nccl: Sequence[Mapping[str, Any]]) -> str:
    if not nccl:
        return "<p>No node type has an <code>nccl_layout</code>.</p>"
    out = []
    for t in nccl:
        out.append("<h3>%s</h3><p>Hosts <code>%s</code>%s. Boxes: NUMA node (CPU socket), PCIe switch, GPU, NIC with its RDMA "
                   "device; a GPU and a NIC under the same switch exchange data without crossing the CPU.</p><div class=\"scroll\">%s</div>" % (
                       esc(t["name"]), esc(t.get("hosts") or ""), esc(", file %s" % t["file"]) if t.get("file") else "",
                       nccl_tree(ids, t["name"], t["layout"], t.get("hosts") or "")))
    return "".join(out)


# ---------------------------------------------------------------- Slurm topology


def slurm_section(ids: Ids, topology: Optional[Mapping[str, Any]]) -> str:
    """The topology.conf the slurm role writes from gpufleet_fabric.topology, drawn as its tree (or blocks)."""
    if not topology:
        return "<p>The inventory has no <code>gpufleet_fabric.topology</code>, so Slurm uses no topology plugin.</p>"
    try:
        lines = topology_conf_lines(topology, TOPOLOGY_RELEASE)
        parsed = parse_topology_conf("\n".join(lines))
    except SlurmConfError as exc:
        raise PlanReportError("gpufleet_fabric.topology: %s" % exc)
    if parsed["kind"] == "block":
        blocks = [Box(b["name"], "%d nodes" % len(b["nodes"]), "switch", [Box(compress_hostlist(b["nodes"]), "", "hosts")])
                  for b in parsed["blocks"]]
        roots = [Box("blocks", "sizes %s" % ",".join(str(s) for s in parsed.get("block_sizes", [])) or "default", "system", blocks)]
        desc = "; ".join("block %s: %s" % (b.label, b.children[0].label) for b in blocks)
    else:
        by_name: Dict[str, Mapping[str, Any]] = {sw["name"]: sw for sw in parsed["switches"]}
        children = {c for sw in parsed["switches"] for c in sw.get("switches", [])}

        def box(sw: Mapping[str, Any]) -> Box:
            speed = " LinkSpeed=%s" % sw["link_speed"] if sw.get("link_speed") is not None else ""
            if sw.get("nodes"):
                return Box(sw["name"], "leaf, %d nodes%s" % (len(sw["nodes"]), speed), "switch",
                           [Box(compress_hostlist(sw["nodes"]), "%d nodes" % len(sw["nodes"]), "hosts")])
            return Box(sw["name"], "%d switches%s" % (len(sw["switches"]), speed), "spine", [box(by_name[c]) for c in sw["switches"]])

        roots = [box(sw) for sw in parsed["switches"] if sw["name"] not in children]
        desc = "; ".join(lines)
    return ("<p>Written to <code>topology.conf</code> by the slurm role (%s):</p><pre>%s</pre><div class=\"scroll\">%s</div>" % (
        esc("topology/" + parsed["kind"]), esc("\n".join(lines)), tree_svg(ids, roots, "Slurm topology (%s)" % parsed["kind"], desc)))


def legend(ids: Ids) -> str:
    """How to read the bars, drawn with the same classes as the charts."""
    body = [rect(4, 6, 60, 11, "bar normal ok"), text(70, 16, "normal load (no failure)", "sub"),
            rect(4, 24, 90, 11, "bar worst ok"), text(100, 34, "worst single failure (a feed, or one PSU, lost)", "sub"),
            '<line x1="%s" y1="2" x2="%s" y2="40" class="limit"/>' % (px(380), px(380)), text(388, 16, "continuous limit", "sub"),
            text(388, 30, "(rating x derating)", "sub"),
            '<line x1="%s" y1="2" x2="%s" y2="40" class="rating"/>' % (px(530), px(530)), text(538, 16, "breaker / input rating", "sub")]
    for i, (state, words) in enumerate((("ok", "ok: below 90 % of the limit"), ("warn", "near limit: 90 to 100 %"),
                                        ("over", "over limit: above 100 %"))):
        body.append(rect(4 + i * 230, 50, 14, 14, "bar worst " + state))
        body.append(text(24 + i * 230, 61, words, "sub"))
    return svg(ids, 700, 70, "Legend of the load bars", "Upper bar normal load, lower bar worst single failure; dashed line the "
               "continuous limit, solid line the rating; green ok, amber near the limit, red over it, always with the numbers in words",
               body, "legend")
