# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""systemd units' states from ``systemctl show --property=... -- NAME...``: one block of KEY=VALUE lines per unit,
in the order asked, blocks separated by an empty line.
"""
from __future__ import annotations

import re
from typing import Dict, List, Sequence

__all__ = ["UnitStateError", "STATE_PROPERTIES", "PROPERTY_RE", "parse_units"]

#: The properties every unit's entry holds (load, active, sub, enabled).
STATE_PROPERTIES = ("LoadState", "ActiveState", "SubState", "UnitFileState")
#: What a property name asked for beyond those may be (systemd's names: ExecStart, FragmentPath, LimitMEMLOCK ...).
PROPERTY_RE = re.compile(r"[A-Z][A-Za-z0-9]{0,63}")


class UnitStateError(ValueError):
    """Output that is not what systemctl show prints for the units asked."""


def parse_units(names: List[str], output: str, extra: Sequence[str] = ()) -> Dict[str, Dict[str, object]]:
    """Map each asked name to its load, active, sub and enabled states, and, when extra properties were asked
    for, ``properties``: each of them by name (systemctl prints an empty value for one the unit does not have)."""
    blocks = [block for block in re.split(r"\n\s*\n", output.strip("\n")) if block.strip()] if output.strip() else []
    if len(blocks) != len(names):
        raise UnitStateError("systemctl show printed %d blocks of properties for %d units (%s): %r"
                             % (len(blocks), len(names), ", ".join(names), output[:500]))
    units: Dict[str, Dict[str, object]] = {}
    for name, block in zip(names, blocks):
        props = dict(line.split("=", 1) for line in block.splitlines() if "=" in line)
        missing = [key for key in STATE_PROPERTIES if key not in props]
        if missing:
            raise UnitStateError("systemctl show printed no %s for %s: %r" % (", ".join(missing), name, block))
        entry: Dict[str, object] = {"load": props["LoadState"], "active": props["ActiveState"],
                                    "sub": props["SubState"], "enabled": props["UnitFileState"]}
        if extra:
            entry["properties"] = {key: props.get(key, "") for key in extra}
        units[name] = entry
    return units
