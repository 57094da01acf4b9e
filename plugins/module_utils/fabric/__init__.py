# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The node's network fabric: RDMA (InfiniBand and RoCE devices, the rdma-core stack) and the RoCE
lossless class on hosts and switches.

Private to the gpufleet.cluster collection: not a public API, and it may change in any release.
"""
