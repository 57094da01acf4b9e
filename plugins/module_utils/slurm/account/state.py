# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What sacctmgr shows of one cluster's accounting, parsed (and squeue's jobs that hold a removal).

* :func:`show_commands` gives the ``sacctmgr --noheader --parsable2 show ...`` argvs, :func:`read_state` parses
  their output (recorded from Slurm 22.05 under tests/fixtures/slurm-accounting) into a :class:`State`, every
  field the plan compares read with its :class:`~.policy.Kind` so that a row that does not read is refused here;
* :func:`squeue_command` and :func:`read_jobs`: the pending and running jobs, as :class:`Job`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Sequence, Set, Tuple

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import must_be
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.account.policy import (
    ASSOC_FIELDS, QOS_FIELDS, SlurmAccountError)

SACCTMGR = "sacctmgr"
SHOW = [SACCTMGR, "--noheader", "--parsable2", "show"]

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
        raise must_be(what, text, "sacctmgr's output as text", SlurmAccountError)
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
