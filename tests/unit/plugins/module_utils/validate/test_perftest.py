# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""validate_perftest against the four recorded ib_write_bw outputs and perftest's own latency format."""
from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.perftest import (
    PerftestParseError, measured, parse_perftest, to_gbps,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.validate.parse import ValidateParseError
from reference import outputs

_PERFTEST = outputs("perftest")

# Latency format from linux-rdma/perftest src/perftest_parameters.h: RESULT_FMT_LAT (the header) and
# REPORT_FMT_LAT (one row, printf). No recorded ib_write_lat/ib_send_lat output with a usable licence exists
# in tests/fixtures/reference (its README says so), so the row below is rendered from that format string with
# chosen values; it is a format test, not a recording.
RESULT_FMT_LAT = (" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]"
                  "   99% percentile[usec]   99.9% percentile[usec] ")
REPORT_FMT_LAT = " %-7lu %d          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f"
RULE = "-" * 87


def _c_format(fmt, *values):
    return fmt.replace("%-7lu", "%-7d") % values


def _latency_text(rows):
    head = ["", RULE, "                    RDMA_Write Latency Test", " Dual-port       : OFF\t\tDevice         : mlx5_0",
            " Number of qps   : 1\t\tTransport type : IB", " Link type       : IB", RULE, RESULT_FMT_LAT]
    return "\n".join(head + [_c_format(REPORT_FMT_LAT, *row) for row in rows] + [RULE]) + "\n"


def _reference(name):
    with open(os.path.join(_PERFTEST, name), encoding="utf-8") as handle:
        return handle.read()


def test_8m_loopback_server_and_client_blocks():
    result = parse_perftest(_reference("ib_write_bw-ib-8M-loopback-server+client.superbench.txt"))
    assert (result["test"], result["verb"], result["kind"], result["bidirectional"]) == \
        ("RDMA_Write BW Test", "write", "bw", False)
    assert (result["device"], result["link_type"], result["unit"], result["rdma_cm"]) == ("ib0", "IB", "MB/sec", False)
    # Client table then server table, one 8 MiB row each, same numbers.
    assert [len(table) for table in result["tables"]] == [1, 1]
    row = result["rows"][0]
    assert (row["bytes"], row["iterations"], row["bw_peak"], row["bw_average"], row["msg_rate_mpps"]) == \
        (8388608, 20000, 24056.74, 24056.72, 0.003007)
    # MB/sec is MiB/s: 24056.72 x 1048576 x 8 / 1e9 = 201.8024 Gb/s.
    assert row["bw_average_gbps"] == pytest.approx(201.80239, abs=1e-4)
    assert measured(result) == (pytest.approx(201.80239, abs=1e-4), "Gb/s")


def test_all_sizes_interleaved_server_and_client():
    result = parse_perftest(_reference("ib_write_bw-ib-a-loopback-interleaved.superbench.txt"))
    # Both headers are printed before the rows: the client's 23-row sweep goes to the first table, the
    # server's single 8 MiB row after the closing rule to the second.
    assert [len(table) for table in result["tables"]] == [23, 1]
    rows = result["rows"]
    assert [row["bytes"] for row in rows] == [2 ** n for n in range(1, 24)]
    assert rows[0]["bw_average"] == 5.30 and rows[-1]["bw_average"] == 23240.68
    by_size = {row["bytes"]: row for row in rows}
    assert (by_size[8192]["bw_peak"], by_size[8192]["bw_average"], by_size[8192]["msg_rate_mpps"]) == \
        (18620.51, 12782.56, 1.636168)
    # Largest size: 23240.68 MiB/s = 194.957 Gb/s; the best average of the sweep is the 4 MiB row's 23277.91.
    assert result["summary"]["bw_average_gbps"] == pytest.approx(194.95695, abs=1e-4)
    assert result["summary"]["max_bw_average_gbps"] == pytest.approx(23277.91 * 1048576 * 8 / 1e9)
    assert result["settings"]["ibv_wr* API"] == "ON" and result["settings"]["CQ Moderation"] == "100"


def test_bidirectional_sweep_report_gbits_roce():
    result = parse_perftest(_reference("ib_write_bw-bidir-a-report_gbits-roce.rocm-docs.txt"))
    assert result["test"] == "RDMA_Write Bidirectional BW Test" and result["bidirectional"] is True
    assert (result["link_type"], result["unit"], result["settings"]["GID index"]) == ("Ethernet", "Gb/sec", "3")
    assert len(result["rows"]) == 23
    first, last = result["rows"][0], result["rows"][-1]
    assert (first["bytes"], first["bw_peak"], first["bw_average"], first["msg_rate_mpps"]) == \
        (2, 0.142947, 0.012281, 0.767588)
    assert (last["bytes"], last["bw_average"], last["bw_average_gbps"]) == (8388608, 204.59, 204.59)
    assert result["summary"]["bw_average_gbytes"] == pytest.approx(25.57375)   # 204.59 / 8


def test_rdma_cm_with_cpufreq_warning_inside_the_table():
    result = parse_perftest(_reference("ib_write_bw-roce-rdma_cm-cpufreq-warning.deepops.txt"))
    assert result["rdma_cm"] is True and result["settings"]["Data ex. method"] == "rdma_cm"
    assert result["warnings"] == ["Conflicting CPU frequency values detected: 1200.535000 != 1251.336000. "
                                  "CPU Frequency is not max."]
    assert result["rows"] == [{"bytes": 65536, "iterations": 5000, "bw_peak": 92.42, "bw_average": 92.40,
                               "msg_rate_mpps": 0.17623, "bw_peak_gbps": 92.42, "bw_average_gbps": 92.4}]


def test_latency_format_from_perftest_source():
    text = _latency_text([(2, 1000, 1.01, 5.12, 1.05, 1.07, 0.04, 1.22, 5.12),
                          (4, 1000, 1.02, 4.80, 1.06, 1.08, 0.05, 1.25, 4.80)])
    result = parse_perftest(text)
    assert (result["kind"], result["verb"], result["unit"]) == ("lat", "write", "usec")
    assert result["columns"] == ["bytes", "iterations", "t_min", "t_max", "t_typical", "t_avg", "t_stdev",
                                 "t_99", "t_99_9"]
    assert result["summary"] == {"bytes": 2, "t_min": 1.01, "t_max": 5.12, "t_typical": 1.05, "t_avg": 1.07,
                                 "t_stdev": 0.04, "t_99": 1.22, "t_99_9": 5.12}
    assert measured(result) == (1.05, "usec")


def test_send_latency_title_and_older_three_column_header():
    text = ("                    Send Latency Test\n"
            " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]\n"
            " 2       1000          0.90           3.10         0.95\n")
    result = parse_perftest(text)
    assert (result["verb"], result["kind"], result["summary"]["t_typical"], result["summary"]["t_avg"]) == \
        ("send", "lat", 0.95, None)


def test_send_bw_title():
    text = ("                    Send BW Test\n"
            " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
            " 65536      1000             183.10             182.95\t\t   0.348950\n")
    result = parse_perftest(text)
    assert (result["verb"], result["summary"]["bw_average_gbps"]) == ("send", 182.95)


def test_errors_name_tool_line_and_expectation():
    with pytest.raises(PerftestParseError) as info:
        parse_perftest(" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
                       " 65536      1000             10.0\n")
    assert str(info.value) == ("perftest line 2: 3 values in a result row, expected 5 (bytes, iterations, bw_peak, "
                               "bw_average, msg_rate_mpps): '65536      1000             10.0'")
    with pytest.raises(PerftestParseError, match=r"^perftest line 1: result row without a '#bytes"):
        parse_perftest(" 65536 1000 1.0 1.0 0.1\n")
    with pytest.raises(PerftestParseError, match=r"unknown column 'Foo\[x\]'"):
        parse_perftest(" #bytes #iterations Foo[x]\n")
    with pytest.raises(PerftestParseError, match="no result rows.*Couldn't connect to 10.0.0.1:18515"):
        parse_perftest(" Couldn't connect to 10.0.0.1:18515\n")
    with pytest.raises(PerftestParseError) as info:
        parse_perftest(None)
    assert str(info.value) == "perftest: input must be the text output of a perftest tool, got None of type NoneType"
    assert issubclass(PerftestParseError, ValidateParseError) and issubclass(PerftestParseError, ValueError)


def test_unit_conversion():
    assert to_gbps(1000.0, "Gb/sec") == 1000.0
    assert to_gbps(1.0, "MB/sec") == 1048576 * 8 / 1e9
    with pytest.raises(PerftestParseError, match="unit 'KB/sec'"):
        to_gbps(1.0, "KB/sec")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 2 ** 23), st.integers(5, 10 ** 6),
                          *[st.floats(0, 9999, allow_nan=False).map(lambda x: round(x, 2))] * 7), min_size=1, max_size=8))
def test_latency_rows_round_trip_through_perftests_format(rows):
    result = parse_perftest(_latency_text(rows))
    keys = ["bytes", "iterations", "t_min", "t_max", "t_typical", "t_avg", "t_stdev", "t_99", "t_99_9"]
    assert [[row[key] for key in keys] for row in result["rows"]] == [list(row) for row in rows]
