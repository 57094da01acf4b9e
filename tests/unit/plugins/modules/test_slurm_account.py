# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""gpufleet.cluster.slurm_account through main(), with run_command answering as sacctmgr 22.05 did in the lab."""
from __future__ import annotations

import copy
import os
import sys

import pytest

from ansible_collections.gpufleet.cluster.plugins.modules import slurm_account as module

_UNIT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if _UNIT not in sys.path:
    sys.path.insert(0, _UNIT)
from module_results import assert_options_match_spec  # noqa: E402  pylint: disable=wrong-import-position

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(_UNIT)), "tests", "fixtures", "slurm-accounting")
SACCTMGR = "/usr/bin/sacctmgr"
SQUEUE = "/usr/bin/squeue"


def recorded(name):
    path = os.path.join(FIXTURES, name)
    if not os.path.exists(path):
        return ""
    with open(path, encoding="utf-8") as handle:
        return handle.read()


class FakeSlurm:
    """Answers run_command: each show prints the recorded state, each change answers as recorded; `refuse` maps
    a word of a command to the recording of sacctmgr's refusal."""

    def __init__(self, state, refuse=None, squeue="", squeue_rc=0):
        self.state, self.refuse, self.squeue, self.squeue_rc = state, refuse or {}, squeue, squeue_rc
        self.calls = []

    def __call__(self, argv, **kwargs):
        assert kwargs.get("environ_update") == {"LC_ALL": "C"}
        self.calls.append(list(argv))
        if argv[0] == SQUEUE:
            return self.squeue_rc, self.squeue, "squeue: error: slurm_load_jobs error\n" if self.squeue_rc else ""
        assert argv[0] == SACCTMGR
        if argv[1] == "--noheader":
            return 0, recorded("%s.show-%s.txt" % (self.state, argv[4])), ""
        assert argv[1] == "--immediate"
        for word, name in self.refuse.items():
            if word in argv:
                return 1, recorded(name + ".stdout.txt"), recorded(name + ".stderr.txt")
        return 0, recorded("modify-qos-normal.stdout.txt"), ""

    def changes(self):
        return [c[1:] for c in self.calls if c[1] == "--immediate"]


@pytest.fixture
def slurm(monkeypatch):
    def _install(*args, **kwargs):
        fake = FakeSlurm(*args, **kwargs)

        def run_command(self, argv, **kw):  # a method, so AnsibleModule passes itself
            return fake(argv, **kw)
        monkeypatch.setattr(module.AnsibleModule, "run_command", run_command)
        monkeypatch.setattr(module.AnsibleModule, "get_bin_path",
                            lambda self, name, *a, **k: {"sacctmgr": SACCTMGR, "squeue": SQUEUE}.get(name))
        return fake
    return _install


POLICY = {
    "cluster": "lab",
    "qos": [{"name": "normal", "max_jobs_per_user": 2},
            {"name": "high", "priority": 100, "preempt": ["normal"], "preempt_mode": "requeue",
             "flags": ["DenyOnLimit", "NoDecay"], "max_submit_jobs_per_user": 20,
             "max_tres_per_user": {"gres/gpu": 16, "cpu": 128, "mem": 65536}, "max_tres_per_job": {"gres/gpu": 8},
             "max_wall": "2-00:00:00", "grp_tres": {"gres/gpu": 64, "mem": 1048576}, "grp_jobs": 10,
             "description": "High priority, preempts normal"}],
    "accounts": [{"name": "research", "description": "Research Dept", "organization": "ACME Labs"},
                 {"name": "ml", "parent": "research", "fairshare": 10, "max_jobs": 4, "max_submit_jobs": 8,
                  "max_tres_per_job": {"gres/gpu": 8}, "grp_tres": {"gres/gpu": 32}, "max_wall": "12:00:00",
                  "qos": ["normal", "high"], "default_qos": "normal"},
                 {"name": "hpc", "parent": "research", "fairshare": "parent"}],
    "users": [{"name": "alice", "default_account": "ml"},
              {"name": "bob", "default_account": "hpc", "accounts": ["hpc", "ml"], "admin_level": "operator",
               "max_jobs": 3}],
}


