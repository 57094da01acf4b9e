# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""nvidia_driver_reboot_reasons with the versions Debian 12 ships (bookworm-security's 535.309.01-0+deb12u1,
contrib's 535.261.03-1, the driver the lab's molecule scenario installs) and NVIDIA's 580 branch; its refusals
(issue 13: versions matched whole, the blacklist path checked) and wrong types."""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.filter import nvidia_driver_reboot_reasons as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.nvidia_driver_reboot_reasons import (
    nvidia_driver_reboot_reasons,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.gpu.driver_state import upstream_version
from filter_docs import assert_documented
from filter_refusals import refused
from wrong_types import assert_only_refusals


BLACKLIST = "/etc/modprobe.d/gpufleet-blacklist-nouveau.conf"


def test_the_running_module_is_the_installed_one():
    assert nvidia_driver_reboot_reasons("535.309.01", "535.309.01-0+deb12u1") == []


def test_an_upgrade_without_a_reboot_is_nvmls_mismatch():
    assert nvidia_driver_reboot_reasons("535.261.03\n", "535.309.01-0+deb12u1") == [
        "Driver/library version mismatch: the running kernel module is 535.261.03 but the installed libraries are "
        "535.309.01, so NVML (nvidia-smi, DCGM, Slurm, CUDA) fails until the node boots the new module."]


def test_nouveau_holding_the_gpus_needs_a_boot_with_the_blacklist():
    assert nvidia_driver_reboot_reasons("", "1:580.65.06-1", nouveau_loaded=True) == [
        "nouveau holds the GPUs, so nvidia 580.65.06 cannot load; it is blacklisted (%s) from the next boot on."
        % BLACKLIST]


@pytest.mark.parametrize("running, installed, nouveau", [
    ("", "", False),                          # no driver at all (the lab): nothing to boot for
    ("", "", True),                           # nouveau and no NVIDIA driver installed yet
    ("", "535.309.01-0+deb12u1", False),      # installed, not loaded, no nouveau: modprobe loads it, no reboot
    ("535.309.01", "", False),                # loaded, libraries removed: a package problem, not a reboot
])
def test_no_reason(running, installed, nouveau):
    assert nvidia_driver_reboot_reasons(running, installed, nouveau) == []


def test_debian_versions_to_upstream():
    assert [upstream_version(v) for v in ("535.309.01-0+deb12u1", "535.261.03-1", "1:580.65.06-1", "580.65.06", "")] \
        == ["535.309.01", "535.261.03", "580.65.06", "580.65.06", ""]


@pytest.mark.parametrize("args, message", [
    ((None, "535.309.01"), "running must be a version string"),
    (("535.309.01", 535), "installed must be a version string"),
    (("NVRM version: 535", "535.309.01"), "running module version 'NVRM version: 535' is not a driver version"),
])
def test_bad_input_is_refused(args, message):
    with pytest.raises(AnsibleFilterError, match="^gpufleet.cluster.nvidia_driver_reboot_reasons: ") as error:
        nvidia_driver_reboot_reasons(*args)
    assert message in str(error.value)


def test_nouveau_loaded_must_be_a_bool():
    with pytest.raises(AnsibleFilterError, match="nouveau_loaded must be true or false"):
        nvidia_driver_reboot_reasons("", "535.309.01", "yes")


def test_registered_and_documented():
    assert_documented(plugin, "nvidia_driver_reboot_reasons")


_PART = st.integers(min_value=0, max_value=999).map(str)
_VERSIONS = st.tuples(st.integers(min_value=300, max_value=999).map(str), _PART, _PART).map(".".join)


@settings(max_examples=200, deadline=None)
@given(_VERSIONS, _VERSIONS, st.booleans())
def test_a_mismatch_exactly_when_a_loaded_module_differs(running, installed, nouveau):
    reasons = nvidia_driver_reboot_reasons(running, installed + "-1", nouveau)
    assert len(reasons) == (1 if running != installed else 0)
    assert all(reason.startswith("Driver/library version mismatch") for reason in reasons)


# ------------------------------------------------------------------ issue 13: versions matched whole
@pytest.mark.parametrize("running, installed, why", [
    ("535.1\n535.2", "", r"running module version '535\.1\\n535\.2' is not a driver version"),
    ("", "535.2\n", None),  # output's own trailing newline: stripped, as read from the package
])
def test_driver_versions_fullmatch(running, installed, why):
    if why is None:
        assert nvidia_driver_reboot_reasons(running, installed) == []
    else:
        refused(why, nvidia_driver_reboot_reasons, running, installed)


def test_driver_blacklist_path():
    refused(r"blacklist_path: '/etc/modprobe\.d/x\.conf\\n' is not allowed; expected an absolute path",
            nvidia_driver_reboot_reasons, "", "535.2", True, "/etc/modprobe.d/x.conf\n")


# ------------------------------------------------------------------ wrong types: refused by a check, nothing else
VALID = ["535.1", "535.2-1", False, "/etc/modprobe.d/x.conf"]


def test_valid_call_works():
    assert nvidia_driver_reboot_reasons(*VALID) is not None


def test_wrong_types_and_missing_keys_are_refused():
    assert_only_refusals('nvidia_driver_reboot_reasons', nvidia_driver_reboot_reasons, VALID)
