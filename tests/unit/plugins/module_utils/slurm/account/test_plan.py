# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""slurm/account/plan: the comparison of the policy with the recorded database, the ordered sacctmgr commands,
the removals held without force, and sacctmgr's answers (recorded in the lab) read as success or failure."""
from __future__ import annotations

import os

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.account.plan import (
    command_failure,
    has_removals,
    plan,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.account.policy import (
    SlurmAccountError,
    policy,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.account.state import (
    read_jobs,
    read_state,
)
from slurm_accounting import FIXTURES, POLICY, SHOWS, I, plan_of, recorded, state


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
    got = plan(policy({"cluster": "h100", "accounts": [{"name": "research"}]}), state("defaults", "h100"), [])
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
    with pytest.raises(SlurmAccountError, match="user bob: account 'hpc' is neither"):
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
    jobs = read_jobs(recorded("jobs.squeue.txt"))
    params = {"cluster": "lab",
              "accounts": [{"name": "research", "state": "absent"}, {"name": "ml", "state": "absent"}],
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
    assert got.commands == [] and not has_removals(policy(params), state("policy"))


@pytest.mark.parametrize("params, message", [
    ({"cluster": "lab", "qos": [{"name": "a", "preempt": ["nosuch"]}]}, "preempt names QOS 'nosuch', which is neither"),
    ({"cluster": "lab", "accounts": [{"name": "a", "parent": "nosuch"}]}, "parent 'nosuch' is neither"),
    ({"cluster": "lab", "accounts": [{"name": "a", "parent": "b"}, {"name": "b", "parent": "a"}]}, "make a loop"),
    ({"cluster": "lab", "accounts": [{"name": "a", "qos": ["nosuch"]}]}, "account a: QOS 'nosuch' is neither"),
    ({"cluster": "lab", "users": [{"name": "u", "default_account": "nosuch"}]}, "user u: account 'nosuch' is neither"),
])
def test_references_to_what_neither_the_policy_nor_the_database_has_are_refused(params, message):
    with pytest.raises(SlurmAccountError) as err:
        plan(policy(params), state("policy"), [])
    assert message in str(err.value)


# ----------------------------------------------------------------------------------------------- sacctmgr's answers
@pytest.mark.parametrize("name", ["add-qos-high", "add-account-research", "add-user-bob", "modify-qos-normal",
                                  "modify-user-bob-ml", "delete-qos-high"])
def test_recorded_successes_are_successes(name):
    assert command_failure(["sacctmgr"], 0, recorded(name + ".stdout.txt"), "") is None


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
        message = command_failure(argv, rc, part("stdout"), part("stderr"))
        assert message.startswith("sacctmgr --immediate add qos x failed (exit %d): " % rc) and said in message


def test_exit_status_alone_fails():
    assert command_failure(["sacctmgr", "x"], 1, "", "") == "sacctmgr x failed (exit 1): sacctmgr printed nothing"


def test_an_account_record_left_from_before_gets_its_description_apart():
    """sacctmgr keeps an account's record (description, organization) when its last association is deleted; its
    add then creates the association only. Spliced: the defaults state with the 'policy' record of research."""
    outputs = {show: recorded("defaults.show-%s.txt" % show) for show in SHOWS}
    outputs["account"] += "research|research dept|acme labs\n"
    old = read_state("lab", outputs)
    params = {"cluster": "lab", "accounts": [{"name": "research", "description": "Research"}]}
    got = plan(policy(params), old, [])
    assert got.commands == [I + ["add", "account", "research", "cluster=lab", "Parent=root"],
                            I + ["modify", "account", "where", "name=research", "set", "Description=research"]]
    assert got.changes[2].as_dict() == {"object": "account research", "field": "Description",
                                        "before": "research dept", "after": "research"}
