# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Input checks shared by the lustre_client_* module_utils: one exception, and the collection's type checks
(``common.refusals``) and input rules (``input_rules``) raised as LustreClientError."""
from __future__ import annotations

from typing import Any, List, Mapping, Optional

from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import list_of, mapping_of, must_be


class LustreClientError(ValueError):
    """A Lustre client setting that cannot work; the message names the setting, the value, the limit and the fix."""


def need_mapping(value: Any, where: str) -> Mapping[str, Any]:
    """``value`` when it is a mapping (refusals.mapping_of)."""
    return mapping_of(where, value, LustreClientError)


def need_list(value: Any, where: str) -> List[Any]:
    """``value`` as a list when it is a list or tuple (refusals.list_of: never a string)."""
    return list(list_of(where, value, LustreClientError))


def need_str(value: Any, where: str) -> str:
    """``value`` when it is a non-empty string."""
    if not isinstance(value, str) or not value:
        raise must_be(where, value, "a non-empty string", LustreClientError)
    return value


def need_int(value: Any, where: str, minimum: Optional[int] = None, maximum: Optional[int] = None) -> int:
    """``value`` when it is a whole number (never a bool) within ``minimum``..``maximum``."""
    # bool is an int subclass; `true` pages is a typo, not 1.
    if isinstance(value, bool) or not isinstance(value, int):
        raise must_be(where, value, "a whole number", LustreClientError)
    if minimum is not None and value < minimum:
        raise LustreClientError("%s is %d, below the minimum of %d; use a value >= %d" % (where, value, minimum, minimum))
    if maximum is not None and value > maximum:
        raise LustreClientError("%s is %d, above the maximum of %d; use a value <= %d" % (where, value, maximum, maximum))
    return value


def need_kind(kind: str, value: Any, where: str) -> str:
    """``value`` checked as an input-rules ``kind`` (nid, ifname, mount_path, lustre_path, word, ...)."""
    return input_rules.check(kind, where, value, LustreClientError)
