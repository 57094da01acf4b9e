# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""rdma_parse: the recorded ibstat/ibstatus/ibdev2netdev/rdma outputs, normalisers, merge and summary."""
from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.rdma.parse import (
    RdmaParseError, Reading, down_reason, guid_of_gid, merge, norm_link_layer, norm_phys_state, norm_state,
    parse_gid, parse_guid, parse_ibdev2netdev, parse_ibstat, parse_ibstatus, parse_ibv_devinfo, parse_int,
    parse_rate, parse_rdma_link, summarise,
)
from reference import FIXTURES, outputs

_IB = outputs("infiniband")
_FIXTURES = os.path.join(FIXTURES, "rdma")

IB_NDR = ["mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"]


def _reference(name):
    with open(os.path.join(_IB, name)) as handle:
        return handle.read()


def _fixture(name):
    with open(os.path.join(_FIXTURES, name)) as handle:
        return handle.read()


def _port(reading, name, number=1):
    return reading.devices[name].ports[number]


# ---------------------------------------------------------------- ibstat recordings

def test_ibstat_h100_ndr_some_down():
    reading = parse_ibstat(_reference("ibstat.h100-cx7-ib-ndr-some-down.gpud.txt"))
    assert reading.problems == [] and len(reading.devices) == 12
    ib = [n for n, d in reading.devices.items() if d.ports[1].link_layer == "InfiniBand"]
    assert sorted(ib) == sorted(IB_NDR)
    assert {reading.devices[n].ca_type for n in ib} == {"MT4129"}
    assert {reading.devices[n].firmware for n in ib} == {"28.39.1002"}
    # LIDs as printed (decimal), SM at LID 334 for every IB port, 400 Gb/s NDR.
    assert [_port(reading, n).base_lid for n in IB_NDR] == [75, 143, 343, 454, 597, 771, 828, 944]
    assert {(_port(reading, n).sm_lid, _port(reading, n).rate_gbps) for n in IB_NDR} == {(334, 400)}
    mlx5_0 = reading.devices["mlx5_0"]
    assert (mlx5_0.node_guid, mlx5_0.sys_image_guid, mlx5_0.hardware_version) == \
        ("0x946dae0300cde72c", "0x946dae0300cde72c", "0x0")
    assert mlx5_0.ports[1].port_guid == "0x946dae0300cde72c" and mlx5_0.ports[1].capability_mask == "0xa751e848"
    # The ConnectX-6 Dx ports (MT4125) are Ethernet: mlx5_1 ACTIVE at 100, three DOWN/Disabled at 40.
    roce = _port(reading, "mlx5_1")
    assert (roce.state, roce.phys_state, roce.rate_gbps, roce.link_layer, roce.base_lid) == \
        ("ACTIVE", "LinkUp", 100, "Ethernet", 0)
    down = sorted(n for n, d in reading.devices.items() if d.ports[1].state != "ACTIVE")
    assert down == ["mlx5_2", "mlx5_7", "mlx5_8"]
    assert {(_port(reading, n).phys_state, _port(reading, n).rate_gbps) for n in down} == {("Disabled", 40)}
    # mlx5_1/mlx5_2 are the two ports of one card: same system image GUID.
    assert reading.devices["mlx5_2"].sys_image_guid == "0x946dae0300c2b690" == reading.devices["mlx5_1"].node_guid


def test_ibstat_h100_roce_all_active():
    reading = parse_ibstat(_reference("ibstat.h100-cx7-roce-all-active.gpud.txt"))
    ports = [d.ports[1] for d in reading.devices.values()]
    assert len(ports) == 12 and {(p.state, p.link_layer, p.base_lid, p.sm_lid) for p in ports} == \
        {("ACTIVE", "Ethernet", 0, 0)}
    # 8 CX-7 at 400 with a MAC-derived port GUID, 4 CX-6 Dx at 100 whose Port GUID prints as zero.
    assert sorted(p.rate_gbps for p in ports) == [100] * 4 + [400] * 8
    assert _port(reading, "mlx5_0").port_guid == "0xa288c2fffee3142a"
    assert [_port(reading, n).port_guid for n in ("mlx5_1", "mlx5_2", "mlx5_7", "mlx5_8")] == ["0x0000000000000000"] * 4
    summary = summarise(merge([reading]))
    assert summary["active_by_link_layer"] == {"Ethernet": 12} and summary["not_active"] == []


