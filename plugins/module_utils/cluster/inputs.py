# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The cluster description's input: the refusal class, the checks of the input's shape, and the two conversions the
roles' templates applied to a host's variables (Jinja's ``int`` and Ansible's ``bool``), so that the description
reads a host's values exactly as the per-host templates it replaces did.
"""
from __future__ import annotations

from typing import Any, List, Mapping, Optional

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import list_of, mapping_of

HostVars = Mapping[str, Mapping[str, Any]]

_TRUE = ("true", "yes", "1", "on")


class ClusterDescriptionError(ValueError):
    """The cluster description's input is refused; the message names the part and says what it must be."""


def jinja_int(value: Any) -> int:
    """Jinja's ``int`` filter: an int of a number or a numeric string (``"42.23"`` gives 42), 0 for anything else."""
    try:
        return int(value, 10) if isinstance(value, str) else int(value)
    except (TypeError, ValueError, OverflowError):
        try:
            return int(float(value))
        except (TypeError, ValueError, OverflowError):
            return 0


def ansible_bool(value: Any) -> bool:
    """Ansible's ``bool`` filter: true, yes, 1 and on (any case), True and 1 are true; anything else is false."""
    if isinstance(value, str):
        return value.lower() in _TRUE
    if isinstance(value, int):  # bool is an int
        return str(value).lower() in _TRUE
    try:
        return bool(value == 1)
    except TypeError:
        return False


def host_vars(inputs: Mapping[str, Any]) -> HostVars:
    """``inputs['hosts']``: each host's mapping of the variables it sets (an empty mapping for one that sets none)."""
    hosts = mapping_of("hosts", inputs.get("hosts"), ClusterDescriptionError,
                       "a mapping of each host to the variables it sets")
    for name, variables in hosts.items():
        if not isinstance(name, str) or not name:
            raise ClusterDescriptionError("hosts has the key %r: each key is a host's inventory name" % (name,))
        mapping_of("hosts[%s]" % name, variables, ClusterDescriptionError, "a mapping of variable names to values")
    return hosts


def names(where: str, value: Any, hosts: HostVars) -> List[str]:
    """A list of host names of ``hosts`` (order kept); refused when it is no list of strings or names a host that
    ``hosts`` lacks (the extraction read no variables for it)."""
    list_of(where, value, ClusterDescriptionError, "a list of host names")
    missing = [name for name in value if not isinstance(name, str) or name not in hosts]
    if missing:
        raise ClusterDescriptionError("%s names %s, which hosts does not hold: extract the variables of every host "
                                      "the description reads" % (where, ", ".join(repr(m) for m in missing[:8])))
    return list(value)


def part(inputs: Mapping[str, Any], key: str) -> Optional[Mapping[str, Any]]:
    """The optional part ``key`` of the input (a mapping), or None when it is absent or null."""
    value = inputs.get(key)
    if value is None:
        return None
    return mapping_of(key, value, ClusterDescriptionError, "a mapping (or null, to leave this part out)")


def lookup(variables: Mapping[str, Any], name: str, defaults: Mapping[str, Any]) -> Any:
    """``hv[name] | default(defaults[name])``: the host's value, else the cluster's default."""
    return variables[name] if name in variables else defaults.get(name)
