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

from typing import Dict, Iterable

# Tabs or spaces between the fields: names, states and versions hold no white space.
FORMAT = "${Package} ${db:Status-Status} ${Version}\\n"


class DpkgStatusError(ValueError):
    """A line that is not `<package> <state> [<version>]`."""


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
        if fields[1] == "installed":
            if len(fields) != 3:
                raise DpkgStatusError("line %d %r: an installed package without a version" % (number, line))
            versions[fields[0]] = fields[2]
    return versions
