# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The operating-system facts the collection's roles read, as ``ansible.builtin.setup`` (gather_subset min) names
and spells them, from the files it reads them from: ``/etc/os-release`` (the distribution, its release and its
codename), ``/etc/debian_version`` (Debian's point release: setup says ``12.11``, not ``12``), the running kernel
(``/proc/sys/kernel/osrelease``, what ``uname -r`` prints), the machine (``uname -m``) and the host name; and the
number of logical CPUs and the memory (``processor_vcpus`` from ``/proc/cpuinfo``, ``memtotal_mb`` from
``/proc/meminfo``, as setup's hardware subset says them).

So a role learns what it needs about the OS in the one node_state call it makes anyway, and no role needs
``setup`` (about a CPU second per host, and its cached facts may predate the last reboot).
"""
from __future__ import annotations

import re
import shlex
from typing import Dict, Optional

__all__ = ["OsReleaseError", "parse_os_release", "os_facts", "count_vcpus", "memtotal_mb", "FACT_NAMES"]

#: The facts os_facts returns, all strings.
FACT_NAMES = ("distribution", "distribution_version", "distribution_major_version", "distribution_release",
              "os_family", "architecture", "kernel", "hostname")

_LINE_RE = re.compile(r"([A-Z][A-Z0-9_]*)=(.*)")
# setup's names for the IDs of /etc/os-release it knows; another ID is named after NAME's first word, as setup does.
_NAMES = {"debian": "Debian", "raspbian": "Debian", "ubuntu": "Ubuntu", "rhel": "RedHat", "centos": "CentOS",
          "rocky": "Rocky", "almalinux": "AlmaLinux", "fedora": "Fedora", "sles": "SLES", "opensuse-leap": "openSUSE Leap",
          "arch": "Archlinux", "alpine": "Alpine"}
_FAMILIES = {"debian": "Debian", "ubuntu": "Debian", "rhel": "RedHat", "fedora": "RedHat", "centos": "RedHat",
             "suse": "Suse", "sles": "Suse", "arch": "Archlinux", "alpine": "Alpine"}
# uname -m as setup's architecture fact spells it (i?86 become i386, as platform.machine() reports on such a node).
_ARCHITECTURES = {"i486": "i386", "i586": "i386", "i686": "i386"}
_DEBIAN_POINT_RE = re.compile(r"([0-9]+)\.([0-9]+)(?:\.[0-9]+)*")
# One logical CPU's first line in /proc/cpuinfo: "processor\t: 3" (x86, arm64, ppc64le) or "processor 3: ..." (s390x).
_CPU_LINE_RE = re.compile(r"processor\s*(?:[0-9]+\s*)?:.*")
_MEMTOTAL_RE = re.compile(r"MemTotal:\s*([0-9]+) kB")


class OsReleaseError(ValueError):
    """A file that is not what the kernel or the distribution writes there."""


def parse_os_release(text: str) -> Dict[str, str]:
    """``/etc/os-release``: ``KEY=value`` lines, the value quoted as in a shell; comments and blank lines skipped.
    A line that is neither is refused (the file would not be what os-release(5) describes)."""
    values: Dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = _LINE_RE.fullmatch(stripped)
        if not match:
            raise OsReleaseError("/etc/os-release line %d is no KEY=value line: %r" % (number, line[:120]))
        try:
            words = shlex.split(match.group(2), posix=True)
        except ValueError as err:
            raise OsReleaseError("/etc/os-release line %d has a value no shell would read (%s): %r"
                                 % (number, err, line[:120])) from None
        values[match.group(1)] = " ".join(words)
    return values


def os_facts(os_release: Dict[str, str], debian_version: Optional[str], kernel: str, machine: str,
             hostname: str) -> Dict[str, str]:
    """The facts of FACT_NAMES, as setup spells them, from /etc/os-release (parsed), /etc/debian_version's text
    (None where there is none), the kernel's release, ``uname -m`` and the node's name."""
    ident = os_release.get("ID", "").lower()
    name = os_release.get("NAME", "")
    distribution = _NAMES.get(ident) or (name.split()[0] if name.split() else "") or ident.capitalize()
    like = [ident] + os_release.get("ID_LIKE", "").lower().split()
    family = next((_FAMILIES[word] for word in like if word in _FAMILIES), distribution)
    version = os_release.get("VERSION_ID", "")
    if distribution == "Debian" and debian_version is not None:
        point = _DEBIAN_POINT_RE.fullmatch(debian_version.strip())
        if point:  # 12.11; testing's "trixie/sid" says nothing of the version, VERSION_ID then stands
            version = "%s.%s" % point.groups()
    release = os_release.get("VERSION_CODENAME") or os_release.get("UBUNTU_CODENAME", "")
    if not release:  # setup reads it from PRETTY_NAME's parentheses ("Debian GNU/Linux 12 (bookworm)")
        found = re.search(r"\(([^)]+)\)", os_release.get("PRETTY_NAME", ""))
        release = found.group(1) if found else ""
    kernel = kernel.strip()
    if not kernel or any(char.isspace() for char in kernel):
        raise OsReleaseError("the kernel's release (/proc/sys/kernel/osrelease) is %r, not one word" % kernel)
    return {
        "distribution": distribution,
        "distribution_version": version,
        "distribution_major_version": version.split(".")[0],
        "distribution_release": release,
        "os_family": family,
        "architecture": _ARCHITECTURES.get(machine, machine),
        "kernel": kernel,
        "hostname": hostname.split(".")[0],
    }


def count_vcpus(cpuinfo: str) -> int:
    """``processor_vcpus`` as setup's hardware subset gives it: the logical CPUs ``/proc/cpuinfo`` lists (one
    ``processor`` line each). A text that lists none is refused: it is not what the kernel writes there."""
    count = sum(1 for line in cpuinfo.splitlines() if _CPU_LINE_RE.fullmatch(line.strip()))
    if count == 0:
        raise OsReleaseError("/proc/cpuinfo lists no processor: cannot tell the number of logical CPUs")
    return count


def memtotal_mb(meminfo: str) -> int:
    """``memtotal_mb`` as setup's hardware subset gives it: ``/proc/meminfo``'s MemTotal in whole MiB (kB // 1024).
    A text without that line is refused."""
    for line in meminfo.splitlines():
        match = _MEMTOTAL_RE.fullmatch(line.strip())
        if match:
            return int(match.group(1)) // 1024
    raise OsReleaseError("/proc/meminfo has no 'MemTotal: N kB' line: cannot tell the node's memory")
