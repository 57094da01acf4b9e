# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Check and render Slurm configuration settings for one Slurm release.

* :func:`check_settings` -- every key must be one the release's parser accepts (catalogue in
  :mod:`slurm_keys`, case-insensitive like Slurm's ``s_p_`` hash table); old spellings are
  translated (``ControlMachine`` -> ``SlurmctldHost``), removed ones refused with the fix, unknown
  ones refused with the closest real keys.
* :func:`render_conf_lines` -- ``Key=Value`` lines with Slurm's value grammar: lists are comma
  joined, booleans only for the parser's boolean keys (YES/NO), numbers range-checked for the
  parser's uint16/32/64 keys, no whitespace, ``#`` or ``"`` in values (``#`` starts a comment
  anywhere on a line, even inside quotes: parse_config.c ``_strip_comments``).
* :func:`cgroup_conf` -- the cgroup.conf lines the roles use, valid for the release.

* :func:`node_lines`, :func:`partition_lines` -- NodeName=/PartitionName= lines, identical nodes
  grouped under one compressed hostlist, checked with Slurm's own rules.
* :func:`gres_conf_lines`, :func:`check_gres_counts` -- gres.conf lines (AutoDetect or explicit
  File=/Cores= per NUMA node) and the node-line/gres.conf count check.
