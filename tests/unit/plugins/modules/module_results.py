# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reading a module's result in tests."""


def warnings(result):
    """Warning texts; ansible-core 2.19 returns each as a structured summary, older releases as a string."""
    return [w["event"]["msg"] if isinstance(w, dict) else w for w in result.get("warnings", [])]
