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
"""
from __future__ import annotations

import base64
import codecs
import copy
import json
import os
import re
import secrets
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

import yaml

VERSION = "24.6.1"
API = "/api/v2/"
PAGE_SIZE = 25


class Field:
    """One field of an object as AWX's serializer has it."""

    def __init__(self, kind, default=None, null=False, required=False, choices=None, to=None, read_only=False,
                 minimum=None):
        self.kind, self.default, self.null, self.required = kind, default, null, required
        self.choices, self.to, self.read_only, self.minimum = choices, to, read_only, minimum


def _s(default="", **kw):
    return Field("str", default, **kw)


def _b(default=False):
    return Field("bool", default)


def _i(default=0, minimum=0):
    return Field("int", default, minimum=minimum)


def _fk(to, required=False):
    return Field("fk", None, null=not required, required=required, to=to)


ASK_FIELDS = ["ask_scm_branch_on_launch", "ask_diff_mode_on_launch", "ask_variables_on_launch", "ask_limit_on_launch",
              "ask_tags_on_launch", "ask_skip_tags_on_launch", "ask_job_type_on_launch", "ask_verbosity_on_launch",
              "ask_inventory_on_launch", "ask_credential_on_launch", "ask_execution_environment_on_launch",
              "ask_labels_on_launch", "ask_forks_on_launch", "ask_job_slice_count_on_launch", "ask_timeout_on_launch",
              "ask_instance_groups_on_launch"]

SCHEMAS = {
    "organizations": {
        "name": _s(required=True), "description": _s(), "max_hosts": _i(), "custom_virtualenv": _s(None, null=True),
        "default_environment": _fk("execution_environments"),
    },
    "execution_environments": {
        "name": _s(required=True), "description": _s(), "organization": _fk("organizations"),
        "image": _s(required=True), "managed": Field("bool", False, read_only=True),
        "credential": _fk("credentials"), "pull": Field("choice", "", choices=["", "always", "missing", "never"]),
    },
    "projects": {
        "name": _s(required=True), "description": _s(), "local_path": _s(),
        "scm_type": Field("choice", "", choices=["", "git", "svn", "insights", "archive"]),
        "scm_url": _s(), "scm_branch": _s(), "scm_refspec": _s(), "scm_clean": _b(), "scm_track_submodules": _b(),
        "scm_delete_on_update": _b(), "credential": _fk("credentials"), "timeout": _i(),
        "scm_revision": _s(read_only=True), "organization": _fk("organizations", required=True),
        "scm_update_on_launch": _b(), "scm_update_cache_timeout": _i(), "allow_override": _b(),
        "custom_virtualenv": _s(None, null=True), "default_environment": _fk("execution_environments"),
        "signature_validation_credential": _fk("credentials"), "status": _s(read_only=True),
    },
    "inventories": {
        "name": _s(required=True), "description": _s(), "organization": _fk("organizations", required=True),
        "kind": Field("choice", "", choices=["", "smart", "constructed"]), "host_filter": _s(None, null=True),
        "variables": Field("vars", ""), "prevent_instance_group_fallback": _b(),
    },
    "inventory_sources": {
        "name": _s(required=True), "description": _s(),
        "source": Field("choice", "", required=True, choices=[
            "file", "constructed", "scm", "ec2", "gce", "azure_rm", "vmware", "satellite6", "openstack", "rhv",
            "controller", "insights", "terraform", "openshift_virtualization"]),
        "source_path": _s(), "source_vars": Field("vars", ""), "scm_branch": _s(), "credential": _fk("credentials"),
        "enabled_var": _s(), "enabled_value": _s(), "host_filter": _s(), "overwrite": _b(), "overwrite_vars": _b(),
        "custom_virtualenv": _s(None, null=True), "timeout": _i(), "verbosity": Field("choice", 1, choices=[0, 1, 2]),
        "limit": _s(), "inventory": _fk("inventories", required=True), "update_on_launch": _b(),
        "update_cache_timeout": _i(), "source_project": _fk("projects"),
        "execution_environment": _fk("execution_environments"),
    },
    "job_templates": {
        "name": _s(required=True), "description": _s(), "job_type": Field("choice", "run", choices=["run", "check"]),
        "inventory": _fk("inventories"), "project": _fk("projects", required=True), "playbook": _s(required=True),
        "scm_branch": _s(), "forks": _i(), "limit": _s(), "verbosity": Field("choice", 0, choices=[0, 1, 2, 3, 4, 5]),
        "extra_vars": Field("vars", ""), "job_tags": _s(), "force_handlers": _b(), "skip_tags": _s(),
        "start_at_task": _s(), "timeout": _i(minimum=None), "use_fact_cache": _b(), "organization": _fk("organizations"),
        "execution_environment": _fk("execution_environments"), "host_config_key": _s(),
        **{name: _b() for name in ASK_FIELDS},
        "survey_enabled": _b(), "become_enabled": _b(), "diff_mode": _b(), "allow_simultaneous": _b(),
        "custom_virtualenv": _s(None, null=True), "job_slice_count": Field("int", 1, minimum=1),
        "webhook_service": Field("choice", "", choices=["", "github", "gitlab", "bitbucket_dc"]),
        "webhook_credential": _fk("credentials"), "prevent_instance_group_fallback": _b(),
    },
    # Seeded only: the site's credentials are never created by configure.yml.
    "credentials": {"name": _s(required=True), "description": _s(), "organization": _fk("organizations"),
                    "credential_type": Field("int", 1, read_only=True), "kind": _s(read_only=True),
                    "inputs": Field("dict", {}, read_only=True)},
}
TYPES = {"organizations": "organization", "execution_environments": "execution_environment", "projects": "project",
         "inventories": "inventory", "inventory_sources": "inventory_source", "job_templates": "job_template",
         "credentials": "credential", "project_updates": "project_update"}
