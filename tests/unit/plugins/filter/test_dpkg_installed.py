# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""dpkg_installed on recorded dpkg-query outputs (tests/fixtures/dpkg/README.md says where each comes from),
its refusals (issue 13: each field of a line checked) and wrong types."""
from __future__ import annotations

import os

import pytest
from ansible.errors import AnsibleFilterError
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.filter import dpkg_installed as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.dpkg_installed import dpkg_installed
from ansible_collections.gpufleet.cluster.plugins.module_utils.apt.dpkg_status import installed_versions
from filter_docs import assert_documented
from filter_refusals import refused
from wrong_types import assert_only_refusals


FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures", "dpkg")


def _lines(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as handle:
        return handle.read().splitlines()


def test_slurm_head_after_converge():
    assert dpkg_installed(_lines("show-status-version.slurm-head.debian12.txt")) == {
        "mariadb-server": "1:10.11.19-0+deb12u1",  # the epoch stays: dpkg compares with it
        "munge": "0.5.15-2+deb12u1",
        "python3-pymysql": "1.0.2-2+deb12u1",
        "slurm-client": "22.05.8-4+deb12u3",
        "slurmctld": "22.05.8-4+deb12u3",
        "slurmdbd": "22.05.8-4+deb12u3",
    }


def test_what_apt_still_has_to_install():
    wanted = ["slurmctld", "slurmd", "munge"]
    installed = dpkg_installed(_lines("show-status-version.slurm-head.debian12.txt"))
    # slurmd has no line at all (dpkg has never seen it): it is the one missing.
    assert [name for name in wanted if name not in installed] == ["slurmd"]


def test_a_removed_package_is_not_installed_and_tabs_work():
    # openssh-server was removed, not purged: dpkg still knows it, in state config-files.
    assert dpkg_installed(_lines("show-status-version.tabs.removed.debian12.txt")) == {"bash": "5.2.15-2+b13"}


def test_stdout_as_one_string():
    text = "\n".join(_lines("show-status-version.debian12.txt")) + "\n"
    assert dpkg_installed(text) == {"bash": "5.2.15-2+b8", "libc6": "2.36-9+deb12u14",
                                    "podman": "4.3.1+ds1-8+deb12u1+b3"}


def test_nothing_known_is_empty():
    assert dpkg_installed([]) == {} and dpkg_installed("") == {}


@pytest.mark.parametrize("bad, why", [
    (["slurmd"], "is not '<package> <state> [<version>]'"),
    (["slurmd installed 22.05 extra"], "is not '<package> <state> [<version>]'"),
    (["slurmd installed"], "an installed package without a version"),
])
def test_other_shapes_are_refused_naming_the_line(bad, why):
    with pytest.raises(AnsibleFilterError, match="^gpufleet.cluster.dpkg_installed: line 1 ") as error:
        dpkg_installed(bad)
    assert why in str(error.value)


@pytest.mark.parametrize("bad", [None, 3, {"stdout": ""}, ["ok installed 1", 2]])
def test_input_that_is_no_output_is_refused(bad):
    with pytest.raises(AnsibleFilterError, match="^gpufleet.cluster.dpkg_installed: input must be"):
        dpkg_installed(bad)


def test_registered_and_documented():
    assert_documented(plugin, "dpkg_installed")


_NAME = st.from_regex(r"[a-z0-9][a-z0-9+.-]{1,20}", fullmatch=True)
_VERSION = st.from_regex(r"([0-9]:)?[0-9][0-9a-z.+~]{0,10}(-[0-9a-z.+~]{1,8})?", fullmatch=True)
_STATE = st.sampled_from(["installed", "config-files", "not-installed", "half-installed", "unpacked"])


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(_NAME, st.tuples(_STATE, _VERSION), max_size=12), st.sampled_from([" ", "\t"]))
def test_exactly_the_installed_ones_come_back(packages, sep):
    lines = [sep.join([name, state, version]) for name, (state, version) in packages.items()]
    assert installed_versions(lines) == {name: version for name, (state, version) in packages.items()
                                         if state == "installed"}


# ------------------------------------------------------------------ issue 13: each field of a line
@pytest.mark.parametrize("line, why", [
    ("Slurmd installed 1.0", r"package 'Slurmd' is not a Debian package name"),
    ("slurmd instaled 1.0", r"state 'instaled' is not one of dpkg's"),
    ("slurmd installed 1.0#x", r"version '1\.0#x' is not a Debian version"),
])
def test_dpkg_fields(line, why):
    refused(r"^gpufleet\.cluster\.dpkg_installed: line 1 .*" + why, dpkg_installed, [line])


# ------------------------------------------------------------------ wrong types: refused by a check, nothing else
VALID = [["bash installed 5.2.15-2+b8"]]


def test_valid_call_works():
    assert dpkg_installed(*VALID) is not None


def test_wrong_types_and_missing_keys_are_refused():
    assert_only_refusals('dpkg_installed', dpkg_installed, VALID)
