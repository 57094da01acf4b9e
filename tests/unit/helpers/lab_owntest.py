# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The lab `gpufleet-owntest` as podman recorded it, for the tests of lab/ownership.py and lab/lab.py's `up`.

The records are real (tests/fixtures/lab, podman 4.3.1, 2026-11-26): the lab made by a clone at
/tmp/owntest/clone, and the same lab re-created by the checkout /work/wt/fixtures. Imported by plain name
(tests/unit/helpers is on sys.path through tests/unit/conftest.py): ``from lab_owntest import recorded``.
"""
from __future__ import annotations

import json
import os

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "fixtures", "lab")
NAME = "gpufleet-owntest"
CLONE = "/tmp/owntest/clone"
WORKTREE = "/work/wt/fixtures"
CLONE_KEY = "SHA256:E/9PrI7gMDC3St0g23Twmqdg3MK1do2I7dME4JdfOkk"
WORKTREE_KEY = "SHA256:dXhCrIktge5Ng6URpCikPeWRwIEJzexsgollryJ17yg"
# A key made with `ssh-keygen -t ed25519 -C t`; `ssh-keygen -lf` printed
# "256 SHA256:9KeUdKq1BXmMaZu5AnhBQf6tWkXY+r0sHS5DgzBt1Ho t (ED25519)" for it.
PUBLIC = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKjaODi9EsgNCHx8BmJ4LG/z8GKNYwPEa1bqcOM+47h6 t\n"
PUBLIC_FP = "SHA256:9KeUdKq1BXmMaZu5AnhBQf6tWkXY+r0sHS5DgzBt1Ho"


def recorded(which):
    """`podman inspect` of the lab's two containers as made by the "clone" or the "worktree" (a fresh copy)."""
    with open(os.path.join(FIXTURES, "podman-inspect.owntest-%s.json" % which), encoding="utf-8") as handle:
        return json.load(handle)
