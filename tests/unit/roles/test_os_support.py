# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""roles/os_support/vars/main.yml rendered by Ansible's own templar: which file each import includes
(tasks/main.yml's one task), the slicing refusal and the release check.

Issue 29: a slice of an AWX sliced job is refused for cluster-wide playbooks only; a play that sets the play
variable gpufleet_slice_safe: true (playbooks/nodes.yml) may run sliced. Set in the inventory or extra vars (where
hostvars sees it), it is refused. Every role's settings are loaded by the first import of the run.
"""
from __future__ import annotations

import glob
import os

import yaml
from ansible.parsing.dataloader import DataLoader
from ansible.plugins.loader import init_plugin_loader
from ansible.template import Templar, trust_as_template

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
# The lookups the vars call (first_found); the collection finder keeps the checkout importable as gpufleet.cluster.
init_plugin_loader([os.path.join(ROOT, "collections")])
ROLE = os.path.join(ROOT, "roles", "os_support")
with open(os.path.join(ROLE, "vars", "main.yml"), encoding="utf-8") as _handle:
    ROLE_VARS = yaml.safe_load(_handle)
DEBIAN = {"distribution": "Debian", "distribution_version": "12.11", "distribution_major_version": "12",
          "os_family": "Debian", "architecture": "x86_64", "processor_vcpus": 4}
SLICE = {"awx_workflow_job_id": 7, "awx_workflow_job_name": "site", "awx_job_template_name": "site"}


def render(expression, read=True, facts=None, inventory=None, play=None, **extra):
    """The expression as the import of role 'slurm' sees it on host gpu01 (inventory: its host variables)."""
    inventory = dict(inventory or {})
    variables = {key: trust_as_template(value) if isinstance(value, str) else value for key, value in ROLE_VARS.items()}
    variables.update({"inventory_hostname": "gpu01", "role_path": ROLE, "os_support_role": "slurm",
                      "os_support_distributions": {"Debian": ["12"], "Ubuntu": ["24.04"]}, "os_support_facts": [],
                      "ansible_facts": dict(DEBIAN if facts is None else facts)})
    variables.update(inventory)
    variables.update(play or {})
    variables.update(extra)
    variables["hostvars"] = {"gpu01": inventory}
    if read:
        variables["__os_support_os"] = {"os": variables["ansible_facts"]}
    return Templar(loader=DataLoader(), variables=variables).template(trust_as_template(expression))


def test_first_import_reads_then_later_ones_include_nothing():
    assert render("{{ __os_support_next }}", read=False, facts={}) == "once.yml"
    assert render("{{ __os_support_next }}") == "done.yml"


def test_a_slice_of_a_cluster_wide_playbook_is_refused():
    # site.yml's plays set no gpufleet_slice_safe (the e2e's slice step runs site.yml and expects this refusal).
    assert render("{{ __os_support_next }}", read=False, facts={}, inventory=SLICE) == "refuse.yml"
    message = render("{{ __os_support_problem }}", inventory=SLICE)
    assert "as one slice of a sliced job (workflow job 7)" in message and "gpufleet_slice_safe: true" in message
    assert "'site'" in message and "\\" not in message


def test_the_flag_set_outside_a_play_does_not_make_a_playbook_slice_safe():
    # In the inventory or as an extra var, hostvars holds it: any playbook could then be sliced.
    inventory = dict(SLICE, gpufleet_slice_safe=True)
    assert render("{{ __os_support_next }}", inventory=inventory) == "refuse.yml"
    assert "set in the inventory or extra vars" in render("{{ __os_support_problem }}", inventory=inventory)


def test_a_slice_of_a_slice_safe_play_runs():
    assert render("{{ __os_support_next }}", read=False, facts={}, inventory=SLICE,
                  play={"gpufleet_slice_safe": True}) == "once.yml"
    assert render("{{ __os_support_next }}", inventory=SLICE, play={"gpufleet_slice_safe": True}) == "done.yml"


def test_not_a_slice_when_the_workflow_is_named_otherwise():
    inventory = dict(SLICE, awx_workflow_job_name="nightly workflow")
    assert render("{{ __os_support_next }}", inventory=inventory) == "done.yml"


def test_an_unsupported_release_is_refused_naming_what_the_role_supports():
    facts = dict(DEBIAN, distribution_version="11.9", distribution_major_version="11")
    assert render("{{ __os_support_next }}", facts=facts) == "refuse.yml"
    assert render("{{ __os_support_problem }}", facts=facts) == \
        "slurm supports Debian 12, Ubuntu 24.04; gpu01 runs Debian 11.9."


def test_a_fact_node_state_does_not_give_is_gathered():
    assert render("{{ __os_support_next }}", os_support_facts=["processor_vcpus", "architecture"]) == "done.yml"
    assert render("{{ __os_support_next }}", os_support_facts=["memtotal_mb"]) == "gather.yml"


def test_an_unlisted_role_loads_its_own_settings():
    assert render("{{ __os_support_next }}", os_support_role="newrole") == "vars.yml"


def test_the_listed_roles_are_those_with_settings_per_release():
    with_settings = sorted({path.split(os.sep)[-3] for path in glob.glob(os.path.join(ROOT, "roles", "*", "vars", "*.yml"))
                            if os.path.basename(path) != "main.yml"})
    assert sorted(ROLE_VARS["__os_support_roles"]) == with_settings


def test_the_first_import_loads_each_roles_first_found_file():
    files = render("{{ __os_support_vars_files }}")
    assert [os.path.relpath(path, ROOT) for path in files] == \
        ["roles/%s/vars/Debian.yml" % role for role in ROLE_VARS["__os_support_roles"]]
    ubuntu = dict(DEBIAN, distribution="Ubuntu", distribution_version="24.04", distribution_major_version="24")
    files = [os.path.relpath(path, ROOT) for path in render("{{ __os_support_vars_files }}", facts=ubuntu)]
    assert "roles/nccl/vars/Ubuntu.yml" in files and "roles/slurm/vars/Debian.yml" in files  # the family's
