# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""report.html of playbooks/plan.yml (plugins/module_utils/plan_report*.py): structure, numbers, bar widths, escaping."""

from __future__ import annotations

import copy
import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.build import build_plan
from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.inputs import plan_inputs
from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.report.page import (
    SECTIONS, PlanReportError, render_report, report_from_plan)
from ansible_collections.gpufleet.cluster.plugins.module_utils.plan.report.svg import (
    BAR_W, axis_max, bar_px, esc, num, px, status)
from ansible_collections.gpufleet.cluster.plugins.module_utils.power.scenarios import check_assignment
from ansible_collections.gpufleet.cluster.plugins.module_utils.power.layout import plan_layout
from reference_inventory import plan_inventory

SVG_NS = "{http://www.w3.org/2000/svg}"
VOID = {"meta", "link", "br", "hr", "img", "input", "wbr", "col", "area", "base", "source", "track", "embed", "param"}


# ---------------------------------------------------------------- helpers


class Tree(HTMLParser):
    """Checks that every element closes in order (a well-formed page) and collects ids, sections and attributes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.ids, self.starts, self.text = [], [], [], [], []

    def handle_starttag(self, tag, attrs):
        self.starts.append((tag, dict(attrs)))
        if dict(attrs).get("id"):
            self.ids.append(dict(attrs)["id"])
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.starts.append((tag, dict(attrs)))
        if dict(attrs).get("id"):
            self.ids.append(dict(attrs)["id"])

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("</%s> closes <%s>" % (tag, self.stack[-1] if self.stack else None))
        else:
            self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def parse(doc):
    tree = Tree()
    tree.feed(doc)
    tree.close()
    assert tree.errors == [] and tree.stack == []
    return tree


def svgs(doc):
    """Every <svg> of the page, parsed as XML (it must be well-formed on its own)."""
    return [ET.fromstring(chunk) for chunk in re.findall(r"<svg\b.*?</svg>", doc, re.S)]


def find(doc, attr, value, cls=None):
    """Every SVG element with attribute data-<attr> == value (and the class word `cls`)."""
    found = []
    for root in svgs(doc):
        for elem in root.iter():
            if elem.get("data-" + attr) == value and (cls is None or cls in elem.get("class", "").split()):
                found.append(elem)
    return found


def page_text(doc):
    return " ".join("".join(parse(doc).text).split())


# ---------------------------------------------------------------- the reference design (inventories/h100-64)


@pytest.fixture(scope="module")
def reference():
    """The reference inventory run through the plan filters as plan.yml runs them, and its report."""
    context, groups, hardware = plan_inventory()
    inputs = plan_inputs(context, groups, {"gpu_nodes": hardware})
    layout = plan_layout(inputs["layout_input"])
    check = check_assignment(inputs["as_built"]["input"], inputs["as_built"]["assignment"])
    plan = build_plan(inputs, layout, check)
    topology = context["gpufleet_fabric"]["topology"]
    return {"plan": plan, "power": json.loads(plan["files"]["power.json"]), "topology": topology,
            "html": report_from_plan(plan, inputs["name"], topology)}


def test_page_structure(reference):
    doc = reference["html"]
    tree = parse(doc)
    assert doc.startswith('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n') and doc.endswith("</html>\n")
    assert "<title>Plan: h100-64</title>" in doc
    sections = [a["id"] for tag, a in tree.starts if tag == "section" and "id" in a]
    assert sections == list(SECTIONS)
    assert [start[0] for start in tree.starts].count("h2") == len(SECTIONS)
    assert len(tree.ids) == len(set(tree.ids))  # every id once, so aria-labelledby is unambiguous
    # Every drawing has a text alternative: a <title> first, a <desc>, named by aria-labelledby.
    drawings = svgs(doc)
    # rack budget, PSU loads, budget bar, elevation, legend, 2 PDUs x (breakers + phases) x (layout, as built) = 8,
    # 3 ladders, NCCL, Slurm: 18
    assert len(drawings) == 18
    for root in drawings:
        assert root.get("role") == "img"
        assert [child.tag for child in root][:2] == [SVG_NS + "title", SVG_NS + "desc"]
        assert root[0].text and root[1].text
        assert root.get("aria-labelledby").split() == [root[0].get("id"), root[1].get("id")]


def test_self_contained_and_script_free(reference):
    doc = reference["html"]
    assert "<script" not in doc.lower() and "javascript:" not in doc.lower()
    # The only URL is the SVG namespace; no src=, no url(), no @import, the icon is an empty data: URL.
    assert set(re.findall(r"https?://[^\s\"'<>]+", doc)) == {"http://www.w3.org/2000/svg"}
    assert not re.search(r"\bsrc=|url\(|@import", doc)
    assert '<link rel="icon" href="data:,">' in doc


def test_summary_numbers(reference):
    text = page_text(reference["html"])
    # 12 breakers per feed of 12, busiest cb01: 2 capped-node PSUs x 2384 W + the head node's 800 W after a feed loss,
    # 5568 W / (230.94 V x 0.95) = 25.379 A of 32 x 0.8 = 25.60 A = 99.1 %. Scenarios: normal, 2 feeds, 56 PSUs.
    assert ("24 of 24 breakers used, all 59 scenarios checked; busiest r01-pdu-a/cb01 reaches 25.379 A of 25.60 A after "
            "feed B lost, 99.1 % of its limit NEAR LIMIT") in text
    # The design: 8 breakers x 3 overloading scenarios; cb1 carries 2 capped nodes after a feed loss,
    # 14304 W / (230 V x 0.95) = 65.465 A, 255.7 %.
    assert "24 violation(s), worst r01-pdu-a/cb1 at 255.7 % of its limit OVER LIMIT" in text
    # 8 x 7152 W + 2750 W of loads = 59966 W as planned; 84350 W at full power, over the budget.
    assert "r01: 8 nodes (compute[01-08]), 59966 W of 60000 W" in text
    assert "racks at full powerr01: 84350 W of 60000 W OVER LIMIT" in text
    assert "GPU power cap319 W per GPU, a power limit (not a clock): power-bound work runs slower" in text


def test_every_breaker_shows_the_numbers_of_power_json(reference):
    doc, power = reference["html"], reference["power"]
    for check in (power["layout"]["result"], power["as_built"]["check"]):
        for c in check["circuits"]:
            name = "%s/%s" % (c["pdu"], c["circuit"])
            if not c["used"]:
                continue
            (normal,) = find(doc, "circuit", name, "normal")
            (worst,) = find(doc, "circuit", name, "worst")
            assert normal.get("data-amps") == num(c["normal_a"]) and worst.get("data-amps") == num(c["worst_a"])
            assert "normal %s A, worst %s A (%s)" % (num(c["normal_a"]), num(c["worst_a"]), c["worst_scenario"]) in doc
    # Worked by hand: cb01 of the layout (2 PSUs of compute01, one of slurm-head) normally 2 x 1192 + 400 = 2784 W
    # = 12.69 A, after feed B is lost 2 x 2384 + 800 = 5568 W = 25.379 A (99.1 % of 25.60 A).
    assert "normal 12.69 A, worst 25.379 A (feed B lost)" in doc
    assert "99.1 % of 25.60 A limit: near limit" in doc
    # The design's cb1: 3 PSUs of 2 capped nodes, 7152 W / (230 x 0.95) = 32.732 A normally, 14304 W = 65.465 A after
    # feed B is lost.
    assert "normal 32.732 A, worst 65.465 A (feed B lost)" in doc
    assert "255.7 % of 25.60 A limit: OVER LIMIT" in doc


def test_bar_widths_are_proportional(reference):
    doc = reference["html"]
    # Layout charts end at 32 A (the rating; step 2), so 512 / 32 = 16 px per A.
    assert find(doc, "circuit", "r01-pdu-a/cb01", "normal")[0].get("width") == "203.04"  # 12.69 x 16
    assert find(doc, "circuit", "r01-pdu-a/cb01", "worst")[0].get("width") == "406.06"  # 25.379 x 16 = 406.064
    assert find(doc, "circuit", "r01-pdu-a/cb08", "normal")[0].get("width") == "173.86"  # 10.866 x 16 = 173.856
    # As-built charts end at 70 A (65.465 A rounded up to a step of 5): 512 / 70 = 7.314 px per A.
    assert find(doc, "circuit", "r01-pdu-a/cb1", "worst")[0].get("width") == "478.83"  # 65.465 x 7.314 = 478.83
    assert find(doc, "circuit", "r01-pdu-a/cb1", "normal")[0].get("width") == "239.41"  # 32.732 x 7.314 = 239.41
    # Phases of r01-pdu-a end at 130 A (the 125 A input rounded up to a step of 10): L1 45.289 A x 512 / 130 = 178.37.
    phases = [r for r in svgs(doc) if "fig-phases" in r.get("class")][0]
    lines = {e.get("data-line"): e.get("width") for e in phases.iter(SVG_NS + "rect")}
    # L2 46.428 A -> 182.85, L3 44.947 A -> 177.02, neutral 1.343 A -> 5.29, worst line 92.856 A after feed B lost -> 365.71.
    assert lines == {"L1": "178.37", "L2": "182.85", "L3": "177.02", "N": "5.29", "worst line": "365.71"}
    # The input's continuous limit, 125 A x 0.8 = 100 A, is a dashed line at 100 + 512 x 100 / 130 = 493.85, its
    # rating a solid one at 100 + 512 x 125 / 130 = 592.31.
    assert [(e.get("x1"), e.get("class")) for e in phases.iter(SVG_NS + "line") if e.get("class") in ("limit", "rating")] == [
        ("493.85", "limit"), ("592.31", "rating")]


def test_every_bar_is_amps_times_scale(reference):
    """Within a chart, width / amps is one constant, BAR_W / axis."""
    for root in svgs(reference["html"]):
        bars = [e for e in root.iter(SVG_NS + "rect") if e.get("data-amps") is not None]
        if not bars:
            continue
        amps = [float(b.get("data-amps")) for b in bars]
        axis = axis_max(max(amps + [32.0 if "fig-circuits" in root.get("class") else 0.0]))
        if "fig-phases" in root.get("class") and any(e.get("class") == "rating" for e in root.iter(SVG_NS + "line")):
            axis = axis_max(max(amps + [125.0]))
        assert [b.get("width") for b in bars] == [px(BAR_W * a / axis) for a in amps]


def test_status_words_and_colours(reference):
    doc = reference["html"]
    assert find(doc, "circuit", "r01-pdu-a/cb01", "worst")[0].get("class") == "bar worst warn"  # 99.1 %
    assert find(doc, "circuit", "r01-pdu-a/cb08", "worst")[0].get("class") == "bar worst ok"  # 84.9 %
    assert find(doc, "circuit", "r01-pdu-a/cb1", "worst")[0].get("class") == "bar worst over"  # 255.7 %
    assert find(doc, "circuit", "r01-pdu-a/cb1", "normal")[0].get("class") == "bar normal over"  # 127.9 % before any failure
    assert "imbalance <strong>1.9 %</strong> of 20.0 % allowed, neutral 1.343 A" in doc
    assert (status(0.8999), status(0.9), status(1.0), status(1.0001), status(None)) == ("ok", "warn", "warn", "over", "info")


def test_rack_elevation(reference):
    doc = reference["html"]
    rack = [r for r in svgs(doc) if "fig-rack" in r.get("class")][0]
    words = [t.text for t in rack.iter(SVG_NS + "text")]
    assert [w for w in words if w.startswith("compute")] == ["compute%02d" % i for i in range(1, 9)]
    # compute01's 6 PSUs as pdu_layout placed them: 1, 3 and 5 on feed A, 2, 4 and 6 on feed B.
    placed = {(p["psu"], p["pdu"][-1].upper(), p["circuit"]) for p in reference["power"]["layout"]["result"]["placements"]
              if p["node"] == "compute01"}
    tips = [t.text for r in rack.iter(SVG_NS + "rect") for t in r.iter(SVG_NS + "title") if t.text.startswith("compute01 PSU")]
    assert sorted(tips) == sorted("compute01 PSU %d on r01-pdu-%s/%s" % (psu, feed.lower(), cb) for psu, feed, cb in placed)
    assert "cb01 L1 3 PSU, 99.1 %" in words and "cb10 L1 2 PSU, 84.9 %" in words
    assert "59966 W of 60000 W budget (99.9 %)" in doc


def test_lustre_ladders(reference):
    doc = reference["html"]
    ladders = [r for r in svgs(doc) if "fig-ladder" in r.get("class")]
    assert len(ladders) == 3
    # datasets: 1, 4 and 8 stripes of 8 OSTs are 72 x 1/8 = 9, 36 and 72 px high.
    steps = list(ladders[0].iter(SVG_NS + "rect"))
    assert [(s.get("data-stripes"), s.get("height")) for s in steps] == [("1", "9.00"), ("4", "36.00"), ("8", "72.00")]
    texts = [t.text for t in ladders[0].iter(SVG_NS + "text")]
    assert texts[:3] == ["1 x 1M", "0 - 1G", "holds p50"]
    assert "1G - 16G" in texts and "16G - EOF" in texts and "holds p90" in texts and "holds max" in texts
    # The component marked for each percentile has the stripe count lustre_pfl_layout reports for it.
    for ladder, d in zip(ladders, json.loads(reference["plan"]["files"]["lustre.json"])["directories"]):
        texts = [t.text for t in ladder.iter(SVG_NS + "text")]
        marked = {}
        for t_index, t in enumerate(texts):
            if t.startswith("holds "):
                stripes = [x for x in texts[:t_index] if " x " in x][-1].split(" x ")[0]
                for name in t[len("holds "):].split(", "):
                    marked[name] = int(stripes)
        assert marked == d["pfl"]["stripes_at"]
    assert "lfs setstripe -c 8 -S 1M /mnt/lustre/datasets" in doc


def test_nccl_tree(reference):
    doc = reference["html"]
    tree = [r for r in svgs(doc) if "NCCL topology" in r[0].text][0]
    kinds = [g.get("class").split()[1] for g in tree.iter(SVG_NS + "g")]
    # 2 NUMA nodes, 4 PEX switches, 8 H100s and 8 ConnectX-6 under the node type's box.
    assert sorted(kinds) == sorted(["system"] + ["cpu"] * 2 + ["switch"] * 4 + ["gpu"] * 8 + ["nic"] * 8)
    texts = [t.text for t in tree.iter(SVG_NS + "text")]
    assert texts[:2] == ["hgx-h100", "compute[01-08]"]
    for expected in ("NUMA 0", "CPUs 0-51", "CPUs 52-103", "switch 50:00.0", "GPU 53:00.0", "mlx5_0", "52:00.0 200 Gb/s", "32 GT/s x16"):
        assert expected in texts
    # The HCAs are gen4 cards: their link, 16 GT/s x16, is in the box's tooltip.
    tips = [t.text for r in tree.iter(SVG_NS + "rect") for t in r.iter(SVG_NS + "title")]
    assert "NIC mlx5_0 (0000:52:00.0), 16 GT/s x16 200 Gb/s" in tips
    assert "hgx-h100: 2 NUMA node(s), 4 PCIe switch(es), 8 GPU(s), 8 NIC(s)" in tree[1].text


def test_slurm_tree(reference, monkeypatch):
    doc = reference["html"]
    tree = [r for r in svgs(doc) if "Slurm topology" in r[0].text][0]
    texts = [t.text for t in tree.iter(SVG_NS + "text")]
    assert texts == ["spine1", "2 switches", "leaf1", "leaf, 4 nodes", "compute[01-04]", "4 nodes", "leaf2", "leaf, 4 nodes",
                     "compute[05-08]", "4 nodes"]
    assert "SwitchName=leaf1 Nodes=compute[01-04]\nSwitchName=leaf2 Nodes=compute[05-08]\nSwitchName=spine1 Switches=leaf[1-2]" in doc
    plan = reference["plan"]
    assert "has no <code>gpufleet_fabric.topology</code>" in report_from_plan(plan, "x", None)
    blocks = report_from_plan(plan, "x", {"kind": "block", "blocks": [{"name": "nvl1", "nodes": "compute[01-04]"},
                                                                      {"name": "nvl2", "nodes": "compute[05-08]"}]})
    assert "BlockName=nvl1 Nodes=compute[01-04]" in blocks
    with pytest.raises(PlanReportError, match=r"gpufleet_fabric.topology: .*compute01 is in leaf switches a and b"):
        report_from_plan(plan, "x", {"kind": "tree", "leaves": [{"name": "a", "nodes": "compute01"}, {"name": "b", "nodes": "compute01"}]})


def test_deterministic(reference):
    plan = copy.deepcopy(reference["plan"])
    again = report_from_plan(plan, "h100-64", copy.deepcopy(reference["topology"]))
    assert again == reference["html"]


# ---------------------------------------------------------------- escaping and errors


def _small(rack="r1", description="data", name="mini"):
    """Two 2300 W nodes with 2 PSUs (PF 1.0) in one rack on 16 A breakers, one Lustre directory."""
    inventory = {
        "gpufleet_plan_node_types": [{"name": "t", "group": "g", "power": {
            "max_power_w": 2300, "psus": 2, "psus_required": 1, "power_factor": 1.0}}],
        "gpufleet_plan_power": {"feeds": ["A", "B"], "racks": [{"name": rack, "nodes": "n[1-2]"}], "pdu": {"spec": {
            "voltage": 230, "phases": 1, "circuits": [{"name": "cb%d" % i, "rating_a": 16} for i in (1, 2)]}}},
        "gpufleet_plan_lustre": {"ost_bw_gbs": 2.0, "directories": [
            {"name": "d", "description": description, "pattern": "shared_file", "clients": 2, "client_bw_gbs": 1.0,
             "sizes": {"p50_bytes": 1048576, "p90_bytes": 8388608, "max_bytes": 1073741824}}]},
        "gpufleet_lustre": {"fsname": "fs", "mountpoint": "/lus", "osts": 4},
        "gpufleet_power": {"racks": [{"name": rack, "budget_w": 5000}]},
    }
    inputs = plan_inputs(inventory, {"all": ["n1", "n2"], "g": ["n1", "n2"]})
    return report_from_plan(build_plan(inputs, plan_layout(inputs["layout_input"])), name)


def test_names_are_escaped():
    doc = _small(rack="<script>alert(1)</script>", description='a "quoted" & <b>bold</b> word', name="<i>x</i>")
    parse(doc)
    svgs(doc)
    assert "<script" not in doc and "<b>" not in doc and "<i>" not in doc
    assert "Elevation of rack &lt;script&gt;alert(1)&lt;/script&gt;" in doc
    assert "&lt;script&gt;alert(1)&lt;/script&gt;-pdu-a" in doc
    assert "a &quot;quoted&quot; &amp; &lt;b&gt;bold&lt;/b&gt; word" in doc
    assert "<title>Plan: &lt;i&gt;x&lt;/i&gt;</title>" in doc
    assert esc("<'&\">") == "&lt;&#x27;&amp;&quot;&gt;"


def test_small_plan_without_as_built_nccl_or_topology():
    doc = _small()
    text = page_text(doc)
    # One PSU per 16 A breaker: 10 A of 12.8 A after a feed loss = 78.1 %, so 4 of 4 breakers.
    assert "4 of 4 breakers used" in text and "78.1 % of its limit OK" in text
    assert "describes no as-built cabling" in text and "No node type has an nccl_layout" in text
    assert "single phase, no imbalance" in doc


def test_errors_name_the_part():
    with pytest.raises(PlanReportError, match="no files mapping"):
        report_from_plan({})
    with pytest.raises(PlanReportError, match=r"plan.files has no power.json \(files: lustre.json\)"):
        report_from_plan({"files": {"lustre.json": "{}"}})
    with pytest.raises(PlanReportError, match=r"plan.files\[power.json\] is not JSON"):
        report_from_plan({"files": {"power.json": "{", "lustre.json": "{}", "hostlists.json": "{}"}})
    with pytest.raises(PlanReportError, match=r"lacks or mistypes 'layout' \(KeyError"):
        report_from_plan({"files": {"power.json": "{}", "lustre.json": "{}", "hostlists.json": "{}"}})
    with pytest.raises(PlanReportError, match=r"plan.nccl t names file 'nccl/t.xml', which plan.files does not hold"):
        report_from_plan({"files": {}, "nccl": [{"name": "t", "file": "nccl/t.xml"}]})


def test_axis_max():
    # 32 A in steps of 2; 51.259 in steps of 4 -> 52; 205.034 in steps of 20 -> 220; 125 in steps of 10 -> 130.
    assert [axis_max(v) for v in (32, 51.259, 205.034, 125, 100, 0.3, 0)] == [32, 52, 220, 130, 100, 0.3, 1]
    assert bar_px(16, 32) == BAR_W / 2


# ---------------------------------------------------------------- random plans

NAMES = st.text(alphabet="ab<>&\"'-_ 1", min_size=1, max_size=8)
AMPS = st.floats(min_value=0, max_value=120, allow_nan=False).map(lambda a: round(a, 3))


@st.composite
def powers(draw):
    """A power.json of 1-2 racks with 1-2 PDUs of 1-6 breakers, loads anywhere from idle to far over the limit."""
    racks, pdus, circuits, placements = [], [], [], []
    for r in range(draw(st.integers(1, 2))):
        rack = "%s%d" % (draw(NAMES), r)
        racks.append({"name": rack, "nodes": "n%d[1-%d]" % (r, draw(st.integers(1, 3))), "count": 1,
                      "max_power_w": draw(st.integers(0, 90000)), "budget_w": draw(st.sampled_from([None, 60000]))})
        for f, feed in enumerate(draw(st.sampled_from([["A"], ["A", "B"]]))):
            pdu = "%s-pdu-%d" % (draw(NAMES), f)
            three = draw(st.booleans())
            lines = {"L1": draw(AMPS), "L2": draw(AMPS), "L3": draw(AMPS)} if three else {"L1": draw(AMPS)}
            pdus.append({"pdu": pdu, "rack": rack, "feed": feed, "phases": 3 if three else 1, "voltage": 400.0,
                         "wiring": "wye" if three else None, "line_currents_a": lines, "neutral_a": draw(AMPS) if three else None,
                         "imbalance": draw(st.floats(0, 1).map(lambda v: round(v, 4))) if three else None,
                         "worst_line_a": draw(AMPS), "worst_line_scenario": "feed %s lost" % draw(NAMES)})
            for c in range(draw(st.integers(1, 6))):
                rating = draw(st.sampled_from([16.0, 32.0, 63.0]))
                normal, worst, used = draw(AMPS), draw(AMPS), draw(st.booleans())
                circuits.append({"pdu": pdu, "circuit": "%s%d" % (draw(NAMES), c), "phase": "L1", "rating_a": rating,
                                 "limit_a": rating * 0.8, "normal_a": normal, "normal_w": normal * 230, "worst_a": max(normal, worst),
                                 "worst_w": max(normal, worst) * 230, "worst_scenario": draw(NAMES), "used": used,
                                 "utilisation": round(max(normal, worst) / (rating * 0.8), 4), "psus": ["n/1"] if used else []})
                if used:
                    placements.append({"node": "n%d1" % r, "psu": c + 1, "pdu": pdu, "circuit": circuits[-1]["circuit"]})
    result = {"circuits": circuits, "pdus": pdus, "placements": placements,
              "summary": {"circuits_used": 1, "circuits_available": len(circuits), "scenarios": 3,
                          "worst_circuit": "x", "worst_utilisation": max(c["utilisation"] for c in circuits)}}
    return {"racks": racks, "as_built": None,
            "layout": {"pdu_model": draw(NAMES), "input_rating_a": draw(st.sampled_from([None, 63, 125])),
                       "input": {"derating": 0.8, "imbalance_limit": draw(st.sampled_from([None, 0.2]))}, "result": result}}


LUSTRE = {"fsname": "fs", "mountpoint": "/lus", "osts": 4, "ost_bw_gbs": 1.0, "directories": []}


@settings(max_examples=150, deadline=None)
@given(powers())
def test_random_plans_give_well_formed_pages(power):
    doc = render_report("c", power, LUSTRE, {"g": {"count": 0, "hostlist": ""}})
    parse(doc)
    drawings = svgs(doc)
    assert doc == render_report("c", copy.deepcopy(power), LUSTRE, {"g": {"count": 0, "hostlist": ""}})
    for root in drawings:
        bars = [e for e in root.iter(SVG_NS + "rect") if e.get("data-amps") is not None]
        # A bar never leaves its axis: widths within 0..BAR_W.
        assert all(0 <= float(b.get("width")) <= BAR_W for b in bars)
    for c in power["layout"]["result"]["circuits"]:
        if c["used"]:
            assert "normal %s A, worst %s A (%s)" % (num(c["normal_a"]), num(c["worst_a"]), esc(c["worst_scenario"])) in doc


def test_budget_section(reference):
    """Rack draw against budget at full power and as planned, the cap and its cost, the PSU loads against the rating."""
    doc = reference["html"]
    bars = {e.get("data-draw"): e for e in find(doc, "rack", "r01")}
    # 84350 W at full power, 59966 W as planned; the axis ends at 90000 W (84350 rounded up to a step of 10000):
    # 512 x 84350 / 90000 = 479.86 px, 512 x 59966 / 90000 = 341.14 px.
    assert (bars["full"].get("data-watts"), bars["full"].get("width"), bars["full"].get("class")) == ("84350", "479.86", "bar worst over")
    assert (bars["planned"].get("data-watts"), bars["planned"].get("width"), bars["planned"].get("class")) == (
        "59966", "341.14", "bar worst warn")
    assert "at full power: 84350 W, 140.6 % of the budget: OVER BUDGET" in doc
    assert "as planned: 59966 W, 99.9 % of the budget: fits, near the budget" in doc
    assert '<p class="cap" data-cap="319"><strong>GPU power cap: 319 W per GPU</strong>' in doc
    assert "every GPU is limited to 319 W (45.6 % of its 700 W)" in doc and "It is a power limit, not a clock setting" in doc
    # PSU loads: 3 PSUs left carry 7152 W after a feed loss, 2384 W each, 72.2 % of 3300 W.
    (hgx,) = find(doc, "psu", "hgx-h100")
    assert (hgx.get("data-watts"), hgx.get("data-rating"), hgx.get("class")) == ("2384", "3300", "bar worst ok")
    assert "2384 W per PSU after feed A lost, 72.2 % of its 3300 W rating" in doc
    (head,) = find(doc, "psu", "slurm-head")
    assert head.get("class") == "bar worst warn"  # one 800 W PSU carries the 800 W head node: 100 %
