# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""module_utils/nccl/topology.py: the layout model's rules (refusals compared in full), the writer, the reader and
the canonical tree, with NCCL's own reader as the oracle (tests/unit/helpers/fake_sysfs/nccl_reader.py) and the
reference files; the input rules of issue 13 (guid as NCCL reads it, finite in-range numbers, no control
characters, no raw exception from the nccl_topology_xml filter) and the property that what is written parses back
to the input."""

from __future__ import annotations

import copy
import math
import os
import re
import xml.etree.ElementTree as ET

import pytest
from ansible.errors import AnsibleFilterError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.filter.nccl_topology_xml import nccl_topology_xml
from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.topology import (
    canonical_tree,
    layout_from_xml,
    normalise_layout,
    render_xml,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.nccl.values import NcclTopologyError, guid_value
from nasty_input import hostile_numbers, hostile_text
from nccl_layouts import layout_refusal, make_bridge, make_cpu, make_gpu, make_nic, refusal_of

from fake_sysfs.nccl_reader import NcclReaderError, nccl_read  # noqa: E402
from reference import nccl_topology  # noqa: E402  pylint: disable=wrong-import-position

REFERENCE = nccl_topology()


REFERENCE_FILES = ("ndv4-topo.xml", "p4d-24xl-topo.xml")


# ---------------------------------------------------------------- layout builders


def _reference(name):
    with open(os.path.join(REFERENCE, name)) as handle:
        return handle.read()


def _nic_layout(**net):
    entry = {"name": "mlx5_0", "dev": 0}
    entry.update(net)
    return {"cpus": [{"numaid": 0, "affinity": "0000ffff", "arch": "x86_64", "vendor": "AuthenticAMD", "familyid": 25,
                      "pci": [{"busid": "0000:50:00.0", "class": "0x020000", "link_speed": "16.0 GT/s PCIe",
                               "link_width": 8, "nic": {"net": [entry]}}]}]}


def _net_attrs(text):
    return ET.fromstring(text).find("cpu/pci/nic/net").attrib


# ---------------------------------------------------------------- reference files


@pytest.mark.parametrize("name", REFERENCE_FILES)
def test_reference_round_trip_is_equivalent_and_attribute_exact(name):
    text = _reference(name)
    rendered = render_xml(layout_from_xml(text))
    assert canonical_tree(rendered) == canonical_tree(text)
    # Stronger: NCCL's own tokenizer sees the very same elements and attribute strings, in order
    # (the p4d file's comments and 8-space indents aside).
    assert nccl_read(rendered) == nccl_read(text)


def test_reference_ndv4_counts():
    tree = nccl_read(render_xml(layout_from_xml(_reference("ndv4-topo.xml"))))
    system = tree[0]
    assert system[0] == "system" and system[1] == [("version", "1")]
    cpus = system[2]
    assert [dict(c[1])["numaid"] for c in cpus] == ["0", "1", "2", "3"]
    # 4 NUMA nodes x 1 virtual switch x (2 GPUs + 2 IB NICs) = 8 GPUs and 8 NICs.
    leaves = [dict(p[1])["class"] for c in cpus for s in c[2] for p in s[2]]
    assert leaves.count("0x030200") == 8 and leaves.count("0x020700") == 8
    assert dict(cpus[3][1])["affinity"] == "ffffff00,00000000,00000000"


@pytest.mark.parametrize("name", REFERENCE_FILES)
def test_output_follows_nccls_reader_rules(name):
    text = render_xml(layout_from_xml(_reference(name)))
    assert not text.startswith("<?xml") and "\t" not in text and text.endswith("</system>\n")
    for line in text.splitlines():
        # one tag per line, two spaces per level, single spaces between attributes, none before '/>'.
        assert re.fullmatch(r'( {2})*<(/?[a-z]+)( [a-z_]+="[^"<>&]*")*/?>', line), line
        assert ' />' not in line and '  ' not in line.strip()


def test_reader_oracle_refuses_what_nccl_refuses():
    # The oracle is only useful if it is as strict as xml.cc: prove it on NCCL's known failure modes.
    for bad in ('<?xml version="1.0"?>\n<system version="1"/>\n',
                '<system version="1">\n\t<cpu numaid="0"/>\n</system>\n',
                '<system\n version="1"/>\n',
                '<system version=1/>\n'):
        with pytest.raises(NcclReaderError):
            nccl_read(bad)


# ---------------------------------------------------------------- guid: the number NCCL reads


@pytest.mark.parametrize("given_, written", [
    ("10", "0x10"),          # NCCL >= 2.28 reads '10' with strtoull(.., 16): sixteen; <= 2.27 needs the 0x
    ("0x10", "0x10"), ("0X0A", "0xa"), ("a088c20300100000", "0xa088c20300100000"), ("0", "0x0"),
    (10, "0xa"),             # a YAML integer is that number
    (0, "0x0"), (2 ** 64 - 1, "0xffffffffffffffff"),
])
def test_guid_keeps_the_value_nccl_reads(given_, written):
    text = render_xml(_nic_layout(guid=given_))
    assert _net_attrs(text)["guid"] == written
    # The parser and the comparison read it the same way: layout_from_xml -> render keeps it, canonical equal.
    assert render_xml(layout_from_xml(text)) == text
    if isinstance(given_, str):
        assert guid_value(written) == guid_value(given_) == int(given_, 16)


@pytest.mark.parametrize("bad", ["-1", "0x", "0x10000000000000000", "g1", "10\n", 2 ** 64, -1, 1.5, True,
                                 None, [], "0x1 0"])
def test_guid_refused(bad):
    if bad is None:
        return  # None means "not given"
    with pytest.raises(NcclTopologyError, match="guid"):
        render_xml(_nic_layout(guid=bad))


def test_aws_p5_style_bare_decimal_guids():
    """AWS's p5.48xl file (aws-ofi-nccl topology/p5.48xl-topo.xml) numbers its 32 EFA devices guid="0".."31"."""
    nets = "".join('<net name="rdmap%ds0" dev="%d" speed="100000" port="1" latency="0.0" guid="%d" maxconn="1024" '
                   'gdr="1"/>' % (79 + i, i, i) for i in range(32))
    text = ('<system version="1"><cpu numaid="0" affinity="0000ffff,ffffffff" arch="x86_64" vendor="AuthenticAMD" '
            'familyid="25" modelid="17"><pci busid="0000:50:00.0" class="0x020000" link_speed="16.0 GT/s PCIe" '
            'link_width="8"><nic>%s</nic></pci></cpu></system>' % nets)
    rendered = render_xml(layout_from_xml(text))
    written = [net.get("guid") for net in ET.fromstring(rendered).iter("net")]
    assert written[:3] == ["0x0", "0x1", "0x2"] and written[10] == "0x10" and written[31] == "0x31"
    # Every guid is the number NCCL 2.28 reads from the original (strtoull base 16), and they stay distinct.
    assert [int(g, 16) for g in written] == [int(str(i), 16) for i in range(32)]
    assert len(set(written)) == 32
    assert canonical_tree(rendered) == canonical_tree(text)
    # latency="0.0" is written as given.
    assert {net.get("latency") for net in ET.fromstring(rendered).iter("net")} == {"0.0"}


