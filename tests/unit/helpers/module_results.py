# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reading a module's result and its documentation in tests."""

import contextlib
import importlib
import io
import json

import pytest
import yaml
from ansible.module_utils.testing import patch_module_args
from ansible.utils.plugin_docs import add_fragments

COLLECTION = "gpufleet.cluster"


def run_module_main(module, args):
    """Run a module's main() as Ansible would: arguments in, its one JSON result out."""
    args = dict(args, _ansible_remote_tmp="/tmp", _ansible_keep_remote_files=False)
    out = io.StringIO()
    with patch_module_args(args), contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        module.main()
    return json.loads(out.getvalue())


def warnings(result):
    """Warning texts; ansible-core 2.19 returns each as a structured summary, older releases as a string."""
    return [w["event"]["msg"] if isinstance(w, dict) else w for w in result.get("warnings", [])]


class _Fragments:
    """The collection's doc fragments, found as ansible-doc's fragment loader finds them (None when unknown)."""

    @staticmethod
    def get(name):
        prefix = COLLECTION + "."
        if not name.startswith(prefix):
            return None
        try:
            found = importlib.import_module("ansible_collections.gpufleet.cluster.plugins.doc_fragments."
                                            + name[len(prefix):]).ModuleDocFragment
        except ImportError:
            return None
        found.ansible_name = name
        return found


def module_doc(module):
    """A module's DOCUMENTATION as ansible-doc reads it: the doc fragments it extends merged in by ansible itself."""
    doc = yaml.safe_load(module.DOCUMENTATION)
    add_fragments(doc, module.__file__, _Fragments, is_module=True)
    return doc


def assert_options_match_spec(module):
    """DOCUMENTATION's options are ARGUMENT_SPEC's, with the same types, defaults and elements; returns the doc
    with its fragments merged in."""
    doc = module_doc(module)
    assert set(doc["options"]) == set(module.ARGUMENT_SPEC)
    for name, spec in module.ARGUMENT_SPEC.items():
        assert doc["options"][name]["type"] == spec["type"], name
        assert doc["options"][name].get("default") == spec.get("default"), name
        assert doc["options"][name].get("elements") == spec.get("elements"), name
    return doc
