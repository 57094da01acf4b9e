# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""`make mutation`: mutmut 3 over the engineering core in plugins/module_utils, one module at a time.

A module is named by its path under plugins/module_utils without .py (``slurm/hostlist``, tests/mutation/
mutation_names.py). The tests import the code as
``ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist`` and mutmut names a mutant after the
file's path, so each module runs in its own staging tree ``.build/mutation/slurm.hostlist/`` (a flat name) whose
layout makes that path the import path::

    ansible_collections/gpufleet/cluster/plugins   copy of plugins/ (mutmut copies it into mutants/)
    ansible_collections/gpufleet/cluster/tests     copy of tests/   (also_copy)
    mutants/ansible_collections/gpufleet/cluster/  the tree the tests import: mutated plugins, tests,
        collections/ansible_collections/gpufleet/cluster -> ../../..  (as in the checkout), and links
        to every other top-level entry of the checkout (roles, inventories, docs, pytest.ini, ...) for tests
        that read them.

Tests per module: every unit test file that imports the module, a plugin using it (any file under plugins/, directly
or through another plugin) or a test helper of tests/unit/helpers that imports one of those (grep); mutmut then runs,
for each mutant, only the tests that called the mutated function (its trampoline records the calls).

    python tests/mutation/run.py [MODULE ...]     default: all of CORE
    python tests/mutation/run.py --recheck MODULE  rerun only the last run's survivors (after adding tests)
    python tests/mutation/run.py --resume MODULE   go on with a run that was stopped: keep the staging tree and the
                                                   mutants already decided, run the rest (mutmut run with no names)
    python tests/mutation/scores.py               per-module killed/total/score

A name that is no module (a file not there, an old flat name such as ``hostlist``) stops the run before anything
starts, every such name listed with the module it may mean: none is skipped.

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
from __future__ import annotations

import configparser
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable, Dict, List, Optional, Pattern, Set, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mutation_names as names  # noqa: E402  pylint: disable=wrong-import-position

ROOT = names.ROOT
OUT = names.OUT
PKG = names.PKG
# The engineering core (issue 17), smallest first; the paths of issue 26's packages.
CORE = [
    "slurm/hostlist", "slurm/munge_key", "validate/expect", "fabric/roce/pfc_headroom", "fabric/roce/qos",
    "nccl/pci_sysfs", "lustre/layout_parse", "lustre/layout", "lustre/striping", "power/model", "power/layout",
    "power/scenarios", "nccl/values", "nccl/topology", "slurm/keys", "slurm/conf/settings", "slurm/conf/nodes",
]
SKIP_TOP = {"plugins", "tests", "collections", ".build", ".git", ".venv", ".hypothesis", ".pytest_cache"}


def _plugins(root: Path) -> Dict[str, str]:
    """The text of every Python file under plugins/ (filters, modules, module_utils, plugin_utils, ...) by its dotted
    path (plugins.filter.hostlist_expand)."""
    return {".".join(p.relative_to(root).with_suffix("").parts): p.read_text(encoding="utf-8")
            for p in sorted((root / "plugins").rglob("*.py"))
            if p.name != "__init__.py" and "__pycache__" not in p.parts}


def _importers(start: Set[str], texts: Dict[str, str], pattern_of: Callable[[str], Pattern[str]]) -> Set[str]:
    """start and every key of texts whose text imports one of them, directly or through another such key
    (pattern_of(name): the regex for importing name)."""
    found, todo = set(start), sorted(start)
    while todo:
        pattern = pattern_of(todo.pop())
        for key, text in texts.items():
            if key not in found and pattern.search(text):
                found.add(key)
                todo.append(key)
    return found


def users(module: str, root: Path = ROOT) -> Set[str]:
    """Dotted paths of the module and of every plugin that imports it, directly or through another plugin."""
    return _importers({names.dotted(module)}, _plugins(root), names.imports)


def helpers(plugins: Set[str], root: Path = ROOT) -> Set[str]:
    """Test helpers (tests/unit/helpers, imported by plain name) that import one of the plugins or such a helper."""
    texts = {p.stem: p.read_text(encoding="utf-8") for p in sorted((root / "tests" / "unit" / "helpers").glob("*.py"))}
    patterns = [names.imports(p) for p in sorted(plugins)]
    direct = {name for name, text in texts.items() if any(p.search(text) for p in patterns)}
    return _importers(direct, texts, names.plain_imports)


