# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The lustre_client_mounts filter: systemd mount units, errors under the filter's name, issue 13's values,
the inventories' values, the property that a unit parses back, wrong types."""
from __future__ import annotations

import copy

import pytest
from ansible.errors import AnsibleFilterError
from hypothesis import given, strategies as st

from ansible_collections.gpufleet.cluster.plugins.filter import lustre_client_mounts as plugin
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_client_mounts import lustre_client_mounts
from filter_docs import assert_documented
from filter_refusals import refused_with
from group_vars import SOURCES, lustre_mounts, variables
from render_properties import FAST, no_control, text
from wrong_types import assert_only_refusals


def test_registered_and_documented():
    assert_documented(plugin, "lustre_client_mounts")


def test_mounts_filter():
    [unit] = lustre_client_mounts([{"fsname": "training", "mgs_nids": ["10.0.0.1@o2ib", "10.0.0.2@o2ib"],
                                    "path": "/mnt/lustre"}], nets=["o2ib0"])
    assert (unit["unit"], unit["what"], unit["options"]) == (
        "mnt-lustre.mount", "10.0.0.1@o2ib:10.0.0.2@o2ib:/training", "flock,_netdev,retry=5")
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.lustre_client_mounts: "
                                                 r"lustre_client_mounts\[0\]\.fsname"):
        lustre_client_mounts([{"fsname": "toolongname", "mgs_nids": ["10.0.0.1@o2ib"], "path": "/mnt/l"}])
    with pytest.raises(AnsibleFilterError, match=r"nets must be a list"):
        lustre_client_mounts([], nets="o2ib0")
    with pytest.raises(AnsibleFilterError, match=r"options has localflock but lustre_client_mount_flock is flock"):
        lustre_client_mounts([{"fsname": "training", "mgs_nids": ["10.0.0.1@o2ib"], "path": "/mnt/l",
                               "options": ["localflock"]}], nets=["o2ib0"])
    [unit] = lustre_client_mounts([{"fsname": "training", "mgs_nids": ["10.0.0.1@o2ib"], "path": "/mnt/l",
                                    "options": ["localflock"]}], nets=["o2ib0"], flock="localflock")
    assert unit["options"] == "localflock,_netdev,retry=5"
    with pytest.raises(AnsibleFilterError, match=r"^gpufleet\.cluster\.lustre_client_mounts: input must be a list of "
                                                 r"mounts, "
                       r"got \{'fsname': 'x'\} of type dict$"):
        lustre_client_mounts({"fsname": "x"})


# ---------------------------------------------------------------- issue 13: refused naming field, value and rule
MOUNT = {"fsname": "lustre", "mgs_nids": ["10.0.0.1@o2ib"], "path": "/mnt/lustre"}


def test_mounts_nid_with_trailing_newline_refused():
    # was: What=10.0.0.1@o2ib\n:/lustre
    refused_with(lambda: lustre_client_mounts([dict(MOUNT, mgs_nids=["10.0.0.1@o2ib\n"])], nets=["o2ib0"]),
                 "gpufleet.cluster.lustre_client_mounts", "lustre_client_mounts[0].mgs_nids[0]", "'10.0.0.1@o2ib\\n'",
                 "an LNet NID: IPv4 address '@' network", "control characters such as a newline are never allowed")


def test_mounts_option_with_trailing_newline_refused():
    # was: Options=flock,noatime\n,_netdev
    refused_with(lambda: lustre_client_mounts([dict(MOUNT, options=["flock", "noatime\n"])], nets=["o2ib0"]),
                 "lustre_client_mounts[0].options[1]", "'noatime\\n'", "expected a mount option", "no blank, ','")


def test_mounts_path_with_trailing_blank_refused():
    # was: a unit mnt-lustre\x20.mount that systemd does not match to Where=/mnt/lustre
    refused_with(lambda: lustre_client_mounts([dict(MOUNT, path="/mnt/lustre ")], nets=["o2ib0"]),
                 "lustre_client_mounts[0].path", "'/mnt/lustre '", "an absolute path of letters, digits",
                 "no trailing '/', blank")


def test_mounts_good_values_still_render():
    (mount,) = lustre_client_mounts([dict(MOUNT, options=["noatime"])], nets=["o2ib0"])
    assert mount["what"] == "10.0.0.1@o2ib:/lustre"
    assert mount["options"] == "flock,noatime,_netdev,retry=5"
    assert mount["unit"] == "mnt-lustre.mount"


# ---------------------------------------------------------------- the reference, lab and molecule/fabric values
@pytest.mark.parametrize("source", sorted(SOURCES))
def test_inventory_values_render(source):
    mounts = lustre_mounts(variables(source))
    assert mounts and all(m["unit"].endswith(".mount") for m in mounts)


# ---------------------------------------------------------------- property: refused, or lines that parse back
def _unescape_unit(unit):
    """systemd-escape --unescape --path of a .mount unit name."""
    stem = unit[:-len(".mount")]
    out, index = bytearray(), 0
    while index < len(stem):
        if stem.startswith("\\x", index):
            out.append(int(stem[index + 2:index + 4], 16))
            index += 4
        else:
            out += b"/" if stem[index] == "-" else stem[index].encode()
            index += 1
    return "/" + out.decode()


@FAST
@given(text("training", "lustre", "fs_1"), st.lists(text("10.0.0.1@o2ib", "10.0.0.2@o2ib", "192.168.1.5@tcp"),
                                                    min_size=1, max_size=2),
       st.lists(text("noatime", "user_xattr", "lazystatfs", "flock"), max_size=3),
       text("/mnt/lustre", "/lustre/training", "/mnt/my-fs"))
def test_mount_unit_is_refused_or_parses_back(fsname, nids, options, path):
    mount = {"fsname": fsname, "mgs_nids": nids, "path": path, "options": options}
    try:
        (result,) = lustre_client_mounts([mount], nets=["o2ib0", "tcp0"])
    except AnsibleFilterError as exc:
        assert "gpufleet.cluster.lustre_client_mounts" in str(exc)
        return
    no_control(result["what"], result["options"], result["unit"], result["path"])
    # What=<nid>[:<nid>]:/<fsname> splits back into the MGS nodes, their NIDs and the fsname
    source, fs = result["what"].rsplit(":/", 1)
    assert fs == fsname and source.split(":") == nids
    # Options= splits on ',' into the locking mode, the given options, _netdev and retry
    assert result["options"].split(",") == (["flock"] if "flock" not in options else []) + options + [
        "_netdev", "retry=5"]
    # systemd names the unit after Where=: unescaping the name gives the path back
    assert result["path"] == path and _unescape_unit(result["unit"]) == path


# ------------------------------------------------------------------ wrong types: refused by a check, nothing else
VALID = [[{"fsname": "training", "mgs_nids": ["10.0.0.1@o2ib", "10.0.0.2@o2ib"],
           "path": "/mnt/lustre", "options": ["flock", "noatime"], "retry": 5, "timeout_s": 300}]]
VALID_KWARGS = {"nets": ["o2ib0"], "flock": "flock"}


def test_valid_call_works():
    assert lustre_client_mounts(*copy.deepcopy(VALID), **copy.deepcopy(VALID_KWARGS)) is not None


def test_wrong_types_and_missing_keys_are_refused():
    assert_only_refusals('lustre_client_mounts', lustre_client_mounts, VALID, VALID_KWARGS)
