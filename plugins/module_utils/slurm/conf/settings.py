# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Check and render Slurm configuration settings for one Slurm release.

* :func:`check_settings` -- every key must be one the release's parser accepts (catalogue in
  :mod:`..keys`, case-insensitive like Slurm's ``s_p_`` hash table); old spellings are
  translated (``ControlMachine`` -> ``SlurmctldHost``), removed ones refused with the fix, unknown
  ones refused with the closest real keys.
* :func:`render_conf_lines` -- ``Key=Value`` lines with Slurm's value grammar: lists are comma
  joined, booleans only for the parser's boolean keys (YES/NO), numbers range-checked for the
  parser's uint16/32/64 keys, no whitespace, ``#`` or ``"`` in values (``#`` starts a comment
  anywhere on a line, even inside quotes: parse_config.c ``_strip_comments``).
* :func:`cgroup_conf` -- the cgroup.conf lines the roles use, valid for the release.

NodeName=, PartitionName= and gres.conf lines are :mod:`.nodes`' (they check their extra keys with
:func:`check_value` and :func:`unknown_key` from here); what the values mean is :mod:`.values`'.
"""
from __future__ import annotations

import difflib
import math
import re
from typing import Any, Dict, List, Mapping, Optional, Tuple

from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import mapping_of, must_be
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm import keys as slurm_keys


class SlurmConfError(ValueError):
    """A Slurm setting, node, partition or gres description that would not work."""


CONF_FILES = ("slurm.conf", "slurmdbd.conf", "cgroup.conf", "gres.conf")
_UINT_MAX = {"u16": 0xFFFF, "u32": 0xFFFFFFFF, "u64": 0xFFFFFFFFFFFFFFFF}
# Applied with fullmatch to a version string or `sinfo --version` output (surrounding blanks allowed).
_VERSION_RE = re.compile(r"\s*(?:slurm[ -])?([0-9]{2})\.([0-9]{1,2})(?:[.~+-][0-9A-Za-z.~+-]*)?\s*")
# Slurm reads numbers with strtoul(value, NULL, 0): decimal, 0x hex, and a leading 0 means octal.
_DECIMAL_RE = re.compile(r"0|[1-9][0-9]*")
_HEX_RE = re.compile(r"0[xX][0-9a-fA-F]+")
# Keys holding one TCP port (1-65535), per file; SlurmctldPort may also be a range LOW-HIGH
# (read_config.c: strtol, > 0, then '-' and a higher bound), SrunPortRange is always LOW-HIGH
# (_parse_srun_ports), a NodeName Port may list ports or ranges (hostlist syntax).
_PORT_KEYS = {
    "slurm.conf": ("AccountingStoragePort", "JobCompPort", "SlurmdPort"),
    "slurmdbd.conf": ("DbdPort", "StoragePort"),
}
_PORT_RANGE_KEYS = {("slurm.conf", "SlurmctldPort"), ("slurm.conf", "SrunPortRange")}
_NODE_PORT_RE = re.compile(r"\[?([0-9]+(?:-[0-9]+)?(?:,[0-9]+(?:-[0-9]+)?)*)\]?")
# SlurmctldHost=name or name(address): a Slurm name, an address of letters, digits, '.', ':' and '-'.
_CTLD_HOST_RE = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]{0,63})(?:\(([A-Za-z0-9.:-]{1,253})\))?")
# Keys whose values are secrets (database passwords): a refusal names the key, never the value.
SECRET_KEYS = frozenset({"StoragePass", "AccountingStoragePass", "JobCompPass"})
# Names that people reach for but that Slurm never had: extra hint beyond difflib.
_HINTS = {
    "maxconcurrentjobs": "running-job limits are association/QOS limits (sacctmgr ... MaxJobs=N, "
                         "GrpJobs=N); MaxJobCount is the controller-wide total of jobs kept in memory",
    "prioritydecaytype": "Slurm's decay is set by PriorityDecayHalfLife (and PriorityCalcPeriod); "
                         "there is no decay type",
}


def known_versions() -> List[str]:
    return sorted(slurm_keys.TABLES)


def slurm_release(version: Any) -> str:
    """``'22.05.8'`` -> ``'22.05'``: the catalogue release a version string belongs to."""
    text = str(version) if isinstance(version, (str, int, float)) else None
    match = _VERSION_RE.fullmatch(text) if text is not None else None
    if not match:
        raise SlurmConfError(
            "Slurm version %r is not a version string such as '22.05.8' or '23.11'; give the "
            "installed Slurm version (sinfo --version)" % (version,))
    release = "%s.%02d" % (match.group(1), int(match.group(2)))
    if release not in slurm_keys.TABLES:
        raise SlurmConfError(
            "Slurm version %r (release %s) is not in the key catalogue; known releases: %s. Use one "
            "of them or extend plugins/module_utils/slurm/keys.py from that release's source"
            % (version, release, ", ".join(known_versions())))
    return release


def key_table(conf: str, version: Any) -> Dict[str, str]:
    """``{lower-case key: (CanonicalKey, type code)}`` for one file of one release."""
    release = slurm_release(version)
    if conf not in slurm_keys.TABLES[release]:
        raise SlurmConfError(
            "configuration file %r is not in the catalogue; known: %s" % (conf, ", ".join(CONF_FILES)))
    return {key.lower(): (key, typ.split("!")[0]) for key, typ in slurm_keys.TABLES[release][conf]}


def _close(key: str, table: Mapping[str, Tuple[str, str]]) -> List[str]:
    return [table[m][0] for m in difflib.get_close_matches(key.lower(), list(table), n=3, cutoff=0.6)]


def unknown_key(conf: str, key: str, release: str, table: Mapping[str, Tuple[str, str]]) -> SlurmConfError:
    """The refusal of a key the release's parser does not accept, with the closest real keys (or a hint)."""
    close = _close(key, table)
    fix = ("did you mean %s?" % " or ".join(close)) if close else "remove it"
    hint = _HINTS.get(key.lower())
    return SlurmConfError(
        "%s key %r is not accepted by Slurm %s (%s): slurmctld would stop at 'Parsing error at "
        "unrecognized key'; %s%s" % (conf, key, release, slurm_keys.SOURCES[release], fix,
                                     " (%s)" % hint if hint else ""))


