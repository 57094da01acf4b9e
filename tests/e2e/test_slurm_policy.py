# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The accounting policy of the lab inventory (inventories/lab/group_vars/all/slurm.yml: QOS normal with at most 2
running jobs per user, QOS high preempting it, PreemptMode=REQUEUE, users alice, bob and carol in the account
vision) proven with real jobs of real users, on the converged lab. Run by tests/e2e/run.sh, in file order:

- alice submits three jobs: two run, the third pends with QOSMaxJobsPerUserLimit; mallory, who has a Linux account
  but is not in accounting, is refused at submission;
- alice fills both GPU nodes with normal jobs, bob submits to high: one of alice's jobs is preempted and requeued
  (sacct shows it), bob's runs;
- after that, sshare gives alice a lower fair-share factor than carol, who ran nothing;
- a hand change made with sacctmgr is reported by a check run (with its diff) and undone by a real run.

The users' Linux accounts are made by tests/e2e/users.sh before the converge, with the same uid on every node (a real
cluster has them from its directory; the role does not create them). Their jobs are cancelled at the end.
"""
import os
import re
import subprocess
import time

import pytest
import testinfra
import testinfra.utils.ansible_runner

from lab_wait import until as _until  # tests/e2e is on the path pytest runs these from

USERS = {"alice": 2101, "bob": 2102, "carol": 2103, "mallory": 2104}
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def lab(request):
    inventory = request.config.option.ansible_inventory
    runner = testinfra.utils.ansible_runner.AnsibleRunner(inventory)
    # The users' Linux accounts exist on every node before the converge (tests/e2e/users.sh makes them right after
    # `lab up`, as a site's directory has them): slurmctld maps accounting's names to uids when it loads them.
    for host in runner.get_hosts("cluster"):
        node = testinfra.get_host(f"ansible://{host}", ansible_inventory=inventory)
        for user, uid in USERS.items():
            assert node.user(user).exists and node.user(user).uid == uid, f"{host} lacks the Linux user {user} ({uid})"
    login = testinfra.get_host(f"ansible://{runner.get_hosts('login_nodes')[0]}", ansible_inventory=inventory)
    yield {"login": login, "computes": runner.get_hosts("gpu_nodes"), "inventory": os.path.dirname(inventory)}
    for user in USERS:
        login.run(f"scancel --user {user}")


def _submit(login, user, args):
    """sbatch as USER (from a directory every user may enter, output discarded); the job id."""
    out = login.check_output(f"runuser -u {user} -- sbatch --parsable --chdir=/tmp --output=/dev/null {args}")
    return out.split(";")[0]


def _jobs(login, user):
    """{job id: (state, reason)} of USER's jobs in the queue."""
    out = login.check_output(f"squeue --noheader --user {user} --format '%i|%T|%r'")
    return {row[0]: (row[1], row[2]) for row in (line.split("|") for line in out.splitlines())}


def _cancel_and_wait(login, *users):
    for user in users:  # scancel takes one --user
        login.run(f"scancel --user {user}")
    _until(f"the jobs of {', '.join(users)} gone", lambda: all(not _jobs(login, u) for u in users), timeout=90)


def test_a_user_gets_two_running_jobs_and_the_third_pends_on_the_qos_limit(lab):
    login = lab["login"]
    jobs = [_submit(login, "alice", "--qos=normal --ntasks=1 --mem=64 --wrap 'sleep 300'") for i in range(3)]

    def settled():
        states = _jobs(login, "alice")
        running = [j for j in jobs if states.get(j, ("", ""))[0] == "RUNNING"]
        return states if len(running) == 2 else None
    states = _until("two of alice's jobs RUNNING", settled, timeout=90)
    pending = [(j, states[j]) for j in jobs if states[j][0] != "RUNNING"]
    assert len(pending) == 1 and pending[0][1] == ("PENDING", "QOSMaxJobsPerUserLimit"), states
    # The limit holds: a few scheduling passes later the third job still waits on it.
    time.sleep(6)
    assert sorted(s for s, _r in _jobs(login, "alice").values()) == ["PENDING", "RUNNING", "RUNNING"]
    _cancel_and_wait(login, "alice")


def test_a_user_not_in_accounting_cannot_submit(lab):
    result = lab["login"].run("runuser -u mallory -- sbatch --parsable --chdir=/tmp --output=/dev/null --wrap true")
    assert result.rc != 0, result.stdout
    assert "Invalid account or account/partition combination specified" in result.stderr, result.stderr


