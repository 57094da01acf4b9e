# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the lustre_client role leaves on a lab GPU node (no HCA, no Lustre server, no Lustre packages)."""
import configparser
import json
import os
import sys

import pytest
import yaml

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(_REPO, "tests", "molecule"))
from lab_host import hosts  # noqa: E402  (shared by the scenarios)

testinfra_hosts = hosts("gpu_nodes")  # over SSH (tests/molecule/lab_host.py)

# The collection's own escaping, to hold against the node's systemd-escape.
sys.path.insert(0, os.path.join(_REPO, "collections"))
from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.client.layouts import directory_layouts  # noqa: E402
from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.client.mounts import systemd_escape_path  # noqa: E402
from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.layout import (  # noqa: E402
    desired_layout,
    differences,
    layout_text,
    read_layout,
)

UNIT_DIR = "/etc/systemd/system"
MOUNT_UNIT = "mnt-lustre.mount"
TUNING_UNIT = "gpufleet-lustre-tuning.service"


def _unit(host, name):
    parser = configparser.ConfigParser(strict=False, interpolation=None, comment_prefixes=("#",))
    parser.optionxform = str
    parser.read_string(host.file(f"{UNIT_DIR}/{name}").content_string)
    return parser


def _managed(host, path):
    f = host.file(path)
    assert f.exists and f.user == "root" and f.group == "root" and f.mode == 0o644, path
    assert f.content_string.startswith("#"), path   # ansible_managed
    return f.content_string


def test_lnet_conf_is_lnetctl_yaml_for_tcp0_over_eth0(host):
    data = yaml.safe_load(_managed(host, "/etc/lnet.conf"))
    # tcp NIs take ksocklnd's defaults: no tunables are written for them.
    assert data == {"net": [{"net type": "tcp0", "local NI(s)": [{"interfaces": {0: "eth0"}}]}]}


def test_modprobe_options_have_lnet_options_and_no_networks(host):
    text = _managed(host, "/etc/modprobe.d/gpufleet-lustre.conf")
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    # tcp only: no ko2iblnd line; lnet's options sorted by name; the networks are in lnet.conf only.
    assert lines == ["options lnet lnet_retry_count=2 lnet_transaction_timeout=50"]
    assert not any("networks=" in line for line in lines)


def test_mount_unit_name_is_systemd_escape_of_the_path(host):
    assert host.check_output("systemd-escape --path /mnt/lustre") + ".mount" == MOUNT_UNIT
    # The role's escaping agrees with the node's systemd on harder paths too.
    for path in ["/mnt/lustre", "/mnt/my-fs", "/lus/a.b/c_d", "/mnt/.hidden", "/mnt/sp ace", "/mnt//x/", "/mnt/ü"]:
        assert systemd_escape_path(path) == host.check_output(f"systemd-escape --path '{path}'"), path


def test_mount_unit_contents(host):
    _managed(host, f"{UNIT_DIR}/{MOUNT_UNIT}")
    unit = _unit(host, MOUNT_UNIT)
    assert unit["Mount"]["What"] == "192.0.2.11@tcp:192.0.2.12@tcp:/training"
    assert unit["Mount"]["Where"] == "/mnt/lustre"
    assert unit["Mount"]["Type"] == "lustre"
    assert unit["Mount"]["Options"] == "flock,_netdev,retry=5"
    assert unit["Mount"]["TimeoutSec"] == "300"
    assert unit["Unit"]["Requires"] == "lnet.service"
    assert unit["Unit"]["After"].split() == ["lnet.service", "network-online.target"]
    assert unit["Unit"]["Wants"] == "network-online.target"
    assert unit["Install"]["WantedBy"] == "remote-fs.target"


def test_mount_unit_enabled_not_mounted(host):
    assert host.run(f"systemctl is-enabled {MOUNT_UNIT}").stdout.strip() == "enabled"
    assert host.file(f"{UNIT_DIR}/remote-fs.target.wants/{MOUNT_UNIT}").is_symlink
    assert host.run(f"systemctl is-active {MOUNT_UNIT}").stdout.strip() == "inactive"
    assert not host.mount_point("/mnt/lustre").exists
    assert host.file("/mnt/lustre").is_directory


def test_tuning_unit_contents(host):
    _managed(host, f"{UNIT_DIR}/{TUNING_UNIT}")
    unit = _unit(host, TUNING_UNIT)
    assert unit["Service"]["Type"] == "oneshot"
    assert unit["Service"]["ExecStart"].split() == [
        "/usr/sbin/lctl", "set_param", "osc.*.max_pages_per_rpc=1024", "osc.*.max_rpcs_in_flight=64",
        "llite.*.max_read_ahead_mb=1024", "llite.*.max_read_ahead_per_file_mb=256"]
    assert unit["Unit"]["After"] == MOUNT_UNIT and unit["Unit"]["PartOf"] == MOUNT_UNIT
    assert unit["Install"]["WantedBy"].split() == ["remote-fs.target", MOUNT_UNIT]


