# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The collection's input rules: what a name, path, key or value may hold before it reaches a file.

Every renderer (filter or module that writes a config line, a unit, a command or a file name) takes
user-supplied values through these checks. The rules are deliberately stricter than the tools that
read the files: a value that could change the meaning of the line it lands in (a newline, the file's
comment or separator character, a quote, a blank where words are split) is refused, never escaped.

Conventions:

* every pattern is applied with ``re.fullmatch``: ``$`` would let one trailing newline through;
* control characters (C0, DEL, C1) are refused in every kind of text, free text included;
* each check takes ``where`` (the field as the user wrote it, e.g. ``nodes[2].name``) and an
  ``error`` class, so a caller raises its own module's exception (a ``ValueError`` subclass);
* messages name the field, the value (``repr``) and what is allowed.

``docs/input-rules.md`` describes each kind for users.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Iterable, List, Mapping, Optional, Sequence, Type

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import (
    describe, list_of, mapping_of, must_be, unknown_keys,
)

__all__ = [
    "InputRuleError", "Rule", "RULES", "check", "is_valid", "invalid_entries", "free_text", "plain_name", "integer",
    "number", "port", "boolean", "mapping", "require", "string_list", "CONTROL_RE",
]


class InputRuleError(ValueError):
    """A value that breaks one of the collection's input rules."""


#: C0 controls (newline, tab, NUL, ESC, ...), DEL and the C1 controls. Also the Unicode line and
#: paragraph separators, which str.splitlines() (and so some readers) treat as line breaks.
CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u0085]")

_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
_IPV4 = r"%s(?:\.%s){3}" % (_OCTET, _OCTET)
_COMPONENT = r"(?!\.{1,2}(?:/|\Z))[A-Za-z0-9_.+-]+"
# IPv6: hex groups and colons, an IPv4 tail allowed (::ffff:10.0.0.1); the kernel or the tool refuses nonsense.
_IPV6 = r"(?:[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}|(?:[0-9A-Fa-f]{0,4}:){2,6}%s)" % _IPV4
_HOSTNAME = r"(?=[^/:]{1,253}(?:[/:]|\Z))%s(?:\.%s)*" % (_LABEL, _LABEL)
_PORT = r"(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})"
# What a URL may hold after its scheme: no blank, quote, '#', '$', ';', backslash or '<>' anywhere.
# apt's sources.list(5) writes a local archive as file:/path; file:///path is the same.
_URL = r"(?:(?:https?|ftp)://|file:/)[A-Za-z0-9._~:/?&=%+@,!\[\]-]+"
_UPSTREAM = r"[0-9]+(?:[.][0-9]+)+(?:[+~][0-9A-Za-z.+~]+)?"
_LIMITS = "CPU|FSIZE|DATA|STACK|CORE|RSS|NOFILE|AS|NPROC|MEMLOCK|LOCKS|SIGPENDING|MSGQUEUE|NICE|RTPRIO|RTTIME"
_LIMIT_VALUE = r"(?:infinity|[+-]?[0-9]+[A-Za-z]{0,2})"
_ARCHIVE = r"(?=.*[.](?:tar[.]gz|tgz|tar[.]xz|tar[.]bz2|tar)\Z)(?:%s|/?(?:%s/)*%s)" % (_URL, _COMPONENT, _COMPONENT)
_ENDPOINT = r"unix:///(?:%s/)*%s|%s:%s|\[%s\]:%s" % (_COMPONENT, _COMPONENT, _HOSTNAME, _PORT, _IPV6, _PORT)


@dataclass(frozen=True)
class Rule:
    """One kind of value: its pattern (applied with fullmatch), what is allowed, and why."""

    kind: str
    pattern: "re.Pattern[str]"
    allowed: str
    why: str
    max_length: int = 255
    #: Separator characters this kind lets through, because the place its value lands does not split on them
    #: (an argument of a systemd ExecStart= may hold '=' and ','; a comment may hold blanks). Empty for most kinds.
    lets_through: str = ""


def _rule(kind: str, pattern: str, allowed: str, why: str, max_length: int = 255, lets_through: str = "") -> Rule:
    return Rule(kind, re.compile(pattern), allowed, why, max_length, lets_through)