def test_a_high_qos_job_preempts_a_normal_one_which_is_requeued(lab):
    login = lab["login"]
    nodes = len(lab["computes"])
    assert nodes == 2, "this test fills the lab's two GPU nodes with alice's two allowed jobs"
    alice = [_submit(login, "alice", "--qos=normal --exclusive --nodes=1 --wrap 'sleep 600'") for i in range(nodes)]
    _until("alice's jobs RUNNING on both GPU nodes",
           lambda: all(_jobs(login, "alice").get(j, ("", ""))[0] == "RUNNING" for j in alice), timeout=90)
    bob = _submit(login, "bob", "--qos=high --exclusive --nodes=1 --wrap 'sleep 600'")
    _until("bob's high job RUNNING", lambda: _jobs(login, "bob").get(bob, ("", ""))[0] == "RUNNING", timeout=90)

    # One of alice's jobs gave way: requeued (PreemptMode=REQUEUE), so back in the queue with one restart.
    def preempted():
        for job in alice:
            line = login.check_output(f"scontrol --oneliner show job {job}")
            fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
            if fields.get("Restarts") == "1" and fields.get("JobState") in ("PENDING", "REQUEUED"):
                return job
        return None
    victim = _until("one of alice's jobs requeued", preempted, timeout=90)
    survivor = next(j for j in alice if j != victim)
    assert _jobs(login, "alice")[survivor][0] == "RUNNING"
    # sacct keeps the preempted run: with --duplicates it lists the requeued run before the pending one.

    def accounted():
        out = login.check_output(f"sacct --noheader --parsable2 --duplicates --allocations --jobs {victim} --format JobID,State")
        return out if re.search(r"^%s\|(PREEMPTED|REQUEUED)$" % victim, out, re.M) else None
    _until(f"sacct showing job {victim} preempted", accounted, timeout=30)
    _cancel_and_wait(login, "alice", "bob")


def test_fair_share_falls_for_the_user_who_ran_jobs(lab):
    """alice ran jobs in the tests above, carol none. Slurm 22.05 adds a job's usage to RawUsage when the job ends
    (priority_p_job_end), but Fair Tree ranks users again only in the decay thread, every PriorityCalcPeriod (1 minute
    in the lab; fair_tree.c, _apply_priority_fs). So sshare can show alice's usage with her factor still 1.0 for up to
    a minute: wait for a recalculation, which must then rank alice below carol."""
    login = lab["login"]
    seen = {}

    def shares():
        out = login.check_output("sshare --noheader --parsable2 --all --accounts vision --format User,RawUsage,FairShare")
        rows = {r[0]: r for r in (line.split("|") for line in out.splitlines()) if r[0]}
        seen.update(rows)
        if "alice" in rows and "carol" in rows and int(rows["alice"][1]) > 0 \
                and float(rows["alice"][2]) < float(rows["carol"][2]):
            return rows
        return None
    try:
        rows = _until("alice's fair-share factor below carol's in sshare (two PriorityCalcPeriods)", shares, timeout=150)
    except AssertionError as exc:
        raise AssertionError(f"{exc}; last sshare rows: {seen}") from None
    assert int(rows["carol"][1]) == 0, rows


_RECAP = re.compile(r"^(\S+)\s+: ok=\d+\s+changed=(\d+)\s+unreachable=\d+\s+failed=(\d+)", re.M)


def _policy_run(inventory, *args):
    """The Slurm role's preflight and accounting steps on the accounting host: (output, {host: changed})."""
    run = subprocess.run(["ansible-playbook", "-i", inventory, os.path.join(REPO, "playbooks", "site.yml"),
                          "--tags", "slurm_preflight,slurm_dbd", "--limit", "slurm_dbd", *args],
                         capture_output=True, text=True, check=False, timeout=600, cwd=REPO,
                         env=dict(os.environ, ANSIBLE_NOCOLOR="1"))
    assert run.returncode == 0, run.stdout[-5000:] + run.stderr[-2000:]
    recap = {m.group(1): int(m.group(2)) for m in _RECAP.finditer(run.stdout)}
    return run.stdout, recap


def _max_jobs_pu(login):
    return login.check_output("sacctmgr --noheader --parsable2 show qos normal format=MaxJobsPU").strip()


def test_a_hand_change_is_reported_by_check_mode_and_undone_by_a_run(lab):
    login = lab["login"]
    assert _max_jobs_pu(login) == "2"
    login.check_output("sacctmgr --immediate modify qos where name=normal set MaxJobsPerUser=5")
    assert _max_jobs_pu(login) == "5"
    out, recap = _policy_run(lab["inventory"], "--check", "--diff")
    assert sum(recap.values()) == 1, recap
    assert re.search(r"^-qos normal: MaxJobsPerUser = 5$", out, re.M) and re.search(r"^\+qos normal: MaxJobsPerUser = 2$", out, re.M), \
        out[-4000:]
    assert _max_jobs_pu(login) == "5", "check mode changed accounting"
    out, recap = _policy_run(lab["inventory"])
    assert sum(recap.values()) == 1, recap
    assert _max_jobs_pu(login) == "2"
    out, recap = _policy_run(lab["inventory"], "--check")
    assert sum(recap.values()) == 0, recap
