# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Slurm's accounting policy (cluster, QOS, accounts, users) compared with what sacctmgr shows.

Pure functions for gpufleet.cluster.slurm_account, which only runs the commands:

* :func:`policy` validates the module's options (every name and value passes input_rules before it can reach
  an argv) into a :class:`Policy`;
* :func:`show_commands` gives the ``sacctmgr --noheader --parsable2 show ...`` argvs, :func:`read_state` parses
  their output (recorded from Slurm 22.05 under tests/fixtures/slurm-accounting) into a :class:`State`;
* :func:`plan` compares the two, field by field for the fields given only, and returns the changes and the
  ordered ``sacctmgr --immediate`` argvs (cluster; QOS created, then their fields; accounts parents first;
  users; then removals: user associations and users, accounts children first, QOS last), or the removals
  that are held (users, sub-accounts, running or pending jobs) when ``force`` is false;
* :func:`command_failure` reads sacctmgr's answer to one command (it may exit 0 and say " Nothing new added.").

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

SACCTMGR = "sacctmgr"
SHOW = [SACCTMGR, "--noheader", "--parsable2", "show"]
RUN = [SACCTMGR, "--immediate"]

#: The columns read from each show (format=...), in order.
CLUSTER_COLUMNS = ("Cluster",)
QOS_COLUMNS = ("Name", "Description", "Priority", "Preempt", "PreemptMode", "Flags", "MaxJobsPU", "MaxSubmitPU",
               "MaxTRESPU", "MaxTRES", "MaxWall", "GrpTRES", "GrpJobs")
ACCOUNT_COLUMNS = ("Account", "Descr", "Org")
USER_COLUMNS = ("User", "DefaultAccount", "AdminLevel")
ASSOC_COLUMNS = ("Account", "User", "Partition", "ParentName", "Share", "QOS", "DefaultQOS", "MaxJobs", "MaxSubmit",
                 "MaxTRES", "GrpTRES", "MaxWall")
#: squeue's view of the jobs that hold a removal: --noheader --all --format=SQUEUE_FORMAT
SQUEUE_FORMAT = "%i|%u|%a|%q|%T"

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
#: How the lines of sacctmgr's refusals on stdout begin (22.05); the others go to stderr. It exits 1 with each,
#: but a line that says nothing was done is a failure whatever the exit status.
_REFUSED = ("Nothing new added", "Nothing modified", "Nothing deleted", "No associations", "Unknown option")
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
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise SlurmAccountError("%s must be a list of names, got %r of type %s"
                                % (where, value, type(value).__name__))
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
        raise SlurmAccountError("%s: %r is not allowed; expected text with no leading or trailing blank" % (where, text))
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
        raise SlurmAccountError("%s must be minutes (a whole number) or a Slurm time string such as '2-00:00:00', got "
                                "%r of type %s" % (where, value, type(value).__name__))
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
            if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
                raise SlurmAccountError("%s must be a list of QOS flags, got %r of type %s"
                                        % (where, value, type(value).__name__))
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
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise SlurmAccountError("%s must be a list of mappings, got %r of type %s" % (where, value, type(value).__name__))
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


# --------------------------------------------------------------------------------------------------
# What sacctmgr shows
# --------------------------------------------------------------------------------------------------
def show_commands(cluster: str) -> Dict[str, List[str]]:
    """The argv of each show the plan reads, by name (cluster, qos, account, user, assoc)."""
    return {
        "cluster": SHOW + ["cluster", "format=" + ",".join(CLUSTER_COLUMNS)],
        "qos": SHOW + ["qos", "format=" + ",".join(QOS_COLUMNS)],
        "account": SHOW + ["account", "format=" + ",".join(ACCOUNT_COLUMNS)],
        "user": SHOW + ["user", "where", "cluster=" + cluster, "format=" + ",".join(USER_COLUMNS)],
        "assoc": SHOW + ["assoc", "where", "cluster=" + cluster, "format=" + ",".join(ASSOC_COLUMNS)],
    }


