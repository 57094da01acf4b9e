# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The slurm_gres_lines filter: gres.conf lines, errors under the filter's name, device paths and names a
line cannot hold (issue 13), the property that lines parse back, wrong types."""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError
from hypothesis import event, example, given, settings, strategies as st

from ansible_collections.gpufleet.cluster.plugins.filter import slurm_gres_lines as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.slurm_gres_lines import slurm_gres_lines
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.input_rules import is_valid
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist import HostlistError, expand_hostlist
from filter_docs import assert_documented
from nasty_input import hostile_text, near_valid
from filter_refusals import refused
from slurm_lines import DEVICE, GRES, NAME, NODE, NODES, VALID_DEVICE, clean, hosts, key_values, slurm_name
from wrong_types import assert_only_refusals

FAST = settings(max_examples=200, deadline=None)


def test_registered_and_documented():
    assert_documented(plugin, "slurm_gres_lines")


def test_gres_lines_result():
    gres = [{"nodes": "compute[01-08]", "type": "h100", "gpus": [{"index": i, "numa_node": i // 4} for i in range(8)],
             "numa_cores": {"0": "0-51", "1": "52-103"}}]
    assert slurm_gres_lines(gres, NODES, "22.05") == [
        "NodeName=compute[01-08] Name=gpu Type=h100 File=/dev/nvidia[0-3] Cores=0-51",
        "NodeName=compute[01-08] Name=gpu Type=h100 File=/dev/nvidia[4-7] Cores=52-103"]


@pytest.mark.parametrize("call, message", [
    (lambda: slurm_gres_lines({"nodes": "n1"}), r"^gpufleet\.cluster\.slurm_gres_lines: input must be a list"),
    (lambda: slurm_gres_lines([{"nodes": "compute[01-08]", "autodetect": "nvml", "count": 4}], NODES),
     r"^gpufleet\.cluster\.slurm_gres_lines: node compute01: slurm.conf Gres=gpu:h100:8 declares 8 gpu but gres.conf "
     r"has 4"),
    (lambda: slurm_gres_lines([], "n1"), r"^gpufleet\.cluster\.slurm_gres_lines: nodes must be a list"),
    (lambda: slurm_gres_lines([{"nodes": "n1", "autodetect": "nvml"}], None, None),
     r"^gpufleet\.cluster\.slurm_gres_lines: version must be a string"),
])
def test_errors_name_the_filter(call, message):
    with pytest.raises(AnsibleFilterError, match=message):
        call()


# ------------------------------------------------------------------ issue 13: device paths and names
@pytest.mark.parametrize("device, shown", [
    ("/dev/nvidia#", r"'/dev/nvidia#'"),  # before: File=/dev/nvidia#[0-3], the rest of the line a comment
    ("/dev/nvidia,Cores=", r"'/dev/nvidia,Cores='"),  # before: File=/dev/nvidia,Cores=[00-03]
    ("/dev/nvidia ", r"'/dev/nvidia '"),
    ("/dev/nvidia\n", r"'/dev/nvidia\\n'"),
    ("/dev/../etc/nvidia", r"'/dev/\.\./etc/nvidia'"),
    ("nvidia", r"'nvidia'"),
])
def test_gres_device_is_a_device_path(device, shown):
    refused(r"^gpufleet\.cluster\.slurm_gres_lines: gres\.conf NodeName=gpu01 device: %s is not allowed; %s"
            % (shown, DEVICE), slurm_gres_lines, [dict(GRES, device=device)])


def test_gres_device_none():
    # before: File=None[0-3]
    refused(r"gres\.conf NodeName=gpu01 device must be a string \(an absolute path under /dev .*\), got None of type "
            r"NoneType",
            slurm_gres_lines, [dict(GRES, device=None)])


def test_gres_device_ending_in_a_digit():
    refused(r"device: '/dev/nvidia1' ends in a digit; it is the prefix the GPU index is appended to",
            slurm_gres_lines, [dict(GRES, device="/dev/nvidia1")])


def test_gres_other_device_prefix_still_renders():
    assert slurm_gres_lines([dict(GRES, device="/dev/accel/accel")])[0] == \
        "NodeName=gpu01 Name=gpu Type=h100 File=/dev/accel/accel[0-3] Cores=0-51"


@pytest.mark.parametrize("field, value, shown", [
    ("type", "h100\n", r"type \(e\.g\. h100\): 'h100\\n'"),
    ("name", "gpu\n", r"name: 'gpu\\n'"),
    ("nodes", "gpu01\n", r"gres entry 0 nodes: hostlist 'gpu01\\n': control character '\\n' at position 5 is not "
                         r"allowed"),
])
def test_gres_fields_with_a_newline(field, value, shown):
    refused(shown + " is not allowed" if field != "nodes" else shown, slurm_gres_lines, [dict(GRES, **{field: value})])


def test_gres_core_list_with_a_newline():
    refused(r"numa_cores\[0\] '0-51\\n' is not a core list", slurm_gres_lines,
            [dict(GRES, numa_cores={0: "0-51\n", 1: "52-103"})])


# ------------------------------------------------------------------ property: refused, or lines that parse back
def _expanded(names):
    """The host names a gres entry's `nodes` stand for: each item is a hostlist expression ('0,1' is two nodes)."""
    try:
        return [host for name in names for host in expand_hostlist(name)]
    except HostlistError:
        return None


@FAST
@given(names=st.lists(NAME, min_size=1, max_size=3), model=NAME,
       device=st.one_of(VALID_DEVICE, near_valid(VALID_DEVICE), hostile_text(1, 16)))
# Found by hypothesis (2026-11-29): an item that is a hostlist of valid names ('0,1') is two nodes, not a bad name.
@example(names=["0,1"], model="h100", device="/dev/nvidia")
def test_gres_lines_are_refused_or_parse_back(names, model, device):
    entry = {"nodes": names, "type": model, "device": device,
             "gpus": [{"index": i, "numa_node": i // 4} for i in range(8)], "numa_cores": {0: "0-51", 1: "52-103"}}
    expanded = _expanded(names)
    valid = (expanded is not None and all(slurm_name(n) for n in expanded) and len(set(expanded)) == len(expanded)
             and slurm_name(model) and is_valid("device_path", device) and not device[-1].isdigit())
    try:
        lines = slurm_gres_lines([entry], None, "22.05.8")
    except AnsibleFilterError as error:
        event("refused")
        assert not valid, error
        assert str(error).startswith("gpufleet.cluster.slurm_gres_lines: ")
        return
    assert valid and len(lines) == 2 and all(clean(line) for line in lines)
    for numa, line in enumerate(lines):
        fields = key_values(line)
        assert set(fields) == {"NodeName", "Name", "Type", "File", "Cores"}
        assert expand_hostlist(fields["NodeName"]) == hosts(expanded)
        assert (fields["Name"], fields["Type"], fields["Cores"]) == ("gpu", model, ["0-51", "52-103"][numa])
        assert expand_hostlist(fields["File"], "device_path") == [
            "%s%d" % (device, i) for i in range(4 * numa, 4 * numa + 4)]


# ------------------------------------------------------------------ wrong types: refused by a check, nothing else
VALID = [[dict(GRES, device="/dev/nvidia")], [NODE], "22.05.8"]


def test_valid_call_works():
    assert slurm_gres_lines(*VALID) is not None


def test_wrong_types_and_missing_keys_are_refused():
    assert_only_refusals('slurm_gres_lines', slurm_gres_lines, VALID)
