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

`state` reads the playbooks the way Ansible runs them (playbook_walker.py): the plays, their roles and tasks,
the roles' argument specs, and the variables the plays' vars and vars_files read.
"""
from __future__ import annotations

import base64
import copy
import json
import os
import re
import sys

from playbook_walker import PlaybookError, load, playbook

# Ansible's boolean strings (module_utils.parsing.convert_bool), as a multiple choice question offers them.
BOOL_STRINGS = {"true", "false", "yes", "no", "on", "off", "1", "0", "y", "n", "t", "f"}
TEXT_TYPES = {"text", "textarea", "password"}


class CheckFailed(Exception):
    """A check that did not hold; main() prints it and exits 1."""


# What stops a check: one that did not hold, or playbooks it cannot read (a role they name is missing).
FAILED = (CheckFailed, PlaybookError)


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
        fail("the runs did not log in both ways (Bearer %d, Basic %d, tokens issued %d)"
             % (bearer, basic_seen, len(issued)))
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


def _python_type(info):
    if "type" in info:
        return {"str": "str", "raw": "raw", "path": "str", "int": "int", "bool": "bool", "float": "float",
                "list": "list", "dict": "dict"}.get(info["type"], info["type"])
    if info.get("casts"):
        if len(info["casts"]) > 1:
            return None
        return next(iter(info["casts"]))
    if "literal" in info:
        return {str: "str", bool: "bool", int: "int", float: "float", list: "list",
                dict: "dict"}.get(type(info["literal"]))
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
            return "%s: the variable has choices %s; the question must offer them as a multiple choice" % (
                where, spec_choices)
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
        if (jt["job_slice_count"] != 1 and not slice_safe(root, rel)) or jt["ask_job_slice_count_on_launch"]:
            fail("%s: job_slice_count %s, prompt %s (only a playbook whose every play sets gpufleet_slice_safe: "
                 "true may run sliced)" % (name, jt["job_slice_count"], jt["ask_job_slice_count_on_launch"]))
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
        ok("%s: %s, %s, %s, become %s, %s" % (
            name, rel, "%d slices" % jt["job_slice_count"] if jt["job_slice_count"] > 1 else "unsliced",
            "%d survey question(s) it reads, typed as it reads them" % questions if questions else "no survey",
            "on" if jt["become_enabled"] else "off", "machine credential" if "ssh" in kinds else "no credential"))
    if not checked_questions:
        fail("no survey question was checked")
    for source in objects["inventory_sources"]:
        path = os.path.join(root, source["source_path"])
        if source["source"] != "scm" or not os.path.isfile(path):
            fail("inventory source %s: %s %s is not a file of the repository"
                 % (source["name"], source["source"], path))
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
                project["name"], project["allow_override"], project["scm_update_on_launch"],
                project["default_environment"]))
    ok("%d projects, %d inventory sources; no credential was created (%d, the site's)" % (
        len(objects["projects"]), len(objects["inventory_sources"]), len(objects["credentials"])))
    created = [e for e in dump["request_log"] if e["method"] == "POST" and e["path"] == "/api/v2/credentials/"]
    if created:
        fail("configure.yml tried to create a credential")
    workflow(objects)


def slice_safe(root, rel):
    """Every play of the playbook says it is slice-safe (gpufleet_slice_safe: true in its vars): what
    roles/os_support lets run as one slice of an AWX sliced job."""
    plays = load(os.path.join(root, rel))
    return bool(plays) and all(isinstance(play, dict) and "import_playbook" not in play
                               and "ansible.builtin.import_playbook" not in play
                               and (play.get("vars") or {}).get("gpufleet_slice_safe") is True for play in plays)


WORKFLOW_STEPS = ["project", "inventory_source", "playbooks/cluster.yml", "playbooks/nodes.yml", "playbooks/finalize.yml"]


def workflow(objects):
    """The converge workflow: one chain of success edges, project sync -> inventory sync -> cluster job -> node job
    (sliced) -> finalize, of the templates' own project and inventory; no failure or always path, so a failed step
    stops it; a name no job template bears (its jobs would be taken for slices)."""
    if len(objects["workflow_job_templates"]) != 1:
        fail("%d workflow job templates, expected the converge workflow alone" % len(objects["workflow_job_templates"]))
    wf = objects["workflow_job_templates"][0]
    if wf["name"] in {jt["name"] for jt in objects["job_templates"]}:
        fail("workflow %s bears a job template's name: its jobs would be taken for slices and refused" % wf["name"])
    nodes = {n["id"]: n for n in objects["workflow_job_template_nodes"] if n["workflow_job_template"] == wf["id"]}
    unified = {o["id"]: (coll, o) for coll in ("projects", "inventory_sources", "job_templates")
               for o in objects[coll]}
    for node in nodes.values():
        if node["failure_nodes"] or node["always_nodes"]:
            fail("workflow node %s has a failure or always path: a failed step must stop the workflow"
                 % node["identifier"])
    children = {c for node in nodes.values() for c in node["success_nodes"]}
    roots = [n for n in nodes.values() if n["id"] not in children]
    chain = []
    while len(roots) == 1 and len(chain) <= len(nodes):
        chain.append(roots[0])
        roots = [nodes[c] for c in roots[0]["success_nodes"]]
    if roots or len(chain) != len(nodes):
        fail("the workflow's nodes are not one chain of success edges: %s" % sorted(n["identifier"] for n in nodes.values()))
    steps = [unified.get(n["unified_job_template"], ("?", {})) for n in chain]
    names = [o.get("playbook", coll[:-1]) for coll, o in steps]
    if names != WORKFLOW_STEPS:
        fail("the workflow runs %s, expected %s" % (" -> ".join(names), " -> ".join(WORKFLOW_STEPS)))
    project, source, cluster, node_job, finalize = [o for _coll, o in steps]
    if source["source_project"] != project["id"] or any(
            jt["project"] != project["id"] or jt["inventory"] != source["inventory"] for jt in (cluster, node_job, finalize)):
        fail("the workflow syncs project %s and inventory source %s, not those its jobs run from" % (
            project["name"], source["name"]))
    if node_job["job_slice_count"] < 2:
        fail("the node job (%s) is not sliced: job_slice_count %s" % (node_job["name"], node_job["job_slice_count"]))
    ok("workflow %s: %s, the node job in %d slices, stops at the first failed step" % (
        wf["name"], " -> ".join(n["identifier"] for n in chain), node_job["job_slice_count"]))


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


def _workflow_node(dump, identifier):
    return [n for n in dump["objects"]["workflow_job_template_nodes"] if n["identifier"] == identifier][0]


def _mutate_failure_path(dump):
    _workflow_node(dump, "nodes")["failure_nodes"] = [_workflow_node(dump, "finalize")["id"]]


def _mutate_workflow_name(dump):
    dump["objects"]["workflow_job_templates"][0]["name"] = dump["objects"]["job_templates"][0]["name"]


def _mutate_workflow_order(dump):
    cluster, node_job = _workflow_node(dump, "cluster"), _workflow_node(dump, "nodes")
    cluster["unified_job_template"], node_job["unified_job_template"] = (
        node_job["unified_job_template"], cluster["unified_job_template"])


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
    ("a sliced cluster job", "job_slice_count 4", _mutate_template("playbooks/cluster.yml", job_slice_count=4)),
    ("an unsliced node job", "is not sliced", _mutate_template("playbooks/nodes.yml", job_slice_count=1)),
    ("a failure path in the workflow", "failure or always path", _mutate_failure_path),
    ("the workflow named after a template", "would be taken for slices", _mutate_workflow_name),
    ("the node job before the cluster job", "the workflow runs", _mutate_workflow_order),
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
        except FAILED as err:
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
    except FAILED as err:
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
