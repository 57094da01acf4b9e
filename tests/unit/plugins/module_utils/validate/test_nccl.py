# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""validate_nccl against the three recorded all_reduce_perf outputs."""
from __future__ import annotations

import os

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.nccl import (
    NcclTestsParseError, correct, parse_nccl_tests,
)
from reference import outputs

_NCCL = outputs("nccl-tests")


def _reference(name):
    with open(os.path.join(_NCCL, name), encoding="utf-8") as handle:
        return handle.read()


def test_single_node_8x_a100_complete_run():
    result = parse_nccl_tests(_reference("all_reduce_perf.1x-8xA100-40GB.superbench.txt"))
    assert result["params"]["nGpus"] == "8" and result["params"]["maxBytes"] == "8589934592"
    assert result["params"]["warmup_iters"] == "5" and result["params"]["iters"] == "20"
    assert [rank["rank"] for rank in result["ranks"]] == list(range(8))
    assert result["ranks"][3] == {"rank": 3, "group": None, "pid": 112424, "host": "localhost", "device": 3,
                                  "bus_id": "0x00", "name": "A100-SXM4-40GB"}
    assert result["hosts"] == ["localhost"] and result["gpus_per_host"] == {"localhost": 8}
    assert len(result["rows"]) == 34   # two 0-byte rows, then 4 B .. 8 GiB
    row = {row["size"]: row for row in result["rows"]}[8388608]
    # The 8 MiB row: 162.0 us, 51.79 GB/s algbw, 90.63 GB/s busbw out-of-place; 160.0 / 52.44 / 91.77 in-place.
    assert row["out_of_place"] == {"time_us": 162.0, "algbw_gbs": 51.79, "busbw_gbs": 90.63, "error": None}
    assert row["in_place"] == {"time_us": 160.0, "algbw_gbs": 52.44, "busbw_gbs": 91.77, "error": None}
    assert (row["count"], row["type"], row["redop"], row["root"]) == (2097152, "float", "sum", None)
    assert result["avg_busbw_gbs"] == 68.4048
    assert (result["out_of_bounds"], result["out_of_bounds_ok"], result["wrong_total"]) == (0, True, 0)
    assert result["notes"] == ["hostname:3442:3442 [0] NCCL INFO Launch mode Parallel"]
    # Largest size 8 GiB: 235.26 out-of-place beats 235.03 in-place.
    assert result["summary"] == {"largest_size": 8589934592, "largest_busbw_gbs": 235.26, "peak_busbw_gbs": 235.26,
                                 "ranks": 8, "hosts": 1}
    assert correct(result) == (True, "no wrong values")


def test_two_node_p5_srun_prefixed_new_layout():
    result = parse_nccl_tests(_reference("all_reduce_perf.2x-p5.48xlarge-efa-srun-prefixed.awsome.txt"))
    assert result["srun_labels"] == [0] and len(result["rows"]) == 32
    last = result["rows"][-1]
    assert (last["size"], last["root"]) == (17179869184, -1)
    assert last["out_of_place"] == {"time_us": 66132, "algbw_gbs": 259.78, "busbw_gbs": 487.09, "wrong": 0}
    assert last["in_place"]["busbw_gbs"] == 487.26
    assert result["summary"]["largest_busbw_gbs"] == 487.26
    # The author cut the Rank header and the Avg line.
    assert (result["ranks"], result["avg_busbw_gbs"], result["out_of_bounds_ok"]) == ([], None, None)


def test_four_node_dgx_a100_old_error_column():
    result = parse_nccl_tests(_reference("all_reduce_perf.4x-dgx-a100-ib.deepops.txt"))
    assert len(result["rows"]) == 13 and result["rows"][0]["size"] == 1048576
    assert result["rows"][3]["out_of_place"] == {"time_us": 320.3, "algbw_gbs": 26.19, "busbw_gbs": 50.75,
                                                 "error": 1e-06}
    assert result["avg_busbw_gbs"] == 113.289
    assert result["summary"]["largest_busbw_gbs"] == 191.56 and result["summary"]["peak_busbw_gbs"] == 191.56


def test_wrong_values_make_the_run_incorrect():
    text = ("#  size  count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong\n"
            "  1048576  262144  float  sum  -1  100.0  10.49  19.66  3  101.0  10.38  19.46  0\n"
            "# Out of bounds values : 3 FAILED\n")
    result = parse_nccl_tests(text)
    assert result["wrong_total"] == 3 and result["out_of_bounds_ok"] is False
    assert correct(result) == (False, "3 wrong values (#wrong column)")


def test_rank_lines_of_a_multi_node_run_with_groups():
    text = ("# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
            "validation: 1 graph: 0\n#\n# Using devices\n"
            "#  Rank  0 Group  0 Pid  41021 on   node01 device  0 [0000:53:00] NVIDIA H100 80GB HBM3\n"
            "#  Rank  8 Group  0 Pid  51000 on   node02 device  0 [0000:53:00] NVIDIA H100 80GB HBM3\n"
            "#  size  count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong\n"
            "  8  2  float  sum  -1  30.1  0.00  0.00  0  29.8  0.00  0.00  0\n")
    result = parse_nccl_tests(text)
    assert result["hosts"] == ["node01", "node02"] and result["ranks"][1]["bus_id"] == "0000:53:00"
    assert result["ranks"][0]["group"] == 0 and result["params"]["validation"] == "1"


def test_errors_name_tool_line_and_expectation():
    with pytest.raises(NcclTestsParseError) as info:
        parse_nccl_tests("#  size  count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong\n"
                         "  8  2  float  sum  -1  30.1  0.00\n")
    assert str(info.value) == ("nccl-tests line 2: 7 fields in a result row, expected 13 (size count type redop root, "
                               "then time algbw busbw #wrong out-of-place and in-place): "
                               "'8  2  float  sum  -1  30.1  0.00'")
    with pytest.raises(NcclTestsParseError) as info:
        parse_nccl_tests({"rows": []})
    assert str(info.value) == ("nccl-tests: input must be the text output of an nccl-tests binary, got {'rows': []} of "
                               "type dict")
    with pytest.raises(NcclTestsParseError, match="line 1: result row before the"):
        parse_nccl_tests("  8  2  float  sum  -1  30.1  0.00  0.00  0  29.8  0.00  0.00  0\n")
    with pytest.raises(NcclTestsParseError, match="no result rows.*NCCL WARN NET/IB : No device found"):
        parse_nccl_tests("node01:1:1 [0] NCCL WARN NET/IB : No device found.\n")
    with pytest.raises(NcclTestsParseError, match="line 2: 'x' is not a number"):
        parse_nccl_tests("#  size  count  type  redop  time  algbw  busbw  error  time  algbw  busbw  error\n"
                         "  8  2  float  sum  x  0.00  0.00  N/A  29.8  0.00  0.00  N/A\n")
    with pytest.raises(NcclTestsParseError, match="line 1: unknown table header"):
        parse_nccl_tests("#  size  count  type  time  algbw\n")