def test_ibstat_a100_ibpanic_keeps_the_devices_before_it():
    text = _reference("ibstat.a100-cx6-hdr-ibpanic-exit255.gpud.txt")
    reading = parse_ibstat(text)
    assert list(reading.devices) == ["mlx5_%d" % i for i in range(8)]  # mlx5_8 is where ibstat panicked
    assert reading.problems == ["ibpanic: [1400444] main: stat of IB device 'mlx5_8' failed: No such file or directory"]
    assert [_port(reading, "mlx5_%d" % i).base_lid for i in range(8)] == \
        [13247, 13246, 13259, 13276, 13301, 13300, 13302, 13305]
    assert {(d.ca_type, d.firmware, d.ports[1].rate_gbps, d.ports[1].sm_lid) for d in reading.devices.values()} == \
        {("MT4124", "20.41.1000", 200, 1)}
    # Node GUID ...fe3411eb, port GUID ...fd3411eb: Azure's virtual function GUIDs differ in one byte.
    assert (reading.devices["mlx5_0"].node_guid, _port(reading, "mlx5_0").port_guid) == \
        ("0x00155dfffe3411eb", "0x00155dfffd3411eb")


def test_ibstat_filtered_output_is_refused():
    with pytest.raises(RdmaParseError, match=r"line 1 'Port 1:' comes before any"):
        parse_ibstat("Port 1:\n\t\tBase lid: 0\n")


def test_a_bad_value_is_reported_and_the_rest_kept():
    reading = parse_ibstat("CA 'mlx5_0'\n\tCA type: MT4129\n\tPort 1:\n\t\tState: Active\n\t\tRate: fast\n"
                           "\t\tBase lid: 7\n")
    assert reading.problems == ["line 5: rate 'fast' is not '<Gb/s> [Gb/sec (<width>X <speed>)]'; "
                                "expected e.g. '400 Gb/sec (4X NDR)'"]
    port = _port(reading, "mlx5_0")
    assert (port.state, port.rate_gbps, port.base_lid) == ("ACTIVE", None, 7)


# ---------------------------------------------------------------- ibstatus, ibdev2netdev

def test_ibstatus_a100_matches_ibstat_of_the_same_node():
    status = parse_ibstatus(_reference("ibstatus.a100-cx6-hdr.gpud.txt"))
    stat = parse_ibstat(_reference("ibstat.a100-cx6-hdr-ibpanic-exit255.gpud.txt"))
    assert status.problems == [] and len(status.devices) == 9
    # 0x33bf = 3*4096 + 3*256 + 11*16 + 15 = 13247, ibstat's "Base lid: 13247".
    assert _port(status, "mlx5_0").base_lid == 13247
    for i in range(8):
        name = "mlx5_%d" % i
        assert (_port(status, name).base_lid, _port(status, name).port_guid, _port(status, name).sm_lid) == \
            (_port(stat, name).base_lid, _port(stat, name).port_guid, _port(stat, name).sm_lid), name
        assert (_port(status, name).rate_gbps, _port(status, name).rate_detail) == (200, "4X HDR")
    # mlx5_8, the device ibstat could not stat, is the Ethernet (accelerated networking) port.
    eth = _port(status, "mlx5_8")
    assert (eth.link_layer, eth.rate_gbps, eth.rate_detail, eth.gid0, eth.port_guid, eth.base_lid) == \
        ("Ethernet", 40, "4X QDR", None, None, 0)


def test_ibstatus_azure_ib_and_ethernet():
    reading = parse_ibstatus(_reference("ibstatus.azure-hpc-ib-and-eth.azhpc-diagnostics.txt"))
    assert list(reading.devices) == ["mlx5_an0", "mlx5_ib0"]
    ib = _port(reading, "mlx5_ib0")
    # base lid 0x96 = 150, sm lid 0x11c = 284; GID fe80::15:5dff:fd33:ff0b -> port GUID 0x00155dfffd33ff0b.
    assert (ib.base_lid, ib.sm_lid, ib.port_guid, ib.rate_gbps, ib.link_layer) == \
        (150, 284, "0x00155dfffd33ff0b", 200, "InfiniBand")
    assert _port(reading, "mlx5_an0").gid0 is None and _port(reading, "mlx5_an0").link_layer == "Ethernet"


