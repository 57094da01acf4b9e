# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What playbooks/plan.yml computes, as plain data: the inventory's planning variables in (inputs), the plan
out (build), and its reports (report).

Private to the gpufleet.cluster collection: not a public API, and it may change in any release.
"""
