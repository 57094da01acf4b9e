# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The lab's modules (lab/*.py) import each other by plain name, as `python3 lab/lab.py` runs them with lab/ first
on the path: their tests import them the same way (`import ownership`)."""
from __future__ import annotations

import os
import sys

LAB = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))), "lab")
if LAB not in sys.path:
    sys.path.insert(0, LAB)