CREATABLE = ["organizations", "execution_environments", "projects", "inventories", "inventory_sources", "job_templates"]
# AWX's uniqueness: a name once (organizations), or once per organization / inventory.
UNIQUE_WITHIN = {"organizations": None, "projects": "organization", "inventories": "organization",
                 "inventory_sources": "inventory", "job_templates": "organization"}
CREDENTIAL_TYPES = {"ssh": (1, "Machine"), "scm": (2, "Source Control"), "vault": (3, "Vault"),
                    "registry": (17, "Container Registry")}
SCM_FIELDS = ["scm_type", "scm_url", "scm_branch", "scm_refspec", "credential", "scm_clean", "scm_track_submodules"]
SURVEY_TYPES = {"text": str, "textarea": str, "password": str, "multiplechoice": str, "multiselect": str,
                "integer": int, "float": (float, int)}
SURVEY_KEYS = {"question_name", "question_description", "required", "type", "variable", "default", "choices", "min",
               "max", "new_question"}
# awx/main/utils/ansible.py's valid_playbook_re since AWX 21 (ansible/awx#12102: FQCN imports count).
VALID_PLAYBOOK = re.compile(r"^\s*?-?\s*?(?:hosts|(?:ansible\.builtin\.)?include|(?:ansible\.builtin\.)?import_playbook):\s*?.*?$")


class ApiError(Exception):
    def __init__(self, status, body):
        super().__init__(status)
        self.status, self.body = status, body


def now():
    return time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime())


