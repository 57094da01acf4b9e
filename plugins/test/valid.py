# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The gpufleet.cluster.valid test: a value is a valid <kind> of the collection's input rules (issue 27)."""
from __future__ import annotations

DOCUMENTATION = r"""
name: valid
version_added: 0.1.0
short_description: The value is a valid value of one kind of the collection's input rules
description:
  - "True when the value passes the collection's input rule O(kind) (docs/input-rules.md), the rule the collection's
    filters and modules apply to what they write: the whole value matches (a trailing newline is refused, unlike
    with C(is match) and a pattern ending in C($)), it holds no control character, and it is no longer than the kind
    allows."
  - "The roles' preflights check their variables with it before any change, so a value that would add a line to a
    unit, a comment to a configuration file or a word to a command is refused there, naming the variable."
  - "A value that is not a string (a number, a list, C(none)) is never valid; convert a number with C(string)
    first where a number is meant (C(slurm_daemon_limits) values)."
  - "An unknown O(kind) fails the task naming the kinds there are."
positional: kind
options:
  _input:
    description: The value to check.
    type: raw
    required: true
  kind:
    description:
      - Which input rule to check the value against.
      - "C(abs_path): an absolute path of letters, digits, '_', '.', '+' and '-' with no trailing '/', blank, '.'
        or '..' part."
      - "C(apt_full_version): apt's full version, [epoch:]upstream-revision, such as 2.27.7-1+cuda12.9."
      - "C(archive): a .tar.gz, .tgz, .tar.xz, .tar.bz2 or .tar archive: a URL (http, https, ftp, file) or a path
        on the controller of letters, digits, '_', '.', '+', '-' (no '.' or '..' part)."
      - "C(checksum): sha256: and 64 lower-case hex digits, or sha512: and 128."
      - "C(config_key): a letter, then letters, digits and '_'."
      - "C(count): a whole number written in decimal digits (0, 8, 1048576)."
      - "C(dcgm_health_systems): 'a' (all) alone, or letters of pmitndx (each at most once)."
      - "C(deb_version): an upstream version of dotted numbers (4.5.2, 2.27.7+cuda12.9) or apt's full version
        ([epoch:]upstream-revision, 1:4.5.2-1)."
      - "C(device_path): an absolute path under /dev of letters, digits, '_', '.', '+' and '-' (no '.' or '..'
        parts)."
      - "C(driver_branch): an NVIDIA driver branch: three digits such as 580."
      - "C(driver_version): an NVIDIA driver version: branch.minor or branch.minor.patch such as 580.95.05."
      - "C(endpoint): host:port, [IPv6]:port or unix:///path (port 1-65535)."
      - "C(exec_arg): one command-line argument of letters, digits and '_', '.', ',', ':', '=', '/', '@', '+',
        '[', ']', '-'."
      - "C(host): a host name, an IPv4 address or an IPv6 address."
      - "C(hostname): DNS labels of letters, digits and '-' (not at either end), joined by '.', 253 characters at
        most."
      - "C(ifname): a Linux interface name: 1 to 15 letters, digits, '_', '.' or '-', starting with a letter or
        digit."
      - "C(ip): an IPv4 address (10.0.0.1) or an IPv6 address (fd00::1)."
      - "C(ipv4): a dotted-quad IPv4 address such as 10.0.0.1."
      - "C(kernel_module): a kernel module name: lower-case letters, digits, '_' and '-'."
      - "C(limit_value): a limit as systemd takes it: infinity or a number with an optional unit (8M), or
        SOFT:HARD."
      - "C(line): one line of printable text (at most 1024 characters, no leading or trailing blank, no
        backslash)."
      - "C(listen_address): empty (every address), an IPv4 address or host name, or an IPv6 address in brackets."
      - "C(lustre_path): a relative path (below the mount) of letters, digits, '_', '.', '+' and '-' with no '.'
        or '..' part."
      - "C(mount_path): an absolute path of letters, digits, '_', '.', '+' and '-' with no trailing '/', blank,
        '.' or '..' part."
      - "C(mysql_name): a letter or '_', then up to 63 letters, digits and '_'."
      - "C(network): an address, a host name or 'all', with an optional /prefix length (10.0.1.0/24, fd00::/64)."
      - "C(nid): an LNet NID: IPv4 address '@' network (o2ib, o2ib1, tcp, tcp0 ...)."
      - "C(package): a Debian package name: 2 to 128 lower-case letters, digits, '+', '-' and '.', starting with a
        letter or digit (no version, option, pattern or blank)."
      - "C(plain_name): a plain file name: letters, digits, '_', '.', '+' and '-', not starting with '.' or '-',
        no '/'."
      - "C(port_guid): a port GUID as ibstat -p prints it: 0x and 16 hex digits."
      - "C(slurm_name): a letter or digit, then up to 63 letters, digits, '.', '_' or '-'."
      - "C(sysctl_name): a kernel parameter: words of letters, digits, '_' and '-' joined by '.' or '/'
        (net.core.rmem_max)."
      - "C(sysctl_value): words of letters, digits, '_', '.', ':', ',', '/', '+' and '-' separated by single
        blanks (4096 87380 67108864)."
      - "C(systemd_limit): a systemd resource limit setting: Limit followed by one of CPU, FSIZE, DATA, STACK,
        CORE, RSS, NOFILE, AS, NPROC, MEMLOCK, LOCKS, SIGPENDING, MSGQUEUE, NICE, RTPRIO, RTTIME."
      - "C(unix_name): a system user or group name: a lower-case letter or '_', then up to 31 lower-case letters,
        digits, '_' or '-'."
      - "C(url): an http://, https://, ftp:// or file:/ URL without blanks, quotes, '#', '$', ';' or
        backslashes."
      - "C(word): a word of letters, digits, '_', '.', '+' and '-', starting with a letter or digit."
    type: str
    required: true
    choices:
      - abs_path
      - apt_full_version
      - archive
      - checksum
      - config_key
      - count
      - dcgm_health_systems
      - deb_version
      - device_path
      - driver_branch
      - driver_version
      - endpoint
      - exec_arg
      - host
      - hostname
      - ifname
      - ip
      - ipv4
      - kernel_module
      - limit_value
      - line
      - listen_address
      - lustre_path
      - mount_path
      - mysql_name
      - network
      - nid
      - package
      - plain_name
      - port_guid
      - slurm_name
      - sysctl_name
      - sysctl_value
      - systemd_limit
      - unix_name
      - url
      - word
"""