"""
from __future__ import annotations

import difflib
import math
import re
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules
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


def _unknown(conf: str, key: str, release: str, table: Mapping[str, Tuple[str, str]]) -> SlurmConfError:
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


def check_settings(conf: str, settings: Mapping[str, Any], version: Any) -> Dict[str, Any]:
    """Validate ``settings`` for ``conf`` of Slurm ``version`` and translate old key names.

    Returns ``{settings, translated: [{from, to, why}], warnings: [...]}`` where ``settings`` has
    Slurm's canonical key spelling. Raises :class:`SlurmConfError` for unknown or removed keys,
    conflicting spellings of one key and values the release refuses.
    """
    if conf not in CONF_FILES:
        raise SlurmConfError("configuration file %r is not one of %s" % (conf, ", ".join(CONF_FILES)))
    if not isinstance(settings, Mapping):
        raise SlurmConfError("%s settings must be a mapping of Key: value, got %s" % (conf, type(settings).__name__))
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
            raise _unknown(conf, key, release, table)
        found[low] = (key, value)
    out: Dict[str, Any] = {}
    translated: List[Dict[str, str]] = []
    warnings: List[str] = []
    controller_keys = {k: v for k, v in found.items()
                       if conf == "slurm.conf" and k in ("controlmachine", "controladdr", "backupcontroller", "backupaddr")}
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
        _check_value(conf, key, value, table[key.lower()][1])
    return {"settings": out, "translated": translated, "warnings": warnings}


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
        raise SlurmConfError("%s=%r: value must be a string, number, boolean or list, not %s"
                             % (where, value, type(value).__name__))
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
        raise SlurmConfError("%s must be a number or a string (%s), got %r of type %s"
                             % (where, _PORT_ALLOWED[form], value, type(value).__name__))
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


def _check_value(conf: str, key: str, value: Any, typ: str) -> List[str]:
    """The rendered value(s) of one key: one item per line for repeatable keys."""
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
            raise _unknown(conf, str(key), slurm_release(version), table)
        for item in _check_value(conf, table[low][0], value, table[low][1]):
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
            raise SlurmConfError("cgroup_conf %s must be true or false, got %r" % (name, flag))
    settings = {"CgroupPlugin": cgroup_plugin, "ConstrainCores": constrain_cores,
                "ConstrainDevices": constrain_devices, "ConstrainRAMSpace": constrain_ram}
    return render_conf_lines(check_settings("cgroup.conf", settings, release)["settings"],
                             "cgroup.conf", release)


# --------------------------------------------------------------------------- nodes, partitions, gres

from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.hostlist import (  # noqa: E402
    HostlistError, compress_hostlist, expand_hostlist, host_sort_key)

# All applied with fullmatch. Node, partition, feature and gres model names are input_rules' slurm_name.
_GRES_NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")
_GRES_NAME_ALLOWED = "a letter, then up to 63 letters, digits or '_' (e.g. gpu)"
# Slurm time: MINUTES, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS (parse_time.c time_str2mins).
_TIME_RE = re.compile(r"[0-9]+|[0-9]+:[0-9]{1,2}|[0-9]+:[0-9]{1,2}:[0-9]{1,2}|[0-9]+-[0-9]+|[0-9]+-[0-9]+:[0-9]{1,2}"
                      r"|[0-9]+-[0-9]+:[0-9]{1,2}:[0-9]{1,2}")
_NODE_FIELDS = ("name", "cpus", "boards", "sockets", "cores_per_socket", "threads_per_core",
                "real_memory", "gres", "features", "weight", "extra")
_NODE_OWN_KEYS = ("nodename", "cpus", "procs", "boards", "sockets", "socketsperboard", "corespersocket",
                  "threadspercore", "realmemory", "gres", "feature", "features", "weight")
_PART_FIELDS = ("name", "nodes", "default", "max_time", "state", "extra")
_PART_STATES = ("UP", "DOWN", "DRAIN", "INACTIVE")


def _positive_int(where: str, value: Any, minimum: int = 1, maximum: int = 0xFFFF) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SlurmConfError("%s must be a whole number, got %r" % (where, value))
    if not minimum <= value <= maximum:
        raise SlurmConfError("%s=%d is outside %d..%d" % (where, value, minimum, maximum))
    return value


def _slurm_name(where: str, value: Any) -> str:
    return input_rules.check("slurm_name", where, value, SlurmConfError)


def _mapping(where: str, value: Any) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise SlurmConfError("%s must be a mapping of Slurm options (Key: value), got %r of type %s"
                             % (where, value, type(value).__name__))
    return value


def _names(where: str, value: Any) -> List[str]:
    try:
        if isinstance(value, str):
            names = expand_hostlist(value)
        elif isinstance(value, (list, tuple)) and value:
            names = [n for item in value for n in expand_hostlist(item)]
        else:
            raise SlurmConfError("%s must be a hostlist string or a non-empty list of names, got %r" % (where, value))
    except HostlistError as exc:
        raise SlurmConfError("%s: %s" % (where, exc))
    return names


def _gres_items(where: str, gres: Any) -> Tuple[Tuple[str, str, int], ...]:
    if gres is None:
        return ()
    if not isinstance(gres, (list, tuple)):
        raise SlurmConfError("%s gres must be a list of {type, model, count}, got %r" % (where, gres))
    items, seen = [], set()
    for index, item in enumerate(gres):
        spot = "%s gres[%d]" % (where, index)
        if not isinstance(item, Mapping) or set(item) - {"type", "model", "count"} or "type" not in item:
            raise SlurmConfError("%s must be a mapping with type, optional model and count, got %r" % (spot, item))
        name, model = item["type"], item.get("model")
        if not isinstance(name, str) or not _GRES_NAME_RE.fullmatch(name):
            raise SlurmConfError("%s type: %r is not allowed; expected %s" % (spot, name, _GRES_NAME_ALLOWED))
        if model is not None:
            _slurm_name("%s model (e.g. h100)" % spot, model)
        count = _positive_int("%s count" % spot, item.get("count"), 1, 0xFFFFFFFF)
        if (name, model) in seen:
            raise SlurmConfError("%s repeats %s:%s; give each type/model once with its total count"
                                 % (spot, name, model))
        seen.add((name, model))
        items.append((name, model or "", count))
    return tuple(items)


def _gres_text(items: Sequence[Tuple[str, str, int]]) -> str:
    return ",".join(":".join([n, m, str(c)]) if m else "%s:%d" % (n, c) for n, m, c in items)


def _node_spec(node: Any, index: int, table: Mapping[str, Tuple[str, str]], release: str) -> Tuple[str, tuple]:
    if not isinstance(node, Mapping):
        raise SlurmConfError("node %d must be a mapping with name, cpus, sockets, ..., got %r" % (index, node))
    unknown = set(node) - set(_NODE_FIELDS)
    if unknown:
        raise SlurmConfError("node %d (%s): unknown field(s) %s; known: %s"
                             % (index, node.get("name"), ", ".join(sorted(map(str, unknown))), ", ".join(_NODE_FIELDS)))
    name = _slurm_name("node %d name" % index, node.get("name"))
    where = "node %s" % name
    sockets = _positive_int(where + " sockets", node.get("sockets"))
    cores = _positive_int(where + " cores_per_socket", node.get("cores_per_socket"))
    threads = _positive_int(where + " threads_per_core", node.get("threads_per_core"))
    boards = _positive_int(where + " boards", node.get("boards", 1))
    if sockets % boards:
        raise SlurmConfError("%s: sockets=%d is not a multiple of boards=%d; Slurm's Sockets is the node "
                             "total, spread evenly over the boards" % (where, sockets, boards))
    total = sockets * cores * threads
    cpus = _positive_int(where + " cpus", node.get("cpus", total))
    if cpus != total:
        raise SlurmConfError(
            "%s: cpus=%d but sockets*cores_per_socket*threads_per_core = %d*%d*%d = %d; slurmd would "
            "reset CPUs (read_config.c _parse_nodename). Fix the numbers from 'slurmd -C'; to schedule "
            "whole cores set threads_per_core=1" % (where, cpus, sockets, cores, threads, total))
    memory = _positive_int(where + " real_memory (MiB)", node.get("real_memory"), 1, 0xFFFFFFFFFFFFFFFF)
    features = node.get("features") or []
    if not isinstance(features, (list, tuple)):
        raise SlurmConfError("%s features must be a list of names, got %r" % (where, features))
    for number, feature in enumerate(features):
        _slurm_name("%s features[%d]" % (where, number), feature)
    if len(set(features)) != len(features):
        raise SlurmConfError("%s features %r repeat a feature" % (where, features))
    weight = node.get("weight")
    if weight is not None:
        _positive_int(where + " weight", weight, 0, 0xFFFFFFFE)
    extra = _mapping(where + " extra", node.get("extra"))
    rendered_extra = []
    for key, value in sorted(extra.items(), key=lambda kv: str(kv[0]).lower()):
        low = str(key).lower()
        if low in _NODE_OWN_KEYS:
            raise SlurmConfError("%s extra sets %s, which this function writes from its own fields; use "
                                 "the field instead" % (where, key))
        if low not in table:
            raise _unknown("slurm.conf NodeName", str(key), release, table)
        canonical, typ = table[low]
        rendered_extra.append("%s=%s" % (canonical, ",".join(_check_value("NodeName", canonical, value, typ))))
    spec = (cpus, boards, sockets, cores, threads, memory, _gres_items(where, node.get("gres")),
            tuple(features), weight, tuple(rendered_extra))
    return name, spec


def _spec_line(hosts: str, spec: tuple) -> str:
    cpus, boards, sockets, cores, threads, memory, gres, features, weight, extra = spec
    parts = ["NodeName=%s" % hosts, "CPUs=%d" % cpus]
    if boards > 1:
        parts.append("Boards=%d" % boards)
    parts += ["Sockets=%d" % sockets, "CoresPerSocket=%d" % cores, "ThreadsPerCore=%d" % threads,
              "RealMemory=%d" % memory]
    if gres:
        parts.append("Gres=%s" % _gres_text(gres))
    if features:
        parts.append("Feature=%s" % ",".join(features))
    if weight is not None:
        parts.append("Weight=%d" % weight)
    return " ".join(parts + list(extra))


def _node_groups(nodes: Any, version: Any) -> List[Tuple[List[str], tuple]]:
    if not isinstance(nodes, (list, tuple)) or not nodes:
        raise SlurmConfError("nodes must be a non-empty list of node mappings, got %r" % (nodes,))
    release = slurm_release(version)
    table = key_table("slurm.conf:NodeName", release)
    groups: Dict[tuple, List[str]] = {}
    seen: Dict[str, int] = {}
    for index, node in enumerate(nodes):
        name, spec = _node_spec(node, index, table, release)
        if name in seen:
            raise SlurmConfError("node %s is listed twice (items %d and %d); give each node once"
                                 % (name, seen[name], index))
        seen[name] = index
        groups.setdefault(spec, []).append(name)
    ordered = [(sorted(names, key=host_sort_key), spec) for spec, names in groups.items()]
    return sorted(ordered, key=lambda item: host_sort_key(item[0][0]))


def node_lines(nodes: Any, version: Any = "22.05") -> List[str]:
    """NodeName= lines, nodes with identical hardware grouped under one compressed hostlist."""
    return [_spec_line(compress_hostlist(names), spec) for names, spec in _node_groups(nodes, version)]


# The PartitionName= keys partition_lines writes from a partition's own fields: Slurm's key (lower case) -> the field.
_PART_OWN_KEYS = {"partitionname": "name", "nodes": "nodes", "default": "default", "maxtime": "max_time", "state": "state"}


def partition_lines(partitions: Any, nodes: Any, version: Any = "22.05") -> List[str]:
    """PartitionName= lines; every partition node must exist and every node be in a partition."""
    if not isinstance(partitions, (list, tuple)) or not partitions:
        raise SlurmConfError("partitions must be a non-empty list of partition mappings, got %r" % (partitions,))
    known = [name for names, _spec in _node_groups(nodes, version) for name in names]
    table = key_table("slurm.conf:PartitionName", version)
    used, names, lines, default = set(), set(), [], None
    for index, part in enumerate(partitions):
        if not isinstance(part, Mapping) or set(part) - set(_PART_FIELDS):
            raise SlurmConfError("partition %d must be a mapping with fields %s, got %r"
                                 % (index, ", ".join(_PART_FIELDS), part))
        name = _slurm_name("partition %d name" % index, part.get("name"))
        if name.upper() == "DEFAULT":
            raise SlurmConfError("partition %d name %r is Slurm's keyword for defaults; choose another name"
                                 % (index, name))
        if name in names:
            raise SlurmConfError("partition %s is defined twice; Slurm would merge or reject it" % name)
        names.add(name)
        where = "partition %s" % name
        if part.get("nodes") in ("ALL", "all"):
            members = list(known)
        else:
            members = _names(where + " nodes", part.get("nodes"))
            missing = sorted(set(members) - set(known), key=host_sort_key)
            if missing:
                raise SlurmConfError("%s references node(s) %s that have no NodeName line; add them to the "
                                     "node list or remove them" % (where, compress_hostlist(missing)))
        used.update(members)
        parts = ["PartitionName=%s" % name, "Nodes=%s" % compress_hostlist(members)]
        if part.get("default") not in (None, False):
            if part["default"] is not True:
                raise SlurmConfError("%s default must be true or false, got %r" % (where, part["default"]))
            if default:
                raise SlurmConfError("partitions %s and %s are both default; Slurm takes one default "
                                     "partition" % (default, name))
            default = name
            parts.append("Default=YES")
        max_time = part.get("max_time")
        if max_time is not None:
            text = str(max_time) if not isinstance(max_time, bool) else ""
            if not (_TIME_RE.fullmatch(text) or text.upper() in ("UNLIMITED", "INFINITE")):
                raise SlurmConfError("%s max_time %r is not a Slurm time (minutes, [D-]HH:MM:SS or "
                                     "UNLIMITED)" % (where, max_time))
            parts.append("MaxTime=%s" % (text if text[0].isdigit() else text.upper()))
        state = part.get("state")
        if state is not None:
            if not isinstance(state, str) or state.upper() not in _PART_STATES:
                raise SlurmConfError("%s state %r is not one of %s" % (where, state, ", ".join(_PART_STATES)))
            parts.append("State=%s" % state.upper())
        for key, value in sorted(_mapping(where + " extra", part.get("extra")).items(), key=lambda kv: str(kv[0]).lower()):
            low = str(key).lower()
            if low in _PART_OWN_KEYS:
                raise SlurmConfError("%s extra sets %s; use the %s field" % (where, key, _PART_OWN_KEYS[low]))
            if low not in table:
                raise _unknown("slurm.conf PartitionName", str(key), slurm_release(version), table)
            canonical, typ = table[low]
            parts.append("%s=%s" % (canonical, ",".join(_check_value("PartitionName", canonical, value, typ))))
        lines.append(" ".join(parts))
    idle = sorted(set(known) - used, key=host_sort_key)
    if idle:
        raise SlurmConfError("node(s) %s are in no partition, so no job could ever use them; add them to a "
                             "partition or drop their NodeName line" % compress_hostlist(idle))
    return lines


def _core_ranges(cores: Sequence[int]) -> str:
    out, ordered = [], sorted(set(cores))
    start = prev = ordered[0]
    for core in ordered[1:] + [None]:
        if core is not None and core == prev + 1:
            prev = core
            continue
        out.append(str(start) if start == prev else "%d-%d" % (start, prev))
        if core is not None:
            start = prev = core
    return ",".join(out)


def _core_list(where: str, value: Any) -> List[int]:
    if isinstance(value, str):
        cores = []
        for part in value.split(","):
            match = re.fullmatch(r"([0-9]+)(?:-([0-9]+))?", part)
            if not match or (match.group(2) and int(match.group(2)) < int(match.group(1))):
                raise SlurmConfError("%s %r is not a core list such as '0-51' or '0-25,52-77'" % (where, value))
            cores.extend(range(int(match.group(1)), int(match.group(2) or match.group(1)) + 1))
        return cores
    if isinstance(value, (list, tuple)) and value and all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= 0xFFFF
                                                          for c in value):
        return list(value)
    raise SlurmConfError("%s must be a core list string or a list of core numbers, got %r" % (where, value))


def _gres_entry(index: int, entry: Any) -> Tuple[List[str], List[str], Optional[int], str, str]:
    """(nodes, lines, device count or None for AutoDetect, name, type)."""
    fields = {"nodes", "autodetect", "name", "type", "gpus", "numa_cores", "count", "device"}
    if not isinstance(entry, Mapping) or set(entry) - fields:
        raise SlurmConfError("gres entry %d must be a mapping with fields %s, got %r" % (index, ", ".join(sorted(fields)), entry))
    names = _names("gres entry %d nodes" % index, entry.get("nodes"))
    hosts = compress_hostlist(names)
    where = "gres.conf NodeName=%s" % hosts
    name, model = entry.get("name", "gpu"), entry.get("type")
    if not isinstance(name, str) or not _GRES_NAME_RE.fullmatch(name):
        raise SlurmConfError("%s name: %r is not allowed; expected %s" % (where, name, _GRES_NAME_ALLOWED))
    if model is not None:
        _slurm_name("%s type (e.g. h100)" % where, model)
    if entry.get("autodetect") is not None:
        mode = entry["autodetect"]
        if mode not in ("nvml", "rsmi", "oneapi", "nrt", "off"):
            raise SlurmConfError("%s autodetect %r is not nvml, rsmi, oneapi, nrt or off" % (where, mode))
        if entry.get("gpus"):
            raise SlurmConfError("%s has both autodetect and gpus; AutoDetect finds the devices itself, "
                                 "give one or the other" % where)
        count = entry.get("count")
        if count is not None:
            _positive_int(where + " count", count, 1, 0xFFFFFFFF)
        return names, ["NodeName=%s AutoDetect=%s" % (hosts, mode)], count, name, model or ""
    gpus = entry.get("gpus")
    if not isinstance(gpus, (list, tuple)) or not gpus:
        raise SlurmConfError("%s needs gpus: [{index, numa_node}] (or autodetect: nvml)" % where)
    numa_cores = entry.get("numa_cores")
    if numa_cores is not None and not isinstance(numa_cores, Mapping):
        raise SlurmConfError("%s numa_cores must map NUMA node -> cores, got %r" % (where, numa_cores))
    by_numa: Dict[Any, List[int]] = {}
    seen = set()
    for number, gpu in enumerate(gpus):
        spot = "%s gpus[%d]" % (where, number)
        if not isinstance(gpu, Mapping) or "index" not in gpu:
            raise SlurmConfError("%s must be {index, numa_node}, got %r" % (spot, gpu))
        gpu_index = _positive_int(spot + " index", gpu["index"], 0, 0xFFFF)
        if gpu_index in seen:
            raise SlurmConfError("%s: GPU index %d is listed twice" % (spot, gpu_index))
        seen.add(gpu_index)
        numa = gpu.get("numa_node")
        if numa is not None:
            _positive_int(spot + " numa_node", numa, 0, 0xFFFF)
            if numa_cores is not None and numa not in numa_cores and str(numa) not in numa_cores:
                raise SlurmConfError("%s: numa_node %d has no entry in numa_cores (%s)"
                                     % (spot, numa, ", ".join(map(str, numa_cores))))
        by_numa.setdefault(numa, []).append(gpu_index)
    device = input_rules.check("device_path", "%s device" % where, entry.get("device", "/dev/nvidia"), SlurmConfError)
    if device[-1].isdigit():
        raise SlurmConfError("%s device: %r ends in a digit; it is the prefix the GPU index is appended to "
                             "(/dev/nvidia gives /dev/nvidia0), so %r would read as another device"
                             % (where, device, device + "0"))
    lines = []
    for numa in sorted(by_numa, key=lambda n: (n is None, n)):
        parts = ["NodeName=%s" % hosts, "Name=%s" % name]
        if model:
            parts.append("Type=%s" % model)
        parts.append("File=%s" % compress_hostlist(["%s%d" % (device, i) for i in by_numa[numa]], "device_path"))
        if numa is not None and numa_cores is not None:
            cores = numa_cores.get(numa, numa_cores.get(str(numa)))
            parts.append("Cores=%s" % _core_ranges(_core_list("%s numa_cores[%s]" % (where, numa), cores)))
        lines.append(" ".join(parts))
    return names, lines, len(seen), name, model or ""


def gres_conf_lines(gres: Any, nodes: Any = None, version: Any = "22.05") -> List[str]:
    """gres.conf lines; with ``nodes``, also :func:`check_gres_counts` and core ranges."""
    slurm_release(version)
    if not isinstance(gres, (list, tuple)) or not gres:
        raise SlurmConfError("gres must be a non-empty list of gres.conf entries, got %r" % (gres,))
    lines, owner = [], {}
    for index, entry in enumerate(gres):
        names, entry_lines, _count, name, _model = _gres_entry(index, entry)
        for host in names:
            if (host, name) in owner:
                raise SlurmConfError("node %s gets %s from gres entries %d and %d; describe each node's "
                                     "%s once" % (host, name, owner[(host, name)], index, name))
            owner[(host, name)] = index
        lines.extend(entry_lines)
    if nodes is not None:
        check_gres_counts(nodes, gres, version)
    return lines


def check_gres_counts(nodes: Any, gres: Any, version: Any = "22.05") -> Dict[str, int]:
    """Refuse a NodeName Gres= count that differs from the gres.conf device count; ``{node: count}``."""
    groups = _node_groups(nodes, version)
    node_spec = {name: spec for names, spec in groups for name in names}
    checked = {}
    for index, entry in enumerate(gres):
        names, _lines, count, name, model = _gres_entry(index, entry)
        for host in names:
            spec = node_spec.get(host)
            if spec is None:
                raise SlurmConfError("gres.conf entry %d names node %s, which has no NodeName line" % (index, host))
            declared = sum(c for n, m, c in spec[6] if n == name and (not model or not m or m == model))
            if count is not None and declared != count:
                raise SlurmConfError(
                    "node %s: slurm.conf Gres=%s declares %d %s but gres.conf has %d device(s); slurmd "
                    "would drain the node ('gres/%s count too low' or an inconsistent count). Make them "
                    "equal" % (host, _gres_text(spec[6]) or "(none)", declared, name, count, name))
            if entry.get("numa_cores") is not None:
                total = spec[2] * spec[3]  # Cores= are Slurm's logical core indexes, 0..sockets*cores-1
                for numa, cores in entry["numa_cores"].items():
                    top = max(_core_list("gres entry %d numa_cores[%s]" % (index, numa), cores))
                    if top >= total:
                        raise SlurmConfError(
                            "gres.conf entry %d: Cores up to %d for NUMA node %s, but node %s has only "
                            "%d cores (%d sockets x %d); Cores= counts cores, not hardware threads"
                            % (index, top, numa, host, total, spec[2], spec[3]))
            checked[host] = declared
    return checked
