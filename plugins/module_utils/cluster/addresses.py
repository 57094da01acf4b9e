# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The hosts' addresses, the /etc/hosts block and what the common role's preflight refuses in them.

A host's address is its ``gpufleet_ip``, else its ``ansible_host``. :func:`addresses` gives every host's that has one;
:func:`hosts_part` the block of the ``common_hosts_group`` hosts (sorted by name, as roles/common/tasks/hosts.yml
writes it) and the hosts without an address, with an address that is no IP, and with a name that is no host name.
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

from ansible_collections.gpufleet.cluster.plugins.module_utils.cluster.inputs import (
    ClusterDescriptionError, HostVars, names)
from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules


def address(variables: Mapping[str, Any]) -> Any:
    """``gpufleet_ip | default(ansible_host | default(''))``: the address /etc/hosts and slurm.conf name."""
    if "gpufleet_ip" in variables:
        return variables["gpufleet_ip"]
    return variables.get("ansible_host", "")


def addresses(hosts: HostVars) -> Dict[str, Any]:
    """The address of every host that has one (a ``gpufleet_ip`` or an ``ansible_host``), by host name: a template
    that looks up a host without one fails, as reading its missing variable did."""
    return {name: address(variables) for name, variables in hosts.items()
            if "gpufleet_ip" in variables or "ansible_host" in variables}


def _line(host: str, where: Any, domain: str) -> str:
    return "%s %s%s" % ("%-15s" % (where,), ("%s.%s " % (host, domain)) if domain else "", host)


def hosts_part(hosts: HostVars, group: Optional[List[str]], domain: Any) -> Dict[str, Any]:
    """The /etc/hosts part of the description for the hosts of ``group`` (None: the inventory has no such group).

    ``block`` is the managed block's text (one line per host, sorted by name, each ending in a newline); ``sorted`` the
    hosts with their addresses in that order; ``missing`` the hosts with neither a ``gpufleet_ip`` nor an IP in
    ``ansible_host``; ``bad_addresses`` those whose address is no IP (``{host, address}``); ``bad_names`` the names
    that are no host names. The last three keep the group's order, as the preflight's messages list them.
    """
    if not isinstance(domain, str):
        raise ClusterDescriptionError("domain must be a string (common_hosts_domain, '' for none), got %r" % (domain,))
    members = names("hosts_group", group, hosts) if group is not None else []
    ordered = sorted(members, key=str.lower)
    return {
        "group": None if group is None else members,
        "sorted": [{"name": name, "address": address(hosts[name])} for name in ordered],
        "block": "".join(_line(name, address(hosts[name]), domain) + "\n" for name in ordered),
        "missing": [name for name in members if "gpufleet_ip" not in hosts[name]
                    and not input_rules.is_valid("ip", hosts[name].get("ansible_host", ""))],
        "bad_addresses": [{"host": name, "address": address(hosts[name])} for name in members
                          if not input_rules.is_valid("ip", address(hosts[name]))],
        "bad_names": [name for name in members if not input_rules.is_valid("hostname", name)],
    }
