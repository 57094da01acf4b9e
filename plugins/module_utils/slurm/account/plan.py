# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The sacctmgr commands that bring what sacctmgr shows (a State) to the policy (a Policy).

* :func:`plan` compares the two, field by field for the fields given only, and returns the changes and the
  ordered ``sacctmgr --immediate`` argvs (cluster; QOS created, then their fields; accounts parents first;
  users; then removals: user associations and users, accounts children first, QOS last), or the removals
  that are held (users, sub-accounts, running or pending jobs) when ``force`` is false;
* :func:`has_removals` says whether squeue needs reading first;
* :func:`command_failure` reads sacctmgr's answer to one command (it may exit 0 and say " Nothing new added.").
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Set, Tuple

from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.account.policy import (
    ACCOUNT_RECORD_FIELDS, ASSOC_FIELDS, QOS_FIELDS, USER_RECORD_FIELDS, Field, Item, Kind, Policy,
    SlurmAccountError)
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.account.state import SACCTMGR, Job, State

RUN = [SACCTMGR, "--immediate"]
#: How the lines of sacctmgr's refusals on stdout begin (22.05); the others go to stderr. It exits 1 with each,
#: but a line that says nothing was done is a failure whatever the exit status.
_REFUSED = ("Nothing new added", "Nothing modified", "Nothing deleted", "No associations", "Unknown option")


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