def _controller_hosts(found: Dict[str, Tuple[str, Any]], release: str) -> Tuple[List[str], List[dict]]:
    """SlurmctldHost values from ControlMachine/ControlAddr/BackupController/BackupAddr."""
    def get(name):
        return found.get(name.lower(), (None, None))[1]
    machine, addr = get("ControlMachine"), get("ControlAddr")
    backup, backup_addr = get("BackupController"), get("BackupAddr")
    if machine is None:
        raise SlurmConfError(
            "slurm.conf: %s given without ControlMachine; Slurm %s reads the old-style controller "
            "keys only as a set ('No SlurmctldHost defined.'); write SlurmctldHost=<host>[(<addr>)] "
            "instead" % (", ".join(found[k][0] for k in sorted(found)), release))
    if backup_addr is not None and backup is None:
        raise SlurmConfError(
            "slurm.conf: BackupAddr=%s without BackupController; Slurm %s stops with 'BackupAddr "
            "specified without BackupController'; add the backup host or drop BackupAddr"
            % (backup_addr, release))
    hosts, translated = [], []
    for key, host, address in (("ControlMachine", machine, addr), ("BackupController", backup, backup_addr)):
        if host is None:
            continue
        if "," in str(host) and address is None:
            raise SlurmConfError(
                "slurm.conf: %s=%s names several hosts but has no address; Slurm %s stops with "
                "'ControlMachine has multiple host names, so ControlAddr must be specified'; give "
                "one host per SlurmctldHost" % (key, host, release))
        value = "%s(%s)" % (host, address) if address is not None else str(host)
        hosts.append(value)
    for name in ("ControlMachine", "ControlAddr", "BackupController", "BackupAddr"):
        if name.lower() in found:
            translated.append({"from": found[name.lower()][0], "to": "SlurmctldHost",
                               "why": slurm_keys.key_status(release, "slurm.conf")[name][2]})
    return hosts, translated


def _rename_value(key: str, value: Any) -> Any:
    if key == "CryptoType" and isinstance(value, str):
        return value.replace("crypto", "cred")
    if key == "AcctGatherInfinibandType" and isinstance(value, str):
        return value.replace("infiniband", "interconnect")
    return value


