# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Stand-in for the part of the AWX REST API v2 that awx/configure.yml's awx.awx modules call (no AWX here).

    awx_standin.py serve PORT_FILE PROJECT_DIR [--credential NAME=KIND ...]
            listens on 127.0.0.1 (a free port, written to PORT_FILE); the token, user and password it accepts
            come from $AWX_STANDIN_TOKEN, $AWX_STANDIN_USER, $AWX_STANDIN_PASSWORD
    awx_standin.py phase PORT_FILE NAME          label the requests that follow (one label per test run)
    awx_standin.py dump PORT_FILE OUT            write {"objects", "request_log", "tokens_issued"} to OUT
    awx_standin.py request PORT_FILE METHOD PATH [JSON]   an API request with $AWX_STANDIN_TOKEN (as a UI edit)

It keeps organizations, execution environments, projects (with their updates), inventories, inventory sources,
job templates (survey specs, credential associations) and the site's credentials (seeded, read only, without a
secret) in memory, as AWX serves them: list views with field filters and pages, named URLs (NAME++ORGANIZATION)
for what is named within an organization, POST to create (201), PATCH to update, the version headers awx.awx
checks on every response, Bearer tokens and the token that user and password buy at /api/v2/tokens/. It checks
what AWX checks and more: a field, filter, survey key or endpoint it does not know is a 400 or 404 (AWX ignores
unknown fields; here a misspelt one must fail the test), a job template's playbook must be one of the project's
playbooks (found in PROJECT_DIR the way AWX scans a synced project), an inventory source's source_path must exist
in PROJECT_DIR, survey specs follow AWX's rules (the same normalisation of choices and defaults). Every request is
logged with its headers and body.

The code: standin_schema.py (the objects' fields, AWX's survey rules), standin_controller.py (the objects, logins,
the project's playbooks), standin_http.py (routes, the server, the client the commands above use); this file is the
command line run.sh calls.
"""
from __future__ import annotations

import json
import os
import sys

from standin_controller import Controller
from standin_http import call, serve


def main(argv):
    if len(argv) >= 4 and argv[1] == "serve":
        credentials = []
        rest = argv[4:]
        while rest:
            if rest[0] != "--credential" or len(rest) < 2 or "=" not in rest[1]:
                raise SystemExit("usage: serve PORT_FILE PROJECT_DIR [--credential NAME=KIND ...]")
            name, kind = rest[1].rsplit("=", 1)
            credentials.append((name, kind))
            rest = rest[2:]
        serve(argv[2], Controller(argv[3], os.environ["AWX_STANDIN_TOKEN"], os.environ["AWX_STANDIN_USER"],
                                  os.environ["AWX_STANDIN_PASSWORD"], credentials))
        return 0
    if len(argv) == 4 and argv[1] == "phase":
        status, _body = call(argv[2], "POST", "/_standin/phase", {"name": argv[3]})
        return 0 if status == 200 else 1
    if len(argv) == 4 and argv[1] == "dump":
        status, body = call(argv[2], "GET", "/_standin/dump")
        with open(argv[3], "w", encoding="utf-8") as handle:
            json.dump(body, handle, indent=1, sort_keys=True)
        return 0 if status == 200 else 1
    if len(argv) in (5, 6) and argv[1] == "request":
        status, body = call(argv[2], argv[3], argv[4], json.loads(argv[5]) if len(argv) == 6 else None,
                            token=os.environ["AWX_STANDIN_TOKEN"])
        print(json.dumps({"status": status, "body": body}))
        return 0 if status < 300 else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
