# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 13 property tests for the Lustre and RoCE renderers: hostile names and values (newlines, '#', '=', ',',
quotes, blanks, non-ASCII, controls) are either refused with the filter's error, or rendered into exactly the
expected lines, each of which parses back to the input."""
from __future__ import annotations

import json
import shlex

import yaml
from ansible.errors import AnsibleFilterError
from hypothesis import given, settings, strategies as st

from nasty_input import hostile_numbers, hostile_text, near_valid

from ansible_collections.gpufleet.cluster.plugins.filter.lustre_client_lnet import lustre_client_lnet
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_client_mounts import lustre_client_mounts
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_client_tuning import lustre_client_tuning
from ansible_collections.gpufleet.cluster.plugins.filter.lustre_pfl_layout import lustre_pfl_layout
from ansible_collections.gpufleet.cluster.plugins.filter.roce_switch_config import roce_switch_config
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.input_rules import CONTROL_RE
from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.layout import parse_size
from ansible_collections.gpufleet.cluster.plugins.module_utils.lustre.striping import MAX_EXTENT_END

FAST = settings(max_examples=150, deadline=None)


def _mostly(valid, hostile):
    """The valid value in about 7 draws of 10 (so that rendered output is checked too), else the hostile one."""
    return st.tuples(st.integers(0, 9), valid, hostile).map(lambda t: t[1] if t[0] < 7 else t[2])


def _text(*values):
    """A valid value, a spoilt one (one hostile character added) or any hostile text."""
    valid = st.sampled_from(values)
    return _mostly(valid, st.one_of(near_valid(valid), hostile_text(0, 20)))


def _number(valid):
    """A valid number, or anything a numeric field may be given."""
    return _mostly(valid, hostile_numbers())


def _no_control(*texts):
    for text in texts:
        assert not CONTROL_RE.search(text), text


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


# ---------------------------------------------------------------- lustre_client_mounts: the .mount unit
@FAST
@given(_text("training", "lustre", "fs_1"), st.lists(_text("10.0.0.1@o2ib", "10.0.0.2@o2ib", "192.168.1.5@tcp"),
                                                     min_size=1, max_size=2),
       st.lists(_text("noatime", "user_xattr", "lazystatfs", "flock"), max_size=3),
       _text("/mnt/lustre", "/lustre/training", "/mnt/my-fs"))
def test_mount_unit_is_refused_or_parses_back(fsname, nids, options, path):
    mount = {"fsname": fsname, "mgs_nids": nids, "path": path, "options": options}
    try:
        (result,) = lustre_client_mounts([mount], nets=["o2ib0", "tcp0"])
    except AnsibleFilterError as exc:
        assert "gpufleet.cluster.lustre_client_mounts" in str(exc)
        return
    _no_control(result["what"], result["options"], result["unit"], result["path"])
    # What=<nid>[:<nid>]:/<fsname> splits back into the MGS nodes, their NIDs and the fsname
    source, fs = result["what"].rsplit(":/", 1)
    assert fs == fsname and source.split(":") == nids
    # Options= splits on ',' into the locking mode, the given options, _netdev and retry
    assert result["options"].split(",") == (["flock"] if "flock" not in options else []) + options + [
        "_netdev", "retry=5"]
    # systemd names the unit after Where=: unescaping the name gives the path back
    assert result["path"] == path and _unescape_unit(result["unit"]) == path


# ---------------------------------------------------------------- lustre_client_lnet: lnet.conf and modprobe lines
@FAST
@given(st.lists(_text("ib0", "ib1", "enp1s0f0"), min_size=1, max_size=3),
       _number(st.integers(1, 255)),
       st.dictionaries(_text("lnet_transaction_timeout", "lnet_retry_count"),
                       st.one_of(st.integers(0, 100), st.booleans(), _text("50", "on")), max_size=2))
def test_lnet_conf_and_modprobe_lines_parse_back(interfaces, credits, options):
    try:
        plan = lustre_client_lnet([{"net": "o2ib0", "interfaces": interfaces}], o2ib_tunables={"peer_credits": credits},
                                  lnet_options=options)
    except AnsibleFilterError as exc:
        assert "gpufleet.cluster.lustre_client_lnet" in str(exc)
        return
    # lnet.conf: the YAML lnetctl import reads holds one NI per interface, exactly the given names
    loaded = yaml.safe_load(yaml.safe_dump(plan["lnet_conf"], sort_keys=False))
    (net,) = loaded["net"]
    assert net["net type"] == "o2ib0"
    assert [ni["interfaces"][0] for ni in net["local NI(s)"]] == interfaces
    assert all(ni["tunables"] == {"peer_credits": credits} for ni in net["local NI(s)"])
    # modprobe lines: "options <module> k=v ..." split on blanks back into every key and value
    lines = plan["modprobe_lines"]
    _no_control(*lines)
    assert lines[0].split() == ["options", "ko2iblnd", "peer_credits=%d" % credits]
    expected = {k: ("1" if v is True else "0" if v is False else str(v)) for k, v in options.items()}
    if options:
        assert len(lines) == 2
        words = lines[1].split()
        assert words[:2] == ["options", "lnet"] and dict(w.split("=", 1) for w in words[2:]) == expected
    else:
        assert len(lines) == 1


# ---------------------------------------------------------------- lustre_client_tuning: lctl set_param lines
@FAST
@given(_number(st.sampled_from([256, 1024, 4096])), _number(st.integers(1, 256)),
       st.dictionaries(_text("osc.*.checksums", "llite.*.statahead_max", "mdc.*.max_rpcs_in_flight"),
                       st.one_of(hostile_numbers(), _text("0", "1", "lz4")), max_size=2))
def test_tuning_lines_parse_back(pages, in_flight, extra):
    settings_ = {"max_pages_per_rpc": pages, "max_rpcs_in_flight": in_flight, "max_read_ahead_mb": 1024,
                 "max_read_ahead_per_file_mb": 256}
    try:
        plan = lustre_client_tuning(settings_, extra=extra)
    except AnsibleFilterError as exc:
        assert "gpufleet.cluster.lustre_client_tuning" in str(exc)
        return
    params = plan["params"]
    _no_control(*params)
    assert len(params) == 4 + len(extra)
    assert all(len(shlex.split(p)) == 1 for p in params)   # one argument of lctl set_param each
    parsed = dict(p.split("=", 1) for p in params)
    assert parsed["osc.*.max_pages_per_rpc"] == str(pages) and parsed["osc.*.max_rpcs_in_flight"] == str(in_flight)
    for name, value in extra.items():
        text = parsed[name]
        if isinstance(value, bool):
            assert text == ("1" if value else "0")
        elif isinstance(value, (int, float)):
            assert type(value)(text) == value
        else:
            assert text == value


# ---------------------------------------------------------------- lustre_pfl_layout: the lfs setstripe command
@FAST
@given(st.lists(_number(st.integers(0, 2 ** 66)), min_size=1, max_size=4), _number(st.integers(1, 3000)),
       _text("/lustre/ckpt", "/mnt/lustre/datasets", "ckpt", "-c"))
def test_pfl_command_parses_back(sizes, osts, path):
    try:
        layout = lustre_pfl_layout(sizes, ost_count=osts, path=path)
    except AnsibleFilterError as exc:
        assert "gpufleet.cluster.lustre_pfl_layout" in str(exc)
        return
    argv = shlex.split(layout["command"])
    assert argv == ["lfs", "setstripe"] + layout["lfs_setstripe_args"] + [path]
    assert not path.startswith("-")
    ends = [parse_size(argv[i + 1], "end", eof=True) for i, word in enumerate(argv) if word == "-E"]
    assert ends == [c["end"] for c in layout["components"]] and ends[-1] == -1
    assert all(0 < end <= MAX_EXTENT_END for end in ends[:-1])


# ---------------------------------------------------------------- roce_switch_config
_PORT = _text("Ethernet0", "Ethernet8", "Ethernet1/1")


@FAST
@given(st.lists(_PORT, min_size=1, max_size=3, unique=True), _number(st.just(3) | st.integers(2, 7)),
       st.lists(_number(st.integers(0, 63)), min_size=1, max_size=3, unique_by=repr),
       _number(st.integers(150000, 200000)))
def test_roce_switch_config_parses_back(names, priority, dscp, size):
    ports = [{"name": n, "speed_gbps": 400, "cable_m": 5} for n in names]
    description = {"ports": ports, "priority": priority, "dscp": dscp}
    headroom = {n: {"xoff": 139785, "xon": 16885, "size": size} for n in names}
    for platform in ("sonic", "nvue", "eos"):
        try:
            result = roce_switch_config(description, platform, headroom=headroom)
        except AnsibleFilterError as exc:
            assert "gpufleet.cluster.roce_switch_config" in str(exc)
            continue
        assert size >= 139785 + 16885   # a smaller buffer profile is never written
        if platform == "sonic":
            tables = json.loads(json.dumps(result))
            assert sorted(k.split("|") for k in tables["BUFFER_PG"]) == sorted([n, str(priority)] for n in names)
            assert {p["size"] for p in tables["BUFFER_PROFILE"].values()} == {str(size)}
            assert sorted(tables["CABLE_LENGTH"]["AZURE"]) == sorted(names)
            lossless = sorted(int(d) for d, tc in tables["DSCP_TO_TC_MAP"]["AZURE"].items() if tc == str(priority))
            assert lossless == sorted(set(dscp))
        elif platform == "nvue":
            (document,) = yaml.safe_load(result)
            assert sorted(document["set"]["interface"]) == sorted(names)
            _no_control(*result.splitlines())
        else:
            lines = result.splitlines()
            _no_control(*lines)
            interfaces = [line.split(" ", 1)[1] for line in lines if line.startswith("interface ")]
            assert interfaces == names
            (mapped,) = [line for line in lines if line.endswith("to traffic-class %d" % priority)]
            assert [int(d) for d in mapped.split()[3:-3]] == sorted(set(dscp))
