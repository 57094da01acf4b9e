# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""`make mutation`: mutmut 3 over the engineering core in plugins/module_utils, one module at a time.

The tests import the code as ``ansible_collections.gpufleet.cluster.plugins.module_utils.X`` and mutmut
names a mutant after the file's path, so each module runs in its own staging tree
``.build/mutation/<module>/`` whose layout makes that path the import path::

    ansible_collections/gpufleet/cluster/plugins   copy of plugins/ (mutmut copies it into mutants/)
    ansible_collections/gpufleet/cluster/tests     copy of tests/   (also_copy)
    mutants/ansible_collections/gpufleet/cluster/  the tree the tests import: mutated plugins, tests,
        collections/ansible_collections/gpufleet/cluster -> ../../..  (as in the checkout), and links
        to every other top-level entry of the checkout (roles, inventories, docs, ...) for tests that read them.

Tests per module: every unit test file that imports the module or a plugin using it (grep); mutmut then runs, for each
mutant, only the tests that called the mutated function (its trampoline records the calls).

    python tests/mutation/run.py [MODULE ...]     default: all of CORE
    python tests/mutation/run.py --recheck MODULE  rerun only the last run's survivors (after adding tests)
    python tests/mutation/run.py --resume MODULE   go on with a run that was stopped: keep the staging tree and the
                                                   mutants already decided, run the rest (mutmut run with no names)
    python tests/mutation/scores.py               per-module killed/total/score

--recheck and --resume need the staged module to equal plugins/module_utils/<module>.py (else they stop and say to run
it whole); both refresh tests/ and setup.cfg. --resume keeps the staged test selection: mutmut resets every result
when pytest_add_cli_args_test_selection changes, so test files added since the run started join at the next --recheck.

