# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reading a module's result and its documentation in tests."""

import contextlib
import importlib
import importlib.util
import io
import json
import os

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


_FRAGMENTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))),
                          "plugins", "doc_fragments")


class _Fragments:
    """The collection's doc fragments, found as ansible-doc's fragment loader finds them (None when unknown)."""

    @staticmethod
    def get(name):
        prefix = COLLECTION + "."
        if not name.startswith(prefix):
            return None
        # Loaded from its file, as the fragment loader reads it: importing it as a package module would go through
        # ansible's collection finder whenever an earlier test installed it (a plugin loader, a templar), and the
        # finder refuses a collection package that plain sys.path imported first ("collection metadata was not
        # loaded"), so the result depended on the order of the tests.
        path = os.path.join(_FRAGMENTS, name[len(prefix):] + ".py")
        if not os.path.isfile(path):
            return None
        spec = importlib.util.spec_from_file_location("_gpufleet_doc_fragment_" + name[len(prefix):], path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        found = module.ModuleDocFragment
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