def test_ibdev2netdev_roce_two_ports():
    reading = parse_ibdev2netdev(_reference("ibdev2netdev.roce-2port.nvidia-cloud-native-stack.txt"))
    assert {n: d.ports[1].netdev for n, d in reading.devices.items()} == {"mlx5_0": "ens192f0", "mlx5_1": "ens192f1"}
    assert reading.problems == []


# ---------------------------------------------------------------- rdma link (fixtures with sources)

def test_rdma_link_roce_host_and_old_formats():
    host = parse_rdma_link(_fixture("rdma-link-show.cx5-roce-host.spiderpool.txt"))
    expected = [("mlx5_0", "ACTIVE", "LinkUp", "ens6f0np0", "Ethernet"),
                ("mlx5_1", "ACTIVE", "LinkUp", "ens6f1np1", "Ethernet")]
    assert [(n, d.ports[1].state, d.ports[1].phys_state, d.ports[1].netdev, d.ports[1].link_layer)
            for n, d in host.devices.items()] == expected
    old = parse_rdma_link(_fixture("rdma-link.old-format-shared-pod.spiderpool.txt"))
    assert [(n, d.ports[1].state, d.ports[1].netdev) for n, d in old.devices.items()] == \
        [("mlx5_0", "ACTIVE", None), ("mlx5_1", "ACTIVE", None)]
    sriov = parse_rdma_link(_fixture("rdma-link.old-format-sriov-pod.spiderpool.txt"))
    assert list(sriov.devices) == ["mlx5_3"] and _port(sriov, "mlx5_3").netdev == "eth0"
    # The real tool ends lines with a space and -d adds an indented caps line: both are harmless.
    details = parse_rdma_link("link mlx5_0/1 state ACTIVE physical_state LINK_UP netdev ens6f0np0 \n"
                              "    caps: <CM, IP_BASED_GIDS>\n")
    assert _port(details, "mlx5_0").netdev == "ens6f0np0" and details.problems == []


def test_openshift_pod_three_tools_agree():
    link = parse_rdma_link(_fixture("rdma-link-show.ocp-a40-sriov-client-pod.openshift-docs.txt"))
    status = parse_ibstatus(_fixture("ibstatus.ocp-a40-sriov-client-pod.openshift-docs.txt"))
    stat = parse_ibstat(_fixture("ibstat.ocp-a40-sriov-client-pod.openshift-docs.txt"))
    names = ["mlx5_%d" % i for i in range(10)]
    for reading in (link, status, stat):
        assert sorted(reading.devices) == names and reading.problems == []
    for name in names:  # every tool gives the same state, physical state and link layer
        assert len({(_port(r, name).state, _port(r, name).phys_state, _port(r, name).link_layer)
                    for r in (link, status, stat)}) == 1, name
    ib = _port(link, "mlx5_1")
    assert (ib.link_layer, ib.base_lid, ib.sm_lid, ib.lmc) == ("InfiniBand", 13, 1, 0)
    assert _port(status, "mlx5_1").base_lid == 13  # "base lid: 0xd"
    devices = merge([stat, status, link])
    vf = devices[2]
    assert vf["name"] == "mlx5_2" and vf["ca_type"] == "MT4124"
    assert (vf["ports"][0]["netdev"], vf["ports"][0]["port_guid"]) == ("net1", "0x546c59fffe41ae4a")
    assert vf["ports"][0]["sources"] == ["ibstat", "ibstatus", "rdma"]
    summary = summarise(devices)
    assert (summary["devices"], summary["ports"], summary["active"]) == (10, 10, 3)
    assert summary["active_by_link_layer"] == {"Ethernet": 2, "InfiniBand": 1}
    assert [p["device"] for p in summary["not_active"]] == ["mlx5_%d" % i for i in range(3, 10)]
    assert summary["not_active"][0]["reason"].startswith("port disabled (physical state Disabled)")


# ---------------------------------------------------------------- ibv_devinfo (no recording: built from devinfo.c)

