# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""GPU node health: the checks the Prolog, the Epilog and the periodic health check run on the nodes.

These modules are shipped to the nodes and imported there by the health script, without Ansible: they use the
Python standard library only and import nothing from the collection or from Ansible.

Private to the gpufleet.cluster collection: not a public API, and it may change in any release.
"""
