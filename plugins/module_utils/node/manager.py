# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Properties of the systemd manager itself, from ``systemctl show --property=A,B`` with no unit (what a unit's
properties do not say: DefaultLimitMEMLOCK, DefaultLimitMEMLOCKSoft ...): one KEY=VALUE line per property.
"""
from __future__ import annotations

from typing import Dict, Sequence

__all__ = ["ManagerPropertyError", "parse_manager_properties"]


class ManagerPropertyError(ValueError):
    """Output that does not give every property asked for."""


def parse_manager_properties(names: Sequence[str], output: str) -> Dict[str, str]:
    """Each asked property by name. systemctl prints nothing for a property it does not know: one missing is an
    error, never an empty value (a limit read as empty would decide a check)."""
    printed = dict(line.split("=", 1) for line in output.splitlines() if "=" in line)
    missing = [name for name in names if name not in printed]
    if missing:
        raise ManagerPropertyError("systemctl show printed no %s for the systemd manager (does this systemd know "
                                   "the property?): %r" % (", ".join(missing), output[:500]))
    return {name: printed[name] for name in names}
