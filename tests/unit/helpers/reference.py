# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Where the tests find the checkout and its recorded tool outputs: tests/fixtures, inside the repository.

The files there are byte-identical copies of real outputs (sources, commits and licences in
tests/fixtures/README.md); tests read them, never edit them. Imported by plain name (tests/unit is on
sys.path through tests/unit/conftest.py): ``from reference import outputs``.
"""
from __future__ import annotations

import os

#: The checkout's root, tests/fixtures (the one fixture root) and tests/fixtures/reference, as absolute paths.
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
FIXTURES = os.path.join(REPO, "tests", "fixtures")
REFERENCE = os.path.join(FIXTURES, "reference")


def outputs(*parts: str) -> str:
    """Absolute path under tests/fixtures/reference/outputs, e.g. ``outputs("lustre", "lfs-df-h.aws-fsx.txt")``."""
    return os.path.join(REFERENCE, "outputs", *parts)


def nccl_topology(*parts: str) -> str:
    """Absolute path under tests/fixtures/reference/nccl-topology (topology files NCCL reads or wrote)."""
    return os.path.join(REFERENCE, "nccl-topology", *parts)