def test_tuning_unit_enabled_after_the_mount_not_run(host):
    assert host.run(f"systemctl is-enabled {TUNING_UNIT}").stdout.strip() == "enabled"
    assert host.file(f"{UNIT_DIR}/{MOUNT_UNIT}.wants/{TUNING_UNIT}").is_symlink
    assert host.run(f"systemctl is-active {TUNING_UNIT}").stdout.strip() == "inactive"


@pytest.mark.parametrize("unit, expected", [
    (MOUNT_UNIT, ["mnt-lustre.mount: Failed to create mnt-lustre.mount/start: Unit lnet.service not found."]),
    (TUNING_UNIT, ["gpufleet-lustre-tuning.service: Command /usr/sbin/lctl is not executable: No such file or directory"]),
])
def test_units_verify_apart_from_what_the_missing_packages_bring(host, unit, expected):
    # The lab has no lustre-client-utils: no lnet.service, no lctl. Those are the only complaints allowed.
    result = host.run(f"systemd-analyze verify {UNIT_DIR}/{unit}")
    complaints = sorted(line for line in (result.stdout + result.stderr).splitlines() if line.strip())
    assert complaints == sorted(expected)


def test_no_lustre_packages_and_no_lnet_service(host):
    assert not host.package("lustre-client-utils").is_installed
    assert host.run("systemctl cat lnet.service").rc != 0


def _planned():
    """Each directory's path and desired layout, computed by the collection's filters from the scenario's group_vars."""
    with open(os.path.join(os.path.dirname(os.path.dirname(__file__)), "group_vars", "all", "lustre_client.yml")) as handle:
        settings = yaml.safe_load(handle)
    planned = directory_layouts(settings["lustre_client_directories"], settings["lustre_client_mounts"][0]["path"],
                                settings["lustre_client_ost_count"], settings["lustre_client_ost_bw_gbs"])
    return [(d["path"], desired_layout(d["layout"].get("stripe_count"), d["layout"].get("stripe_size"),
                                       d["layout"].get("pool"), d["layout"].get("components")), d) for d in planned]


def test_fresh_node_check_mode_predicted_the_layouts(host):
    # Recorded by the first play (check mode before anything existed): read, not set; scratch did not exist.
    record = json.loads(host.file("/var/lib/gpufleet-lab/lustre-layout-check-mode.json").content_string)
    planned = _planned()
    assert [r["path"] for r in record] == [p for p, _l, _d in planned]
    assert [r["before"] for r in record] == [
        "0-EOF: 1 x 1M\n", "0-256M: 1 x 1M\n256M-16G: 4 x 1M\n16G-EOF: all x 4M\n", "(absent)\n"]
    assert [r["after"] for r in record] == [layout_text(layout) for _p, layout, _d in planned]
    assert all(r["changed"] for r in record)
    assert [" ".join(["lfs"] + r["command"][1:]) for r in record] == [d["command"] for _p, _l, d in planned]


def test_stand_in_holds_the_computed_layouts(host):
    state = json.loads(host.file("/var/lib/gpufleet-lab/lfs-layouts.json").content_string)
    planned = _planned()
    assert sorted(state) == sorted(p for p, _l, _d in planned)
    for path, layout, plan in planned:
        want = [(c["end"], c["stripe_count"], c["stripe_size"]) for c in layout["components"]]
        assert [(c["end"], c["stripe_count"], c["stripe_size"]) for c in state[path]["components"]] == want, path
        assert state[path]["argv"] == ["setstripe"] + plan["lfs_setstripe_args"] + [path]
        # what the stand-in prints now is read by lfs_stripe's parser as the planned layout
        printed = host.check_output(f"/usr/local/lib/gpufleet-lab/lfs getstripe -d {path}")
        assert printed.splitlines()[0] == path
        assert not differences(read_layout(printed), layout), (path, printed)


def test_setstripe_ran_once_per_directory(host):
    # The first converge set the three layouts; idempotence and molecule's check step set none.
    setstripes = host.file("/var/log/gpufleet-lab/lfs-setstripe.log").content_string.splitlines()
    assert [line.split()[-1] for line in setstripes] == [p for p, _l, _d in _planned()]
    calls = host.file("/var/log/gpufleet-lab/lfs-calls.log").content_string.splitlines()
    for path, _l, _d in _planned():
        assert f"getstripe -d --yaml {path}" in calls


def test_check_only_after_the_apply_finds_every_layout_as_planned(host):
    record = json.loads(host.file("/var/lib/gpufleet-lab/lustre-layout-check.json").content_string)
    planned = _planned()
    assert [r["path"] for r in record] == [p for p, _l, _d in planned]
    assert [r["before"] for r in record] == [r["after"] for r in record] == [layout_text(l) for _p, l, _d in planned]
    assert all(r["command"] == [] for r in record)


def test_scratch_was_created_by_the_role(host):
    scratch = host.file("/mnt/lustre/scratch")
    assert scratch.is_directory and scratch.user == "root" and scratch.mode == 0o755