class Controller:
    """The objects, the request log and the login rules."""

    def __init__(self, project_dir, token, user, password, credentials):
        self.project_dir = os.path.realpath(project_dir)
        self.token, self.user, self.password = token, user, password
        self.lock = threading.Lock()
        self.objects = {name: {} for name in list(SCHEMAS) + ["project_updates"]}
        self.next_id = {name: 1 for name in self.objects}
        self.log, self.phase, self.issued, self.issued_ever = [], "", {}, []
        self.playbook_cache = None
        self._seed("organizations", {"name": "Default", "description": "", "max_hosts": 0, "custom_virtualenv": None,
                                     "default_environment": None})
        self._seed("execution_environments", {"name": "Control Plane Execution Environment", "description": "",
                                              "organization": None, "image": "control-plane-ee:latest",
                                              "managed": True, "credential": None, "pull": ""})
        for name, kind in credentials:
            type_id = CREDENTIAL_TYPES[kind][0]
            self._seed("credentials", {"name": name, "description": "the site's, made by hand in AWX",
                                       "organization": None, "credential_type": type_id, "kind": kind,
                                       "inputs": {"username": "gpufleet"} if kind == "ssh" else {}})

    # ------------------------------------------------------------ objects
    def _seed(self, coll, fields):
        oid = self.next_id[coll]
        self.next_id[coll] += 1
        obj = {"id": oid, "created": now(), "modified": now(), **fields}
        self.objects[coll][oid] = obj
        return obj

    def render(self, coll, obj, current_update=None):
        out = {"id": obj["id"], "type": TYPES[coll], "url": "%s%s/%d/" % (API, coll, obj["id"])}
        out.update({k: copy.deepcopy(v) for k, v in obj.items() if not k.startswith("_")})
        related, summary = {}, {}
        for name, field in SCHEMAS.get(coll, {}).items():
            if field.kind == "fk" and obj.get(name) is not None:
                target = self.objects[field.to][obj[name]]
                related[name] = "%s%s/%d/" % (API, field.to, target["id"])
                summary[name] = {"id": target["id"], "name": target["name"]}
        base = out["url"]
        if coll == "job_templates":
            related.update(survey_spec=base + "survey_spec/", credentials=base + "credentials/", launch=base + "launch/")
            summary["credentials"] = [{"id": cid, "name": self.objects["credentials"][cid]["name"],
                                       "kind": self.objects["credentials"][cid]["kind"]} for cid in obj["_credentials"]]
        elif coll == "projects":
            related.update(update=base + "update/", playbooks=base + "playbooks/", inventories=base + "inventories/",
                           project_updates=base + "project_updates/")
            if obj.get("_last_update"):
                summary["last_update"] = {"id": obj["_last_update"], "status": "successful", "failed": False}
            if current_update:
                summary["current_update"] = {"id": current_update, "status": "running"}
        elif coll == "inventories":
            related.update(inventory_sources=base + "inventory_sources/")
        out["related"], out["summary_fields"] = related, summary
        return out

    def validate(self, coll, data, existing=None):
        """The fields to store, or ApiError 400 with DRF's {field: [message]} layout."""
        schema, errors, clean = SCHEMAS[coll], {}, {}
        if not isinstance(data, dict):
            raise ApiError(400, {"detail": "JSON object expected"})
        for name, value in data.items():
            field = schema.get(name)
            if field is None:
                errors[name] = ["not a field of %s (this stand-in refuses what AWX would ignore)" % TYPES[coll]]
            elif field.read_only:
                errors[name] = ["read-only field"]
            else:
                problem = self._check_value(field, value)
                if problem:
                    errors[name] = [problem]
                else:
                    clean[name] = value
        if existing is None:
            for name, field in schema.items():
                if field.required and name not in data:
                    errors.setdefault(name, ["This field is required."])
        if errors:
            raise ApiError(400, errors)
        merged = {**{n: copy.deepcopy(f.default) for n, f in schema.items()}, **(existing or {}), **clean}
        self._cross_check(coll, merged, existing)
        return clean, merged

    def _check_value(self, field, value):
        if value is None:
            return None if field.null else "This field may not be null."
        if field.kind in ("str", "vars"):
            if not isinstance(value, str):
                return "Not a valid string."
            if field.kind == "vars" and value.strip():
                try:
                    parsed = yaml.safe_load(value)
                except yaml.YAMLError as exc:
                    return "Cannot parse as JSON or YAML: %s" % exc
                if not isinstance(parsed, dict):
                    return "Must be a JSON or YAML dictionary."
            return None
        if field.kind == "bool":
            return None if isinstance(value, bool) else "Must be a valid boolean."
        if field.kind == "int":
            if not isinstance(value, int) or isinstance(value, bool):
                return "A valid integer is required."
            if field.minimum is not None and value < field.minimum:
                return "Ensure this value is greater than or equal to %d." % field.minimum
            return None
        if field.kind == "choice":
            return None if value in field.choices else '"%s" is not a valid choice.' % value
        if field.kind == "fk":
            if not isinstance(value, int) or isinstance(value, bool):
                return "Incorrect type. Expected pk value, received %s." % type(value).__name__
            return None if value in self.objects[field.to] else 'Invalid pk "%s" - object does not exist.' % value
        return "unhandled field kind %s" % field.kind

    def _credential_kind(self, cid):
        return self.objects["credentials"][cid]["kind"] if cid is not None else None

    def _cross_check(self, coll, merged, existing):
        def fail(field, message):
            raise ApiError(400, {field: [message]})
        if not merged.get("name", "x"):
            fail("name", "This field may not be blank.")
        within = UNIQUE_WITHIN.get(coll, "-")
        if within != "-":
            for other in self.objects[coll].values():
                if other is not existing and other["name"] == merged["name"] and (
                        within is None or other.get(within) == merged.get(within)):
                    fail("__all__", "%s with this Name%s already exists." % (
                        TYPES[coll].replace("_", " ").capitalize(), "" if within is None else " and " + within.title()))
        if coll == "execution_environments":
            if not merged["image"]:
                fail("image", "This field may not be blank.")
            if merged["credential"] is not None and self._credential_kind(merged["credential"]) != "registry":
                fail("credential", "Credential must be a Container Registry credential.")
        elif coll == "projects":
            if merged["scm_type"] and not merged["scm_url"]:
                fail("scm_url", "SCM URL is required.")
            if merged["credential"] is not None and self._credential_kind(merged["credential"]) != "scm":
                fail("credential", "Credential kind must be 'scm'.")
            if merged["scm_type"] == "git" and re.search(r"\s", merged["scm_url"]):
                fail("scm_url", "Invalid git URL.")
        elif coll == "inventories":
            if merged["host_filter"] and merged["kind"] != "smart":
                fail("host_filter", "host_filter only applies to smart inventories.")
        elif coll == "inventory_sources":
            inventory = self.objects["inventories"][merged["inventory"]]
            if inventory["kind"]:
                fail("inventory", "Cannot create Inventory Source for Smart or Constructed Inventory")
            if merged["source"] == "scm":
                if merged["source_project"] is None:
                    fail("source_project", "Project required for scm type sources.")
                if merged["credential"] is not None:
                    fail("credential", "Credentials of type scm come from the source project, not the source.")
                self._check_source_path(merged["source_path"])
        elif coll == "job_templates":
            project = self.objects["projects"][merged["project"]]
            if merged["inventory"] is None and not merged["ask_inventory_on_launch"]:
                fail("inventory", "You must either set a default value or ask to prompt on launch.")
            if merged["organization"] is not None and merged["organization"] != project["organization"]:
                fail("organization", "A job template belongs to its project's organization.")
            if not project.get("_last_update"):
                fail("playbook", "The project has not been synced yet.")
            if merged["playbook"] not in self.playbooks():
                fail("playbook", 'Playbook not found for project: "%s".' % merged["playbook"])
            if merged["webhook_service"] == "" and merged["webhook_credential"] is not None:
                fail("webhook_credential", "Must match the selected webhook service.")

    def _check_source_path(self, path):
        if not path:
            return
        norm = os.path.normpath(path)
        if os.path.isabs(path) or norm.startswith(".."):
            raise ApiError(400, {"source_path": ["Must be a path inside the project."]})
        if not os.path.exists(os.path.join(self.project_dir, norm)):
            raise ApiError(400, {"source_path": ['"%s" does not exist in the project.' % path]})

    def playbooks(self):
        """The project's playbooks as AWX lists them after a sync (awx/main/utils/ansible.py rules)."""
        if self.playbook_cache is None:
            found = []
            for dirpath, dirnames, filenames in os.walk(self.project_dir):
                rel = os.path.relpath(dirpath, self.project_dir)
                parts = [] if rel == "." else rel.split(os.sep)
                dirnames[:] = sorted(d for d in dirnames if not _skip_directory(parts + [d]))
                for filename in sorted(filenames):
                    if os.path.splitext(filename)[1] in (".yml", ".yaml") and _could_be_playbook(
                            os.path.join(dirpath, filename)):
                        found.append(os.path.join(rel, filename) if parts else filename)
            self.playbook_cache = found
        return self.playbook_cache

    def create(self, coll, data):
        merged = self.validate(coll, data)[1]
        if coll == "job_templates" and merged["organization"] is None:
            merged["organization"] = self.objects["projects"][merged["project"]]["organization"]
        obj = self._seed(coll, merged)
        if coll == "job_templates":
            obj["_credentials"], obj["_survey_spec"] = [], {}
        update = None
        if coll == "projects" and obj["scm_type"]:
            update = self._project_update(obj)
        return self.render(coll, obj, current_update=update)

    def update(self, coll, obj, data):
        clean, merged = self.validate(coll, data, existing=obj)
        scm_changed = coll == "projects" and any(obj.get(k) != merged.get(k) for k in SCM_FIELDS)
        obj.update(clean)
        obj["modified"] = now()
        update = self._project_update(obj) if scm_changed and obj["scm_type"] else None
        return self.render(coll, obj, current_update=update)

    def _project_update(self, project):
        """A project sync, finished at once: the stand-in's project is PROJECT_DIR as it is."""
        revision = format(abs(hash((project["scm_url"], project["scm_branch"]))) % (1 << 160), "040x")
        update = self._seed("project_updates", {"project": project["id"], "status": "successful", "failed": False,
                                                "finished": now(), "scm_revision": revision,
                                                "event_processing_finished": True})
        project.update(_last_update=update["id"], scm_revision=revision, status="successful")
        return update["id"]

    # ------------------------------------------------------------ survey specs (AWX's JobTemplateSurveySpec.post)
    @staticmethod
    def check_survey(spec):
        def bad(message):
            raise ApiError(400, {"error": message})
        if not isinstance(spec, dict):
            bad("Survey spec must be a JSON object.")
        unknown = set(spec) - {"name", "description", "spec"}
        if unknown:
            bad("Unknown keys in survey spec: %s" % ", ".join(sorted(unknown)))
        for field, expect in (("name", str), ("description", str), ("spec", list)):
            if field not in spec:
                bad("Field '%s' is missing from survey spec." % field)
            if not isinstance(spec[field], expect):
                bad("Expected %s for field '%s', received %s type." % (expect.__name__, field, type(spec[field]).__name__))
        if not spec["spec"]:
            bad("'spec' doesn't contain any items.")
        seen = set()
        for idx, item in enumerate(spec["spec"]):
            if not isinstance(item, dict):
                bad("Survey question %d is not a json object." % idx)
            unknown = set(item) - SURVEY_KEYS
            if unknown:
                bad("Survey question %d has keys AWX does not read: %s" % (idx, ", ".join(sorted(unknown))))
            for key in ("type", "question_name", "variable", "required"):
                if key not in item:
                    bad("'%s' missing from survey question %d" % (key, idx))
                want = bool if key == "required" else str
                if not isinstance(item[key], want):
                    bad("'%s' in survey question %d expected to be %s." % (key, idx, want.__name__))
            if item["variable"] in seen:
                bad("'variable' '%s' duplicated in survey question %d." % (item["variable"], idx))
            seen.add(item["variable"])
            qtype = item["type"]
            if qtype not in SURVEY_TYPES:
                bad("'%s' in survey question %d is not one of '%s' allowed question types."
                    % (qtype, idx, ", ".join(SURVEY_TYPES)))
            if "default" in item and item["default"] != "" and (
                    not isinstance(item["default"], SURVEY_TYPES[qtype]) or isinstance(item["default"], bool)):
                bad("Default value %s in survey question %d expected to be %s." % (item["default"], idx, qtype))
            for key in ("min", "max"):
                if key in item and item[key] is not None and (not isinstance(item[key], int) or isinstance(item[key], bool)):
                    bad("The %s limit in survey question %d expected to be integer." % (key, idx))
            if qtype in ("multiselect", "multiplechoice"):
                if "choices" not in item:
                    bad("Survey question %d of type %s must specify choices." % (idx, qtype))
                if isinstance(item["choices"], str):
                    item["choices"] = "\n".join(c for c in item["choices"].splitlines() if c.strip() != "")
                if "default" in item:
                    if isinstance(item["default"], str):
                        item["default"] = "\n".join(c for c in item["default"].splitlines() if c.strip() != "")
                        defaults = item["default"].splitlines()
                    else:
                        defaults = item["default"]
                    if qtype == "multiplechoice" and len(defaults) > 1:
                        bad("Multiple Choice (Single Select) can only have one default value.")
                    if any(d not in item["choices"] for d in defaults):
                        bad("Default choice must be answered from the choices listed.")
            if qtype == "password" and "default" in item:
                bad("this stand-in stores no secret: a password question must have no default")
        return spec

    # ------------------------------------------------------------ listing
    def listing(self, coll, query):
        params, page, page_size = [], 1, PAGE_SIZE
        for key, value in query:
            if key == "page":
                page = int(value)
            elif key == "page_size":
                page_size = int(value)
            else:
                params.append((key, value))
        rows = list(self.objects[coll].values())
        plain = [(k, v) for k, v in params if not k.startswith("or__")]
        alternatives = [(k[4:], v) for k, v in params if k.startswith("or__")]
        for key, _value in plain + alternatives:
            if key != "id" and key not in SCHEMAS.get(coll, {}) and not (coll == "project_updates" and key == "project"):
                raise ApiError(400, {"detail": "Invalid field name: %s (this stand-in filters on plain fields)" % key})
        rows = [r for r in rows if all(_matches(r, k, v) for k, v in plain)]
        if alternatives:
            rows = [r for r in rows if any(_matches(r, k, v) for k, v in alternatives)]
        rows.sort(key=lambda r: r["id"])
        start = (page - 1) * page_size
        chunk = rows[start:start + page_size]
        rest = [(k, v) for k, v in query if k != "page"]
        nxt = None
        if start + page_size < len(rows):
            nxt = "%s%s/?%s" % (API, coll, urlencode(rest + [("page", str(page + 1))]))
        return {"count": len(rows), "next": nxt, "previous": None,
                "results": [self.render(coll, r) for r in chunk] if coll in TYPES and coll != "project_updates"
                else [dict(r, type="project_update") for r in chunk]}


