# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Per-module mutation scores from the mutmut results under .build/mutation/<package>.<module>/.

    python tests/mutation/scores.py [MODULE ...] [--survivors]      MODULE: slurm/hostlist (mutation_names.py)

killed: a test failed (or timed out: the mutant looped); survived: every selected test passed;
no tests: no unit test calls the mutated function (counted as not killed).
Score = killed / (total - not yet checked). With no MODULE, every staging tree under .build/mutation is shown; one
that names no module of plugins/module_utils (a run of an older layout, e.g. .build/mutation/hostlist) is listed as
such, to be removed.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mutation_names as names  # noqa: E402  pylint: disable=wrong-import-position

OUT = names.OUT
KILLED = {1, 3, 36, -24, 24, 152, 255}   # mutmut's killed and timeout exit codes
SURVIVED = {0}
NO_TESTS = {5, 33}


def load(module: str) -> Optional[Dict[str, Optional[int]]]:
    """mutmut's exit code by mutant name from the module's last run (None: not run)."""
    path = names.meta(OUT / names.staging_name(module), module)
    for _attempt in range(5):
        if not path.is_file():
            return None
        try:
            return json.loads(path.read_text(encoding="utf-8"))["exit_code_by_key"]
        except ValueError:  # mutmut is rewriting it right now
            time.sleep(0.5)
    raise SystemExit("%s cannot be read" % path)


def staged_modules(out: Optional[Path] = None) -> List[str]:
    """The module of each staging tree under out, by name (slurm.hostlist -> slurm/hostlist); a folder whose name is
    no module name is kept as it is (main lists it as not a module)."""
    out = out or OUT
    found = []
    for path in sorted(out.iterdir()) if out.is_dir() else []:
        if path.is_dir():
            try:
                found.append(names.canonical(path.name))
            except ValueError:
                found.append(path.name)
    return sorted(found)


def main(argv: List[str]) -> int:
    show = "--survivors" in argv
    args = [a for a in argv if not a.startswith("--")]
    unknown = names.unknown(args)
    if unknown:
        sys.exit("unknown module(s): %s" % "; ".join("%s: %s" % kv for kv in unknown.items()))
    modules = [names.canonical(a) for a in args] or staged_modules()
    width = max([24] + [len(m) for m in modules])
    print("%-*s %7s %7s %8s %8s %7s %7s" % (width, "module", "killed", "total", "survived", "no tests", "other",
                                            "score"))
    for module in modules:
        if not names.source(module).is_file():
            print("%-*s no %s: results of an older layout, remove %s" % (
                width, module, names.relative_source(module), OUT / names.staging_name(module)))
            continue
        codes = load(module)
        if codes is None:
            print("%-*s not run (python tests/mutation/run.py %s)" % (width, module, module))
            continue
        checked = {k: v for k, v in codes.items() if v is not None}
        killed = sum(v in KILLED for v in checked.values())
        survived = sorted(k for k, v in checked.items() if v in SURVIVED)
        no_tests = sorted(k for k, v in checked.items() if v in NO_TESTS)
        other = len(checked) - killed - len(survived) - len(no_tests)
        pending = len(codes) - len(checked)
        score = "%.1f%%" % (100.0 * killed / len(checked)) if checked else "-"
        print("%-*s %7d %7d %8d %8d %7d %7s%s" % (
            width, module, killed, len(checked), len(survived), len(no_tests), other, score,
            "  (%d not checked)" % pending if pending else ""))
        if show:
            for name in survived + no_tests:
                print("    %s %s" % ("survived" if name in survived else "no tests", name.rsplit(".", 1)[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