def tests_for(module: str, root: Path = ROOT) -> List[str]:
    """Unit test files that import the module, a plugin that uses it (a filter, a module, another module_utils) or a
    test helper that does: mutmut runs, for each mutant, only those of them that called the mutated function."""
    plugins = users(module, root)
    patterns = [names.imports(p) for p in sorted(plugins)]
    patterns += [names.plain_imports(h) for h in sorted(helpers(plugins, root))]
    found = []
    for path in sorted((root / "tests" / "unit").rglob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        if any(p.search(text) for p in patterns):
            found.append(str(PKG / path.relative_to(root)))
    return found


def copytree(src, dst):
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis"))


def staged_selection(work):
    """The test files of the staged setup.cfg (the selection the kept results were decided with)."""
    config = configparser.ConfigParser()
    config.read(work / "setup.cfg", encoding="utf-8")
    return config.get("mutmut", "pytest_add_cli_args_test_selection", fallback="").split()


def stage(module: str, keep: Optional[str] = None) -> Tuple[Path, List[str]]:
    """A fresh tree (cached mutants of an older checkout would be reported as current); with keep ("recheck" or
    "resume"), only the tests and the configuration are refreshed and the mutants and their results are kept
    (resume also keeps the staged test selection, see the module's docstring)."""
    work = OUT / names.staging_name(module)
    tests = tests_for(module)
    if not tests:
        sys.exit("no unit test imports %s" % names.relative_source(module))
    if keep:
        staged = names.staged(work, module)
        source = names.source(module)
        if not staged.is_file() or staged.read_bytes() != source.read_bytes():
            sys.exit("%s changed since its last run (or never ran): run it whole, python tests/mutation/run.py %s"
                     % (names.relative_source(module), module))
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


def write_config(work: Path, module: str, tests: List[str]) -> None:
    def lines(items):
        return "".join("\n    %s" % i for i in items)
    (work / "setup.cfg").write_text(
        "[mutmut]\n"
        "source_paths = %s\n" % (PKG / "plugins")
        + "only_mutate = %s\n" % names.staged(Path(), module)
        + "also_copy = %s\n" % (PKG / "tests")
        + "pytest_add_cli_args_test_selection =%s\n" % lines(tests)
        + "pytest_add_cli_args =%s\n" % lines(["-p", "no:cacheprovider", "-x", "-q"])
        # mutmut's limit is CPU seconds: 15 x the tests' time by default, minutes for a mutant that loops
        # (hostlist's compress loop). 3 x + 10 s still leaves a loaded machine room for the honest runs.
        + "timeout_multiplier = 3.0\ntimeout_constant = 10.0\n"
        + "\n[tool:pytest]\n"
        "addopts = --strict-markers\n",
        encoding="utf-8")


def survivors(module: str) -> List[str]:
    """Names of the mutants no test killed in the last run of the module."""
    import scores  # pylint: disable=import-outside-toplevel
    codes = scores.load(module) or {}
    return sorted(k for k, v in codes.items() if v in scores.SURVIVED | scores.NO_TESTS)


def meta_codes(work: Path, module: str) -> Dict[str, Optional[int]]:
    path = names.meta(work, module)
    return json.loads(path.read_text(encoding="utf-8"))["exit_code_by_key"] if path.is_file() else {}


def keep_earlier_results(work: Path, module: str, before: Dict[str, Optional[int]]) -> None:
    """mutmut run NAME... marks every mutant it was not given as not checked: put back their earlier results."""
    path = names.meta(work, module)
    meta = json.loads(path.read_text(encoding="utf-8"))
    codes = meta["exit_code_by_key"]
    for key, code in before.items():
        if codes.get(key) is None and code is not None:
            codes[key] = code
    path.write_text(json.dumps(meta), encoding="utf-8")


def modules_of(args: List[str], root: Path = ROOT) -> List[str]:
    """The modules the arguments name (CORE when none); SystemExit naming every one that is no module of root."""
    modules = args or CORE
    unknown = names.unknown(modules, root)
    if unknown:
        sys.exit("unknown module(s), nothing run:\n%s\n(a module is its path under plugins/module_utils without .py,"
                 " e.g. slurm/hostlist)" % "\n".join("  %s: %s" % kv for kv in unknown.items()))
    return [names.canonical(m) for m in modules]


def main(argv: List[str]) -> int:
    recheck = "--recheck" in argv
    resume = "--resume" in argv
    if recheck and resume:
        sys.exit("--recheck and --resume do not go together")
    modules = modules_of([a for a in argv if a not in ("--recheck", "--resume")])
    jobs = os.environ.get("MUTATION_JOBS", "2")
    failed = []
    for module in modules:
        work, tests = stage(module, "recheck" if recheck else "resume" if resume else None)
        mutants = survivors(module) if recheck else []
        before = meta_codes(work, module)
        if recheck and not mutants:
            print("== mutation: %s has no survivor to recheck" % module)
            continue
        print("== mutation: %s against %d test file(s): %s" % (module, len(tests), " ".join(
            t.split("tests/unit/", 1)[1] for t in tests)), flush=True)
        log_name = "mutmut-recheck.log" if recheck else "mutmut-resume.log" if resume else "mutmut.log"
        with open(work / log_name, "w", encoding="utf-8") as log:
            mutmut = [sys.executable, str(ROOT / "tests" / "mutation" / "mutmut_cpu_limit.py")]
            rc = subprocess.call(["nice", "-n", "19"] + mutmut + ["run", "--max-children", jobs] + mutants,
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
