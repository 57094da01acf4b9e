# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""slurm/account/state: sacctmgr's shows and squeue's jobs parsed, against Slurm 22.05 recorded in the lab."""
from __future__ import annotations

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.account.policy import (
    QOS_FIELDS,
    SlurmAccountError,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.account.state import (
    ACCOUNT_COLUMNS,
    ASSOC_COLUMNS,
    Job,
    parse_rows,
    read_jobs,
    read_state,
    show_commands,
)
from slurm_accounting import recorded, state


# ----------------------------------------------------------------------------------------------- parsing
def test_defaults_read_as_a_fresh_database():
    got = state("defaults")
    assert got.present and got.clusters == {"lab"}
    assert list(got.qos) == ["normal"] and got.qos["normal"]["Description"] == "Normal QOS default"
    assert got.qos["normal"]["PreemptMode"] == "cluster" and got.qos["normal"]["MaxJobsPU"] == ""
    assert got.accounts["root"] == {"Account": "root", "Descr": "default root account", "Org": "root"}
    assert got.users["root"]["AdminLevel"] == "Administrator"
    assert list(got.account_assocs) == ["root"] and list(got.user_assocs) == [("root", "root")]
    assert got.account_assocs["root"]["ParentName"] == ""


def test_policy_reads_limits_tres_time_preempt_and_flags():
    got = state("policy")
    row = got.qos["high"]
    values = {spec.option: spec.kind.shown(spec.column, row[spec.column]) for spec in QOS_FIELDS}
    assert values == {
        "description": "high priority, preempts normal", "priority": 100, "preempt": frozenset({"normal"}),
        "preempt_mode": "requeue", "flags": frozenset({"DenyOnLimit", "NoDecay"}), "max_jobs_per_user": None,
        "max_submit_jobs_per_user": 20, "max_tres_per_user": {"cpu": 128, "gres/gpu": 16, "mem": 65536},
        "max_tres_per_job": {"gres/gpu": 8}, "max_wall": 2880, "grp_tres": {"gres/gpu": 64, "mem": 1048576},
        "grp_jobs": 10}
    assert got.account_assocs["hpc"]["Share"] == "parent"
    assert got.account_assocs["ml"]["ParentName"] == "research"
    assert sorted(got.user_assocs) == [("alice", "ml"), ("bob", "hpc"), ("bob", "ml"), ("root", "root")]
    assert got.users["bob"] == {"User": "bob", "DefaultAccount": "hpc", "AdminLevel": "Operator"}
    assert got.children("research") == ["hpc", "ml"] and got.users_of("ml") == ["alice", "bob"]
    assert got.depth("ml") == 2 and got.depth("research") == 1 and got.depth("root") == 0
    # a user's association shows what it inherits from its account (MaxJobs 4, MaxWall), not GrpTRES
    assert got.user_assocs[("alice", "ml")]["MaxJobs"] == "4" and got.user_assocs[("alice", "ml")]["GrpTRES"] == ""


def test_rows_with_the_wrong_field_count_are_refused():
    with pytest.raises(SlurmAccountError, match="has 2 fields, expected 3"):
        parse_rows("root|x\n", ACCOUNT_COLUMNS, "show account")
    with pytest.raises(SlurmAccountError, match="does not read as"):
        read_state("lab", {"qos": "|".join(["normal", "d", "high"] + [""] * 10) + "\n"})
    with pytest.raises(SlurmAccountError) as err:
        parse_rows(b"root|x|y\n", ACCOUNT_COLUMNS, "show account")
    assert str(err.value) == "show account must be sacctmgr's output as text, got b'root|x|y\\n' of type bytes"


def test_squeue_jobs_recorded():
    jobs = read_jobs(recorded("jobs.squeue.txt"))
    assert jobs == [Job("2", "root", "ml", "normal", "PENDING"), Job("1", "root", "ml", "normal", "RUNNING")]


def test_show_commands():
    shows = show_commands("lab")
    assert shows["assoc"] == ["sacctmgr", "--noheader", "--parsable2", "show", "assoc", "where", "cluster=lab",
                              "format=" + ",".join(ASSOC_COLUMNS)]
    assert shows["qos"][-1] == "format=Name,Description,Priority,Preempt,PreemptMode,Flags,MaxJobsPU,MaxSubmitPU," \
                               "MaxTRESPU,MaxTRES,MaxWall,GrpTRES,GrpJobs"
