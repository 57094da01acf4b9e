# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The dcgm_counters_csv filter: registration, result, input checks and errors with the FQCN; its input rules
(issue 13): no name, help or section title adds a CSV record of its own, and what is written reads back, as
dcgm-exporter reads it, as exactly the rows given."""
from __future__ import annotations

import csv
import io

import pytest
from ansible.errors import AnsibleFilterError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.filter import dcgm_counters_csv as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.dcgm_counters_csv import dcgm_counters_csv
from filter_docs import assert_documented
from nasty_input import hostile_text, near_valid


UTIL = {"name": "DCGM_FI_DEV_GPU_UTIL", "type": "gauge", "help": "GPU utilisation (in %)."}
FAN = {"name": "DCGM_FI_DEV_FAN_SPEED", "type": "gauge", "help": "Fan speed (in %)."}


def test_registered_and_documented():
    assert_documented(plugin, "dcgm_counters_csv")


def test_result():
    # Longest name DCGM_FI_DEV_FAN_SPEED = 21 characters: names + comma padded to 22, then one space.
    result = dcgm_counters_csv([UTIL], [FAN], "dcgm_exporter_metrics", "dcgm_exporter_extra_metrics")
    assert result["count"] == 2 and result["names"] == ["DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FAN_SPEED"]
    assert result["profiling"] == [] and result["labels"] == []
    assert result["content"].endswith(
        "# dcgm_exporter_metrics\n"
        "DCGM_FI_DEV_GPU_UTIL,  gauge,   GPU utilisation (in %).\n"
        "\n"
        "# dcgm_exporter_extra_metrics\n"
        "DCGM_FI_DEV_FAN_SPEED, gauge,   Fan speed (in %).\n")
    assert dcgm_counters_csv([UTIL])["content"] == dcgm_counters_csv([UTIL], None)["content"]


def test_bad_entry_is_named_with_the_filter_fqcn():
    with pytest.raises(AnsibleFilterError) as info:
        dcgm_counters_csv([UTIL], [FAN, {"name": "DCGM_FI_DEV_X", "type": "histogram", "help": "x"}],
                          "dcgm_exporter_metrics", "dcgm_exporter_extra_metrics")
    assert str(info.value) == (
        "gpufleet.cluster.dcgm_counters_csv: dcgm_exporter_extra_metrics[1] (DCGM_FI_DEV_X): type 'histogram' must "
        "be one of gauge, counter, label (dcgm-exporter refuses any other); fix the type")


@pytest.mark.parametrize("args, words", [
    (({"name": "DCGM_FI_DEV_GPU_UTIL"},), ["input must be a list", "dict"]),
    (([UTIL], "DCGM_FI_DEV_FAN_SPEED"), ["extra must be a list", "str"]),
    (([UTIL], [], ""), ["metrics_name must be a non-empty string"]),
    (([UTIL], [], "m", 3), ["extra_name must be a non-empty string"]),
    (([UTIL], [UTIL]), ["extra[0] (DCGM_FI_DEV_GPU_UTIL) repeats metrics[0]"]),
])
def test_input_checks(args, words):
    with pytest.raises(AnsibleFilterError) as info:
        dcgm_counters_csv(*args)
    assert str(info.value).startswith("gpufleet.cluster.dcgm_counters_csv: ")
    for word in words:
        assert word in str(info.value)


# ---------------------------------------------------------------- issue 13: input rules
def entry(**changes):
    out = dict(UTIL)
    out.update(changes)
    return out


def refused(match, *args):
    with pytest.raises(AnsibleFilterError, match=match) as info:
        dcgm_counters_csv(*args)
    assert str(info.value).startswith("gpufleet.cluster.dcgm_counters_csv: ")


def read_like_dcgm_exporter(text):
    """Go's encoding/csv as dcgm-exporter sets it up (Comment '#', strict quotes), fields trimmed of ' '."""
    body = "\n".join(line for line in text.split("\n") if not line.startswith("#"))
    rows = [[field.strip(" ") for field in row] for row in csv.reader(io.StringIO(body), strict=True) if row]
    assert all(len(row) == 3 for row in rows)
    return rows


