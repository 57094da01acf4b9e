# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What dpkg has installed, read from one `dpkg-query --show` call.

The roles ask dpkg (fast, no package cache loaded) before they ask apt (slow) to install anything:
    dpkg-query --show --showformat='${Package} ${db:Status-Status} ${Version}\\n' PKG...
prints one line per package dpkg knows, e.g. ``slurmd installed 22.05.8-4+deb12u3`` or
``slurmd config-files 22.05.8-4+deb12u3``; a package it has never seen gets no line (exit status 1).
"""
from __future__ import annotations

import re
from typing import Dict, Iterable

from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules

# Tabs or spaces between the fields: names, states and versions hold no white space.
FORMAT = "${Package} ${db:Status-Status} ${Version}\\n"


class DpkgStatusError(ValueError):
    """A line that is not `<package> <state> [<version>]`."""


# Debian policy 5.6.12 (versions: [epoch:]upstream[-revision]), fullmatch; package names (5.6.1) are
# input_rules' "package" kind.
_VERSION_RE = re.compile(r"(?:[0-9]+:)?[0-9A-Za-z][A-Za-z0-9.+~-]*")
#: dpkg's package states (dpkg-query(1), db:Status-Status).
STATES = ("not-installed", "config-files", "half-installed", "unpacked", "half-configured",
          "triggers-awaited", "triggers-pending", "installed")


def installed_versions(lines: Iterable[str]) -> Dict[str, str]:
    """Map each package dpkg reports as installed to its version (epoch kept: ``1:4.5.2-1``)."""
    versions: Dict[str, str] = {}
    for number, line in enumerate(lines, 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) not in (2, 3):
            raise DpkgStatusError(
                "line %d %r is not '<package> <state> [<version>]': run dpkg-query with --showformat='%s'"
                % (number, line, FORMAT))
        if not input_rules.is_valid("package", fields[0]):
            raise DpkgStatusError("line %d %r: package %r is not a Debian package name (lower-case letters, "
                                  "digits, '+', '-' and '.')" % (number, line, fields[0]))
        if fields[1] not in STATES:
            raise DpkgStatusError("line %d %r: state %r is not one of dpkg's (%s)"
                                  % (number, line, fields[1], ", ".join(STATES)))
        if len(fields) == 3 and not _VERSION_RE.fullmatch(fields[2]):
            raise DpkgStatusError("line %d %r: version %r is not a Debian version ([epoch:]upstream[-revision] "
                                  "of letters, digits, '.', '+', '~' and '-')" % (number, line, fields[2]))
        if fields[1] == "installed":
            if len(fields) != 3:
                raise DpkgStatusError("line %d %r: an installed package without a version" % (number, line))
            versions[fields[0]] = fields[2]
    return versions
