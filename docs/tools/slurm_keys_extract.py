# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Extract the keys Slurm's configuration parsers accept, by name and parser type, from a Slurm release's source.

    docs/tools/slurm_keys_extract.py --git-dir SLURM.git --tag slurm-23-11-4-1 > tests/fixtures/slurm-keys/slurm-23-11-4-1.json

SLURM.git is a clone (bare or not) of SchedMD/slurm. The output pins, per configuration file, every
``{"Name", S_P_TYPE[, handler]}`` row of the ``s_p_options_t`` arrays that parse it (order kept), with the tag's
commit. tests/unit/plugins/module_utils/slurm/test_keys.py checks plugins/module_utils/slurm/keys.py against
these files, so a renamed key or a changed type in the catalogue fails the unit tests. The tests read only the
pinned JSON; this script is needed only to pin another release.

Type codes as in slurm/keys.py: str, u16, u32, u64, bool, float, lines (S_P_ARRAY); ``!defunct`` when the row's
handler is ``_defunct_option`` (Slurm logs an error and ignores the value).
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from typing import Dict, List, Optional, Sequence, Tuple

TYPES = {"S_P_STRING": "str", "S_P_UINT16": "u16", "S_P_UINT32": "u32", "S_P_UINT64": "u64",
         "S_P_BOOLEAN": "bool", "S_P_FLOAT": "float", "S_P_ARRAY": "lines"}

# conf -> list of (candidate source paths (the first that exists at the tag), array name, which occurrence).
# The arrays are those named in slurm/keys.py's docstring.
LAYOUT: Dict[str, List[Tuple[Sequence[str], str, int]]] = {
    "slurm.conf": [(("src/common/read_config.c",), "slurm_conf_options", 0)],
    "slurm.conf:NodeName": [(("src/common/read_config.c",), "_nodename_options", 0)],
    "slurm.conf:PartitionName": [(("src/common/read_config.c",), "_partition_options", 0)],
    "slurmdbd.conf": [(("src/slurmdbd/read_config.c",), "options", 0)],
    "cgroup.conf": [(("src/interfaces/cgroup.c", "src/common/cgroup.c"), "options", 0)],
    "gres.conf": [(("src/interfaces/gres.c", "src/common/gres.c"), "_gres_conf_options", 0)],
    "gres.conf:line": [(("src/interfaces/gres.c", "src/common/gres.c"), "_gres_options", 0)],
    "topology.conf": [
        (("src/plugins/topology/tree/switch_record.c", "src/plugins/topology/tree/topology_tree.c"),
         "switch_options", 0),
        (("src/plugins/topology/tree/switch_record.c", "src/plugins/topology/tree/topology_tree.c"),
         "_switch_options", 0),
        (("src/plugins/topology/block/block_record.c", "src/plugins/topology/block/topology_block.c"),
         "block_options", 0),
        (("src/plugins/topology/block/block_record.c", "src/plugins/topology/block/topology_block.c"),
         "_block_options", 0),
    ],
}

_ROW = re.compile(r'\{\s*"(?P<name>[A-Za-z0-9_]+)"\s*,\s*(?P<type>S_P_[A-Z0-9_]+)\s*(?:,\s*(?P<handler>[A-Za-z0-9_]+))?')


def _git(git_dir: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "--git-dir", git_dir, *args], capture_output=True, text=True, check=False)


def _read(git_dir: str, tag: str, candidates: Sequence[str]) -> Tuple[Optional[str], Optional[str]]:
    for path in candidates:
        shown = _git(git_dir, "show", f"{tag}:{path}")
        if shown.returncode == 0:
            return path, shown.stdout
    return None, None


def array_rows(source: str, array: str, occurrence: int = 0) -> Optional[List[List[str]]]:
    """The rows of the ``occurrence``-th ``s_p_options_t ARRAY[] = { ... };`` in ``source``, or None."""
    starts = [m.end() for m in re.finditer(r"s_p_options_t\s+%s\s*\[\]\s*=\s*\{" % re.escape(array), source)]
    if len(starts) <= occurrence:
        return None
    body = source[starts[occurrence]:source.index("};", starts[occurrence])]
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    body = re.sub(r"//[^\n]*", "", body)
    rows = []
    for match in _ROW.finditer(body):
        if match.group("type") not in TYPES:
            raise SystemExit(f"{array}: unknown parser type {match.group('type')} for {match.group('name')}")
        code = TYPES[match.group("type")]
        if match.group("handler") == "_defunct_option":
            code += "!defunct"
        rows.append([match.group("name"), code])
    return rows


def extract(git_dir: str, tag: str) -> Dict[str, object]:
    commit = _git(git_dir, "rev-list", "-n", "1", tag).stdout.strip()
    if not commit:
        raise SystemExit(f"tag {tag} not found in {git_dir}")
    tables, origins = {}, {}
    for conf, parts in LAYOUT.items():
        rows: List[List[str]] = []
        for candidates, array, occurrence in parts:
            path, source = _read(git_dir, tag, candidates)
            found = array_rows(source, array, occurrence) if source is not None else None
            if found is None:
                if conf == "topology.conf" and "block" in candidates[0]:
                    continue  # topology/block came with 23.11
                raise SystemExit(f"{tag}: no {array}[] in {', '.join(candidates)}")
            rows.extend(found)
            origins.setdefault(conf, []).append(f"{path} {array}[]")
        tables[conf] = rows
    return {"source": "SchedMD/slurm", "tag": tag, "commit": commit, "arrays": origins, "tables": tables}


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--git-dir", required=True)
    parser.add_argument("--tag", required=True)
    args = parser.parse_args(argv)
    json.dump(extract(args.git_dir, args.tag), sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
