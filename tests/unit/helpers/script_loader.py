# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Load a role's standalone script (no .py suffix, installed under /usr/local/sbin) as a module for its tests."""
from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import subprocess
import sys
from reference import outputs

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
OUTPUTS = outputs()


def load_script(module_name, *path):
    """The script at ROOT/<path> as module `module_name` (each test file its own name, its own copy)."""
    loader = importlib.machinery.SourceFileLoader(module_name, os.path.join(ROOT, *path))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[loader.name] = module  # dataclasses look their module up by name
    loader.exec_module(module)
    return module


class Recorder:
    """Stands in for subprocess.run: records argv, answers from a table keyed by argv[1] or argv[-1]."""

    def __init__(self, answers=None):
        self.calls = []
        self.answers = answers or {}

    def __call__(self, argv, **kwargs):
        self.calls.append((list(argv), kwargs.get("timeout")))
        answer = self.answers.get(argv[1], self.answers.get(argv[-1], (0, "", "")))
        if isinstance(answer, BaseException):
            raise answer
        return subprocess.CompletedProcess(argv, answer[0], answer[1], answer[2])

    @property
    def argvs(self):
        return [argv for argv, _timeout in self.calls]
