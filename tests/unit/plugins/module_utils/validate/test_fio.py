# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""validate_fio: fio --output-format=json.

No fio JSON is recorded under tests/fixtures/reference. The fixture keeps the structure fio documents (HOWTO,
"JSON output": jobs[].read/write/trim with io_bytes, bw_bytes, bw (KiB/s), iops, runtime (ms)) and the read
numbers of a published fio-3.6 JSON sample (io_bytes 270278656, bw_bytes 12708230, bw 12410,
iops 3102.595449, runtime 21268 - consistent: 270278656 / 21.268 s = 12708230.96 B/s).
"""
from __future__ import annotations

import copy
import json

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.fio import FioParseError, parse_fio

SAMPLE = {
    "fio version": "fio-3.6",
    "timestamp": 1526519641,
    "global options": {"runtime": "60", "direct": "1"},
    "jobs": [{
        "jobname": "random_rw_25_75", "groupid": 0, "error": 0, "eta": 0, "elapsed": 22,
        "job options": {"name": "random_rw_25_75", "bs": "4k", "iodepth": "64", "rw": "randrw", "rwmixread": "25"},
        "read": {"io_bytes": 270278656, "io_kbytes": 263944, "bw_bytes": 12708230, "bw": 12410,
                 "iops": 3102.595449, "runtime": 21268, "total_ios": 65986, "short_ios": 0, "drop_ios": 0},
        "write": {"io_bytes": 0, "io_kbytes": 0, "bw_bytes": 0, "bw": 0, "iops": 0.0, "runtime": 0},
        "trim": {"io_bytes": 0, "io_kbytes": 0, "bw_bytes": 0, "bw": 0, "iops": 0.0, "runtime": 0},
    }],
}


def test_single_job_numbers():
    result = parse_fio(json.dumps(SAMPLE, indent=2))
    assert result["version"] == "fio-3.6" and result["errors"] == [] and result["notes"] == []
    assert result["jobs"][0]["read"] == {"io_bytes": 270278656, "bw_bytes": 12708230, "iops": 3102.595449,
                                         "runtime": 21268}
    read = result["summary"]["read"]
    # Group figure: 270278656 x 1000 / 21268 = 12708230.957 B/s = 0.0127 GB/s.
    assert read["bw_bytes"] == pytest.approx(12708230.957, abs=1e-3)
    assert read["gbytes_per_s"] == pytest.approx(0.012708231)
    assert (read["runtime_ms"], read["iops"], read["groupid"]) == (21268, 3102.595449, 0)
    assert result["summary"]["write"] is None and result["summary"]["trim"] is None


def test_parallel_jobs_of_one_group_add_up_over_the_longest_runtime():
    data = copy.deepcopy(SAMPLE)
    second = copy.deepcopy(data["jobs"][0])
    second["jobname"] = "reader2"
    second["read"].update(io_bytes=300000000, bw_bytes=14000000, iops=3400.0, runtime=21000)
    data["jobs"].append(second)
    group = parse_fio(data)["groups"][0]
    # (270278656 + 300000000) x 1000 / max(21268, 21000) = 26813553.6 B/s; IOPS add up.
    assert group["jobs"] == 2
    assert group["read"]["bw_bytes"] == pytest.approx(570278656 * 1000 / 21268)
    assert group["read"]["sum_bw_bytes"] == 12708230 + 14000000
    assert group["read"]["iops"] == pytest.approx(6502.595449)


def test_notes_before_the_json_and_job_errors():
    data = copy.deepcopy(SAMPLE)
    data["jobs"][0]["error"] = 5
    text = "note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1\n" \
           + json.dumps(data)
    result = parse_fio(text)
    assert result["notes"][0].startswith("note: both iodepth >= 1")
    assert result["errors"] == ["random_rw_25_75: error 5"]


def test_groups_are_separate_and_the_best_is_summarised():
    data = copy.deepcopy(SAMPLE)
    other = copy.deepcopy(data["jobs"][0])
    other.update(groupid=1, jobname="seq")
    other["read"].update(io_bytes=1000000000, runtime=1000)
    data["jobs"].append(other)
    result = parse_fio(data)
    assert [group["groupid"] for group in result["groups"]] == [0, 1]
    assert result["summary"]["read"]["groupid"] == 1 and result["summary"]["read"]["gbytes_per_s"] == 1.0


def test_errors_name_tool_line_and_expectation():
    with pytest.raises(FioParseError) as info:
        parse_fio("fio: pid=0, err=2/file:filesetup.c:174, func=open, error=No such file or directory\n")
    assert str(info.value) == ("fio line 1: no JSON object in the output (expected fio --output-format=json): "
                               "'fio: pid=0, err=2/file:filesetup.c:174, func=open, error=No such file or directory'")
    with pytest.raises(FioParseError, match=r"^fio line 3: not valid JSON"):
        parse_fio('note: x\n{\n  "jobs": [,]\n}')
    with pytest.raises(FioParseError, match="'jobs' is missing or empty"):
        parse_fio({"fio version": "fio-3.33"})
    with pytest.raises(FioParseError, match=r"^fio: jobs\[0\] \(j\): read\.bw_bytes must be a number >= 0, got 'x' "
                                            r"of type str$"):
        parse_fio({"jobs": [{"jobname": "j", "read": {"io_bytes": 1, "bw_bytes": "x", "iops": 1, "runtime": 1}}]})
    with pytest.raises(FioParseError, match="has no read, write or trim section"):
        parse_fio({"jobs": [{"jobname": "j"}]})
    with pytest.raises(FioParseError) as info:
        parse_fio(42)
    assert str(info.value) == "fio: input must be fio's JSON output (text or a parsed dict), got 42 of type int"
    with pytest.raises(FioParseError) as info:
        parse_fio("[1, 2]\n{")
    assert str(info.value).startswith("fio line 2: not valid JSON")
    with pytest.raises(FioParseError) as info:
        parse_fio('{"jobs": ["x"]}')
    assert str(info.value) == "fio: jobs[0] must be an object, got 'x' of type str"