RULES = {rule.kind: rule for rule in (
    _rule("slurm_name", r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}",
          "a letter or digit, then up to 63 letters, digits, '.', '_' or '-'",
          "node, partition, account and QOS names are split on blanks, ',' and '=' in slurm.conf and "
          "on '#' as a comment; brackets would be read as a hostlist", 64),
    _rule("hostname", r"(?=.{1,253}\Z)%s(?:\.%s)*" % (_LABEL, _LABEL),
          "DNS labels of letters, digits and '-' (not at either end), joined by '.', 253 characters at most",
          "host names go into /etc/hosts, slurm.conf and unit files, which split on blanks and '#'", 253),
    _rule("device_path", r"/dev(?:/%s)+" % _COMPONENT,
          "an absolute path under /dev of letters, digits, '_', '.', '+' and '-' (no '.' or '..' parts)",
          "gres.conf File= takes a path and an optional hostlist range; ',' '#' '=' or blanks would start "
          "another field or a comment", 255),
    _rule("ipv4", _IPV4, "a dotted-quad IPv4 address such as 10.0.0.1",
          "addresses go into NIDs, /etc/hosts and unit files", 15),
    _rule("nid", r"%s@(?:o2ib|tcp)[0-9]{0,4}" % _IPV4,
          "an LNet NID: IPv4 address '@' network (o2ib, o2ib1, tcp, tcp0 ...)",
          "a NID is part of a mount source (What=) and of lnet.conf", 32),
    _rule("ifname", r"[A-Za-z0-9][A-Za-z0-9_.-]{0,14}",
          "a Linux interface name: 1 to 15 letters, digits, '_', '.' or '-', starting with a letter or digit",
          "the kernel refuses names over 15 characters and with '/', ':' or blanks; lnet.conf, "
          "ko2iblnd options and NCCL_SOCKET_IFNAME split on ',' and ':'", 15),
    _rule("mount_path", r"/|(?:/%s)+" % _COMPONENT,
          "an absolute path of letters, digits, '_', '.', '+' and '-' with no trailing '/', blank, "
          "'.' or '..' part",
          "systemd derives the mount unit's name from Where= and refuses a unit whose name does not "
          "match it; a blank or escape would make the two differ", 255),
    _rule("lustre_path", r"%s(?:/%s)*" % (_COMPONENT, _COMPONENT),
          "a relative path (below the mount) of letters, digits, '_', '.', '+' and '-' with no '.' or '..' part",
          "a directory's path becomes an argument of lfs setstripe and a key of the plan", 255),
    _rule("config_key", r"[A-Za-z][A-Za-z0-9_]{0,127}",
          "a letter, then letters, digits and '_'",
          "a key is the left side of KEY=VALUE; '=', blanks or '#' would split it", 128),
    _rule("plain_name", r"(?!\.{1,2}\Z)[A-Za-z0-9_][A-Za-z0-9_.+-]{0,127}",
          "a plain file name: letters, digits, '_', '.', '+' and '-', not starting with '.' or '-', "
          "no '/'",
          "the value is used as a file name; '/' or '..' would write outside the directory meant for it", 128),
    _rule("word", r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,127}",
          "a word of letters, digits, '_', '.', '+' and '-', starting with a letter or digit",
          "the value lands in a line that is split on blanks, ',' and '='; '#' would start a comment", 128),
    # Debian policy 5.6.1: at least two characters; 128 at most is this collection's bound.
    _rule("package", r"[a-z0-9][a-z0-9+.-]{1,127}",
          "a Debian package name: 2 to 128 lower-case letters, digits, '+', '-' and '.', starting with a letter "
          "or digit (no version, option, pattern or blank)",
          "package names go to dpkg-query's and apt's argv; a leading '-' would be read as an option, '=' as a "
          "version, '*' or '?' as a pattern and '/' as a release", 128),
    # The kinds the roles' preflights check with the gpufleet.cluster.valid test (issue 27).
    _rule("abs_path", r"(?:/%s)+" % _COMPONENT,
          "an absolute path of letters, digits, '_', '.', '+' and '-' with no trailing '/', blank, '.' or '..' part",
          "paths land in unit files (ExecStart=), configuration files and command lines, which split on blanks "
          "and read '#' as a comment", 1024),
    _rule("exec_arg", r"[A-Za-z0-9_.,:=/@+\[\]-]+",
          "one command-line argument of letters, digits and '_', '.', ',', ':', '=', '/', '@', '+', '[', ']', '-'",
          "arguments are joined into a systemd ExecStart= line: a blank starts another argument, a quote, '%' "
          "(a specifier), '$' (a variable), ';' or a backslash change what systemd runs, a newline adds a line "
          "to the unit", 1024, lets_through="=,[]"),
    _rule("systemd_limit", r"Limit(?:%s)" % _LIMITS,
          "a systemd resource limit setting: Limit followed by one of %s" % _LIMITS.replace("|", ", "),
          "the key is written as Key=value into a [Service] drop-in; any other key (ExecStartPre=, User=, "
          "Environment=...) would change what the daemon runs and as whom", 16),
    _rule("limit_value", r"%s(?::%s)?" % (_LIMIT_VALUE, _LIMIT_VALUE),
          "a limit as systemd takes it: infinity or a number with an optional unit (8M), or SOFT:HARD",
          "the value ends a Key=value line of a unit drop-in; a newline would add a line, a blank another word",
          64),
    _rule("line", r"[^\s\\](?:[^\\]{0,1022}[^\s\\])?",
          "one line of printable text (at most 1024 characters, no leading or trailing blank, no backslash)",
          "the text is written on one line (a comment, a reason): a newline would start a line of its own, a "
          "final backslash would join the next line to it in a unit file", 1024,
          lets_through=" #=,;\"'`$[]{}()"),
    _rule("mysql_name", r"[A-Za-z_][A-Za-z0-9_]{0,63}",
          "a letter or '_', then up to 63 letters, digits and '_'",
          "database and user names go unquoted into SQL statements, MySQL privilege strings (db.*:ALL, split on "
          "'.', ':' and '/') and slurmdbd.conf", 64),
    _rule("url", _URL,
          "an http://, https://, ftp:// or file:/ URL without blanks, quotes, '#', '$', ';' or backslashes",
          "URLs land in apt sources (split on blanks), unit files and command lines", 2048, lets_through="=,[]"),
    _rule("archive", _ARCHIVE,
          "a .tar.gz, .tgz, .tar.xz, .tar.bz2 or .tar archive: a URL (http, https, ftp, file) or a path on the "
          "controller of letters, digits, '_', '.', '+', '-' (no '.' or '..' part)",
          "the archive's name is a download or copy source and the argument of tar", 2048, lets_through="=,[]"),
    _rule("deb_version", r"(?:[0-9]{1,5}:)?%s(?:-[0-9A-Za-z.+~]+)?" % _UPSTREAM,
          "an upstream version of dotted numbers (4.5.2, 2.27.7+cuda12.9) or apt's full version "
          "([epoch:]upstream-revision, 1:4.5.2-1)",
          "versions go into apt's argv (name=version) and apt's preferences file (Pin: version ...), which read "
          "'*' as a pattern and split on blanks", 128),
    _rule("apt_full_version", r"(?:[0-9]{1,5}:)?%s-[0-9A-Za-z.+~]+" % _UPSTREAM,
          "apt's full version, [epoch:]upstream-revision, such as 2.27.7-1+cuda12.9",
          "the version is pinned with name=version on apt's argv, which needs the revision", 128),
    _rule("driver_branch", r"[0-9]{3}", "an NVIDIA driver branch: three digits such as 580",
          "the branch is part of package names and of apt's preferences file (Pin: version 580.*)", 3),
    _rule("driver_version", r"[0-9]{3}[.][0-9]+(?:[.][0-9]+)?",
          "an NVIDIA driver version: branch.minor or branch.minor.patch such as 580.95.05",
          "the version is pinned in apt's argv and preferences file", 32),
    _rule("unix_name", r"[a-z_][a-z0-9_-]{0,31}",
          "a system user or group name: a lower-case letter or '_', then up to 31 lower-case letters, digits, "
          "'_' or '-'",
          "the name goes to useradd/groupadd and into User=/Group= of a unit", 32),
    _rule("checksum", r"sha256:[0-9a-f]{64}|sha512:[0-9a-f]{128}",
          "sha256: and 64 lower-case hex digits, or sha512: and 128",
          "the checksum is the one get_url checks the download against", 135),
    _rule("ip", r"%s|%s" % (_IPV4, _IPV6), "an IPv4 address (10.0.0.1) or an IPv6 address (fd00::1)",
          "addresses go into /etc/hosts, unit files and configuration lines", 45),
    _rule("host", r"%s|%s" % (_HOSTNAME, _IPV6), "a host name, an IPv4 address or an IPv6 address",
          "host names and addresses go into chrony.conf (server/pool lines) and unit files, split on blanks", 253),
    _rule("network", r"(?:%s|%s)(?:/(?:12[0-8]|1[01][0-9]|[1-9]?[0-9]))?" % (_HOSTNAME, _IPV6),
          "an address, a host name or 'all', with an optional /prefix length (10.0.1.0/24, fd00::/64)",
          "networks go into chrony.conf allow lines, split on blanks", 253),
    _rule("endpoint", _ENDPOINT,
          "host:port, [IPv6]:port or unix:///path (port 1-65535)",
          "the address is an argument of a unit's ExecStart= line", 253, lets_through="[]"),
    _rule("listen_address", r"(?:%s|\[%s\])?" % (_HOSTNAME, _IPV6),
          "empty (every address), an IPv4 address or host name, or an IPv6 address in brackets",
          "the address is joined with ':port' into an argument of a unit's ExecStart= line", 255,
          lets_through="[]"),
    _rule("count", r"0|[1-9][0-9]{0,18}", "a whole number written in decimal digits (0, 8, 1048576)",
          "numbers given as text (a survey answer, an extra var) are written into limits files, units and "
          "configuration lines as they are", 19),
    _rule("sysctl_name", r"[A-Za-z0-9_-]+(?:[./][A-Za-z0-9_-]+)+",
          "a kernel parameter: words of letters, digits, '_' and '-' joined by '.' or '/' (net.core.rmem_max)",
          "the name is the left side of name=value in sysctl.d", 255),
    _rule("sysctl_value", r"[A-Za-z0-9_.:,/+-]+(?: [A-Za-z0-9_.:,/+-]+)*",
          "words of letters, digits, '_', '.', ':', ',', '/', '+' and '-' separated by single blanks "
          "(4096 87380 67108864)",
          "the value ends a name=value line of sysctl.d; a newline would add a kernel setting", 255,
          lets_through=" ,"),
    _rule("kernel_module", r"[a-z0-9_-]{1,63}", "a kernel module name: lower-case letters, digits, '_' and '-'",
          "module names are lines of modules-load.d and arguments of modprobe", 63),
    _rule("port_guid", r"0x[0-9a-fA-F]{16}", "a port GUID as ibstat -p prints it: 0x and 16 hex digits",
          "the GUID goes into opensm.conf (guid ...) and an opensm@<GUID> unit's name", 18),
    _rule("dcgm_health_systems", r"a|[pmitndx]{1,7}",
          "'a' (all) alone, or letters of pmitndx (each at most once)", "the value is dcgmi health -s's argument",
          7),
)}