def test_reference_files_keep_their_guids_and_tree():
    with open(os.path.join(REFERENCE, "p4d-24xl-topo.xml"), encoding="utf-8") as handle:
        text = handle.read()
    rendered = render_xml(layout_from_xml(text))
    assert canonical_tree(rendered) == canonical_tree(text)
    # What NCCL 2.28.9 itself wrote (guid="0x0", '%#lx'): canonical_tree reads it as NCCL does, 0. (Its <nic> sits
    # under <cpu>, a virtio NIC, which the _nic_layout model does not describe, so it is compared, not re-rendered.)
    with open(os.path.join(REFERENCE, "h100-vm-1gpu.nccl-2.28.9-dump.xml"), encoding="utf-8") as handle:
        dump = canonical_tree(handle.read())
    nets = []

    def walk(node):
        if node[0] == "net":
            nets.append(dict(node[1]))
        for kid in node[2]:
            walk(kid)
    walk(dump)
    assert [(n["name"], n["guid"], n["latency"]) for n in nets] == [("eth0", 0, 0)]


# ---------------------------------------------------------------- numbers: finite and in range


@pytest.mark.parametrize("latency, written", [("0.0", "0.0"), ("0", "0"), (0, "0"), (2.5, "2.5"), ("12.75", "12.75"),
                                              (1e-05, "0.00001")])
def test_latency_accepted(latency, written):
    assert _net_attrs(render_xml(_nic_layout(latency=latency)))["latency"] == written


@pytest.mark.parametrize("latency", ["nan", "NaN", "inf", "-1", "1e3", "", " ", "0x10", float("nan"), float("inf"),
                                     -0.5, 1e7, "1000001", True, [1], "1.0\n"])
def test_latency_refused(latency):
    with pytest.raises(NcclTopologyError, match="latency"):
        render_xml(_nic_layout(latency=latency))
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet.cluster.nccl_topology_xml: .*latency .*"):
        nccl_topology_xml(_nic_layout(latency=latency))


@pytest.mark.parametrize("key, value, message", [
    ("speed", 2 ** 31, "2147483648 is outside 0..2147483647"),
    ("port", -1, "-1 is outside 0..2147483647"),
    ("maxconn", "1e3", "'1e3' is not an integer"),
    ("dev", float("nan"), "nan is not an integer"),
    ("speed", "400000\n", "holds a control character"),
    ("name", "mlx5_0\n", "holds a control character"),
    ("name", 'a"b', "holds a quote"),
])
def test_integers_and_text_refused(key, value, message):
    with pytest.raises(AnsibleFilterError, match=message):
        nccl_topology_xml(_nic_layout(**{key: value}))


@pytest.mark.parametrize("bad", [None, [], "x", 5, {"cpus": None}, {"cpus": [None]}, {"cpus": "abc"},
                                 {"cpus": [{"numaid": 0, "pci": "x"}]}, {"cpus": [{"numaid": {}, "pci": []}]},
                                 {"cpus": [{"numaid": 0, "affinity": {}, "pci": []}]},
                                 {"cpus": [{"numaid": 0, "pci": [{"busid": 5}]}]},
                                 {"cpus": [{"numaid": 0, "pci": [{"busid": "0000:01:00.0", "class": [],
                                                                  "link_speed": None, "link_width": {}}]}]},
                                 {"version": "x", "cpus": []}, {1: 2}])
def test_wrong_types_are_clear_errors(bad):
    with pytest.raises(AnsibleFilterError, match="^gpufleet.cluster.nccl_topology_xml: "):
        nccl_topology_xml(bad)


# ---------------------------------------------------------------- affinity


def test_computed_masks_share_the_widest_group_count():
    # 24-47 needs two groups (bits 24-31 -> ff000000, bits 32-47 -> 0000ffff); 0-23 is padded to two.
    norm = normalise_layout({"cpus": [make_cpu(0, "0-23"), make_cpu(1, "24-47")]})
    assert [c["affinity"] for c in norm["cpus"]] == ["00000000,00ffffff", "0000ffff,ff000000"]


def test_h100_cpulists_match_the_kernels_cpumap():
    # topo-m.8xH100: NUMA 0 = CPUs 0-51, NUMA 1 = 52-103; nr_cpu_ids 104 -> 4 groups.
    norm = normalise_layout({"cpus": [make_cpu(0, "0-51"), make_cpu(1, "52-103")]})
    assert [c["affinity"] for c in norm["cpus"]] == ["00000000,00000000,000fffff,ffffffff",
                                                     "000000ff,ffffffff,fff00000,00000000"]


def test_overlapping_affinity_refused():
    message = layout_refusal({"cpus": [make_cpu(0, "0-31"), make_cpu(1, "24-47")]})
    assert "cpu[numaid=1]" in message and "CPUs 24-31" in message


def test_empty_affinity_refused():
    assert "affinity is empty" in layout_refusal({"cpus": [make_cpu(0, 0)]})


def test_affinity_may_be_left_out():
    norm = normalise_layout({"cpus": [make_cpu(0, None)]})
    assert "affinity" not in norm["cpus"][0]


# ---------------------------------------------------------------- layout validation


def test_full_layout_renders_in_nccl_attribute_order():
    gpu = make_gpu("0000:53:00.0", vendor=0x10DE, device="2330", subsystem_vendor="0x10de", subsystem_device="16C1",
                   gpu={"dev": 0, "sm": 90, "rank": 0, "gdr": True,
                        "nvlink": [{"target": "0000:05:00.0", "count": 18, "tclass": "nvswitch"}]})
    nic = {"busid": "0000:52:00.0", "class": "ib", "link_speed": "gen5", "link_width": "x16",
           "nic": {"net": [{"name": "mlx5_0", "dev": 0, "speed": 400000, "port": 1, "guid": "a088c20300100000",
                            "gdr": 1}]}}
    text = render_xml({"cpus": [make_cpu(0, "0-51", pci=[make_bridge("0000:50:00.0", [nic, gpu])])]})
    assert text == (
        '<system version="1">\n'
        '  <cpu numaid="0" affinity="000fffff,ffffffff" arch="x86_64" vendor="GenuineIntel" familyid="6"'
        ' modelid="143">\n'
        '    <pci busid="0000:50:00.0" class="0x060400" link_speed="32.0 GT/s PCIe" link_width="16">\n'
        '      <pci busid="0000:52:00.0" class="0x020700" link_speed="32.0 GT/s PCIe" link_width="16">\n'
        '        <nic>\n'
        '          <net name="mlx5_0" dev="0" speed="400000" port="1" guid="0xa088c20300100000" gdr="1"/>\n'
        '        </nic>\n'
        '      </pci>\n'
        '      <pci busid="0000:53:00.0" class="0x030200" vendor="0x10de" device="0x2330"'
        ' subsystem_vendor="0x10de" subsystem_device="0x16c1" link_speed="32.0 GT/s PCIe" link_width="16">\n'
        '        <gpu dev="0" sm="90" rank="0" gdr="1">\n'
        '          <nvlink target="0000:05:00.0" count="18" tclass="0x068000"/>\n'
        '        </gpu>\n'
        '      </pci>\n'
        '    </pci>\n'
        '  </cpu>\n'
        '</system>\n')
    assert nccl_read(text)[0][0] == "system"