def parse_rows(text: str, columns: Sequence[str], what: str) -> List[Dict[str, str]]:
    """sacctmgr --noheader --parsable2 output: one row per line, fields split on '|' (none after the last)."""
    if not isinstance(text, str):
        raise SlurmAccountError("%s: expected sacctmgr's output as text, got %s" % (what, type(text).__name__))
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split("|")
        if len(parts) != len(columns):
            raise SlurmAccountError("%s: line %d %r has %d fields, expected %d (%s): not sacctmgr --parsable2 "
                                    "output of format=%s" % (what, number, line, len(parts), len(columns),
                                                             ",".join(columns), ",".join(columns)))
        rows.append(dict(zip(columns, parts)))
    return rows


@dataclass
class State:
    """What sacctmgr showed for one cluster."""

    cluster: str
    clusters: Set[str] = field(default_factory=set)
    qos: Dict[str, Dict[str, str]] = field(default_factory=dict)
    accounts: Dict[str, Dict[str, str]] = field(default_factory=dict)  # account records (all clusters)
    users: Dict[str, Dict[str, str]] = field(default_factory=dict)  # user records with an association here
    account_assocs: Dict[str, Dict[str, str]] = field(default_factory=dict)  # account -> its association row
    user_assocs: Dict[Tuple[str, str], Dict[str, str]] = field(default_factory=dict)  # (user, account) -> row
    partition_assocs: List[Dict[str, str]] = field(default_factory=list)  # rows with a partition (not managed)

    @property
    def present(self) -> bool:
        return self.cluster in self.clusters

    def children(self, account: str) -> List[str]:
        return sorted(a for a, row in self.account_assocs.items() if row["ParentName"] == account)

    def users_of(self, account: str) -> List[str]:
        found = {u for (u, a) in self.user_assocs if a == account}
        found.update(row["User"] for row in self.partition_assocs if row["Account"] == account and row["User"])
        return sorted(found)

    def depth(self, account: str) -> int:
        seen = 0
        while self.account_assocs.get(account, {}).get("ParentName") and seen <= len(self.account_assocs):
            account = self.account_assocs[account]["ParentName"]
            seen += 1
        return seen


def read_state(cluster: str, outputs: Mapping[str, str]) -> State:
    """The outputs of show_commands(cluster) (by the same names; a show not run may be left out) as a State."""
    state = State(cluster)
    state.clusters = {row["Cluster"] for row in parse_rows(outputs.get("cluster", ""), CLUSTER_COLUMNS, "show cluster")}
    state.qos = {row["Name"]: row for row in parse_rows(outputs.get("qos", ""), QOS_COLUMNS, "show qos")}
    account_rows = parse_rows(outputs.get("account", ""), ACCOUNT_COLUMNS, "show account")
    state.accounts = {row["Account"]: row for row in account_rows}
    state.users = {row["User"]: row for row in parse_rows(outputs.get("user", ""), USER_COLUMNS, "show user")}
    for row in parse_rows(outputs.get("assoc", ""), ASSOC_COLUMNS, "show assoc"):
        if row["Partition"]:
            state.partition_assocs.append(row)
        elif row["User"]:
            state.user_assocs[(row["User"], row["Account"])] = row
        else:
            state.account_assocs[row["Account"]] = row
    # every field the plan compares must read; a row that does not is refused here, not half-way through a run
    for name, row in state.qos.items():
        for spec in QOS_FIELDS:
            spec.kind.shown("show qos %s %s" % (name, spec.column), row[spec.column])
    for rows in (state.account_assocs.values(), state.user_assocs.values()):
        for row in rows:
            for spec in ASSOC_FIELDS:
                spec.kind.shown("show assoc %s %s" % (row["Account"], spec.column), row[spec.column])
    return state