def check_settings(conf: str, settings: Mapping[str, Any], version: Any,
                   names: Optional[Mapping[str, str]] = None) -> Dict[str, Any]:
    """Validate ``settings`` for ``conf`` of Slurm ``version`` and translate old key names.

    Returns ``{settings, translated: [{from, to, why}], warnings: [...]}`` where ``settings`` has
    Slurm's canonical key spelling. Raises :class:`SlurmConfError` for unknown or removed keys,
    conflicting spellings of one key and values the release refuses. ``names`` maps a key (as given) to the
    variable its value comes from: a refused value's message then starts with that variable's name.
    """
    names = _names(names)
    if conf not in CONF_FILES:
        raise SlurmConfError("configuration file %r is not one of %s" % (conf, ", ".join(CONF_FILES)))
    mapping_of("%s settings" % conf, settings, SlurmConfError, "a mapping of Key: value")
    release = slurm_release(version)
    table = key_table(conf, release)
    status = {k.lower(): (k,) + v for k, v in slurm_keys.key_status(release, conf).items()}
    found: Dict[str, Tuple[str, Any]] = {}
    for key, value in settings.items():
        if not isinstance(key, str) or not key:
            raise SlurmConfError("%s: key %r is not a non-empty string" % (conf, key))
        low = key.lower()
        if low in found:
            raise SlurmConfError(
                "%s: key %r is given twice (%r and %r); Slurm keys are case-insensitive, keep one"
                % (conf, key, found[low][0], key))
        if low not in table and low not in status:
            raise unknown_key(conf, key, release, table)
        found[low] = (key, value)
    out: Dict[str, Any] = {}
    translated: List[Dict[str, str]] = []
    warnings: List[str] = []
    controller_keys = {k: v for k, v in found.items() if conf == "slurm.conf"
                       and k in ("controlmachine", "controladdr", "backupcontroller", "backupaddr")}
    for low, (key, value) in found.items():
        if low in controller_keys:
            continue
        entry = status.get(low)
        if entry is None:
            out[table[low][0]] = value
            continue
        canonical, kind, replacement, why = entry
        if kind == "removed":
            raise SlurmConfError(
                "%s key %r is removed in Slurm %s: %s; %s" % (
                    conf, key, release, why,
                    "set %s instead" % replacement if replacement else "delete it"))
        if kind == "deprecated":
            out[table[low][0]] = value
            warnings.append("%s: %s is deprecated in Slurm %s: %s" % (conf, canonical, release, why))
            continue
        # renamed
        if replacement.lower() in found and canonical != "KeepAliveTime":
            raise SlurmConfError(
                "%s: both %s and %s are set; Slurm %s uses %s and ignores %s ('%s'); keep only %s"
                % (conf, canonical, replacement, release, replacement, canonical, why, replacement))
        translated.append({"from": key, "to": replacement, "why": why})
        if canonical == "KeepAliveTime":
            continue
        out[replacement] = _rename_value(canonical, value)
    if controller_keys:
        if "slurmctldhost" in found:
            raise SlurmConfError(
                "slurm.conf: SlurmctldHost and %s are both set; Slurm %s ignores the old keys "
                "('Ignoring ControlMachine since SlurmctldHost is set.'); keep only SlurmctldHost"
                % (", ".join(found[k][0] for k in sorted(controller_keys)), release))
        hosts, moved = _controller_hosts(controller_keys, release)
        out["SlurmctldHost"] = hosts if len(hosts) > 1 else hosts[0]
        translated.extend(moved)
    if "keepalivetime" in found:
        _merge_keepalive(out, found["keepalivetime"][1], conf)
    _value_rules(conf, out, release)
    warnings.extend(_combination_warnings(conf, out, release))
    _exclusive(conf, out, release)
    for key, value in out.items():
        try:
            check_value(conf, key, value, table[key.lower()][1])
        except SlurmConfError as exc:
            if key.lower() not in names:
                raise
            raise SlurmConfError("%s: %s" % (names[key.lower()], exc))  # pylint: disable=raise-missing-from
    return {"settings": out, "translated": translated, "warnings": warnings}


def _names(names: Optional[Mapping[str, str]]) -> Dict[str, str]:
    """``names`` (key -> the variable it comes from) with lower-case keys, checked."""
    if names is None:
        return {}
    mapping_of("names", names, SlurmConfError, "a mapping of Key: variable name")
    for key, name in names.items():
        if not isinstance(key, str) or not isinstance(name, str):
            raise must_be("names", names, "a mapping of Key: variable name (strings)", SlurmConfError)
    return {key.lower(): name for key, name in names.items()}