def _fail(error: Type[Exception], where: str, value: Any, allowed: str) -> None:
    raise error("%s: %s is not allowed; expected %s" % (where, describe(value), allowed))


def _string(where: str, value: Any, error: Type[Exception], what: str) -> str:
    if not isinstance(value, str):
        raise must_be(where, value, "a string (%s)" % what, error)
    return value


def check(kind: str, where: str, value: Any, error: Type[Exception] = InputRuleError) -> str:
    """Return ``value`` when it is a valid ``kind`` (a key of RULES); raise ``error`` otherwise."""
    rule = RULES[kind]
    text = _string(where, value, error, rule.allowed)
    if CONTROL_RE.search(text):
        _fail(error, where, value, "%s (control characters such as a newline are never allowed)" % rule.allowed)
    if len(text) > rule.max_length or rule.pattern.fullmatch(text) is None:
        _fail(error, where, value, rule.allowed)
    return text


def is_valid(kind: str, value: Any) -> bool:
    """True when ``value`` passes ``check(kind, ...)``."""
    try:
        check(kind, "value", value)
    except InputRuleError:
        return False
    return True


def invalid_entries(kind: str, values: Any, what: str = "values", error: Type[Exception] = InputRuleError) -> List[Any]:
    """The entries of the list ``values`` that are not valid ``kind`` values, as given and in order (non-strings
    included): what a role's preflight names when it refuses a list. Anything but a list or tuple is refused,
    ``what`` naming what it should hold."""
    return [value for value in list_of("input", values, error, "a list of %s" % what) if not is_valid(kind, value)]