def _devinfo(name, node, part, ports, verbose=False):
    """Text printed with the printf formats of rdma-core libibverbs/examples/devinfo.c (see tests/fixtures/rdma/README.md)."""
    out = "hca_id:\t%s\n\ttransport:\t\t\t%s (%d)\n\tfw_ver:\t\t\t\t%s\n" % (name, "InfiniBand", 0, "28.39.1002")
    out += "\tnode_guid:\t\t\t%s\n\tsys_image_guid:\t\t\t%s\n" % (node, node)
    out += "\tvendor_id:\t\t\t0x%04x\n\tvendor_part_id:\t\t\t%d\n\thw_ver:\t\t\t\t0x%X\n" % (0x02c9, part, 0)
    out += "\tboard_id:\t\t\t%s\n\tphys_port_cnt:\t\t\t%d\n" % ("MT_0000000838", len(ports))
    if verbose:
        out += "\tmax_mr_size:\t\t\t0x%x\n\tdevice_cap_flags:\t\t0x%08x\n\t\t\t\t\tBAD_PKEY_CNTR\n" % (2 ** 64 - 1, 0x21361c36)
    for number, (state, code, sm_lid, lid, layer, phys, width, speed, gid) in ports.items():
        out += "\t\tport:\t%d\n\t\t\tstate:\t\t\t%s (%d)\n" % (number, state, code)
        out += "\t\t\tmax_mtu:\t\t%s (%d)\n\t\t\tactive_mtu:\t\t%s (%d)\n" % ("4096", 5, "4096", 5)
        out += "\t\t\tsm_lid:\t\t\t%d\n\t\t\tport_lid:\t\t%d\n\t\t\tport_lmc:\t\t0x%02x\n" % (sm_lid, lid, 0)
        out += "\t\t\tlink_layer:\t\t%s\n" % layer
        if verbose:
            out += "\t\t\tport_cap_flags:\t\t0x%08x\n" % 0xa751e848
            out += "\t\t\tactive_width:\t\t%sX (%d)\n\t\t\tactive_speed:\t\t%s (%d)\n" % (width + speed)
            out += "\t\t\tphys_state:\t\t%s (%d)\n" % phys
            out += "\t\t\tGID[%3d]:\t\t%s\n" % (0, gid)
        out += "\n"
    return out


def test_ibv_devinfo_plain_and_verbose():
    ports = {1: ("PORT_ACTIVE", 4, 334, 75, "InfiniBand", ("LINK_UP", 5), ("4", 2), ("100.0 Gbps", 128),
                 "fe80:0000:0000:0000:946d:ae03:00cd:e72c"),
             2: ("PORT_DOWN", 1, 0, 65535, "InfiniBand", ("POLLING", 2), ("4", 2), ("invalid speed", 0),
                 "fe80:0000:0000:0000:946d:ae03:00cd:e72d")}
    plain = parse_ibv_devinfo(_devinfo("mlx5_0", "946d:ae03:00cd:e72c", 4129, ports))
    device = plain.devices["mlx5_0"]
    assert (device.firmware, device.node_guid, device.vendor_part_id, device.hardware_version, device.board_id) == \
        ("28.39.1002", "0x946dae0300cde72c", 4129, "0x0", "MT_0000000838")
    assert [(p.state, p.base_lid, p.sm_lid, p.lmc, p.link_layer, p.phys_state, p.rate_gbps)
            for p in device.ports.values()] == [("ACTIVE", 75, 334, 0, "InfiniBand", None, None),
                                                ("DOWN", 65535, 0, 0, "InfiniBand", None, None)]
    verbose = parse_ibv_devinfo(_devinfo("mlx5_0", "946d:ae03:00cd:e72c", 4129, ports, verbose=True))
    up, down = verbose.devices["mlx5_0"].ports[1], verbose.devices["mlx5_0"].ports[2]
    # 4 lanes x 100.0 Gb/s = 400, NDR; the DOWN port's "invalid speed" gives no rate.
    assert (up.phys_state, up.rate_gbps, up.rate_detail, up.port_guid, up.capability_mask) == \
        ("LinkUp", 400, "4X NDR", "0x946dae0300cde72c", "0xa751e848")
    assert (down.phys_state, down.rate_gbps) == ("Polling", None)
    assert parse_ibv_devinfo("").devices == {}


# ---------------------------------------------------------------- normalisers

