# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""RoCE: one lossless class (priority, DSCP, ECN, PFC watchdog) checked once and rendered for SONiC,
Cumulus NVUE and Arista EOS switches, PFC headroom, and the NIC side (roce_nic_qos).

Private to the gpufleet.cluster collection: not a public API, and it may change in any release.
"""
