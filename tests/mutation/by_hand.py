# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Check mutants of a staged module by hand: `MUTANT_UNDER_TEST=<name> pytest TESTS`, in one process.

    python tests/mutation/by_hand.py MODULE {survivors|unchecked|NAME ...} -- TEST_FILE ...

MODULE as for run.py (fabric/roce/qos); TEST_FILE is a path under tests/unit (e.g.
plugins/module_utils/fabric/roce/test_qos_mutants.py); the current files of the
checkout are copied into the staging tree's mutants/ first (the staged module must equal the checkout's, as for
run.py --recheck). "survivors" takes the last mutmut run's survivors, "unchecked" the mutants that run has not
decided. Prints one line per mutant: "killed NAME" (a test failed), "ALIVE NAME" (every test passed) or
"timeout NAME" (over MUTATION_CPU_S CPU seconds, default 120, counted as killed), then the totals.

The verdicts are not written into mutmut's results (make mutation-scores shows mutmut's own); docs/testing.md says
which figures were counted this way. pytest runs in this process once per mutant (mutmut's trampoline reads
MUTANT_UNDER_TEST at each call), so a mutant costs only its tests' time; the files are imported once, so a test file
changed during the run is not seen.
"""
from __future__ import annotations

import contextlib
import io
import os
import shutil
import signal
import sys
from pathlib import Path
from typing import List

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "mutation"))
import mutation_names as names  # noqa: E402  pylint: disable=wrong-import-position
import run as mutation_run  # noqa: E402  pylint: disable=wrong-import-position
import scores  # noqa: E402  pylint: disable=wrong-import-position

CPU_S = int(os.environ.get("MUTATION_CPU_S", "120"))


class CpuLimit(Exception):
    """A mutant's tests used more than CPU_S CPU seconds (it loops)."""


def _over_limit(_signum, _frame):
    raise CpuLimit("over %d CPU seconds" % CPU_S)


def names_for(module: str, which: List[str]) -> List[str]:
    codes = scores.load(module) or {}
    if which == ["survivors"]:
        return sorted(k for k, v in codes.items() if v in scores.SURVIVED | scores.NO_TESTS)
    if which == ["unchecked"]:
        return sorted(k for k, v in codes.items() if v is None)
    prefix = names.mutant_prefix(module)
    return [n if n.startswith(prefix) else prefix + n for n in which]


def main(argv):
    if "--" not in argv or len(argv) < 4:
        sys.exit(__doc__)
    cut = argv.index("--")
    module, which, tests = mutation_run.modules_of(argv[:1])[0], argv[1:cut], argv[cut + 1:]
    work = names.OUT / names.staging_name(module)
    staged = names.staged(work, module)
    if not staged.is_file() or staged.read_bytes() != names.source(module).read_bytes():
        sys.exit("%s changed since its last run (or never ran)" % names.relative_source(module))
    chosen = names_for(module, which)
    mutants = work / "mutants"
    paths = []
    for test in tests:
        target = mutants / names.PKG / "tests" / "unit" / test
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / "tests" / "unit" / test, target)
        paths.append(str(target.relative_to(mutants)))
    os.chdir(mutants)
    sys.path.insert(0, str(mutants))
    import pytest  # pylint: disable=import-outside-toplevel
    signal.signal(signal.SIGVTALRM, _over_limit)
    totals = {}
    for name in chosen:
        os.environ["MUTANT_UNDER_TEST"] = name
        output = io.StringIO()
        signal.setitimer(signal.ITIMER_VIRTUAL, CPU_S)
        try:
            with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
                code = int(pytest.main(["-q", "-x", "-p", "no:cacheprovider", "-W", "ignore"] + paths))
            verdict = {0: "ALIVE", 1: "killed"}.get(code, "error%d" % code)
        except CpuLimit:
            verdict = "timeout"
        finally:
            signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        if "over %d CPU seconds" % CPU_S in output.getvalue():
            verdict = "timeout"
        totals[verdict] = totals.get(verdict, 0) + 1
        print("%s %s" % (verdict, name.rsplit(".", 1)[1]), flush=True)
    print("== %s: %d mutants, %s" % (module, len(chosen), ", ".join("%s %d" % kv for kv in sorted(totals.items()))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
