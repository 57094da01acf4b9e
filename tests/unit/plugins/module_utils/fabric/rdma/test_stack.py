# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""rdma_stack: stack plan, installed-stack detection, memlock, IPoIB files and the expected-ports check."""
from __future__ import annotations

import ipaddress
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.rdma.parse import merge, parse_ibstat
from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.rdma.stack import (
    RdmaStackError, installed_stacks, ipoib_plan, key_kind, memlock_check, port_check, stack_conflicts, stack_plan,
    vendor_repository_uri,
)
from reference import outputs

_IB = outputs("infiniband")
INBOX = ["rdma-core", "ibverbs-providers", "ibverbs-utils", "infiniband-diags", "perftest", "rdmacm-utils"]
KEY = "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQINBF...\n-----END PGP PUBLIC KEY BLOCK-----\n"


def _settings(**over):
    base = {"stack": "inbox", "os_label": "debian12", "architecture": "x86_64", "inbox_packages": INBOX,
            "doca_version": "3.2.1", "doca_profile": "doca-ofed", "doca_repository_base": "",
            "mlnx_ofed_version": "latest", "mlnx_ofed_profile": "mlnx-ofed-all", "mlnx_ofed_repository_base": "",
            "repository_key": "", "opensm": False, "extra_packages": []}
    base.update(over)
    return base


# --- stack plan -------------------------------------------------------------------------------------------------

def test_inbox_plan_has_no_repository_and_adds_opensm_once():
    plan = stack_plan(_settings(opensm=True, extra_packages=["opensm", "rdma-core-dev"]))
    assert plan == {"stack": "inbox", "packages": INBOX + ["opensm", "rdma-core-dev"], "repository": None,
                    "other_stacks": ["doca", "mlnx_ofed"]}


def test_doca_plan_from_a_mirror_on_ubuntu_2404():
    plan = stack_plan(_settings(stack="doca", os_label="ubuntu24.04", doca_repository_base="https://mirror.example.org/doca/",
                                repository_key="https://mirror.example.org/doca/GPG-KEY-Mellanox.pub"))
    # <base>/<version>/<os>/<arch>/: the trailing slash of the base is not doubled.
    assert plan["repository"] == {"name": "gpufleet-doca", "uri": "https://mirror.example.org/doca/3.2.1/ubuntu24.04/x86_64/",
                                  "suites": ["./"], "signed_by": "url"}
    assert plan["packages"] == ["doca-ofed"]


def test_doca_on_aarch64_uses_arm64_sbsa_and_mlnx_ofed_arm64():
    assert vendor_repository_uri("doca", "https://linux.mellanox.com/public/repo/doca", "2.9.3", "debian12",
                                 "aarch64") == "https://linux.mellanox.com/public/repo/doca/2.9.3/debian12/arm64-sbsa/"
    assert vendor_repository_uri("mlnx_ofed", "https://linux.mellanox.com/public/repo/mlnx_ofed", "24.10-1.1.4.0",
                                 "ubuntu24.04", "aarch64") == \
        "https://linux.mellanox.com/public/repo/mlnx_ofed/24.10-1.1.4.0/ubuntu24.04/arm64/"


def test_mlnx_ofed_plan_with_key_text_and_roce_profile_for_doca():
    plan = stack_plan(_settings(stack="mlnx_ofed", mlnx_ofed_repository_base="http://10.0.0.5/mlnx_ofed",
                                repository_key=KEY, mlnx_ofed_profile="mlnx-ofed-basic"))
    assert plan["repository"]["uri"] == "http://10.0.0.5/mlnx_ofed/latest/debian12/x86_64/"
    assert plan["repository"]["signed_by"] == "text" and plan["packages"] == ["mlnx-ofed-basic"]
    assert plan["other_stacks"] == ["inbox", "doca"]
    doca = stack_plan(_settings(stack="doca", doca_profile="doca-roce", doca_repository_base="https://m.example.org/d",
                                repository_key=KEY))
    assert doca["packages"] == ["doca-roce"]


