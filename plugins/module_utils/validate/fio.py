# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Parser of `fio --output-format=json` (the storage throughput check; Debian 12 packages fio 3.33).

fio's JSON holds `jobs`, one entry per job (or per group with group_reporting), each with `jobname`,
`groupid`, `error` and one object per direction (`read`, `write`, `trim`) holding `io_bytes`, `bw_bytes`
(bytes/s), `bw` (KiB/s), `iops` and `runtime` (ms) (fio HOWTO "JSON output"; sample: fio-3.6 output with
read.io_bytes 270278656, bw_bytes 12708230, bw 12410, iops 3102.595449, runtime 21268).

Jobs of one group run at the same time, so a group's throughput is what fio's "Run status group" line
prints: the group's bytes over its longest runtime, sum(io_bytes) x 1000 / max(runtime_ms). Stdout may start
with fio's notes before the JSON (`note: both iodepth >= 1 and synchronous I/O engine ...`): they are kept.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import must_be
from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.parse import ValidateParseError

DIRECTIONS = ("read", "write", "trim")


class FioParseError(ValidateParseError):
    """fio JSON output that cannot be read."""

    tool = "fio"


def _load(data: Any) -> Dict[str, Any]:
    if isinstance(data, dict):
        return data
    if not isinstance(data, str):
        raise must_be("input", data, "fio's JSON output (text or a parsed dict)", FioParseError)
    if data.lstrip().startswith("{"):
        start = data.find("{")
    else:
        # fio's notes come first, each on its own line; the JSON starts at the first line opening with `{`.
        start = data.find("\n{") + 1
        if start == 0:
            first = data.strip().splitlines()[0] if data.strip() else ""
            raise FioParseError("no JSON object in the output (expected fio --output-format=json)", 1, first)
    try:
        loaded = json.loads(data[start:])
    except ValueError as exc:
        line = data.count("\n", 0, start) + getattr(exc, "lineno", 1)
        raise FioParseError("not valid JSON (%s; expected fio --output-format=json)" % getattr(exc, "msg", exc),
                            line)
    if not isinstance(loaded, dict):
        raise must_be("the JSON", loaded, "an object with 'jobs'", FioParseError)
    loaded.setdefault("_notes", [line.strip() for line in data[:start].splitlines() if line.strip()])
    return loaded


def _number(job: Dict[str, Any], direction: str, key: str, where: str) -> float:
    value = job.get(direction, {}).get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise must_be("%s: %s.%s" % (where, direction, key), value, "a number >= 0", FioParseError)
    return value


def parse_fio(data: Any) -> Dict[str, Any]:
    """Per job and per group read/write/trim bytes, bandwidth (bytes/s), IOPS and runtime (ms)."""
    loaded = _load(data)
    jobs_in = loaded.get("jobs")
    if not isinstance(jobs_in, list) or not jobs_in:
        raise FioParseError("'jobs' is missing or empty (expected a list of fio jobs)")
    jobs: List[Dict[str, Any]] = []
    for index, job in enumerate(jobs_in):
        if not isinstance(job, dict):
            raise must_be("jobs[%d]" % index, job, "an object", FioParseError)
        where = "jobs[%d] (%s)" % (index, job.get("jobname", "?"))
        entry: Dict[str, Any] = {"jobname": job.get("jobname"), "groupid": job.get("groupid", 0),
                                 "error": job.get("error", 0)}
        for direction in DIRECTIONS:
            if direction not in job:
                continue
            entry[direction] = {key: _number(job, direction, key, where)
                                for key in ("io_bytes", "bw_bytes", "iops", "runtime")}
        if not any(direction in entry for direction in DIRECTIONS):
            raise FioParseError("%s has no read, write or trim section" % where)
        jobs.append(entry)
    groups = _groups(jobs)
    return {
        "tool": "fio",
        "version": loaded.get("fio version"),
        "notes": loaded.get("_notes", []),
        "jobs": jobs,
        "groups": groups,
        "errors": ["%s: error %s" % (job["jobname"], job["error"]) for job in jobs if job["error"]],
        "summary": {direction: _best(groups, direction) for direction in DIRECTIONS},
    }


def _groups(jobs: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    result = []
    for groupid in sorted({job["groupid"] for job in jobs}):
        members = [job for job in jobs if job["groupid"] == groupid]
        group: Dict[str, Any] = {"groupid": groupid, "jobs": len(members)}
        for direction in DIRECTIONS:
            parts = [job[direction] for job in members if direction in job]
            io_bytes = sum(part["io_bytes"] for part in parts)
            runtime = max((part["runtime"] for part in parts), default=0)
            if not parts or not io_bytes:
                continue
            group[direction] = {
                "io_bytes": io_bytes,
                "runtime_ms": runtime,
                # fio's group line: bytes over the longest runtime (0 ms only when nothing moved).
                "bw_bytes": io_bytes * 1000.0 / runtime if runtime else 0.0,
                "sum_bw_bytes": sum(part["bw_bytes"] for part in parts),
                "iops": sum(part["iops"] for part in parts),
            }
        result.append(group)
    return result


def _best(groups: List[Dict[str, Any]], direction: str) -> Optional[Dict[str, Any]]:
    """The group with the highest throughput in that direction (the only one in the usual single-group run)."""
    found = [group for group in groups if direction in group]
    if not found:
        return None
    group = max(found, key=lambda item: item[direction]["bw_bytes"])
    return dict(group[direction], groupid=group["groupid"], gbytes_per_s=group[direction]["bw_bytes"] / 1e9)