@pytest.mark.parametrize("text, state", [
    ("4: ACTIVE", "ACTIVE"), ("Active", "ACTIVE"), ("PORT_ACTIVE (4)", "ACTIVE"), ("ACTIVE", "ACTIVE"),
    ("1: DOWN", "DOWN"), ("Down", "DOWN"), ("Initializing", "INIT"), ("2: INIT", "INIT"), ("PORT_ARMED (3)", "ARMED"),
    ("5: ACTIVE_DEFER", "ACTIVE_DEFER"), ("4", "ACTIVE"), ("UNKNOWN", "UNKNOWN"),
])
def test_norm_state(text, state):
    assert norm_state(text) == state


@pytest.mark.parametrize("text, phys", [
    ("5: LinkUp", "LinkUp"), ("LinkUp", "LinkUp"), ("LINK_UP", "LinkUp"), ("LINK_UP (5)", "LinkUp"),
    ("3: Disabled", "Disabled"), ("DISABLED", "Disabled"), ("2: Polling", "Polling"), ("POLLING", "Polling"),
    ("PORT_CONFIGURATION TRAINNING (4)", "PortConfigurationTraining"), ("LINK_ERROR_RECOVER", "LinkErrorRecovery"),
    ("7: Phy Test", "PhyTest"), ("OPA_OFFLINE", "OPA_OFFLINE"),
])
def test_norm_phys_state(text, phys):
    assert norm_phys_state(text) == phys


def test_values_and_their_errors():
    assert parse_rate("400 Gb/sec (4X NDR)") == (400, "4X NDR")
    assert parse_rate("2.5 Gb/sec (1X SDR)") == (2.5, "1X SDR") and parse_rate("400") == (400, None)
    assert parse_int("0x14e") == 334 and parse_int("334") == 334
    assert norm_link_layer("InfiniBand") == "InfiniBand" and norm_link_layer("Unknown") is None
    assert guid_of_gid(parse_gid("fe80:0000:0000:0000:966d:aeff:fec2:b690")) == "0x966daefffec2b690"
    with pytest.raises(RdmaParseError, match=r"rate 'fast' is not"):
        parse_rate("fast")
    with pytest.raises(RdmaParseError, match=r"GUID '0x12345678901234567' is not 16 hex digits"):
        parse_guid("0x12345678901234567")
    with pytest.raises(RdmaParseError, match=r"GID 'fe80::1' is not 8 colon-separated groups"):
        parse_gid("fe80::1")
    with pytest.raises(RdmaParseError, match=r"port state '9' is not a code 0-5"):
        norm_state("9")


# ---------------------------------------------------------------- merge and summary

def test_merge_earlier_source_wins_and_fills_gaps():
    first, second = Reading("sysfs"), Reading("ibstat")
    first.device("mlx5_10").port(1).state = "ACTIVE"
    second.device("mlx5_10").port(1).state = "DOWN"
    second.device("mlx5_10").ca_type = "MT4129"
    second.device("mlx5_2").port(1).state = "INIT"
    second.device("mlx5_2").port(1).phys_state = "LinkUp"
    devices = merge([first, second])
    assert [d["name"] for d in devices] == ["mlx5_2", "mlx5_10"]
    assert devices[1]["ca_type"] == "MT4129" and devices[1]["ports"][0]["state"] == "ACTIVE"
    assert devices[1]["sources"] == ["sysfs", "ibstat"] and devices[0]["sources"] == ["ibstat"]
    summary = summarise(devices)
    assert summary["not_active"] == [{"device": "mlx5_2", "port": 1, "state": "INIT", "phys_state": "LinkUp",
                                      "link_layer": None, "reason": down_reason("INIT", "LinkUp")}]
    assert "subnet manager" in summary["not_active"][0]["reason"]
    assert summary["active_by_link_layer"] == {"unknown": 1}


def test_down_reasons():
    assert down_reason("DOWN", "Polling").startswith("no link (physical state Polling)")
    assert down_reason("ARMED", "LinkUp").startswith("armed by the subnet manager")
    assert down_reason(None, None) == "no source reported the port state"
    assert down_reason("DOWN", "LinkUp") == "state DOWN, physical state LinkUp"


# ---------------------------------------------------------------- properties

_STATES = [("Down", "DOWN"), ("Initializing", "INIT"), ("Armed", "ARMED"), ("Active", "ACTIVE")]
_PHYS = ["Sleep", "Polling", "Disabled", "PortConfigurationTraining", "LinkUp", "LinkErrorRecovery", "PhyTest"]
_port_st = st.tuples(st.sampled_from(_STATES), st.sampled_from(_PHYS), st.sampled_from([10, 25, 40, 100, 200, 400]),
                     st.integers(0, 0xbfff), st.integers(0, 2 ** 64 - 1), st.sampled_from(["InfiniBand", "Ethernet"]))