def test_duplicate_busid_refused_naming_both_places():
    message = layout_refusal({"cpus": [make_cpu(0, pci=[make_bridge("0000:50:00.0", [make_gpu("0000:53:00.0")])]),
                                       make_cpu(1, "24-47", pci=[make_gpu("0000:53:00.0")])]})
    assert "busid 0000:53:00.0 appears twice" in message
    assert "cpu[numaid=0] > pci[0000:50:00.0] > pci[0000:53:00.0]" in message
    assert message.startswith("cpu[numaid=1] > pci[0000:53:00.0]")


def test_duplicate_busid_in_other_case_refused():
    assert "appears twice" in layout_refusal({"cpus": [make_cpu(0, pci=[make_gpu("0000:ca:00.0"), make_gpu("0000:CA:00.0")])]})


def test_bad_busid_refusal_names_the_place_and_value():
    message = layout_refusal({"cpus": [make_cpu(0, pci=[make_bridge("0000:50:00.0", [make_gpu("0000:53:00")])])]})
    assert message.startswith("cpu[numaid=0] > pci[0000:50:00.0] > pci #0")
    assert "'0000:53:00'" in message and "e.g. '0000:3b:00.0'" in message


def test_gpu_missing_required_attributes_refused():
    message = layout_refusal({"cpus": [make_cpu(0, pci=[make_gpu("0000:53:00.0", gpu={"dev": 0, "rank": 0})])]})
    assert "pci[0000:53:00.0] > gpu" in message and "sm, gdr" in message


def test_pci_missing_link_width_refused():
    pci = make_gpu("0000:53:00.0")
    del pci["link_width"]
    assert "missing required attribute(s) link_width" in layout_refusal({"cpus": [make_cpu(0, pci=[pci])]})


def test_unknown_class_refused_naming_device():
    message = layout_refusal({"cpus": [make_cpu(0, pci=[make_gpu("0000:e4:00.0", **{"class": "0x010802"})])]})
    assert "pci[0000:e4:00.0] class" in message and "'0x010802'" in message


def test_unknown_key_refused():
    message = layout_refusal({"cpus": [make_cpu(0, pci=[make_gpu("0000:53:00.0", linkspeed=16)])]})
    assert "a pci has unknown key(s) 'linkspeed'; allowed: busid, class, device, gpu, link_speed" in message


@pytest.mark.parametrize("pci, words", [
    (make_gpu("0000:53:00.0", gpu={"dev": 0, "sm": 90, "rank": 0, "gdr": 1}, **{"class": "bridge"}),
     "a gpu element under class 0x060400"),
    (make_gpu("0000:53:00.0", nic={"net": [{"dev": 0}]}), "a nic element under class 0x030200"),
    (make_gpu("0000:53:00.0", pci=[make_gpu("0000:54:00.0")]), "class 0x030200 (gpu) has child pci"),
])
def test_misplaced_children_refused(pci, words):
    assert words in layout_refusal({"cpus": [make_cpu(0, pci=[pci])]})


def test_net_without_dev_refused():
    nic = {"busid": "0000:52:00.0", "class": "ib", "link_speed": 32, "link_width": 16,
           "nic": {"net": [{"name": "mlx5_0"}]}}
    assert "net is missing required attribute(s) dev" in layout_refusal({"cpus": [make_cpu(0, pci=[nic])]})


@pytest.mark.parametrize("cpu, words", [
    (make_cpu(0, vendor=None), "needs vendor GenuineIntel or AuthenticAMD"),
    (make_cpu(0, modelid=None), "GenuineIntel CPU needs modelid"),
    (make_cpu(0, arch="sparc64"), "arch 'sparc64' is unknown to NCCL"),
    (make_cpu(0, arch=None), "missing arch"),
    (make_cpu(None), "missing numaid"),
    (make_cpu(-2), "-2 is outside -1..2147483647"),
])
def test_cpu_refusals(cpu, words):
    assert words in layout_refusal({"cpus": [cpu]})


def test_cpu_shorthands_and_amd_without_modelid():
    norm = normalise_layout({"cpus": [make_cpu(0, arch="amd64", vendor="amd", familyid=25, modelid=None),
                                      {"numaid": 1, "arch": "aarch64"}]})
    assert norm["cpus"][0]["vendor"] == "AuthenticAMD" and "modelid" not in norm["cpus"][0]
    assert norm["cpus"][1] == {"numaid": "1", "arch": "arm64", "pci": []}


def test_repeated_numaid_refused():
    assert "numaid appears twice" in layout_refusal({"cpus": [make_cpu(0, "0-3"), make_cpu(0, "4-7")]})


def test_version_other_than_one_refused():
    assert "version 1" in layout_refusal({"version": 2, "cpus": [make_cpu(0)]})


@pytest.mark.parametrize("name, words", [
    ('mlx5"0', "holds a quote"), ("mlx5_0<", "holds a quote"), ("m" * 256, "256 characters"),
])
def test_unsafe_values_refused(name, words):
    nic = {"busid": "0000:52:00.0", "class": "ib", "link_speed": 32, "link_width": 16,
           "nic": {"net": [{"name": name, "dev": 0}]}}
    assert words in layout_refusal({"cpus": [make_cpu(0, pci=[nic])]})


