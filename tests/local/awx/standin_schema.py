# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The AWX stand-in's schema: the objects of the AWX REST API v2 it serves, their fields as AWX's serializers have
them, and AWX's rules for survey specs (JobTemplateSurveySpec.post). Data and rules only: the objects themselves are
standin_controller.py's, the HTTP side standin_http.py's."""
from __future__ import annotations

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
        "start_at_task": _s(), "timeout": _i(minimum=None), "use_fact_cache": _b(),
        "organization": _fk("organizations"),
        "execution_environment": _fk("execution_environments"), "host_config_key": _s(),
        **{name: _b() for name in ASK_FIELDS},
        "survey_enabled": _b(), "become_enabled": _b(), "diff_mode": _b(), "allow_simultaneous": _b(),
        "custom_virtualenv": _s(None, null=True), "job_slice_count": Field("int", 1, minimum=1),
        "webhook_service": Field("choice", "", choices=["", "github", "gitlab", "bitbucket_dc"]),
        "webhook_credential": _fk("credentials"), "prevent_instance_group_fallback": _b(),
    },
    # awx/api/serializers.py WorkflowJobTemplateSerializer: the fields awx.awx's workflow_job_template module sends.
    "workflow_job_templates": {
        "name": _s(required=True), "description": _s(), "organization": _fk("organizations"),
        "inventory": _fk("inventories"), "limit": _s(None, null=True), "scm_branch": _s(None, null=True),
        "extra_vars": Field("vars", ""), "survey_enabled": _b(), "allow_simultaneous": _b(),
        **{name: _b() for name in ["ask_inventory_on_launch", "ask_scm_branch_on_launch", "ask_limit_on_launch",
                                   "ask_variables_on_launch", "ask_labels_on_launch", "ask_tags_on_launch",
                                   "ask_skip_tags_on_launch"]},
        "job_tags": _s(None, null=True), "skip_tags": _s(None, null=True),
        "webhook_service": Field("choice", "", choices=["", "github", "gitlab", "bitbucket_dc"]),
        "webhook_credential": _fk("credentials"),
    },
    # WorkflowJobTemplateNodeSerializer: the node, what it runs (any unified job template: a project's or an
    # inventory source's update, a job template, a workflow) and its prompts. The edges (success_nodes,
    # failure_nodes, always_nodes) are sub-lists, associated by id.
    "workflow_job_template_nodes": {
        "workflow_job_template": _fk("workflow_job_templates", required=True),
        "unified_job_template": Field("ujt", None, null=True), "identifier": _s(),
        "all_parents_must_converge": _b(), "extra_data": Field("dict", {}), "inventory": _fk("inventories"),
        "scm_branch": _s(None, null=True), "job_type": Field("choice", None, null=True, choices=["run", "check"]),
        "job_tags": _s(None, null=True), "skip_tags": _s(None, null=True), "limit": _s(None, null=True),
        "diff_mode": Field("bool", None, null=True), "verbosity": Field("choice", None, null=True, choices=[0, 1, 2, 3, 4, 5]),
        "forks": Field("int", None, null=True, minimum=0), "job_slice_count": Field("int", None, null=True, minimum=1),
        "timeout": Field("int", None, null=True),
    },
    # Seeded only: the site's credentials are never created by configure.yml.
    "credentials": {"name": _s(required=True), "description": _s(), "organization": _fk("organizations"),
                    "credential_type": Field("int", 1, read_only=True), "kind": _s(read_only=True),
                    "inputs": Field("dict", {}, read_only=True)},
}
TYPES = {"organizations": "organization", "execution_environments": "execution_environment", "projects": "project",
         "inventories": "inventory", "inventory_sources": "inventory_source", "job_templates": "job_template",
         "credentials": "credential", "project_updates": "project_update",
         "workflow_job_templates": "workflow_job_template", "workflow_job_template_nodes": "workflow_job_template_node"}
CREATABLE = ["organizations", "execution_environments", "projects", "inventories", "inventory_sources", "job_templates",
             "workflow_job_templates", "workflow_job_template_nodes"]
# The unified job templates: one id space in AWX (a node's unified_job_template names any of them by id).
UNIFIED = ["projects", "inventory_sources", "job_templates", "workflow_job_templates"]
# A node's edges, as AWX names its sub-lists.
EDGES = ["success_nodes", "failure_nodes", "always_nodes"]
# AWX's uniqueness: a name once (organizations), or once per organization / inventory.
UNIQUE_WITHIN = {"organizations": None, "projects": "organization", "inventories": "organization",
                 "inventory_sources": "inventory", "job_templates": "organization",
                 "workflow_job_templates": "organization"}
CREDENTIAL_TYPES = {"ssh": (1, "Machine"), "scm": (2, "Source Control"), "vault": (3, "Vault"),
                    "registry": (17, "Container Registry")}
SCM_FIELDS = ["scm_type", "scm_url", "scm_branch", "scm_refspec", "credential", "scm_clean", "scm_track_submodules"]
SURVEY_TYPES = {"text": str, "textarea": str, "password": str, "multiplechoice": str, "multiselect": str,
                "integer": int, "float": (float, int)}
SURVEY_KEYS = {"question_name", "question_description", "required", "type", "variable", "default", "choices", "min",
               "max", "new_question"}
# awx/main/utils/ansible.py's valid_playbook_re since AWX 21 (ansible/awx#12102: FQCN imports count).


class ApiError(Exception):
    def __init__(self, status, body):
        super().__init__(status)
        self.status, self.body = status, body


def check_survey(spec):
    """The survey spec as AWX stores it (choices and defaults normalised), or ApiError 400 as AWX words it."""
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
            limit = item.get(key)
            if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool)):
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
