# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fake pynvml against real NVML: every call of the recording (one H100 80GB HBM3, driver 580.159.04,
nvidia-ml-py 13.610.43, the calls gpu_info and gpu_settings make) is made on fake_nvml.h100_vm() and must give
the recorded value or the recorded error code. A call the recording holds but the test cannot make fails the test,
so the fake cannot drift from the real library again."""
from __future__ import annotations

import dataclasses
import json
import os
import re

import pytest

import fake_nvml

RECORDING = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "reference", "outputs", "nvml",
                         "nvml-calls.h100-80gb-hbm3-x1-vm.580.159.04.json")
_CALL = re.compile(r"(nvml\w+)(?:\((.*)\))?")


def _calls():
    with open(RECORDING, encoding="utf-8") as handle:
        return json.load(handle)["calls"]


def _arguments(nvml, text):
    """'NVML_CLOCK_GRAPHICS' -> the constant, '2619' -> 2619, 'v2' -> nvmlMemory_v2."""
    if not text:
        return []
    out = []
    for token in text.split(","):
        token = token.strip()
        if token == "v2":
            out.append(nvml.nvmlMemory_v2)
        elif re.fullmatch(r"-?[0-9]+", token):
            out.append(int(token))
        else:
            out.append(getattr(nvml, token))    # AttributeError: the fake lacks a constant NVML has
    return out


def _plain(value):
    if dataclasses.is_dataclass(value):
        return {k: v for k, v in dataclasses.asdict(value).items() if v is not None}
    if isinstance(value, tuple):
        return list(value)
    return value


def _answer(nvml, key):
    match = _CALL.fullmatch(key)
    assert match, "unreadable call %r in the recording" % key
    name, args = match.groups()
    function = getattr(nvml, name, None)
    assert function is not None, "the fake has no %s, which real NVML answered" % name
    arguments = _arguments(nvml, args)
    # Device calls take the handle first; the recorded GetHandleByIndex(1) is itself the call.
    if name.startswith("nvmlDevice") and name not in ("nvmlDeviceGetCount", "nvmlDeviceGetHandleByIndex"):
        arguments = [nvml.nvmlDeviceGetHandleByIndex(0)] + arguments
    try:
        return {"value": _plain(function(*arguments))}
    except fake_nvml.NVMLError as exc:
        return {"error": exc.value, "message": str(exc)}


@pytest.fixture(name="nvml")
def fixture_nvml():
    nvml = fake_nvml.h100_vm()
    nvml.nvmlInit()
    yield nvml
    nvml.nvmlShutdown()


def test_the_recording_is_what_we_think_it_is():
    calls = _calls()
    assert len(calls) == 41
    assert calls["nvmlDeviceGetSupportedMemoryClocks"]["value"] == [2619, 1593]
    assert calls["nvmlDeviceGetSupportedGraphicsClocks(1234)"] == {"error": 6, "message": "Not Found"}
    assert calls["nvmlDeviceGetRetiredPagesPendingStatus"] == {"error": 3, "message": "Not Supported"}


@pytest.mark.parametrize("key", sorted(_calls()))
def test_the_fake_answers_as_real_nvml(nvml, key):
    recorded = _calls()[key]
    got = _answer(nvml, key)
    if "error" in recorded:
        assert got == {"error": recorded["error"], "message": recorded["message"]}, key
        return
    assert "value" in got, "%s: real NVML gave %r, the fake raised %r" % (key, recorded["value"], got)
    # Structures compare field for field: every field NVML returned, and no field it did not.
    assert got["value"] == recorded["value"], key
