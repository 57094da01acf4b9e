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
    check.py seed TMP                            old snapshots (and a file of the switch's own) on push-sonic and
                                                 push-eos, for the rotation to find
    check.py snapshots TMP PHASE                 each push left its snapshot of what it overwrote, newest 2 kept
    check.py fault TMP / heal TMP                drift on push-sonic and push-eos, and push-sonic's config load made
                                                 to fail (fault); the failure taken away (heal)

Every run's calls are also checked for order: the switches are pushed one at a time (playbooks/roce_switch.yml's
serial: 1), so each switch's calls are one run in order.jsonl, in the inventory's order, and a run that fails on
one switch leaves the later ones untouched.

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

SWITCHES = ["files-sonic", "files-nvue", "files-eos", "push-sonic", "push-sonic2", "push-nvue", "push-eos"]
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
        assert sorted(found) == sorted(SWITCHES), "recap lists %s, not the seven switches" % sorted(found)
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
    handedit_eos(tmp)
    with open(os.path.join(tmp, "state", "push-nvue", "nvue_show_hides.json"), "w", encoding="utf-8") as fh:
        json.dump([NVUE_HIDE], fh)


def handedit_eos(tmp):
    path = os.path.join(tmp, "state", "push-eos", "running.json")
    with open(path, encoding="utf-8") as fh:
        running = json.load(fh)
    assert EDIT_FROM in running and EDIT_DROP in running, running
    running = [EDIT_TO if line == EDIT_FROM else line for line in running if line != EDIT_DROP]
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(running, fh, indent=1)


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
    if os.path.exists(os.path.join(tmp, "state", "order.jsonl")):
        os.replace(os.path.join(tmp, "state", "order.jsonl"), os.path.join(dest, "order.jsonl"))


PHASES = ("check", "apply", "rerun", "recheck", "handedit", "refused", "failfirst", "heal")
PUSHED = ["push-sonic", "push-sonic2", "push-nvue", "push-eos"]
# The snapshots: SONiC's in the switch's backup folder, EOS's on its flash. Two of each kind are kept.
SNAPSHOT_DATE = r"[0-9]{8}T[0-9]{6}Z"
EOS_SNAPSHOT = re.compile(r"^copy running-config flash:(gpufleet-roce-%s\.cfg)$" % SNAPSHOT_DATE)
EOS_DELETE = re.compile(r"^delete flash:(gpufleet-roce-%s\.cfg)$" % SNAPSHOT_DATE)
SEEDED = ["20200101T000000Z", "20200102T000000Z"]
OWN_FILE = "leaf-own-notes.cfg"  # a file of the switch's own among the snapshots: never deleted


def _sonic_backup(tmp):
    return os.path.join(tmp, "switch", "push-sonic", "backup")


def _flash(tmp):
    return os.path.join(tmp, "state", "push-eos", "flash")


def seed(tmp):
    """Two old snapshots of each kind, and a file of the switch's own, before the first push."""
    os.makedirs(_sonic_backup(tmp))
    os.makedirs(_flash(tmp))
    for date in SEEDED:
        for kind in ("running", "saved"):
            with open(os.path.join(_sonic_backup(tmp), "config_db.%s.%s.json" % (date, kind)), "w") as fh:
                fh.write("{}\n")
        with open(os.path.join(_flash(tmp), "gpufleet-roce-%s.cfg" % date), "w") as fh:
            fh.write("end\n")
    for folder in (_sonic_backup(tmp), _flash(tmp)):
        with open(os.path.join(folder, OWN_FILE), "w") as fh:
            fh.write("kept\n")


def snapshots(tmp, phase):
    """After a push: two snapshots of each kind, the newest taken by this push and holding what it overwrote
    (push-sonic is not pushed in handedit: its newest is then the first push's)."""
    if phase != "handedit":
        sonic_snapshots(tmp, phase)
    eos_snapshots(tmp, phase)