def test_converged_database_is_not_changed(run_main, slurm):
    fake = slurm("policy")
    result = run_main(module, POLICY)
    assert result["changed"] is False and result["changes"] == [] and result["commands"] == []
    assert fake.changes() == []
    assert sorted(c[4] for c in fake.calls) == ["account", "assoc", "cluster", "qos", "user"]


def test_fresh_database_gets_the_policy(run_main, slurm):
    fake = slurm("defaults")
    result = run_main(module, POLICY)
    assert result["changed"] is True
    assert [c[0] for c in result["commands"]] == ["sacctmgr"] * 8
    assert fake.changes() == [c[1:] for c in result["commands"]]
    assert fake.changes()[0] == ["--immediate", "add", "qos", "high"]
    assert result["changes"][0] == {"object": "qos normal", "field": "MaxJobsPerUser", "before": "", "after": "2"}
    assert result["diff"]["after"].startswith("qos normal: MaxJobsPerUser = 2\n")


def test_check_mode_runs_only_the_shows_and_tells_what_would_change(run_main, slurm):
    fake = slurm("cleared")
    result = run_main(module, dict(POLICY, _ansible_check_mode=True, _ansible_diff=True))
    assert result["changed"] is True and fake.changes() == []
    assert len(result["commands"]) == 7
    assert "qos normal: MaxJobsPerUser = (unset)\n" in result["diff"]["before"]
    assert "qos normal: MaxJobsPerUser = 2\n" in result["diff"]["after"]
    assert {"object": "user bob", "field": "AdminLevel", "before": "None", "after": "Operator"} in result["changes"]


def test_sacctmgr_refusal_fails_naming_the_command_and_its_words(run_main, slurm):
    fake = slurm("defaults", refuse={"alice": "refuse-add-user-unknown-account"})
    result = run_main(module, POLICY)
    assert result["failed"] is True
    assert "sacctmgr --immediate add user alice cluster=lab Account=ml DefaultAccount=ml failed (exit 1)" in \
        result["msg"]
    assert "Nothing new added. This account 'nosuch' doesn't exist." in result["msg"]
    assert len(result["commands_run"]) == 6 and result["changed"] is True
    assert fake.changes()[-1][2:4] == ["user", "alice"]


def test_removal_with_users_and_jobs_is_refused_without_force(run_main, slurm):
    fake = slurm("policy", squeue=recorded("jobs.squeue.txt"))
    result = run_main(module, {"cluster": "lab", "accounts": [{"name": "ml", "state": "absent"}]})
    assert result["failed"] is True and fake.changes() == []
    assert result["msg"] == ("slurm_account: refusing to remove what is still in use, nothing was changed: removing "
                             "account ml: it has users alice, bob; running or pending jobs 2 (PENDING), 1 (RUNNING) "
                             "(force: true removes it anyway)")
    assert [SQUEUE, "--noheader", "--all", "--format=%i|%u|%a|%q|%T"] in fake.calls


def test_removal_with_force_runs(run_main, slurm):
    fake = slurm("policy", squeue=recorded("jobs.squeue.txt"))
    result = run_main(module, {"cluster": "lab", "accounts": [{"name": "ml", "state": "absent"}], "force": True})
    assert result["changed"] is True
    assert fake.changes() == [["--immediate", "delete", "account", "where", "name=ml", "cluster=lab"]]


def test_removal_when_squeue_fails_is_refused(run_main, slurm):
    slurm("policy", squeue_rc=1)
    result = run_main(module, {"cluster": "lab", "users": [{"name": "alice", "state": "absent"}]})
    assert result["failed"] is True
    assert "jobs that could not be checked (squeue --noheader --all --format=%i|%u|%a|%q|%T failed (exit 1): " \
           "squeue: error: slurm_load_jobs error)" in result["msg"]


def test_no_squeue_without_removals(run_main, slurm):
    fake = slurm("policy")
    run_main(module, {"cluster": "lab", "qos": [{"name": "normal", "max_jobs_per_user": 2}]})
    assert [c[0] for c in fake.calls] == [SACCTMGR, SACCTMGR]  # cluster and qos only


