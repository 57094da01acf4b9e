# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""slurm_account's parsing (against sacctmgr 22.05 recorded in the lab), comparison and command plan."""
from __future__ import annotations

import copy
import os
import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.account import policy as sa
from nasty_input import hostile_numbers, hostile_text, near_valid

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(os.path.dirname(os.path.dirname(__file__)))))))), "tests", "fixtures", "slurm-accounting")
SHOWS = ("cluster", "qos", "account", "user", "assoc")


def recorded(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as handle:
        return handle.read()


def state(name, cluster="lab"):
    """The state recorded as NAME.show-*.txt (defaults, policy, cleared, removed)."""
    return sa.read_state(cluster, {show: recorded("%s.show-%s.txt" % (name, show)) for show in SHOWS})


#: The policy the recordings were made with (tests/integration/slurm_account/record_fixtures.sh, "policy").
POLICY = {
    "cluster": "lab",
    "qos": [
        {"name": "normal", "max_jobs_per_user": 2},
        {"name": "high", "priority": 100, "preempt": ["normal"], "preempt_mode": "requeue",
         "flags": ["DenyOnLimit", "NoDecay"], "max_submit_jobs_per_user": 20,
         "max_tres_per_user": {"gres/gpu": 16, "cpu": 128, "mem": 65536}, "max_tres_per_job": {"gres/gpu": 8},
         "max_wall": "2-00:00:00", "grp_tres": {"gres/gpu": 64, "mem": 1048576}, "grp_jobs": 10,
         "description": "High priority, preempts normal"},
    ],
    "accounts": [
        {"name": "research", "description": "Research Dept", "organization": "ACME Labs"},
        {"name": "ml", "parent": "research", "fairshare": 10, "max_jobs": 4, "max_submit_jobs": 8,
         "max_tres_per_job": {"gres/gpu": 8}, "grp_tres": {"gres/gpu": 32}, "max_wall": "12:00:00",
         "qos": ["normal", "high"], "default_qos": "normal"},
        {"name": "hpc", "parent": "research", "fairshare": "parent"},
    ],
    "users": [
        {"name": "alice", "default_account": "ml"},
        {"name": "bob", "default_account": "hpc", "accounts": ["hpc", "ml"], "admin_level": "operator", "max_jobs": 3},
    ],
}
I = ["sacctmgr", "--immediate"]


def plan_of(params, name, jobs=(), **kw):
    return sa.plan(sa.policy(params), state(name), list(jobs) if jobs is not None else None, **kw)


def with_(**changes):
    params = copy.deepcopy(POLICY)
    params.update(changes)
    return params


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
    values = {spec.option: spec.kind.shown(spec.column, row[spec.column]) for spec in sa.QOS_FIELDS}
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


def test_tres_and_time_as_sacctmgr_prints_them():
    assert sa.read_tres("cpu=128,gres/gpu=16,mem=64G") == {"cpu": 128, "gres/gpu": 16, "mem": 65536}
    assert sa.read_tres("gres/gpu=64,mem=1T") == {"gres/gpu": 64, "mem": 1048576}
    assert sa.read_tres("mem=2048K,gres/gpu:a100=4") == {"mem": 2, "gres/gpu:a100": 4}
    assert sa.read_tres("") == {}
    assert sa.show_tres({"mem": 65536, "gres/gpu": 16, "cpu": 128}) == "cpu=128,gres/gpu=16,mem=64G"
    assert sa.show_tres({"mem": 1500}) == "mem=1500M" and sa.show_tres({"mem": 1048576}) == "mem=1T"
    for text in ("cpu=128,gres/gpu=16,mem=64G", "gres/gpu=64,mem=1T", "gres/gpu=8"):
        assert sa.show_tres(sa.read_tres(text)) == text
    for bad in ("cpu", "cpu=x", "cpu=1,", "CPU=1", "mem=1Q"):
        with pytest.raises(sa.SlurmAccountError):
            sa.read_tres(bad)


@pytest.mark.parametrize("text, minutes", [
    ("2-00:00:00", 2880), ("12:00:00", 720), ("90", 90), ("1:30", 2), ("1:00", 1), ("1-12", 2160),
    ("1-12:30", 2190), ("0-00:00:01", 1), ("00:59:59", 60), (45, 45), (-1, None), ("-1", None), (0, 0)])
def test_wall_minutes(text, minutes):
    assert sa.wall_minutes("max_wall", text) == minutes


@pytest.mark.parametrize("bad", ["soon", "1-24:00:00", "1:60", "10:61:00", "2-", "", " 90", "90\n", "1.5", True,
                                 1.5, None, -2, ["1"], "99999999999"])
def test_wall_minutes_refused(bad):
    with pytest.raises(sa.SlurmAccountError) as err:
        sa.wall_minutes("qos[0].max_wall", bad)
    assert "qos[0].max_wall" in str(err.value)


def test_show_wall_prints_as_sacctmgr():
    assert [sa.show_wall(m) for m in (2880, 720, 1, 2190, None)] == [
        "2-00:00:00", "12:00:00", "00:01:00", "1-12:30:00", ""]


def test_rows_with_the_wrong_field_count_are_refused():
    with pytest.raises(sa.SlurmAccountError, match="has 2 fields, expected 3"):
        sa.parse_rows("root|x\n", sa.ACCOUNT_COLUMNS, "show account")
    with pytest.raises(sa.SlurmAccountError, match="does not read as"):
        sa.read_state("lab", {"qos": "|".join(["normal", "d", "high"] + [""] * 10) + "\n"})


def test_squeue_jobs_recorded():
    jobs = sa.read_jobs(recorded("jobs.squeue.txt"))
    assert jobs == [sa.Job("2", "root", "ml", "normal", "PENDING"), sa.Job("1", "root", "ml", "normal", "RUNNING")]


def test_show_commands():
    shows = sa.show_commands("lab")
    assert shows["assoc"] == ["sacctmgr", "--noheader", "--parsable2", "show", "assoc", "where", "cluster=lab",
                              "format=" + ",".join(sa.ASSOC_COLUMNS)]
    assert shows["qos"][-1] == "format=Name,Description,Priority,Preempt,PreemptMode,Flags,MaxJobsPU,MaxSubmitPU," \
                               "MaxTRESPU,MaxTRES,MaxWall,GrpTRES,GrpJobs"


# ----------------------------------------------------------------------------------------------- the plan
def test_fresh_database_gets_the_whole_policy_in_order():
    got = plan_of(POLICY, "defaults")
    assert got.commands == [
        I + ["add", "qos", "high"],
        I + ["modify", "qos", "where", "name=normal", "set", "MaxJobsPerUser=2"],
        I + ["modify", "qos", "where", "name=high", "set", "Description=high priority, preempts normal",
             "Priority=100", "Preempt=normal", "PreemptMode=requeue", "Flags=DenyOnLimit,NoDecay",
             "MaxSubmitJobsPerUser=20", "MaxTRESPerUser=cpu=128,gres/gpu=16,mem=65536", "MaxTRESPerJob=gres/gpu=8",
             "MaxWall=2880", "GrpTRES=gres/gpu=64,mem=1048576", "GrpJobs=10"],
        I + ["add", "account", "research", "cluster=lab", "Parent=root", "Description=research dept",
             "Organization=acme labs"],
        I + ["add", "account", "ml", "cluster=lab", "Parent=research", "Fairshare=10", "QOS=high,normal",
             "DefaultQOS=normal", "MaxJobs=4", "MaxSubmitJobs=8", "MaxTRESPerJob=gres/gpu=8", "GrpTRES=gres/gpu=32",
             "MaxWall=720"],
        I + ["add", "account", "hpc", "cluster=lab", "Parent=research", "Fairshare=parent"],
        I + ["add", "user", "alice", "cluster=lab", "Account=ml", "DefaultAccount=ml"],
        I + ["add", "user", "bob", "cluster=lab", "Account=hpc,ml", "DefaultAccount=hpc", "AdminLevel=Operator",
             "MaxJobs=3"],
    ]
    assert not got.held
    lines = got.diff()["after"].splitlines()
    assert lines[0] == "qos normal: MaxJobsPerUser = 2" and "qos high: MaxTRESPerUser = cpu=128,gres/gpu=16,mem=64G" \
        in lines and "qos high: MaxWall = 2-00:00:00" in lines and "user bob: AdminLevel = Operator" in lines
    assert got.diff()["before"].splitlines()[0] == "qos normal: MaxJobsPerUser = (unset)"
    assert got.changes[0].as_dict() == {"object": "qos normal", "field": "MaxJobsPerUser", "before": "", "after": "2"}


def test_rerun_on_what_those_commands_made_changes_nothing():
    got = plan_of(POLICY, "policy")
    assert got.commands == [] and got.changes == [] and not got.changed
    assert got.diff() == {"before": "", "after": ""}


def test_cleared_limits_are_set_again_field_by_field():
    got = plan_of(POLICY, "cleared")
    assert got.commands == [
        I + ["modify", "qos", "where", "name=normal", "set", "MaxJobsPerUser=2"],
        I + ["modify", "qos", "where", "name=high", "set", "Preempt=normal", "Flags=DenyOnLimit,NoDecay",
             "MaxTRESPerUser=gres/gpu=16", "MaxWall=2880", "GrpJobs=10"],
        I + ["modify", "account", "where", "name=ml", "cluster=lab", "set", "DefaultQOS=normal", "MaxJobs=4",
             "MaxTRESPerJob=gres/gpu=8"],
        I + ["modify", "user", "where", "name=bob", "account=hpc", "cluster=lab", "set", "MaxJobs=3"],
        I + ["modify", "user", "where", "name=bob", "account=ml", "cluster=lab", "set", "MaxJobs=3"],
        I + ["modify", "user", "where", "name=bob", "cluster=lab", "set", "DefaultAccount=hpc"],
        I + ["modify", "user", "where", "name=bob", "set", "AdminLevel=Operator"],
    ]
    tres = [c for c in got.changes if c.field == "MaxTRESPerUser"]
    assert [c.as_dict() for c in tres] == [{"object": "qos high", "field": "MaxTRESPerUser",
                                            "before": "cpu=128,mem=64G", "after": "cpu=128,gres/gpu=16,mem=64G"}]


def test_only_given_fields_are_managed():
    params = {"cluster": "lab", "qos": [{"name": "high", "priority": 100}],
              "accounts": [{"name": "ml", "parent": "research"}], "users": [{"name": "bob", "default_account": "hpc"}]}
    for name in ("policy", "cleared"):
        got = plan_of(params, name)
        if name == "policy":
            assert got.commands == []
    # in "cleared" bob's default account is ml: only that changes; his limits and admin level are left alone
    assert plan_of(params, "cleared").commands == [
        I + ["modify", "user", "where", "name=bob", "cluster=lab", "set", "DefaultAccount=hpc"]]


def test_minus_one_clears_and_then_is_in_place():
    params = {"cluster": "lab", "qos": [{"name": "normal", "max_jobs_per_user": -1},
                                        {"name": "high", "max_tres_per_user": {"gres/gpu": -1}, "max_wall": -1,
                                         "grp_jobs": -1, "preempt": [], "flags": []}]}
    got = plan_of(params, "policy")
    assert got.commands == [
        I + ["modify", "qos", "where", "name=normal", "set", "MaxJobsPerUser=-1"],
        I + ["modify", "qos", "where", "name=high", "set", "Preempt=", "Flags=-1", "MaxTRESPerUser=gres/gpu=-1",
             "MaxWall=-1", "GrpJobs=-1"]]
    assert [(c.field, c.before, c.after) for c in got.changes] == [
        ("MaxJobsPerUser", "2", ""), ("Preempt", "normal", ""), ("Flags", "DenyOnLimit,NoDecay", ""),
        ("MaxTRESPerUser", "cpu=128,gres/gpu=16,mem=64G", "cpu=128,mem=64G"), ("MaxWall", "2-00:00:00", ""),
        ("GrpJobs", "10", "")]
    assert plan_of(params, "cleared").commands == []  # recorded after those very commands


def test_clearing_an_inherited_limit_expects_the_parents_value():
    # policy: ml MaxJobs 4; bob's ml association has its own 3, alice's shows the inherited 4
    params = {"cluster": "lab", "users": [{"name": "bob", "default_account": "hpc", "max_jobs": -1},
                                          {"name": "alice", "default_account": "ml", "max_jobs": -1}]}
    got = plan_of(params, "policy")
    assert got.commands == [
        I + ["modify", "user", "where", "name=bob", "account=hpc", "cluster=lab", "set", "MaxJobs=-1"],
        I + ["modify", "user", "where", "name=bob", "account=ml", "cluster=lab", "set", "MaxJobs=-1"]]
    assert [(c.object, c.before, c.after) for c in got.changes] == [
        ("user bob account hpc", "3", ""), ("user bob account ml", "3", "4")]
    # cleared: ml has no MaxJobs; bob's ml association still has its own 2, hpc none (and his default is ml)
    assert plan_of(params, "cleared").commands == [
        I + ["modify", "user", "where", "name=bob", "account=ml", "cluster=lab", "set", "MaxJobs=-1"],
        I + ["modify", "user", "where", "name=bob", "cluster=lab", "set", "DefaultAccount=hpc"]]


def test_a_user_association_inherits_the_value_given_to_its_account_in_the_same_run():
    params = {"cluster": "lab", "accounts": [{"name": "ml", "parent": "research", "max_jobs": 6}],
              "users": [{"name": "alice", "default_account": "ml", "max_jobs": -1}]}
    got = plan_of(params, "policy")
    assert got.commands == [I + ["modify", "account", "where", "name=ml", "cluster=lab", "set", "MaxJobs=6"],
                            I + ["modify", "user", "where", "name=alice", "account=ml", "cluster=lab", "set",
                                 "MaxJobs=-1"]]


def test_preempt_is_set_after_both_qos_exist():
    params = {"cluster": "lab", "qos": [{"name": "urgent", "preempt": ["scavenger"], "priority": 10},
                                        {"name": "scavenger"}]}
    assert plan_of(params, "defaults").commands == [
        I + ["add", "qos", "urgent"], I + ["add", "qos", "scavenger"],
        I + ["modify", "qos", "where", "name=urgent", "set", "Priority=10", "Preempt=scavenger"]]


def test_accounts_are_created_parents_first_whatever_the_order_given():
    params = {"cluster": "lab", "accounts": [{"name": "vision", "parent": "ml"}, {"name": "ml", "parent": "research"},
                                             {"name": "research"}]}
    assert [c[4] for c in plan_of(params, "defaults").commands] == ["research", "ml", "vision"]


def test_a_new_cluster_is_registered_first():
    got = sa.plan(sa.policy({"cluster": "h100", "accounts": [{"name": "research"}]}), state("defaults", "h100"), [])
    assert got.commands == [I + ["add", "cluster", "h100"],
                            I + ["add", "account", "research", "cluster=h100", "Parent=root"]]
    assert got.changes[0].as_dict() == {"object": "cluster h100", "field": "state", "before": "absent",
                                        "after": "present"}


def test_removals_come_last_users_then_accounts_children_first_then_qos():
    params = {"cluster": "lab", "force": True,
              "qos": [{"name": "high", "state": "absent"}],
              "accounts": [{"name": "research", "state": "absent"}, {"name": "hpc", "state": "absent"},
                           {"name": "ml", "state": "absent"}, {"name": "extra", "state": "absent"}],
              "users": [{"name": "alice", "state": "absent"},
                        {"name": "bob", "default_account": "hpc", "accounts": ["hpc"]}]}
    with pytest.raises(sa.SlurmAccountError, match="user bob: account 'hpc' is neither"):
        plan_of(params, "policy")
    params["users"][1] = {"name": "bob", "state": "absent"}
    got = plan_of(params, "policy")
    assert got.commands == [
        I + ["delete", "user", "where", "name=alice", "cluster=lab"],
        I + ["delete", "user", "where", "name=bob", "cluster=lab"],
        I + ["delete", "account", "where", "name=hpc", "cluster=lab"],
        I + ["delete", "account", "where", "name=ml", "cluster=lab"],
        I + ["delete", "account", "where", "name=research", "cluster=lab"],
        I + ["delete", "qos", "where", "name=high"]]
    assert not got.held


def test_a_users_other_associations_go_when_accounts_is_given():
    params = {"cluster": "lab", "users": [{"name": "bob", "default_account": "hpc", "accounts": ["hpc"]}]}
    got = plan_of(params, "policy")
    assert got.commands == [I + ["delete", "user", "where", "name=bob", "account=ml", "cluster=lab"]]
    assert got.changes[-1].as_dict() == {"object": "user bob account ml", "field": "state", "before": "present",
                                         "after": "absent"}
    # without accounts, the default account's association is ensured and the others are kept
    assert plan_of({"cluster": "lab", "users": [{"name": "bob", "default_account": "hpc"}]}, "policy").commands == []


def test_a_user_gets_a_new_association_with_the_limits_given():
    params = {"cluster": "lab", "users": [{"name": "alice", "default_account": "ml", "accounts": ["ml", "hpc"],
                                           "max_jobs": 4}]}
    got = plan_of(params, "policy")
    assert got.commands == [I + ["add", "user", "alice", "cluster=lab", "Account=hpc", "MaxJobs=4"]]


def test_removal_without_force_is_refused_naming_what_holds_it():
    jobs = sa.read_jobs(recorded("jobs.squeue.txt"))
    params = {"cluster": "lab", "accounts": [{"name": "research", "state": "absent"}, {"name": "ml", "state": "absent"}],
              "qos": [{"name": "normal", "state": "absent"}]}
    got = plan_of(params, "policy", jobs)
    assert got.held == [
        "removing account ml: it has users alice, bob; running or pending jobs 2 (PENDING), 1 (RUNNING) "
        "(force: true removes it anyway)",
        "removing account research: it has sub-accounts hpc (force: true removes it anyway)",
        "removing qos normal: it has running or pending jobs 2 (PENDING), 1 (RUNNING) (force: true removes it anyway)"]
    assert plan_of(dict(params, force=True), "policy", jobs).held == []
    # removing the users and hpc as well leaves only the jobs
    params["users"] = [{"name": "alice", "state": "absent"}, {"name": "bob", "state": "absent"}]
    params["accounts"].append({"name": "hpc", "state": "absent"})
    assert [h.split(":")[0] for h in plan_of(params, "policy", jobs).held] == ["removing account ml",
                                                                               "removing qos normal"]
    assert plan_of(params, "policy", []).held == []


def test_removal_when_jobs_could_not_be_read_is_refused_without_force():
    params = {"cluster": "lab", "users": [{"name": "alice", "state": "absent"}]}
    got = plan_of(params, "policy", None, jobs_unread="squeue was not found on this host")
    assert got.held == ["removing user alice: it has jobs that could not be checked (squeue was not found on this "
                        "host) (force: true removes it anyway)"]
    assert plan_of(dict(params, force=True), "policy", None).held == []


def test_removing_what_is_not_there_changes_nothing():
    params = {"cluster": "lab", "qos": [{"name": "gone", "state": "absent"}],
              "accounts": [{"name": "gone", "state": "absent"}], "users": [{"name": "gone", "state": "absent"}]}
    got = plan_of(params, "policy")
    assert got.commands == [] and not sa.has_removals(sa.policy(params), state("policy"))


@pytest.mark.parametrize("params, message", [
    ({"cluster": "Lab"}, "cluster: 'Lab' is not allowed; sacctmgr stores"),
    ({"cluster": "lab", "qos": [{"name": "a", "preempt": ["a"]}]}, "qos a: preempt lists the QOS itself"),
    ({"cluster": "lab", "qos": [{"name": "a", "preempt": ["nosuch"]}]}, "preempt names QOS 'nosuch', which is neither"),
    ({"cluster": "lab", "accounts": [{"name": "a", "parent": "nosuch"}]}, "parent 'nosuch' is neither"),
    ({"cluster": "lab", "accounts": [{"name": "a", "parent": "b"}, {"name": "b", "parent": "a"}]}, "make a loop"),
    ({"cluster": "lab", "accounts": [{"name": "root"}]}, "'root' is the tree's own root account"),
    ({"cluster": "lab", "accounts": [{"name": "a", "qos": ["nosuch"]}]}, "account a: QOS 'nosuch' is neither"),
    ({"cluster": "lab", "users": [{"name": "u"}]}, "users[0].default_account is required"),
    ({"cluster": "lab", "users": [{"name": "u", "default_account": "ml", "accounts": ["hpc"]}]},
     "users[0].default_account: 'ml' is not in accounts ['hpc']"),
    ({"cluster": "lab", "users": [{"name": "u", "default_account": "nosuch"}]}, "user u: account 'nosuch' is neither"),
    ({"cluster": "lab", "qos": [{"name": "a", "colour": "red"}]}, "qos[0] has unknown key(s) 'colour'"),
    ({"cluster": "lab", "qos": [{"name": "a"}, {"name": "a"}]}, "qos[1].name: 'a' is listed twice"),
    ({"cluster": "lab", "qos": [{"name": "a", "state": "gone"}]}, "qos[0].state: 'gone' is not allowed"),
    ({"cluster": "lab", "qos": [{"name": "a", "description": "it's"}]}, "qos[0].description"),
    ({"cluster": "lab", "qos": [{"name": "a", "description": " x"}]}, "no leading or trailing blank"),
    ({"cluster": "lab", "qos": [{"name": "a", "max_tres_per_user": {"GPU": 1}}]}, "TRES name 'GPU' is not allowed"),
    ({"cluster": "lab", "qos": [{"name": "a", "max_tres_per_user": {}}]}, "must name at least one TRES"),
    ({"cluster": "lab", "qos": [{"name": "a", "flags": ["Deny On"]}]}, "qos[0].flags[0]"),
    ({"cluster": "lab", "qos": [{"name": "a", "flags": ["NoDecay", "nodecay"]}]}, "lists a flag twice"),
    ({"cluster": "lab", "qos": [{"name": "a", "preempt_mode": "gang"}]}, "expected one of cluster, cancel"),
    ({"cluster": "lab", "qos": [{"name": "a", "priority": -1}]}, "qos[0].priority=-1 is below the minimum of 0"),
    ({"cluster": "lab", "accounts": [{"name": "a", "qos": []}]}, "accounts[0].qos must not be empty"),
    ({"cluster": "lab", "accounts": [{"name": "a", "fairshare": "half"}]}, "accounts[0].fairshare"),
    ({"cluster": "lab", "users": [{"name": "u", "default_account": "root", "admin_level": "god"}]},
     "expected one of none, operator, administrator"),
    ({"cluster": "lab", "force": "yes"}, "force must be true or false"),
    ({"qos": []}, "options is missing 'cluster'"),
])
def test_refused_options_name_the_field(params, message):
    with pytest.raises(sa.SlurmAccountError) as err:
        sa.plan(sa.policy(params), state("policy"), [])
    assert message in str(err.value)


# ----------------------------------------------------------------------------------------------- sacctmgr's answers
@pytest.mark.parametrize("name", ["add-qos-high", "add-account-research", "add-user-bob", "modify-qos-normal",
                                  "modify-user-bob-ml", "delete-qos-high"])
def test_recorded_successes_are_successes(name):
    assert sa.command_failure(["sacctmgr"], 0, recorded(name + ".stdout.txt"), "") is None


@pytest.mark.parametrize("name, said", [
    ("refuse-add-qos-exists", "Nothing new added."),
    ("refuse-add-user-unknown-account", "This account 'nosuch' doesn't exist. Contact your admin to add this account."),
    ("refuse-add-account-unknown-parent", "Parent account 'nosuch' doesn't exist on cluster lab"),
    ("refuse-modify-unknown-qos", "Nothing modified"),
    ("refuse-preempt-unknown-qos", "You gave a bad qos 'nosuch'. Valid QOS's are normal,high"),
    ("refuse-bad-time", "Bad MaxWall time format: MaxWall=soon"),
    ("refuse-unknown-option", "Unknown option: Bogus=1"),
    ("refuse-delete-unknown-user", "Nothing deleted"),
    ("refuse-delete-account-with-job", "Job(s) active, cancel job(s) before remove"),
    ("delete-account-with-users", "You can not remove the default account of a user"),
])
def test_recorded_refusals_fail_with_sacctmgr_words(name, said):
    def part(stream):
        path = os.path.join(FIXTURES, "%s.%s.txt" % (name, stream))
        return recorded(os.path.basename(path)) if os.path.exists(path) else ""
    argv = ["sacctmgr", "--immediate", "add", "qos", "x"]
    for rc in (1, 0):  # exit 0 with one of those words is a failure too
        message = sa.command_failure(argv, rc, part("stdout"), part("stderr"))
        assert message.startswith("sacctmgr --immediate add qos x failed (exit %d): " % rc) and said in message


def test_exit_status_alone_fails():
    assert sa.command_failure(["sacctmgr", "x"], 1, "", "") == "sacctmgr x failed (exit 1): sacctmgr printed nothing"


# ----------------------------------------------------------------------------------------------- properties
@settings(max_examples=300, deadline=None)
@given(st.one_of(hostile_text(1, 24), near_valid(st.from_regex(r"[a-z][a-z0-9_-]{0,10}", fullmatch=True))))
def test_hostile_names_are_refused_or_land_as_one_exact_word(name):
    assume(name != "normal")  # the recorded database has that QOS already
    params = {"cluster": "lab", "qos": [{"name": name}], "accounts": [{"name": name}],
              "users": [{"name": name, "default_account": name}]}
    try:
        got = sa.plan(sa.policy(params), state("defaults"), [])
    except sa.SlurmAccountError as exc:
        assert "name" in str(exc)
        assert repr(name)[:20] in str(exc) or "'root' is the tree's own root account" in str(exc)
        return
    assert re.fullmatch(r"[a-z0-9][a-z0-9._-]{0,63}", name) and name != "root"
    assert got.commands == [I + ["add", "qos", name],
                            I + ["add", "account", name, "cluster=lab", "Parent=root"],
                            I + ["add", "user", name, "cluster=lab", "Account=" + name, "DefaultAccount=" + name]]


@settings(max_examples=300, deadline=None)
@given(hostile_text(0, 40))
def test_hostile_descriptions_are_refused_or_exact(text):
    params = {"cluster": "lab", "qos": [{"name": "normal", "description": text}]}
    try:
        got = sa.plan(sa.policy(params), state("defaults"), [])
    except sa.SlurmAccountError as exc:
        assert "qos[0].description" in str(exc)
        return
    assert text == text.strip() and not any(c in text for c in "|'\"`\n\r\x00")
    if text.lower() == "normal qos default":
        assert got.commands == []
    else:
        assert got.commands == [I + ["modify", "qos", "where", "name=normal", "set", "Description=" + text.lower()]]


@settings(max_examples=300, deadline=None)
@given(hostile_numbers(), st.sampled_from(["max_jobs_per_user", "grp_jobs", "priority", "max_wall"]))
def test_hostile_numbers_are_refused_or_exact(value, option):
    params = {"cluster": "lab", "qos": [{"name": "normal", option: value}]}
    try:
        got = sa.plan(sa.policy(params), state("defaults"), [])
    except sa.SlurmAccountError as exc:
        assert "qos[0].%s" % option in str(exc)
        return
    assert value is not None or got.commands == []
    keyword = {"max_jobs_per_user": "MaxJobsPerUser", "grp_jobs": "GrpJobs", "priority": "Priority",
               "max_wall": "MaxWall"}[option]
    if got.commands:
        (command,) = got.commands
        (arg,) = command[7:]
        assert arg.startswith(keyword + "=")
        assert int(arg.split("=", 1)[1]) == (value if option != "max_wall" else sa.wall_minutes("x", value))
    else:
        assert value in (0, -1, "0", "-1", None) or (option == "priority" and value == 0)


_ANY = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(), hostile_text(0, 8)),
                    lambda inner: st.one_of(st.lists(inner, max_size=3),
                                            st.dictionaries(hostile_text(0, 6), inner, max_size=3)), max_leaves=6)
