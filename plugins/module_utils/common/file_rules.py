# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a file a module writes may be called, owned by and permitted: the input rules of config_files and munge_key.

Same conventions as :mod:`input_rules` (fullmatch, control characters never allowed, messages that name the
field, the value and what is allowed). Kept apart because a file path may hold characters a mount path may not
(``@`` and ``:`` of systemd drop-in directories such as ``getty@.service.d``).
"""
from __future__ import annotations

import re
from typing import Any, Optional, Type, Union

from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import must_be

__all__ = ["FileRuleError", "absolute_path", "account", "mode"]


class FileRuleError(ValueError):
    """A path, owner, group or mode a module will not write."""


_COMPONENT = r"(?!\.{1,2}(?:/|\Z))[A-Za-z0-9_.+@:~-]+"
_PATH_RE = re.compile(r"(?:/%s)+" % _COMPONENT)
_PATH_ALLOWED = ("an absolute path of letters, digits, '_', '.', '+', '@', ':', '~' and '-', with no '.' or '..' "
                 "part, no '//', no trailing '/', no blank and no control character")
_ACCOUNT_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,31}\$?")
_ACCOUNT_ALLOWED = "a user or group name (letters, digits, '_', '.', '-', at most 32 characters) or a numeric id"
_OCTAL_RE = re.compile(r"0?[0-7]{3}|[0-7]{4}")
_SYMBOLIC_RE = re.compile(r"[ugoa]*[-+=](?:[rwxXst]*|[ugo])(?:,[ugoa]*[-+=](?:[rwxXst]*|[ugo]))*")
_MODE_ALLOWED = "an octal mode as a string ('0644'), a number up to 0o7777, or a symbolic mode ('u=rw,go=r')"


def absolute_path(where: str, value: Any, error: Type[Exception] = FileRuleError) -> str:
    """An absolute file path with plain components (no '..' that could climb out of the directory meant)."""
    if not isinstance(value, str):
        raise must_be(where, value, "a string (%s)" % _PATH_ALLOWED, error)
    if input_rules.CONTROL_RE.search(value) or len(value) > 4096 or not _PATH_RE.fullmatch(value):
        raise error("%s: %r is not allowed; expected %s" % (where, value, _PATH_ALLOWED))
    return value


def account(where: str, value: Any, error: Type[Exception] = FileRuleError) -> Optional[str]:
    """An owner or group name (or None: left as it is)."""
    if value is None:
        return None
    if not isinstance(value, str) or input_rules.CONTROL_RE.search(value) or not _ACCOUNT_RE.fullmatch(value):
        raise error("%s: %r is not allowed; expected %s" % (where, value, _ACCOUNT_ALLOWED))
    return value


def mode(where: str, value: Any, error: Type[Exception] = FileRuleError) -> Union[None, int, str]:
    """A file mode as Ansible's file arguments take it (or None: left as it is)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise must_be(where, value, _MODE_ALLOWED, error)
    if isinstance(value, int):
        if not 0 <= value <= 0o7777:
            raise error("%s: %r is not allowed; expected %s" % (where, value, _MODE_ALLOWED))
        return value
    if not (_OCTAL_RE.fullmatch(value) or _SYMBOLIC_RE.fullmatch(value)):
        raise error("%s: %r is not allowed; expected %s" % (where, value, _MODE_ALLOWED))
    return value
