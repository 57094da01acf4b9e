# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The playbooks read the way Ansible runs them, for check_assets.py: the plays of import_playbook, the roles of
each play and the roles those import (meta dependencies, include_role / import_role), every task with the
delegate_to / become it runs with (blocks and static task includes followed), the roles' meta/argument_specs.yml,
the plays' vars and vars_files, and the Jinja expressions in them (parsed with Jinja's own parser) for the
variables they read and the filters they cast them with.
"""
from __future__ import annotations

import functools
import os

import jinja2
import yaml
from jinja2 import nodes

JINJA = jinja2.Environment()
CASTS = {"bool": "bool", "int": "int", "float": "float", "string": "str", "list": "list"}
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


class PlaybookError(Exception):
    """The playbooks name what is not there (a role missing from roles/)."""


def _module(task):
    keys = [k for k in task if k not in TASK_KEYWORDS and not k.startswith("with_")]
    return keys[0].split(".")[-1] if keys else None


def _role_dir(root, name):
    name = name[len(COLLECTION):] if name.startswith(COLLECTION) else name
    path = os.path.join(root, "roles", name)
    if not os.path.isdir(path):
        raise PlaybookError("role %s is not in roles/" % name)
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
            pending += [d if isinstance(d, str) else d.get("role", d.get("name"))
                        for d in meta.get("dependencies") or []]
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
