# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What every module of the lab (lab/*.py) uses: the checkout's paths, its messages, and podman.

The lab's modules import each other by plain name, as `python3 lab/lab.py` runs them (lab/ first on the path).
They import log and die by name, and call `common.podman(...)`, `common.lab_containers(...)` and read the paths
(`common.ROOT`, `common.STATE_DIR`) through this module, so that a test replaces those in one place.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Dict, List, NoReturn

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
STATE_DIR = os.path.join(ROOT, ".lab")
DEFAULT_INVENTORY = os.path.join(ROOT, "inventories", "lab")


def log(msg: str) -> None:
    print(f"lab: {msg}", flush=True)


def die(msg: str) -> NoReturn:
    print(f"lab: error: {msg}", file=sys.stderr, flush=True)
    sys.exit(1)


def podman(*args: str, check: bool = True, capture: bool = True, stdin=None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.setdefault("CONTAINERS_CONF", os.path.join(HERE, "containers.conf"))
    proc = subprocess.run(["podman", *args], env=env, check=False, text=True, stdin=stdin,
                          stdout=subprocess.PIPE if capture else None,
                          stderr=subprocess.PIPE if capture else None)
    if check and proc.returncode != 0:
        die(f"podman {' '.join(args)} failed (exit {proc.returncode}): {(proc.stderr or '').strip()}")
    return proc


def lab_containers(name: str) -> List[Dict]:
    out = podman("ps", "-a", "--filter", f"label=gpufleet.lab={name}", "--format", "json").stdout
    return json.loads(out or "[]")
