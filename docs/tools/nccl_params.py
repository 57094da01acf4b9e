# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Derive the NCCL parameter catalogue (plugins/module_utils/nccl/params.py) from a clone of NVIDIA/nccl.

    python docs/tools/nccl_params.py /path/to/nccl.git v2.27.7-1 v2.28.9-1 v2.29.7-1

For each tag, every C/C++/CUDA file under src/ (not the bundled DOCA GPUNetIO sources, which read their own
DOCA_* variables) is read with `git show` and two things are collected:

* `NCCL_PARAM(Name, "ENV", default)`: the macro (src/include/param.h) reads the variable "NCCL_" "ENV";
* every string literal "NCCL_[A-Z0-9_]+": the names handed to ncclGetEnv()/getenv() directly (NCCL_DEBUG,
  NCCL_TOPO_FILE, NCCL_IB_HCA ...) or through a helper (ncclGetLevel(..., "NCCL_P2P_LEVEL"), getNthreads).

The result is printed as the Python dict the module holds. The unit tests never run this script.
"""
from __future__ import annotations

import re
import subprocess
import sys

_PARAM = re.compile(r'NCCL_PARAM\(\s*\w+\s*,\s*"([A-Z0-9_]+)"')
_LITERAL = re.compile(r'"(NCCL_[A-Z0-9_]+)"')
_SOURCES = (".cc", ".cu", ".h", ".cpp", ".hpp", ".c")


def _git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", repo] + list(args), check=True, capture_output=True,
                          text=True, errors="replace").stdout


def names(repo: str, tag: str) -> set:
    found = set()
    for path in _git(repo, "ls-tree", "-r", "--name-only", tag, "src").splitlines():
        if not path.endswith(_SOURCES) or "/doca-gpunetio/" in path:
            continue
        text = _git(repo, "show", "%s:%s" % (tag, path))
        found.update("NCCL_" + name for name in _PARAM.findall(text))
        found.update(_LITERAL.findall(text))
    return found


def main(argv) -> int:
    repo, tags = argv[1], argv[2:]
    print("PARAMETERS = {")
    for tag in tags:
        commit = _git(repo, "rev-parse", tag + "^{commit}").strip()
        version = ".".join(tag.lstrip("v").split("-")[0].split(".")[:2])
        found = sorted(names(repo, tag))
        print("    # %s (%s): %d names" % (tag, commit, len(found)))
        print('    "%s": frozenset("""' % version)
        line = "       "
        for name in found:
            if len(line) + len(name) + 1 > 116:
                print(line)
                line = "       "
            line += " " + name
        print(line)
        print('    """.split()),')
    print("}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
