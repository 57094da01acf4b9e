# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Per-module mutation scores from the mutmut results under .build/mutation/<module>/.

    python tests/mutation/scores.py [MODULE ...] [--survivors]

killed: a test failed (or timed out: the mutant looped); survived: every selected test passed;
no tests: no unit test calls the mutated function (counted as not killed).
Score = killed / (total - not yet checked).
"""
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / ".build" / "mutation"
META = "mutants/ansible_collections/gpufleet/cluster/plugins/module_utils/%s.py.meta"
KILLED = {1, 3, 36, -24, 24, 152, 255}   # mutmut's killed and timeout exit codes
SURVIVED = {0}
NO_TESTS = {5, 33}


def load(module):
    path = OUT / module / (META % module)
    for _attempt in range(5):
        if not path.is_file():
            return None
        try:
            return json.loads(path.read_text(encoding="utf-8"))["exit_code_by_key"]
        except ValueError:  # mutmut is rewriting it right now
            time.sleep(0.5)
    raise SystemExit("%s cannot be read" % path)


def main(argv):
    show = "--survivors" in argv
    modules = [a for a in argv if not a.startswith("--")]
    if not modules:
        modules = sorted(p.name for p in OUT.iterdir() if p.is_dir()) if OUT.is_dir() else []
    print("%-20s %7s %7s %8s %8s %7s %7s" % ("module", "killed", "total", "survived", "no tests", "other", "score"))
    for module in modules:
        codes = load(module)
        if codes is None:
            print("%-20s not run (python tests/mutation/run.py %s)" % (module, module))
            continue
        checked = {k: v for k, v in codes.items() if v is not None}
        killed = sum(v in KILLED for v in checked.values())
        survived = sorted(k for k, v in checked.items() if v in SURVIVED)
        no_tests = sorted(k for k, v in checked.items() if v in NO_TESTS)
        other = len(checked) - killed - len(survived) - len(no_tests)
        pending = len(codes) - len(checked)
        score = "%.1f%%" % (100.0 * killed / len(checked)) if checked else "-"
        print("%-20s %7d %7d %8d %8d %7d %7s%s" % (
            module, killed, len(checked), len(survived), len(no_tests), other, score,
            "  (%d not checked)" % pending if pending else ""))
        if show:
            for name in survived + no_tests:
                print("    %s %s" % ("survived" if name in survived else "no tests", name.rsplit(".", 1)[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