EXAMPLES = r"""
- name: Preflight | Check the host engine address
  ansible.builtin.assert:
    that: dcgm_hostengine_address is gpufleet.cluster.valid('endpoint')
    fail_msg: >-
      dcgm_hostengine_address ({{ dcgm_hostengine_address | to_json }}) must be host:port, [IPv6]:port or
      unix:///path.
    quiet: true

- name: Preflight | Check every extra argument of the exporter (a list)
  ansible.builtin.assert:
    that: __bad | length == 0
    fail_msg: "dcgm_exporter_extra_args holds {{ __bad | map('to_json') | join(', ') }}: ..."
    quiet: true
  vars:
    __bad: "{{ dcgm_exporter_extra_args | reject('gpufleet.cluster.valid', 'exec_arg') | list }}"
"""

RETURN = r"""
_value:
  description: Whether the value is a valid value of O(kind).
  type: boolean
"""

from typing import Any

from ansible.errors import AnsibleError

NAME = "gpufleet.cluster.valid"


def valid(value: Any, kind: Any) -> bool:
    """True when ``value`` passes the input rule ``kind`` (a key of input_rules.RULES)."""
    # Loaded on use, like the filters' module_utils: ansible imports every test file of the collection to find one.
    from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules

    if not isinstance(kind, str) or kind not in input_rules.RULES:
        raise AnsibleError("%s: unknown kind %r; the kinds are %s (docs/input-rules.md)"
                           % (NAME, kind, ", ".join(sorted(input_rules.RULES))))
    return input_rules.is_valid(kind, value)


class TestModule:
    """The collection's Jinja tests."""

    def tests(self):
        return {"valid": valid}