@pytest.mark.parametrize("over, words", [
    ({"stack": "doca"}, ["rdma_doca_repository_base is empty", "https://linux.mellanox.com/public/repo/doca"]),
    ({"stack": "mlnx_ofed"}, ["rdma_mlnx_ofed_repository_base is empty"]),
    ({"stack": "doca", "doca_repository_base": "https://m.example.org/doca"}, ["rdma_repository_key is empty"]),
    ({"stack": "doca", "doca_repository_base": "ftp://m.example.org/doca", "repository_key": KEY}, ["not an http(s) URL"]),
    ({"stack": "doca", "doca_repository_base": "https://m.example.org/doca", "repository_key": "AAAA"},
     ["must be an http(s) URL or an ASCII-armored key"]),
    ({"stack": "doca", "doca_profile": "mlnx-ofed-all", "doca_repository_base": "https://m.example.org/d",
      "repository_key": KEY}, ["rdma_doca_profile 'mlnx-ofed-all'"]),
    ({"stack": "doca", "doca_version": "3.2.1/../x", "doca_repository_base": "https://m.example.org/d",
      "repository_key": KEY}, ["rdma_doca_version"]),
    ({"stack": "doca", "architecture": "ppc64le", "doca_repository_base": "https://m.example.org/d",
      "repository_key": KEY}, ["architecture 'ppc64le'", "aarch64, x86_64"]),
    ({"stack": "ofed"}, ["rdma_stack 'ofed' is not one of inbox, doca, mlnx_ofed"]),
    ({"extra_packages": ["Bad Name"]}, ["rdma_packages_extra"]),
])
def test_plan_refusals_name_the_variable(over, words):
    with pytest.raises(RdmaStackError) as err:
        stack_plan(_settings(**over))
    for word in words:
        assert word in str(err.value)


def test_key_kind():
    assert key_kind("https://linux.mellanox.com/public/repo/doca/GPG-KEY-Mellanox.pub") == "url"
    assert key_kind("  " + KEY) == "text"
    with pytest.raises(RdmaStackError) as err:
        key_kind(["https://m.example.org/key"])
    assert str(err.value) == ("rdma_repository_key must be a string (a URL or the key's ASCII-armored text), got "
                              "['https://m.example.org/key'] of type list")


# --- installed stacks -------------------------------------------------------------------------------------------

def test_installed_inbox_conflicts_with_doca():
    installed = {"rdma-core": "44.0-2", "ibverbs-providers": "44.0-2", "perftest": "4.5+0.17-1", "libibverbs1": "44.0-2"}
    result = stack_conflicts("doca", installed)
    # perftest and libibverbs1 are no evidence (MPI pulls libibverbs1 in; DOCA's perftest has no "mlnx" version).
    assert result["conflicting"] == {"inbox": ["ibverbs-providers=44.0-2", "rdma-core=44.0-2"]}
    assert result["packages"] == ["ibverbs-providers=44.0-2", "rdma-core=44.0-2"]
    assert stack_conflicts("inbox", installed)["packages"] == []


def test_doca_node_vendor_libraries_count_for_doca_not_mlnx_ofed():
    installed = {"doca-ofed": "3.2.1-041000-25.10-ubuntu2404", "mlnx-ofed-kernel-dkms": "25.10.OFED.25.10.1.2.1-1",
                 "rdma-core": "2510mlnx58-1.2510102", "ibverbs-providers": "2510mlnx58-1.2510102"}
    assert installed_stacks(installed) == {"doca": [
        "doca-ofed=3.2.1-041000-25.10-ubuntu2404", "ibverbs-providers=2510mlnx58-1.2510102",
        "rdma-core=2510mlnx58-1.2510102"]}
    assert stack_conflicts("doca", installed)["packages"] == []
    assert sorted(stack_conflicts("inbox", installed)["conflicting"]) == ["doca"]


