# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks for tests/local/roce_switch/run.sh.

    check.py recap LOG changed|unchanged [HOST...]  every switch's (or HOST's) recap line says changed>0 / changed=0
    check.py report LOG                          files-* say why they were not pushed, push-* what pushed them
    check.py handedit TMP                        edit push-eos's running-config by hand; make push-nvue's show hide
                                                 a leaf the applied revision has (drift that nv config diff lacks)
    check.py files OUT                           the three review files parse and make the class lossless
    check.py archive TMP PHASE                   keep what the stand-ins recorded during the run PHASE
    check.py calls TMP                           each run's recorded calls are exactly the expected ones
    check.py state TMP                           the stand-ins' final state is lossless for the host side

The files and the stand-ins' state are read back with tests/unit's readers (config_db through its map names and
the SONiC JSON schema, NVUE with yaml.safe_load, EOS line by line against a grammar), not with the renderers.
"""
from __future__ import annotations

import glob
import json
import os
import re
import sys

import jsonschema
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "tests", "unit", "helpers"))
from roce_readback import assert_lossless, read_eos, read_nvue, read_sonic  # noqa: E402
from roce_sonic_schema import SONIC_SCHEMA  # noqa: E402

SWITCHES = ["files-sonic", "files-nvue", "files-eos", "push-sonic", "push-nvue", "push-eos"]
INVENTORY = yaml.safe_load(open(os.path.join(HERE, "inventory.yml"), encoding="utf-8"))["all"]
HOSTS = INVENTORY["children"]["rdma_switches"]["hosts"]
# The host side: gpu01's roce_host variables. The class maps DSCP 26 and 30 to priority 3, the other 62 to 0.
HOST_PRIORITY, HOST_DSCP = 3, [26]
DSCP_MAP = {d: (3 if d in (26, 30) else 0) for d in range(64)}
SESSION = re.compile(r"^configure session (ansible_\d+)$")
# The hand edit: Ethernet1/1's lossless queue got 30 % and Ethernet2/1 lost PFC ("no priority-flow-control on").
EDIT_FROM = "interface Ethernet1/1 > tx-queue 3 > bandwidth percent 50"
EDIT_TO = "interface Ethernet1/1 > tx-queue 3 > bandwidth percent 30"
EDIT_DROP = "interface Ethernet2/1 > priority-flow-control on"
NVUE_HIDE = ["qos", "pfc-watchdog", "polling-interval"]


def ports(host):
    return [p["name"] for p in HOSTS[host]["roce_switch_ports"]]


def recap(log, expect, *hosts):
    found = dict(re.findall(r"^(\S+)\s+: ok=\d+\s+changed=(\d+)", open(log, encoding="utf-8").read(), re.M))
    if hosts:
        assert set(hosts) <= set(found), "recap lists %s, not %s" % (sorted(found), hosts)
        found = {host: found[host] for host in hosts}
    else:
        assert sorted(found) == sorted(SWITCHES), "recap lists %s, not the six switches" % sorted(found)
    for host, changed in found.items():
        if expect == "changed":
            assert int(changed) > 0, "%s: changed=0, expected a change" % host
        else:
            assert int(changed) == 0, "%s: changed=%s, expected none" % (host, changed)


def report(log):
    """auto: the files-* switches set no ansible_connection and say so; the push-* ones name theirs."""
    text = open(log, encoding="utf-8").read()
    for host, platform in (("files-sonic", "sonic"), ("files-nvue", "nvue"), ("files-eos", "eos")):
        want = "for review, not pushed (roce_switch_apply: auto, no ansible_connection configured for %s)" % platform
        assert re.search(r'"%s \(%s\): [^"]*%s' % (host, platform, re.escape(want)), text), (host, want)
    for host, platform, conn in (("push-sonic", "sonic", "local"), ("push-nvue", "nvue", "local"),
                                 ("push-eos", "eos", "httpapi")):
        want = "pushed (auto) over ansible_connection %s with " % conn
        assert re.search(r'"%s \(%s\): [^"]*%s' % (host, platform, re.escape(want)), text), (host, want)


def handedit(tmp):
    path = os.path.join(tmp, "state", "push-eos", "running.json")
    with open(path, encoding="utf-8") as fh:
        running = json.load(fh)
    assert EDIT_FROM in running and EDIT_DROP in running, running
    running = [EDIT_TO if line == EDIT_FROM else line for line in running if line != EDIT_DROP]
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(running, fh, indent=1)
    with open(os.path.join(tmp, "state", "push-nvue", "nvue_show_hides.json"), "w", encoding="utf-8") as fh:
        json.dump([NVUE_HIDE], fh)


def files(out):
    names = sorted(os.listdir(out))
    assert names == ["files-eos.eos-qos.cfg", "files-nvue.nvue-qos.yaml", "files-sonic.config_db-qos.json"], names
    with open(os.path.join(out, "files-sonic.config_db-qos.json"), encoding="utf-8") as fh:
        sonic = json.load(fh)
    jsonschema.validate(sonic, SONIC_SCHEMA)
    assert_lossless(read_sonic(sonic), ports("files-sonic"), HOST_PRIORITY, HOST_DSCP, DSCP_MAP)
    # Headroom from pfc_headroom (144 B cells, MTU 9216): 400G/5 m is xoff 139785, xon 16885, size 156670
    # (docs/pfc-headroom.md); the two 400G/5 m ports share one profile, the 100G/40 m port has its own.
    assert sonic["BUFFER_PROFILE"]["pg_lossless_400000_5m_profile"] == {
        "pool": "ingress_lossless_pool", "xon": "16885", "xoff": "139785", "size": "156670", "dynamic_th": "0"}
    assert sorted(sonic["BUFFER_PROFILE"]) == ["pg_lossless_100000_40m_profile", "pg_lossless_400000_5m_profile"]
    assert sonic["BUFFER_PG"]["Ethernet16|3"] == {"profile": "pg_lossless_100000_40m_profile"}
    wred = sonic["WRED_PROFILE"]["AZURE_LOSSLESS"]
    assert (wred["green_min_threshold"], wred["green_max_threshold"], wred["green_drop_probability"]) == (
        "100000", "1000000", "50")
    assert sonic["PFC_WD"]["Ethernet8"] == {"action": "drop", "detection_time": "300", "restoration_time": "400"}

    text = open(os.path.join(out, "files-nvue.nvue-qos.yaml"), encoding="utf-8").read()
    assert text.startswith("#\n# Ansible managed\n#\n"), text[:60]
    assert_lossless(read_nvue(text), ports("files-nvue"), HOST_PRIORITY, HOST_DSCP, DSCP_MAP)
    qos = yaml.safe_load(text)[0]["set"]["qos"]
    assert qos["congestion-control"]["roce-ecn"]["traffic-class"]["3"] == {
        "ecn": "enable", "max-threshold": 1000000, "min-threshold": 100000, "probability": 50, "red": "disable"}
    assert qos["pfc-watchdog"] == {"polling-interval": 100, "robustness": 3}  # 300 ms = 100 ms x 3
    assert sorted(qos["pfc"]) == ["roce-pfc-100m", "roce-pfc-3m"]

    text = open(os.path.join(out, "files-eos.eos-qos.cfg"), encoding="utf-8").read()
    assert text.startswith("!\n! Ansible managed\n!\n"), text[:60]
    assert_lossless(read_eos(text), ports("files-eos"), HOST_PRIORITY, HOST_DSCP, DSCP_MAP)
    assert "priority-flow-control pause watchdog default timeout 0.3\n" in text
    assert "priority-flow-control pause watchdog default recovery-time 0.4\n" in text
    assert ("      random-detect ecn minimum-threshold 100000 bytes maximum-threshold 1000000 bytes "
            "max-mark-probability 50\n") in text


def _jsonl(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def archive(tmp, phase):
    """Move what the stand-ins recorded during one run to TMP/calls/PHASE/, for `calls` at the end."""
    dest = os.path.join(tmp, "calls", phase)
    os.makedirs(dest)
    for path in glob.glob(os.path.join(tmp, "state", "*", "*.jsonl")):
        host = os.path.basename(os.path.dirname(path))
        os.replace(path, os.path.join(dest, "%s.%s" % (host, os.path.basename(path))))


PHASES = ("check", "apply", "rerun", "recheck", "handedit", "refused")
# arista.eos's httpapi plugin asks these once per connection (get_capabilities, supports_sessions).
CAPS = [["show version"], ["show hostname"], ["show configuration sessions"]]
RUNNING = ["show running-config"]


def calls(tmp):
    for phase in PHASES:
        calls_of(tmp, phase)


def calls_of(tmp, phase):
    logs = os.path.join(tmp, "calls", phase)
    assert os.path.isdir(logs), "no recording of the %s run" % phase
    sonic_file = os.path.join(tmp, "switch", "push-sonic", "roce-qos.config_db-qos.json")
    nvue_file = os.path.join(tmp, "switch", "push-nvue", "roce-qos.nvue-qos.yaml")
    read_db = ["sonic-cfggen", "-d", "--print-data"]
    show = ["nv", "config", "show", "-r", "applied", "-o", "json"]
    patch = ["nv", "config", "patch", nvue_file]
    expected = {
        "check": ([read_db], [show]),
        # CONFIG_DB is read again after the load, to prove it took.
        "apply": ([read_db, ["config", "load", sonic_file, "-y"], ["config", "save", "-y"], read_db],
                  [show, patch, ["nv", "config", "diff"], ["nv", "config", "apply", "-y"]]),
        "rerun": ([read_db], [show]),
        "recheck": ([read_db], [show]),
        # The applied revision holds the patch: nothing to apply, and the pending revision is dropped.
        "handedit": ([], [show, patch, ["nv", "config", "diff"], ["nv", "config", "detach"]]),
        "refused": ([], []),
    }[phase]
    for host, want in zip(["push-sonic", "push-nvue"], expected):
        got = [c["argv"] for c in _jsonl(os.path.join(logs, host + ".calls.jsonl"))]
        assert got == want, "%s %s: recorded %s, expected %s" % (phase, host, got, want)

    # push-eos: what ansible.netcommon.httpapi with arista.eos's plugin sent, request by request.
    requests = _jsonl(os.path.join(logs, "push-eos.requests.jsonl"))
    assert all(r["path"] == "/command-api" and r["authorized"] for r in requests), requests
    bodies = [r["body"] for r in requests]
    assert all(b["method"] == "runCmds" and b["params"]["version"] == "latest" for b in bodies), bodies
    cmds = [b["params"]["cmds"] for b in bodies]
    for body in bodies:  # the plugin asks its capability questions in json, everything else in text
        json_asked = body["params"]["cmds"] in (["show version"], ["show hostname"])
        assert body["params"]["format"] == ("json" if json_asked else "text"), body
    # The whole rendering is staged when nothing of it runs yet; after the hand edit only what differs, with
    # the modes it sits in.
    rendered = [line.strip() for line in eos_rendering(tmp).splitlines()
                if line.strip() and not line.strip().startswith("!")]
    undo = ["interface Ethernet1/1", "tx-queue 3", "bandwidth percent 50", "interface Ethernet2/1",
            "priority-flow-control on"]
    stage = ["STAGE"]
    commit = [["SESSION", "show session-config diffs", "commit"], ["copy running-config startup-config"]]
    # --diff runs (check, apply, recheck, handedit) read the running-config once more at the end.
    want = {
        "check": CAPS + [RUNNING, stage, ["SESSION", "show session-config diffs", "abort"], RUNNING],
        "apply": CAPS + [RUNNING, stage] + commit + [RUNNING],
        "rerun": CAPS + [RUNNING],
        "recheck": CAPS + [RUNNING, RUNNING],
        "handedit": CAPS + [RUNNING, stage] + commit + [RUNNING],
        "refused": [],
    }[phase]
    assert len(cmds) == len(want), "%s push-eos: %d requests, expected %d: %s" % (phase, len(cmds), len(want), cmds)
    session = None
    for got, shape in zip(cmds, want):
        if shape == stage:
            session = SESSION.match(got[0])
            assert session, (phase, got[:1])
            assert got[1:] == (undo if phase == "handedit" else rendered), (phase, got[1:])
        elif shape[0] == "SESSION":
            assert session and got == ["configure session " + session.group(1)] + shape[1:], (phase, got)
        else:
            assert got == shape, (phase, got, shape)
    # Check mode never commits, saves or leaves a session pending.
    if phase in ("check", "recheck", "refused"):
        assert not any(c in ("commit", "end", "copy running-config startup-config") for cmd in cmds for c in cmd), cmds


def eos_rendering(tmp):
    """push-eos's rendering is files-eos's reviewed file: both have the same class and the same ports."""
    text = open(os.path.join(tmp, "out", "files-eos.eos-qos.cfg"), encoding="utf-8").read()
    for a, b in zip(ports("files-eos"), ports("push-eos")):
        assert a == b, "files-eos and push-eos must list the same ports for this comparison"
    return text


def state(tmp):
    base = os.path.join(tmp, "state")
    with open(os.path.join(base, "push-sonic", "config_db.json"), encoding="utf-8") as fh:
        db = json.load(fh)
    # The switch's other tables are kept; Ethernet0's PFC moved from the T0 default "3,4" to "3" only.
    assert db["DEVICE_METADATA"]["localhost"]["hostname"] == "leaf1"
    assert db["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] == "3"
    with open(os.path.join(base, "push-sonic", "saved_config_db.json"), encoding="utf-8") as fh:
        assert json.load(fh) == db, "config save did not save the loaded CONFIG_DB"
    assert_lossless(read_sonic({t: v for t, v in db.items() if t not in ("DEVICE_METADATA", "PORT")}),
                    ports("push-sonic"), HOST_PRIORITY, HOST_DSCP, DSCP_MAP)

    with open(os.path.join(base, "push-nvue", "nvue_applied.json"), encoding="utf-8") as fh:
        applied = json.load(fh)
    assert applied["system"] == {"hostname": "leaf2"} and applied["qos"]["roce"] == {"enable": "on", "mode": "lossless"}
    assert not os.path.exists(os.path.join(base, "push-nvue", "nvue_pending.json"))
    nvue_text = yaml.safe_dump([{"set": {k: v for k, v in applied.items() if k != "system"}}])
    assert_lossless(read_nvue(nvue_text), ports("push-nvue"), HOST_PRIORITY, HOST_DSCP, DSCP_MAP)

    with open(os.path.join(base, "push-eos", "running.json"), encoding="utf-8") as fh:
        running = json.load(fh)
    with open(os.path.join(base, "push-eos", "startup.json"), encoding="utf-8") as fh:
        assert json.load(fh) == running
    assert EDIT_TO not in running and running.count(EDIT_FROM) == 1 and EDIT_DROP in running, running
    assert "interface Ethernet1/1 > description gpu01 rail 0" in running, "the switch's own lines were lost"
    for port in ports("push-eos"):
        iface = "interface " + port
        for line in ("qos trust dscp", "priority-flow-control on", "priority-flow-control priority 3 no-drop",
                     "tx-queue 3 > random-detect ecn minimum-threshold 100000 bytes maximum-threshold 1000000 "
                     "bytes max-mark-probability 50"):
            assert "%s > %s" % (iface, line) in running, (port, line)
    assert "qos map dscp 26 30 to traffic-class 3" in running


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    {"recap": recap, "report": report, "handedit": handedit, "files": files, "archive": archive, "calls": calls,
     "state": state}[command](*args)
    print("ok: %s %s" % (command, " ".join(os.path.basename(a) for a in args)))
