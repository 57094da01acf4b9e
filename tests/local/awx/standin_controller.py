# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The AWX stand-in's controller: the objects it keeps in memory, the request log and the login rules; creating,
updating, listing and rendering objects as AWX does, and the project's playbooks found the way AWX scans a synced
project."""
from __future__ import annotations

import codecs
import copy
import os
import re
import threading
import time
import uuid
from urllib.parse import urlencode

import yaml

from standin_schema import (
    API, CREDENTIAL_TYPES, EDGES, PAGE_SIZE, SCHEMAS, SCM_FIELDS, TYPES, UNIFIED, UNIQUE_WITHIN, ApiError,
)

# awx/main/utils/ansible.py's valid_playbook_re since AWX 21 (ansible/awx#12102: FQCN imports count).
VALID_PLAYBOOK = re.compile(
    r"^\s*?-?\s*?(?:hosts|(?:ansible\.builtin\.)?include|(?:ansible\.builtin\.)?import_playbook):\s*?.*?$")


def now():
    return time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime())


class Controller:
    """The objects, the request log and the login rules."""

    def __init__(self, project_dir, token, user, password, credentials):
        self.project_dir = os.path.realpath(project_dir)
        self.token, self.user, self.password = token, user, password
        self.lock = threading.Lock()
        self.objects = {name: {} for name in list(SCHEMAS) + ["project_updates"]}
        self.next_id = {name: 1 for name in list(self.objects) + ["unified"]}
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
        counter = "unified" if coll in UNIFIED else coll
        oid = self.next_id[counter]
        self.next_id[counter] += 1
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
            related.update(survey_spec=base + "survey_spec/", credentials=base + "credentials/",
                           launch=base + "launch/")
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
        elif coll == "workflow_job_templates":
            related.update(workflow_nodes=base + "workflow_nodes/", launch=base + "launch/")
        elif coll == "workflow_job_template_nodes":
            related.update({edge: base + edge + "/" for edge in EDGES})
            target = self.unified(obj["unified_job_template"])
            if target:
                related["unified_job_template"] = "%s%s/%d/" % (API, target[0], obj["unified_job_template"])
                summary["unified_job_template"] = {"id": target[1]["id"], "name": target[1]["name"],
                                                   "unified_job_type": TYPES[target[0]]}
            for edge in EDGES:
                out[edge] = list(obj["_" + edge])
        out["related"], out["summary_fields"] = related, summary
        return out

    def validate(self, coll, data, existing=None):
        """The fields to store, or ApiError 400 with DRF's {field: [message]} layout."""
        schema, errors, clean = SCHEMAS[coll], {}, {}
        if not isinstance(data, dict):
            raise ApiError(400, {"detail": "JSON object expected"})
        for name, value in data.items():
            field = schema.get(name)
            if name == "type" and value == TYPES[coll]:
                continue  # read-only, and ignored by AWX (awx.awx's node module sends it)
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
        if field.kind == "dict":
            return None if isinstance(value, dict) else "Must be a JSON object."
        if field.kind == "ujt":
            if not isinstance(value, int) or isinstance(value, bool) or not self.unified(value):
                return 'Invalid pk "%s" - object does not exist.' % value
            return None
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
        elif coll == "workflow_job_template_nodes":
            for other in self.objects[coll].values():
                if other is not existing and other["workflow_job_template"] == merged["workflow_job_template"] \
                        and other["identifier"] == merged["identifier"]:
                    fail("__all__", "Workflow job template node with this Identifier and Workflow job template "
                                    "already exists.")

    def unified(self, oid):
        """(collection, object) of the unified job template of this id, or None."""
        for coll in UNIFIED:
            if oid in self.objects[coll]:
                return coll, self.objects[coll][oid]
        return None

    def associate(self, node, edge, data):
        """A node's edge to another node of the same workflow, as AWX allows it: no loop, no cycle, one edge
        between two nodes."""
        child = self.objects["workflow_job_template_nodes"].get(data["id"])
        if child is None:
            raise ApiError(400, {"msg": "Related object not found."})
        if data.get("disassociate"):
            if child["id"] in node["_" + edge]:
                node["_" + edge].remove(child["id"])
            return
        if child["workflow_job_template"] != node["workflow_job_template"]:
            raise ApiError(400, {"Error": "Cannot associate two nodes of different workflows."})
        if child["id"] == node["id"]:
            raise ApiError(400, {"Error": "Cycle detected."})
        if any(child["id"] in node["_" + other] for other in EDGES if other != edge):
            raise ApiError(400, {"Error": "Relationship not allowed."})
        # A cycle: the new child reaches the node already.
        seen, todo = set(), [child["id"]]
        while todo:
            current = self.objects["workflow_job_template_nodes"][todo.pop()]
            if current["id"] == node["id"]:
                raise ApiError(400, {"Error": "Cycle detected."})
            if current["id"] not in seen:
                seen.add(current["id"])
                todo += [c for other in EDGES for c in current["_" + other]]
        if child["id"] not in node["_" + edge]:
            node["_" + edge].append(child["id"])

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
        if coll == "workflow_job_template_nodes" and not merged["identifier"]:
            merged["identifier"] = str(uuid.uuid4())  # AWX's default
        obj = self._seed(coll, merged)
        if coll == "job_templates":
            obj["_credentials"], obj["_survey_spec"] = [], {}
        if coll == "workflow_job_template_nodes":
            for edge in EDGES:
                obj["_" + edge] = []
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

    # ------------------------------------------------------------ listing
    def unified_listing(self, query):
        """/api/v2/unified_job_templates/: every project, inventory source, job template and workflow, filtered on
        name, id, type and organization (an inventory source's is its inventory's)."""
        rows = []
        for coll in UNIFIED:
            for obj in self.objects[coll].values():
                organization = obj.get("organization")
                if coll == "inventory_sources":
                    organization = self.objects["inventories"][obj["inventory"]]["organization"]
                rows.append((coll, obj, {"id": obj["id"], "name": obj["name"], "type": TYPES[coll],
                                         "organization": organization}))
        plain = [(k, v) for k, v in query if not k.startswith("or__") and k not in ("page", "page_size")]
        alternatives = [(k[4:], v) for k, v in query if k.startswith("or__")]
        for key, _value in plain + alternatives:
            if key not in ("id", "name", "type", "organization"):
                raise ApiError(400, {"detail": "Invalid field name: %s (this stand-in filters unified job templates "
                                               "on id, name, type, organization)" % key})
        found = [(c, o) for c, o, f in rows if all(_matches(f, k, v) for k, v in plain)
                 and (not alternatives or any(_matches(f, k, v) for k, v in alternatives))]
        found.sort(key=lambda row: row[1]["id"])
        return {"count": len(found), "next": None, "previous": None,
                "results": [self.render(c, o) for c, o in found]}

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
            plain_field = key == "id" or key in SCHEMAS.get(coll, {})
            if not plain_field and not (coll == "project_updates" and key == "project"):
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