def plain_name(where: str, value: Any, error: Type[Exception] = InputRuleError) -> str:
    """A value used as a file name: no path separator, no '.' or '..'."""
    return check("plain_name", where, value, error)


def free_text(where: str, value: Any, error: Type[Exception] = InputRuleError, *, forbid: str = "",
              max_length: int = 1024, allow_empty: bool = False) -> str:
    """Printable text with no control character and none of ``forbid`` (the target file's own
    comment, separator or quoting characters where they would change the line's meaning)."""
    text = _string(where, value, error, "text")
    allowed = "printable text of at most %d characters with no control character%s" % (
        max_length, "" if not forbid else " and none of %s" % " ".join(repr(c) for c in forbid))
    if CONTROL_RE.search(text) or any(c in text for c in forbid) or len(text) > max_length:
        _fail(error, where, value, allowed)
    if not allow_empty and not text.strip():
        _fail(error, where, value, "non-empty text")
    return text


def integer(where: str, value: Any, error: Type[Exception] = InputRuleError, *,
            minimum: Optional[int] = None, maximum: Optional[int] = None) -> int:
    """A whole number (not a bool, not a string, not a float) within [minimum, maximum]."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise must_be(where, value, "a whole number", error)
    _in_range(where, value, error, minimum, maximum)
    return value


def number(where: str, value: Any, error: Type[Exception] = InputRuleError, *,
           minimum: Optional[float] = None, maximum: Optional[float] = None,
           exclusive_minimum: bool = False) -> float:
    """A finite int or float (not a bool, not a string, not NaN or infinity) within the bounds.
    With ``exclusive_minimum`` the value must be strictly above ``minimum`` (for example > 0)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise must_be(where, value, "a number", error)
    if isinstance(value, float) and not math.isfinite(value):
        raise error("%s must be a finite number, got %r" % (where, value))
    if exclusive_minimum and minimum is not None and not value > minimum:
        raise error("%s=%r must be above %r" % (where, value, minimum))
    _in_range(where, value, error, None if exclusive_minimum else minimum, maximum)
    return value


