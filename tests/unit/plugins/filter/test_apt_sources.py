# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The apt_sources filter: results as the nvidia_driver role uses them, input checks, the module_utils
errors under the filter's name, wrong types."""
from __future__ import annotations

import json

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter import apt_sources as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.apt_sources import apt_sources
from apt_files import BAD_FILE_LISTS, CUDA_KEYRING, DEBIAN, LAB_IMAGE
from filter_docs import assert_documented
from wrong_types import assert_only_refusals


def test_registered_and_documented():
    assert_documented(plugin, "apt_sources")


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
    found = apt_sources([LAB_IMAGE, CUDA_KEYRING], uri=uri,
                        exclude=["/etc/apt/sources.list.d/gpufleet-nvidia-cuda.sources"])
    assert [e["path"] for e in found] == ["/etc/apt/sources.list.d/cuda-debian12-x86_64.list"]
    # excluding the file itself leaves nothing
    assert apt_sources([LAB_IMAGE, CUDA_KEYRING], uri=uri, exclude=[CUDA_KEYRING["path"]]) == []


@pytest.mark.parametrize("files", BAD_FILE_LISTS)
def test_bad_file_lists_are_refused(files):
    with pytest.raises(AnsibleFilterError) as err:
        apt_sources(files)
    assert str(err.value).startswith("gpufleet.cluster.apt_sources: ")
    assert "path" in str(err.value)


@pytest.mark.parametrize("uri", ["", "http://deb.debian.org/debian\n", "http://x/ debian", "debian"])
def test_apt_sources_checks_uri(uri):
    with pytest.raises(AnsibleFilterError, match="^gpufleet.cluster.apt_sources: uri: .* is not allowed; expected a "
                                                 "URI"):
        apt_sources([LAB_IMAGE], uri=uri)


def test_module_utils_errors_carry_the_filter_name():
    broken = {"path": "/etc/apt/sources.list", "content": "deb http://x.example.org/d bookworm\n"}
    with pytest.raises(AnsibleFilterError) as err:
        apt_sources([broken])
    assert str(err.value).startswith("gpufleet.cluster.apt_sources: /etc/apt/sources.list:1: the suite 'bookworm'")


# ------------------------------------------------------------------ wrong types: refused by a check, nothing else
VALID = [[DEBIAN], "http://deb.debian.org/debian", []]


def test_valid_call_works():
    assert apt_sources(*VALID) is not None


def test_wrong_types_and_missing_keys_are_refused():
    assert_only_refusals("apt_sources", apt_sources, VALID)
