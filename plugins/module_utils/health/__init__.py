# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""GPU node health checks: parsers and judges of what a node's tools and sysfs say.

These modules run on the nodes without Ansible (the health script imports them there): standard library only, no
import from the collection or from Ansible.

Private to the gpufleet.cluster collection: not a public API, and it may change in any release.
"""