def test_too_many_children_refused():
    kids = [make_gpu("0000:%02x:%02x.0" % (1 + i // 32, i % 32)) for i in range(641)]
    assert "641 pci children; NCCL's reader allows 640" in layout_refusal({"cpus": [make_cpu(0, pci=kids)]})


def test_empty_cpus_refused():
    assert "cpus is empty" in layout_refusal({"cpus": []})


def test_input_not_mutated():
    layout = {"cpus": [make_cpu(0, pci=[make_gpu("0000:53:00.0")])]}
    before = copy.deepcopy(layout)
    render_xml(layout)
    assert layout == before


# ---------------------------------------------------------------- layout validation, refusals in full


@pytest.mark.parametrize("layout, message", [
    ([], "system: a system must be a mapping, got [] of type list"),
    ({"cpus": "x"}, "system: cpus must be a list, got 'x' of type str"),
    ({"cpus": []}, "system: cpus is empty; a topology needs at least one cpu (NUMA node)"),
    ({"cpus": [make_cpu(0)], "name": "a\tb"},
     "system: name 'a\\tb' holds a control character (a newline, tab ...); NCCL reads the value raw. Allowed: "
     "printable characters only"),
    ({"cpus": [make_cpu(0)], "nodes": 1}, "system: a system has unknown key(s) 'nodes'; allowed: cpus, name, version"),
    ({"version": "2", "cpus": [make_cpu(0)]}, "system version: NCCL reads only topology version 1, got '2'"),
    ({"cpus": [7]}, "cpu #0: a cpu must be a mapping, got 7 of type int"),
    ({"cpus": [make_cpu(0), {"arch": "x86_64"}]},
     "cpu #1: cpu is missing numaid (NCCL's reader needs it); use the NUMA node number"),
    ({"cpus": [make_cpu(0, arch=None)]}, "cpu[numaid=0]: missing arch; NCCL needs one of x86_64, arm64, ppc64"),
    ({"cpus": [make_cpu(3, arch="mips")]}, "cpu[numaid=3]: arch 'mips' is unknown to NCCL; use x86_64, arm64 or ppc64"),
    ({"cpus": [make_cpu(0, vendor="HygonGenuine")]},
     "cpu[numaid=0]: x86 CPU needs vendor GenuineIntel or AuthenticAMD (got 'HygonGenuine'); NCCL picks its "
     "bandwidth model from it"),
    ({"cpus": [make_cpu(0, vendor=None)]},
     "cpu[numaid=0]: x86 CPU needs vendor GenuineIntel or AuthenticAMD (got None); NCCL picks its bandwidth model "
     "from it"),
    ({"cpus": [make_cpu(0, familyid=None, modelid=None)]},
     "cpu[numaid=0]: GenuineIntel CPU needs familyid and modelid (from /proc/cpuinfo 'cpu family' and 'model')"),
    ({"cpus": [make_cpu(0, vendor="shanghai", modelid=None)]},
     "cpu[numaid=0]: Shanghai CPU needs modelid (from /proc/cpuinfo 'cpu family' and 'model')"),
    ({"cpus": [make_cpu(0, vendor="AMD", familyid=None, modelid=None)]},
     "cpu[numaid=0]: AuthenticAMD CPU needs familyid (from /proc/cpuinfo 'cpu family' and 'model')"),
    ({"cpus": [make_cpu(0, affinity=[])]},
     "cpu[numaid=0]: affinity is empty; a NUMA node with devices must own CPUs, or leave affinity out"),
    ({"cpus": [make_cpu(0, affinity="zz")]},
     "cpu[numaid=0] affinity: affinity 'zz' is neither a cpumap ('0000ffff,ffffffff': 8 hex digits per 32 CPUs) nor "
     "a CPU list ('0-23,48-71')"),
    ({"cpus": [make_cpu(0, "0-3"), make_cpu(0, "4-7")]},
     "cpu[numaid=0]: numaid appears twice; give each NUMA node one cpu"),
    ({"cpus": [make_cpu(0, "0-31"), make_cpu(1, "24-47")]},
     "cpu[numaid=1]: affinity shares CPUs 24-31 with another NUMA node; each CPU belongs to one node"),
    ({"cpus": [make_cpu(0, "0,5"), make_cpu(1, "5-9")]},
     "cpu[numaid=1]: affinity shares CPUs 5 with another NUMA node; each CPU belongs to one node"),
    ({"cpus": [make_cpu(0, pci="x")]}, "cpu[numaid=0]: pci must be a list, got 'x' of type str"),
    ({"cpus": [make_cpu(2147483648)]}, "cpu #0 numaid: 2147483648 is outside -1..2147483647"),
    ({"cpus": [make_cpu(0, familyid=-1)]}, "cpu #0 familyid: -1 is outside 0..2147483647"),
    ({"cpus": [make_cpu(0, host_hash="")]}, "cpu #0 host_hash: '' must be a non-empty string"),
    ({"cpus": [make_cpu(0, host_hash=True)]}, "cpu #0 host_hash: True must be a non-empty string"),
    ({"cpus": [make_cpu(0, host_hash="h" * 256)]}, "cpu #0: host_hash is 256 characters; NCCL's reader stops at 255"),
    ({"cpus": [make_cpu(0, host_hash="caf\u00e9")]},
     "cpu #0: host_hash 'caf\u00e9' holds a quote, <, >, & or a non-printable character; NCCL reads values raw (no "
     "entities), so remove it"),
])
def test_layout_refusals_in_full(layout, message):
    assert layout_refusal(layout) == message


def test_pci_refusals_in_full():
    where = "cpu[numaid=0] > pci[0000:50:00.0]"
    assert layout_refusal({"cpus": [make_cpu(0, pci=[make_gpu("0000:53:00.0"), "x"])]}) == (
        "cpu[numaid=0] > pci #1: a pci must be a mapping, got 'x' of type str")
    assert layout_refusal({"cpus": [make_cpu(0, pci=[{"busid": "0000:53:00.0", "class": "gpu"}])]}) == (
        "cpu[numaid=0] > pci #0: pci is missing required attribute(s) link_speed, link_width (NCCL's reader needs them)")
    assert layout_refusal({"cpus": [make_cpu(0, pci=[make_gpu("0000:53:00.0", nvlink=1)])]}) == (
        "cpu[numaid=0] > pci #0: a pci has unknown key(s) 'nvlink'; allowed: busid, class, device, gpu, link_speed, "
        "link_width, nic, pci, pcilink, subsystem_device, subsystem_vendor, vendor")
    assert layout_refusal({"cpus": [make_cpu(0, pci=[make_bridge("0000:50:00.0", [make_gpu("0000:53:00.0")]),
                                                     make_gpu("0000:53:00.0")])]}) == (
        "cpu[numaid=0] > pci[0000:53:00.0]: busid 0000:53:00.0 appears twice (first at %s > pci[0000:53:00.0]); NCCL "
        "keys devices by busid, keep one" % where)
    assert layout_refusal({"cpus": [make_cpu(0, pci=[make_nic("0000:52:00.0", pcilink=[{"target": "0000:53:00.0"}])])]}) == (
        "cpu[numaid=0] > pci[0000:52:00.0]: class 0x020700 (nic) has child pci/pcilink elements; NCCL only follows "
        "children of bridges (0x060400), so nest them under the switch instead")
    nvswitch = make_gpu("0000:53:00.0", **{"class": "nvswitch", "pci": [make_gpu("0000:54:00.0")]})
    assert layout_refusal({"cpus": [make_cpu(0, pci=[nvswitch])]}) == (
        "cpu[numaid=0] > pci[0000:53:00.0]: class 0x068000 (nvswitch) has child pci/pcilink elements; NCCL only "
        "follows children of bridges (0x060400), so nest them under the switch instead")
    assert layout_refusal({"cpus": [make_cpu(0, pci=[make_nic("0000:52:00.0", gpu={"dev": 0, "sm": 90, "rank": 0, "gdr": 1})])]}) \
        == "cpu[numaid=0] > pci[0000:52:00.0]: a gpu element under class 0x020700; only 0x03xxxx devices are GPUs"
    assert layout_refusal({"cpus": [make_cpu(0, pci=[make_bridge("0000:50:00.0", nic={"net": []})])]}) == (
        "%s: a nic element under class 0x060400; only 0x02xxxx devices are NICs" % where)
    assert layout_refusal({"cpus": [make_cpu(0, pci=[make_gpu("0000:53:00.0", gpu={"dev": 0, "sm": 90, "rank": 0})])]}) == (
        "cpu[numaid=0] > pci[0000:53:00.0] > gpu: gpu is missing required attribute(s) gdr (NCCL's reader needs them)")
    gpu = {"dev": 0, "sm": 90, "rank": 0, "gdr": 1, "nvlink": [{"target": "0000:05:00.0", "count": 18}]}
    assert layout_refusal({"cpus": [make_cpu(0, pci=[make_gpu("0000:53:00.0", gpu=gpu)])]}) == (
        "cpu[numaid=0] > pci[0000:53:00.0] > gpu > nvlink: nvlink is missing required attribute(s) tclass (NCCL's "
        "reader needs them)")
    gpu = {"dev": 0, "sm": 90, "rank": 0, "gdr": 2}
    assert layout_refusal({"cpus": [make_cpu(0, pci=[make_gpu("0000:53:00.0", gpu=gpu)])]}) == (
        "cpu[numaid=0] > pci[0000:53:00.0] > gpu gdr: 2 is outside 0..1")
    gpu = {"dev": 0, "sm": 90, "rank": 0, "gdr": 1, "c2c": [{"count": 2, "bw": -1}]}
    assert layout_refusal({"cpus": [make_cpu(0, pci=[make_gpu("0000:53:00.0", gpu=gpu)])]}) == (
        "cpu[numaid=0] > pci[0000:53:00.0] > gpu > c2c bw: -1 is outside 0..2147483647")
    assert layout_refusal({"cpus": [make_cpu(0, pci=[make_nic("0000:52:00.0", nic={"net": [{"dev": 0}, {"name": "x"}]})])]}) == (
        "cpu[numaid=0] > pci[0000:52:00.0] > nic > net #1: net is missing required attribute(s) dev (NCCL's reader "
        "needs them)")
    assert layout_refusal({"cpus": [make_cpu(0, pci=[make_nic("0000:52:00.0", nic={"net": [{"dev": 0, "coll": 3}]})])]}) == (
        "cpu[numaid=0] > pci[0000:52:00.0] > nic > net coll: 3 is outside 0..1")
    assert layout_refusal({"cpus": [make_cpu(0, pci=[make_nic("0000:52:00.0", nic={"nets": []})])]}) == (
        "cpu[numaid=0] > pci[0000:52:00.0] > nic: a nic has unknown key(s) 'nets'; allowed: net")
    assert layout_refusal({"cpus": [make_cpu(0, pci=[make_bridge("0000:50:00.0", pcilink=[{"target": "0000:5x:00.0"}])])]}) == (
        "%s target: busid '0000:5x:00.0' is not a PCI address; NCCL needs dddd:bb:dd.f in hex (domain <= ffff, device "
        "00-1f, function 0-7), e.g. '0000:3b:00.0'" % where)
    kids = [make_gpu("0000:%02x:%02x.0" % (1 + i // 32, i % 32)) for i in range(640)]
    assert render_xml({"cpus": [make_cpu(0, pci=kids)]}).count("<pci ") == 640


def test_net_name_edges():
    name = "n" * 255
    text = render_xml({"cpus": [make_cpu(0, pci=[make_nic("0000:52:00.0", nic={"net": [{"name": name, "dev": 0}]})])]})
    assert '<net name="%s" dev="0"/>' % name in text
    text = render_xml({"cpus": [make_cpu(0, pci=[make_nic("0000:52:00.0", nic={"net": [{"name": 5, "dev": 0}]})])]})
    assert '<net name="5" dev="0"/>' in text


# ---------------------------------------------------------------- more places, edges and spellings of the layout


def _net_layout(**net):
    entry = {"dev": 0}
    entry.update(net)
    return {"cpus": [make_cpu(0, pci=[make_nic("0000:52:00.0", nic={"net": [entry]})])]}


@pytest.mark.parametrize("name", ["ib 0~", "MLX_X", "  Shanghai  ", 7])
def test_value_characters_accepted(name):
    text = render_xml(_net_layout(name=name))
    assert '<net name="%s" dev="0"/>' % name in text


@pytest.mark.parametrize("name", ['a"b', "a<b", "a>b", "a&b", "caf\u00e9"])
def test_value_characters_refused(name):
    assert layout_refusal(_net_layout(name=name)) == (
        "cpu[numaid=0] > pci[0000:52:00.0] > nic > net: name %r holds a quote, <, >, & or a non-printable character; "
        "NCCL reads values raw (no entities), so remove it" % name)


@pytest.mark.parametrize("name", ["a\x00", "a\x1f", "a\x7f", "a\x9f", "a\u2028", "a\u2029", "a\nb"])
def test_control_characters_refused(name):
    assert layout_refusal(_net_layout(name=name)) == (
        "cpu[numaid=0] > pci[0000:52:00.0] > nic > net #0: name %r holds a control character (a newline, tab ...); "
        "NCCL reads the value raw. Allowed: printable characters only" % name)


@pytest.mark.parametrize("value, message", [
    (1.5, "1.5 must be a non-empty string"), ([], "[] must be a non-empty string"),
    (False, "False must be a non-empty string"), ("", "'' must be a non-empty string"),
])
def test_net_name_refusals(value, message):
    assert layout_refusal(_net_layout(name=value)) == "cpu[numaid=0] > pci[0000:52:00.0] > nic > net name: " + message


def test_integer_attribute_edges():
    text = render_xml(_net_layout(speed=2147483647, port=0, maxconn="0x10", gdr=True, coll=False))
    assert '<net dev="0" speed="2147483647" port="0" maxconn="16" gdr="1" coll="0"/>' in text
    assert layout_refusal(_net_layout(speed=2147483648)) == (
        "cpu[numaid=0] > pci[0000:52:00.0] > nic > net speed: 2147483648 is outside 0..2147483647")
    assert layout_refusal(_net_layout(port=-1)) == "cpu[numaid=0] > pci[0000:52:00.0] > nic > net port: -1 is outside 0..2147483647"
    assert layout_refusal(_net_layout(dev=True)) == "cpu[numaid=0] > pci[0000:52:00.0] > nic > net dev: got boolean True; write a number"


def test_version_spellings():
    assert render_xml({"version": "0x1", "cpus": [make_cpu(0)]}).startswith('<system version="1">\n')
    assert layout_refusal({"version": True, "cpus": [make_cpu(0)]}) == "system version: got boolean True; write a number"
    assert layout_refusal({"version": 0, "cpus": [make_cpu(0)]}) == "system version: NCCL reads only topology version 1, got 0"


def test_attributes_given_as_none_are_left_out():
    text = render_xml({"cpus": [make_cpu(0, "0-3", pci=[make_gpu("0000:53:00.0", vendor=None, device="0x2330")])]})
    assert '<pci busid="0000:53:00.0" class="0x030200" device="0x2330" link_speed="32.0 GT/s PCIe" link_width="16"/>' \
        in text


def test_more_layout_refusals_in_full():
    pci = "cpu[numaid=0] > pci[0000:53:00.0]"
    assert layout_refusal({"cpus": [make_cpu(0, pci=[make_gpu("0000:53:00.0", zeta=1, alpha=2)])]}) == (
        "cpu[numaid=0] > pci #0: a pci has unknown key(s) 'alpha', 'zeta'; allowed: busid, class, device, gpu, "
        "link_speed, link_width, nic, pci, pcilink, subsystem_device, subsystem_vendor, vendor")
    kids = [make_gpu("0000:%02x:%02x.0" % (1 + i // 32, i % 32)) for i in range(641)]
    assert layout_refusal({"cpus": [make_cpu(0, pci=kids)]}) == "cpu[numaid=0]: 641 pci children; NCCL's reader allows 640 per element"
    assert layout_refusal({"cpus": [make_cpu(0, pci=[make_gpu("0000:53:00.0", gpu={})])]}) == (
        "%s > gpu: gpu is missing required attribute(s) dev, sm, rank, gdr (NCCL's reader needs them)" % pci)
    gpu = {"dev": 0, "sm": 1, "rank": 0, "gdr": 0, "nvlink": "x"}
    assert layout_refusal({"cpus": [make_cpu(0, pci=[make_gpu("0000:53:00.0", gpu=gpu)])]}) == (
        "%s: nvlink must be a list, got 'x' of type str" % pci)
    assert layout_refusal({"cpus": [make_cpu(0, pci=[make_nic("0000:52:00.0", nic={"net": "x"})])]}) == (
        "cpu[numaid=0] > pci[0000:52:00.0]: net must be a list, got 'x' of type str")
    assert layout_refusal({"cpus": [make_cpu(0, pci=[make_bridge("0000:50:00.0", pcilink=[{"count": 1}])])]}) == (
        "cpu[numaid=0] > pci[0000:50:00.0]: a pcilink has unknown key(s) 'count'; allowed: target")
    assert layout_refusal({"cpus": [make_cpu(0, pci=[make_bridge("0000:50:00.0", pcilink=[{}])])]}) == (
        "cpu[numaid=0] > pci[0000:50:00.0]: pcilink is missing required attribute(s) target (NCCL's reader needs them)")
    assert layout_refusal({"cpus": [make_cpu(0, pci=[make_bridge("0000:50:00.0", [make_gpu("0000:53:00.0"), make_gpu("0000:54:00")])])]}) \
        .startswith("cpu[numaid=0] > pci[0000:50:00.0] > pci #1: busid '0000:54:00' is not a PCI address")
    assert layout_refusal({"cpus": [make_cpu(0, "0-3"), make_cpu("0x0", "4-7")]}) == (
        "cpu[numaid=0]: numaid appears twice; give each NUMA node one cpu")
    assert layout_refusal({"cpus": [make_cpu(0, "0-3"), make_cpu(1, "4-7"), make_cpu(2, "2,8")]}) == (
        "cpu[numaid=2]: affinity shares CPUs 2 with another NUMA node; each CPU belongs to one node")
    # 1024 CPUs need 32 groups: 287 characters, past NCCL's 255.
    assert layout_refusal({"cpus": [make_cpu(0, "1023")]}) == "cpu[numaid=0]: affinity is 287 characters; NCCL's reader stops at 255"


def test_an_empty_nic_is_written():
    text = render_xml({"cpus": [make_cpu(0, pci=[make_nic("0000:52:00.0", nic={})])]})
    assert '    <pci busid="0000:52:00.0" class="0x020700" link_speed="32.0 GT/s PCIe" link_width="16">\n' \
           '      <nic/>\n    </pci>\n' in text


@pytest.mark.parametrize("cpu, attrs", [
    (make_cpu(0, arch="X86_64", vendor=" amd ", familyid=25, modelid=None),
     'arch="x86_64" vendor="AuthenticAMD" familyid="25"'),
    (make_cpu(0, arch="PPC64LE", vendor=None, familyid=None, modelid=None), 'arch="ppc64"'),
    (make_cpu(0, arch="arm64", vendor="x", familyid=None, modelid=None), 'arch="arm64" vendor="x"'),
    (make_cpu(0, familyid=2147483647, modelid=0), 'arch="x86_64" vendor="GenuineIntel" familyid="2147483647" modelid="0"'),
])
def test_cpu_spellings(cpu, attrs):
    assert '<cpu numaid="0" affinity="00ffffff" %s>' % attrs in render_xml({"cpus": [cpu]}).replace("/>", ">")


@pytest.mark.parametrize("key", ["pci", "pcilink"])
def test_a_bridges_children_not_a_list(key):
    assert layout_refusal({"cpus": [make_cpu(0, pci=[make_bridge("0000:50:00.0", **{key: "x"})])]}) == (
        "cpu[numaid=0] > pci[0000:50:00.0]: %s must be a list, got 'x' of type str" % key)


@pytest.mark.parametrize("key, value, message", [
    ("vendor", "0x10000", "vendor: 65536 is outside 0..65535"),
    ("subsystem_device", -1, "subsystem_device: -1 is outside 0..65535"),
    ("link_speed", "gen9", "link_speed: link_speed 'gen9' is not a PCIe rate; use GT/s (2.5, 5, 8, 16, 32, 64), "
                           "'gen1'..'gen6' or the kernel's string such as '32.0 GT/s PCIe'"),
    ("link_width", 3, "link_width: link_width 3 is not a PCIe width; use one of (1, 2, 4, 8, 12, 16, 32)"),
    ("class", "nvme", "class: class 'nvme' is not one NCCL understands (0x060400 bridge, 0x068000 NVSwitch, 0x03xxxx "
                      "GPU, 0x02xxxx NIC); NCCL would treat it as a PCIe switch. Use one of 3d, bridge, eth, ethernet, "
                      "gpu, ib, infiniband, nic, nvswitch, switch, vga or a hex code"),
])
def test_pci_attribute_refusals_name_the_device_and_attribute(key, value, message):
    assert layout_refusal({"cpus": [make_cpu(0, pci=[make_gpu("0000:53:00.0", **{key: value})])]}) == (
        "cpu[numaid=0] > pci[0000:53:00.0] " + message)


@pytest.mark.parametrize("net, message", [
    ({"guid": "0xz"}, "net guid: guid '0xz' is not a 64-bit id; allowed: an integer, or up to 16 hex digits with or "
                      "without 0x (NCCL reads the text as hexadecimal: '10' is 0x10)"),
    ({"latency": "fast"}, "net latency: latency 'fast' is not a plain decimal; allowed: digits with an optional "
                          "fraction, 0..1e+06 (microseconds; no nan, inf or exponent)"),
    ({"maxconn": "many"}, "net maxconn: 'many' is not an integer; write e.g. 16 or '0x10'"),
])
def test_net_attribute_refusals_name_the_place(net, message):
    assert layout_refusal(_net_layout(**net)) == "cpu[numaid=0] > pci[0000:52:00.0] > nic > " + message


@pytest.mark.parametrize("cpu, message", [
    (make_cpu(0, arch=[]), "cpu #0 arch: [] must be a non-empty string"),
    (make_cpu(0, vendor=""), "cpu #0 vendor: '' must be a non-empty string"),
    (make_cpu(0, modelid="x"), "cpu #0 modelid: 'x' is not an integer; write e.g. 16 or '0x10'"),
])
def test_cpu_attribute_refusals_name_the_place(cpu, message):
    assert layout_refusal({"cpus": [cpu]}) == message


def test_canonical_tree_sorts_siblings_whose_values_are_a_number_and_a_text():
    # A numeric attribute value becomes an int, any other stays text: two sibling nets named "0" and "mlx5_0" differ
    # first by an int and a str, which Python cannot order. The siblings are still sorted (by their repr: the quote
    # of 'mlx5_0' before the digit 0), whatever their order in the file.
    one = '<system version="1"><nic><net name="0" dev="0"/><net name="mlx5_0" dev="0"/></nic></system>'
    other = '<system version="1"><nic><net name="mlx5_0" dev="0"/><net name="0" dev="0"/></nic></system>'
    assert canonical_tree(one) == canonical_tree(other)
    (nic,) = canonical_tree(one)[2]
    assert [net[1] for net in nic[2]] == [(("dev", 0), ("name", "mlx5_0")), (("dev", 0), ("name", 0))]


# ---------------------------------------------------------------- the writer


def test_pcilink_c2c_and_empty_elements_written():
    gpu = make_gpu("0000:53:00.0", gpu={"dev": 1, "sm": 90, "rank": 1, "gdr": False, "c2c": [{"count": 10, "bw": 40}]})
    bridge = make_bridge("0000:50:00.0", [gpu], pcilink=[{"target": "0000:60:00.0"}])
    nic = make_nic("0000:c1:00.0", nic={"net": []})
    text = render_xml({"version": 1, "name": "node-a",
                       "cpus": [make_cpu(0, "0-3", arch="aarch64", vendor=None, familyid=None, modelid=None,
                                         host_hash="0x1a2b", pci=[bridge, nic])]})
    assert text == (
        '<system version="1" name="node-a">\n'
        '  <cpu numaid="0" affinity="0000000f" arch="arm64" host_hash="0x1a2b">\n'
        '    <pci busid="0000:50:00.0" class="0x060400" link_speed="32.0 GT/s PCIe" link_width="16">\n'
        '      <pci busid="0000:53:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16">\n'
        '        <gpu dev="1" sm="90" rank="1" gdr="0">\n'
        '          <c2c count="10" bw="40"/>\n'
        '        </gpu>\n'
        '      </pci>\n'
        '      <pcilink target="0000:60:00.0"/>\n'
        '    </pci>\n'
        '    <pci busid="0000:c1:00.0" class="0x020700" link_speed="32.0 GT/s PCIe" link_width="16">\n'
        '      <nic/>\n'
        '    </pci>\n'
        '  </cpu>\n'
        '</system>\n')


def test_gpu_without_links_and_a_cpu_without_pci():
    gpu = make_gpu("0000:53:00.0", gpu={"dev": 0, "sm": 80, "rank": 0, "gdr": 1})
    text = render_xml({"cpus": [make_cpu(0, "0-3", pci=[gpu]), make_cpu(1, "4-7", pci=None)]})
    assert text == (
        '<system version="1">\n'
        '  <cpu numaid="0" affinity="0000000f" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">\n'
        '    <pci busid="0000:53:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16">\n'
        '      <gpu dev="0" sm="80" rank="0" gdr="1"/>\n'
        '    </pci>\n'
        '  </cpu>\n'
        '  <cpu numaid="1" affinity="000000f0" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143"/>\n'
        '</system>\n')


def test_normalised_layout_in_full():
    # Every attribute as NCCL's string; numaid -1 accepted; the text cpumap kept and the computed one padded to its
    # three groups; affinity placed after the other attributes' normalisation.
    nic = make_nic("0000:C1:00.0", vendor="15B3", nic={"net": [{"dev": 0, "guid": 16, "latency": 2}]})
    norm = normalise_layout({"cpus": [make_cpu(-1, "00000000,00000000,0000FFFF", vendor="intel", pci=[nic]),
                                      make_cpu(1, "16-31", vendor="centaurhauls")]})
    assert norm == {"version": "1", "cpus": [
        {"numaid": "-1", "arch": "x86_64", "vendor": "GenuineIntel", "familyid": "6", "modelid": "143",
         "affinity": "00000000,00000000,0000ffff",
         "pci": [{"busid": "0000:c1:00.0", "class": "0x020700", "vendor": "0x15b3", "link_speed": "32.0 GT/s PCIe",
                  "link_width": "16", "nic": {"net": [{"dev": "0", "guid": "0x10", "latency": "2"}]}}]},
        {"numaid": "1", "arch": "x86_64", "vendor": "CentaurHauls", "familyid": "6", "modelid": "143",
         "affinity": "00000000,00000000,ffff0000", "pci": []}]}


def test_computed_masks_padded_to_the_widest_mask():
    norm = normalise_layout({"cpus": [make_cpu(0, "0-3"), make_cpu(1, [40])]})
    assert [c["affinity"] for c in norm["cpus"]] == ["00000000,0000000f", "00000100,00000000"]


# ---------------------------------------------------------------- parser


def test_layout_from_xml_refuses_other_roots_and_elements():
    with pytest.raises(NcclTopologyError, match="root is <topology>"):
        layout_from_xml("<topology/>")
    with pytest.raises(NcclTopologyError, match="<foo> under <cpu>"):
        layout_from_xml('<system version="1"><cpu numaid="0"><foo/></cpu></system>')
    with pytest.raises(NcclTopologyError, match="does not parse"):
        layout_from_xml("<system>")


def test_canonical_tree_treats_old_and_new_speed_strings_alike():
    old = '<system version="1"><cpu numaid="0" affinity="00ffffff"><pci busid="0000:3B:00.0" class="0x030200"' \
          ' link_speed="16 GT/s" link_width="16"/></cpu></system>'
    new = '<system version="1">\n <cpu affinity="00000000,00ffffff" numaid="0">\n  <pci busid="0000:3b:00.0"' \
          ' class="0x030200" link_speed="16.0 GT/s PCIe" link_width="16"/>\n </cpu>\n</system>'
    assert canonical_tree(old) == canonical_tree(new)
    assert canonical_tree(old) != canonical_tree(new.replace("16.0 GT/s", "32.0 GT/s"))


# ---------------------------------------------------------------- the parser and the canonical tree


def test_layout_from_xml_in_full():
    text = ('<system version="1"><!-- a comment --><cpu numaid="0" arch="x86_64"><pci busid="0000:53:00.0"'
            ' class="0x030200" link_speed="16 GT/s" link_width="16"><gpu dev="0" sm="80" rank="0" gdr="1">'
            '<nvlink target="0000:05:00.0" count="12" tclass="0x068000"/><c2c count="1" bw="2"/></gpu></pci>'
            '<pci busid="0000:50:00.0" class="0x060400" link_speed="16 GT/s" link_width="16"><pcilink'
            ' target="0000:60:00.0"/></pci><pci busid="0000:52:00.0" class="0x020700" link_speed="16 GT/s"'
            ' link_width="16"><nic><net dev="0" name="mlx5_0"/><net dev="1"/></nic></pci></cpu>'
            '<cpu numaid="1" arch="arm64"/></system>')
    assert layout_from_xml(text) == {"version": "1", "cpus": [
        {"numaid": "0", "arch": "x86_64", "pci": [
            {"busid": "0000:53:00.0", "class": "0x030200", "link_speed": "16 GT/s", "link_width": "16",
             "gpu": {"dev": "0", "sm": "80", "rank": "0", "gdr": "1",
                     "nvlink": [{"target": "0000:05:00.0", "count": "12", "tclass": "0x068000"}],
                     "c2c": [{"count": "1", "bw": "2"}]}},
            {"busid": "0000:50:00.0", "class": "0x060400", "link_speed": "16 GT/s", "link_width": "16",
             "pcilink": [{"target": "0000:60:00.0"}]},
            {"busid": "0000:52:00.0", "class": "0x020700", "link_speed": "16 GT/s", "link_width": "16",
             "nic": {"net": [{"dev": "0", "name": "mlx5_0"}, {"dev": "1"}]}}]},
        {"numaid": "1", "arch": "arm64"}]}


@pytest.mark.parametrize("text, message", [
    ("<system>", "topology XML does not parse: no element found: line 1, column 8"),
    ("<nccl/>", 'topology XML root is <nccl>; NCCL expects <system version="1">'),
    ('<system version="1"><pci busid="0000:53:00.0"/></system>',
     "system: element <pci> under <system> is not part of the layout model"),
    ('<system version="1"><cpu numaid="0"><pci busid="0000:53:00.0"><net dev="0"/></pci></cpu></system>',
     "system > cpu > pci: element <net> under <pci> is not part of the layout model"),
    ('<system version="1"><cpu numaid="0"><gpu dev="0"/></cpu></system>',
     "system > cpu: element <gpu> under <cpu> is not part of the layout model"),
    ('<system version="1"><cpu numaid="0"><pci busid="0000:52:00.0"><nic><foo/></nic></pci></cpu></system>',
     "system > cpu > pci > nic: element <foo> under <nic> is not part of the layout model"),
    ('<system version="1"><cpu numaid="0"><pci busid="0000:52:00.0"><nic><net dev="0"><foo/></net></nic></pci></cpu>'
     '</system>', "system > cpu > pci > nic > net: element <foo> under <net> is not part of the layout model"),
])
def test_layout_from_xml_refusals_in_full(text, message):
    assert refusal_of(layout_from_xml, text) == message


def test_canonical_tree_value_by_value():
    text = ('<system version="1"><cpu numaid="0" affinity="0000ffff" arch="x86_64" vendor="GenuineIntel"'
            ' familyid="6"><pci busid="0000:3B:00.0" class="0x030200" vendor="0x10DE" device="0x2330"'
            ' subsystem_vendor="0x10de" subsystem_device="0x16C1" link_speed="32.0 GT/s PCIe" link_width="16">'
            '<gpu dev="0" sm="90" rank="0" gdr="1"><nvlink target="0000:C7:00.0" count="18" tclass="0x068000"/>'
            '</gpu></pci><pci busid="0000:3A:00.0" class="0x020700" link_speed="16 GT/s" link_width="8"><nic>'
            '<net name="mlx5_0" dev="0" guid="a088" latency="1.5"/></nic></pci></cpu></system>')
    gpu = ("pci", (("busid", "0000:3b:00.0"), ("class", 0x030200), ("device", 0x2330), ("link_speed", 32.0),
                   ("link_width", 16), ("subsystem_device", 0x16C1), ("subsystem_vendor", 0x10DE),
                   ("vendor", 0x10DE)),
           (("gpu", (("dev", 0), ("gdr", 1), ("rank", 0), ("sm", 90)),
             (("nvlink", (("count", 18), ("target", "0000:c7:00.0"), ("tclass", 0x068000)), ()),)),))
    nic = ("pci", (("busid", "0000:3a:00.0"), ("class", 0x020700), ("link_speed", 16.0), ("link_width", 8)),
           (("nic", (), (("net", (("dev", 0), ("guid", 0xA088), ("latency", "1.5"), ("name", "mlx5_0")), ()),)),))
    cpu = ("cpu", (("affinity", 0xFFFF), ("arch", "x86_64"), ("familyid", 6), ("numaid", 0),
                   ("vendor", "GenuineIntel")), (gpu, nic) if repr(gpu) < repr(nic) else (nic, gpu))
    assert canonical_tree(text) == ("system", (("version", 1),), (cpu,))
    # Upper and lower case hex, and the order of siblings, do not matter.
    lower = text.replace("0x10DE", "0x10de").replace("0x16C1", "0x16c1").replace("0000:C7", "0000:c7")
    assert canonical_tree(lower) == canonical_tree(text)


# ---------------------------------------------------------------- properties


def _layouts():
    gpu = st.builds(lambda b, s: {"busid": "0000:%02x:00.0" % b, "class": "gpu", "link_speed": s, "link_width": 16},
                    st.integers(0, 255), st.sampled_from([8, 16, 32, "gen4", "16 GT/s"]))
    bridge = st.builds(lambda b, kids: {"busid": "0001:%02x:00.0" % b, "class": "bridge", "link_speed": 32,
                                        "link_width": 16, "pci": kids},
                       st.integers(0, 255), st.lists(gpu, max_size=3))
    return st.builds(lambda n, pcis: {"cpus": [make_cpu(i, "%d-%d" % (8 * i, 8 * i + 7), pci=[]) for i in range(n)]
                                      + [make_cpu(n, "%d-%d" % (8 * n, 8 * n + 7), pci=pcis)]},
                     st.integers(0, 3), st.lists(st.one_of(gpu, bridge), max_size=4))


@settings(max_examples=200, deadline=None)
@given(_layouts())
def test_render_parse_render_is_a_fixed_point(layout):
    try:
        text = render_xml(layout)
    except NcclTopologyError as exc:
        assert "appears twice" in str(exc)  # the strategy may draw one busid twice
        return
    again = render_xml(layout_from_xml(text))
    assert again == text
    assert nccl_read(text)[0][0] == "system"


# ---------------------------------------------------------------- property: written = read back, or refused


_TEXT = st.one_of(hostile_text(min_size=0), st.sampled_from(["mlx5_0", "eth0", "rdmap79s0"]))


_NUM = st.one_of(hostile_numbers(), st.integers(min_value=0, max_value=2 ** 31 - 1), hostile_text(max_size=6))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=_TEXT, speed=_NUM, port=_NUM, latency=st.one_of(_NUM, st.floats()), guid=st.one_of(_NUM, _TEXT))
def test_property_net_attributes_read_back(name, speed, port, latency, guid):
    net = {"name": name, "speed": speed, "port": port, "latency": latency, "guid": guid}
    net = {k: v for k, v in net.items() if v is not None}
    try:
        text = nccl_topology_xml(_nic_layout(**net))
    except AnsibleFilterError as exc:
        assert str(exc).startswith("gpufleet.cluster.nccl_topology_xml: ")
        return
    attrs = _net_attrs(text)  # parses
    assert attrs["name"] == name
    for key in ("speed", "port"):
        if key in net:
            assert int(attrs[key], 0) == (net[key] if isinstance(net[key], int) else int(str(net[key]).strip(" "), 0))
            assert 0 <= int(attrs[key]) <= 2 ** 31 - 1
    if "latency" in net:
        assert math.isfinite(float(attrs["latency"])) and float(attrs["latency"]) == float(net["latency"])
    if "guid" in net:
        expected = net["guid"] if isinstance(net["guid"], int) else guid_value(net["guid"])
        assert int(attrs["guid"], 16) == expected
    # Nothing but the attributes given (and dev) on the line.
    assert set(attrs) == set(net) | {"dev"}


@pytest.mark.parametrize("latency", [1.45e-260, 1.234567891234e-5])
def test_a_latency_no_plain_decimal_keeps_is_refused(latency):
    """Found by the property above: a tiny float was written as 0 (a changed value, not a refusal)."""
    with pytest.raises(AnsibleFilterError, match="cannot be written as a plain decimal with up to 9 fraction digits"):
        nccl_topology_xml(_nic_layout(name="mlx5_0", latency=latency))
