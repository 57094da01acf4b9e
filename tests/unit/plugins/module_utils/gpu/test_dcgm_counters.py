# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""dcgm-exporter's counters CSV: entry checks, merging, rendering (worked by hand) and reading back."""
from __future__ import annotations

import os

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.gpu.dcgm_counters import (
    Counter,
    DcgmCountersError,
    check_counter,
    counters_csv,
    merge_counters,
    parse_counters_csv,
    render_counters_csv,
)

from reference import REPO  # noqa: I100

UTIL = {"name": "DCGM_FI_DEV_GPU_UTIL", "type": "gauge", "help": "GPU utilisation (in %)."}
DBE = {"name": "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "type": "counter", "help": "Double-bit volatile ECC errors."}
DRIVER = {"name": "DCGM_FI_DRIVER_VERSION", "type": "label", "help": "Driver version."}


def test_check_counter_accepts_the_three_types_and_strips_help():
    assert check_counter(UTIL, "m[0]") == Counter("DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilisation (in %).")
    assert check_counter(dict(DBE, help="  padded  "), "m[1]").help == "padded"
    assert check_counter(DRIVER, "m[2]").type == "label"


@pytest.mark.parametrize("entry, words", [
    ({"name": "dcgm_fi_dev_gpu_util", "type": "gauge", "help": "x"},
     ["metrics[4]", "'dcgm_fi_dev_gpu_util'", "^DCGM_FI_[A-Z0-9_]+$", "fix the name"]),
    ({"name": "DCGM_EXP_XID_ERRORS_COUNT", "type": "gauge", "help": "x"}, ["metrics[4]", "DCGM_EXP_XID_ERRORS_COUNT"]),
    ({"name": "DCGM_FI_DEV GPU", "type": "gauge", "help": "x"}, ["'DCGM_FI_DEV GPU'"]),
    ({"name": "DCGM_FI_DEV_GPU_UTIL", "type": "histogram", "help": "x"},
     ["metrics[4] (DCGM_FI_DEV_GPU_UTIL)", "'histogram'", "gauge, counter, label"]),
    ({"name": "DCGM_FI_DEV_GPU_UTIL", "type": "Gauge", "help": "x"}, ["'Gauge'"]),
    ({"name": "DCGM_FI_DEV_GPU_UTIL", "type": "gauge", "help": ""}, ["help ''", "non-empty"]),
    ({"name": "DCGM_FI_DEV_GPU_UTIL", "type": "gauge"}, ["help None"]),
    ({"name": "DCGM_FI_DEV_GPU_UTIL", "type": "gauge", "help": "used, free"}, ["a comma", "3 fields"]),
    ({"name": "DCGM_FI_DEV_GPU_UTIL", "type": "gauge", "help": 'the "util"'}, ["a double quote"]),
    ({"name": "DCGM_FI_DEV_GPU_UTIL", "type": "gauge", "help": "two\nlines"}, ["a line break"]),
    ({"name": "DCGM_FI_DEV_GPU_UTIL", "type": "gauge", "help": "x" * 201}, ["201 characters", "at most 200"]),
    ({"name": "DCGM_FI_DEV_GPU_UTIL", "type": "gauge", "help": "x", "desc": "y"},
     ["metrics[4] has unknown key(s) 'desc'; allowed: help, name, type; an entry has exactly these; see docs/dcgm.md"]),
    ("DCGM_FI_DEV_GPU_UTIL, gauge, x",
     ["metrics[4] must be a mapping {name: DCGM_FI_..., type: gauge|counter|label, help: text}, got "
      "'DCGM_FI_DEV_GPU_UTIL, gauge, x' of type str"]),
])
def test_check_counter_names_the_bad_entry(entry, words):
    with pytest.raises(DcgmCountersError) as info:
        check_counter(entry, "metrics[4]")
    for word in words:
        assert word in str(info.value)


def test_merge_keeps_order_and_refuses_a_field_twice():
    merged = merge_counters([UTIL, DBE], [DRIVER], "dcgm_exporter_metrics", "dcgm_exporter_extra_metrics")
    assert [c.name for c in merged] == ["DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "DCGM_FI_DRIVER_VERSION"]
    with pytest.raises(DcgmCountersError) as info:
        merge_counters([UTIL, DBE], [DRIVER, dict(UTIL, help="again")], "dcgm_exporter_metrics", "dcgm_exporter_extra_metrics")
    assert str(info.value).startswith("dcgm_exporter_extra_metrics[1] (DCGM_FI_DEV_GPU_UTIL) repeats dcgm_exporter_metrics[0]")
    with pytest.raises(DcgmCountersError, match="both empty"):
        merge_counters([], [])
    with pytest.raises(DcgmCountersError) as info:
        merge_counters({"name": "DCGM_FI_DEV_GPU_UTIL"}, [])
    assert str(info.value) == ("metrics must be a list of metric entries, got {'name': 'DCGM_FI_DEV_GPU_UTIL'} of "
                               "type dict")
    with pytest.raises(DcgmCountersError) as info:
        merge_counters([UTIL], "DCGM_FI_DRIVER_VERSION", "dcgm_exporter_metrics", "dcgm_exporter_extra_metrics")
    assert str(info.value) == ("dcgm_exporter_extra_metrics must be a list of metric entries, got "
                               "'DCGM_FI_DRIVER_VERSION' of type str")


def test_render_by_hand():
    # Longest name DCGM_FI_DEV_ECC_DBE_VOL_TOTAL = 29 characters, so names + comma are padded to 30, then one
    # space; types + comma to 8 ("counter," is the longest), then one space, then the help.
    text = render_counters_csv(merge_counters([UTIL, DBE], [DRIVER]), ("metrics", "extra"), 2)
    assert text == (
        "# Format\n"
        "# Lines starting with '#' are comments.\n"
        "# DCGM FIELD, Prometheus metric type, help message\n"
        "\n"
        "# metrics\n"
        "DCGM_FI_DEV_GPU_UTIL,          gauge,   GPU utilisation (in %).\n"
        "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL, counter, Double-bit volatile ECC errors.\n"
        "\n"
        "# extra\n"
        "DCGM_FI_DRIVER_VERSION,        label,   Driver version.\n")
    assert len("DCGM_FI_DEV_GPU_UTIL,          ") == 31


def test_render_without_extra_has_no_empty_section():
    text = render_counters_csv(merge_counters([UTIL], []), ("metrics", "extra"), 1)
    assert "# extra" not in text and text.endswith("GPU utilisation (in %).\n")
    with pytest.raises(DcgmCountersError, match="no counters"):
        render_counters_csv([])


def test_parse_reads_what_dcgm_exporter_reads():
    # NVIDIA's style: comments at column 0, blank lines, ragged padding, a space before the comma.
    text = ("# Format\n# DCGM FIELD, Prometheus metric type, help message\n\n# Clocks\n"
            "DCGM_FI_DEV_SM_CLOCK,  gauge, SM clock frequency (in MHz).\n"
            "DCGM_FI_DEV_DEC_UTIL ,     gauge, Decoder utilization (in %).\n")
    assert parse_counters_csv(text) == [Counter("DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz)."),
                                        Counter("DCGM_FI_DEV_DEC_UTIL", "gauge", "Decoder utilization (in %).")]
    with pytest.raises(DcgmCountersError, match="line 2 has 4 fields"):
        parse_counters_csv("# x\nDCGM_FI_DEV_FB_USED, gauge, used, in MiB\n")
    with pytest.raises(DcgmCountersError, match="line 1: quoted"):
        parse_counters_csv('DCGM_FI_DEV_FB_USED, gauge,"used, in MiB"\n')
    with pytest.raises(DcgmCountersError, match=r"line 1 \(DCGM_FI_DEV_FB_USED\): type 'gauges'"):
        parse_counters_csv("DCGM_FI_DEV_FB_USED, gauges, used\n")


def test_the_roles_default_list():
    # 32 metrics: 22 device fields, 9 profiling (DCP) fields, 1 label.
    with open(os.path.join(REPO, "roles", "dcgm", "defaults", "main.yml"), encoding="utf-8") as fh:
        defaults = yaml.safe_load(fh)["dcgm_exporter_metrics"]
    result = counters_csv(defaults, [], "dcgm_exporter_metrics", "dcgm_exporter_extra_metrics")
    assert result["count"] == 32 and len(result["profiling"]) == 9 and result["labels"] == ["DCGM_FI_DRIVER_VERSION"]
    assert [c.as_dict() for c in parse_counters_csv(result["content"])] == [check_counter(e, "").as_dict() for e in defaults]
    # The longest name, DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS, is 39 characters: every type starts at column 41.
    rows = [line for line in result["content"].splitlines() if line.startswith("DCGM_FI_")]
    assert [line[:40].rstrip() for line in rows] == [e["name"] + "," for e in defaults]
    assert {line[40] for line in rows} == {" "}
    assert [line[41:].split(",")[0] for line in rows] == [e["type"] for e in defaults]


_NAMES = st.from_regex(r"DCGM_FI_[A-Z0-9_]{1,30}", fullmatch=True)
_HELP = st.text(alphabet=st.characters(blacklist_characters=',"\r\n#', blacklist_categories=("Cs", "Cc", "Zl", "Zp")),
                min_size=1, max_size=60).filter(lambda s: s.strip())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_NAMES, st.sampled_from(["gauge", "counter", "label"]), _HELP),
                min_size=1, max_size=12, unique_by=lambda t: t[0]),
       st.integers(min_value=0, max_value=12))
def test_render_then_parse_gives_the_entries_back(entries, split):
    dicts = [{"name": n, "type": t, "help": h} for n, t, h in entries]
    split = min(split, len(dicts))
    result = counters_csv(dicts[:split], dicts[split:])
    assert result["names"] == [entry[0] for entry in entries]
    assert parse_counters_csv(result["content"]) == [Counter(n, t, h.strip()) for n, t, h in entries]
    # Every data line puts its type at the same column.
    rows = [line for line in result["content"].splitlines() if line.startswith("DCGM_FI_")]
    column = max(len(entry[0]) for entry in entries) + 2
    assert [line[column:].split(",")[0] for line in rows] == [entry[1] for entry in entries]