def _in_range(where: str, value: float, error: Type[Exception], minimum: Optional[float],
              maximum: Optional[float]) -> None:
    if minimum is not None and value < minimum:
        raise error("%s=%r is below the minimum of %r" % (where, value, minimum))
    if maximum is not None and value > maximum:
        raise error("%s=%r is above the maximum of %r" % (where, value, maximum))


def port(where: str, value: Any, error: Type[Exception] = InputRuleError) -> int:
    """A TCP/UDP port number, 1-65535."""
    return integer(where, value, error, minimum=1, maximum=65535)


def boolean(where: str, value: Any, error: Type[Exception] = InputRuleError) -> bool:
    """A real bool (YAML true/false), not the string 'yes' or the number 1."""
    if not isinstance(value, bool):
        raise must_be(where, value, "true or false", error)
    return value


def mapping(where: str, value: Any, error: Type[Exception] = InputRuleError, *,
            required: Iterable[str] = (), optional: Optional[Iterable[str]] = None) -> Mapping[str, Any]:
    """A dict with every ``required`` key; with ``optional`` given, no key outside required + optional."""
    mapping_of(where, value, error)
    required = tuple(required)
    missing = [key for key in required if key not in value]
    if missing:
        raise error("%s is missing %s (it has: %s)" % (
            where, ", ".join(repr(k) for k in missing), ", ".join(sorted(str(k) for k in value)) or "nothing"))
    if optional is not None:
        unknown_keys(where, value, set(required) | set(optional), error)
    return value


def require(where: str, value: Mapping[str, Any], key: str, error: Type[Exception] = InputRuleError) -> Any:
    """``value[key]``, or a clear error naming the field when it is missing."""
    mapping(where, value, error, required=(key,))
    return value[key]


def string_list(where: str, value: Any, kind: str, error: Type[Exception] = InputRuleError, *,
                allow_empty: bool = False, unique: bool = True) -> Sequence[str]:
    """A list of ``kind`` values (see RULES), optionally non-empty and without repeats."""
    list_of(where, value, error, allow_empty=allow_empty)
    items = [check(kind, "%s[%d]" % (where, index), item, error) for index, item in enumerate(value)]
    if unique:
        seen = set()
        for index, item in enumerate(items):
            if item in seen:
                raise error("%s[%d]: %r is listed twice" % (where, index, item))
            seen.add(item)
    return items