def _matches(row, key, value):
    have = row.get(key)
    if isinstance(have, bool):
        have = "true" if have else "false"
        value = value.lower()
    return str(have) == value if have is not None else value in ("", "None", "null")


def _skip_directory(parts):
    if "roles" in parts or "tasks" in parts or "group_vars" in parts or "host_vars" in parts:
        return True
    return any(p.startswith(".") for p in parts)


def _could_be_playbook(path):
    try:
        with codecs.open(path, "r", encoding="utf-8", errors="ignore") as handle:
            for number, line in enumerate(handle):
                if VALID_PLAYBOOK.match(line) or (number == 0 and line.startswith("$ANSIBLE_VAULT;")):
                    return True
    except IOError:
        return False
    return False


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
            raise ApiError(415, {"detail": 'Unsupported media type "%s" in request.' % self.headers.get("Content-Type")})
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
            return 200, {"version": VERSION, "active_node": "standin", "ha": False, "instances": [], "instance_groups": []}
        if parts[:1] == ["tokens"]:
            return self._tokens(method, parts)
        if not self._authenticated():
            raise ApiError(401, {"detail": "Authentication credentials were not provided."})
        if parts == ["config"] and method == "GET":
            return 200, {"version": VERSION, "ansible_version": "2.19", "license_info": {}}
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
            obj["_survey_spec"] = self.controller.check_survey(self._body(raw))
            return 200, None
        if method == "DELETE":
            obj["_survey_spec"] = {}
            return 200, None
        raise ApiError(405, {"detail": "Method not allowed."})

    def _credentials(self, method, obj, raw):
        ctl = self.controller
        if method == "GET":
            rows = [ctl.objects["credentials"][c] for c in obj["_credentials"]]
            return 200, {"count": len(rows), "next": None, "previous": None,
                         "results": [ctl.render("credentials", r) for r in rows]}
        if method != "POST":
            raise ApiError(405, {"detail": "Method not allowed."})
        data = self._body(raw)
        if not isinstance(data, dict) or set(data) - {"id", "disassociate"} or not isinstance(data.get("id"), int):
            raise ApiError(400, {"detail": "Associate with {\"id\": N}, disassociate with {\"id\": N, \"disassociate\": true}."})
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


