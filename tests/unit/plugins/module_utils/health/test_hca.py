# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""health.hca: HCA ports in a fake sysfs against the inventory's expectation.

The trees are the recorded nodes: `fake_rdma_sysfs.h100_ndr` is the H100 node of
tests/fixtures/reference/outputs/infiniband/ibstat.h100-cx7-ib-ndr-some-down.gpud.txt, and `tree_from_ibstatus`
writes each port of an `ibstatus` recording (which prints the sysfs texts verbatim: `4: ACTIVE`, `5: LinkUp`,
`200 Gb/sec (4X HDR)`, `Ethernet`) into the files the kernel would hold. A case that changes a recorded value says so.
"""
from __future__ import annotations

import ast
import errno
import os
import re
import shutil
import sys
import tempfile

import pytest
from hypothesis import example, given, strategies as st

import fake_rdma_sysfs as sysfs_tree
from ansible_collections.gpufleet.cluster.plugins.module_utils.health import hca
from ansible_collections.gpufleet.cluster.plugins.module_utils.health.hca import HcaError, expectations, judge, read_port
from reference import FIXTURES, outputs

NDR_IB = [{"device": "mlx5_%d" % n, "port": 1, "rate": 400, "width": "4X", "link_layer": "InfiniBand"}
          for n in (0, 3, 4, 5, 6, 9, 10, 11)]  # the 8 ConnectX-7 NDR ports of the recorded H100 node
ROCE_1 = {"device": "mlx5_1", "port": 1, "rate": 100, "width": "4X", "link_layer": "Ethernet"}


def tree_from_ibstatus(tmp_path, text: str) -> str:
    """A sysfs tree holding, for each `Infiniband device '<dev>' port <n> status:` block of an ibstatus recording,
    its state, phys state, rate and link_layer texts as files; the PCI addresses are invented."""
    blocks = re.findall(r"Infiniband device '([^']+)' port (\d+) status:\n((?:[ \t]+\S.*\n?)+)", text)
    assert blocks, "not an ibstatus recording"
    root = os.path.join(str(tmp_path), "sys")
    tree = sysfs_tree.RdmaSysfs(root)
    devices = {}
    for device, port, body in blocks:
        values = dict((k.strip(), v.strip()) for k, v in re.findall(r"^[ \t]+([a-z_ ]+):[ \t]+(.*)$", body, re.M))
        files = {"state": values["state"], "phys_state": values["phys state"], "rate": values["rate"],
                 "link_layer": values["link_layer"]}
        if re.fullmatch(r"[0-9a-f]{4}(:[0-9a-f]{4}){7}", values["default gid"]):
            files["gids/0"] = values["default gid"]
        devices.setdefault(device, {})[int(port)] = files
    for number, (device, ports) in enumerate(devices.items()):
        tree.hca(device, "0000:%02x:00.0" % (number + 1), 0, {"node_guid": "0000:0000:0000:%04x" % number}, ports)
    return root


def recorded(*parts: str) -> str:
    with open(os.path.join(*parts), encoding="utf-8") as handle:
        return handle.read()


def codes(findings):
    return [(f.code, f.device, f.port) for f in findings]


def test_imports_only_the_standard_library():
    tree = ast.parse(open(hca.__file__, encoding="utf-8").read())
    names = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    names |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    assert names <= set(sys.stdlib_module_names) | {"__future__"}, names


# --- the recorded H100 node --------------------------------------------------------------------------------------

def test_recorded_h100_ndr_ports_are_as_expected(tmp_path):
    assert judge(NDR_IB + [ROCE_1], sysfs_tree.h100_ndr(tmp_path)) == []


def test_reads_the_kernel_texts(tmp_path):
    reading = read_port(sysfs_tree.h100_ndr(tmp_path), "mlx5_0", 1)
    assert (reading.state, reading.phys_state, reading.rate_gbps, reading.width, reading.speed, reading.link_layer,
            reading.rate_text) == ("ACTIVE", "LinkUp", 400.0, 4, "NDR", "InfiniBand", "400 Gb/sec (4X NDR)")


def test_recorded_down_ports_fail_with_what_they_need(tmp_path):
    # The recording's three ConnectX-6 Dx Ethernet ports are `State: Down` (phys Disabled in the tree).
    wanted = [dict(ROCE_1, device=name) for name in ("mlx5_2", "mlx5_7", "mlx5_8")]
    findings = judge(NDR_IB + wanted, sysfs_tree.h100_ndr(tmp_path, full=True))
    assert codes(findings) == [("hca_port_down", "mlx5_2", 1), ("hca_port_down", "mlx5_7", 1),
                               ("hca_port_down", "mlx5_8", 1)]
    assert findings[0].message == "mlx5_2 port 1 is DOWN (physical Disabled); needs ACTIVE/LinkUp at 100 Gb/s 4X Ethernet"
    assert findings[0].severity == "fail" and "cable" in findings[0].action


def test_a_port_waiting_for_the_subnet_manager(tmp_path):
    # EDITED recording: mlx5_5 port 1 in INIT with the physical link up (no subnet manager has configured it).
    root = sysfs_tree.h100_ndr(tmp_path, overrides={"mlx5_5": {"state": "2: INIT"}})
    findings = judge(NDR_IB, root)
    assert codes(findings) == [("hca_port_down", "mlx5_5", 1)]
    assert "is INIT (physical LinkUp)" in findings[0].message
    assert "subnet manager" in findings[0].action


def test_a_port_at_a_lower_rate(tmp_path):
    # EDITED recording: mlx5_4 trained at HDR; the text is the one ibstatus.a100-cx6-hdr.gpud.txt recorded.
    root = sysfs_tree.h100_ndr(tmp_path, overrides={"mlx5_4": {"rate": "200 Gb/sec (4X HDR)"}})
    findings = judge(NDR_IB, root)
    assert codes(findings) == [("hca_rate_low", "mlx5_4", 1)]
    assert findings[0].message == ("mlx5_4 port 1 runs at 200 Gb/sec (4X HDR), below the 400 Gb/s the inventory "
                                   "expects (needs ACTIVE/LinkUp at 400 Gb/s 4X InfiniBand)")


def test_a_port_at_a_lower_width(tmp_path):
    # EDITED recording: mlx5_9 with two of its four lanes (2X NDR, 200 Gb/s, as the kernel's rate_show writes it),
    # against an expectation of 200 Gb/s 4X: only the width is short.
    root = sysfs_tree.h100_ndr(tmp_path, overrides={"mlx5_9": {"rate": "200 Gb/sec (2X NDR)"}})
    findings = judge([{"device": "mlx5_9", "port": 1, "rate": 200, "width": "4X", "link_layer": "InfiniBand"}], root)
    assert codes(findings) == [("hca_width_low", "mlx5_9", 1)]
    assert "runs 2X wide (200 Gb/sec (2X NDR)), narrower than the 4X" in findings[0].message


def test_rate_and_width_both_low(tmp_path):
    # EDITED recording: mlx5_10 on one lane (1X NDR = 100 Gb/s).
    root = sysfs_tree.h100_ndr(tmp_path, overrides={"mlx5_10": {"rate": "100 Gb/sec (1X NDR)"}})
    assert [f.code for f in judge(NDR_IB, root)] == ["hca_rate_low", "hca_width_low"]


def test_roce_port_rate_and_link_layer(tmp_path):
    root = sysfs_tree.h100_ndr(tmp_path)
    assert codes(judge([dict(ROCE_1, rate=200)], root)) == [("hca_rate_low", "mlx5_1", 1)]
    findings = judge([dict(ROCE_1, link_layer="InfiniBand")], root)
    assert codes(findings) == [("hca_link_layer", "mlx5_1", 1)]
    assert findings[0].message.startswith("mlx5_1 port 1 is Ethernet; the inventory expects InfiniBand")


def test_an_expected_device_that_is_missing(tmp_path):
    findings = judge(NDR_IB + [dict(NDR_IB[0], device="mlx5_12")], sysfs_tree.h100_ndr(tmp_path))
    assert codes(findings) == [("hca_missing", "mlx5_12", 1)]
    assert findings[0].message == ("mlx5_12 is missing: no such device under %s; needs port 1 ACTIVE/LinkUp at "
                                   "400 Gb/s 4X InfiniBand" % os.path.join(str(tmp_path), "sys", "class", "infiniband"))


def test_a_device_whose_entry_dangles_is_missing(tmp_path):
    # The device went away (driver unbound): its class link points at nothing.
    root = sysfs_tree.h100_ndr(tmp_path)
    shutil.rmtree(os.path.realpath(os.path.join(root, "class", "infiniband", "mlx5_6")))
    assert codes(judge(NDR_IB, root)) == [("hca_missing", "mlx5_6", 1)]


def test_no_rdma_device_at_all(tmp_path):
    os.makedirs(os.path.join(str(tmp_path), "sys"))
    findings = judge(NDR_IB[:2], os.path.join(str(tmp_path), "sys"))
    assert codes(findings) == [("hca_missing", "mlx5_0", 1), ("hca_missing", "mlx5_3", 1)]


def test_an_expected_port_that_is_missing(tmp_path):
    findings = judge([dict(NDR_IB[0], port=2)], sysfs_tree.h100_ndr(tmp_path))
    assert codes(findings) == [("hca_port_missing", "mlx5_0", 2)]


@pytest.mark.parametrize("guid, device", [
    ("0x946dae0300cde72c", "mlx5_0"),      # node GUID as ibstat prints it
    ("946d:ae03:00cd:e780", "mlx5_5"),     # node GUID as sysfs writes it
    ("0x966daefffec2b690", "mlx5_1"),      # the RoCE port's GUID (GID 0's lower half), not its node GUID
])
def test_found_by_guid(tmp_path, guid, device):
    root = sysfs_tree.h100_ndr(tmp_path, overrides={device: {"state": "1: DOWN", "phys_state": "2: Polling"}})
    want = dict(NDR_IB[0] if device != "mlx5_1" else ROCE_1, guid=guid)
    del want["device"]
    assert codes(judge([want], root)) == [("hca_port_down", device, 1)]


def test_a_guid_no_device_has_is_missing(tmp_path):
    want = dict(NDR_IB[0], guid="0x0000000000000001")
    del want["device"]
    findings = judge([want], sysfs_tree.h100_ndr(tmp_path))
    assert codes(findings) == [("hca_missing", "0x0000000000000001", 1)]
    assert findings[0].message.startswith("the HCA with GUID 0x0000000000000001 is missing")


# --- trees written from ibstatus recordings -----------------------------------------------------------------------

def test_azure_ib_and_accelnet_ethernet_from_the_recording(tmp_path):
    root = tree_from_ibstatus(tmp_path, recorded(outputs("infiniband",
                                                         "ibstatus.azure-hpc-ib-and-eth.azhpc-diagnostics.txt")))
    ib = {"device": "mlx5_ib0", "port": 1, "rate": 200, "width": "4X", "link_layer": "InfiniBand"}
    assert judge([ib], root) == []
    assert read_port(root, "mlx5_an0", 1).rate_text == "40 Gb/sec (4X QDR)"  # RoCE/Ethernet in IB speed names
    assert codes(judge([dict(ib, device="mlx5_an0", link_layer="Ethernet", rate=100)], root)) == [
        ("hca_rate_low", "mlx5_an0", 1)]


def test_a100_hdr_node_from_the_recording(tmp_path):
    root = tree_from_ibstatus(tmp_path, recorded(outputs("infiniband", "ibstatus.a100-cx6-hdr.gpud.txt")))
    hdr = [{"device": "mlx5_%d" % n, "port": 1, "rate": 200, "width": "4X", "link_layer": "InfiniBand"}
           for n in range(8)]
    assert judge(hdr, root) == []
    assert [f.code for f in judge([dict(h, rate=400) for h in hdr], root)] == ["hca_rate_low"] * 8


def test_down_ports_show_a_rate_that_is_not_judged(tmp_path):
    # The OpenShift pod's DOWN ports still read `200 Gb/sec (4X HDR)`: judged down, not slow or fast.
    root = tree_from_ibstatus(tmp_path, recorded(FIXTURES, "rdma", "ibstatus.ocp-a40-sriov-client-pod.openshift-docs.txt"))
    want = [{"device": "mlx5_%d" % n, "port": 1, "rate": 400, "width": "4X", "link_layer": "Ethernet"} for n in (3, 4)]
    findings = judge(want, root)
    assert codes(findings) == [("hca_port_down", "mlx5_3", 1), ("hca_port_down", "mlx5_4", 1)]


# --- a read that fails is an error, never a healthy answer ------------------------------------------------------

def _failing_open(path_end: str, error: OSError):
    real = open

    def fake(path, *args, **kwargs):
        if str(path).endswith(path_end):
            raise error
        return real(path, *args, **kwargs)
    return fake


@pytest.mark.parametrize("error, words", [
    (PermissionError(errno.EACCES, "Permission denied"), "Permission denied"),
    (OSError(errno.EINVAL, "Invalid argument"), "Invalid argument"),       # rate_show returns -EINVAL
    (FileNotFoundError(errno.ENOENT, "No such file or directory"), "No such file"),  # the device vanished
    (OSError(errno.ENODEV, "No such device"), "No such device"),
])
def test_a_failed_read_raises(tmp_path, monkeypatch, error, words):
    root = sysfs_tree.h100_ndr(tmp_path)
    monkeypatch.setattr(hca, "open", _failing_open(os.path.join("mlx5_3", "ports", "1", "rate"), error), raising=False)
    with pytest.raises(HcaError, match=r"reading .*mlx5_3/ports/1/rate failed: %s.*not healthy" % words):
        judge(NDR_IB, root)


def test_a_port_file_removed_under_the_read_raises(tmp_path):
    root = sysfs_tree.h100_ndr(tmp_path)
    os.remove(os.path.join(root, "class", "infiniband", "mlx5_11", "ports", "1", "phys_state"))
    with pytest.raises(HcaError, match="mlx5_11/ports/1/phys_state failed"):
        judge(NDR_IB, root)


def test_an_unreadable_node_guid_raises_when_matching_by_guid(tmp_path, monkeypatch):
    root = sysfs_tree.h100_ndr(tmp_path)
    monkeypatch.setattr(hca, "open", _failing_open(os.path.join("mlx5_0", "node_guid"),
                                                   PermissionError(errno.EACCES, "Permission denied")), raising=False)
    want = dict(NDR_IB[1], guid="0x946dae0300cde728")
    del want["device"]
    with pytest.raises(HcaError, match="mlx5_0/node_guid failed: Permission denied"):
        judge([want], root)


@pytest.mark.parametrize("name, text, words", [
    ("rate", "fast", "not '<Gb/s> Gb/sec"),
    ("rate", "400", "not '<Gb/s> Gb/sec"),   # ibstat's number, not the sysfs text
    ("state", "ACTIVE", "not '<n>: <STATE>'"),
    ("phys_state", "", "not '<n>: <state>'"),
    ("link_layer", "Unknown", "not InfiniBand or Ethernet"),
])
def test_text_that_is_not_the_kernel_format_raises(tmp_path, name, text, words):
    root = sysfs_tree.h100_ndr(tmp_path, overrides={"mlx5_0": {name: text}})
    with pytest.raises(HcaError, match=re.escape(words)):
        judge(NDR_IB, root)


# --- the expectation ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("items, words", [
    ("mlx5_0", "expected: 'mlx5_0' is not a list"),
    ([["mlx5_0"]], r"expected\[0\]: \['mlx5_0'\] is not a mapping"),
    ([dict(ROCE_1, speed=1)], r"expected\[0\]: unknown key\(s\) speed"),
    ([{k: v for k, v in ROCE_1.items() if k != "device"}], r"expected\[0\]: give exactly one of device"),
    ([dict(ROCE_1, guid="0x1")], "give exactly one of device"),
    ([dict(ROCE_1, device="mlx5_0\n")], r"expected\[0\]\.device: 'mlx5_0\\n' is not"),
    ([dict(ROCE_1, port=0)], r"expected\[0\]\.port: 0 is not a port number"),
    ([dict(ROCE_1, port=True)], r"\.port: True"),
    ([dict(ROCE_1, rate="400")], r"\.rate: '400' is not a rate"),
    ([dict(ROCE_1, rate=float("nan"))], r"\.rate: nan"),
    ([dict(ROCE_1, width="4x")], r"\.width: '4x' is not a link width"),
    ([dict(ROCE_1, width="4X\n")], r"\.width: '4X\\n'"),
    ([dict(ROCE_1, link_layer="IB")], r"\.link_layer: 'IB' is not InfiniBand or Ethernet"),
    ([ROCE_1, {"guid": "0xzz", "port": 1, "rate": 1, "width": "1X", "link_layer": "Ethernet"}],
     r"expected\[1\]\.guid: '0xzz' is not a GUID"),
])
def test_bad_expectations_are_refused_by_name(items, words):
    with pytest.raises(HcaError, match=words):
        expectations(items)


def test_expectation_values():
    [want] = expectations([{"guid": "946D:AE03:00CD:E72C", "port": 1, "rate": 2.5, "width": "12X",
                            "link_layer": "InfiniBand"}])
    assert (want.guid, want.device, want.rate_gbps, want.width) == ("946dae0300cde72c", None, 2.5, 12)


# --- properties ----------------------------------------------------------------------------------------------------

_TEXTS = st.one_of(st.sampled_from(["4: ACTIVE", "5: LinkUp", "400 Gb/sec (4X NDR)", "2.5 Gb/sec (1X SDR)",
                                    "Ethernet", "InfiniBand", "99999999 Gb/sec (99X NDR)", "1: DOWN\n\n", "\udcff"]),
                   st.text(max_size=30))


@given(st.fixed_dictionaries({"state": _TEXTS, "phys_state": _TEXTS, "rate": _TEXTS, "link_layer": _TEXTS}),
       st.booleans())
@example({"state": "4: ACTIVE", "phys_state": "5: LinkUp", "rate": "400 Gb/sec (4X NDR)", "link_layer": "\x00"}, False)
def test_any_sysfs_text_reads_or_raises_hca_error(files, as_bytes):
    root = tempfile.mkdtemp(prefix="hca-prop-")
    try:
        tree = sysfs_tree.RdmaSysfs(root)
        port_dir = os.path.join(root, "devices", "x")
        os.makedirs(port_dir)
        for name, text in files.items():
            with open(os.path.join(port_dir, name), "wb") as handle:
                handle.write(text.encode("utf-8", "surrogateescape") if as_bytes else
                             text.encode("utf-8", "replace"))
        os.makedirs(os.path.join(root, "class", "infiniband", "mlx5_0", "ports"))
        os.symlink(port_dir, os.path.join(root, "class", "infiniband", "mlx5_0", "ports", "1"))
        assert tree.root == root
        try:
            findings = judge([{"device": "mlx5_0", "port": 1, "rate": 400, "width": "4X", "link_layer": "InfiniBand"}],
                             root)
        except HcaError:
            return
        reading = read_port(root, "mlx5_0", 1)
        assert (findings == []) == (reading.state == "ACTIVE" and reading.phys_state == "LinkUp"
                                    and reading.rate_gbps >= 400 and reading.width >= 4
                                    and reading.link_layer == "InfiniBand")
    finally:
        shutil.rmtree(root)


@given(st.lists(st.dictionaries(st.sampled_from(["device", "guid", "port", "rate", "width", "link_layer", "x"]),
                                st.one_of(st.text(max_size=20), st.integers(-5, 500), st.floats(), st.booleans(),
                                          st.none())), max_size=3))
def test_expectations_raise_only_hca_error(items):
    try:
        result = expectations(items)
    except HcaError:
        return
    assert len(result) == len(items)
