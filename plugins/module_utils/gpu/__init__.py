# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""NVIDIA GPUs on the node: NVML plumbing, facts and settings (gpu_info, gpu_settings), the record of
locked clocks, the driver's reboot reasons, and the DCGM exporter's counters.

Private to the gpufleet.cluster collection: not a public API, and it may change in any release.
"""
