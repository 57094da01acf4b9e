# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What slurm.conf values mean, beyond their key names and types: units, time formats, limits that depend
on the cluster's size, and keys that contradict each other or the QOS policy.

:func:`check_values` runs on settings that :func:`.settings.check_settings` already accepted (canonical
key names). It raises :class:`SlurmConfError` for what Slurm refuses or what cannot work, and returns
warnings for what works but is very likely not meant. Every rule names its source; paths are in
SchedMD/slurm at the tags the key catalogue uses (``slurm-22-05-8-1``, ``slurm-23-11-4-1``,
``slurm-24-11-5-1``; the code below is the same in all three unless a release is named):

* time strings (read by :mod:`.times`): ``src/common/read_config.c`` reads PriorityDecayHalfLife,
  PriorityCalcPeriod, PriorityMaxAge (minutes) and PreemptExemptTime (seconds) with ``parse_time.c``;
  PriorityUsageResetPeriod takes a word.
* PreemptMode: ``src/common/slurm_protocol_defs.c`` ``preempt_mode_num`` and the PreemptType/PreemptMode
  checks of ``read_config.c``; ``doc/man/man5/slurm.conf.5`` PreemptMode.
* AccountingStorageEnforce: ``read_config.c`` ``_validate_accounting_storage_enforce``;
  ``src/slurmctld/controller.c`` ("You can not have AccountingStorageEnforce set for
  AccountingStorageType=...": slurmctld drops the enforcement and runs without limits).
* timeouts: ``slurm.conf.5`` (SlurmctldTimeout, SlurmdTimeout "may not exceed 65533");
  ``src/slurmd/slurmd/slurmd.c`` ``run_script_health_check`` (HealthCheckProgram runs only when
  HealthCheckInterval is non-zero, is killed after 60 s, and runs at slurmd start before slurmd
  accepts messages); ``read_config.c`` (MessageTimeout above 100 s logged as "too high for effective
  fault-tolerance", MaxJobCount 0 refused, MinJobAge below 2 reset to 2).
"""
from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import list_of, mapping_of, must_be
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.conf.settings import SlurmConfError, slurm_release
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.conf.times import (
    hours_text, time_minutes, time_seconds)

# Keys read with time_str2mins (value in minutes) or time_str2secs (seconds), whether INFINITE is taken,
# and Slurm's default (minutes or seconds).
_TIME_KEYS = {
    "PriorityDecayHalfLife": ("minutes", True),
    "PriorityCalcPeriod": ("minutes", False),
    "PriorityMaxAge": ("minutes", True),
    "PreemptExemptTime": ("seconds", True),
}
RESET_PERIODS = ("NONE", "NOW", "DAILY", "WEEKLY", "MONTHLY", "QUARTERLY", "YEARLY")

#: PriorityCalcPeriod above this many minutes is refused. Slurm's default is 5 minutes; the multifactor
#: plugin's decay thread charges running jobs' usage, decays past usage and recomputes fair-share and job
#: priorities once per period, so a period of hours leaves priorities stale for hours.
CALC_PERIOD_MAX_MINUTES = 60

#: Warn when MaxJobCount is below this multiple of the jobs that can run at once. slurmctld keeps every
#: pending, running and (for MinJobAge, default 300 s) completed job under MaxJobCount (slurm.conf.5,
#: high_throughput.html), and each array task counts; a full cluster needs room for its running jobs,
#: at least as many pending ones for the scheduler and backfill to start next, and the just-completed
#: ones: three records per job that can run at once.
JOB_COUNT_MULTIPLE = 3
DEFAULT_MAX_JOB_COUNT = 10000  # read_config.h DEFAULT_MAX_JOB_COUNT, all three releases

_PREEMPT_TYPES = ("preempt/none", "preempt/partition_prio", "preempt/qos")
_PREEMPT_MODES = ("OFF", "CLUSTER", "CANCEL", "REQUEUE", "SUSPEND", "ON")
PREEMPT_MODE_ALLOWED = ("one of OFF, CANCEL, REQUEUE, SUSPEND (CLUSTER is OFF, ON is SUSPEND), optionally "
                        "with GANG or WITHIN (not both), comma separated, e.g. REQUEUE or SUSPEND,GANG or GANG")
ENFORCE_WORDS = {
    # word: what it switches on (read_config.c _validate_accounting_storage_enforce)
    "associations": ("associations",), "1": ("associations",),
    "limits": ("associations", "limits"), "2": ("associations", "limits"),
    "safe": ("associations", "limits", "safe"),
    "qos": ("associations", "qos"),
    "wckeys": ("associations", "wckeys"),
    "all": ("associations", "limits", "safe", "qos", "wckeys"),
    "nojobs": ("nojobs", "nosteps"),
    "nosteps": ("nosteps",),
}
_PRIORITY_DEFAULT = {"22.05": "priority/basic", "23.11": "priority/multifactor", "24.11": "priority/multifactor"}
_MULTIFACTOR_KEYS = ("PriorityWeightAge", "PriorityWeightAssoc", "PriorityWeightFairshare", "PriorityWeightJobSize",
                     "PriorityWeightPartition", "PriorityWeightQOS", "PriorityWeightTRES", "PriorityDecayHalfLife",
                     "PriorityCalcPeriod", "PriorityMaxAge", "PriorityUsageResetPeriod", "PriorityFavorSmall")
_TIMEOUT_MAX = 65533  # slurm.conf.5: SlurmctldTimeout and SlurmdTimeout "may not exceed 65533"
HEALTH_CHECK_KILL_SECONDS = 60  # slurmd.c run_script_health_check: max_wait = 60 * 1000 ms

CLUSTER_FIELDS = ("nodes", "cpus", "gpus")
_CLUSTER_MAX = 0xFFFFFFFF
QOS_PREEMPT_MODES = ("cluster", "cancel", "requeue", "suspend", "off")
# QOS fields of gpufleet.cluster.slurm_account that set a limit (the interface fixed by the lead).
QOS_LIMIT_FIELDS = ("max_jobs_per_user", "max_submit_jobs_per_user", "max_tres_per_user", "max_tres_per_job",
                    "max_wall", "grp_tres", "grp_jobs")


def _number(out: Mapping[str, Any], key: str) -> Optional[int]:
    """A numeric key's value as an int, or None when absent or not a plain number (its type check is elsewhere)."""
    value = out.get(key)
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and re.fullmatch(r"[0-9]+", value):
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"0[xX][0-9a-fA-F]+", value):
        return int(value, 16)
    return None


def _words(key: str, value: Any) -> List[str]:
    """A comma list (string or list of strings) as its words; refuses other types."""
    if isinstance(value, str):
        items = value.split(",")
    elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        items = [part for v in value for part in v.split(",")]
    else:
        raise must_be("slurm.conf %s" % key, value, "a comma-separated string or a list of strings", SlurmConfError)
    # Slurm splits with strtok_r(",") (empty items are skipped); blanks stay part of a word.
    return [item for item in items if item]


def preempt_mode(value: Any) -> Tuple[str, bool, bool]:
    """(mode, gang, within) from a PreemptMode value, as preempt_mode_num reads it (OFF when only GANG/WITHIN)."""
    mode, gang, within, modes = "OFF", False, False, []
    for word in _words("PreemptMode", value):
        upper = word.upper()
        if upper == "GANG":
            gang = True
        elif upper == "WITHIN":
            within = True
        elif upper in _PREEMPT_MODES:
            modes.append(upper)
        else:
            raise SlurmConfError("slurm.conf PreemptMode=%s: %r is not a preemption mode (slurmctld stops with "
                                 "'PreemptMode=... invalid'); expected %s" % (_show(value), word, PREEMPT_MODE_ALLOWED))
    if len(modes) > 1:
        raise SlurmConfError("slurm.conf PreemptMode=%s names %d modes (%s); Slurm takes only one, optionally with "
                             "GANG or WITHIN ('PreemptMode=... invalid'); expected %s"
                             % (_show(value), len(modes), ", ".join(modes), PREEMPT_MODE_ALLOWED))
    if gang and within:
        raise SlurmConfError("slurm.conf PreemptMode=%s combines GANG and WITHIN, which Slurm refuses "
                             "(slurm_protocol_defs.c preempt_mode_num); expected %s"
                             % (_show(value), PREEMPT_MODE_ALLOWED))
    if modes:
        mode = {"CLUSTER": "OFF", "ON": "SUSPEND"}.get(modes[0], modes[0])
    return mode, gang, within


def _show(value: Any) -> str:
    return ",".join(str(v) for v in value) if isinstance(value, (list, tuple)) else str(value)


def check_cluster(cluster: Any) -> Dict[str, int]:
    """The ``cluster`` argument: {nodes, cpus, gpus} whole numbers >= 0 (missing ones are 0)."""
    where = "cluster"
    mapping_of(where, cluster, SlurmConfError,
               "a mapping with %s (whole numbers >= 0, totals for the cluster)" % ", ".join(CLUSTER_FIELDS))
    input_rules.mapping(where, cluster, SlurmConfError, optional=CLUSTER_FIELDS)
    sizes = {}
    for field in CLUSTER_FIELDS:
        value = cluster.get(field, 0)
        sizes[field] = input_rules.integer("%s %s (total %s in the cluster)" % (where, field, field), value,
                                           SlurmConfError, minimum=0, maximum=_CLUSTER_MAX)
    return sizes


def check_qos(qos: Any) -> List[Dict[str, Any]]:
    """The ``qos`` argument in the shape of gpufleet.cluster.slurm_account's qos option (fields used here
    are checked; the others are the module's business and pass through)."""
    list_of("qos", qos, SlurmConfError, "a list of QOS mappings (name, preempt, preempt_mode, ... as "
            "gpufleet.cluster.slurm_account takes them)")
    out, seen = [], set()
    for index, item in enumerate(qos):
        where = "qos[%d]" % index
        mapping_of(where, item, SlurmConfError, "a mapping with at least a name")
        name = input_rules.check("slurm_name", where + " name", item.get("name"), SlurmConfError)
        where = "qos %s" % name
        if name.lower() in seen:
            raise SlurmConfError("%s is listed twice in qos; give each QOS once" % where)
        seen.add(name.lower())
        state = item.get("state", "present")
        if state is None:
            state = "present"
        if state not in ("present", "absent"):
            raise SlurmConfError("%s state: %r is not allowed; expected present or absent" % (where, state))
        preempt = item.get("preempt")
        preempt = [] if preempt is None else list(input_rules.string_list(where + " preempt", preempt, "slurm_name",
                                                                          SlurmConfError, allow_empty=True))
        mode = item.get("preempt_mode")
        if mode is not None:
            if not isinstance(mode, str) or mode.lower() not in QOS_PREEMPT_MODES:
                raise SlurmConfError("%s preempt_mode: %r is not allowed; expected one of %s"
                                     % (where, mode, ", ".join(QOS_PREEMPT_MODES)))
            mode = mode.lower()
        limits = [field for field in QOS_LIMIT_FIELDS if item.get(field) is not None]
        out.append({"name": name, "state": state, "preempt": preempt, "preempt_mode": mode, "limits": limits})
    return out


def check_values(out: Mapping[str, Any], version: Any, cluster: Any = None, qos: Any = None) -> List[str]:
    """Check slurm.conf values (canonical keys); return warnings, raise SlurmConfError for refusals."""
    release = slurm_release(version)
    sizes = check_cluster(cluster) if cluster is not None else None
    policy = check_qos(qos) if qos is not None else None
    warnings: List[str] = []
    minutes = _times(out)
    warnings += _priority(out, release, minutes)
    warnings += _preemption(out, sizes, policy)
    warnings += _enforce(out, policy)
    warnings += _timeouts(out)
    warnings += _job_count(out, sizes)
    return warnings


def _times(out: Mapping[str, Any]) -> Dict[str, Optional[int]]:
    """Time keys parsed (minutes, or seconds for PreemptExemptTime); PriorityUsageResetPeriod's word checked."""
    parsed = {}
    for key, (unit, infinite_ok) in _TIME_KEYS.items():
        if key in out:
            reader = time_minutes if unit == "minutes" else time_seconds
            parsed[key] = reader(key, out[key], infinite_ok)
    if "PriorityCalcPeriod" in out:
        period = parsed["PriorityCalcPeriod"]
        if period is not None and period < 1:
            raise SlurmConfError("slurm.conf PriorityCalcPeriod=%s is 0 minutes; Slurm refuses it ('Bad value ... "
                                 "for PriorityCalcPeriod'); give 1 to %d minutes (Slurm's default is 5)"
                                 % (out["PriorityCalcPeriod"], CALC_PERIOD_MAX_MINUTES))
        if period is not None and period > CALC_PERIOD_MAX_MINUTES:
            raise SlurmConfError(
                "slurm.conf PriorityCalcPeriod=%s: Slurm reads it in minutes, so it is %d minutes (%s); the "
                "multifactor plugin charges running jobs' usage, decays past usage and recomputes fair-share "
                "and job priorities only once per period, so priorities would be that stale. Allowed: 1 to %d "
                "minutes (Slurm's default is 5); for a period in hours write minutes, e.g. 60 for one hour"
                % (out["PriorityCalcPeriod"], period, hours_text(period), CALC_PERIOD_MAX_MINUTES))
    if "PriorityUsageResetPeriod" in out:
        word = out["PriorityUsageResetPeriod"]
        if not isinstance(word, str) or word.upper() not in RESET_PERIODS:
            raise SlurmConfError("slurm.conf PriorityUsageResetPeriod=%r is not a reset period (slurmctld stops "
                                 "with 'Bad value ... for PriorityUsageResetPeriod'); expected one of %s (it is a "
                                 "word, not a time)" % (word, ", ".join(RESET_PERIODS)))
    return parsed


def _priority(out: Mapping[str, Any], release: str, minutes: Mapping[str, Optional[int]]) -> List[str]:
    warnings = []
    half_life = minutes.get("PriorityDecayHalfLife")
    reset = str(out.get("PriorityUsageResetPeriod", "NONE")).upper()
    if "PriorityDecayHalfLife" in out and half_life == 0 and reset == "NONE":
        raise SlurmConfError(
            "slurm.conf PriorityDecayHalfLife=%s turns usage decay off, and PriorityUsageResetPeriod is %s, so "
            "usage would only ever grow (slurm.conf.5: 'If set to 0 PriorityUsageResetPeriod must be set to some "
            "interval'; slurmctld refuses it when the reset period is unset). Give a half-life such as 7-0, or a "
            "PriorityUsageResetPeriod of %s"
            % (out["PriorityDecayHalfLife"], "NONE" if "PriorityUsageResetPeriod" in out else "not set",
               ", ".join(RESET_PERIODS[1:])))
    period = minutes.get("PriorityCalcPeriod")
    if period is not None and half_life and period >= half_life:
        raise SlurmConfError(
            "slurm.conf PriorityCalcPeriod=%s (%d minutes) is not shorter than PriorityDecayHalfLife=%s (%d "
            "minutes): usage would decay in steps of a half-life or more instead of smoothly; keep "
            "PriorityCalcPeriod well below the half-life (Slurm's defaults: 5 minutes and 7 days)"
            % (out["PriorityCalcPeriod"], period, out["PriorityDecayHalfLife"], half_life))
    priority_type = str(out.get("PriorityType", _PRIORITY_DEFAULT[release])).lower()
    if priority_type == "priority/basic":
        ignored = [key for key in _MULTIFACTOR_KEYS if key in out]
        if ignored:
            given = "PriorityType=priority/basic" if "PriorityType" in out else \
                "PriorityType unset (Slurm %s's default is priority/basic)" % release
            warnings.append(
                "slurm.conf %s: %s apply only to PriorityType=priority/multifactor (slurm.conf.5) and are "
                "ignored; jobs run first in, first out. Set PriorityType=priority/multifactor or drop them"
                % (given, ", ".join(ignored)))
    return warnings


def _preemption(out: Mapping[str, Any], sizes: Optional[Mapping[str, int]],
                policy: Optional[Sequence[Mapping[str, Any]]]) -> List[str]:
    warnings = []
    preempt_type = out.get("PreemptType", "preempt/none")
    if not isinstance(preempt_type, str) or preempt_type not in _PREEMPT_TYPES:
        raise SlurmConfError("slurm.conf PreemptType=%r is not a preemption plugin of Slurm; expected one of %s "
                             "(lower case, as the plugin is named)" % (preempt_type, ", ".join(_PREEMPT_TYPES)))
    given_mode = out.get("PreemptMode")
    mode, gang, within = preempt_mode(given_mode) if given_mode is not None else ("OFF", False, False)
    shown = _show(given_mode) if given_mode is not None else "unset (OFF)"
    if mode == "SUSPEND" and not gang:
        raise SlurmConfError(
            "slurm.conf PreemptMode=%s: SUSPEND needs GANG at the cluster level, whatever the PreemptType "
            "(slurm.conf.5: 'the SUSPEND preemption mode always needs the GANG option'; slurmctld stops with "
            "'PreemptMode=SUSPEND requires GANG too'): the gang scheduler is what resumes suspended jobs. Use "
            "SUSPEND,GANG, or REQUEUE or CANCEL" % shown)
    if preempt_type == "preempt/none" and mode != "OFF" or (preempt_type == "preempt/none" and within):
        raise SlurmConfError(
            "slurm.conf PreemptMode=%s with PreemptType %s: preemption is off, so the only modes Slurm takes "
            "are OFF and GANG (read_config.c: 'PreemptType and PreemptMode values incompatible'). Set "
            "PreemptType=preempt/qos (or preempt/partition_prio), or PreemptMode=OFF"
            % (shown, "preempt/none" if "PreemptType" in out else "unset (preempt/none)"))
    if preempt_type != "preempt/none" and mode == "OFF":
        raise SlurmConfError(
            "slurm.conf PreemptType=%s with PreemptMode=%s: preemption is on but the cluster-wide mode is OFF, "
            "which slurmctld refuses ('PreemptType and PreemptMode values incompatible'; slurm.conf.5: 'a valid "
            "default PreemptMode value must be specified for the cluster as a whole'). Set PreemptMode to "
            "REQUEUE, CANCEL or SUSPEND,GANG" % (preempt_type, shown))
    if within and preempt_type != "preempt/qos":
        warnings.append("slurm.conf PreemptMode=%s: WITHIN only acts with PreemptType=preempt/qos (slurm.conf.5); "
                        "with %s it is ignored" % (shown, preempt_type))
    if mode == "SUSPEND" and sizes is not None and sizes["gpus"] > 0:
        warnings.append("slurm.conf PreemptMode=%s on a cluster with %d GPUs: suspended jobs keep their GRES "
                        "(slurm.conf.5: 'Suspended jobs will not release GRES'), so a preemptor that needs GPUs "
                        "cannot get them; use REQUEUE or CANCEL" % (shown, sizes["gpus"]))
    job_requeue = _number(out, "JobRequeue")
    if mode == "REQUEUE" and job_requeue == 0:
        warnings.append("slurm.conf PreemptMode=%s with JobRequeue=0: only jobs submitted with --requeue are "
                        "requeued, the others are cancelled (slurm.conf.5 PreemptMode REQUEUE)" % shown)
    if policy is None:
        return warnings
    present = [q for q in policy if q["state"] == "present"]
    preemptors = ["%s (preempts %s)" % (q["name"], ", ".join(q["preempt"])) for q in present if q["preempt"]]
    if preempt_type == "preempt/qos" and not preemptors:
        raise SlurmConfError(
            "slurm.conf PreemptType=preempt/qos, but no QOS in qos preempts another (%s): preempt/qos "
            "preempts only the QOS listed in a QOS's preempt list, so nothing would ever be preempted. Give the "
            "high-priority QOS a preempt list (e.g. preempt: [normal]), or set PreemptType=preempt/none"
            % ("the QOS given are %s" % ", ".join(q["name"] for q in present) if present else "no QOS is present"))
    if preempt_type != "preempt/qos" and preemptors:
        warnings.append("slurm.conf PreemptType=%s: the QOS preempt lists (%s) act only with PreemptType=preempt/qos "
                        "and are ignored" % (preempt_type, "; ".join(preemptors)))
    for item in present:
        if item["preempt_mode"] == "suspend" and not gang:
            raise SlurmConfError(
                "qos %s preempt_mode suspend with slurm.conf PreemptMode=%s: SUSPEND needs GANG at the cluster "
                "level (slurm.conf.5: 'always needs the GANG option to be specified at the cluster level'), or "
                "the suspended jobs are never resumed. Use requeue or cancel for the QOS, or add GANG to "
                "PreemptMode" % (item["name"], shown))
        if item["name"] in item["preempt"]:
            raise SlurmConfError("qos %s lists itself in its preempt list; a QOS preempting its own jobs is "
                                 "PreemptMode WITHIN, not a preempt entry; remove %s from preempt"
                                 % (item["name"], item["name"]))
    return warnings


def _enforce(out: Mapping[str, Any], policy: Optional[Sequence[Mapping[str, Any]]]) -> List[str]:
    warnings = []
    value = out.get("AccountingStorageEnforce")
    enforced = set()
    if value is not None:
        for word in _words("AccountingStorageEnforce", value):
            if word.lower() not in ENFORCE_WORDS:
                raise SlurmConfError(
                    "slurm.conf AccountingStorageEnforce=%s: %r is not an enforcement option (slurmctld stops with "
                    "'AccountingStorageEnforce invalid'); expected a comma list of associations, limits, qos, "
                    "safe, wckeys, all, nojobs, nosteps (limits, qos and wckeys imply associations; safe implies "
                    "limits and associations; all is all but nojobs and nosteps; nojobs implies nosteps)"
                    % (_show(value), word))
            enforced.update(ENFORCE_WORDS[word.lower()])
        storage = out.get("AccountingStorageType")
        if storage is not None and str(storage) != "accounting_storage/slurmdbd":
            raise SlurmConfError(
                "slurm.conf AccountingStorageEnforce=%s with AccountingStorageType=%s: enforcement needs the "
                "accounting database; slurmctld logs 'You can not have AccountingStorageEnforce set for "
                "AccountingStorageType' and runs without any limit (controller.c). Set "
                "AccountingStorageType=accounting_storage/slurmdbd or drop AccountingStorageEnforce"
                % (_show(value), storage))
        if storage is None:
            warnings.append(
                "slurm.conf AccountingStorageEnforce=%s: AccountingStorageType is not among these settings; "
                "enforcement works only with AccountingStorageType=accounting_storage/slurmdbd (the slurm role "
                "writes it when slurm_accounting is true); without it slurmctld ignores the enforcement"
                % _show(value))
        if "nojobs" in enforced and "limits" in enforced:
            warnings.append(
                "slurm.conf AccountingStorageEnforce=%s: nojobs stops job accounting, so the database keeps no job "
                "records for sacct or usage reports while limits are enforced" % _show(value))
    if policy is not None:
        limited = ["%s (%s)" % (q["name"], ", ".join(q["limits"])) for q in policy
                   if q["state"] == "present" and q["limits"]]
        if limited and "limits" not in enforced:
            raise SlurmConfError(
                "QOS limits are set (%s) but slurm.conf %s does not include limits "
                "(or safe or all): Slurm would not enforce any of them (slurm.conf.5 AccountingStorageEnforce). "
                "Set AccountingStorageEnforce=associations,limits,qos"
                % ("; ".join(limited), ("AccountingStorageEnforce=" + _show(value)) if value is not None
                   else "AccountingStorageEnforce (unset)"))
    return warnings


def _timeouts(out: Mapping[str, Any]) -> List[str]:
    warnings = []
    for key in ("SlurmctldTimeout", "SlurmdTimeout"):
        value = _number(out, key)
        if value is not None and value > _TIMEOUT_MAX:
            raise SlurmConfError("slurm.conf %s=%d: Slurm's documentation says it 'may not exceed %d' seconds "
                                 "(slurm.conf.5); give at most %d (0 for SlurmdTimeout turns the check off)"
                                 % (key, value, _TIMEOUT_MAX, _TIMEOUT_MAX))
    interval = _number(out, "HealthCheckInterval")
    slurmd = _number(out, "SlurmdTimeout")
    if "HealthCheckProgram" in out and not interval and (interval is not None or "HealthCheckInterval" not in out):
        raise SlurmConfError(
            "slurm.conf HealthCheckProgram=%s with HealthCheckInterval%s: slurmd runs the program only when "
            "HealthCheckInterval is above 0 (slurmd.c run_script_health_check), not even at start; give "
            "HealthCheckInterval in seconds (e.g. 300) or drop HealthCheckProgram"
            % (out["HealthCheckProgram"], "=0" if "HealthCheckInterval" in out else " unset (0)"))
    if interval and interval < HEALTH_CHECK_KILL_SECONDS:
        warnings.append(
            "slurm.conf HealthCheckInterval=%d: slurmd lets each health check run for up to %d s before killing it "
            "(slurmd.c), so a slow check can still be running when the next one starts; give %d s or more"
            % (interval, HEALTH_CHECK_KILL_SECONDS, HEALTH_CHECK_KILL_SECONDS))
    if interval and slurmd is not None and 0 < slurmd <= HEALTH_CHECK_KILL_SECONDS:
        warnings.append(
            "slurm.conf SlurmdTimeout=%d with HealthCheckInterval=%d: slurmd runs the health check at start before "
            "it answers slurmctld, for up to %d s (slurmd.c), so a restarting node can be marked DOWN (not "
            "responding) before it registers; give SlurmdTimeout above %d s (Slurm's default is 300)"
            % (slurmd, interval, HEALTH_CHECK_KILL_SECONDS, HEALTH_CHECK_KILL_SECONDS))
    given_message = _number(out, "MessageTimeout")
    message = 10 if given_message is None else given_message  # read_config.h DEFAULT_MSG_TIMEOUT
    if message > 100:
        warnings.append("slurm.conf MessageTimeout=%d: slurmctld logs 'MessageTimeout is too high for effective "
                        "fault-tolerance' above 100 s (read_config.c); Slurm's default is 10" % message)
    if slurmd and slurmd <= message:
        warnings.append("slurm.conf SlurmdTimeout=%d is not above MessageTimeout%s=%d: slurmctld pings nodes every "
                        "SlurmdTimeout/3 and waits MessageTimeout for each reply (controller.c, ping_nodes.c), so one "
                        "slow reply can mark a node DOWN; keep SlurmdTimeout several times MessageTimeout"
                        % (slurmd, "" if given_message is not None else " (unset, Slurm's default)", message))
    min_age = _number(out, "MinJobAge")
    if min_age is not None and min_age < 2:
        warnings.append("slurm.conf MinJobAge=%d: slurmctld logs 'MinJobAge must be at least 2' and uses 2 "
                        "(read_config.c)" % min_age)
    return warnings


def _job_count(out: Mapping[str, Any], sizes: Optional[Mapping[str, int]]) -> List[str]:
    value = _number(out, "MaxJobCount")
    if "MaxJobCount" in out and value == 0:
        raise SlurmConfError("slurm.conf MaxJobCount=0: slurmctld refuses it ('MaxJobCount=0, No jobs permitted'); "
                             "omit it for Slurm's default of %d" % DEFAULT_MAX_JOB_COUNT)
    if sizes is None or ("MaxJobCount" in out and value is None):
        return []
    count = DEFAULT_MAX_JOB_COUNT if value is None else value
    shown = "MaxJobCount=%d" % count if value is not None else "MaxJobCount unset (Slurm's default %d)" % count
    wanted, running, unit = _wanted(sizes)
    if count < sizes["nodes"]:
        raise SlurmConfError(
            "slurm.conf %s is below the cluster's %d nodes: MaxJobCount is the controller-wide total of jobs it "
            "holds, pending, running and completed (slurm.conf.5), not a per-user limit, so the cluster could "
            "not even run one job per node and further submissions are refused. Allowed: at least %d; "
            "recommended at least %d (%d x the %d jobs that can run at once); per-user limits are QOS or "
            "association limits (MaxJobsPerUser, MaxSubmitJobsPerUser)"
            % (shown, sizes["nodes"], sizes["nodes"], wanted, JOB_COUNT_MULTIPLE, running))
    if count < wanted:
        return ["slurm.conf %s is below %d, %d x the %d jobs that can run at once (one per %s); MaxJobCount is "
                "the total for the whole cluster, not per user: slurmctld counts pending, running and completed jobs "
                "(kept MinJobAge, default 300 s) and every array task against it, and refuses submissions beyond "
                "it. Raise it to at least %d (Slurm's default is %d); per-user limits are QOS or association limits"
                % (shown, wanted, JOB_COUNT_MULTIPLE, running, unit, wanted, DEFAULT_MAX_JOB_COUNT)]
    return []


def _wanted(sizes: Mapping[str, int]) -> Tuple[int, int, str]:
    """(recommended minimum, jobs that can run at once, what bounds them): the CPUs (every job holds at least one,
    GPU jobs included), or the GPUs or the nodes where those are more (a count not given is 0)."""
    running, unit = max((sizes["cpus"], 2, "CPU: the smallest job takes one, GPU jobs included"),
                        (sizes["gpus"], 1, "GPU"), (sizes["nodes"], 0, "node"))[0::2]
    return JOB_COUNT_MULTIPLE * running, running, unit
