# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the validate filters' tests share: the reference hardware (8 x H100, 200 Gb/s InfiniBand, 8 OSTs), the
recorded outputs, bad expectations and texts that are no tool's output."""
from __future__ import annotations

import os

from reference import outputs

_OUT = outputs()
# The reference node: 8 x H100 80GB, 8 HCAs on 200 Gb/s InfiniBand, Lustre of 8 OSTs at 10 GB/s each.
HARDWARE = {"gpufleet_fabric": {"kind": "infiniband", "rate_gbps": 200},
            "gpufleet_hardware": {"gpus": 8, "gpu_model": "H100-SXM5-80GB", "rdma_hcas": 8, "lustre_servers": True},
            "gpufleet_lustre": {"osts": 8, "oss": 4}, "gpufleet_plan_lustre": {"ost_bw_gbs": 10.0},
            "gpu_tuning_profiles": {"NVIDIA H100 80GB HBM3": {"power_limit_w": 700,
                                                              "application_clocks": [2619, 1980]}}}
# Expectations no validate_expect returns: a threshold that is no number, NaN or None, an unknown comparison.
BAD_EXPECT = [{"applicable": True, "value": "x", "compare": ">="}, {"applicable": True, "value": None, "compare": ">="},
              {"applicable": True, "value": float("nan"), "compare": ">="},
              {"applicable": True, "value": 1, "compare": "~"}, {"value": 1}, "x", [1], 5]
# Inputs that are no tool's output: other types, empty text, garbage, a header without results, a NaN result.
TEXTS = [None, 5, b"bytes", ["x"], {"x": 1}, "", "\n", "garbage\x00\n",
         "#  Rank  0 Group  0 Pid 1 on n1 device 0 [x]\n", "# Avg bus bandwidth    : nan\n"]


def reference_output(*parts):
    """A recorded tool output under tests/fixtures/reference/outputs."""
    with open(os.path.join(_OUT, *parts), encoding="utf-8") as handle:
        return handle.read()
