# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""validate_report: JSON round trip, HTML well-formed and escaped, fail <=> a failing result, drain reasons."""
from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.report import (
    ReportError, build_reason, build_report, report,
)

_VOID = {"meta", "br", "hr", "img", "link", "input"}


class _Checker(HTMLParser):
    """Tag balance, and no script or external reference (the page is self-contained)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.text, self.bad = [], [], []

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "link", "img", "iframe") or any(name in ("src", "href") for name, _value in attrs):
            self.bad.append(tag)
        if tag not in _VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.bad.append("/" + tag)

    def handle_data(self, data):
        self.text.append(data)


def _parse_html(page):
    checker = _Checker()
    checker.feed(page)
    checker.close()
    assert checker.bad == [] and checker.stack == []
    return "".join(checker.text)


RESULTS = [
    {"check": "rdma_bw", "node": "compute02", "measured": 170.25,
     "expected": {"applicable": True, "value": 180.0, "unit": "Gb/s", "compare": ">=",
                  "derivation": "90 % of 200 Gb/s (gpufleet_fabric.rate_gbps) = 180 Gb/s = 22.5 GB/s"}},
    {"check": "rdma_bw", "node": "compute01", "measured": 194.96,
     "expected": {"applicable": True, "value": 180.0, "unit": "Gb/s", "compare": ">="}},
    {"check": "lustre_read", "expected": {"applicable": False, "reason": "not applicable: no Lustre servers"}},
    {"check": "nccl_all_reduce", "nodes": ["compute02", "compute01"], "status": "fail", "measured": 120.0,
     "expected": 150.0, "unit": "GB/s", "detail": "busbw"},
    {"check": "dcgm_diag", "node": "compute02", "status": "error", "detail": "dcgmi could not reach nv-hostengine"},
]


def test_worked_report():
    built = build_report(RESULTS, cluster="h100-64", generated="2026-05-01T10:00:00Z")
    assert built["status"] == "fail"
    assert built["counts"] == {"pass": 1, "fail": 2, "not_applicable": 1, "error": 1}
    assert [(r["check"], r["nodes"]) for r in built["checks"]] == [
        ("dcgm_diag", ["compute02"]), ("lustre_read", []), ("nccl_all_reduce", ["compute01", "compute02"]),
        ("rdma_bw", ["compute01"]), ("rdma_bw", ["compute02"])]
    lustre = built["checks"][1]
    assert (lustre["status"], lustre["detail"]) == ("not_applicable", "not applicable: no Lustre servers")
    assert built["nodes"]["compute01"] == {"status": "fail", "checks": {"nccl_all_reduce": "fail", "rdma_bw": "pass"},
                                           "failed": ["nccl_all_reduce"]}
    # The multi-node NCCL failure drains nobody; compute02's own failures drain it.
    assert built["drain"] == [{"node": "compute02", "checks": ["dcgm_diag", "rdma_bw"],
                               "reason": "validate: dcgm_diag error: dcgmi could not reach nv-hostengine; "
                                         "rdma_bw 170.25 Gb/s (expected 180 Gb/s)"}]


def test_json_and_html_outputs():
    out = report(RESULTS, cluster="h100-64")
    assert out["failed"] is True and out["drain"][0]["node"] == "compute02"
    assert json.loads(out["json"]) == out["report"] and out["report"]["schema"] == "gpufleet.validate/v1"
    text = _parse_html(out["html"])
    assert "NOT APPLICABLE" in text and "not applicable: no Lustre servers" in text
    assert "90 % of 200 Gb/s (gpufleet_fabric.rate_gbps) = 180 Gb/s = 22.5 GB/s" in text
    assert '<tr class="not_applicable">' in out["html"]
    assert report(list(reversed(RESULTS)), cluster="h100-64") == out   # order of the input does not matter


def test_everything_escaped():
    nasty = "<script>alert('x')</script> & \"quoted\""
    out = report([{"check": nasty, "node": "n1", "status": "fail", "detail": nasty}], title=nasty)
    assert "<script>" not in out["html"] and "&lt;script&gt;" in out["html"]
    assert nasty in _parse_html(out["html"])
    # The Slurm reason has no double quotes and no line breaks.
    assert '"' not in out["drain"][0]["reason"]


@pytest.mark.parametrize("node", ["n<1>", "n1,n2", "n1 state=resume", "n[1-4]", "n1\n", "", 5])
def test_a_node_name_scontrol_would_misread_is_refused(node):
    # The node becomes scontrol update nodename=<node>: ',' and brackets are hostlists, a blank another argument.
    with pytest.raises(ReportError, match=r"^results\[0\] \(x\)\.node must be a node name \(a host name or "
                                          r"Slurm node name.*\) or null, got .* of type (str|int)$"):
        report([{"check": "x", "node": node, "status": "fail"}])
    with pytest.raises(ReportError, match=r"^results\[0\] \(x\)\.nodes must be a list of node names .*, got \['n1', "
                                          r".* of type list$"):
        report([{"check": "x", "nodes": ["n1", node], "status": "fail"}])


def test_reason_is_cut_to_fit():
    reason = build_reason(["rdma_bw_mlx5_%d 100 Gb/s (expected 180 Gb/s)" % index for index in range(8)])
    assert len(reason) <= 249 and reason.endswith("more") and reason.startswith("validate: rdma_bw_mlx5_0")
    assert build_reason(["x" * 400]).endswith("...") and len(build_reason(["x" * 400])) == 249


def test_errors_name_the_result():
    with pytest.raises(ReportError, match=r"^results\[0\] \(x\)\.status must be one of pass, fail, not_applicable, "
                                          r"error, got 'ok' of type str$"):
        build_report([{"check": "x", "status": "ok"}])
    with pytest.raises(ReportError, match=r"^results\[1\]\.check must be the check's name, got None of type NoneType$"):
        build_report([{"check": "x", "status": "pass"}, {"status": "pass"}])
    with pytest.raises(ReportError, match=r"^results\[0\] has unknown key\(s\) 'colour'; allowed: check, derivation, "
                                          r"detail, expected, measured, node, nodes, status, unit; a result's keys are "
                                          r"described in docs/validate\.md$"):
        build_report([{"check": "x", "status": "pass", "colour": "red"}])
    with pytest.raises(ReportError, match=r"^results\[0\] \(x\)\.measured must be a finite number, got nan of type "
                                          r"float$"):
        build_report([{"check": "x", "status": "pass", "measured": float("nan")}])
    with pytest.raises(ReportError, match=r"^results\[0\] \(x\)\.measured must be a number to compare with the "
                                          r"expectation, got 'fast' of type str$"):
        build_report([{"check": "x", "measured": "fast", "expected": {"applicable": True, "value": 1, "compare": ">="}}])
    with pytest.raises(ReportError, match=r"^results must be a list of check results, got \{\} of type dict$"):
        build_report({})
    with pytest.raises(ReportError, match=r"^results\[0\] must be a dict with check, node, status, \.\.\., got 'x' "
                                          r"of type str$"):
        build_report(["x"])


_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20)
_RESULT = st.fixed_dictionaries(
    {"check": st.sampled_from(["rdma_bw", "nccl_all_reduce", "gpu_ecc", "slurm_job", "storage_read"]),
     "status": st.sampled_from(["pass", "fail", "not_applicable", "error"])},
    optional={"node": st.sampled_from(["compute01", "compute02", "n3"]),
              "measured": st.one_of(st.none(), st.integers(-10, 10 ** 6), st.floats(allow_nan=False, allow_infinity=False),
                                    _TEXT),
              "expected": st.one_of(st.none(), st.floats(0, 1000, allow_nan=False)),
              "unit": _TEXT, "detail": _TEXT})


@settings(max_examples=200, deadline=None)
@given(st.lists(_RESULT, max_size=12))
def test_any_mix_round_trips_and_fails_exactly_when_something_fails(results):
    out = report(results, cluster="c")
    assert json.loads(out["json"]) == out["report"]
    _parse_html(out["html"])
    failing = any(result["status"] in ("fail", "error") for result in results)
    assert out["failed"] is failing and (out["report"]["status"] == "fail") is failing
    drained = {item["node"] for item in out["drain"]}
    assert drained == {result["node"] for result in results
                       if result["status"] in ("fail", "error") and result.get("node")}
    assert all(len(item["reason"]) <= 249 and '"' not in item["reason"] and "\n" not in item["reason"]
               for item in out["drain"])
