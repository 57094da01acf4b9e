# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 13's cases for the Lustre, RDMA and RoCE renderers: each value is refused with a message that names the
field, the value (as repr, so a trailing newline shows) and what is allowed."""
from __future__ import annotations

import math
import shlex

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.gpufleet.cluster.plugins.filter.lustre_client_lnet import lustre_client_lnet
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_client_mounts import lustre_client_mounts
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_client_tuning import lustre_client_tuning
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_pfl_layout import lustre_pfl_layout
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_stripe_count import lustre_stripe_count
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_stripe_plan import lustre_stripe_plan
from ansible_collections.gpufleet.cluster.plugins.filter.pfc_headroom import pfc_headroom
from ansible_collections.gpufleet.cluster.plugins.filter.rdma_stack_ipoib import rdma_stack_ipoib
from ansible_collections.gpufleet.cluster.plugins.filter.rdma_stack_plan import rdma_stack_plan
from ansible_collections.gpufleet.cluster.plugins.filter.roce_qos_check import roce_qos_check
from ansible_collections.gpufleet.cluster.plugins.filter.roce_switch_config import roce_switch_config


def _refused(call, *parts):
    """call() raises AnsibleFilterError whose message holds every one of parts (plain substrings)."""
    with pytest.raises(AnsibleFilterError) as info:
        call()
    message = str(info.value)
    for part in parts:
        assert part in message, (part, message)
    return message


MOUNT = {"fsname": "lustre", "mgs_nids": ["10.0.0.1@o2ib"], "path": "/mnt/lustre"}


# ---------------------------------------------------------------- lustre_client_mounts
def test_mounts_nid_with_trailing_newline_refused():
    # was: What=10.0.0.1@o2ib\n:/lustre
    _refused(lambda: lustre_client_mounts([dict(MOUNT, mgs_nids=["10.0.0.1@o2ib\n"])], nets=["o2ib0"]),
             "gpufleet.cluster.lustre_client_mounts", "lustre_client_mounts[0].mgs_nids[0]", "'10.0.0.1@o2ib\\n'",
             "an LNet NID: IPv4 address '@' network", "control characters such as a newline are never allowed")


def test_mounts_option_with_trailing_newline_refused():
    # was: Options=flock,noatime\n,_netdev
    _refused(lambda: lustre_client_mounts([dict(MOUNT, options=["flock", "noatime\n"])], nets=["o2ib0"]),
             "lustre_client_mounts[0].options[1]", "'noatime\\n'", "expected a mount option", "no blank, ','")


def test_mounts_path_with_trailing_blank_refused():
    # was: a unit mnt-lustre\x20.mount that systemd does not match to Where=/mnt/lustre
    _refused(lambda: lustre_client_mounts([dict(MOUNT, path="/mnt/lustre ")], nets=["o2ib0"]),
             "lustre_client_mounts[0].path", "'/mnt/lustre '", "an absolute path of letters, digits",
             "no trailing '/', blank")


def test_mounts_good_values_still_render():
    (mount,) = lustre_client_mounts([dict(MOUNT, options=["noatime"])], nets=["o2ib0"])
    assert mount["what"] == "10.0.0.1@o2ib:/lustre"
    assert mount["options"] == "flock,noatime,_netdev,retry=5"
    assert mount["unit"] == "mnt-lustre.mount"


# ---------------------------------------------------------------- lustre_client_lnet
def test_lnet_interface_with_newline_refused():
    _refused(lambda: lustre_client_lnet([{"net": "o2ib0", "interfaces": ["ib0\n"]}]),
             "gpufleet.cluster.lustre_client_lnet", "lustre_client_lnet_networks[0].interfaces[0]", "'ib0\\n'",
             "a Linux interface name: 1 to 15 letters")


def test_lnet_interface_with_newline_does_not_slip_past_the_duplicate_check():
    # ib0 and 'ib0\n' were two NIs on the same interface; now the second is refused for what it is
    message = _refused(lambda: lustre_client_lnet([{"net": "o2ib0", "interfaces": ["ib0"]},
                                                   {"net": "tcp0", "interfaces": ["ib0\n"]}]),
                       "lustre_client_lnet_networks[1].interfaces[0]", "'ib0\\n'", "a Linux interface name")
    assert "already in" not in message
    _refused(lambda: lustre_client_lnet([{"net": "o2ib0", "interfaces": ["ib0"]}, {"net": "tcp0", "interfaces": ["ib0"]}]),
             "interface ib0 is already in o2ib0")


@pytest.mark.parametrize("observed, parts", [
    ({"ib0": "yes"}, ("observed['ib0'] must be a mapping", "got str 'yes'")),
    ({"ib0": {"exists": "yes"}}, ("observed['ib0'].exists must be true or false", "got str 'yes'")),
    ({"ib0": {"exists": True, "type": "32"}}, ("observed['ib0'].type must be a whole number", "got str '32'")),
    ({"ib0": {"exists": True, "kind": 32}}, ("observed['ib0'] has unknown keys ['kind']",)),
])
def test_lnet_observed_of_the_wrong_type_refused(observed, parts):
    # was: AttributeError: 'str' object has no attribute 'get'
    _refused(lambda: lustre_client_lnet([{"net": "o2ib0", "interfaces": ["ib0"]}], observed=observed), *parts)


# ---------------------------------------------------------------- lustre_client_tuning
TUNING = {"max_pages_per_rpc": 1024, "max_rpcs_in_flight": 64, "max_read_ahead_mb": 1024,
          "max_read_ahead_per_file_mb": 256}


@pytest.mark.parametrize("value, shown", [(None, "NoneType None"), (math.nan, "float nan"), ("0\n", "str '0\\n'")])
def test_tuning_setting_none_nan_newline_refused(value, shown):
    _refused(lambda: lustre_client_tuning(dict(TUNING, max_rpcs_in_flight=value)),
             "gpufleet.cluster.lustre_client_tuning", "lustre_client_tuning.max_rpcs_in_flight must be a whole number",
             shown)


@pytest.mark.parametrize("value, shown", [(None, "None (NoneType)"), (math.nan, "nan (float)"),
                                          (math.inf, "inf (float)"), ("0\n", "'0\\n' (str)")])
def test_tuning_extra_none_nan_newline_refused(value, shown):
    # was: osc.*.checksums=None, osc.*.checksums=nan and osc.*.checksums=0\n in the lctl set_param lines
    _refused(lambda: lustre_client_tuning(TUNING, extra={"osc.*.checksums": value}),
             "lustre_client_tuning_extra.osc.*.checksums", shown, "is not allowed; expected one word of 1-255 letters")


def test_tuning_page_size_states_the_real_maximum():
    # was: "max_pages_per_rpc is 1024, above the maximum of 0" (16 MiB // 1 GiB)
    message = _refused(lambda: lustre_client_tuning(TUNING, page_size=2 ** 30),
                       "page size is 1073741824, above the maximum of 65536; use a value <= 65536")
    assert "maximum of 0" not in message
    _refused(lambda: lustre_client_tuning(TUNING, page_size=8192), "page size 8192 is not a kernel page size; use one "
             "of 4096, 16384, 65536")
    assert lustre_client_tuning(dict(TUNING, max_pages_per_rpc=256), page_size=65536)["max_pages_per_rpc_limit"] == 256


# ---------------------------------------------------------------- striping
def test_stripe_count_with_every_ost_full_is_an_error():
    # was: -1 (all OSTs)
    _refused(lambda: lustre_stripe_count(50 * 2 ** 30, ost_avail_kib=[0, 0, 0, 0]),
             "gpufleet.cluster.lustre_stripe_count", "no OST is eligible", "none of the 4 OST(s) has "
             "min_free_kib=262144 KiB available", "the most any active OST has is 0 KiB")


def test_pfl_sizes_of_2_to_the_64_refused():
    # was: -E 16777216T, which lfs's own size parser refuses
    _refused(lambda: lustre_pfl_layout({"p50_bytes": 1, "p90_bytes": 2 ** 64, "max_bytes": 2 ** 64}, ost_count=8),
             "gpufleet.cluster.lustre_pfl_layout", "p90_bytes is 18446744073709551616, above the maximum of "
             "9223372036854775807")
    _refused(lambda: lustre_pfl_layout([1, 2 ** 64], ost_count=8), "file size [1] is 18446744073709551616")


def test_pfl_ladder_beyond_the_largest_file_refused():
    _refused(lambda: lustre_pfl_layout([1], ost_count=8, first_extent_min=2 ** 62),
             "component 2 would end at 73786976294838206464 bytes (67108864T), beyond 9223372036854775808 (8388608T)")
    # the largest end that is allowed: 2**63 exactly
    layout = lustre_pfl_layout({"p50_bytes": 1, "p90_bytes": 2 ** 63 - 1, "max_bytes": 2 ** 63 - 1}, ost_count=16)
    assert layout["lfs_setstripe_args"][:8] == ["-E", "64M", "-c", "1", "-S", "1M", "-E", "8388608T"]


@pytest.mark.parametrize("path, parts", [
    ("-c", ("path: '-c' is not allowed; expected a directory path that does not start with '-'",)),
    ("--yaml", ("path: '--yaml' is not allowed",)),
    ("/lustre/ckpt\n", ("path: '/lustre/ckpt\\n' is not allowed",)),
    ("/lustre/my ckpt", ("path: '/lustre/my ckpt' is not allowed; expected an absolute path",)),
    ("../etc", ("path: '../etc' is not allowed",)),
])
def test_pfl_path_refused(path, parts):
    # was: "lfs setstripe -E 64M -c 1 ... -c" (the path read as an option)
    _refused(lambda: lustre_pfl_layout([1], ost_count=8, path=path), *parts)


@pytest.mark.parametrize("path", ["/lustre/ckpt", "ckpt/run-1", "/mnt/lustre/a+b.c"])
def test_pfl_path_parses_back(path):
    layout = lustre_pfl_layout([1], ost_count=8, path=path)
    argv = shlex.split(layout["command"])
    assert argv == ["lfs", "setstripe"] + layout["lfs_setstripe_args"] + [path]


@pytest.mark.parametrize("kwargs, parts", [
    ({"client_bw_gbs": 1e308}, ("client_bw_gbs is 1e+308 GB/s; it must be a finite number above 0 and at most "
                                "100000 GB/s",)),
    ({"ost_bw_gbs": 1e308}, ("ost_bw_gbs is 1e+308 GB/s",)),
    ({"clients": 10 ** 400}, ("clients is", "above the maximum of 1000000000")),
])
def test_stripe_plan_huge_values_refused_with_a_range(kwargs, parts):
    # was: OverflowError: integer division result too large for a float
    args = dict({"ost_bw_gbs": 10.0, "clients": 64, "client_bw_gbs": 1.5}, **kwargs)
    _refused(lambda: lustre_stripe_plan(8, **args), "gpufleet.cluster.lustre_stripe_plan", *parts)


# ---------------------------------------------------------------- RoCE
PORTS = [{"name": "Ethernet0", "speed_gbps": 400, "cable_m": 5}]


def test_switch_config_headroom_size_below_xoff_plus_xon_refused():
    # was: BUFFER_PROFILE ... "size": "0"
    _refused(lambda: roce_switch_config({"ports": PORTS}, "sonic",
                                        headroom={"Ethernet0": {"xoff": 139785, "xon": 16885, "size": 0}}),
             "gpufleet.cluster.roce_switch_config", "headroom[Ethernet0].size 0 is below xoff + xon = 139785 + 16885 "
             "= 156670 bytes", "use size >= 156670")


@pytest.mark.parametrize("description, parts", [
    ({"ports": PORTS, "dscp": [64]}, ("dscp[0] 64 is outside 0..63",)),
    ({"ports": PORTS, "dscp": ["26"]}, ("dscp[0] must be an integer in 0..63, got '26'",)),
    ({"ports": PORTS, "priority": 8}, ("priority 8 is outside 0..7",)),
    ({"ports": PORTS, "default_priority": -1}, ("default_priority -1 is outside 0..7",)),
    ({"ports": [dict(PORTS[0], name="Ethernet0\n")]},
     ("ports[0].name: 'Ethernet0\\n' is not allowed; expected a switch port name",)),
    ({"ports": [dict(PORTS[0], name="Ethernet0|3")]}, ("ports[0].name: 'Ethernet0|3' is not allowed",)),
    ({"ports": [dict(PORTS[0], cable_m="5m\n")]}, ("ports[0].cable_m must be an integer in 1..100000, got '5m\\n'",)),
    ({"ports": [dict(PORTS[0], speed_gbps=400.0)]}, ("ports[0].speed_gbps 400.0 is not an Ethernet speed",)),
])
def test_roce_values_refused(description, parts):
    for call in (lambda: roce_switch_config(description, "eos"), lambda: roce_qos_check(description)):
        _refused(call, *parts)


def test_roce_host_side_values_refused():
    _refused(lambda: roce_qos_check({"ports": PORTS}, host={"priority": 3, "dscp": [99]}),
             "host.dscp[0] 99 is outside 0..63")
    _refused(lambda: roce_qos_check({"ports": PORTS}, host={"priority": "3", "dscp": [26]}),
             "host.priority must be an integer in 0..7, got '3'")


def test_pfc_headroom_port_name_refused():
    _refused(lambda: pfc_headroom({"name": "Ethernet0\n", "speed_gbps": 400, "cable_m": 5}, cell_bytes=144, mtu=9216),
             "gpufleet.cluster.pfc_headroom", "port.name: 'Ethernet0\\n' is not allowed; expected a switch port name")
    _refused(lambda: pfc_headroom({"name": "Ethernet0", "speed_gbps": 400, "cable_m": "5m\n"}, cell_bytes=144,
                                  mtu=9216), "is not a length")


# ---------------------------------------------------------------- RDMA
@pytest.mark.parametrize("interface, parts", [
    ({"name": "ib0\n", "address": "10.10.0.11/16"}, ("rdma_interfaces[0].name", "'ib0\\n'")),
    ({"name": "ib0", "address": "10.10.0.11/16", "pkey": "0x8001\n"}, ("pkey '0x8001\\n'", "control characters")),
    ({"name": "ib0", "address": "10.10.0.11/16", "pkey": 1.5}, ("pkey 1.5 must be a partition key",)),
])
def test_ipoib_values_refused(interface, parts):
    parts = tuple(p.replace("rdma_interfaces", "rdma_ipoib_interfaces") for p in parts)
    _refused(lambda: rdma_stack_ipoib([interface]), "gpufleet.cluster.rdma_stack_ipoib", *parts)


def test_ipoib_prefix_must_be_a_plain_name():
    _refused(lambda: rdma_stack_ipoib([{"name": "ib0", "address": "10.10.0.11/16"}], prefix="60-x\n"),
             "prefix: '60-x\\n' is not allowed; expected a plain file name")


DOCA = {"stack": "doca", "os_label": "ubuntu24.04", "architecture": "x86_64", "doca_version": "3.2.1",
        "doca_profile": "doca-ofed", "doca_repository_base": "https://mirror.example.org/doca",
        "repository_key": "https://mirror.example.org/doca/GPG-KEY-Mellanox.pub"}


@pytest.mark.parametrize("key, value, part", [
    ("doca_repository_base", "https://mirror.example.org/doca\n", "is not an http(s) URL"),
    ("doca_repository_base", "https://mirror.example.org/doca#x", "is not an http(s) URL"),
    ("doca_version", "3.2.1\n", "rdma_doca_version '3.2.1\\n' must be a release"),
    ("os_label", "ubuntu24.04\n", "the repository's OS folder 'ubuntu24.04\\n'"),
    ("doca_profile", "doca-ofed\n", "rdma_doca_profile 'doca-ofed\\n' is not a doca metapackage"),
])
def test_rdma_plan_trailing_newlines_refused(key, value, part):
    _refused(lambda: rdma_stack_plan(dict(DOCA, **{key: value})), "gpufleet.cluster.rdma_stack_plan", part)


# ---------------------------------------------------------------- modules
def test_lfs_stripe_path_must_be_absolute_without_control_characters():
    from ansible_collections.gpufleet.cluster.plugins.modules.lfs_stripe import ModuleFailure, _checked_path
    assert _checked_path("/lustre/my ckpt") == "/lustre/my ckpt"   # argv, no shell: a blank is safe here
    for path in ("-c", "ckpt", "/lustre/ckpt\n"):
        with pytest.raises(ModuleFailure, match=r"path: %s is not allowed; expected the directory's absolute path"
                           % repr(path).replace("\\", "\\\\")):
            _checked_path(path)


@pytest.mark.parametrize("change, part", [
    ({"devices": [{"rdma_device": "../../etc"}]}, "devices[0].rdma_device: '../../etc' is not allowed; expected a word"),
    ({"devices": [{"netdev": "eth2\n"}]}, "devices[0].netdev: 'eth2\\n' is not allowed; expected a Linux interface"),
    ({"devices": [{"rdma_device": "mlx5_0", "port": 0}]}, "devices[0].port=0 is below the minimum of 1"),
    ({"mlnx_qos_command": "mlnx_qos; reboot"}, "mlnx_qos_command: 'mlnx_qos; reboot' is not allowed"),
    ({"sysfs_root": "sys"}, "sysfs_root: 'sys' is not allowed; expected an absolute path"),
])
def test_roce_nic_qos_refuses_names(change, part):
    from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce.nic_qos import (
        NicQosError as ModuleFailure, check_params,
    )
    params = dict({"devices": [{"rdma_device": "mlx5_0", "port": 1, "netdev": "eth2"}],
                   "mlnx_qos_command": "/usr/bin/mlnx_qos", "dcb_command": "dcb", "sysfs_root": "/sys",
                   "configfs_root": "/sys/kernel/config"}, **change)
    with pytest.raises(ModuleFailure) as info:
        check_params(params)
    assert part in str(info.value)
