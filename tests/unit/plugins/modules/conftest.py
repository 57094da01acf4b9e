# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run a module's main() as Ansible would: arguments in, one JSON result out."""
import pytest
from ansible.module_utils import _internal as ansible_internal
from ansible.module_utils.common import warnings as ansible_warnings
from module_results import run_module_main


@pytest.fixture
def run_main():
    return run_module_main


@pytest.fixture
def run_main_warned(run_main, monkeypatch):
    """run_main with warnings returned in the result as on a managed node, and forgotten between runs.

    AnsibleModule keeps warnings in a global, and sends them to the display instead once a test in the
    same process has loaded controller code; both would make warnings depend on test order.
    """
    monkeypatch.setattr(ansible_internal, "is_controller", False)

    def _run(mod, task):
        ansible_warnings._global_warnings.clear()  # pylint: disable=protected-access
        return run_main(mod, task)
    return _run