_device_st = st.tuples(st.integers(0, 2 ** 64 - 1), st.lists(_port_st, min_size=1, max_size=2))


def _render_ibstat(devices, indent):
    """Print like infiniband-diags ibstat.c; indent '\\t' as the tool does, 8 spaces as an expanded capture."""
    out = []
    for index, (node, ports) in enumerate(devices):
        out += ["CA 'mlx5_%d'" % index, indent + "CA type: MT4129", indent + "Number of ports: %d" % len(ports),
                indent + "Firmware version: 28.39.1002", indent + "Hardware version: 0",
                indent + "Node GUID: 0x%016x" % node, indent + "System image GUID: 0x%016x" % node]
        for number, ((word, _state), phys, rate, lid, guid, layer) in enumerate(ports, 1):
            out += [indent + "Port %d:" % number] + [indent * 2 + line for line in (
                "State: " + word, "Physical state: " + phys, "Rate: %d" % rate, "Base lid: %d" % lid, "LMC: 0",
                "SM lid: 1", "Capability mask: 0xa751e848", "Port GUID: 0x%016x" % guid, "Link layer: " + layer)]
    return "\n".join(out)


@settings(max_examples=200, deadline=None)
@given(st.lists(_device_st, min_size=1, max_size=4), st.sampled_from(["\t", " " * 8]))
def test_ibstat_round_trip(devices, indent):
    reading = parse_ibstat(_render_ibstat(devices, indent))
    assert len(reading.devices) == len(devices)
    for index, (node, ports) in enumerate(devices):
        device = reading.devices["mlx5_%d" % index]
        assert device.node_guid == "0x%016x" % node
        got = [(p.state, p.phys_state, p.rate_gbps, p.base_lid, p.port_guid, p.link_layer) for p in device.ports.values()]
        assert got == [(state, phys, rate, lid, "0x%016x" % guid, layer)
                       for (_w, state), phys, rate, lid, guid, layer in ports]
    summary = summarise(merge([reading]))
    assert summary["active"] + len(summary["not_active"]) == summary["ports"] == sum(len(p) for _n, p in devices)
    assert sum(summary["active_by_link_layer"].values()) == summary["active"]


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2 ** 64 - 1))
def test_guid_spellings_agree(value):
    hexa = "%016x" % value
    colon = ":".join(hexa[i:i + 4] for i in range(0, 16, 4))
    assert parse_guid("0x" + hexa) == parse_guid(colon) == parse_guid(hexa.upper()) == "0x" + hexa
    assert guid_of_gid("fe80:0000:0000:0000:" + colon) == "0x" + hexa


_link_st = st.tuples(st.sampled_from(["ACTIVE", "DOWN", "INIT", "ARMED"]),
                     st.sampled_from(["LINK_UP", "POLLING", "DISABLED", "SLEEP"]),
                     st.one_of(st.none(), st.integers(1, 0xbfff)),
                     st.one_of(st.none(), st.text("abcnp0123456789", min_size=1, max_size=9)))


@settings(max_examples=200, deadline=None)
@given(st.lists(_link_st, min_size=1, max_size=6), st.booleans())
def test_rdma_link_round_trip(links, old_format):
    """Lines as iproute2 rdma/link.c prints them (each field followed by a space), new and old heads."""
    lines = []
    for index, (state, phys, lid, netdev) in enumerate(links):
        head = "%d/1: mlx5_%d/1: " % (index, index) if old_format else "link mlx5_%d/1 " % index
        ib = "subnet_prefix fe80:0000:0000:0000 lid %d sm_lid 1 lmc 0 " % lid if lid else ""
        lines.append(head + ib + "state %s physical_state %s " % (state, phys) + ("netdev %s " % netdev if netdev else ""))
    reading = parse_rdma_link("\n".join(lines) + "\n")
    for index, (state, phys, lid, netdev) in enumerate(links):
        port = _port(reading, "mlx5_%d" % index)
        assert (port.state, port.phys_state, port.base_lid, port.netdev) == (state, norm_phys_state(phys), lid, netdev)
        assert port.link_layer == ("InfiniBand" if lid else "Ethernet")
