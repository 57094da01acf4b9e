# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Stand-in for an Arista switch's eAPI at the hardware boundary (no switch in the lab).

    python eapi.py STATE_DIR PORT_FILE      (password in $ROCE_EAPI_PASSWORD; listens on 127.0.0.1 only)

Serves JSON-RPC `runCmds` on POST /command-api over plain HTTP with Basic authentication (user eapi-test), as
ansible.netcommon.httpapi with arista.eos's httpapi plugin sends it: `version` 1 or "latest", `format` text or
json, each command a string or {"cmd", "input"}. Every request is appended to STATE_DIR/requests.jsonl.

The running-config is a list of lines with their mode path ("interface Ethernet1/1 > tx-queue 3 > bandwidth
percent 50") in STATE_DIR/running.json (a test may edit it by hand, as an operator would on the CLI); `show
running-config` prints it as EOS does, three spaces per mode. Configure sessions play as on EOS: `configure session
NAME` opens or re-enters a pending session (a committed or aborted one cannot be re-entered); config lines are
staged on a copy of the running-config, where a setting replaces the same setting with another value
(`bandwidth percent 30` -> `bandwidth percent 50`); `show session-config diffs` is the unified diff from the
running-config to the session's; `end` leaves the session pending, `abort` drops it, `commit` makes it the
running-config; `copy running-config startup-config` saves it (startup.json); `copy running-config flash:NAME` copies
it to STATE_DIR/flash/NAME, `dir flash:` lists that folder as EOS does and `delete flash:NAME` removes a file of it.
Every request is also appended to order.jsonl beside STATE_DIR (shared with the SONiC and NVUE stand-in: which
switch was called when). `show version`, `show hostname` (json)
and `show configuration sessions` answer the plugin's capability questions. Any other command, a config line in
the wrong mode, or json for a text-only command is an error (code 1002), as EOS answers an invalid command.
"""
from __future__ import annotations

import base64
import copy
import difflib
import json
import os
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

STATE, PORT_FILE = sys.argv[1], sys.argv[2]
USER, PASSWORD = "eapi-test", os.environ["ROCE_EAPI_PASSWORD"]
SEP = " > "
# A switch that already runs: lines the rendering does not name, kept by every session.
BASE = ["hostname leaf3", "interface Ethernet1/1", "interface Ethernet1/1 > description gpu01 rail 0",
        "interface Ethernet2/1", "interface Ethernet2/1 > description gpu02 rail 0",
        "management api http-commands", "management api http-commands > no shutdown"]
VERSION = {"modelName": "DCS-7060DX5-64S", "version": "4.31.2F", "serialNumber": "STANDIN0001",
           "systemMacAddress": "00:1c:73:00:00:01", "architecture": "x86_64"}
# The modes and commands of the roce_switch rendering; any other command is refused.
GLOBAL = re.compile(r"^(qos map .+|priority-flow-control pause watchdog .+)$")
INTERFACE = re.compile(r"^interface Ethernet\d+(/\d+)*$")
IN_INTERFACE = re.compile(r"^(qos trust dscp|priority-flow-control on|priority-flow-control priority [0-7] no-drop)$")
TX_QUEUE = re.compile(r"^tx-queue [0-7]$")
IN_TX_QUEUE = re.compile(r"^(no priority|bandwidth percent \d+|random-detect ecn .+)$")
# A setting and its value: a new value replaces the old line (the key is what is left without the value).
SETTING = [re.compile(p) for p in (
    r"^(bandwidth percent) \d+$", r"^(random-detect ecn) .+$", r"^(qos map traffic-class \d) to .+$",
    r"^qos map dscp [\d ]+ (to traffic-class \d)$", r"^(priority-flow-control pause watchdog default \S+) \S+$",
    r"^(priority-flow-control pause watchdog action) \S+$")]
SESSIONS = {}  # name -> {"state": pending|committed|aborted, "config": [lines]}
# Files on flash: a name of letters, digits, '.', '_' and '-'.
FLASH_COPY = re.compile(r"^copy running-config flash:([A-Za-z0-9._-]+)$")
FLASH_DELETE = re.compile(r"^delete flash:([A-Za-z0-9._-]+)$")


def flash_listing():
    """`dir flash:` as EOS 4.31 prints it: attributes, size, date, name; then the totals."""
    folder = _file("flash")
    names = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
    rows = ["       -rwx %12d           Nov 29 05:00  %s" % (os.path.getsize(os.path.join(folder, n)), n)
            for n in names]
    return "Directory of flash:/\n\n" + "".join(r + "\n" for r in rows) + (
        "\n3957354496 bytes total (3150000000 bytes free)\n")


def _file(name):
    return os.path.join(STATE, name)


def _load(name):
    """A saved configuration (running.json, startup.json), or the switch's base one before any was saved."""
    try:
        with open(_file(name), encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        return list(BASE)


def _running():
    return _load("running.json")


def _write(name, data):
    with open(_file(name), "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=1)


def render(lines):
    """EOS's text: each mode's lines under it, three spaces deeper."""
    tree = {}
    for line in lines:
        node = tree
        for part in line.split(SEP):
            node = node.setdefault(part, {})
    out = []

    def walk(node, depth):
        for text, children in node.items():
            out.append("   " * depth + text)
            walk(children, depth + 1)
            if depth == 0 and children:
                out.append("!")
    walk(tree, 0)
    return "\n".join(out + ["end"]) + "\n"


def _key(cmd):
    for pattern in SETTING:
        match = pattern.match(cmd)
        if match:
            return match.group(1)
    return cmd


def stage(config, line):
    """Add LINE to CONFIG, in place of the same setting under the same mode."""
    parent, cmd = line.rpartition(SEP)[0], line.rpartition(SEP)[2]
    for index, have in enumerate(config):
        if have.rpartition(SEP)[0] == parent and _key(have.rpartition(SEP)[2]) == _key(cmd):
            config[index] = line
            return
    config.append(line)


def config_line(cmd, mode):
    """The mode path after CMD and the line it stages, or None for a command invalid in MODE."""
    if GLOBAL.match(cmd):
        return [], cmd
    if INTERFACE.match(cmd):
        return [cmd], cmd
    if TX_QUEUE.match(cmd) and mode:
        return mode[:1] + [cmd], SEP.join(mode[:1] + [cmd])
    if IN_INTERFACE.match(cmd) and mode:
        return mode[:1], SEP.join(mode[:1] + [cmd])
    if IN_TX_QUEUE.match(cmd) and len(mode) == 2:
        return mode, SEP.join(mode + [cmd])
    return None


def run_cmds(cmds, fmt):
    """Results of each command, or (index, message) of the first that fails."""
    results, session, mode = [], None, []
    for index, item in enumerate(cmds):
        cmd = item["cmd"] if isinstance(item, dict) else item
        text, data = "", {}
        if cmd == "enable":
            pass
        elif cmd == "show version":
            data, text = VERSION, "Arista %(modelName)s\nSoftware image version: %(version)s\n" % VERSION
        elif cmd == "show hostname":
            data, text = {"hostname": "leaf3", "fqdn": "leaf3.lab"}, "Hostname: leaf3\nFQDN:     leaf3.lab\n"
        elif cmd == "show configuration sessions" and session is None:
            pending = {n: {"state": s["state"]} for n, s in SESSIONS.items() if s["state"] == "pending"}
            data = {"sessions": pending, "maxSavedSessions": 1, "maxOpenSessions": 5}
            text = "Maximum number of completed sessions: 1\nMaximum number of pending sessions: 5\n" + "".join(
                "  %s  pending\n" % name for name in pending)
        elif cmd in ("show running-config", "show startup-config") and session is None and fmt == "text":
            text = render(_running() if cmd == "show running-config" else _load("startup.json"))
        elif cmd.startswith("configure session "):
            name = cmd.split(" ", 2)[2]
            entry = SESSIONS.setdefault(name, {"state": "pending", "config": _running()})
            if entry["state"] != "pending":
                return None, (index, "Cannot enter session %s (session has been %s)" % (name, entry["state"]))
            session, mode = entry, []
        elif cmd == "show session-config diffs" and session is not None and fmt == "text":
            text = "".join(line + "\n" for line in difflib.unified_diff(
                render(_running()).splitlines(), render(session["config"]).splitlines(),
                "system:/running-config", "session:/session-config", lineterm=""))
        elif cmd == "end" and session is not None:
            session = None
        elif cmd == "abort" and session is not None:
            session["state"], session = "aborted", None
        elif cmd == "commit" and session is not None:
            _write("running.json", session["config"])
            session["state"], session = "committed", None
        elif cmd == "copy running-config startup-config" and session is None:
            _write("startup.json", _running())
            text = "Copy completed successfully.\n"
        elif FLASH_COPY.match(cmd) and session is None:
            os.makedirs(_file("flash"), exist_ok=True)
            with open(os.path.join(_file("flash"), FLASH_COPY.match(cmd).group(1)), "w", encoding="utf-8") as fh:
                fh.write(render(_running()))
            text = "Copy completed successfully.\n"
        elif cmd == "dir flash:" and session is None and fmt == "text":
            text = flash_listing()
        elif FLASH_DELETE.match(cmd) and session is None and os.path.exists(
                os.path.join(_file("flash"), FLASH_DELETE.match(cmd).group(1))):
            os.remove(os.path.join(_file("flash"), FLASH_DELETE.match(cmd).group(1)))
        elif session is not None and config_line(cmd, mode) is not None:
            mode, line = config_line(cmd, mode)
            stage(session["config"], line)
        else:
            return None, (index, "Invalid input (at token 0: '%s')" % cmd.split(" ")[0])
        results.append(copy.deepcopy(data) if fmt == "json" else {"output": text})
    return results, None


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):  # quiet: the test reads requests.jsonl
        pass

    def _send(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        expected = "Basic " + base64.b64encode(("%s:%s" % (USER, PASSWORD)).encode()).decode()
        with open(_file("requests.jsonl"), "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"path": self.path, "authorized": self.headers.get("Authorization") == expected,
                                 "body": json.loads(body or b"null")}) + "\n")
        with open(os.path.join(os.path.dirname(STATE), "order.jsonl"), "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"switch": os.path.basename(STATE), "call": ["eapi", self.path]}) + "\n")
        if self.path != "/command-api":
            return self._send(404, {"error": "not found"})
        if self.headers.get("Authorization") != expected:
            return self._send(401, {"error": "Unauthorized"})
        request = json.loads(body)
        params = request.get("params", {})
        if (request.get("method") != "runCmds" or params.get("version") not in (1, "latest")
                or params.get("format") not in ("text", "json")):
            return self._send(200, {"jsonrpc": "2.0", "id": request.get("id"), "error": {
                "code": -32602, "message": "stand-in takes runCmds, version 1 or latest, format text or json"}})
        results, error = run_cmds(params.get("cmds", []), params["format"])
        if error:
            index, message = error
            cmd = params["cmds"][index]
            text = "CLI command %d of %d '%s' failed: invalid command" % (
                index + 1, len(params["cmds"]), cmd["cmd"] if isinstance(cmd, dict) else cmd)
            # As EOS: the results before the failing command, then its errors.
            return self._send(200, {"jsonrpc": "2.0", "id": request.get("id"), "error": {
                "code": 1002, "message": text, "data": [{}] * index + [{"errors": [message]}]}})
        return self._send(200, {"jsonrpc": "2.0", "id": request.get("id"), "result": results})


def main():
    os.makedirs(STATE, exist_ok=True)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(PORT_FILE + ".tmp", "w", encoding="utf-8") as fh:
        fh.write(str(server.server_address[1]))
    os.replace(PORT_FILE + ".tmp", PORT_FILE)
    server.serve_forever()


if __name__ == "__main__":
    main()
