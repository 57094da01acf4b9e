# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The collections gpufleet.cluster uses, as its files name them, against what it declares: galaxy.yml's
dependencies (needed at run time), requirements-optional.yml (needed by one feature each), requirements.yml (the
same as galaxy.yml), the tested versions (the ansible bundle's copies) within every declared range, and the
execution environment carrying the declared ones. tests/install/run.sh proves the declared set is enough by
running from an install that has nothing else."""
from __future__ import annotations

import configparser
import glob
import json
import os
import re
import sys
from typing import Dict, Iterator, Set, Tuple

import pytest
import yaml
from ansible.galaxy.dependency_resolution.versioning import meets_requirements

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# A module or action named by FQCN as a task's key; a filter, test, lookup or callback named by FQCN in an expression.
TASK_KEY = re.compile(r"^\s*(?:- )?([a-z0-9_]+\.[a-z0-9_]+)\.[a-z0-9_]+:", re.M)
EXPRESSION = re.compile(r"(?:\|\s*|\bis\s+(?:not\s+)?|(?:query|lookup|q|map|select|reject|selectattr|rejectattr)"
                        r"\(\s*(?:'[a-z_]*'\s*,\s*'[a-z_]*'\s*,\s*)?['\"]?)([a-z0-9_]+\.[a-z0-9_]+)\.[a-z0-9_]+")
# Collections whose names appear in the roles as values only (roce_switch maps ansible_network_os to a platform).
NAMES_ONLY = {"dellemc.enterprise_sonic", "nvidia.nvue"}
THIS = {"ansible.builtin", "gpufleet.cluster"}


def load(name: str):
    with open(os.path.join(REPO, name), encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def declared() -> Dict[str, str]:
    return load("galaxy.yml")["dependencies"]


def optional() -> Dict[str, str]:
    return {c["name"]: c["version"] for c in load("requirements-optional.yml")["collections"]}


def strip_comments(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


def used(paths) -> Iterator[Tuple[str, str]]:
    """(collection, file) for every FQCN module, filter, test, lookup in the YAML and templates under PATHS."""
    for pattern in paths:
        for path in sorted(glob.glob(os.path.join(REPO, pattern), recursive=True)):
            with open(path, encoding="utf-8") as fh:
                text = strip_comments(fh.read())
            rel = os.path.relpath(path, REPO)
            # Keys name modules in task lists only (a vars file's keys are data: roce_switch maps network OS names).
            tasks = rel.startswith(("playbooks/", "awx/")) or re.search(r"^roles/[^/]+/(tasks|handlers)/", rel)
            for regex in (TASK_KEY, EXPRESSION) if tasks else (EXPRESSION,):
                for match in regex.finditer(text):
                    yield match.group(1), rel


RUNTIME = ["roles/**/*.yml", "roles/**/*.j2", "playbooks/**/*.yml"]


def test_the_scan_finds_what_the_roles_are_known_to_use():
    # Known uses, each from a file of its own: the scan must see them, or the tests below prove nothing.
    found = set(used(RUNTIME))
    for collection, path in [("community.general", "roles/rdma/tasks/service.yml"),
                             ("ansible.posix", "roles/common/tasks/kernel.yml"),
                             ("community.mysql", "roles/slurm/tasks/dbd.yml"),
                             ("community.general", "roles/validate/tasks/report.yml"),
                             ("arista.eos", "roles/roce_switch/tasks/push_eos.yml")]:
        assert (collection, path) in found, (collection, path)


def test_every_collection_the_roles_and_playbooks_use_is_declared_or_optional():
    allowed = set(declared()) | set(optional()) | THIS
    undeclared = sorted({(c, p) for c, p in used(RUNTIME) if c not in allowed and c not in NAMES_ONLY})
    assert undeclared == [], "used but neither in galaxy.yml's dependencies nor requirements-optional.yml: %s" % undeclared


def test_optional_collections_are_needed_only_by_the_files_that_say_so():
    # arista.eos is used in the EOS push alone, which push.yml includes (dynamically): site.yml loads without it.
    optional_uses = sorted({p for c, p in used(RUNTIME) if c in optional()})
    assert optional_uses == ["roles/roce_switch/tasks/push_eos.yml"]
    push = load("roles/roce_switch/tasks/push.yml")
    eos = [t for t in push if t.get("when") == "roce_switch_platform == 'eos'"]
    assert eos == [{"name": "Push | Arista EOS", "ansible.builtin.include_tasks": "push_eos.yml",
                    "when": "roce_switch_platform == 'eos'"}]
    assert "import_tasks: push_eos.yml" not in "".join(
        open(p, encoding="utf-8").read() for p in glob.glob(os.path.join(REPO, "roles/**/*.yml"), recursive=True))


def test_every_declared_collection_is_used():
    used_now = {c for c, _p in used(RUNTIME)}
    assert set(declared()) <= used_now, "declared but unused: %s" % sorted(set(declared()) - used_now)


def test_awx_configure_needs_only_awx_awx():
    assert {c for c, _p in used(["awx/*.yml"])} - THIS == {"awx.awx"}
    assert "awx.awx" in optional()


def test_callbacks_enabled_come_from_declared_collections():
    cfg = configparser.ConfigParser()
    cfg.read(os.path.join(REPO, "ansible.cfg"))
    callbacks = [c.strip() for c in cfg.get("defaults", "callbacks_enabled", fallback="").split(",") if c.strip()]
    assert callbacks == ["ansible.posix.profile_tasks"]
    assert all(".".join(c.split(".")[:2]) in declared() for c in callbacks)


def test_requirements_yml_lists_exactly_the_declared_dependencies():
    listed = {c["name"]: c["version"] for c in load("requirements.yml")["collections"]}
    assert listed == declared()
    assert not set(optional()) & set(declared())
    # Named only as values (ansible_network_os): neither declared nor asked for.
    assert not NAMES_ONLY & (set(optional()) | set(declared()))


def bundle_version(name: str) -> str:
    namespace, collection = name.split(".")
    for entry in sys.path:
        manifest = os.path.join(entry or ".", "ansible_collections", namespace, collection, "MANIFEST.json")
        if os.path.isfile(manifest):
            with open(manifest, encoding="utf-8") as fh:
                return json.load(fh)["collection_info"]["version"]
    pytest.fail("%s is not in the ansible bundle (requirements-dev.txt installs ansible)" % name)


@pytest.mark.parametrize("source", ["galaxy.yml", "requirements-optional.yml"])
def test_the_tested_versions_meet_every_declared_range_and_the_next_major_does_not(source):
    ranges = declared() if source == "galaxy.yml" else optional()
    assert ranges
    for name, spec in ranges.items():
        tested = bundle_version(name)
        assert meets_requirements(tested, spec), (name, tested, spec)
        # The range starts at the tested version and stops before the next major release.
        assert spec == ">=%s,<%d.0.0" % (tested, int(tested.split(".")[0]) + 1), (name, spec, tested)


def test_requires_ansible_is_the_tested_ansible_core_release():
    from ansible.release import __version__
    from packaging.specifiers import SpecifierSet
    spec = SpecifierSet(load("meta/runtime.yml")["requires_ansible"])
    major, minor = __version__.split(".")[:2]
    major_minor = "%s.%s" % (major, minor)
    assert __version__ in spec
    assert spec == SpecifierSet(">=%s.0,<%s.%d.0" % (major_minor, major, int(minor) + 1))
    pins = dict(line.split("==") for line in open(os.path.join(REPO, "requirements-dev.txt"), encoding="utf-8")
                if "==" in line and not line.startswith("#"))
    assert pins["ansible-core"].strip() == __version__
    sanity = {os.path.basename(p) for p in glob.glob(os.path.join(REPO, "tests", "sanity", "ignore-*.txt"))}
    assert sanity == {"ignore-%s.txt" % major_minor}


def test_the_execution_environment_installs_every_declared_dependency():
    ee = load("awx/execution-environment.yml")
    # The EE's collections are pinned in a requirements file beside it (awx/requirements.yml).
    galaxy = load(os.path.join("awx", ee["dependencies"]["galaxy"]))
    names: Set[str] = {c["name"] for c in galaxy["collections"]}
    assert set(declared()) <= names, "the EE lacks %s" % sorted(set(declared()) - names)
    assert "awx.awx" in names
