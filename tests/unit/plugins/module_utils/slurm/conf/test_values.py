# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""slurm.conf value checks (issue 16 item 4): every rule with hand-worked values (the time strings they read are
slurm/conf/times', tested in test_times.py).

Expected numbers are worked by hand from Slurm's own rules (parse_time.c time_str2secs: D-H:M:S; minutes are
rounded up by time_str2mins), not from the code under test.
"""
from __future__ import annotations

import pytest

from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.conf.settings import SlurmConfError
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.conf.values import check_values, preempt_mode

# The issue's cluster: 8 nodes x 8 GPUs, 2 x 56-core CPUs per node = 896 CPUs, 64 GPUs.
ISSUE = {"nodes": 8, "cpus": 896, "gpus": 64}
# The reference design (inventories/h100-64): 8 nodes, 2 x 52 cores (SMT off) = 832 CPUs, 64 GPUs.
H100_64 = {"nodes": 8, "cpus": 832, "gpus": 64}
PREEMPT = {"PreemptType": "preempt/qos", "PreemptMode": "REQUEUE"}
ENFORCE = {"AccountingStorageType": "accounting_storage/slurmdbd", "AccountingStorageEnforce": "associations,limits,qos"}
NORMAL = {"name": "normal", "priority": 10, "max_jobs_per_user": 2}
HIGH = {"name": "high", "priority": 100, "preempt": ["normal"], "preempt_mode": "requeue"}


def refused(match, settings, version="22.05.8", **kwargs):
    with pytest.raises(SlurmConfError, match=match) as error:
        check_values(settings, version, **kwargs)
    return str(error.value)


# ---------------------------------------------------------------- PriorityCalcPeriod (minutes)
def test_priority_calc_period_3600_is_60_hours():
    message = refused(r"^slurm\.conf PriorityCalcPeriod=3600: Slurm reads it in minutes, so it is 3600 minutes "
                      r"\(60 hours\)", {"PriorityCalcPeriod": 3600})
    assert "Allowed: 1 to 60 minutes (Slurm's default is 5)" in message
    assert "recomputes fair-share and job priorities only once per period" in message


@pytest.mark.parametrize("value", [1, "5", 60, "1:00:00", "0:30", "60:00"])
def test_priority_calc_period_accepted(value):
    assert check_values({"PriorityCalcPeriod": value}, "24.11") == []


@pytest.mark.parametrize("value, match", [
    (61, r"it is 61 minutes \(1 hour 1 minute\)"),
    ("2:00:00", r"it is 120 minutes \(2 hours\)"),
    ("1-0", r"it is 1440 minutes \(24 hours\)"),
    ("90", r"it is 90 minutes \(1 hour 30 minutes\)"),
    ("0", r"PriorityCalcPeriod=0 is 0 minutes; Slurm refuses it"),
    ("INFINITE", r"Slurm refuses an infinite PriorityCalcPeriod"),
])
def test_priority_calc_period_refused(value, match):
    refused(match, {"PriorityCalcPeriod": value})


def test_priority_calc_period_not_below_the_half_life():
    refused(r"PriorityCalcPeriod=30 \(30 minutes\) is not shorter than PriorityDecayHalfLife=0:30:00 \(30 minutes\)",
            {"PriorityCalcPeriod": 30, "PriorityDecayHalfLife": "0:30:00"})
    assert check_values({"PriorityCalcPeriod": 29, "PriorityDecayHalfLife": "0:30:00"}, "24.11") == []


# ---------------------------------------------------------------- decay, reset, max age, exempt time
def test_half_life_zero_needs_a_reset_period():
    refused(r"PriorityDecayHalfLife=0 turns usage decay off, and PriorityUsageResetPeriod is not set",
            {"PriorityDecayHalfLife": 0})
    refused(r"PriorityUsageResetPeriod is NONE", {"PriorityDecayHalfLife": "0", "PriorityUsageResetPeriod": "none"})
    assert check_values({"PriorityDecayHalfLife": 0, "PriorityUsageResetPeriod": "MONTHLY"}, "24.11") == []


@pytest.mark.parametrize("value", ["NONE", "now", "Daily", "WEEKLY", "monthly", "QUARTERLY", "yearly"])
def test_reset_period_words(value):
    assert check_values({"PriorityUsageResetPeriod": value}, "23.11") == []


@pytest.mark.parametrize("value", ["hourly", "7-0", 7, ["weekly"]])
def test_reset_period_refused(value):
    refused(r"PriorityUsageResetPeriod=.* is not a reset period .* expected one of NONE, NOW, DAILY, WEEKLY, MONTHLY, "
            r"QUARTERLY, YEARLY \(it is a word, not a time\)", {"PriorityUsageResetPeriod": value})


@pytest.mark.parametrize("key, good, bad", [
    ("PriorityDecayHalfLife", "7-0", "7days"), ("PriorityMaxAge", "14-0", "2w"),
    ("PreemptExemptTime", "-1", "10m"), ("PreemptExemptTime", "00:10:00", "1:2:3:4"),
])
def test_time_keys(key, good, bad):
    settings = {"PreemptType": "preempt/qos", "PreemptMode": "CANCEL"} if key == "PreemptExemptTime" else {}
    assert check_values(dict(settings, **{key: good}), "24.11") == []
    refused(r"^slurm\.conf %s=%r is not a time Slurm reads" % (key, bad), dict(settings, **{key: bad}))


# ---------------------------------------------------------------- PriorityType basic
def test_weights_with_priority_basic_warn():
    assert check_values({"PriorityType": "priority/basic", "PriorityWeightAge": 1000}, "24.11") == [
        "slurm.conf PriorityType=priority/basic: PriorityWeightAge apply only to PriorityType=priority/multifactor "
        "(slurm.conf.5) and are ignored; jobs run first in, first out. Set PriorityType=priority/multifactor or "
        "drop them"]


def test_weights_without_priority_type_depend_on_the_release():
    warning = check_values({"PriorityWeightFairshare": 10000, "PriorityDecayHalfLife": "7-0"}, "22.05.8")
    assert warning == ["slurm.conf PriorityType unset (Slurm 22.05's default is priority/basic): "
                       "PriorityWeightFairshare, PriorityDecayHalfLife apply only to PriorityType=priority/multifactor "
                       "(slurm.conf.5) and are ignored; jobs run first in, first out. Set "
                       "PriorityType=priority/multifactor or drop them"]
    assert check_values({"PriorityWeightFairshare": 10000}, "23.11.4") == []
    assert check_values({"PriorityWeightFairshare": 10000}, "24.11") == []
    assert check_values({"PriorityWeightFairshare": 10000, "PriorityType": "priority/multifactor"}, "22.05") == []


# ---------------------------------------------------------------- PreemptType / PreemptMode
@pytest.mark.parametrize("value, parsed", [
    ("REQUEUE", ("REQUEUE", False, False)), ("cancel", ("CANCEL", False, False)), ("GANG", ("OFF", True, False)),
    ("SUSPEND,GANG", ("SUSPEND", True, False)), ("on,gang", ("SUSPEND", True, False)),
    ("CLUSTER", ("OFF", False, False)), ("REQUEUE,WITHIN", ("REQUEUE", False, True)),
    (["requeue", "gang"], ("REQUEUE", True, False)), ("requeue,,gang,", ("REQUEUE", True, False)),
])
def test_preempt_mode_parse(value, parsed):
    assert preempt_mode(value) == parsed


@pytest.mark.parametrize("value, match", [
    ("KILL", r"'KILL' is not a preemption mode"), ("REQUEUE,CANCEL", r"names 2 modes \(REQUEUE, CANCEL\)"),
    ("GANG,WITHIN", r"combines GANG and WITHIN"), ("requeue, gang", r"' gang' is not a preemption mode"),
    (3, r" must be a comma-separated string or a list of strings, got 3 of type int$"),
])
def test_preempt_mode_refused(value, match):
    refused(r"^slurm\.conf PreemptMode.*%s" % match, {"PreemptType": "preempt/qos", "PreemptMode": value})


@pytest.mark.parametrize("mode", ["SUSPEND", "on", "SUSPEND,WITHIN"])
@pytest.mark.parametrize("ptype", ["preempt/qos", "preempt/partition_prio"])
def test_suspend_needs_gang(mode, ptype):
    refused(r"PreemptMode=%s: SUSPEND needs GANG at the cluster level, whatever the PreemptType" % mode,
            {"PreemptType": ptype, "PreemptMode": mode})


def test_suspend_gang_is_accepted_and_warned_on_a_gpu_cluster():
    settings = {"PreemptType": "preempt/partition_prio", "PreemptMode": "SUSPEND,GANG"}
    assert check_values(settings, "22.05") == []
    assert check_values(settings, "22.05", cluster={"nodes": 8, "cpus": 832, "gpus": 0}) == []
    assert check_values(settings, "22.05", cluster=H100_64) == [
        "slurm.conf PreemptMode=SUSPEND,GANG on a cluster with 64 GPUs: suspended jobs keep their GRES (slurm.conf.5: "
        "'Suspended jobs will not release GRES'), so a preemptor that needs GPUs cannot get them; use REQUEUE or CANCEL"]


@pytest.mark.parametrize("value", ["preempt/QOS", "preempt/fifo", "qos", ["preempt/qos"]])
def test_preempt_type_refused(value):
    refused(r"PreemptType=.* is not a preemption plugin of Slurm; expected one of preempt/none, "
            r"preempt/partition_prio, preempt/qos", {"PreemptType": value, "PreemptMode": "CANCEL"})


@pytest.mark.parametrize("settings, shown", [
    ({"PreemptMode": "CANCEL"}, r"PreemptMode=CANCEL with PreemptType unset \(preempt/none\)"),
    ({"PreemptType": "preempt/none", "PreemptMode": "REQUEUE"}, r"PreemptMode=REQUEUE with PreemptType preempt/none"),
    ({"PreemptType": "preempt/none", "PreemptMode": "WITHIN"}, r"PreemptMode=WITHIN with PreemptType preempt/none"),
])
def test_mode_with_preemption_off_refused(settings, shown):
    refused(r"%s: preemption is off, so the only modes Slurm takes are OFF and GANG" % shown, settings)


@pytest.mark.parametrize("settings", [{}, {"PreemptMode": "OFF"}, {"PreemptMode": "GANG"},
                                      {"PreemptType": "preempt/none", "PreemptMode": "OFF,GANG"}])
def test_preemption_off_accepted(settings):
    assert check_values(settings, "24.11") == []


@pytest.mark.parametrize("mode, shown", [(None, "unset \\(OFF\\)"), ("OFF", "OFF"), ("GANG", "GANG"), ("WITHIN", "WITHIN"),
                                         ("CLUSTER,GANG", "CLUSTER,GANG")])
def test_preemption_on_with_mode_off_refused(mode, shown):
    settings = {"PreemptType": "preempt/qos"}
    if mode is not None:
        settings["PreemptMode"] = mode
    refused(r"PreemptType=preempt/qos with PreemptMode=%s: preemption is on but the cluster-wide mode is OFF" % shown,
            settings)


def test_within_without_preempt_qos_and_requeue_without_job_requeue_warn():
    assert check_values({"PreemptType": "preempt/partition_prio", "PreemptMode": "CANCEL,WITHIN"}, "24.11") == [
        "slurm.conf PreemptMode=CANCEL,WITHIN: WITHIN only acts with PreemptType=preempt/qos (slurm.conf.5); with "
        "preempt/partition_prio it is ignored"]
    assert check_values(dict(PREEMPT, JobRequeue=0), "24.11") == [
        "slurm.conf PreemptMode=REQUEUE with JobRequeue=0: only jobs submitted with --requeue are requeued, the others "
        "are cancelled (slurm.conf.5 PreemptMode REQUEUE)"]
    assert check_values(dict(PREEMPT, JobRequeue=1), "24.11") == []


# ---------------------------------------------------------------- QOS policy against preemption
def test_preempt_qos_without_a_preempting_qos_refused():
    message = refused(r"^slurm\.conf PreemptType=preempt/qos, but no QOS in qos preempts another \(the QOS given are "
                      r"normal, high\): preempt/qos preempts only the QOS listed", dict(PREEMPT, **ENFORCE),
                      qos=[NORMAL, dict(HIGH, preempt=[])])
    assert "Give the high-priority QOS a preempt list" in message
    refused(r"no QOS in qos preempts another \(no QOS is present\)", PREEMPT, qos=[])
    refused(r"no QOS in qos preempts another \(the QOS given are normal\)", dict(PREEMPT, **ENFORCE),
            qos=[NORMAL, dict(HIGH, state="absent")])


def test_preempt_qos_with_a_preempting_qos_accepted():
    assert check_values(dict(PREEMPT, **ENFORCE), "22.05.8", cluster=H100_64, qos=[NORMAL, HIGH]) == []


def test_without_qos_the_policy_is_not_checked():
    assert check_values(PREEMPT, "22.05.8") == []


def test_preempt_lists_without_preempt_qos_warn():
    assert check_values({"PreemptType": "preempt/partition_prio", "PreemptMode": "CANCEL"}, "24.11", qos=[HIGH]) == [
        "slurm.conf PreemptType=preempt/partition_prio: the QOS preempt lists (high (preempts normal)) act only with "
        "PreemptType=preempt/qos and are ignored"]


def test_qos_suspend_needs_gang():
    refused(r"^qos high preempt_mode suspend with slurm\.conf PreemptMode=REQUEUE: SUSPEND needs GANG", PREEMPT,
            qos=[dict(HIGH, preempt_mode="SUSPEND")])
    assert check_values({"PreemptType": "preempt/qos", "PreemptMode": "SUSPEND,GANG"}, "24.11",
                        qos=[dict(HIGH, preempt_mode="suspend")]) == []


def test_qos_preempting_itself_refused():
    refused(r"^qos high lists itself in its preempt list", PREEMPT, qos=[dict(HIGH, preempt=["normal", "high"])])


# ---------------------------------------------------------------- AccountingStorageEnforce
@pytest.mark.parametrize("value", ["associations,limits,qos", "associations,limits,qos,safe", "all", "1,2", "qos",
                                   ["associations", "limits"], "wckeys", "nosteps", "ASSOCIATIONS,Limits"])
def test_enforce_words(value):
    settings = {"AccountingStorageType": "accounting_storage/slurmdbd", "AccountingStorageEnforce": value}
    assert check_values(settings, "23.11") == []


@pytest.mark.parametrize("value, word", [("associations,limit", "limit"), ("yes", "yes"), ("qos,,limit", "limit"),
                                         ("associations, limits", " limits")])
def test_enforce_bad_words(value, word):
    refused(r"AccountingStorageEnforce=%s: %r is not an enforcement option .* expected a comma list of associations, "
            r"limits, qos, safe, wckeys, all, nojobs, nosteps \(limits, qos and wckeys imply associations; safe "
            r"implies limits and associations" % (value, word),
            {"AccountingStorageType": "accounting_storage/slurmdbd", "AccountingStorageEnforce": value})


def test_enforce_needs_slurmdbd():
    refused(r"AccountingStorageEnforce=limits with AccountingStorageType=accounting_storage/none: enforcement needs "
            r"the accounting database", {"AccountingStorageType": "accounting_storage/none",
                                         "AccountingStorageEnforce": "limits"})
    assert check_values({"AccountingStorageEnforce": "associations,limits,qos"}, "24.11") == [
        "slurm.conf AccountingStorageEnforce=associations,limits,qos: AccountingStorageType is not among these "
        "settings; enforcement works only with AccountingStorageType=accounting_storage/slurmdbd (the slurm role "
        "writes it when slurm_accounting is true); without it slurmctld ignores the enforcement"]


def test_enforce_nojobs_with_limits_warns():
    assert check_values(dict(ENFORCE, AccountingStorageEnforce="limits,nojobs"), "24.11") == [
        "slurm.conf AccountingStorageEnforce=limits,nojobs: nojobs stops job accounting, so the database keeps no job "
        "records for sacct or usage reports while limits are enforced"]


@pytest.mark.parametrize("enforce, shown", [(None, r" \(unset\)"), ("associations", "=associations"),
                                            ("associations,qos", "=associations,qos"), ("wckeys", "=wckeys")])
def test_qos_limits_need_limits_enforced(enforce, shown):
    settings = dict(PREEMPT, AccountingStorageType="accounting_storage/slurmdbd")
    if enforce:
        settings["AccountingStorageEnforce"] = enforce
    refused(r"^QOS limits are set \(normal \(max_jobs_per_user\)\) but slurm\.conf AccountingStorageEnforce%s does "
            r"not include limits" % shown, settings, qos=[NORMAL, HIGH])


@pytest.mark.parametrize("enforce", ["limits", "safe", "all", "associations,limits,qos"])
def test_qos_limits_with_limits_enforced(enforce):
    settings = dict(PREEMPT, AccountingStorageType="accounting_storage/slurmdbd", AccountingStorageEnforce=enforce)
    assert check_values(settings, "24.11", qos=[NORMAL, HIGH]) == []


def test_qos_without_limits_need_no_enforcement():
    assert check_values(PREEMPT, "24.11", qos=[{"name": "normal"}, HIGH]) == []


# ---------------------------------------------------------------- timeouts and the health check
@pytest.mark.parametrize("key", ["SlurmctldTimeout", "SlurmdTimeout"])
def test_timeouts_at_most_65533(key):
    refused(r"^slurm\.conf %s=65534: Slurm's documentation says it 'may not exceed 65533' seconds" % key, {key: 65534})
    assert check_values({key: "65533"}, "24.11") == []


def test_health_check_program_needs_an_interval():
    refused(r"HealthCheckProgram=/usr/local/sbin/gpufleet-gpu-health with HealthCheckInterval unset \(0\): slurmd runs "
            r"the program only when HealthCheckInterval is above 0", {"HealthCheckProgram": "/usr/local/sbin/gpufleet-gpu-health"})
    refused(r"HealthCheckProgram=/x with HealthCheckInterval=0: slurmd runs", {"HealthCheckProgram": "/x", "HealthCheckInterval": "0"})
    assert check_values({"HealthCheckProgram": "/x", "HealthCheckInterval": 300}, "24.11") == []


def test_health_check_interval_against_the_kill_time_and_slurmd_timeout():
    assert check_values({"HealthCheckInterval": 30}, "24.11") == [
        "slurm.conf HealthCheckInterval=30: slurmd lets each health check run for up to 60 s before killing it "
        "(slurmd.c), so a slow check can still be running when the next one starts; give 60 s or more"]
    assert check_values({"HealthCheckInterval": 300, "SlurmdTimeout": 60}, "24.11") == [
        "slurm.conf SlurmdTimeout=60 with HealthCheckInterval=300: slurmd runs the health check at start before it "
        "answers slurmctld, for up to 60 s (slurmd.c), so a restarting node can be marked DOWN (not responding) "
        "before it registers; give SlurmdTimeout above 60 s (Slurm's default is 300)"]
    # The role's defaults: SlurmdTimeout 300, HealthCheckInterval 300; SlurmdTimeout 0 switches the check off.
    assert check_values({"HealthCheckInterval": 300, "SlurmdTimeout": 300}, "24.11") == []
    assert check_values({"HealthCheckInterval": 300, "SlurmdTimeout": 0}, "24.11") == []
    assert check_values({"HealthCheckInterval": 0, "SlurmdTimeout": 30}, "24.11") == []
    # The lab's SlurmctldTimeout=10 has no relation to the health check.
    assert check_values({"HealthCheckInterval": 300, "SlurmctldTimeout": 10}, "24.11") == []


def test_message_timeout():
    assert check_values({"SlurmdTimeout": 10}, "24.11") == [
        "slurm.conf SlurmdTimeout=10 is not above MessageTimeout (unset, Slurm's default)=10: slurmctld pings nodes "
        "every SlurmdTimeout/3 and waits MessageTimeout for each reply (controller.c, ping_nodes.c), so one slow "
        "reply can mark a node DOWN; keep SlurmdTimeout several times MessageTimeout"]
    assert check_values({"MessageTimeout": 120, "SlurmdTimeout": 600}, "24.11") == [
        "slurm.conf MessageTimeout=120: slurmctld logs 'MessageTimeout is too high for effective fault-tolerance' "
        "above 100 s (read_config.c); Slurm's default is 10"]
    assert check_values({"MessageTimeout": 30, "SlurmdTimeout": 300}, "24.11") == []


def test_min_job_age():
    assert check_values({"MinJobAge": 1}, "24.11") == [
        "slurm.conf MinJobAge=1: slurmctld logs 'MinJobAge must be at least 2' and uses 2 (read_config.c)"]
    assert check_values({"MinJobAge": 2}, "24.11") == []


# ---------------------------------------------------------------- MaxJobCount against the cluster
def test_issue_max_job_count_64_on_8_nodes_of_8_gpus():
    # 8 nodes x 2 x 56 cores = 896 CPUs; 3 x 896 = 2688 records for running, pending and completed jobs.
    assert check_values({"MaxJobCount": 64}, "22.05.8", cluster=ISSUE) == [
        "slurm.conf MaxJobCount=64 is below 2688, 3 x the 896 jobs that can run at once (one per CPU: the smallest "
        "job takes one, GPU jobs included); MaxJobCount is the total for the whole cluster, not per user: slurmctld "
        "counts pending, running and completed jobs (kept MinJobAge, default 300 s) and every array task against it, "
        "and refuses submissions beyond it. Raise it to at least 2688 (Slurm's default is 10000); per-user limits "
        "are QOS or association limits"]


def test_max_job_count_h100_64():
    # 832 CPUs x 3 = 2496: 2495 warns, 2496 and Slurm's default 10000 do not.
    assert len(check_values({"MaxJobCount": 2495}, "22.05.8", cluster=H100_64)) == 1
    assert check_values({"MaxJobCount": 2496}, "22.05.8", cluster=H100_64) == []
    assert check_values({}, "22.05.8", cluster=H100_64) == []


def test_max_job_count_below_the_node_count_refused():
    message = refused(r"^slurm\.conf MaxJobCount=7 is below the cluster's 8 nodes: MaxJobCount is the controller-wide "
                      r"total of jobs it holds", {"MaxJobCount": 7}, cluster=ISSUE)
    assert "Allowed: at least 8; recommended at least 2688 (3 x the 896 jobs that can run at once)" in message
    assert len(check_values({"MaxJobCount": "8"}, "22.05", cluster=ISSUE)) == 1


def test_max_job_count_unset_on_a_large_cluster():
    # 4000 CPUs x 3 = 12000 > Slurm's default 10000.
    assert check_values({}, "24.11", cluster={"nodes": 100, "cpus": 4000, "gpus": 800})[0].startswith(
        "slurm.conf MaxJobCount unset (Slurm's default 10000) is below 12000, 3 x the 4000 jobs")


@pytest.mark.parametrize("cluster, wanted, unit", [
    ({"nodes": 8, "gpus": 64}, 192, "one per GPU"), ({"nodes": 8, "cpus": 0, "gpus": 0}, 24, "one per node"),
    ({"nodes": 2, "cpus": 16, "gpus": 16}, 48, "one per CPU"),
])
def test_max_job_count_without_cpu_counts(cluster, wanted, unit):
    warning = check_values({"MaxJobCount": wanted - 1}, "24.11", cluster=cluster)
    assert len(warning) == 1 and ("below %d" % wanted) in warning[0] and unit in warning[0]
    assert check_values({"MaxJobCount": wanted}, "24.11", cluster=cluster) == []


def test_max_job_count_zero_refused_without_cluster():
    refused(r"MaxJobCount=0: slurmctld refuses it \('MaxJobCount=0, No jobs permitted'\)", {"MaxJobCount": 0})
    assert check_values({"MaxJobCount": 64}, "24.11") == []  # no cluster: no size check


# ---------------------------------------------------------------- the new arguments' own checks
@pytest.mark.parametrize("cluster, match", [
    ([8], r"^cluster must be a mapping with nodes, cpus, gpus"),
    ({"nodes": 8, "gpu": 64}, r"^cluster has unknown key\(s\) 'gpu'; allowed: cpus, gpus, nodes"),
    ({"nodes": -1}, r"^cluster nodes \(total nodes in the cluster\)=-1 is below the minimum of 0"),
    ({"nodes": "8"}, r"^cluster nodes \(total nodes in the cluster\) must be a whole number, got '8' of type str"),
    ({"cpus": True}, r"^cluster cpus \(total cpus in the cluster\) must be a whole number, got True"),
    ({"gpus": 2 ** 40}, r"^cluster gpus \(total gpus in the cluster\)=1099511627776 is above the maximum"),
    ({"gpus": None}, r"must be a whole number, got None"),
])
def test_cluster_argument_refused(cluster, match):
    refused(match, {}, cluster=cluster)


@pytest.mark.parametrize("qos, match", [
    ("normal", r"^qos must be a list of QOS mappings"), ({"name": "x"}, r"^qos must be a list of QOS mappings"),
    (["normal"], r"^qos\[0\] must be a mapping with at least a name, got 'normal' of type str"),
    ([{"priority": 1}], r"^qos\[0\] name must be a string"),
    ([{"name": "a b"}], r"^qos\[0\] name: 'a b' is not allowed"),
    ([{"name": "high\n"}], r"^qos\[0\] name: 'high\\n' is not allowed"),
    ([{"name": "n"}, {"name": "N"}], r"^qos N is listed twice"),
    ([{"name": "n", "state": "gone"}], r"^qos n state: 'gone' is not allowed; expected present or absent"),
    ([{"name": "n", "preempt": "low"}], r"^qos n preempt must be a list"),
    ([{"name": "n", "preempt": ["lo w"]}], r"^qos n preempt\[0\]: 'lo w' is not allowed"),
    ([{"name": "n", "preempt_mode": "kill"}], r"^qos n preempt_mode: 'kill' is not allowed; expected one of cluster, "
                                              r"cancel, requeue, suspend, off"),
    ([{"name": "n", "preempt_mode": 1}], r"^qos n preempt_mode: 1 is not allowed"),
])
def test_qos_argument_refused(qos, match):
    refused(match, PREEMPT, qos=qos)