def _check_secret(conf: str, key: str, value: Any) -> str:
    """A secret (a database password) as Slurm reads it back whole: the message never shows the value."""
    where = "%s %s (its value is a secret and not shown)" % (conf, key)
    if not isinstance(value, str) or not value:
        raise SlurmConfError("%s must be a non-empty string" % where)
    why = ("a control character (a line break, tab ...)" if input_rules.CONTROL_RE.search(value)
           else "'#', which starts a comment: Slurm would read only what is before it" if "#" in value
           else "a blank, at which Slurm ends the value" if any(ch.isspace() for ch in value)
           else "a double quote or backslash, which Slurm's parser strips" if set(value) & set('"\\') else "")
    if why:
        raise SlurmConfError("%s holds %s, while the database keeps the whole password; choose one of printable "
                             "characters without blanks, '#', '\"' or '\\'" % (where, why))
    return value


def _merge_keepalive(out: Dict[str, Any], value: Any, conf: str) -> None:
    params = out.get("CommunicationParameters")
    items = _as_items(params) if params is not None else []
    if any(item.lower().startswith("keepalivetime=") for item in items):
        raise SlurmConfError(
            "%s: KeepAliveTime=%s and CommunicationParameters keepalivetime= are both set; Slurm "
            "uses the CommunicationParameters one; drop KeepAliveTime" % (conf, value))
    items.append("keepalivetime=%s" % value)
    out["CommunicationParameters"] = items


def _as_items(value: Any) -> List[str]:
    if isinstance(value, str):
        return [v for v in value.split(",") if v]
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    if isinstance(value, Mapping):
        return [str(k) if v is True else "%s=%s" % (k, v) for k, v in value.items()]
    return [str(value)]


def _value_rules(conf: str, out: Mapping[str, Any], release: str) -> None:
    for rule_conf, key, bad, fix, why in slurm_keys.VALUE_RULES[release]:
        value = out.get(key)
        if rule_conf == conf and isinstance(value, str) and value.strip().lower() == bad:
            raise SlurmConfError("%s: %s=%s is refused by Slurm %s (%s); use %s=%s"
                                 % (conf, key, value, release, why, key, fix))


def _combination_warnings(conf: str, out: Mapping[str, Any], release: str) -> List[str]:
    select, topology = str(out.get("SelectType", "")).lower(), str(out.get("TopologyPlugin", "")).lower()
    if conf != "slurm.conf" or select != "select/linear" or topology != "topology/tree":
        return []
    if release >= "24.05":
        # NEWS 24.05.0rc1: 'Removed TopologyPlugin tree and dragonfly support from select/linear.'
        raise SlurmConfError("slurm.conf: SelectType=select/linear with TopologyPlugin=topology/tree is not "
                             "supported by Slurm %s (removed in 24.05); use SelectType=select/cons_tres" % release)
    if release >= "23.11":
        return ["slurm.conf: select/linear with topology/tree draws a warning from Slurm %s and is unsupported "
                "from 24.05 on (NEWS 23.11.4); prefer SelectType=select/cons_tres" % release]
    return []


def _exclusive(conf: str, out: Mapping[str, Any], release: str) -> None:
    # read_config.c: 'DefMemPerCPU ignored, since it's mutually exclusive with DefMemPerNode'.
    for first, second in (("DefMemPerCPU", "DefMemPerNode"), ("MaxMemPerCPU", "MaxMemPerNode")):
        if conf == "slurm.conf" and first in out and second in out:
            raise SlurmConfError(
                "slurm.conf: %s and %s are both set; Slurm %s keeps one and ignores the other; set "
                "only one" % (first, second, release))


