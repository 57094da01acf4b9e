# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks for tests/local/awx/run.sh, on the AWX stand-in's dump and the repository.

    check_assets.py recap LOG changed|unchanged      the play recap says changed>0 / changed=0, failed=0; no
                                                      warning in the run's output
    check_assets.py refused LOG TEXT                  the run failed, saying TEXT, before it changed anything
    check_assets.py requests DUMP PHASE reads|nowrites|writes
                                                      reads: requests, but no POST/PATCH/PUT/DELETE (a session
                                                      token aside); nowrites: the same, no request at all allowed;
                                                      writes: some, and none the stand-in refused
    check_assets.py state DUMP ROOT                   what configure.yml made, against the playbooks it runs
    check_assets.py same DUMP_A DUMP_B                the objects of both dumps are the same (timestamps aside)
    check_assets.py secrets DUMP LOGDIR               secrets only in Authorization headers; not in a body, a
                                                      path, the objects, or any ansible-playbook output
    check_assets.py mutants DUMP ROOT                 `state` accepts DUMP and rejects each of a dozen broken
                                                      variants of it, each for its own reason

`state` reads the playbooks the way Ansible runs them: the plays of import_playbook, the roles of each play and
the roles those import, their meta/argument_specs.yml, the play's vars and vars_files, and the Jinja expressions
in them (parsed with Jinja's own parser) for the variables they read and the filters they cast them with.
"""
from __future__ import annotations

import base64
import copy
import functools
import json
import os
import re
import sys

import jinja2
import yaml
from jinja2 import nodes

JINJA = jinja2.Environment()
CASTS = {"bool": "bool", "int": "int", "float": "float", "string": "str", "list": "list"}
# Ansible's boolean strings (module_utils.parsing.convert_bool), as a multiple choice question offers them.
BOOL_STRINGS = {"true", "false", "yes", "no", "on", "off", "1", "0", "y", "n", "t", "f"}
TEXT_TYPES = {"text", "textarea", "password"}
NON_CONNECTING = {"set_fact", "debug", "assert", "fail", "meta", "include_tasks", "import_tasks", "include_role",
                  "import_role", "include_vars", "add_host", "group_by", "set_stats", "pause"}
TASK_KEYWORDS = {
    "name", "when", "loop", "loop_control", "register", "vars", "tags", "delegate_to", "delegate_facts", "run_once",
    "become", "become_user", "become_method", "changed_when", "failed_when", "until", "retries", "delay", "notify",
    "listen", "ignore_errors", "ignore_unreachable", "no_log", "check_mode", "diff", "environment", "async", "poll",
    "block", "rescue", "always", "any_errors_fatal", "throttle", "timeout", "args", "with_items", "with_dict",
    "module_defaults", "collections", "debugger", "connection", "remote_user", "port", "local_action", "action",
}
COLLECTION = "gpufleet.cluster."


class _Loader(yaml.SafeLoader):
    """Playbook YAML with Ansible's tags read as plain values."""


_Loader.add_multi_constructor("!", lambda loader, suffix, node: loader.construct_scalar(node)
                              if isinstance(node, yaml.ScalarNode) else None)


@functools.lru_cache(maxsize=None)
def load(path):
    """A YAML file, read once per process; callers only read what it returns."""
    with open(path, encoding="utf-8") as handle:
        return yaml.load(handle, Loader=_Loader)  # noqa: S506 - a SafeLoader subclass


class CheckFailed(Exception):
    """A check that did not hold; main() prints it and exits 1."""


QUIET = []


def ok(message):
    if not QUIET:
        print("ok: " + message)


def fail(message):
    raise CheckFailed(message)


def dump_of(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


# ---------------------------------------------------------------- runs
def recap(log, expect):
    text = open(log, encoding="utf-8").read()
    found = re.findall(r"^localhost\s+: ok=\d+\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", text, re.M)
    if len(found) != 1:
        fail("%s: no single play recap for localhost" % log)
    changed, unreachable, failed = (int(x) for x in found[0])
    if failed or unreachable:
        fail("%s: failed=%d unreachable=%d" % (log, failed, unreachable))
    warnings = re.findall(r"^\[(?:DEPRECATION )?WARNING\]: .*$", text, re.M)
    if warnings:
        fail("%s: %s" % (log, "; ".join(warnings)))
    if expect == "changed" and changed == 0:
        fail("%s: changed=0, expected changes" % log)
    if expect == "unchanged" and changed != 0:
        tasks = re.findall(r"^TASK \[(.+?)\].*\n(?:.*\n)*?changed: ", text, re.M)
        fail("%s: changed=%d, expected none (%s)" % (log, changed, "; ".join(tasks)))
    ok("%s: changed=%d, failed=0" % (os.path.basename(log), changed))


def refused(log, expect):
    text = open(log, encoding="utf-8").read()
    found = re.findall(r"^localhost\s+: ok=\d+\s+changed=(\d+)\s+unreachable=\d+\s+failed=(\d+)", text, re.M)
    if len(found) != 1 or int(found[0][1]) == 0:
        fail("%s: the run did not fail" % log)
    if int(found[0][0]):
        fail("%s: the refused run changed something" % log)
    if expect not in " ".join(text.split()):
        fail("%s does not say '%s'" % (log, expect))
    ok("refused: '%s'" % expect)


def requests(dump, phase, expect):
    entries = [e for e in dump["request_log"] if e["phase"] == phase]
    if not entries and expect != "nowrites":
        fail("phase %s: no request reached the stand-in" % phase)
    writes = [e for e in entries if e["method"] != "GET"]
    session = [e for e in writes if e["path"].startswith("/api/v2/tokens/")]
    if expect in ("reads", "nowrites"):
        other = [e for e in writes if e not in session]
        if other:
            fail("phase %s wrote: %s" % (phase, ", ".join("%s %s" % (e["method"], e["path"]) for e in other)))
        ok("%s: %d requests, no write%s" % (phase, len(entries),
                                            " (a session token: %d)" % len(session) if session else ""))
        return
    refusals = [e for e in entries if e["status"] >= 400]
    if refusals:
        fail("phase %s: the stand-in refused %s" % (phase, "; ".join(
            "%s %s -> %d %s" % (e["method"], e["path"], e["status"], e["body"][:200]) for e in refusals)))
    if len(writes) == len(session):
        fail("phase %s: nothing was written" % phase)
    ok("%s: %d requests, %d writes, none refused" % (phase, len(entries), len(writes) - len(session)))


def same(path_a, path_b):
    def strip(dump):
        out = {}
        for coll, rows in dump["objects"].items():
            if coll == "project_updates":
                continue
            out[coll] = [{k: v for k, v in row.items() if k not in ("created", "modified")} for row in rows]
        return out
    first, second = strip(dump_of(path_a)), strip(dump_of(path_b))
    if first != second:
        diffs = []
        for coll in sorted(set(first) | set(second)):
            for a_row, b_row in zip(first.get(coll, []), second.get(coll, [])):
                keys = sorted(k for k in set(a_row) | set(b_row) if a_row.get(k) != b_row.get(k))
                if keys:
                    diffs.append("%s %s: %s" % (coll, a_row.get("name"), ", ".join(keys)))
        fail("the objects differ: " + "; ".join(diffs or ["different object counts"]))
    ok("objects after the repair are those of the first apply (%d job templates)" % len(first["job_templates"]))


def secrets_check(dump, logdir):
    token, user, password = (os.environ[k] for k in ("AWX_STANDIN_TOKEN", "AWX_STANDIN_USER", "AWX_STANDIN_PASSWORD"))
    basic = base64.b64encode(("%s:%s" % (user, password)).encode("utf-8")).decode("ascii")
    issued = dump["tokens_issued"]
    values = [token, password, basic] + issued
    bearer, basic_seen = 0, 0
    for entry in dump["request_log"]:
        where = {"path": entry["path"], "query": entry["query"], "body": entry["body"]}
        where.update({"header " + k: v for k, v in entry["headers"].items() if k.lower() != "authorization"})
        for name, text in where.items():
            if any(v in text for v in values):
                fail("a secret in the %s of %s %s" % (name, entry["method"], entry["path"]))
        auth = {k.lower(): v for k, v in entry["headers"].items()}.get("authorization", "")
        if auth in ["Bearer " + t for t in [token] + issued]:
            bearer += 1
        elif auth == "Basic " + basic:
            basic_seen += 1
        elif token in auth or password in auth:
            fail("the token or password in an Authorization header of another form: %s" % entry["path"])
    if not bearer or not basic_seen or not issued:
        fail("the runs did not log in both ways (Bearer %d, Basic %d, tokens issued %d)" % (bearer, basic_seen, len(issued)))
    state = json.dumps(dump["objects"])
    if any(v in state for v in values):
        fail("a secret is stored in an AWX object")
    logs = sorted(os.listdir(logdir))
    for name in logs:
        text = open(os.path.join(logdir, name), encoding="utf-8").read()
        if any(v in text for v in values):
            fail("a secret in the ansible-playbook output %s" % name)
    ok("secrets only in Authorization headers (%d Bearer, %d Basic, %d session tokens), in no body, object or "
       "log (%d logs)" % (bearer, basic_seen, len(issued), len(logs)))


# ---------------------------------------------------------------- the playbooks, read as Ansible runs them
def _module(task):
    keys = [k for k in task if k not in TASK_KEYWORDS and not k.startswith("with_")]
    return keys[0].split(".")[-1] if keys else None


def _role_dir(root, name):
    name = name[len(COLLECTION):] if name.startswith(COLLECTION) else name
    path = os.path.join(root, "roles", name)
    if not os.path.isdir(path):
        fail("role %s is not in roles/" % name)
    return name, path


def _walk_tasks(tasks, inherited, here, root, out):
    """Every task of a list with the delegate_to / become it runs with; follows static task includes."""
    for task in tasks or []:
        if not isinstance(task, dict):
            continue
        attrs = dict(inherited)
        for key in ("delegate_to", "become"):
            if key in task:
                attrs[key] = task[key]
        if "block" in task:
            for part in ("block", "rescue", "always"):
                _walk_tasks(task.get(part), attrs, here, root, out)
            continue
        module = _module(task)
        out.append((task, module, attrs, here))
        for key in task:
            if key.split(".")[-1] in ("include_tasks", "import_tasks"):
                target = task[key] if isinstance(task[key], str) else (task[key] or {}).get("file")
                for base in (here, root):
                    candidate = os.path.join(base, target or "")
                    if target and "{{" not in target and os.path.isfile(candidate):
                        _walk_tasks(load(candidate), attrs, os.path.dirname(candidate), root, out)
                        break


def _roles_of_tasks(task_list):
    names = []
    for task, module, _attrs, _here in task_list:
        if module in ("include_role", "import_role"):
            key = [k for k in task if k.split(".")[-1] == module][0]
            names.append(task[key]["name"])
    return names


PLAYBOOKS = {}


def playbook(root, rel):
    """Playbook(root, rel), read once per process (the mutants re-check the same playbooks)."""
    if (root, rel) not in PLAYBOOKS:
        PLAYBOOKS[root, rel] = Playbook(root, rel)
    return PLAYBOOKS[root, rel]


class Playbook:
    """What one playbook runs: its plays (imports followed), roles, variables and tasks."""

    def __init__(self, root, rel):
        self.root, self.rel = root, rel
        self.plays, self.roles, self.tasks = [], {}, []
        self._read(os.path.join(root, rel))
        pending = [name for play, _path in self.plays for name in self._play_roles(play)]
        pending += _roles_of_tasks(self.tasks)
        while pending:
            name, path = _role_dir(root, pending.pop())
            if name in self.roles:
                continue
            role_tasks = []
            for filename in sorted(os.listdir(os.path.join(path, "tasks"))):
                _walk_tasks(load(os.path.join(path, "tasks", filename)), {}, os.path.join(path, "tasks"), root,
                            role_tasks)
            self.roles[name] = {"path": path, "tasks": role_tasks}
            meta = load(os.path.join(path, "meta", "main.yml")) or {}
            pending += [d if isinstance(d, str) else d.get("role", d.get("name")) for d in meta.get("dependencies") or []]
            pending += _roles_of_tasks(role_tasks)

    def _read(self, path):
        for entry in load(path) or []:
            imported = entry.get("ansible.builtin.import_playbook", entry.get("import_playbook"))
            if imported:
                self._read(os.path.join(os.path.dirname(path), imported))
                continue
            self.plays.append((entry, path))
            # A task of a play on localhost runs there as a task delegated to localhost would.
            play_attrs = {"become": entry.get("become"),
                          "delegate_to": "localhost" if str(entry.get("hosts")) == "localhost" else None}
            for part in ("pre_tasks", "tasks", "post_tasks", "handlers"):
                _walk_tasks(entry.get(part), play_attrs, os.path.dirname(path), os.path.dirname(path), self.tasks)

    @staticmethod
    def _play_roles(play):
        return [r if isinstance(r, str) else r.get("role", r.get("name")) for r in play.get("roles") or []]

    def role_options(self):
        options = {}
        for name, role in self.roles.items():
            spec_path = os.path.join(role["path"], "meta", "argument_specs.yml")
            spec = load(spec_path)["argument_specs"]["main"]["options"]
            for option, desc in spec.items():
                options[option] = dict(desc, source="role %s (meta/argument_specs.yml)" % name)
        return options

    def declared(self):
        """Variables the plays declare or read in vars / vars_files: name -> what the expressions say of it."""
        found = {}
        for play, path in self.plays:
            sources = [(play.get("vars") or {}, "play vars of %s" % os.path.relpath(path, self.root))]
            for vars_file in play.get("vars_files") or []:
                full = os.path.join(os.path.dirname(path), vars_file)
                sources.append((load(full) or {}, os.path.relpath(full, self.root)))
            for variables, where in sources:
                for name, value in variables.items():
                    entry = found.setdefault(name, {"source": where, "casts": set(), "defaults": set()})
                    if not _is_template(value):
                        entry["literal"] = value
                    for expr in _templates(value):
                        for ref, casts, defaults in _reads(expr):
                            if ref.startswith("_"):
                                continue
                            entry_ref = found.setdefault(ref, {"source": where, "casts": set(), "defaults": set()})
                            entry_ref["casts"] |= casts
                            entry_ref["defaults"] |= defaults
        for info in found.values():
            info["choices"] = None
        for task, module, _attrs, _here in self.tasks:
            if module != "assert":
                continue
            that = task[[k for k in task if k.split(".")[-1] == "assert"][0]]["that"]
            for expr in that if isinstance(that, list) else [that]:
                for name, choices in _membership(expr):
                    if name in found:
                        found[name]["choices"] = choices
        return found

    def connects(self):
        return any(str(play.get("hosts")) not in ("localhost", "127.0.0.1") for play, _path in self.plays)

    def local_tasks_with_become(self):
        """Tasks that would run on the control node with the job's --become: on a localhost play or delegated."""
        found = []
        for task, module, attrs, here in self.tasks + [t for role in self.roles.values() for t in role["tasks"]]:
            if module is None or module in NON_CONNECTING:
                continue
            if attrs.get("delegate_to") in ("localhost", "127.0.0.1") and attrs.get("become") is not False:
                found.append("%s: %s" % (os.path.relpath(here, self.root), task.get("name", module)))
        return found


def _is_template(value):
    return isinstance(value, str) and ("{{" in value or "{%" in value)


def _templates(value):
    if isinstance(value, str):
        if _is_template(value):
            yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _templates(item)
    elif isinstance(value, list):
        for item in value:
            yield from _templates(item)


def _reads(template):
    """(name, casts, default types) for each variable a template reads."""
    tree = JINJA.parse(template)
    names = list(tree.find_all(nodes.Name))
    assigned = {n.name for n in names if n.ctx in ("store", "param")}
    result = {n.name: (set(), set()) for n in names if n.ctx == "load" and n.name not in assigned}
    for node in tree.find_all(nodes.Filter):
        base, chain = node.node, [node.name]
        while isinstance(base, nodes.Filter) and base.name in ("default", "d"):
            chain.append(base.name)
            base = base.node
        if not isinstance(base, nodes.Name) or base.name not in result:
            continue
        if node.name in CASTS:
            result[base.name][0].add(CASTS[node.name])
        elif node.name in ("default", "d") and node.args:
            literal = node.args[0]
            if isinstance(literal, nodes.Const):
                result[base.name][1].add(type(literal.value).__name__)
            elif isinstance(literal, nodes.List):
                result[base.name][1].add("list")
    return [(name, casts, defaults) for name, (casts, defaults) in result.items()]


def _membership(expr):
    """(name, [choices]) for each `name in [constants]` of an assert expression."""
    tree = JINJA.parse("{{ %s }}" % expr)
    for node in tree.find_all(nodes.Compare):
        if isinstance(node.expr, nodes.Name) and len(node.ops) == 1 and node.ops[0].op == "in":
            items = node.ops[0].expr
            if isinstance(items, (nodes.List, nodes.Tuple)) and all(isinstance(i, nodes.Const) for i in items.items):
                yield node.expr.name, [i.value for i in items.items]


def _python_type(info):
    if "type" in info:
        return {"str": "str", "raw": "raw", "path": "str", "int": "int", "bool": "bool", "float": "float",
                "list": "list", "dict": "dict"}.get(info["type"], info["type"])
    if info.get("casts"):
        if len(info["casts"]) > 1:
            return None
        return next(iter(info["casts"]))
    if "literal" in info:
        return {str: "str", bool: "bool", int: "int", float: "float", list: "list", dict: "dict"}.get(type(info["literal"]))
    if len(info.get("defaults") or ()) == 1:
        return next(iter(info["defaults"]))
    return None


def _answers(question):
    """The values an answer to the question can take, as the playbook receives them (AWX survey semantics)."""
    qtype = question["type"]
    if qtype in ("multiplechoice", "multiselect"):
        choices = question["choices"]
        return choices.splitlines() if isinstance(choices, str) else list(choices)
    return None


def check_question(template, question, spec):
    """Why the survey question does not fit the variable's spec, or None."""
    qtype, want = question["type"], _python_type(spec)
    choices, spec_choices = _answers(question), spec.get("choices")
    default = question.get("default")
    has_default = "default" in question and default != ""
    where = "%s: %s (%s, %s)" % (template, question["variable"], qtype, spec["source"])
    if want is None:
        return "%s: cannot tell the variable's type" % where
    if want == "bool":
        if qtype != "multiplechoice" or not set(c.lower() for c in choices) <= BOOL_STRINGS:
            return "%s: a bool needs a multiple choice of true/false" % where
        if not {"true", "false"} <= set(c.lower() for c in choices):
            return "%s: a bool question must offer both true and false" % where
    elif want == "int":
        if qtype == "integer":
            if has_default and not (isinstance(default, int) and not isinstance(default, bool)):
                return "%s: default %r is not an integer" % (where, default)
        elif qtype == "multiplechoice":
            if not all(re.fullmatch(r"-?\d+", c) for c in choices):
                return "%s: choices %s are not integers" % (where, choices)
        else:
            return "%s: an int needs an integer or multiple choice question" % where
    elif want == "float":
        if qtype not in ("float", "integer"):
            return "%s: a float needs a float or integer question" % where
    elif want == "str":
        if qtype not in TEXT_TYPES | {"multiplechoice"}:
            return "%s: a str needs a text or multiple choice question" % where
        if spec_choices and qtype != "multiplechoice":
            return "%s: the variable has choices %s; the question must offer them as a multiple choice" % (where, spec_choices)
        if spec_choices and not set(choices) <= set(str(c) for c in spec_choices):
            return "%s: choices %s are not all among %s" % (where, choices, spec_choices)
        if has_default and qtype in TEXT_TYPES and isinstance(default, str) and (
                len(default) < (question.get("min") or 0) or len(default) > (question.get("max") or 1024)):
            return "%s: default %r is outside its length limits" % (where, default)
    elif want == "list":
        if qtype != "multiselect":
            return "%s: a list needs a multiselect question" % where
        if spec.get("elements") not in (None, "str"):
            return "%s: list elements are %s, a multiselect answers strings" % (where, spec.get("elements"))
        if spec_choices and not set(choices) <= set(str(c) for c in spec_choices):
            return "%s: choices %s are not all among %s" % (where, choices, spec_choices)
    else:
        return "%s: no survey question type answers a %s" % (where, want)
    if has_default and choices is not None:
        picked = default.splitlines() if isinstance(default, str) else list(default)
        if not set(picked) <= set(choices):
            return "%s: default %r is not among the choices %s" % (where, default, choices)
    if has_default and qtype in ("integer", "float"):
        low, high = question.get("min"), question.get("max")
        if (low is not None and default < low) or (high is not None and default > high):
            return "%s: default %r is outside %s..%s" % (where, default, low, high)
    if not question["required"] and "default" not in question:
        return "%s: an optional question needs a default (a blank answer may reach the playbook as null)" % where
    return None


def state(dump, root):
    objects = dump["objects"]
    by_id = {coll: {o["id"]: o for o in rows} for coll, rows in objects.items()}
    templates = objects["job_templates"]
    if not templates:
        fail("no job template was made")
    project_playbooks = set(dump["project_playbooks"])
    checked_questions = 0
    for jt in templates:
        name, rel = jt["name"], jt["playbook"]
        if not os.path.isfile(os.path.join(root, rel)) or rel not in project_playbooks:
            fail("%s: playbook %s is not a playbook of the repository" % (name, rel))
        book = playbook(root, rel)
        if jt["job_slice_count"] != 1 or jt["ask_job_slice_count_on_launch"]:
            fail("%s: job_slice_count %s, prompt %s" % (name, jt["job_slice_count"], jt["ask_job_slice_count_on_launch"]))
        for field, want in (("allow_simultaneous", False), ("verbosity", 0), ("use_fact_cache", False),
                            ("ask_variables_on_launch", False), ("ask_job_type_on_launch", False),
                            ("ask_scm_branch_on_launch", False), ("ask_inventory_on_launch", False),
                            ("ask_credential_on_launch", False), ("ask_skip_tags_on_launch", False),
                            ("ask_tags_on_launch", False), ("extra_vars", "{}")):
            if jt[field] != want:
                fail("%s: %s is %r, expected %r" % (name, field, jt[field], want))
        if jt["execution_environment"] is None or not jt["timeout"] > 0 or jt["inventory"] is None:
            fail("%s: execution environment %s, timeout %s, inventory %s" % (
                name, jt["execution_environment"], jt["timeout"], jt["inventory"]))
        kinds = sorted(c["kind"] for c in objects["credentials"] if c["name"] in jt["credentials"])
        if book.connects() and "ssh" not in kinds:
            fail("%s: %s reaches cluster nodes but the template has no machine credential (%s)" % (name, rel, kinds))
        if not book.connects() and kinds:
            fail("%s: %s runs on the control node only but carries credentials %s" % (name, rel, kinds))
        local = book.local_tasks_with_become()
        if jt["become_enabled"] and local:
            fail("%s: become_enabled, but these run on the control node (the EE, no sudo) with become: %s"
                 % (name, "; ".join(local[:4])))
        spec = jt["survey_spec"]
        if bool(jt["survey_enabled"]) != bool(spec):
            fail("%s: survey_enabled %s with %d questions" % (name, jt["survey_enabled"], len(spec.get("spec", []))))
        readable = book.declared()
        readable.update(book.role_options())
        for question in spec.get("spec", []):
            variable = question["variable"]
            if variable not in readable:
                fail("%s: survey variable %s is read by nothing %s runs (roles: %s)" % (
                    name, variable, rel, ", ".join(sorted(book.roles))))
            problem = check_question(name, question, readable[variable])
            if problem:
                fail(problem)
            checked_questions += 1
        questions = len(spec.get("spec", []))
        ok("%s: %s, unsliced, %s, become %s, %s" % (
            name, rel, "%d survey question(s) it reads, typed as it reads them" % questions if questions else "no survey",
            "on" if jt["become_enabled"] else "off", "machine credential" if "ssh" in kinds else "no credential"))
    if not checked_questions:
        fail("no survey question was checked")
    for source in objects["inventory_sources"]:
        path = os.path.join(root, source["source_path"])
        if source["source"] != "scm" or not os.path.isfile(path):
            fail("inventory source %s: %s %s is not a file of the repository" % (source["name"], source["source"], path))
        inventory = load(path)
        if not isinstance(inventory, dict) or "all" not in inventory:
            fail("inventory source %s: %s is not a YAML inventory (no 'all')" % (source["name"], source["source_path"]))
        if not (source["overwrite"] and source["overwrite_vars"] and source["update_on_launch"]):
            fail("inventory source %s: overwrite, overwrite_vars and update_on_launch must be true" % source["name"])
        project = by_id["projects"][source["source_project"]]
        ok("inventory source %s: %s (%d groups under all) from project %s" % (
            source["name"], source["source_path"], len(inventory["all"].get("children", {})), project["name"]))
    for project in objects["projects"]:
        if project["allow_override"] or not project["scm_update_on_launch"] or project["default_environment"] is None:
            fail("project %s: allow_override %s, scm_update_on_launch %s, default EE %s" % (
                project["name"], project["allow_override"], project["scm_update_on_launch"], project["default_environment"]))
    ok("%d projects, %d inventory sources; no credential was created (%d, the site's)" % (
        len(objects["projects"]), len(objects["inventory_sources"]), len(objects["credentials"])))
    created = [e for e in dump["request_log"] if e["method"] == "POST" and e["path"] == "/api/v2/credentials/"]
    if created:
        fail("configure.yml tried to create a credential")


def _question(dump, template_playbook, variable):
    jt = [t for t in dump["objects"]["job_templates"] if t["playbook"] == template_playbook][0]
    return jt, [q for q in jt["survey_spec"]["spec"] if q["variable"] == variable][0]


def _mutate_question(playbook, name, **changes):
    def apply(dump):
        question = _question(dump, playbook, name)[1]
        for key, value in changes.items():
            if value is None:
                question.pop(key, None)
            else:
                question[key] = value
    return apply


def _mutate_template(which, **changes):
    def apply(dump):
        [t for t in dump["objects"]["job_templates"] if t["playbook"] == which][0].update(changes)
    return apply


def _mutate_plan_credential(dump):
    ssh = [c["name"] for c in dump["objects"]["credentials"] if c["kind"] == "ssh"]
    [t for t in dump["objects"]["job_templates"] if t["playbook"] == "playbooks/plan.yml"][0]["credentials"] = ssh


def _mutate_source(dump):
    dump["objects"]["inventory_sources"][0]["source_path"] = "inventories/h100-64/no-such-hosts.yml"


MUTANTS = [
    ("a survey variable nothing reads", "is read by nothing",
     _mutate_question("playbooks/validate.yml", "validate_drain", variable="validate_drain_nodes")),
    ("a bool asked as an integer", "a bool needs a multiple choice",
     _mutate_question("playbooks/validate.yml", "validate_drain", type="integer", default=0, choices=None)),
    ("a playbook choice asked as free text", "must offer them as a multiple choice",
     _mutate_question("playbooks/plan.yml", "plan_pdus", type="text", choices=None)),
    ("a choice the playbook refuses", "are not all among",
     _mutate_question("playbooks/plan.yml", "plan_pdus", choices=["planned", "as_built", "as-built"])),
    ("a role option of another type", "a str needs a text or multiple choice",
     _mutate_question("playbooks/driver_upgrade.yml", "nvidia_driver_branch", type="integer", min=500, max=999)),
    ("an optional question without a default", "an optional question needs a default",
     _mutate_question("playbooks/driver_upgrade.yml", "nvidia_driver_version", default=None)),
    ("an integer default out of its limits", "is outside 1..3",
     _mutate_question("playbooks/validate.yml", "validate_dcgm_level", default=4)),
    ("a sliced template", "job_slice_count 2", _mutate_template("playbooks/driver_upgrade.yml", job_slice_count=2)),
    ("become where the control node would sudo", "run on the control node (the EE, no sudo) with become",
     _mutate_template("playbooks/plan.yml", become_enabled=True)),
    ("a credential on the control-node-only plan", "runs on the control node only but carries",
     _mutate_plan_credential),
    ("a playbook not in the repository", "is not a playbook of the repository",
     _mutate_template("playbooks/plan.yml", playbook="playbooks/planning.yml")),
    ("an inventory file not in the repository", "is not a file of the repository", _mutate_source),
]


def mutants(path, root):
    """state() must reject each broken variant of a good dump, for the reason expected."""
    good = dump_of(path)
    QUIET.append(True)
    try:
        state(copy.deepcopy(good), root)
    finally:
        QUIET.pop()
    for what, expect, apply in MUTANTS:
        broken = copy.deepcopy(good)
        apply(broken)
        QUIET.append(True)
        try:
            state(broken, root)
        except CheckFailed as err:
            if expect not in str(err):
                fail("%s: rejected for another reason: %s" % (what, err))
        else:
            fail("%s: accepted" % what)
        finally:
            QUIET.pop()
        ok("state rejects %s ('%s')" % (what, expect))


def main(argv):
    try:
        return _main(argv)
    except CheckFailed as err:
        print("FAIL: %s" % err)
        return 1


def _main(argv):
    if len(argv) == 4 and argv[1] == "recap":
        recap(argv[2], argv[3])
    elif len(argv) == 4 and argv[1] == "refused":
        refused(argv[2], argv[3])
    elif len(argv) == 5 and argv[1] == "requests":
        requests(dump_of(argv[2]), argv[3], argv[4])
    elif len(argv) == 4 and argv[1] == "state":
        state(dump_of(argv[2]), argv[3])
    elif len(argv) == 4 and argv[1] == "same":
        same(argv[2], argv[3])
    elif len(argv) == 4 and argv[1] == "secrets":
        secrets_check(dump_of(argv[2]), argv[3])
    elif len(argv) == 4 and argv[1] == "mutants":
        mutants(argv[2], argv[3])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