def test_mlnx_ofed_node():
    installed = {"mlnx-ofed-all": "24.10-1.1.4.0", "ofed-scripts": "24.10.OFED.24.10.1.1.4-1",
                 "rdma-core": "2410mlnx54-1.2410068"}
    assert installed_stacks(installed) == {"mlnx_ofed": [
        "mlnx-ofed-all=24.10-1.1.4.0", "ofed-scripts=24.10.OFED.24.10.1.1.4-1", "rdma-core=2410mlnx54-1.2410068"]}
    assert stack_conflicts("doca", installed)["packages"][0] == "mlnx-ofed-all=24.10-1.1.4.0"


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["rdma-core", "ibverbs-utils", "doca-ofed", "mlnx-ofed-basic", "ofed-scripts",
                                        "perftest", "libibverbs1"]),
                       st.sampled_from(["44.0-2", "2410mlnx54-1", "1.0"]), max_size=7),
       st.sampled_from(["inbox", "doca", "mlnx_ofed"]))
def test_conflicts_never_name_the_wanted_stack_and_cover_each_package_once(installed, wanted):
    result = stack_conflicts(wanted, installed)
    assert wanted not in result["conflicting"]
    listed = [p for names in result["installed"].values() for p in names]
    assert len(listed) == len(set(listed))


# --- memlock ----------------------------------------------------------------------------------------------------

COMMON = "# common role\n*      soft memlock unlimited\n*      hard memlock unlimited\nroot   soft memlock unlimited\n" \
         "root   hard memlock unlimited\n"


def test_memlock_common_role_files_pass():
    result = memlock_check([{"path": "/etc/security/limits.d/90-gpufleet.conf", "content": COMMON},
                            {"path": "/etc/security/limits.conf", "content": "# nothing\n"}],
                           {"DefaultLimitMEMLOCK": "infinity", "DefaultLimitMEMLOCKSoft": "infinity"}, "unlimited")
    assert result["ok"] and result["problems"] == []
    assert result["checks"][0] == {"who": "logins", "kind": "soft", "value_kib": "unlimited",
                                   "source": "/etc/security/limits.d/90-gpufleet.conf:2", "ok": True}


def test_memlock_later_file_wins_and_names_it():
    # 99-site.conf comes after 90-gpufleet.conf and limits.conf is read first: the 64 KiB of 99-site.conf wins for '*'.
    files = [{"path": "/etc/security/limits.d/99-site.conf", "content": "*  -  memlock  64\n"},
             {"path": "/etc/security/limits.d/90-gpufleet.conf", "content": COMMON},
             {"path": "/etc/security/limits.conf", "content": "* hard memlock 1024\n"}]
    result = memlock_check(files, {"DefaultLimitMEMLOCK": "infinity"}, "unlimited")
    assert not result["ok"]
    assert result["problems"] == [
        "logins soft memlock is 64 KiB (/etc/security/limits.d/99-site.conf:1), below rdma_memlock_min_kib unlimited",
        "logins hard memlock is 64 KiB (/etc/security/limits.d/99-site.conf:1), below rdma_memlock_min_kib unlimited"]


def test_memlock_lab_container_without_pam_lines_uses_systemd():
    # 8388608 bytes / 1024 = 8192 KiB: enough for a minimum of 8192, not for unlimited; '*' does not cover root.
    systemd = {"DefaultLimitMEMLOCK": "8388608", "DefaultLimitMEMLOCKSoft": "8388608"}
    ok = memlock_check([{"path": "/etc/security/limits.conf", "content": ""}], systemd, 8192)
    assert ok["ok"] and {c["value_kib"] for c in ok["checks"]} == {8192}
    bad = memlock_check([{"path": "/etc/security/limits.conf", "content": "* - memlock unlimited\n"}], systemd, "unlimited")
    assert [(c["who"], c["kind"]) for c in bad["checks"] if not c["ok"]] == [
        ("root logins", "soft"), ("root logins", "hard"), ("services", "soft"), ("services", "hard")]
    assert "systemd DefaultLimitMEMLOCK (no pam_limits line)" in bad["problems"][0]


