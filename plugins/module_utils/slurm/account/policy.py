# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Slurm's accounting policy (cluster, QOS, accounts, users): the module's options, checked, as a Policy.

Pure functions for gpufleet.cluster.slurm_account, which only runs the commands; the accounting domain is three
modules, read in this order:

* this one: :func:`policy` validates the module's options (every name and value passes input_rules before it can
  reach an argv) into a :class:`Policy`; each field's :class:`Kind` reads the option, reads what sacctmgr shows
  and renders both the same way (the field tables say which column and keyword each option is);
* :mod:`.state`: what sacctmgr shows, parsed into a :class:`~.state.State`;
* :mod:`.plan`: the comparison of the two and the ordered ``sacctmgr --immediate`` argvs.

What sacctmgr does that the comparison follows (seen on 22.05): names, descriptions and organizations are
stored in lower case; a user's association shows the limits, QOS and default QOS it inherits from its account
(and an account those of its parent), so a limit cleared with -1 is in place when the shown value is the
parent's; GrpTRES and fair-share are not inherited.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Sequence, Set, Tuple

from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import list_of, must_be

PREEMPT_MODES = ("cluster", "cancel", "requeue", "suspend", "off")
ADMIN_LEVELS = {"none": "None", "operator": "Operator", "administrator": "Administrator"}
#: uint32 limits: Slurm's INFINITE (0xffffffff) and NO_VAL (0xfffffffe) are not values.
MAX_COUNT = 0xfffffffd
MAX_TRES = 2 ** 62
_TRES_NAME = re.compile(r"[a-z]+(?:/[A-Za-z0-9_.-]+(?::[A-Za-z0-9_.-]+)?)?")
_FLAG = re.compile(r"[A-Za-z][A-Za-z0-9]{0,63}")
#: QOS flags of Slurm 22.05 (src/common/slurmdb_defs.c), as sacctmgr prints them; others pass as written.
QOS_FLAGS = ("DenyOnLimit", "EnforceUsageThreshold", "NoDecay", "NoReserve", "OverPartQOS", "PartitionMaxNodes",
             "PartitionMinNodes", "PartitionTimeLimit", "RequiresReservation", "UsageFactorSafe", "Relative")
_FLAG_NAMES = {flag.lower(): flag for flag in QOS_FLAGS}
_UNITS = {"K": -1, "M": 0, "G": 1, "T": 2, "P": 3}
_TIME_FORMS = (
    (re.compile(r"(\d{1,9})"), ("m",)),
    (re.compile(r"(\d{1,9}):(\d{1,2})"), ("m", "s")),
    (re.compile(r"(\d{1,9}):(\d{1,2}):(\d{1,2})"), ("h", "m", "s")),
    (re.compile(r"(\d{1,7})-(\d{1,2})"), ("d", "h")),
    (re.compile(r"(\d{1,7})-(\d{1,2}):(\d{1,2})"), ("d", "h", "m")),
    (re.compile(r"(\d{1,7})-(\d{1,2}):(\d{1,2}):(\d{1,2})"), ("d", "h", "m", "s")),
)
_TEXT_FORBID = "|'\"`"


class SlurmAccountError(ValueError):
    """An option that cannot become a sacctmgr argument, or output that does not read as sacctmgr's."""


# --------------------------------------------------------------------------------------------------
# Values: each kind reads the option, reads what sacctmgr shows, and renders both the same way.
# --------------------------------------------------------------------------------------------------
_CLEARED = None  # the canonical value of an unset limit


def _name(where: str, value: Any) -> str:
    text = input_rules.check("slurm_name", where, value, SlurmAccountError)
    if text != text.lower():
        raise SlurmAccountError("%s: %r is not allowed; sacctmgr stores cluster, account, user and QOS names in "
                                "lower case, so write it as %r" % (where, text, text.lower()))
    return text


def _names(where: str, value: Any, allow_empty: bool) -> FrozenSet[str]:
    list_of(where, value, SlurmAccountError, "a list of names")
    if not value and not allow_empty:
        raise SlurmAccountError("%s must not be empty (leave it out to keep what the association inherits)" % where)
    names = [_name("%s[%d]" % (where, index), item) for index, item in enumerate(value)]
    if len(set(names)) != len(names):
        raise SlurmAccountError("%s: %r lists a name twice" % (where, list(value)))
    return frozenset(names)


