# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Stand-in for an Arista switch's eAPI at the hardware boundary (no switch in the lab).

    python eapi.py STATE_DIR PORT_FILE      (password in $ROCE_EAPI_PASSWORD; listens on 127.0.0.1 only)

Serves JSON-RPC `runCmds` on POST /command-api over plain HTTP, with Basic authentication (user eapi-test).
Every request body is appended to STATE_DIR/requests.jsonl. It keeps a running-config as a set of commands with
their mode path ("interface Ethernet1/1 > tx-queue 3 > bandwidth percent 50") in STATE_DIR/running.json, and
plays configure sessions as EOS does: `configure session NAME` opens or re-enters a pending session (a committed
or aborted one cannot be re-entered), config lines are staged, `show session-config diffs` prints the staged
lines the running-config lacks as a unified diff (empty when none), `end` leaves the session pending, `abort`
drops it, `commit` merges it into the running-config, `copy running-config startup-config` saves it. A command
it does not know is an error (code 1002), as EOS answers an invalid command.
"""
from __future__ import annotations

import base64
import json
import os
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

STATE, PORT_FILE = sys.argv[1], sys.argv[2]
USER, PASSWORD = "eapi-test", os.environ["ROCE_EAPI_PASSWORD"]
# The modes of the commands the roce_switch rendering uses; any other command is refused.
GLOBAL = re.compile(r"^(qos map .+|priority-flow-control pause watchdog .+)$")
INTERFACE = re.compile(r"^interface Ethernet\d+(/\d+)*$")
IN_INTERFACE = re.compile(r"^(qos trust dscp|priority-flow-control on|priority-flow-control priority [0-7] no-drop)$")
TX_QUEUE = re.compile(r"^tx-queue [0-7]$")
IN_TX_QUEUE = re.compile(r"^(no priority|bandwidth percent \d+|random-detect ecn .+)$")
SESSIONS = {}  # name -> {"state": pending|committed|aborted, "lines": [...]}


def _file(name):
    return os.path.join(STATE, name)


def _running():
    try:
        with open(_file("running.json"), encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        return []


def _write(name, data):
    with open(_file(name), "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=1)


def run_cmds(cmds):
    """Outputs of each command, or (index, message) of the first that fails."""
    outputs, session, mode = [], None, []
    for index, cmd in enumerate(cmds):
        out = ""
        if cmd == "enable":
            pass
        elif cmd.startswith("configure session "):
            name = cmd.split(" ", 2)[2]
            entry = SESSIONS.setdefault(name, {"state": "pending", "lines": []})
            if entry["state"] != "pending":
                return None, (index, "Cannot enter session %s (session has been %s)" % (name, entry["state"]))
            session, mode = entry, []
        elif cmd == "show session-config diffs" and session is not None:
            running = _running()
            added = [line for line in session["lines"] if line not in running]
            if added:
                out = "--- system:/running-config\n+++ session:/session-config\n" + "".join(
                    "+%s\n" % line for line in added)
        elif cmd == "end" and session is not None:
            session = None
        elif cmd == "abort" and session is not None:
            session["state"], session = "aborted", None
        elif cmd == "commit" and session is not None:
            running = _running()
            _write("running.json", running + [line for line in session["lines"] if line not in running])
            session["state"], session = "committed", None
        elif cmd == "copy running-config startup-config" and session is None:
            _write("startup.json", _running())
        elif session is not None:
            if GLOBAL.match(cmd):
                mode = []
            elif INTERFACE.match(cmd):
                mode = [cmd]
            elif TX_QUEUE.match(cmd) and mode:
                mode = mode[:1] + [cmd]
            elif IN_INTERFACE.match(cmd) and mode:
                mode = mode[:1]
            elif IN_TX_QUEUE.match(cmd) and len(mode) == 2:
                pass
            else:
                return None, (index, "Invalid input (at token 0: '%s')" % cmd.split(" ")[0])
            line = " > ".join(mode + ([] if mode and mode[-1] == cmd else [cmd]))
            if line not in session["lines"]:
                session["lines"].append(line)
        else:
            return None, (index, "Invalid input (at token 0: '%s')" % cmd.split(" ")[0])
        outputs.append({"output": out})
    return outputs, None


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
        if self.path != "/command-api":
            return self._send(404, {"error": "not found"})
        if self.headers.get("Authorization") != expected:
            return self._send(401, {"error": "Unauthorized"})
        request = json.loads(body)
        params = request.get("params", {})
        if request.get("method") != "runCmds" or params.get("version") != 1 or params.get("format") != "text":
            return self._send(200, {"jsonrpc": "2.0", "id": request.get("id"),
                                    "error": {"code": -32602, "message": "stand-in takes runCmds version 1, text"}})
        outputs, error = run_cmds(params.get("cmds", []))
        if error:
            index, message = error
            return self._send(200, {"jsonrpc": "2.0", "id": request.get("id"), "error": {
                "code": 1002, "message": "CLI command %d of %d '%s' failed: %s"
                % (index + 1, len(params["cmds"]), params["cmds"][index], message)}})
        return self._send(200, {"jsonrpc": "2.0", "id": request.get("id"), "result": outputs})


def main():
    os.makedirs(STATE, exist_ok=True)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(PORT_FILE + ".tmp", "w", encoding="utf-8") as fh:
        fh.write(str(server.server_address[1]))
    os.replace(PORT_FILE + ".tmp", PORT_FILE)
    server.serve_forever()


if __name__ == "__main__":
    main()