@dataclass(frozen=True)
class Job:
    job_id: str
    user: str
    account: str
    qos: str
    state: str


def read_jobs(text: str) -> List[Job]:
    """squeue --noheader --all --format='%i|%u|%a|%q|%T' output (pending and running jobs)."""
    rows = parse_rows(text, ("JobId", "User", "Account", "QOS", "State"), "squeue")
    return [Job(r["JobId"], r["User"], r["Account"], r["QOS"], r["State"]) for r in rows]


def squeue_command() -> List[str]:
    return ["squeue", "--noheader", "--all", "--format=" + SQUEUE_FORMAT]


# --------------------------------------------------------------------------------------------------
# The plan
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Change:
    object: str
    field: str
    before: str
    after: str

    def as_dict(self) -> Dict[str, str]:
        return {"object": self.object, "field": self.field, "before": self.before, "after": self.after}


@dataclass
class Plan:
    changes: List[Change] = field(default_factory=list)
    commands: List[List[str]] = field(default_factory=list)
    held: List[str] = field(default_factory=list)  # removals refused (force false): what holds each

    @property
    def changed(self) -> bool:
        return bool(self.commands)

    def diff(self) -> Dict[str, str]:
        """before/after text, one line per changed field: 'qos normal: MaxJobsPerUser = 2'."""
        def text(side: str) -> str:
            lines = ["%s: %s = %s" % (c.object, c.field, getattr(c, side) or "(unset)") for c in self.changes]
            return "".join(line + "\n" for line in lines)
        return {"before": text("before"), "after": text("after")}


def has_removals(pol: Policy, state: State) -> bool:
    """Whether the plan removes anything (then squeue is read to see which jobs hold a removal)."""
    return any(_removals(pol, state).values())


def _removals(pol: Policy, state: State) -> Dict[str, List]:
    assocs = []
    for user in pol.users:
        if user.present and user.accounts is not None:
            assocs.extend((user.name, a) for (u, a) in sorted(state.user_assocs) if u == user.name
                          and a not in user.accounts)
    users = [u.name for u in pol.users if not u.present and any(k[0] == u.name for k in state.user_assocs)]
    accounts = [a.name for a in pol.accounts if not a.present and a.name in state.account_assocs]
    accounts.sort(key=lambda name: (-state.depth(name), name))
    qos = [q.name for q in pol.qos if not q.present and q.name in state.qos]
    return {"assocs": assocs, "users": users, "accounts": accounts, "qos": qos}


def _fields(obj: str, fields: Sequence[Field], wanted: Mapping[str, Any], row: Optional[Mapping[str, str]],
            parent_row: Optional[Mapping[str, Any]], changes: List[Change]) -> Tuple[List[str], Dict[str, Any]]:
    """Compare the given fields with a shown row (None: a new object); returns the KEY=VALUE arguments and the
    canonical values the object shows afterwards (for its children's inheritance)."""
    args = []
    after: Dict[str, Any] = {}
    for spec in fields:
        shown = spec.kind.shown("%s %s" % (obj, spec.column), row[spec.column]) if row is not None else None
        after[spec.option] = shown
        if spec.option not in wanted:
            continue
        inherited = (parent_row or {}).get(spec.option)
        target = spec.kind.target(wanted[spec.option], shown, inherited)
        after[spec.option] = target
        if row is not None and _same(spec.kind, shown, target):
            continue
        if row is None and (target is None or target == {} or (wanted[spec.option] is None)):
            continue  # a new object has nothing to clear
        argument = spec.kind.argument(wanted[spec.option], target, shown)
        if spec.kind.name == "tres" and not argument:
            continue
        args.append("%s=%s" % (spec.keyword, argument))
        changes.append(Change(obj, spec.keyword, spec.kind.render(shown) if row is not None else "",
                              spec.kind.render(target)))
    return args, after


def _same(kind: Kind, shown: Any, target: Any) -> bool:
    if kind.name == "tres":
        return dict(shown or {}) == dict(target or {})
    return shown == target


