# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The AWX execution environment: the collection's own EE metadata as ansible-builder reads it, and the EE
definition (awx/execution-environment.yml) turned into a build context by `ansible-builder create`, with this
checkout packed by `ansible-galaxy collection build`. Building the image needs a base image and a registry, which
this machine has neither of; everything up to that is run here."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest
import yaml
from ansible_builder._target_scripts.introspect import process_collection

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.dirname(sys.executable)


def test_collection_metadata_names_its_python_and_system_dependencies():
    meta = yaml.safe_load(open(os.path.join(REPO, "meta", "execution-environment.yml")))
    assert meta["version"] == 1
    python, system = process_collection(REPO)  # what the EE builder stage reads from every installed collection
    assert python == ["jsonschema>=4.0  # roce_switch: config_db checked against its schema"]
    assert system == ["openssh-clients [platform:rpm]", "openssh-client [platform:dpkg]", "rsync",
                      "git-core [platform:rpm]", "git [platform:dpkg]"]


@pytest.fixture(scope="module")
def context(tmp_path_factory):
    """The build context ansible-builder writes for awx/execution-environment.yml, with this checkout packed."""
    if not os.path.exists(os.path.join(BIN, "ansible-builder")):
        pytest.fail("ansible-builder is not installed in the virtualenv (requirements-dev.txt names it)")
    work = tmp_path_factory.mktemp("ee")
    subprocess.run([os.path.join(BIN, "ansible-galaxy"), "collection", "build", "--force", "--output-path", str(work), REPO],
                   check=True, capture_output=True, text=True)
    built = [name for name in os.listdir(work) if name.endswith(".tar.gz")]
    assert built == ["gpufleet-cluster-0.1.0.tar.gz"]
    # The definition names ../.build/ee/gpufleet-cluster.tar.gz (relative to awx/): give it a copy of its own.
    definition_dir = work / "repo" / "awx"
    definition_dir.mkdir(parents=True)
    shutil.copy(os.path.join(REPO, "awx", "execution-environment.yml"), definition_dir)
    shutil.copy(os.path.join(REPO, "awx", "requirements.yml"), definition_dir)
    (work / "repo" / ".build" / "ee").mkdir(parents=True)
    shutil.copy(work / built[0], work / "repo" / ".build" / "ee" / "gpufleet-cluster.tar.gz")
    out = work / "context"
    result = subprocess.run([os.path.join(BIN, "ansible-builder"), "create", "-f", str(definition_dir / "execution-environment.yml"),
                             "-c", str(out), "--output-filename", "Containerfile"],
                            capture_output=True, text=True, cwd=str(work / "repo"), check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    return out


def test_create_writes_a_context_with_this_collection_and_its_dependencies(context):
    containerfile = (context / "Containerfile").read_text()
    assert "ARG EE_BASE_IMAGE=\"localhost/gpufleet-ee-base:2026.11.0\"" in containerfile
    # The galaxy stage installs ansible.posix, community.general, community.mysql and awx.awx, then this checkout's tarball, so that the
    # builder stage's introspection reads gpufleet.cluster's meta/execution-environment.yml too.
    galaxy = containerfile[containerfile.index("FROM base AS galaxy"):containerfile.index("FROM base AS builder")]
    assert "ansible-galaxy collection install" in galaxy
    assert "COPY _build/collections/gpufleet-cluster.tar.gz /tmp/gpufleet-cluster.tar.gz" in galaxy
    assert "ansible-galaxy collection install /tmp/gpufleet-cluster.tar.gz -p /usr/share/ansible/collections" in galaxy
    requirements = yaml.safe_load((context / "_build" / "requirements.yml").read_text())
    assert [c["name"] for c in requirements["collections"]] == ["ansible.posix", "community.general", "community.mysql", "awx.awx"]
    assert [c["version"] for c in requirements["collections"]] == ["==2.1.0", "==11.4.2", "==3.16.1", "==24.6.1"]
    assert (context / "_build" / "collections" / "gpufleet-cluster.tar.gz").stat().st_size > 100_000
    assert 'ARG ANSIBLE_INSTALL_REFS="ansible-core==2.19.14 ansible-runner==2.4.1"' in containerfile
    # The builder stage reads every installed collection's EE metadata, this one's included.
    builder = containerfile[containerfile.index("FROM base AS builder"):containerfile.index("FROM base AS final")]
    assert "COPY --from=galaxy /usr/share/ansible /usr/share/ansible" in builder and "introspect.py introspect" in builder


def test_the_definition_pins_its_base_image_and_collections():
    """A rebuild gets what was tested: the base by an exact tag or a digest (never latest), each collection at one
    exact version, and each of those within the ranges galaxy.yml accepts (the versions make test runs with)."""
    definition = yaml.safe_load(open(os.path.join(REPO, "awx", "execution-environment.yml")))
    base = definition["images"]["base_image"]["name"]
    name, _at, digest = base.partition("@")
    tag = name.rpartition(":")[2] if ":" in name.rpartition("/")[2] else ""
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", digest) if digest else re.fullmatch(r"[0-9][0-9A-Za-z._-]*", tag), base
    assert definition["dependencies"]["galaxy"] == "requirements.yml"
    pinned = yaml.safe_load(open(os.path.join(REPO, "awx", "requirements.yml")))["collections"]
    galaxy = yaml.safe_load(open(os.path.join(REPO, "galaxy.yml")))["dependencies"]
    for entry in pinned:
        assert set(entry) == {"name", "version"} and re.fullmatch(r"==[0-9]+\.[0-9]+\.[0-9]+", entry["version"]), entry
        version = entry["version"][2:]
        if entry["name"] in galaxy:
            assert all(_satisfies(version, rule) for rule in galaxy[entry["name"]].split(",")), (entry, galaxy)


def _satisfies(version, rule):
    """One clause of a galaxy version range (>=, <, ==) against an exact version."""
    found = re.fullmatch(r"\s*(>=|<=|==|<|>)\s*([0-9.]+)\s*", rule)
    assert found, rule
    have, want = [tuple(int(p) for p in v.split(".")) for v in (version, found.group(2))]
    return {">=": have >= want, "<=": have <= want, "==": have == want, "<": have < want, ">": have > want}[found.group(1)]