def _count(where: str, value: Any, minimum: int = -1) -> Optional[int]:
    number = input_rules.integer(where, value, SlurmAccountError, minimum=minimum, maximum=MAX_COUNT)
    return _CLEARED if number == -1 else number


def _text(where: str, value: Any) -> str:
    text = input_rules.free_text(where, value, SlurmAccountError, forbid=_TEXT_FORBID, max_length=255)
    if text != text.strip():
        raise SlurmAccountError("%s: %r is not allowed; expected text with no leading or trailing blank"
                                % (where, text))
    return text


def tres(where: str, value: Any) -> Dict[str, Optional[int]]:
    """A TRES mapping option {"gres/gpu": 16, "cpu": 128}; -1 clears that TRES (None)."""
    input_rules.mapping(where, value, SlurmAccountError)
    if not value:
        raise SlurmAccountError("%s must name at least one TRES (a TRES is cleared with -1)" % where)
    found: Dict[str, Optional[int]] = {}
    for key, count in value.items():
        if not isinstance(key, str) or len(key) > 64 or not _TRES_NAME.fullmatch(key):
            raise SlurmAccountError("%s: TRES name %r is not allowed; expected a TRES type such as 'cpu', 'mem', "
                                    "'node', 'billing', 'gres/gpu' or 'gres/gpu:a100'" % (where, key))
        number = input_rules.integer("%s[%s]" % (where, key), count, SlurmAccountError, minimum=-1, maximum=MAX_TRES)
        found[key] = None if number == -1 else number
    return found


def read_tres(text: str, where: str = "TRES") -> Dict[str, int]:
    """What sacctmgr prints, 'cpu=128,gres/gpu=16,mem=64G', as {name: count}; memory in megabytes."""
    found: Dict[str, int] = {}
    if text == "":
        return found
    for part in text.split(","):
        match = re.fullmatch(r"([^=,]+)=(\d+)([KMGTP]?)", part)
        if match is None or not _TRES_NAME.fullmatch(match.group(1)):
            raise SlurmAccountError("%s: %r does not read as sacctmgr's TRES list (name=count,...)" % (where, text))
        count = int(match.group(2))
        unit = match.group(3)
        if unit:
            power = _UNITS[unit]
            count = count // 1024 if power < 0 else count * 1024 ** power
        found[match.group(1)] = count
    return found


def show_tres(value: Mapping[str, int]) -> str:
    """A TRES mapping as sacctmgr prints it: by name, memory with a unit ('cpu=128,gres/gpu=16,mem=64G')."""
    parts = []
    for name in sorted(value):
        count = value[name]
        if name in ("mem", "vmem", "fs/disk") and count:
            unit = 0
            while count % 1024 == 0 and unit < 3:
                count //= 1024
                unit += 1
            parts.append("%s=%d%s" % (name, count, "MGTP"[unit]))
        else:
            parts.append("%s=%d" % (name, count))
    return ",".join(parts)


