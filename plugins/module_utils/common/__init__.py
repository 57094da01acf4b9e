# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The collection's shared rules: the input rules every value passes before it reaches a file, unit,
command, SQL or path; the file rules; the one set of refusal helpers (naming a value, type checks,
unknown keys); the modules' one command runner.

Private to the gpufleet.cluster collection: not a public API, and it may change in any release.
"""
