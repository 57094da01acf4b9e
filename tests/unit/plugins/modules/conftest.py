# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run a module's main() as Ansible would: arguments in, one JSON result out."""
import contextlib
import io
import json

import pytest
from ansible.module_utils.testing import patch_module_args


@pytest.fixture
def run_main():
    def _run(module, args):
        args = dict(args, _ansible_remote_tmp="/tmp", _ansible_keep_remote_files=False)
        out = io.StringIO()
        with patch_module_args(args), contextlib.redirect_stdout(out), pytest.raises(SystemExit):
            module.main()
        return json.loads(out.getvalue())
    return _run
