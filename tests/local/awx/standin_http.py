# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The AWX stand-in's HTTP side: the request handler (routes, logins, the version headers awx.awx checks, the
request log, the /_standin/ control endpoints), the server on 127.0.0.1, and the client the CLI's phase, dump and
request commands use."""
from __future__ import annotations

import base64
import copy
import json
import os
import secrets
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, unquote, urlsplit

from standin_controller import Controller
from standin_schema import API, CREATABLE, EDGES, UNIQUE_WITHIN, VERSION, ApiError, check_survey


class Handler(BaseHTTPRequestHandler):
    controller: Controller = None
    server_version = "awx-standin"

    def log_message(self, *args):  # the request log is the record; keep stderr quiet
        return

    def do_GET(self):
        self._handle("GET")

    def do_POST(self):
        self._handle("POST")

    def do_PATCH(self):
        self._handle("PATCH")

    def do_PUT(self):
        self._handle("PUT")

    def do_DELETE(self):
        self._handle("DELETE")

    def _handle(self, method):
        ctl = self.controller
        split = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode("utf-8") if length else ""
        if split.path.startswith("/_standin/"):
            self._control(split.path, raw)
            return
        with ctl.lock:
            try:
                status, body = self._route(method, split.path, parse_qsl(split.query, keep_blank_values=True), raw)
            except ApiError as err:
                status, body = err.status, err.body
            headers = {k: v for k, v in self.headers.items() if k.lower() in ("authorization", "content-type")}
            ctl.log.append({"seq": len(ctl.log) + 1, "phase": ctl.phase, "method": method, "path": split.path,
                            "query": split.query, "headers": headers, "body": raw, "status": status})
        self._send(status, body)

    def _send(self, status, body):
        payload = b"" if body is None else json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("X-API-Product-Name", "AWX")
        self.send_header("X-API-Product-Version", VERSION)
        self.end_headers()
        self.wfile.write(payload)

    def _control(self, path, raw):
        ctl = self.controller
        with ctl.lock:
            if path == "/_standin/phase":
                ctl.phase = json.loads(raw)["name"]
                self._send(200, {"phase": ctl.phase})
            elif path == "/_standin/dump":
                objects = {coll: [dict(obj) for obj in rows.values()] for coll, rows in ctl.objects.items()}
                for jt in objects["job_templates"]:
                    jt["survey_spec"] = jt.pop("_survey_spec")
                    jt["credentials"] = [ctl.objects["credentials"][c]["name"] for c in jt.pop("_credentials")]
                for node in objects["workflow_job_template_nodes"]:
                    for edge in EDGES:
                        node[edge] = node.pop("_" + edge)
                self._send(200, {"objects": objects, "request_log": ctl.log, "tokens_issued": ctl.issued_ever,
                                 "project_playbooks": ctl.playbooks()})
            else:
                self._send(404, {"detail": "unknown control endpoint"})

    def _authenticated(self):
        ctl, header = self.controller, self.headers.get("Authorization", "")
        if header.startswith("Bearer "):
            token = header[len("Bearer "):]
            return token == ctl.token or token in ctl.issued.values()
        if header.startswith("Basic "):
            user, _sep, password = base64.b64decode(header[6:]).decode("utf-8").partition(":")
            return user == ctl.user and password == ctl.password
        return False

    def _body(self, raw):
        if self.headers.get("Content-Type", "").split(";")[0] != "application/json":
            raise ApiError(415, {"detail": 'Unsupported media type "%s" in request.'
                                           % self.headers.get("Content-Type")})
        try:
            return json.loads(raw or "{}")
        except ValueError as exc:
            raise ApiError(400, {"detail": "JSON parse error - %s" % exc}) from exc

    def _route(self, method, path, query, raw):
        ctl = self.controller
        if not path.startswith(API):
            raise ApiError(404, {"detail": "Not found (outside %s)." % API})
        parts = [p for p in path[len(API):].split("/") if p]
        if parts == ["ping"] and method == "GET":
            return 200, {"version": VERSION, "active_node": "standin", "ha": False, "instances": [],
                         "instance_groups": []}
        if parts[:1] == ["tokens"]:
            return self._tokens(method, parts)
        if not self._authenticated():
            raise ApiError(401, {"detail": "Authentication credentials were not provided."})
        if parts == ["config"] and method == "GET":
            return 200, {"version": VERSION, "ansible_version": "2.19", "license_info": {}}
        if parts == ["unified_job_templates"] and method == "GET":
            return 200, ctl.unified_listing(query)
        if not parts or parts[0] not in ctl.objects:
            raise ApiError(404, {"detail": "Not found: this stand-in serves %s" % ", ".join(sorted(ctl.objects))})
        coll = parts[0]
        if len(parts) == 1:
            if method == "GET":
                return 200, ctl.listing(coll, query)
            if method == "POST" and coll in CREATABLE:
                return 201, ctl.create(coll, self._body(raw))
            raise ApiError(405, {"detail": 'Method "%s" not allowed on %s in this stand-in.' % (method, path)})
        obj = self._object(coll, unquote(parts[1]))
        if len(parts) == 2:
            if method == "GET":
                return 200, (ctl.render(coll, obj) if coll != "project_updates" else dict(obj, type="project_update"))
            if method == "PATCH" and coll in CREATABLE:
                return 200, ctl.update(coll, obj, self._body(raw))
            raise ApiError(405, {"detail": 'Method "%s" not allowed on %s in this stand-in.' % (method, path)})
        sub = "/".join(parts[2:])
        if coll == "job_templates" and sub == "survey_spec":
            return self._survey(method, obj, raw)
        if coll == "job_templates" and sub == "credentials":
            return self._credentials(method, obj, raw)
        if coll == "workflow_job_template_nodes" and sub in EDGES:
            return self._edges(method, obj, sub, raw)
        if coll == "projects" and sub == "playbooks" and method == "GET":
            return 200, ctl.playbooks()
        raise ApiError(404, {"detail": "Not found: %s is not served by this stand-in." % path})

    def _object(self, coll, key):
        """By id, or by AWX's named URL NAME++ORGANIZATION for the objects named within an organization."""
        ctl = self.controller
        if key.isdigit() and int(key) in ctl.objects[coll]:
            return ctl.objects[coll][int(key)]
        if "++" in key and UNIQUE_WITHIN.get(coll) == "organization":
            name, org_name = key.split("++", 1)
            for obj in ctl.objects[coll].values():
                if obj["name"] == name and ctl.objects["organizations"][obj["organization"]]["name"] == org_name:
                    return obj
        raise ApiError(404, {"detail": "Not found."})

    def _tokens(self, method, parts):
        ctl, header = self.controller, self.headers.get("Authorization", "")
        if not header.startswith("Basic ") or not self._authenticated():
            raise ApiError(401, {"detail": "Invalid username/password."})
        if method == "POST" and len(parts) == 1:
            tid = len(ctl.issued_ever) + 1
            ctl.issued[tid] = secrets.token_hex(16)
            ctl.issued_ever.append(ctl.issued[tid])
            return 201, {"id": tid, "type": "o_auth2_access_token", "token": ctl.issued[tid], "scope": "write"}
        if method == "DELETE" and len(parts) == 2 and int(parts[1]) in ctl.issued:
            ctl.issued.pop(int(parts[1]))
            return 204, None
        raise ApiError(404, {"detail": "Not found."})

    def _survey(self, method, obj, raw):
        if method == "GET":
            return 200, copy.deepcopy(obj["_survey_spec"])
        if method == "POST":
            obj["_survey_spec"] = check_survey(self._body(raw))
            return 200, None
        if method == "DELETE":
            obj["_survey_spec"] = {}
            return 200, None
        raise ApiError(405, {"detail": "Method not allowed."})

    def _association(self, method, coll, ids, raw):
        """An association sub-list (AWX's SubListCreateAttachDetachAPIView): GET lists the objects COLL[ids]; POST
        returns the {"id": N[, "disassociate": true]} body to act on, anything else is refused."""
        ctl = self.controller
        if method == "GET":
            rows = [ctl.objects[coll][i] for i in ids]
            return {"count": len(rows), "next": None, "previous": None,
                    "results": [ctl.render(coll, r) for r in rows]}
        if method != "POST":
            raise ApiError(405, {"detail": "Method not allowed."})
        data = self._body(raw)
        if not isinstance(data, dict) or set(data) - {"id", "disassociate"} or not isinstance(data.get("id"), int):
            raise ApiError(400, {"detail": "Associate with {\"id\": N}, disassociate with "
                                           "{\"id\": N, \"disassociate\": true}."})
        return data

    def _edges(self, method, obj, edge, raw):
        data = self._association(method, "workflow_job_template_nodes", obj["_" + edge], raw)
        if method == "GET":
            return 200, data
        self.controller.associate(obj, edge, data)
        return 204, None

    def _credentials(self, method, obj, raw):
        ctl = self.controller
        data = self._association(method, "credentials", obj["_credentials"], raw)
        if method == "GET":
            return 200, data
        cred = ctl.objects["credentials"].get(data["id"])
        if cred is None:
            raise ApiError(400, {"msg": "Related object not found."})
        if data.get("disassociate"):
            if cred["id"] in obj["_credentials"]:
                obj["_credentials"].remove(cred["id"])
            return 204, None
        if cred["kind"] not in ("ssh", "vault", "cloud", "net", "kubernetes"):
            raise ApiError(400, {"error": "Cannot assign a Credential of kind `%s`." % cred["kind"]})
        if any(ctl.objects["credentials"][c]["kind"] == cred["kind"] for c in obj["_credentials"] if c != cred["id"]):
            raise ApiError(400, {"error": "Cannot assign multiple %s credentials." % cred["kind"]})
        if cred["id"] not in obj["_credentials"]:
            obj["_credentials"].append(cred["id"])
        return 204, None


def serve(port_file, controller):
    """Serve `controller` on 127.0.0.1, on a free port written to port_file once it listens; never returns."""
    Handler.controller = controller
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(port_file + ".tmp", "w", encoding="utf-8") as handle:
        handle.write(str(server.server_address[1]))
    os.replace(port_file + ".tmp", port_file)
    server.serve_forever()


def _port(port_file):
    with open(port_file, encoding="utf-8") as handle:
        return int(handle.read().strip())


def call(port_file, method, path, body=None, token=None):
    """One request to the stand-in serving at port_file: (status, the JSON body or None)."""
    data = None if body is None else json.dumps(body).encode("utf-8")
    request = urllib.request.Request("http://127.0.0.1:%d%s" % (_port(port_file), path), data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read().decode("utf-8")
            return response.status, json.loads(text) if text else None
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read().decode("utf-8") or "null")