def sonic_snapshots(tmp, phase):
    names = sorted(os.listdir(_sonic_backup(tmp)))
    running = [n for n in names if n.endswith(".running.json")]
    saved = [n for n in names if n.endswith(".saved.json")]
    assert len(running) == 2 and len(saved) == 2 and OWN_FILE in names, names
    assert [n.split(".")[1] for n in running] == [n.split(".")[1] for n in saved], names
    assert stat_mode(_sonic_backup(tmp)) == 0o700 and all(
        stat_mode(os.path.join(_sonic_backup(tmp), n)) == 0o600 for n in (running[-1], saved[-1])), names
    with open(os.path.join(_sonic_backup(tmp), running[-1]), encoding="utf-8") as fh:
        before = json.load(fh)
    # What the load overwrote: the T0 default of PFC on 3 and 4 (the first push, and the fault's drift).
    assert before["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] == "3,4", before
    with open(os.path.join(_sonic_backup(tmp), saved[-1]), encoding="utf-8") as fh:
        saved_before = json.load(fh)
    if phase == "apply":  # never saved before: the switch's base configuration
        assert saved_before == before, (saved_before, before)
    else:  # the configuration the first push saved
        assert saved_before["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] == "3", saved_before


def eos_snapshots(tmp, phase):
    flash = sorted(os.listdir(_flash(tmp)))
    eos = [n for n in flash if n.startswith("gpufleet-roce-")]
    assert len(eos) == 2 and OWN_FILE in flash, flash
    text = open(os.path.join(_flash(tmp), eos[-1]), encoding="utf-8").read()
    assert "hostname leaf3" in text, text
    # What the session replaced: nothing of the class on the first push, the hand edit later.
    if phase == "apply":
        assert "qos map dscp" not in text, text
    else:
        assert "bandwidth percent 30" in text and text.count("priority-flow-control on") == 1, text
    want_old = SEEDED[1:] if phase == "apply" else []
    assert [n for n in eos if n.split("-")[2].split(".")[0] in SEEDED] == ["gpufleet-roce-%s.cfg" % d for d in want_old]


def stat_mode(path):
    return os.stat(path).st_mode & 0o777


def fault(tmp):
    """Drift on both push-sonic (PFC back on 3 and 4) and push-eos (the hand edit), and push-sonic's load fails."""
    path = os.path.join(tmp, "state", "push-sonic", "config_db.json")
    with open(path, encoding="utf-8") as fh:
        db = json.load(fh)
    db["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] = "3,4"
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(db, fh)
    open(os.path.join(tmp, "state", "push-sonic", "fail-load"), "w").close()
    handedit_eos(tmp)


def heal(tmp):
    os.remove(os.path.join(tmp, "state", "push-sonic", "fail-load"))


def order(tmp, phase):
    """The switches were called one at a time, in the inventory's order, and none after a failure."""
    seen = [c["switch"] for c in _jsonl(os.path.join(tmp, "calls", phase, "order.jsonl"))]
    runs = [name for index, name in enumerate(seen) if index == 0 or seen[index - 1] != name]
    want = {"refused": [], "failfirst": ["push-sonic"], "handedit": ["push-nvue", "push-eos"]}.get(phase, PUSHED)
    assert runs == want, "%s: the switches were called in the runs %s, expected %s" % (phase, runs, want)


# arista.eos's httpapi plugin asks these once per connection (get_capabilities, supports_sessions).
CAPS = [["show version"], ["show hostname"], ["show configuration sessions"]]
RUNNING = ["show running-config"]


def calls(tmp):
    for phase in PHASES:
        calls_of(tmp, phase)
        order(tmp, phase)


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
        # push-sonic's load fails: the run stops there, and the switches after it are never called.
        "failfirst": ([read_db, ["config", "load", sonic_file, "-y"]], []),
        # push-nvue's show still hides the leaf of the hand edit: patched, nothing to apply, dropped again.
        "heal": ([read_db, ["config", "load", sonic_file, "-y"], ["config", "save", "-y"], read_db],
                 [show, patch, ["nv", "config", "diff"], ["nv", "config", "detach"]]),
    }[phase]
    for host, want in zip(["push-sonic", "push-nvue"], expected):
        got = [c["argv"] for c in _jsonl(os.path.join(logs, host + ".calls.jsonl"))]
        assert got == want, "%s %s: recorded %s, expected %s" % (phase, host, got, want)
    # push-sonic2 as push-sonic, from its own file; never called after push-sonic failed, nor in handedit (--limit).
    want = [] if phase in ("failfirst", "handedit") else [
        [sonic_file.replace("push-sonic", "push-sonic2") if arg == sonic_file else arg for arg in argv]
        for argv in (expected[0] if phase != "heal" else [read_db])]
    got = [c["argv"] for c in _jsonl(os.path.join(logs, "push-sonic2.calls.jsonl"))]
    assert got == want, "%s push-sonic2: recorded %s, expected %s" % (phase, got, want)

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
    # Each session is first staged and aborted (the preview, all that check mode does); a push that changes
    # something then copies the running-config to flash, lists flash and deletes the snapshots beyond the newest 2,
    # and runs the session for real. --diff runs (all but rerun) read the running-config once more after each.
    preview = [RUNNING, stage, ["SESSION", "show session-config diffs", "abort"], RUNNING]
    snapshot = [["SNAPSHOT"], ["dir flash:"], ["DELETE"]]
    want = {
        "check": CAPS + preview,
        "apply": CAPS + preview + snapshot + [RUNNING, stage] + commit + [RUNNING],
        "rerun": CAPS + [RUNNING],
        "recheck": CAPS + [RUNNING, RUNNING],
        "handedit": CAPS + preview + snapshot + [RUNNING, stage] + commit + [RUNNING],
        "refused": [],
        "failfirst": [],
        "heal": CAPS + preview + snapshot + [RUNNING, stage] + commit + [RUNNING],
    }[phase]
    assert len(cmds) == len(want), "%s push-eos: %d requests, expected %d: %s" % (phase, len(cmds), len(want), cmds)
    session = None
    for got, shape in zip(cmds, want):
        if shape == stage:
            session = SESSION.match(got[0])
            assert session, (phase, got[:1])
            assert got[1:] == (undo if phase in ("handedit", "heal") else rendered), (phase, got[1:])
        elif shape == ["SNAPSHOT"]:
            assert len(got) == 1 and EOS_SNAPSHOT.match(got[0]), (phase, got)
        elif shape == ["DELETE"]:  # the oldest snapshot: a seeded one first, then the first push's
            assert len(got) == 1 and EOS_DELETE.match(got[0]), (phase, got)
            oldest = {"apply": SEEDED[0], "handedit": SEEDED[1]}.get(phase)
            assert oldest is None or got == ["delete flash:gpufleet-roce-%s.cfg" % oldest], (phase, got)
        elif shape[0] == "SESSION":
            assert session and got == ["configure session " + session.group(1)] + shape[1:], (phase, got)
        else:
            assert got == shape, (phase, got, shape)
    # Check mode never commits, saves or leaves a session pending.
    if phase in ("check", "recheck", "refused", "failfirst"):
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
     "state": state, "seed": seed, "snapshots": snapshots, "fault": fault, "heal": heal}[command](*args)
    print("ok: %s %s" % (command, " ".join(os.path.basename(a) for a in args)))
