# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Parser and verdict of `dcgmi diag -r N` text output, for validate.yml.

The algorithm is the one of roles/slurm/files/gpufleet-gpu-health (parse_dcgm_diag, judge_dcgm): that
script is copied alone onto the compute nodes and runs as Slurm's HealthCheckProgram, so it keeps its own
copy, and module_utils may not import from roles. tests/unit/plugins/module_utils/test_validate_dcgm.py
loads the script and checks that both read every recorded output the same way.

The box: `| Diagnostic | Result |` rows under `|-----  Deployment  ---...|` section rules. A row whose first
cell is empty continues the row above: another per-GPU result (`Fail - GPU: 0`) or more of a wrapped text.
DCGM cuts text at a fixed width inside a word, so the pieces are joined as they are ("13.3 second" + "s").
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple

from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.parse import ValidateParseError, text_input

_SECTION = re.compile(r"^[|+]-+\s+([A-Za-z][\w /]*?)\s+-+\+")
_RESULT = re.compile(r"^(Pass|Fail|Warn|Skip)\b\s*-?\s*(.*)$")
_MESSAGES = ("Error", "Warning", "Info")
# DCGM appends its advice to a message ("... for GPU 0 Verify that the cooling ..."): left out of the verdict.
_ADVICE = re.compile(r"\.?\s+(?:Verify|Check|Run|Please|Ensure|Make sure|Reboot|Drain|Contact)\b.*$")
# Memory and thermal items go first: they name the GPU to replace.
_FIRST = re.compile(r"memory|\becc\b|remap|retire|thermal|temperature", re.I)
_HOSTENGINE_DOWN = re.compile(r"unable to (?:establish a connection|connect to host engine)|"
                              r"host engine connection invalid", re.I)


class DcgmDiagParseError(ValidateParseError):
    """dcgmi diag output that cannot be read."""

    tool = "dcgmi diag"


def _entries(text: str) -> List[List[str]]:
    """[section, first cell, joined text] of each row of the Diagnostic box (other boxes are skipped)."""
    entries: List[List[str]] = []
    section, previous, header_next, foreign = "", "", False, False
    for raw in text.splitlines():
        line = raw.rstrip()
        match = _SECTION.match(line)
        if match:
            section = match.group(1)
        elif line.startswith("+"):
            # A box's top rule: its first row is the header; only `| Diagnostic | Result |` is ours.
            header_next = header_next or not previous.startswith(("|", "+"))
        elif line.startswith("|") and line.count("|") >= 2 and header_next:
            foreign, header_next = line.split("|")[1].strip() != "Diagnostic", False
        elif line.startswith("|") and line.count("|") >= 2 and not foreign:
            cells = line.split("|", 2)
            name, cell = cells[1].strip(), cells[2]
            closed = cell.endswith("|")
            cell = cell[:-1] if closed else cell  # a fragment's last line may lack its `|`
            piece = cell[1:-2] if closed and cell.endswith("  ") else cell[1:]
            above = entries[-1] if entries else None
            if name or above is None:
                entries.append([section, name, piece])
            elif above[1] not in _MESSAGES and _RESULT.match(piece.strip()):
                entries.append([section, above[1], piece])
            else:
                above[2] += piece
        previous = line
    return entries


