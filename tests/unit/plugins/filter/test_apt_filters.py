# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The apt_sources and apt_add_components filters: results as the nvidia_driver role uses them, input
checks, and the module_utils errors wrapped under each filter's name."""
from __future__ import annotations

import json

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import apt_add_components as add_plugin
from ansible_collections.gpufleet.cluster.plugins.filter import apt_sources as sources_plugin
from ansible_collections.gpufleet.cluster.plugins.filter.apt_add_components import apt_add_components
from ansible_collections.gpufleet.cluster.plugins.filter.apt_sources import apt_sources

# The lab image's /etc/apt/sources.list (mirror name replaced by an example.org name).
LAB_IMAGE = {"path": "/etc/apt/sources.list", "content": (
    "deb http://mirror.example.org/debian bookworm main\n"
    "deb http://mirror.example.org/debian bookworm-updates main\n"
    "deb http://mirror.example.org/debian-security bookworm-security main\n")}
# What NVIDIA's cuda-keyring 1.1 package installs.
CUDA_KEYRING = {"path": "/etc/apt/sources.list.d/cuda-debian12-x86_64.list", "content": (
    "deb [signed-by=/usr/share/keyrings/cuda-archive-keyring.gpg] "
    "https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/ /\n")}
OWN = "/etc/apt/sources.list.d/gpufleet-debian-nonfree.sources"
BOOKWORM = ["bookworm", "bookworm-updates", "bookworm-security"]
NONFREE = ["contrib", "non-free", "non-free-firmware"]


def test_filters_are_registered_under_their_names():
    assert sources_plugin.FilterModule().filters() == {"apt_sources": apt_sources}
    assert add_plugin.FilterModule().filters() == {"apt_add_components": apt_add_components}


def test_apt_sources_returns_plain_entries():
    entries = apt_sources([LAB_IMAGE, CUDA_KEYRING])
    assert len(entries) == 4
    assert entries[3] == {
        "path": "/etc/apt/sources.list.d/cuda-debian12-x86_64.list", "line": 1, "format": "one-line",
        "types": ["deb"], "uris": ["https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/"],
        "suites": ["/"], "components": [], "enabled": True,
        "options": {"signed-by": "/usr/share/keyrings/cuda-archive-keyring.gpg"}}
    json.dumps(entries)  # plain data, as Ansible needs it


def test_apt_sources_finds_another_source_of_a_repository():
    uri = "https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/"
    found = apt_sources([LAB_IMAGE, CUDA_KEYRING], uri=uri, exclude=["/etc/apt/sources.list.d/gpufleet-nvidia-cuda.sources"])
    assert [e["path"] for e in found] == ["/etc/apt/sources.list.d/cuda-debian12-x86_64.list"]
    # excluding the file itself leaves nothing
    assert apt_sources([LAB_IMAGE, CUDA_KEYRING], uri=uri, exclude=[CUDA_KEYRING["path"]]) == []


def test_apt_add_components_as_the_role_calls_it():
    plan = apt_add_components([LAB_IMAGE], suites=BOOKWORM, components=NONFREE, uris=[], exclude=[OWN])
    assert [(s["uris"], s["suites"], s["components"], s["options"]) for s in plan] == [
        (["http://mirror.example.org/debian"], ["bookworm", "bookworm-updates"], NONFREE, {}),
        (["http://mirror.example.org/debian-security"], ["bookworm-security"], NONFREE, {}),
    ]
    assert plan[1]["deb822"] == ("Types: deb\nURIs: http://mirror.example.org/debian-security\n"
                                 "Suites: bookworm-security\nComponents: contrib non-free non-free-firmware\n")
    assert plan[0]["types"] == ["deb"] and plan[0]["sources"] == ["/etc/apt/sources.list:1", "/etc/apt/sources.list:2"]
    json.dumps(plan)


def test_apt_add_components_ignores_the_file_it_wrote():
    first = apt_add_components([LAB_IMAGE], suites=BOOKWORM, components=NONFREE)
    written = {"path": OWN, "content": "\n".join(s["deb822"] for s in first)}
    assert apt_add_components([LAB_IMAGE, written], suites=BOOKWORM, components=NONFREE, exclude=[OWN]) == first
    assert apt_add_components([LAB_IMAGE, written], suites=BOOKWORM, components=NONFREE) == []


@pytest.mark.parametrize("files", [
    "deb http://x bookworm main",
    [{"path": "/etc/apt/sources.list"}],
    [{"path": 1, "content": ""}],
    ["/etc/apt/sources.list"],
])
def test_bad_file_lists_are_refused(files):
    for call in (lambda: apt_sources(files), lambda: apt_add_components(files, BOOKWORM, NONFREE)):
        with pytest.raises(AnsibleFilterError) as err:
            call()
        assert str(err.value).startswith("gpufleet.cluster.apt_")
        assert "path" in str(err.value)


@pytest.mark.parametrize("kwargs, name", [
    ({"suites": "bookworm", "components": NONFREE}, "suites"),
    ({"suites": BOOKWORM, "components": [""]}, "components"),
    ({"suites": BOOKWORM, "components": NONFREE, "uris": "http://x"}, "uris"),
    ({"suites": BOOKWORM, "components": NONFREE, "exclude": [None]}, "exclude"),
])
def test_apt_add_components_checks_its_lists(kwargs, name):
    with pytest.raises(AnsibleFilterError) as err:
        apt_add_components([LAB_IMAGE], **kwargs)
    assert str(err.value).startswith("gpufleet.cluster.apt_add_components: %s must be a list" % name)


def test_apt_add_components_needs_suites_and_components():
    with pytest.raises(AnsibleFilterError, match="must each name at least one"):
        apt_add_components([LAB_IMAGE], suites=[], components=NONFREE)


@pytest.mark.parametrize("uri", ["", "http://deb.debian.org/debian\n", "http://x/ debian", "debian"])
def test_apt_sources_checks_uri(uri):
    with pytest.raises(AnsibleFilterError, match="^gpufleet.cluster.apt_sources: uri: .* is not allowed; expected a URI"):
        apt_sources([LAB_IMAGE], uri=uri)


def test_module_utils_errors_carry_the_filter_name():
    broken = {"path": "/etc/apt/sources.list", "content": "deb http://x.example.org/d bookworm\n"}
    with pytest.raises(AnsibleFilterError) as err:
        apt_sources([broken])
    assert str(err.value).startswith("gpufleet.cluster.apt_sources: /etc/apt/sources.list:1: the suite 'bookworm'")
    with pytest.raises(AnsibleFilterError) as err:
        apt_add_components([CUDA_KEYRING], suites=BOOKWORM, components=NONFREE)
    assert str(err.value).startswith(
        "gpufleet.cluster.apt_add_components: no enabled 'deb' source of this host serves the release 'bookworm'")
