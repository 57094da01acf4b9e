# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The plan's reports: the Markdown ones (markdown: power.md, lustre.md, hostlists.md, README.md) and the HTML
one (report.html): the page, its power, budget, Lustre, NCCL and Slurm sections and their SVG pictures.

Private to the gpufleet.cluster collection: not a public API, and it may change in any release.
"""