def _port(port_file):
    with open(port_file, encoding="utf-8") as handle:
        return int(handle.read().strip())


def _call(port_file, method, path, body=None, token=None):
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
        Handler.controller = Controller(argv[3], os.environ["AWX_STANDIN_TOKEN"], os.environ["AWX_STANDIN_USER"],
                                        os.environ["AWX_STANDIN_PASSWORD"], credentials)
        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        with open(argv[2] + ".tmp", "w", encoding="utf-8") as handle:
            handle.write(str(server.server_address[1]))
        os.replace(argv[2] + ".tmp", argv[2])
        server.serve_forever()
        return 0
    if len(argv) == 4 and argv[1] == "phase":
        status, _body = _call(argv[2], "POST", "/_standin/phase", {"name": argv[3]})
        return 0 if status == 200 else 1
    if len(argv) == 4 and argv[1] == "dump":
        status, body = _call(argv[2], "GET", "/_standin/dump")
        with open(argv[3], "w", encoding="utf-8") as handle:
            json.dump(body, handle, indent=1, sort_keys=True)
        return 0 if status == 200 else 1
    if len(argv) in (5, 6) and argv[1] == "request":
        status, body = _call(argv[2], argv[3], argv[4], json.loads(argv[5]) if len(argv) == 6 else None,
                             token=os.environ["AWX_STANDIN_TOKEN"])
        print(json.dumps({"status": status, "body": body}))
        return 0 if status < 300 else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