# A bare node in check mode (issue 28): no pam_limits line, systemd's 8 MiB, and the common role would write
# `unlimited` in this run. The check is that of the node after the write; what it has now is kept beside it.
BARE = [{"path": "/etc/security/limits.conf", "content": "#*               soft    core            0\n"}]
BARE_SYSTEMD = {"DefaultLimitMEMLOCK": "8388608", "DefaultLimitMEMLOCKSoft": "8388608"}
PENDING = {"path": "/etc/security/limits.d/90-gpufleet.conf", "memlock_kib": "unlimited"}


def test_memlock_bare_node_fails_as_it_is_and_passes_after_common_would_write():
    now = memlock_check(BARE, BARE_SYSTEMD, "unlimited")
    assert not now["ok"] and now["pending"] is None and len(now["problems"]) == 6
    after = memlock_check(BARE, BARE_SYSTEMD, "unlimited", PENDING)
    assert after["ok"] and after["problems"] == []
    assert after["pending"] == {"memlock_kib": "unlimited", "path": PENDING["path"], "now_ok": False,
                                "now_problems": now["problems"]}
    assert after["checks"][0] == {"who": "logins", "kind": "soft", "value_kib": "unlimited", "ok": True,
                                  "source": "/etc/security/limits.d/90-gpufleet.conf, as the common role would write it"}
    assert after["checks"][-1]["source"] == "systemd DefaultLimitMEMLOCK, as the common role would write it"


def test_memlock_pending_write_below_the_minimum_still_fails():
    # common_memlock_kib 8192 < rdma_memlock_min_kib unlimited: check mode refuses, as the real run will.
    after = memlock_check(BARE, BARE_SYSTEMD, "unlimited", dict(PENDING, memlock_kib=8192))
    assert not after["ok"]
    assert after["problems"][0] == ("logins soft memlock is 8192 KiB (/etc/security/limits.d/90-gpufleet.conf, as the "
                                    "common role would write it), below rdma_memlock_min_kib unlimited")
    assert after["problems"][-1] == ("services hard memlock is 8192 KiB (systemd DefaultLimitMEMLOCK, as the common "
                                     "role would write it), below rdma_memlock_min_kib unlimited")


def test_memlock_pending_write_replaces_the_old_file_and_a_later_file_still_wins():
    # The node's old 90-gpufleet.conf (64 KiB) is replaced by the write; 99-site.conf, read after it, still wins for
    # root, and limits.conf (read first) loses to the write. Services take the written value in bytes.
    files = [{"path": "/etc/security/limits.conf", "content": "* - memlock 16\n"},
             {"path": "/etc/security/limits.d/90-gpufleet.conf", "content": "* - memlock 64\nroot - memlock 64\n"},
             {"path": "/etc/security/limits.d/99-site.conf", "content": "root hard memlock 1024\n"}]
    after = memlock_check(files, {"DefaultLimitMEMLOCK": "65536"}, 4096, dict(PENDING, memlock_kib="8192"))
    assert [(c["who"], c["kind"], c["value_kib"], c["ok"]) for c in after["checks"]] == [
        ("logins", "soft", 8192, True), ("logins", "hard", 8192, True),
        ("root logins", "soft", 8192, True), ("root logins", "hard", 1024, False),
        ("services", "soft", 8192, True), ("services", "hard", 8192, True)]
    assert after["problems"] == ["root logins hard memlock is 1024 KiB (/etc/security/limits.d/99-site.conf:1), below "
                                 "rdma_memlock_min_kib 4096"]
    assert after["pending"]["now_problems"][0] == ("logins soft memlock is 64 KiB (/etc/security/limits.d/"
                                                   "90-gpufleet.conf:1), below rdma_memlock_min_kib 4096")


