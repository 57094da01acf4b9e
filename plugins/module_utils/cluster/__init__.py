# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The cluster description: what every node's layers need to know about the other hosts (addresses, the /etc/hosts
block, Slurm's node, partition, gres and topology lines, the RoCE host sides), computed once per run in linear time
from the few variables each host sets (docs/cluster-description.md).

Private to the gpufleet.cluster collection: not a public API, and it may change in any release.
"""
