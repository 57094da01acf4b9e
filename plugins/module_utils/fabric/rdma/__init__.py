# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""RDMA devices and the rdma-core / DOCA-OFED stack: sysfs and tool output parsers (rdma_info), the
stack plan, IPoIB and memlock checks.

Private to the gpufleet.cluster collection: not a public API, and it may change in any release.
"""
