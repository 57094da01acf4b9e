# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""slurm.conf: the settings checked against the installed release's key catalogue (settings), the nodes,
partitions and gres (nodes), and what the values mean (values: units, limits, keys that contradict each other).

Private to the gpufleet.cluster collection: not a public API, and it may change in any release.
"""