def _check_scalar(conf: str, key: str, value: Any, typ: str) -> str:
    where = "%s %s" % (conf, key)
    if isinstance(value, bool):
        if typ != "bool":
            raise SlurmConfError(
                "%s=%r: Slurm parses %s as %s, not yes/no; write the number or word Slurm "
                "documents for it (e.g. 0 or 1)" % (where, value, key, typ))
        return "YES" if value else "NO"
    if isinstance(value, int):
        if typ in _UINT_MAX and not 0 <= value <= _UINT_MAX[typ]:
            raise SlurmConfError("%s=%d is outside 0..%d (Slurm parses it as %s)"
                                 % (where, value, _UINT_MAX[typ], typ))
        if typ == "bool":
            raise SlurmConfError("%s=%d: %s is a yes/no key; write true or false" % (where, value, key))
        return str(value)
    if isinstance(value, float):
        if typ not in ("float", "str"):
            raise SlurmConfError("%s=%r: Slurm parses %s as %s; give a whole number" % (where, value, key, typ))
        if not math.isfinite(value):
            raise SlurmConfError("%s=%r: expected a finite number, not NaN or infinity" % (where, value))
        return repr(value)
    if not isinstance(value, str):
        raise must_be(where, value, "a string, number, boolean or list", SlurmConfError)
    if not value:
        raise SlurmConfError("%s is empty; omit the key to get Slurm's default" % where)
    if input_rules.CONTROL_RE.search(value):
        raise SlurmConfError("%s=%r contains a control character (a line break, tab, NUL, ESC ...); "
                             "expected printable text without blanks, '#' or '\"'" % (where, value))
    for bad, name in (("#", "'#' (starts a comment anywhere on a Slurm line)"), ('"', "a double quote")):
        if bad in value:
            raise SlurmConfError("%s=%r contains %s; Slurm cannot take it in a value, remove it"
                                 % (where, value, name))
    if any(ch.isspace() for ch in value):
        raise SlurmConfError(
            "%s=%r contains whitespace; Slurm splits values at whitespace and this collection does "
            "not quote slurm.conf values, use commas as Slurm's lists do" % (where, value))
    if typ in _UINT_MAX and value.upper() not in ("UNLIMITED", "INFINITE"):
        _check_scalar(conf, key, _slurm_number(where, value, typ), typ)
    if typ == "float":
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if not math.isfinite(number) or not re.fullmatch(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+", value):
            raise SlurmConfError("%s=%r is not a number such as 95 or 99.5 (Slurm parses it as float)"
                                 % (where, value))
    if typ == "bool" and value.lower() not in ("yes", "no", "true", "false", "up", "down", "1", "0"):
        raise SlurmConfError("%s=%r is not yes/no (parse_value.c accepts yes, no, true, false, up, "
                             "down, 1, 0)" % (where, value))
    return value


def _slurm_number(where: str, value: str, typ: str) -> int:
    """A whole number as Slurm's strtoul(value, NULL, 0) reads it: decimal or 0x hex."""
    if _DECIMAL_RE.fullmatch(value):
        return int(value)
    if _HEX_RE.fullmatch(value):
        return int(value, 16)
    if re.fullmatch(r"0[0-9]+", value):
        raise SlurmConfError("%s=%r: Slurm reads a number with a leading 0 as octal; write it without "
                             "the leading zeros" % (where, value))
    raise SlurmConfError("%s=%r is not a number (Slurm parses it as %s; decimal digits, 0x hex or "
                         "UNLIMITED are accepted)" % (where, value, typ))


_PORT_ALLOWED = {
    "one": "a port: a whole number 1-65535",
    "range": "a port 1-65535, or a range LOW-HIGH of ports (LOW < HIGH), e.g. 6817 or 6817-6818",
    "srun": "a range LOW-HIGH of ports 1-65535, e.g. 60001-63000",
    "node": "a port 1-65535, or ports and LOW-HIGH ranges in hostlist form, e.g. 6818 or [17001-17004]",
}


def _check_port(conf: str, key: str, value: Any) -> str:
    """A port key's value: one port 1-65535, or (SlurmctldPort, SrunPortRange, NodeName Port) a range.

    Decimal digits only: read_config.c reads SlurmctldPort with strtol(..., 10); a hex port would
    be a puzzle to the reader of the file.
    """
    form = ("node" if conf == "NodeName" else "srun" if key == "SrunPortRange"
            else "range" if (conf, key) in _PORT_RANGE_KEYS else "one")
    where = "%s %s" % (conf, key)

    def refuse(why: str = "") -> SlurmConfError:
        return SlurmConfError("%s: %r is not allowed; expected %s%s" % (where, value, _PORT_ALLOWED[form], why))

    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise must_be(where, value, "a number or a string (%s)" % _PORT_ALLOWED[form], SlurmConfError)
    text = str(value)
    if form == "node":
        match = _NODE_PORT_RE.fullmatch(text)
        if not match or text.startswith("[") != text.endswith("]"):
            raise refuse()
        parts = match.group(1).split(",")
    else:
        dash = "-" in text
        if not re.fullmatch(r"[0-9]+(?:-[0-9]+)?", text) or (dash and form == "one") or (not dash and form == "srun"):
            raise refuse()
        parts = [text]
    for part in parts:
        low, _sep, high = part.partition("-")
        if not 1 <= int(low) <= 65535 or not 1 <= int(high or low) <= 65535:
            raise refuse(" (%s is outside 1-65535)" % part)
        if high and (int(high) < int(low) or (form != "node" and int(high) == int(low))):
            raise refuse(" (the range %s does not go from a lower to a higher port; Slurm: 'Invalid %s')"
                         % (part, key))
    return text


def _check_ctld_host(value: Any) -> None:
    match = _CTLD_HOST_RE.fullmatch(value) if isinstance(value, str) else None
    if not match or not input_rules.is_valid("slurm_name", match.group(1)):
        raise SlurmConfError(
            "slurm.conf SlurmctldHost=%r: expected NAME or NAME(ADDRESS): a host name of letters, digits, '.', "
            "'_' and '-' and an address of letters, digits, '.', ':' and '-' (an IPv4 or IPv6 address or a "
            "DNS name)" % (value,))


def check_value(conf: str, key: str, value: Any, typ: str) -> List[str]:
    """The rendered value(s) of one key: one item per line for repeatable keys."""
    if key in SECRET_KEYS:
        return [_check_secret(conf, key, value)]
    if key in _PORT_KEYS.get(conf, ()) or (conf, key) in _PORT_RANGE_KEYS or (conf, key) == ("NodeName", "Port"):
        return [_check_port(conf, key, value)]
    if (conf, key) == ("slurm.conf", "SlurmctldHost"):
        for item in value if isinstance(value, (list, tuple)) else [value]:
            _check_ctld_host(item)
    if isinstance(value, Mapping):
        if typ != "str":
            raise SlurmConfError("%s %s: a mapping only renders for list-of-options keys" % (conf, key))
        for name, item in value.items():
            if item is False or item is None:
                raise SlurmConfError("%s %s: option %r is %r; leave it out instead" % (conf, key, name, item))
            if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.+/-]*", name):
                raise SlurmConfError("%s %s: option name %r is not allowed; expected letters, digits, '_', '.', "
                                     "'+', '/' and '-' (no '=', ',', blank or '#')" % (conf, key, name))
        value = _as_items(value)
    if isinstance(value, (list, tuple)):
        if not value:
            raise SlurmConfError("%s %s is an empty list; omit the key instead" % (conf, key))
        items = [_check_scalar(conf, key, item, "str" if typ == "lines" else typ) for item in value]
        for item in items:
            if "," in item and typ != "lines":
                raise SlurmConfError("%s %s: list item %r contains a comma; give the items separately"
                                     % (conf, key, item))
        return items if typ == "lines" else [",".join(items)]
    return [_check_scalar(conf, key, value, "str" if typ == "lines" else typ)]