@pytest.mark.parametrize("name", ["DCGM_FI_DEV_GPU_UTIL\n", "DCGM_FI_DEV_GPU_UTIL\nDCGM_FI_DEV_FAN_SPEED",
                                  " DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_GPU_UTIL,", "dcgm_fi_dev_gpu_util"])
def test_a_name_that_would_add_a_record_is_refused(name):
    refused(r"metrics\[0\]: name .* must match \^DCGM_FI_\[A-Z0-9_\]\+\$", [entry(name=name)])


@pytest.mark.parametrize("help_", ["GPU utilisation\nDCGM_FI_DEV_FAN_SPEED, gauge, fan", "GPU utilisation\n",
                                   "a\rb", "tab\there", "nul\x00", "ls\u2028", "nel\u0085"])
def test_a_help_with_a_control_character_is_refused(help_):
    refused(r"metrics\[0\] \(DCGM_FI_DEV_GPU_UTIL\): help .* contains the control character .* allowed: one line of "
            r"printable text without ',' or '\"'", [entry(help=help_)])


@pytest.mark.parametrize("help_, what", [("a, b", "a comma"), ('say "hi"', "a double quote")])
def test_a_help_with_a_comma_or_quote_is_refused(help_, what):
    refused("contains %s, which dcgm-exporter's CSV reader would split or refuse" % what, [entry(help=help_)])


@pytest.mark.parametrize("title", ["metrics\nDCGM_FI_DEV_FAN_SPEED, gauge, fan", "", " ", 5, None, "x\x1b"])
def test_a_section_title_that_would_add_a_record_is_refused(title):
    refused(r"metrics_name (.* is written as a '# \.\.\.' comment line; allowed: non-empty printable text|must be a "
            r"non-empty string, got)", [UTIL], [], title)


@pytest.mark.parametrize("args", [
    (None,), ("x",), ({"name": "DCGM_FI_DEV_GPU_UTIL"},), ([None],), ([[1]],), ([entry(type=["gauge"])],),
    ([entry(type={"a": 1})],), ([entry(help=5)],), ([entry(name=5)],), ([UTIL], "x"), ([UTIL], [5]),
    ([UTIL], None, None), ([UTIL], None, "m", ["e"]), ([{1: 2}],), ([],),
])
def test_wrong_types_are_clear_errors(args):
    with pytest.raises(AnsibleFilterError, match="^gpufleet.cluster.dcgm_counters_csv: "):
        dcgm_counters_csv(*args)


_NAMES = st.from_regex(r"DCGM_FI_[A-Z0-9_]{1,20}", fullmatch=True)
_ENTRIES = st.fixed_dictionaries({
    "name": st.one_of(_NAMES, near_valid(_NAMES)),
    "type": st.sampled_from(["gauge", "counter", "label", "gauge\n", "histogram"]),
    "help": st.one_of(hostile_text(min_size=1), st.text(min_size=1, max_size=30)),
})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_ENTRIES, min_size=1, max_size=5), st.lists(_ENTRIES, max_size=3),
       st.one_of(st.just("dcgm_exporter_metrics"), hostile_text(min_size=1)))
def test_property_rows_read_back_exactly(metrics, extra, title):
    try:
        result = dcgm_counters_csv(metrics, extra, title, "extra")
    except AnsibleFilterError as exc:
        assert str(exc).startswith("gpufleet.cluster.dcgm_counters_csv: ")
        return
    rows = read_like_dcgm_exporter(result["content"])
    assert rows == [[e["name"], e["type"], e["help"].strip(" ")] for e in metrics + extra]
    assert result["names"] == [e["name"] for e in metrics + extra]
