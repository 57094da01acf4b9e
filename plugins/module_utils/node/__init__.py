# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the node_state module reads on a node, parsed: the operating system (``os_release``: what
``ansible.builtin.setup``'s minimal subset says of the distribution, the kernel and the architecture), the
addresses (``addresses``: ``ip -j addr``), small files (``contents``) and systemd units (``units``).

Private to the gpufleet.cluster collection: not a public API, and it may change in any release.
"""