_NOT_KIB = "common_memlock_kib must be unlimited or a positive number of KiB, got "


@pytest.mark.parametrize("pending, message", [
    (["x"], "the pending memlock write must be {path, memlock_kib}, got ['x'] of type list"),
    ({"path": "etc/limits", "memlock_kib": 8},
     "the pending memlock write's path must be an absolute path, got 'etc/limits' of type str"),
    ({"path": "/etc/x.conf", "memlock_kib": "lots"}, _NOT_KIB + "'lots' of type str"),
    ({"path": "/etc/x.conf", "memlock_kib": "\u00b2"}, _NOT_KIB + "'\u00b2' of type str"),  # a digit to isdigit()
    ({"path": "/etc/x.conf"}, _NOT_KIB + "None of type NoneType"),
])
def test_memlock_pending_write_of_the_wrong_shape_is_refused(pending, message):
    with pytest.raises(RdmaStackError) as err:
        memlock_check(BARE, BARE_SYSTEMD, 8192, pending)
    assert str(err.value) == message


@pytest.mark.parametrize("minimum", [0, -5, "lots", True])
def test_memlock_minimum_refused(minimum):
    with pytest.raises(RdmaStackError) as err:
        memlock_check([], {"DefaultLimitMEMLOCK": "infinity"}, minimum)
    assert str(err.value) == "rdma_memlock_min_kib must be unlimited or a positive number of KiB, got %r of type %s" % (
        minimum, type(minimum).__name__)


def test_memlock_inputs_of_the_wrong_shape_are_refused_in_the_one_wording():
    with pytest.raises(RdmaStackError) as err:
        memlock_check(["/etc/security/limits.conf"], {"DefaultLimitMEMLOCK": "infinity"}, 8192)
    assert str(err.value) == ("limits file [0] must be {path: text, content: text}, got '/etc/security/limits.conf' "
                              "of type str")
    with pytest.raises(RdmaStackError) as err:
        memlock_check([], {"DefaultLimitMEMLOCK": 1.5}, 8192)
    assert str(err.value) == "systemctl show DefaultLimitMEMLOCK must be bytes or infinity, got 1.5 of type float"


# --- IPoIB ------------------------------------------------------------------------------------------------------

def test_ipoib_datagram_and_partition_child():
    plan = ipoib_plan([{"name": "ib0", "address": "10.10.0.11/16"},
                       {"name": "ib0", "address": "10.20.0.11/16", "mode": "connected", "pkey": 2}])
    assert plan["interfaces"][0] == {"name": "ib0", "link": "ib0", "address": "10.10.0.11/16", "mtu": 2044,
                                     "mode": "datagram", "pkey": None}
    # 0x0002 | 0x8000 = 0x8002: the full-member key names the child.
    assert plan["interfaces"][1]["link"] == "ib0.8002" and plan["interfaces"][1]["mtu"] == 65520
    files = {f["name"]: f["sections"] for f in plan["files"]}
    assert sorted(files) == ["60-gpufleet-rdma-ib0.8002.netdev", "60-gpufleet-rdma-ib0.8002.network",
                             "60-gpufleet-rdma-ib0.network"]
    assert files["60-gpufleet-rdma-ib0.network"][2] == ["Network", [["Address", "10.10.0.11/16"], ["IPoIB", "ib0.8002"]]]
    assert files["60-gpufleet-rdma-ib0.8002.netdev"] == [
        ["NetDev", [["Name", "ib0.8002"], ["Kind", "ipoib"], ["MTUBytes", "65520"]]],
        ["IPoIB", [["PartitionKey", "0x8002"], ["Mode", "connected"]]]]


