# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A clone of the repository alone passes its tests: no file reaches a data folder beside the checkout, and
the recordings under tests/fixtures are all listed (source, commit, licence) and unchanged."""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess

import pytest

from reference import REFERENCE, nccl_topology, outputs

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(REPO, "tests", "fixtures")
README = os.path.join(FIXTURES, "README.md")
SUMS = os.path.join(FIXTURES, "SHA256SUMS")
SKIP_DIRS = {".git", ".venv", ".build", ".cache", ".lab", ".ansible", ".hypothesis", ".pytest_cache", "__pycache__",
             "collections", "tests/output", "bench/results"}
# The ways a path to the old data folder beside the checkout was written (the words are split so that this file
# does not match itself): a relative path, the absolute path on the build host, and os.path.join parts.
_SHARED = "sha" + "red"
OUTSIDE = re.compile(r"\.\.[/\\]%s\b|/work/%s\b|[\"']\.\.[\"']\s*,\s*[\"']%s[\"']|os\.pardir\s*,\s*[\"']%s[\"']"
                     % ((_SHARED,) * 4))


def _repo_files():
    """Tracked and not-ignored files (git), or a walk of the tree without build and cache folders."""
    git = shutil.which("git")
    if git and os.path.exists(os.path.join(REPO, ".git")):
        done = subprocess.run([git, "-C", REPO, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                              capture_output=True, check=False)
        if done.returncode == 0:
            return sorted({p for p in done.stdout.decode().split("\0") if p})
    found = []
    for top, dirs, files in os.walk(REPO):
        rel_top = os.path.relpath(top, REPO)
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and os.path.normpath(os.path.join(rel_top, d)) not in SKIP_DIRS]
        found.extend(os.path.normpath(os.path.join(rel_top, f)) for f in files if f != ".git")  # a worktree's link
    return sorted(found)


def _recordings():
    """Every file under tests/fixtures but its README and SHA256SUMS, relative to tests/fixtures."""
    found = (os.path.relpath(os.path.join(top, f), FIXTURES).replace(os.sep, "/")
             for top, _dirs, files in os.walk(FIXTURES) for f in files)
    return sorted(rel for rel in found if rel not in ("README.md", "SHA256SUMS"))


def test_the_pattern_catches_every_way_it_was_written():
    written = ['os.path.join(_REPO, "..", "%s", "reference")', "lookup('file', playbook_dir ~ '/../../../%s/x')",
               "under /work/%s/reference/outputs", "os.path.join(ROOT, os.pardir, '%s')", "..\\%s\\reference"]
    for text in written:
        assert OUTSIDE.search(text % _SHARED), text
    for text in ["tests/fixtures/reference/outputs", "a %s file per process" % _SHARED, "../%s_lib" % _SHARED,
                 'os.path.join(REPO, "tests", "fixtures")']:
        assert not OUTSIDE.search(text), text


def test_no_file_reads_a_folder_beside_the_checkout():
    files = _repo_files()
    assert "tests/unit/test_self_contained.py" in files and "galaxy.yml" in files  # the listing did list the tree
    offenders = []
    for rel in files:
        if rel.startswith("tests/fixtures/reference/"):
            continue
        path = os.path.join(REPO, rel)
        if not os.path.isfile(path) or os.path.islink(path):
            continue
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                offenders.append("%s:%d: %s" % (rel, number, line.strip()[:120]))
    assert not offenders, ("these lines reach a data folder outside the repository; read the in-repo copy under "
                           "tests/fixtures/reference (tests/unit/helpers/reference.py) instead:\n" + "\n".join(offenders))


def test_every_recorded_file_is_listed_with_its_source():
    listed = set(re.findall(r"^\| `([^`]+)` \|", open(README, encoding="utf-8").read(), re.M))
    present = set(_recordings())
    assert len([rel for rel in present if rel.startswith("reference/")]) >= 57
    assert not present - listed, ("tests/fixtures/README.md has no row (source, commit, licence) for: %s"
                                  % ", ".join(sorted(present - listed)))
    assert not listed - present, "tests/fixtures/README.md lists files that are not there: %s" % sorted(listed - present)


def test_recorded_files_are_unchanged():
    expected = {}
    with open(SUMS, encoding="utf-8") as handle:
        for line in handle:
            digest, name = line.rstrip("\n").split("  ", 1)
            expected[name] = digest
    actual = {}
    for rel in _recordings():
        with open(os.path.join(FIXTURES, rel), "rb") as handle:
            actual[rel] = hashlib.sha256(handle.read()).hexdigest()
    changed = sorted(name for name in expected.keys() & actual.keys() if expected[name] != actual[name])
    assert not changed, "recordings are byte-identical copies and must not be edited: %s" % changed
    assert actual.keys() == expected.keys(), (
        "tests/fixtures/SHA256SUMS and the files under tests/fixtures differ; for a new recording run "
        "`cd tests/fixtures && sha256sum <path> >> SHA256SUMS`: missing %s, stale %s"
        % (sorted(actual.keys() - expected.keys()), sorted(expected.keys() - actual.keys())))


def test_the_h100_recordings_of_2026_11_26_are_there():
    # driver 580.159.04: nvidia-smi -q and -q -x, the queries, NVML's answers, and the topology NCCL 2.28.9 wrote
    q = open(outputs("nvidia-smi", "nvidia-smi-q.h100-80gb-hbm3-x1-vm.580.159.04.txt"), encoding="utf-8").read()
    assert re.search(r"^Driver Version\s+: 580\.159\.04$", q, re.M)
    assert re.search(r"^\s+Product Name\s+: NVIDIA H100 80GB HBM3$", q, re.M)
    x = open(outputs("nvidia-smi", "nvidia-smi-q-x.h100-80gb-hbm3-x1-vm.580.159.04.xml"), encoding="utf-8").read()
    assert "<driver_version>580.159.04</driver_version>" in x
    assert os.path.isfile(outputs("nvidia-smi", "nvidia-smi-queries.h100-80gb-hbm3-x1-vm.580.159.04.txt"))
    assert os.path.isfile(outputs("nvml", "nvml-calls.h100-80gb-hbm3-x1-vm.580.159.04.json"))
    assert open(nccl_topology("h100-vm-1gpu.nccl-2.28.9-dump.xml"), encoding="utf-8").read().startswith("<system")


@pytest.mark.parametrize("name", sorted(n for n in os.listdir(os.path.join(REPO, "molecule", "fabric", "files", "lustre"))
                                        if n.endswith(".txt")))
def test_molecule_lustre_copies_are_the_recordings(name):
    with open(os.path.join(REPO, "molecule", "fabric", "files", "lustre", name), "rb") as copy, \
            open(outputs("lustre", name), "rb") as recording:
        assert copy.read() == recording.read()


def test_reference_lies_inside_the_repository():
    assert os.path.commonpath([REFERENCE, REPO]) == REPO
    assert os.path.isdir(outputs()) and os.path.isdir(nccl_topology())