@pytest.mark.parametrize("args, words", [
    ({"cluster": "Lab"}, "refusing the policy for cluster 'Lab': cluster: 'Lab' is not allowed"),
    ({"cluster": "lab", "qos": [{"name": "a;b"}]}, "qos[0].name: 'a;b' is not allowed"),
    ({"cluster": "lab", "qos": [{"name": "a", "max_tres_per_user": {"gres/gpu": "lots"}}]},
     "qos[0].max_tres_per_user[gres/gpu] must be a whole number, got 'lots'"),
    ({"cluster": "lab", "qos": [{"name": "a", "max_wall": [1]}]}, "qos[0].max_wall must be minutes"),
    ({"cluster": "lab", "accounts": [{"name": "a", "fairshare": {"x": 1}}]}, "accounts[0].fairshare must be"),
    ({"cluster": "lab", "users": [{"name": "u"}]}, "users[0].default_account is required"),
    ({"cluster": "lab", "accounts": [{"name": "a", "parent": "nosuch"}]}, "cluster lab: account a: parent 'nosuch'"),
])
def test_bad_input_is_refused_before_any_change(run_main, slurm, args, words):
    fake = slurm("policy")
    result = run_main(module, args)
    assert result["failed"] is True and words in result["msg"], result["msg"]
    assert fake.changes() == []


def test_ansible_refuses_what_the_spec_does_not_allow(run_main, slurm):
    slurm("policy")
    result = run_main(module, {"cluster": "lab", "qos": [{"name": "a", "preempt_mode": "gang"}]})
    assert result["failed"] is True and "preempt_mode" in result["msg"]


def test_unreadable_show_fails(run_main, slurm, monkeypatch):
    slurm("policy")
    monkeypatch.setattr(module.AnsibleModule, "run_command",
                        lambda self, argv, **kw: (1, "", "sacctmgr: error: Problem talking to the database: Connection refused\n"))
    result = run_main(module, {"cluster": "lab"})
    assert result["failed"] is True
    assert result["msg"] == ("slurm_account: reading the accounting database failed: sacctmgr --noheader --parsable2 "
                             "show cluster format=Cluster (exit 1): sacctmgr: error: Problem talking to the database: "
                             "Connection refused")


def test_output_that_is_not_sacctmgrs_fails(run_main, slurm, monkeypatch):
    slurm("policy")
    monkeypatch.setattr(module.AnsibleModule, "run_command", lambda self, argv, **kw: (0, "a|b\n", ""))
    result = run_main(module, {"cluster": "lab"})
    assert result["failed"] is True and "show cluster: line 1 'a|b' has 2 fields, expected 1" in result["msg"]


def test_sacctmgr_missing(run_main, slurm, monkeypatch):
    slurm("policy")
    monkeypatch.setattr(module.AnsibleModule, "get_bin_path", lambda self, *a, **k: None)
    result = run_main(module, {"cluster": "lab"})
    assert result["failed"] is True and "sacctmgr was not found" in result["msg"]


def test_suboption_defaults_do_not_manage_more_than_given(run_main, slurm):
    """Ansible fills every suboption in with None: only state and parent have defaults, nothing else is touched."""
    fake = slurm("cleared")
    policy = copy.deepcopy(POLICY)
    policy["users"][1] = {"name": "bob", "default_account": "ml"}
    policy["qos"] = [{"name": "high", "priority": 100}]
    policy["accounts"] = [{"name": "ml", "parent": "research"}]
    result = run_main(module, policy)
    assert result["changed"] is False and fake.changes() == []


def test_documentation_matches_argument_spec():
    doc = assert_options_match_spec(module)
    for option in ("qos", "accounts", "users"):
        documented = doc["options"][option]["suboptions"]
        spec = module.ARGUMENT_SPEC[option]["options"]
        assert set(documented) == set(spec), option
        for name, entry in spec.items():
            assert documented[name]["type"] == entry["type"], (option, name)
            assert documented[name].get("default") == entry.get("default"), (option, name)
            assert documented[name].get("choices") == entry.get("choices"), (option, name)
            assert documented[name].get("elements") == entry.get("elements"), (option, name)
            assert documented[name].get("required", False) == entry.get("required", False), (option, name)
    assert doc["attributes"]["check_mode"]["support"] == "full"
    assert doc["attributes"]["diff_mode"]["support"] == "full"