def _parents_first(accounts: List[Item]) -> List[Item]:
    by_name = {a.name: a for a in accounts}
    done: List[Item] = []
    placed: Set[str] = set()

    def place(item: Item, trail: Tuple[str, ...]) -> None:
        if item.name in placed:
            return
        if item.name in trail:
            raise SlurmAccountError("accounts: the parents of %s make a loop" % " -> ".join(trail + (item.name,)))
        parent = by_name.get(item.parent)
        if parent is not None and parent.present:
            place(parent, trail + (item.name,))
        placed.add(item.name)
        done.append(item)
    for item in accounts:
        if item.present:
            place(item, ())
    return done


def plan(pol: Policy, state: State, jobs: Optional[Sequence[Job]] = None, jobs_unread: str = "") -> Plan:
    """The changes and ordered sacctmgr argvs that bring ``state`` to ``pol``; ``jobs`` are squeue's pending and
    running jobs (None with ``jobs_unread`` saying why when squeue could not be read)."""
    result = Plan()
    changes = result.changes
    cluster = pol.cluster
    removed = _removals(pol, state)
    removed_accounts = set(removed["accounts"])
    removed_qos = set(removed["qos"])
    removed_assocs = set(removed["assocs"])
    removed_users = set(removed["users"])

    # what exists once the run is done, for the references between objects
    qos_after = (set(state.qos) - removed_qos) | {q.name for q in pol.qos if q.present}
    accounts_after = (set(state.account_assocs) - removed_accounts) | {a.name for a in pol.accounts if a.present}
    for item in pol.qos:
        for other in sorted(item.values.get("preempt", ())):
            if other not in qos_after:
                raise SlurmAccountError("qos %s: preempt names QOS %r, which is neither in qos nor in the database"
                                        % (item.name, other))
    for group, items in (("accounts", pol.accounts), ("users", pol.users)):
        for item in items:
            if not item.present:
                continue
            names = set(item.values.get("qos", ())) | ({item.values["default_qos"]}
                                                       if item.values.get("default_qos") else set())
            for other in sorted(names - qos_after):
                raise SlurmAccountError("%s %s: QOS %r is neither in qos nor in the database" % (
                    group[:-1], item.name, other))
    for item in pol.accounts:
        if item.present and item.parent not in accounts_after and item.parent != "root":
            raise SlurmAccountError("account %s: parent %r is neither in accounts (present) nor in the database"
                                    % (item.name, item.parent))
    for item in pol.users:
        if item.present:
            for account in sorted((item.accounts or frozenset()) | {item.default_account}):
                if account not in accounts_after:
                    raise SlurmAccountError("user %s: account %r is neither in accounts (present) nor in the "
                                            "database" % (item.name, account))

    if not state.present:
        changes.append(Change("cluster %s" % cluster, "state", "absent", "present"))
        result.commands.append(RUN + ["add", "cluster", cluster])

    # QOS: created first (a preempt list may name a QOS created in the same run), then their fields
    modify_qos = []
    for item in pol.qos:
        if not item.present:
            continue
        obj = "qos %s" % item.name
        row = state.qos.get(item.name)
        if row is None:
            changes.append(Change(obj, "state", "absent", "present"))
            result.commands.append(RUN + ["add", "qos", item.name])
        args, _after = _fields(obj, QOS_FIELDS, item.values, row, None, changes)
        if args:
            modify_qos.append(RUN + ["modify", "qos", "where", "name=" + item.name, "set"] + args)
    result.commands.extend(modify_qos)

    # accounts, parents first; each one's values after the run, for what its children inherit
    after_assoc: Dict[str, Dict[str, Any]] = {}

    def assoc_after(account: str) -> Optional[Dict[str, Any]]:
        if account not in after_assoc and account in state.account_assocs:
            row = state.account_assocs[account]
            after_assoc[account] = {s.option: s.kind.shown("show assoc %s %s" % (account, s.column), row[s.column])
                                    for s in ASSOC_FIELDS}
        return after_assoc.get(account)

    for item in _parents_first(pol.accounts):
        obj = "account %s" % item.name
        row = state.account_assocs.get(item.name)
        record = state.accounts.get(item.name)  # the record outlives its associations: it may be there without one
        parent_after = assoc_after(item.parent)
        rec_changes: List[Change] = []
        rec_args, _rec = _fields(obj, ACCOUNT_RECORD_FIELDS, item.values, record, None, rec_changes)
        if row is None:
            changes.append(Change(obj, "state", "absent", "present"))
            changes.append(Change(obj, "Parent", "", item.parent))
            changes.extend(rec_changes)
            assoc_args, after_assoc[item.name] = _fields(obj, ASSOC_FIELDS, item.values, None, parent_after, changes)
            _fill_inherited(after_assoc[item.name], parent_after)
            # sacctmgr's add leaves an existing record's description and organization as they are
            result.commands.append(RUN + ["add", "account", item.name, "cluster=" + cluster, "Parent=" + item.parent]
                                   + (rec_args if record is None else []) + assoc_args)
            if record is not None and rec_args:
                result.commands.append(RUN + ["modify", "account", "where", "name=" + item.name, "set"] + rec_args)
            continue
        if row["ParentName"] != item.parent:
            changes.append(Change(obj, "Parent", row["ParentName"], item.parent))
            result.commands.append(RUN + ["modify", "account", "where", "name=" + item.name, "cluster=" + cluster,
                                          "set", "Parent=" + item.parent])
        changes.extend(rec_changes)
        if rec_args:
            result.commands.append(RUN + ["modify", "account", "where", "name=" + item.name, "set"] + rec_args)
        assoc_args, after_assoc[item.name] = _fields(obj, ASSOC_FIELDS, item.values, row, parent_after, changes)
        if assoc_args:
            result.commands.append(RUN + ["modify", "account", "where", "name=" + item.name, "cluster=" + cluster,
                                          "set"] + assoc_args)

    # users: their associations (added, then their fields), default account, admin level
    for item in pol.users:
        if not item.present:
            continue
        obj = "user %s" % item.name
        record = state.users.get(item.name)
        have = sorted(a for (u, a) in state.user_assocs if u == item.name)
        wanted = sorted(item.accounts if item.accounts is not None else {item.default_account})
        missing = [a for a in wanted if a not in have]
        assoc_values = {k: v for k, v in item.values.items() if k in {s.option for s in ASSOC_FIELDS}}
        if missing:
            if not have:
                changes.append(Change(obj, "state", "absent", "present"))
            new_args: List[str] = []  # the same for each new association: the values given
            for account in missing:
                changes.append(Change("%s account %s" % (obj, account), "state", "absent", "present"))
                new_args, _after = _fields("%s account %s" % (obj, account), ASSOC_FIELDS, assoc_values, None,
                                           assoc_after(account), changes)
            command = RUN + ["add", "user", item.name, "cluster=" + cluster, "Account=" + ",".join(missing)]
            if not have:
                changes.append(Change(obj, "DefaultAccount", "", item.default_account))
                rec_args, _rec = _fields(obj, USER_RECORD_FIELDS, item.values, None, None, changes)
                command += ["DefaultAccount=" + item.default_account] + rec_args
            result.commands.append(command + new_args)
            if not have:
                continue
        for account in have:
            if account not in wanted and item.accounts is not None:
                continue  # removed below
            args, _after = _fields("%s account %s" % (obj, account), ASSOC_FIELDS, assoc_values,
                                   state.user_assocs[(item.name, account)], assoc_after(account), changes)
            if args:
                result.commands.append(RUN + ["modify", "user", "where", "name=" + item.name, "account=" + account,
                                              "cluster=" + cluster, "set"] + args)
        if record is not None and record["DefaultAccount"] != item.default_account:
            changes.append(Change(obj, "DefaultAccount", record["DefaultAccount"], item.default_account))
            result.commands.append(RUN + ["modify", "user", "where", "name=" + item.name, "cluster=" + cluster,
                                          "set", "DefaultAccount=" + item.default_account])
        record_args, _rec = _fields(obj, USER_RECORD_FIELDS, item.values, record, None, changes) if record else ([], {})
        if record_args:
            result.commands.append(RUN + ["modify", "user", "where", "name=" + item.name, "set"] + record_args)

    # removals: user associations and users, accounts children first, QOS last; each checked for what holds it
    def holds(what: str, users: Sequence[str] = (), children: Sequence[str] = (),
              held_by: Sequence[Job] = ()) -> None:
        reasons = []
        if children:
            reasons.append("sub-accounts %s" % ", ".join(children))
        if users:
            reasons.append("users %s" % ", ".join(users))
        if held_by:
            reasons.append("running or pending jobs %s" % ", ".join(
                "%s (%s)" % (j.job_id, j.state) for j in held_by))
        if jobs is None:
            reasons.append("jobs that could not be checked (%s)" % (jobs_unread or "squeue was not read"))
        if reasons and not pol.force:
            result.held.append("removing %s: it has %s (force: true removes it anyway)" % (what, "; ".join(reasons)))

    all_jobs = list(jobs or ())
    for user, account in removed["assocs"]:
        holds("user %s's association with account %s" % (user, account),
              held_by=[j for j in all_jobs if j.user == user and j.account == account])
        changes.append(Change("user %s account %s" % (user, account), "state", "present", "absent"))
        result.commands.append(RUN + ["delete", "user", "where", "name=" + user, "account=" + account,
                                      "cluster=" + cluster])
    for user in removed["users"]:
        holds("user %s" % user, held_by=[j for j in all_jobs if j.user == user])
        changes.append(Change("user %s" % user, "state", "present", "absent"))
        result.commands.append(RUN + ["delete", "user", "where", "name=" + user, "cluster=" + cluster])
    for account in removed["accounts"]:
        users = [u for u in state.users_of(account) if u not in removed_users and (u, account) not in removed_assocs]
        children = [c for c in state.children(account) if c not in removed_accounts]
        holds("account %s" % account, users=users, children=children,
              held_by=[j for j in all_jobs if j.account == account])
        changes.append(Change("account %s" % account, "state", "present", "absent"))
        result.commands.append(RUN + ["delete", "account", "where", "name=" + account, "cluster=" + cluster])
    for name in removed["qos"]:
        holds("qos %s" % name, held_by=[j for j in all_jobs if j.qos == name])
        changes.append(Change("qos %s" % name, "state", "present", "absent"))
        result.commands.append(RUN + ["delete", "qos", "where", "name=" + name])
    return result


def _fill_inherited(after: Dict[str, Any], parent_after: Optional[Mapping[str, Any]]) -> None:
    """A new account shows its parent's inherited values where it has none of its own."""
    for spec in ASSOC_FIELDS:
        if spec.kind.inherited and after.get(spec.option) in (None, {}, frozenset()) and parent_after:
            after[spec.option] = parent_after.get(spec.option)


def command_failure(argv: Sequence[str], rc: int, out: str, err: str) -> Optional[str]:
    """None when sacctmgr did what ``argv`` asked; otherwise the message for fail_json: the command and
    sacctmgr's own words (it exits 1 with ' Nothing new added.', and may print errors on either stream)."""
    said = " ".join(line.strip() for line in (out + "\n" + err).splitlines() if line.strip())
    refused = any(line.strip().startswith(_REFUSED) for line in out.splitlines())
    if rc == 0 and not err.strip() and not refused:
        return None
    return "%s failed (exit %s): %s" % (" ".join(argv), rc, said or "sacctmgr printed nothing")
