# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reading a module's result and its documentation in tests."""

import contextlib
import io
import json

import pytest
import yaml
from ansible.module_utils.testing import patch_module_args


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


def assert_options_match_spec(module):
    """DOCUMENTATION's options are ARGUMENT_SPEC's, with the same types, defaults and elements; returns the doc."""
    doc = yaml.safe_load(module.DOCUMENTATION)
    assert set(doc["options"]) == set(module.ARGUMENT_SPEC)
    for name, spec in module.ARGUMENT_SPEC.items():
        assert doc["options"][name]["type"] == spec["type"], name
        assert doc["options"][name].get("default") == spec.get("default"), name
        assert doc["options"][name].get("elements") == spec.get("elements"), name
    return doc