A run may be paused (kill -STOP / -CONT on its process group) or starved of CPU: mutmut's limit is CPU seconds
(RLIMIT_CPU, 3 x the tests' time + 10 s), but it also sends SIGXCPU after a wall-clock time of the same size, which
a pause or a loaded machine would turn into false "timeout" kills. mutmut therefore runs through
tests/mutation/mutmut_cpu_limit.py, which stretches that wall-clock backstop to MUTATION_WALL_S (default 3600 s); the
unit tests' own conftest.py (copied into the staging tree) runs hypothesis without its timing checks, so a mutant is
judged by what the tests assert, never by how long an example took.
"""
import configparser
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / ".build" / "mutation"
PKG = Path("ansible_collections/gpufleet/cluster")
# The engineering core (issue 17), smallest first.
CORE = [
    "hostlist", "munge_key", "validate_expect", "pfc_headroom", "roce_qos", "pci_sysfs",
    "lustre_layout_parse", "lustre_layout", "lustre_striping", "power_model", "power_layout", "power",
    "nccl_topology", "slurm_keys", "slurm_conf",
]
SKIP_TOP = {"plugins", "tests", "collections", ".build", ".git", ".venv", ".hypothesis", ".pytest_cache"}


def _imports(kind, name):
    """A regex for the spellings that import plugins/<kind>/<name>.py (tests and plugins alike)."""
    k, n = re.escape(kind), re.escape(name)
    return re.compile(r"plugins\.%s\.%s\b|plugins\.%s import [^\n]*\b%s\b|plugins\.%s import \(\s*[^)]*\b%s\b"
                      % (k, n, k, n, k, n))


def users(module):
    """(kind, name) of the module and of every plugin that imports it, directly or through another plugin."""
    plugins = {(p.parent.name, p.stem): p.read_text(encoding="utf-8")
               for kind in ("module_utils", "filter", "modules")
               for p in sorted((ROOT / "plugins" / kind).glob("*.py")) if p.stem != "__init__"}
    found, todo = {("module_utils", module)}, [("module_utils", module)]
    while todo:
        pattern = _imports(*todo.pop())
        for key, text in plugins.items():
            if key not in found and pattern.search(text):
                found.add(key)
                todo.append(key)
    return found


def tests_for(module):
    """Unit test files that import the module, or a plugin that uses it (a filter, a module, another module_utils):
    mutmut runs, for each mutant, only those of them that called the mutated function."""
    patterns = [_imports(kind, name) for kind, name in sorted(users(module))]
    found = []
    for path in sorted((ROOT / "tests" / "unit").rglob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        if any(p.search(text) for p in patterns):
            found.append(str(PKG / path.relative_to(ROOT)))
    return found


def copytree(src, dst):
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis"))


def staged_selection(work):
    """The test files of the staged setup.cfg (the selection the kept results were decided with)."""
    config = configparser.ConfigParser()
    config.read(work / "setup.cfg", encoding="utf-8")
    return config.get("mutmut", "pytest_add_cli_args_test_selection", fallback="").split()


def stage(module, keep=None):
    """A fresh tree (cached mutants of an older checkout would be reported as current); with keep ("recheck" or
    "resume"), only the tests and the configuration are refreshed and the mutants and their results are kept
    (resume also keeps the staged test selection, see the module's docstring)."""
    work = OUT / module
    tests = tests_for(module)
    if not tests:
        sys.exit("no unit test imports plugins/module_utils/%s.py" % module)
    if keep:
        staged = work / PKG / "plugins" / "module_utils" / (module + ".py")
        source = ROOT / "plugins" / "module_utils" / (module + ".py")
        if not staged.is_file() or staged.read_bytes() != source.read_bytes():
            sys.exit("%s changed since its last run (or never ran): run it whole, python tests/mutation/run.py %s"
                     % (source.relative_to(ROOT), module))
        copytree(ROOT / "tests", work / PKG / "tests")
        if keep == "resume":
            kept = staged_selection(work)
            gone = [t for t in kept if not (work / t).is_file()]
            if not kept or gone:
                sys.exit("cannot resume %s: its staged test selection %s (run it whole, python tests/mutation/run.py"
                         " %s)" % (module, "lists removed files: " + " ".join(gone) if gone else "is missing", module))
            added = sorted(set(tests) - set(kept))
            if added:
                print("   resume keeps the run's test selection; added since, for the next --recheck: %s"
                      % " ".join(t.split("tests/unit/", 1)[1] for t in added), flush=True)
            tests = kept
        write_config(work, module, tests)
        return work, tests
    shutil.rmtree(work, ignore_errors=True)
    copytree(ROOT / "plugins", work / PKG / "plugins")
    copytree(ROOT / "tests", work / PKG / "tests")
    mutated = work / "mutants" / PKG
    link = mutated / "collections" / PKG
    link.parent.mkdir(parents=True)
    link.symlink_to(Path("../../.."))
    for entry in ROOT.iterdir():
        if entry.name not in SKIP_TOP:
            (mutated / entry.name).symlink_to(entry)
    write_config(work, module, tests)
    return work, tests


def write_config(work, module, tests):
    def lines(items):
        return "".join("\n    %s" % i for i in items)
    (work / "setup.cfg").write_text(
        "[mutmut]\n"
        "source_paths = %s\n" % (PKG / "plugins")
        + "only_mutate = %s\n" % (PKG / "plugins" / "module_utils" / (module + ".py"))
        + "also_copy = %s\n" % (PKG / "tests")
        + "pytest_add_cli_args_test_selection =%s\n" % lines(tests)
        + "pytest_add_cli_args =%s\n" % lines(["-p", "no:cacheprovider", "-x", "-q"])
        # mutmut's limit is CPU seconds: 15 x the tests' time by default, minutes for a mutant that loops
        # (hostlist's compress loop). 3 x + 10 s still leaves a loaded machine room for the honest runs.
        + "timeout_multiplier = 3.0\ntimeout_constant = 10.0\n"
        + "\n[tool:pytest]\n"
        "addopts = --strict-markers\n",
        encoding="utf-8")


def survivors(module):
    """Names of the mutants no test killed in the last run of the module."""
    sys.path.insert(0, str(ROOT / "tests" / "mutation"))
    import scores
    codes = scores.load(module) or {}
    return sorted(k for k, v in codes.items() if v in scores.SURVIVED | scores.NO_TESTS)


def meta_path(work, module):
    return work / "mutants" / PKG / "plugins" / "module_utils" / (module + ".py.meta")


def meta_codes(work, module):
    path = meta_path(work, module)
    return json.loads(path.read_text(encoding="utf-8"))["exit_code_by_key"] if path.is_file() else {}


def keep_earlier_results(work, module, before):
    """mutmut run NAME... marks every mutant it was not given as not checked: put back their earlier results."""
    path = meta_path(work, module)
    meta = json.loads(path.read_text(encoding="utf-8"))
    codes = meta["exit_code_by_key"]
    for key, code in before.items():
        if codes.get(key) is None and code is not None:
            codes[key] = code
    path.write_text(json.dumps(meta), encoding="utf-8")


def main(argv):
    recheck = "--recheck" in argv
    resume = "--resume" in argv
    if recheck and resume:
        sys.exit("--recheck and --resume do not go together")
    argv = [a for a in argv if a not in ("--recheck", "--resume")]
    modules = argv or CORE
    unknown = [m for m in modules if not (ROOT / "plugins" / "module_utils" / (m + ".py")).is_file()]
    if unknown:
        sys.exit("unknown module(s): %s (plugins/module_utils/<name>.py)" % ", ".join(unknown))
    jobs = os.environ.get("MUTATION_JOBS", "2")
    failed = []
    for module in modules:
        work, tests = stage(module, "recheck" if recheck else "resume" if resume else None)
        names = survivors(module) if recheck else []
        before = meta_codes(work, module)
        if recheck and not names:
            print("== mutation: %s has no survivor to recheck" % module)
            continue
        print("== mutation: %s against %d test file(s): %s" % (module, len(tests), " ".join(
            t.split("tests/unit/", 1)[1] for t in tests)), flush=True)
        log_name = "mutmut-recheck.log" if recheck else "mutmut-resume.log" if resume else "mutmut.log"
        with open(work / log_name, "w", encoding="utf-8") as log:
            mutmut = [sys.executable, str(ROOT / "tests" / "mutation" / "mutmut_cpu_limit.py")]
            rc = subprocess.call(["nice", "-n", "19"] + mutmut + ["run", "--max-children", jobs] + names,
                                 cwd=work, stdout=log, stderr=subprocess.STDOUT)
        if recheck:
            keep_earlier_results(work, module, before)
        if rc:
            failed.append(module)
            print("   mutmut exited %d, see %s" % (rc, work / log_name), flush=True)
        subprocess.call([sys.executable, str(ROOT / "tests" / "mutation" / "scores.py"), module])
    subprocess.call([sys.executable, str(ROOT / "tests" / "mutation" / "scores.py")] + modules)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