def test_ipoib_parent_without_address_gets_a_network_creating_its_children():
    plan = ipoib_plan([{"name": "ib1", "address": "fd00::11/64", "pkey": "0x8010", "mtu": 4092}], prefix="70-x")
    files = {f["name"]: f["sections"] for f in plan["files"]}
    assert files["70-x-ib1.network"] == [["Match", [["Name", "ib1"]]],
                                         ["Network", [["LinkLocalAddressing", "no"], ["IPoIB", "ib1.8010"]]]]


@pytest.mark.parametrize("item, words", [
    ({"name": "ib0", "address": "10.0.0.1"}, ["address '10.0.0.1'", "CIDR"]),
    ({"name": "ib0", "address": "10.0.0.0/24"}, ["network address of 10.0.0.0/24"]),
    ({"name": "ib0", "address": "10.0.0.255/24"}, ["broadcast address"]),
    ({"name": "ib0", "address": "10.0.0.1/24", "mtu": 4093}, ["mtu 4093 is outside 68-4092 for datagram"]),
    ({"name": "ib0", "address": "10.0.0.1/24", "mode": "connected", "mtu": 65521}, ["68-65520"]),
    ({"name": "ib0", "address": "fd00::1/64", "mtu": 1200}, ["below 1280"]),
    ({"name": "ib0", "address": "10.0.0.1/24", "mode": "cm"}, ["mode 'cm'"]),
    ({"name": "ib0", "address": "10.0.0.1/24", "pkey": "0x7fff"}, ["default partition"]),
    ({"name": "ib0", "address": "10.0.0.1/24", "pkey": 0x10000}, ["pkey"]),
    ({"name": "ib 0", "address": "10.0.0.1/24"}, ["name 'ib 0'"]),
    ({"name": "ibp0s0f0abcdef", "address": "10.0.0.1/24", "pkey": 1}, ["longer than 15"]),
    ({"name": "ib0", "address": "10.0.0.1/24", "gateway": "10.0.0.254"},
     ["rdma_ipoib_interfaces[0] has unknown key(s) 'gateway'; allowed: address, mode, mtu, name, pkey; see "
      "docs/rdma.md"]),
    ("ib0", ["rdma_ipoib_interfaces[0] must be a dict {name, address, mtu, mode, pkey}, got 'ib0' of type str"]),
])
def test_ipoib_refusals(item, words):
    with pytest.raises(RdmaStackError) as err:
        ipoib_plan([item])
    assert "rdma_ipoib_interfaces[0]" in str(err.value)
    for word in words:
        assert word in str(err.value)


def test_ipoib_interfaces_must_be_a_list():
    with pytest.raises(RdmaStackError) as err:
        ipoib_plan({"name": "ib0"})
    assert str(err.value) == ("rdma_ipoib_interfaces must be a list of {name, address, mtu, mode, pkey}, got "
                              "{'name': 'ib0'} of type dict")


def test_ipoib_duplicates_refused():
    with pytest.raises(RdmaStackError, match=r"\[1\]: interface ib0 is listed twice"):
        ipoib_plan([{"name": "ib0", "address": "10.0.0.1/24"}, {"name": "ib0", "address": "10.0.0.2/24"}])
    with pytest.raises(RdmaStackError, match="address 10.0.0.1 is given to two"):
        ipoib_plan([{"name": "ib0", "address": "10.0.0.1/24"}, {"name": "ib1", "address": "10.0.0.1/16"}])


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1, max_value=0xFFFE).filter(lambda k: k & 0x7FFF not in (0, 0x7FFF)),
       st.sampled_from(["datagram", "connected"]), st.integers(min_value=1, max_value=254))
def test_ipoib_child_name_and_key_agree(pkey, mode, host):
    plan = ipoib_plan([{"name": "ib0", "address": "10.1.0.%d/24" % host, "pkey": pkey, "mode": mode}])
    child = plan["interfaces"][0]
    assert child["link"] == "ib0.%04x" % (pkey | 0x8000) and int(child["pkey"], 16) == pkey | 0x8000
    assert child["mtu"] == (2044 if mode == "datagram" else 65520)
    assert ipaddress.ip_interface(child["address"]).ip == ipaddress.ip_address("10.1.0.%d" % host)


