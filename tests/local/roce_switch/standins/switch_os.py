# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Stand-in for the switch OS at the hardware boundary: SONiC's `sonic-cfggen` and `config`, Cumulus' `nv`.

No switch is in the lab, so these play the few commands the roce_switch role runs, with the semantics the
role relies on, and record every call (argv) in $ROCE_STANDIN_STATE/calls.jsonl, and in order.jsonl beside the
switches' state folders (shared with the eAPI stand-in: which switch was called when, to check the switches are
pushed one at a time):

* SONiC: CONFIG_DB is a JSON file. `sonic-cfggen -d --print-data` prints it; `config load FILE -y` merges
  FILE into it table by table, key by key, field by field (sonic-cfggen --write-to-db / mod_config keeps
  what the file does not name); `config save -y` copies it to the saved config_db.json (saved_config_db.json,
  the switch's base configuration until a save, as a running switch always has one). With a file `fail-load` in
  the state folder (a test's choice), `config load` fails as on a YANG validation error and changes nothing.
* NVUE: an applied and a pending tree. `nv config show -r applied -o json` prints [{header}, {set: applied}];
  `nv config patch FILE` merges the file's `- set:` tree into pending; `nv config diff` prints the leaves
  pending changes (empty when none); `nv config apply -y` makes pending the applied revision; `nv config detach`
  drops pending. The paths listed in nvue_show_hides.json (a test's choice) are left out of `show`.

Anything else exits 2: the stand-in refuses what it does not know rather than pretend.
"""
from __future__ import annotations

import copy
import json
import os
import sys

import yaml

STATE = os.environ["ROCE_STANDIN_STATE"]
# A switch that already runs: other tables, and SONiC's T0 default of PFC on priorities 3 and 4 on Ethernet0.
SONIC_BASE = {
    "DEVICE_METADATA": {"localhost": {"hostname": "leaf1", "buffer_model": "traditional"}},
    "PORT": {"Ethernet0": {"speed": "400000", "mtu": "9100"}, "Ethernet8": {"speed": "400000", "mtu": "9100"}},
    "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4"}},
}
NVUE_BASE = {"system": {"hostname": "leaf2"}, "qos": {"roce": {"enable": "off"}}}


def _path(name):
    return os.path.join(STATE, name)


def _load(name, default):
    try:
        with open(_path(name), encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        return copy.deepcopy(default)


def _save(name, data):
    with open(_path(name), "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=1, sort_keys=True)


def _merge(into, tree):
    for key, value in tree.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = copy.deepcopy(value)


def _leaves(tree, prefix=()):
    for key, value in tree.items():
        if isinstance(value, dict) and value:
            yield from _leaves(value, prefix + (str(key),))
        else:
            yield prefix + (str(key),), value


def refuse(argv):
    sys.stderr.write("stand-in: unsupported command %r\n" % (argv,))
    return 2


def sonic(argv):
    db = _load("config_db.json", SONIC_BASE)
    if argv == ["sonic-cfggen", "-d", "--print-data"]:
        print(json.dumps(db, indent=4, sort_keys=True))
        return 0
    if len(argv) == 4 and argv[:2] == ["config", "load"] and argv[3] == "-y" and os.path.exists(_path("fail-load")):
        sys.stderr.write("stand-in: config load %s failed YANG validation (fail-load)\n" % argv[2])
        return 1
    if len(argv) == 4 and argv[:2] == ["config", "load"] and argv[3] == "-y":
        with open(argv[2], encoding="utf-8") as fh:
            tables = json.load(fh)
        for table, entries in tables.items():
            for key, fields in entries.items():
                db.setdefault(table, {}).setdefault(key, {}).update(fields)
        _save("config_db.json", db)
        return 0
    if argv == ["config", "save", "-y"]:
        _save("saved_config_db.json", db)
        return 0
    return refuse(argv)


def nvue(argv):
    applied = _load("nvue_applied.json", NVUE_BASE)
    if argv == ["nv", "config", "show", "-r", "applied", "-o", "json"]:
        shown = copy.deepcopy(applied)
        for path in _load("nvue_show_hides.json", []):  # leaves the test makes `show` leave out, as NVUE's
            node = shown                                 # defaults are: the drift sees them, nv config diff not
            for key in path[:-1]:
                node = node.get(key, {})
            node.pop(path[-1], None)
        print(json.dumps([{"header": {"model": "stand-in", "rev-id": 1}}, {"set": shown}], indent=2))
        return 0
    if len(argv) == 4 and argv[:3] == ["nv", "config", "patch"]:
        with open(argv[3], encoding="utf-8") as fh:
            docs = yaml.safe_load(fh)
        if not (isinstance(docs, list) and all(list(d) == ["set"] for d in docs)):
            sys.stderr.write("stand-in: %s is not an nv config patch document (- set: ...)\n" % argv[3])
            return 1
        pending = _load("nvue_pending.json", applied)
        for doc in docs:
            _merge(pending, doc["set"])
        _save("nvue_pending.json", pending)
        return 0
    if argv == ["nv", "config", "diff"]:
        pending = dict(_leaves(_load("nvue_pending.json", applied)))
        current = dict(_leaves(applied))
        for path in sorted(p for p in pending if current.get(p, "(unset)") != pending[p]):
            print("- set: %s %s" % (" ".join(path), json.dumps(pending[path])))
        return 0
    if argv == ["nv", "config", "detach"]:
        os.remove(_path("nvue_pending.json")) if os.path.exists(_path("nvue_pending.json")) else None
        return 0
    if argv == ["nv", "config", "apply", "-y"]:
        pending = _load("nvue_pending.json", applied)
        _save("nvue_applied.json", pending)
        os.remove(_path("nvue_pending.json")) if os.path.exists(_path("nvue_pending.json")) else None
        return 0
    return refuse(argv)


def main(argv):
    os.makedirs(STATE, exist_ok=True)
    if argv[0] != "nv" and not os.path.exists(_path("saved_config_db.json")):
        _save("saved_config_db.json", SONIC_BASE)
    with open(_path("calls.jsonl"), "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"argv": argv}) + "\n")
    with open(os.path.join(os.path.dirname(STATE), "order.jsonl"), "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"switch": os.path.basename(STATE), "call": argv[:2]}) + "\n")
    return nvue(argv) if argv[0] == "nv" else sonic(argv)


if __name__ == "__main__":
    sys.exit(main([os.path.basename(sys.argv[1])] + sys.argv[2:]))