def parse_dcgm_diag(text: str) -> Dict[str, Any]:
    """Metadata and rows: {section, test, result, gpus, detail, message}."""
    text_input(text, "the text output of dcgmi diag", DcgmDiagParseError)
    if _HOSTENGINE_DOWN.search(text):
        line = next(i for i, raw in enumerate(text.splitlines(), 1) if _HOSTENGINE_DOWN.search(raw))
        raise DcgmDiagParseError("dcgmi could not reach nv-hostengine (expected a diagnostic table; is the "
                                 "dcgm service running?)", line, text.splitlines()[line - 1])
    metadata: Dict[str, str] = {}
    rows: List[Dict[str, Any]] = []
    test, where = "", None
    for section, name, raw_text in _entries(text):
        value = " ".join(raw_text.split())
        if section != where:
            test, where = "", section
        if section == "Metadata":
            metadata[name] = value
        elif name in _MESSAGES:
            gpus = sorted({int(found) for found in re.findall(r"\bGPU (\d+)", value)})
            rows.append({"section": section, "test": test or section or "dcgmi diag", "result": name,
                         "gpus": gpus, "detail": "", "message": value})
        else:
            test = name
            match = _RESULT.match(value)
            result, detail = (match.group(1), match.group(2)) if match else (value, "")
            gpus = [int(found) for found in re.findall(r"\d+", detail)] if detail.startswith("GPU") else []
            rows.append({"section": section, "test": name, "result": result, "gpus": gpus, "detail": detail,
                         "message": ""})
    if not rows and not metadata:
        first = text.strip().splitlines()[0] if text.strip() else ""
        raise DcgmDiagParseError("no '| Diagnostic | Result |' table (expected dcgmi diag -r N output)", 1, first)
    ids = metadata.get("GPU Device IDs Detected")
    return {"tool": "dcgmi diag", "metadata": metadata, "rows": rows,
            "gpu_count": len(ids.split(",")) if ids else None}


def _who(row: Dict[str, Any]) -> str:
    if row["gpus"]:
        return ("GPU %s " if len(row["gpus"]) == 1 else "GPUs %s ") % ", ".join(str(gpu) for gpu in row["gpus"])
    return "all GPUs " if row["detail"] == "All" else ""


def judge_dcgm(diag: Dict[str, Any]) -> Tuple[List[str], List[str], List[str]]:
    """(failures, warnings, notes): one failure per test with a Fail or an Error row, carrying the test's
    messages without DCGM's advice; Warn/Warning rows alone only warn; Skip/Info are notes."""
    tests: Dict[str, Dict[str, List[str]]] = {}
    for row in diag["rows"]:
        if row["result"] == "Pass":
            continue
        said = {"Fail": "failed", "Warn": "warned", "Skip": "skipped"}.get(row["result"])
        text = row["message"] or _who(row) + (said or "result %r not understood" % row["result"])
        kind = row["result"] if row["result"] in _MESSAGES or said else "Warn"
        tests.setdefault(row["test"], {}).setdefault(kind, []).append(text)
    failures: List[str] = []
    warnings: List[str] = []
    notes: List[str] = []
    for test, kinds in tests.items():
        failed = kinds.get("Fail", [])
        messages = [_ADVICE.sub("", text) for text in kinds.get("Error", [])] + kinds.get("Warn", [])
        messages += ["warning: " + _ADVICE.sub("", text) for text in kinds.get("Warning", [])]
        if failed and messages:
            failures.append("%s: %s (%s)" % (test, ", ".join(failed), ", ".join(messages)))
        elif failed or kinds.get("Error"):
            failures.append("%s: %s" % (test, ", ".join(failed or messages)))
        else:
            warnings += ["%s: %s" % (test, text) for text in kinds.get("Warn", []) + kinds.get("Warning", [])]
        notes += ["%s: %s" % (test, text) for text in kinds.get("Skip", []) + kinds.get("Info", [])]
    failures.sort(key=lambda item: not _FIRST.search(item))
    return failures, warnings, notes


def dcgm_verdict(text: str, node: Optional[str] = None) -> Dict[str, Any]:
    """Parsed diag plus failures/warnings/notes, the Pass count and a check result for validate_report."""
    diag = parse_dcgm_diag(text)
    failures, warnings, notes = judge_dcgm(diag)
    passed = sum(1 for row in diag["rows"] if row["result"] == "Pass")
    level = diag["metadata"].get("DCGM Version")
    detail = "; ".join(failures) if failures else "%d tests passed%s" % (
        passed, "" if not warnings else "; warnings: " + "; ".join(warnings))
    diag.update(failures=failures, warnings=warnings, notes=notes, passed=passed)
    diag["check"] = {"check": "dcgm_diag", "node": node, "status": "fail" if failures else "pass",
                     "measured": len(failures), "expected": 0, "unit": "failed tests",
                     "detail": detail + ("" if level is None else " (DCGM %s)" % level)}
    return diag