# --- expected ports ---------------------------------------------------------------------------------------------

def _h100_ports():
    path = os.path.join(_IB, "ibstat.h100-cx7-ib-ndr-some-down.gpud.txt")
    with open(path, encoding="utf-8") as handle:
        devices = merge([parse_ibstat(handle.read())])
    return [dict(p, device=d["name"]) for d in devices for p in d["ports"]]


def test_expected_ports_against_the_h100_recording():
    # The reference design expects mlx5_0..7 InfiniBand ACTIVE; in this recording mlx5_1, 2 and 7 are the
    # ConnectX-6 Dx Ethernet ports (1 at 100, 2 and 7 DOWN at 40) and the eight NDR ports are 0, 3-6, 9-11.
    expected = [{"device": "mlx5_%d" % i, "rate_gbps": 400, "link_layer": "InfiniBand"} for i in range(8)]
    result = port_check(_h100_ports(), expected, True)
    assert result["mismatches"] == [
        "mlx5_1/1: rate_gbps is 100, expected 400", "mlx5_1/1: link_layer is Ethernet, expected InfiniBand",
        "mlx5_2/1: state is DOWN, expected ACTIVE", "mlx5_2/1: rate_gbps is 40, expected 400",
        "mlx5_2/1: link_layer is Ethernet, expected InfiniBand",
        "mlx5_7/1: state is DOWN, expected ACTIVE", "mlx5_7/1: rate_gbps is 40, expected 400",
        "mlx5_7/1: link_layer is Ethernet, expected InfiniBand"]
    assert result["msg"].startswith("8 mismatch(es): mlx5_1/1: rate_gbps is 100")
    right = [{"device": d, "rate_gbps": 400, "link_layer": "InfiniBand"}
             for d in ("mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11")]
    assert port_check(_h100_ports(), right, True) == {
        "ok": True, "mismatches": [], "checked": 8, "found": 12, "msg": "12 port(s) found; the 8 expected port(s) match"}


def test_no_devices():
    assert port_check([], [], False)["msg"] == "no RDMA devices found; rdma_expect_ports is empty"
    strict = port_check([], [], True)
    assert not strict["ok"] and "rdma_expect_devices is true" in strict["msg"]
    missing = port_check([], [{"device": "mlx5_0"}], False)
    assert missing["mismatches"] == ["mlx5_0/1: not found (ports present: none)"]


def test_expected_ports_refusals():
    with pytest.raises(RdmaStackError, match=r"^rdma_expect_ports\[0\] has unknown key\(s\) 'speed'; allowed: device, "
                                             r"link_layer, port, rate_gbps, state; see docs/rdma\.md$"):
        port_check([], [{"device": "mlx5_0", "speed": 400}], False)
    with pytest.raises(RdmaStackError, match=r"^rdma_expect_ports must be a list of \{device, port, state, rate_gbps, "
                                             r"link_layer\}, got 'mlx5_0' of type str$"):
        port_check([], "mlx5_0", False)
    with pytest.raises(RdmaStackError, match=r"^rdma_expect_ports\[0\] must be a dict with at least device \(mlx5_0\), "
                                             r"got \{'port': 1\} of type dict$"):
        port_check([], [{"port": 1}], False)
    with pytest.raises(RdmaStackError,
                       match=r"^rdma_info ports\[0\]\.port must be a whole number, got '1' of type str$"):
        port_check([{"device": "mlx5_0", "port": "1"}], [], False)
    with pytest.raises(RdmaStackError, match="mlx5_0/1 is expected twice"):
        port_check([], [{"device": "mlx5_0"}, {"device": "mlx5_0", "port": 1}], False)
