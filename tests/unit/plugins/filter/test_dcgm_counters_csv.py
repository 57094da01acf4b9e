# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The dcgm_counters_csv filter: registration, result, input checks and errors with the FQCN."""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import dcgm_counters_csv as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.dcgm_counters_csv import dcgm_counters_csv

UTIL = {"name": "DCGM_FI_DEV_GPU_UTIL", "type": "gauge", "help": "GPU utilisation (in %)."}
FAN = {"name": "DCGM_FI_DEV_FAN_SPEED", "type": "gauge", "help": "Fan speed (in %)."}


def test_registered_under_its_name():
    assert plugin.FilterModule().filters() == {"dcgm_counters_csv": dcgm_counters_csv}


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