def render_conf_lines(settings: Mapping[str, Any], conf: str = "slurm.conf",
                      version: Any = "22.05") -> List[str]:
    """``Key=Value`` lines in the given key order; repeatable keys give one line per item."""
    table = key_table(conf, version)
    lines = []
    for key, value in settings.items():
        low = str(key).lower()
        if low not in table:
            raise unknown_key(conf, str(key), slurm_release(version), table)
        for item in check_value(conf, table[low][0], value, table[low][1]):
            lines.append("%s=%s" % (table[low][0], item))
    return lines


def cgroup_conf(version: Any, constrain_devices: bool = True, constrain_cores: bool = True,
                constrain_ram: bool = True, cgroup_plugin: str = "autodetect") -> List[str]:
    """cgroup.conf lines valid for ``version``.

    CgroupAutomount is never written: it only ever mattered for cgroup/v1 and is removed in 23.11
    (NEWS 23.11.0rc1; 24.11.5 parses it as defunct).
    """
    release = slurm_release(version)
    plugins = slurm_keys.CGROUP_PLUGINS[release]
    if cgroup_plugin not in plugins:
        raise SlurmConfError("cgroup.conf CgroupPlugin=%r is not accepted by Slurm %s; use one of %s"
                             % (cgroup_plugin, release, ", ".join(plugins)))
    for name, flag in (("constrain_devices", constrain_devices), ("constrain_cores", constrain_cores),
                       ("constrain_ram", constrain_ram)):
        if not isinstance(flag, bool):
            raise must_be("cgroup_conf %s" % name, flag, "true or false", SlurmConfError)
    settings = {"CgroupPlugin": cgroup_plugin, "ConstrainCores": constrain_cores,
                "ConstrainDevices": constrain_devices, "ConstrainRAMSpace": constrain_ram}
    return render_conf_lines(check_settings("cgroup.conf", settings, release)["settings"],
                             "cgroup.conf", release)
