# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The modules' one command runner: how a module finds a program on the target and runs it.

``CommandRunner(module)`` wraps the AnsibleModule's ``get_bin_path`` and ``run_command``; a module's logic takes
the runner, so tests pass a fake with the same two methods (``which`` and ``run``) instead of a module. Every
program runs with C messages (``LC_ALL=C``): the modules read what it prints, and a translated message would
not match.

Stdlib only; it runs on the target.
"""
from __future__ import annotations

import os
from typing import Any, Dict, Optional, Sequence, Tuple

__all__ = ["C_LOCALE", "CommandRunner"]

#: The environment every program runs with, over the module's own.
C_LOCALE: Dict[str, str] = {"LC_ALL": "C"}


class CommandRunner:
    """Finds and runs programs through an AnsibleModule, with C messages.

    ``opt_dirs``: folders searched after PATH (``/usr/sbin`` for a tool a user's PATH may lack).
    """

    def __init__(self, module: Any, opt_dirs: Sequence[str] = ()) -> None:
        self.module = module
        self.opt_dirs = list(opt_dirs)

    def which(self, name: str) -> Optional[str]:
        """The program's path, or None when it is not there: an absolute name when it is executable, otherwise
        the name looked up in PATH and then ``opt_dirs``."""
        if os.path.isabs(name):
            return name if os.access(name, os.X_OK) else None
        return self.module.get_bin_path(name, opt_dirs=self.opt_dirs)

    def run(self, argv: Sequence[str]) -> Tuple[int, str, str]:
        """(exit status, stdout, stderr) of argv, run without a shell."""
        return self.module.run_command(list(argv), environ_update=dict(C_LOCALE))