_OPTIONS = {"qos": sa.QOS_OPTIONS, "accounts": sa.ACCOUNT_OPTIONS, "users": sa.USER_OPTIONS}


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(sorted(_OPTIONS)), st.data(), _ANY)
def test_wrong_types_never_raise_a_raw_exception(group, data, value):
    option = data.draw(st.sampled_from(_OPTIONS[group]))
    entry = {"name": "ml", "default_account": "ml"} if group == "users" else {"name": "normal"}
    entry[option] = value
    params = {"cluster": "lab", group: [entry]}
    try:
        sa.plan(sa.policy(params), state("policy"), [])
    except sa.SlurmAccountError as exc:
        assert str(exc)


@settings(max_examples=200, deadline=None)
@given(_ANY)
def test_wrong_shapes_at_the_top_never_raise_a_raw_exception(value):
    for params in ({"cluster": value}, {"cluster": "lab", "qos": value}, {"cluster": "lab", "accounts": [value]},
                   {"cluster": "lab", "users": value, "force": False}, value):
        try:
            sa.plan(sa.policy(params), state("policy"), [])
        except sa.SlurmAccountError as exc:
            assert str(exc)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["cpu", "mem", "gres/gpu", "node", "billing", "gres/gpu:a100"]),
                       st.integers(0, 2**40), min_size=1))
def test_tres_printed_reads_back(value):
    assert sa.read_tres(sa.show_tres(value)) == value


def test_an_account_record_left_from_before_gets_its_description_apart():
    """sacctmgr keeps an account's record (description, organization) when its last association is deleted; its
    add then creates the association only. Spliced: the defaults state with the 'policy' record of research."""
    outputs = {show: recorded("defaults.show-%s.txt" % show) for show in SHOWS}
    outputs["account"] += "research|research dept|acme labs\n"
    old = sa.read_state("lab", outputs)
    params = {"cluster": "lab", "accounts": [{"name": "research", "description": "Research"}]}
    got = sa.plan(sa.policy(params), old, [])
    assert got.commands == [I + ["add", "account", "research", "cluster=lab", "Parent=root"],
                            I + ["modify", "account", "where", "name=research", "set", "Description=research"]]
    assert got.changes[2].as_dict() == {"object": "account research", "field": "Description",
                                        "before": "research dept", "after": "research"}
