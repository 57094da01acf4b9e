# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""xid_catalogue: NVIDIA's XID catalogue, every code with its source, and the action class each needs here."""
from __future__ import annotations

import ast
import os

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.health import xid_catalogue
from ansible_collections.gpufleet.cluster.plugins.module_utils.health.xid import ACTIONS
from ansible_collections.gpufleet.cluster.plugins.module_utils.health.xid_catalogue import (
    BUCKET_ACTIONS, CATALOGUE, SOURCE_DATA, SOURCE_DOC,
)

HEALTH = os.path.dirname(xid_catalogue.__file__)


def test_every_code_of_nvidias_table_is_there_once():
    assert sorted(CATALOGUE) == list(range(1, 163))
    assert all(entry.code == code for code, entry in CATALOGUE.items())


def test_every_entry_has_one_of_our_classes_a_known_bucket_and_its_source():
    for entry in CATALOGUE.values():
        assert entry.action in ACTIONS, entry
        assert entry.nvidia_action in BUCKET_ACTIONS, entry
        assert SOURCE_DATA in entry.source, entry
    assert set(BUCKET_ACTIONS.values()) <= set(ACTIONS)
    # The rows read on NVIDIA's page itself say so.
    assert all(SOURCE_DOC in CATALOGUE[code].source for code in range(1, 9))
    assert SOURCE_DOC not in CATALOGUE[9].source


@pytest.mark.parametrize("code, action, bucket", [
    (1, "rma", "UNEXPECTED_ERR_REPORT_ISSUE"),  # unused: NVIDIA says contact support / report it
    (8, "application", "RESTART_APP"),
    (13, "application", "RESTART_APP"),
    (31, "application", "RESTART_APP"),
    (43, "informational", "IGNORE"),
    (45, "reset", "WORKFLOW_XID_45"),
    (46, "reset", "RESET_GPU"),
    (48, "reset", "WORKFLOW_XID_48"),
    (54, "rma", "CHECK_MECHANICALS"),
    (63, "informational", "IGNORE"),
    (64, "rma", "RESET_GPU"),  # ours, stricter: a remapping failure needs a person
    (74, "reset", "WORKFLOW_NVLINK_ERR"),
    (78, "rma", "UPDATE_SWFW"),
    (79, "reboot", "RESTART_BM"),
    (94, "application", "RESTART_APP"),
    (95, "reset", "RESET_GPU"),
    (109, "reset", "RESET_GPU"),
    (119, "reset", "RESET_GPU"),
    (120, "reset", "RESET_GPU"),
    (145, "reset", "WORKFLOW_NVLINK5_ERR"),
    (151, "reboot", "RESTART_VM"),
    (154, "reset", "XID_154"),
    (159, "reset", "CHECK_UVM"),
])
def test_the_documented_classes(code, action, bucket):
    assert (CATALOGUE[code].action, CATALOGUE[code].nvidia_action) == (action, bucket)


def test_where_the_sources_disagree_the_stricter_class_is_kept_and_said():
    for code in (108, 160, 162):
        assert CATALOGUE[code].note.startswith("CONFLICT"), CATALOGUE[code]
    assert CATALOGUE[160].action == "reboot" and CATALOGUE[108].action == "rma"


def test_a_class_that_differs_from_the_bucket_says_why():
    for entry in CATALOGUE.values():
        if entry.action != BUCKET_ACTIONS[entry.nvidia_action]:
            assert entry.note, entry


@pytest.mark.parametrize("name", ["__init__.py", "xid.py", "xid_catalogue.py"])
def test_the_health_modules_import_the_standard_library_only(name):
    """They run on the nodes without Ansible or the collection (the package docstring)."""
    tree = ast.parse(open(os.path.join(HEALTH, name), encoding="utf-8").read())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "%s: relative import" % name
            imported.add(node.module.split(".")[0])
    assert imported <= {"__future__", "dataclasses", "json", "re", "typing"}, imported