def wall_minutes(where: str, value: Any) -> Optional[int]:
    """A time limit in minutes (None: cleared), from minutes (int, -1 clears) or a Slurm time string such as
    '2-00:00:00', '12:00:00', '90' or '1-12' (days-hours); seconds round up to the next minute as Slurm does."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise must_be(where, value, "minutes (a whole number) or a Slurm time string such as '2-00:00:00'",
                      SlurmAccountError)
    if isinstance(value, int):
        return _count(where, value)
    if value == "-1":
        return _CLEARED
    for pattern, parts in _TIME_FORMS:
        match = pattern.fullmatch(value)
        if match:
            got = dict(zip(parts, (int(g) for g in match.groups())))
            if got.get("s", 0) > 59 or ("h" in got and "d" in got and got["h"] > 23) or (
                    got.get("m", 0) > 59 and len(parts) > 1 and parts[0] != "m"):
                break
            seconds = ((got.get("d", 0) * 24 + got.get("h", 0)) * 60 + got.get("m", 0)) * 60 + got.get("s", 0)
            minutes = (seconds + 59) // 60
            if minutes > MAX_COUNT:
                break
            return minutes
    raise SlurmAccountError("%s: %r is not allowed; expected minutes, 'minutes:seconds', 'hours:minutes:seconds', "
                            "'days-hours', 'days-hours:minutes' or 'days-hours:minutes:seconds' (or -1 to clear)"
                            % (where, value))


def show_wall(minutes: Optional[int]) -> str:
    """Minutes as sacctmgr prints a time limit: '2-00:00:00', '12:00:00'; '' when unset."""
    if minutes is None:
        return ""
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    return ("%d-%02d:%02d:00" % (days, hours, mins)) if days else ("%02d:%02d:00" % (hours, mins))


@dataclass(frozen=True)
class Kind:
    """How one field is read from the options and from sacctmgr, compared and written as an argument."""

    name: str
    inherited: bool = False  # an association shows its parent's value when it has none of its own

    def option(self, where: str, value: Any) -> Any:
        """The option as a canonical value (None: cleared)."""
        if self.name == "count":
            return _count(where, value)
        if self.name == "priority":
            return _count(where, value, minimum=0)
        if self.name == "text":
            return _text(where, value).lower()
        if self.name == "names":
            return _names(where, value, allow_empty=False)
        if self.name == "preempt":
            return _names(where, value, allow_empty=True)
        if self.name == "name":
            return _name(where, value)
        if self.name == "default_qos":
            return _CLEARED if value == "" else _name(where, value)
        if self.name == "tres":
            return tres(where, value)
        if self.name == "wall":
            return wall_minutes(where, value)
        if self.name == "share":
            if value == "parent":
                return "parent"
            if isinstance(value, str) and re.fullmatch(r"[0-9]{1,10}", value):
                value = int(value)
            return _count(where, value, minimum=0)
        if self.name == "flags":
            list_of(where, value, SlurmAccountError, "a list of QOS flags")
            for index, item in enumerate(value):
                if not isinstance(item, str) or not _FLAG.fullmatch(item):
                    raise SlurmAccountError("%s[%d]: %r is not allowed; expected a QOS flag such as DenyOnLimit or "
                                            "NoDecay" % (where, index, item))
            flags = [_FLAG_NAMES.get(item.lower(), item) for item in value]
            if len({flag.lower() for flag in flags}) != len(flags):
                raise SlurmAccountError("%s: %r lists a flag twice" % (where, list(value)))
            return frozenset(flags)
        if self.name == "preempt_mode":
            if not isinstance(value, str) or value.lower() not in PREEMPT_MODES:
                raise SlurmAccountError("%s: %r is not allowed; expected one of %s"
                                        % (where, value, ", ".join(PREEMPT_MODES)))
            return value.lower()
        if self.name == "admin":
            if not isinstance(value, str) or value.lower() not in ADMIN_LEVELS:
                raise SlurmAccountError("%s: %r is not allowed; expected one of %s"
                                        % (where, value, ", ".join(ADMIN_LEVELS)))
            return value.lower()
        raise AssertionError(self.name)  # pragma: no cover - the tables below name known kinds only

    def shown(self, where: str, text: str) -> Any:
        """What sacctmgr printed, as a canonical value."""
        try:
            if self.name in ("count", "priority"):
                return int(text) if text != "" else _CLEARED
            if self.name in ("text", "preempt_mode", "admin"):
                return text.lower()
            if self.name in ("names", "preempt"):
                return frozenset(part for part in text.split(",") if part)
            if self.name == "flags":
                return frozenset(_FLAG_NAMES.get(part.lower(), part) for part in text.split(",") if part)
            if self.name in ("name", "default_qos"):
                return text if text != "" else _CLEARED
            if self.name == "tres":
                return read_tres(text, where)
            if self.name == "wall":
                return None if text in ("", "UNLIMITED", "INFINITE") else wall_minutes(where, text)
            if self.name == "share":
                return "parent" if text == "parent" else (int(text) if text != "" else _CLEARED)
        except (ValueError, SlurmAccountError) as exc:
            raise SlurmAccountError("%s: sacctmgr printed %r, which does not read as %s: %s"
                                    % (where, text, self.name, exc)) from exc
        raise AssertionError(self.name)  # pragma: no cover

    def render(self, value: Any) -> str:
        """A canonical value as sacctmgr prints it (for the diff and the changes)."""
        if value is None:
            return ""
        if self.name in ("names", "preempt", "flags"):
            return ",".join(sorted(value))
        if self.name == "tres":
            return show_tres(value)
        if self.name == "wall":
            return show_wall(value)
        if self.name == "admin":
            return ADMIN_LEVELS[value]
        return str(value)

    def target(self, wanted: Any, shown: Any, inherited: Any) -> Any:
        """What sacctmgr will show once ``wanted`` is set: a TRES mapping merges, and a cleared value shows
        what the association inherits (``inherited``, its parent's value)."""
        if self.name == "tres":
            merged = dict(shown or {})
            for key, count in wanted.items():
                if count is None:
                    parent = (inherited or {}).get(key) if self.inherited else None
                    if parent is None:
                        merged.pop(key, None)
                    else:
                        merged[key] = parent
                else:
                    merged[key] = count
            return merged
        if wanted is None and self.inherited:
            return inherited
        return wanted

    def argument(self, wanted: Any, target: Any, shown: Any) -> str:
        """The value of KEY=VALUE that sets ``wanted``."""
        if self.name == "tres":
            parts = []
            for key in sorted(wanted):
                if wanted[key] is None:
                    if key in (shown or {}):
                        parts.append("%s=-1" % key)
                elif (shown or {}).get(key) != wanted[key]:
                    parts.append("%s=%d" % (key, wanted[key]))
            return ",".join(parts)
        if wanted is None:
            return "-1"
        if self.name in ("names", "preempt", "flags"):
            if self.name == "flags" and not wanted:
                return "-1"
            return ",".join(sorted(wanted))
        if self.name == "admin":
            return ADMIN_LEVELS[wanted]
        if self.name == "wall":
            return str(wanted)
        return str(wanted)


@dataclass(frozen=True)
class Field:
    """One managed field: its option, the column sacctmgr shows it in and the keyword that sets it."""

    option: str
    column: str
    keyword: str
    kind: Kind


_COUNT = Kind("count")
_ICOUNT = Kind("count", inherited=True)
QOS_FIELDS = (
    Field("description", "Description", "Description", Kind("text")),
    Field("priority", "Priority", "Priority", Kind("priority")),
    Field("preempt", "Preempt", "Preempt", Kind("preempt")),
    Field("preempt_mode", "PreemptMode", "PreemptMode", Kind("preempt_mode")),
    Field("flags", "Flags", "Flags", Kind("flags")),
    Field("max_jobs_per_user", "MaxJobsPU", "MaxJobsPerUser", _COUNT),
    Field("max_submit_jobs_per_user", "MaxSubmitPU", "MaxSubmitJobsPerUser", _COUNT),
    Field("max_tres_per_user", "MaxTRESPU", "MaxTRESPerUser", Kind("tres")),
    Field("max_tres_per_job", "MaxTRES", "MaxTRESPerJob", Kind("tres")),
    Field("max_wall", "MaxWall", "MaxWall", Kind("wall")),
    Field("grp_tres", "GrpTRES", "GrpTRES", Kind("tres")),
    Field("grp_jobs", "GrpJobs", "GrpJobs", _COUNT),
)
ACCOUNT_RECORD_FIELDS = (
    Field("description", "Descr", "Description", Kind("text")),
    Field("organization", "Org", "Organization", Kind("text")),
)
ASSOC_FIELDS = (
    Field("fairshare", "Share", "Fairshare", Kind("share")),
    Field("qos", "QOS", "QOS", Kind("names", inherited=True)),
    Field("default_qos", "DefaultQOS", "DefaultQOS", Kind("default_qos", inherited=True)),
    Field("max_jobs", "MaxJobs", "MaxJobs", _ICOUNT),
    Field("max_submit_jobs", "MaxSubmit", "MaxSubmitJobs", _ICOUNT),
    Field("max_tres_per_job", "MaxTRES", "MaxTRESPerJob", Kind("tres", inherited=True)),
    Field("grp_tres", "GrpTRES", "GrpTRES", Kind("tres")),
    Field("max_wall", "MaxWall", "MaxWall", Kind("wall", inherited=True)),
)
USER_RECORD_FIELDS = (
    Field("admin_level", "AdminLevel", "AdminLevel", Kind("admin")),
)

_STATES = ("present", "absent")
QOS_OPTIONS = ("name", "state") + tuple(f.option for f in QOS_FIELDS)
ACCOUNT_OPTIONS = ("name", "state", "parent") + tuple(f.option for f in ACCOUNT_RECORD_FIELDS + ASSOC_FIELDS)
USER_OPTIONS = ("name", "state", "default_account", "accounts") + tuple(
    f.option for f in USER_RECORD_FIELDS + ASSOC_FIELDS)


# --------------------------------------------------------------------------------------------------
# The options
# --------------------------------------------------------------------------------------------------
@dataclass
class Item:
    """One QOS, account or user of the policy: its name, state and the canonical values of the fields given."""

    name: str
    present: bool
    values: Dict[str, Any] = field(default_factory=dict)
    parent: str = "root"
    default_account: Optional[str] = None
    accounts: Optional[FrozenSet[str]] = None  # a user's whole list, when given


@dataclass
class Policy:
    cluster: str
    qos: List[Item]
    accounts: List[Item]
    users: List[Item]
    force: bool = False


def _items(where: str, value: Any, options: Sequence[str], fields: Sequence[Field]) -> List[Tuple[str, Mapping, Item]]:
    if value is None:
        return []
    list_of(where, value, SlurmAccountError, "a list of mappings")
    found = []
    seen: Set[str] = set()
    for index, entry in enumerate(value):
        here = "%s[%d]" % (where, index)
        input_rules.mapping(here, entry, SlurmAccountError, required=("name",), optional=options)
        name = _name(here + ".name", entry["name"])
        if name in seen:
            raise SlurmAccountError("%s.name: %r is listed twice in %s" % (here, name, where))
        seen.add(name)
        state = entry.get("state") or "present"
        if state not in _STATES:
            raise SlurmAccountError("%s.state: %r is not allowed; expected present or absent" % (here, state))
        item = Item(name, state == "present")
        for spec in fields:
            if entry.get(spec.option) is not None:
                item.values[spec.option] = spec.kind.option("%s.%s" % (here, spec.option), entry[spec.option])
        found.append((here, entry, item))
    return found


def policy(params: Mapping[str, Any]) -> Policy:
    """The module's options as a Policy; SlurmAccountError names the field, the value and what is allowed."""
    input_rules.mapping("options", params, SlurmAccountError, required=("cluster",))
    cluster = _name("cluster", params["cluster"])
    force = params.get("force")
    force = False if force is None else input_rules.boolean("force", force, SlurmAccountError)
    qos = [item for _w, _e, item in _items("qos", params.get("qos"), QOS_OPTIONS, QOS_FIELDS)]
    for item in qos:
        if item.name in item.values.get("preempt", ()):
            raise SlurmAccountError("qos %s: preempt lists the QOS itself" % item.name)
    accounts = []
    for here, entry, item in _items("accounts", params.get("accounts"), ACCOUNT_OPTIONS,
                                    ACCOUNT_RECORD_FIELDS + ASSOC_FIELDS):
        if entry.get("parent") is not None:
            item.parent = _name(here + ".parent", entry["parent"])
        if item.name == "root":
            raise SlurmAccountError("%s.name: 'root' is the tree's own root account; it is not managed here" % here)
        if item.parent == item.name:
            raise SlurmAccountError("%s.parent: account %r cannot be its own parent" % (here, item.name))
        accounts.append(item)
    users = []
    for here, entry, item in _items("users", params.get("users"), USER_OPTIONS, USER_RECORD_FIELDS + ASSOC_FIELDS):
        if entry.get("default_account") is not None:
            item.default_account = _name(here + ".default_account", entry["default_account"])
        if entry.get("accounts") is not None:
            item.accounts = _names(here + ".accounts", entry["accounts"], allow_empty=False)
        if item.present:
            if item.default_account is None:
                raise SlurmAccountError("%s.default_account is required for a user with state present" % here)
            if item.accounts is not None and item.default_account not in item.accounts:
                raise SlurmAccountError("%s.default_account: %r is not in accounts %s"
                                        % (here, item.default_account, sorted(item.accounts)))
        users.append(item)
    return Policy(cluster, qos, accounts, users, force)
