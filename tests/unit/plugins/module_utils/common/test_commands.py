# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The modules' command runner (module_utils/common/commands.py), on a stand-in for AnsibleModule."""
from __future__ import annotations

import os
import stat

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.commands import C_LOCALE, CommandRunner


class FakeModule:
    """get_bin_path and run_command as AnsibleModule has them; every call kept."""

    def __init__(self, found=None):
        self.found, self.calls = found or {}, []

    def get_bin_path(self, name, required=False, opt_dirs=None):
        self.calls.append(("get_bin_path", name, required, opt_dirs))
        return self.found.get(name)

    def run_command(self, args, **kwargs):
        self.calls.append(("run_command", args, kwargs))
        return 0, "out", "err"


def test_a_name_is_looked_up_in_path_then_opt_dirs():
    module = FakeModule({"lfs": "/usr/sbin/lfs"})
    runner = CommandRunner(module, opt_dirs=("/usr/sbin", "/sbin"))
    assert runner.which("lfs") == "/usr/sbin/lfs"
    assert runner.which("ibstat") is None
    assert module.calls == [("get_bin_path", "lfs", False, ["/usr/sbin", "/sbin"]),
                            ("get_bin_path", "ibstat", False, ["/usr/sbin", "/sbin"])]
    assert CommandRunner(FakeModule()).opt_dirs == []


def test_an_absolute_name_is_used_when_executable_without_a_lookup(tmp_path):
    tool = tmp_path / "mlnx_qos"
    tool.write_text("#!/bin/sh\n")
    module = FakeModule({"mlnx_qos": "/usr/bin/mlnx_qos"})
    runner = CommandRunner(module)
    assert runner.which(str(tool)) is None  # not executable
    os.chmod(str(tool), stat.S_IRWXU)
    assert runner.which(str(tool)) == str(tool)
    assert runner.which(str(tmp_path / "absent")) is None
    assert module.calls == []


def test_run_passes_argv_as_a_list_with_c_messages():
    module = FakeModule()
    assert CommandRunner(module).run(("rdma", "link", "show")) == (0, "out", "err")
    assert module.calls == [("run_command", ["rdma", "link", "show"], {"environ_update": {"LC_ALL": "C"}})]
    module.calls[0][2]["environ_update"]["LC_ALL"] = "de_DE.UTF-8"  # a caller's change stays its own
    assert C_LOCALE == {"LC_ALL": "C"}
