# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
name: slurm_conf_check
version_added: 0.1.0
short_description: Validate Slurm settings for the installed release and render them as Key=Value lines
description:
  - Checks every key of a slurm.conf, slurmdbd.conf, cgroup.conf or gres.conf settings mapping against
    the keys that Slurm's own parser accepts in that release (22.05, 23.11 or 24.11; the version is
    matched by major.minor, so C(22.05.8) is 22.05). Keys are case-insensitive, as in Slurm.
  - Old spellings are translated (C(ControlMachine)/C(ControlAddr)/C(BackupController)/C(BackupAddr) to
    C(SlurmctldHost), C(CryptoType) to C(CredType), C(KeepAliveTime) to C(CommunicationParameters)
    C(keepalivetime=)). Removed keys are refused with the fix; unknown keys are refused naming the
    closest real keys.
  - Values follow Slurm's grammar, namely lists comma joined, C(true)/C(false) only for the parser's
    yes/no keys (written YES/NO), numbers range checked, no whitespace, C(#) or double quotes. A
    mapping renders as C(opt,key=value) for option-list keys such as C(SchedulerParameters).
  - "slurm.conf values are also checked for what they mean (sources: SchedMD/slurm C(src/common/read_config.c),
    C(src/common/parse_time.c), C(slurm.conf.5) of each release). B(Refused): a time key not in a form
    C(time_str2secs) reads (C(PriorityDecayHalfLife), C(PriorityCalcPeriod), C(PriorityMaxAge) in minutes,
    C(PreemptExemptTime) in seconds: MINUTES, MINUTES:SECONDS, HOURS:MINUTES:SECONDS, DAYS-HOURS,
    DAYS-HOURS:MINUTES, DAYS-HOURS:MINUTES:SECONDS or INFINITE); C(PriorityCalcPeriod) of 0 or above 60 minutes
    (Slurm reads minutes: C(3600) is 60 hours, and usage, fair-share and priorities are recomputed only once per
    period) or not below C(PriorityDecayHalfLife); C(PriorityDecayHalfLife=0) without a
    C(PriorityUsageResetPeriod) (NONE, NOW, DAILY, WEEKLY, MONTHLY, QUARTERLY, YEARLY); a C(PreemptType) other
    than preempt/none, preempt/partition_prio, preempt/qos; a C(PreemptMode) that is not one mode (OFF, CANCEL,
    REQUEUE, SUSPEND) with GANG or WITHIN; SUSPEND without GANG; a preemption mode with preemption off, or OFF
    with it on; C(AccountingStorageEnforce) words other than associations, limits, qos, safe, wckeys, all, nojobs,
    nosteps, or with an C(AccountingStorageType) other than accounting_storage/slurmdbd; C(SlurmctldTimeout) or
    C(SlurmdTimeout) above 65533; a C(HealthCheckProgram) with C(HealthCheckInterval) 0 or unset (it would never
    run); C(MaxJobCount=0). Ports are 1-65535 (ranges where Slurm takes them)."
  - "B(Warned) (in C(warnings)): priority keys with C(PriorityType=priority/basic) (ignored; the default in
    22.05); C(HealthCheckInterval) under 60 s (a check may run 60 s); C(SlurmdTimeout) of 60 s or less with a
    health check (slurmd runs it at start before it answers pings); C(SlurmdTimeout) not above
    C(MessageTimeout); C(MessageTimeout) above 100; C(MinJobAge) under 2; REQUEUE with C(JobRequeue=0); WITHIN
    without preempt/qos; C(AccountingStorageEnforce) without C(AccountingStorageType) among the settings (the
    slurm role writes it in its template)."
  - "With O(cluster): C(MaxJobCount) (or Slurm's default 10000 when unset) below the node count is refused;
    below 3 x the jobs that can run at once is warned. The jobs that can run at once are the CPUs (every job
    holds at least one CPU, GPU jobs included), or the GPUs or nodes where those are more (when no CPU count is
    given). Why 3: slurmctld counts pending, running and completed jobs (completed ones for C(MinJobAge), default
    300 s) and every array task against C(MaxJobCount) and refuses submissions beyond it (slurm.conf.5,
    high_throughput.html), so a full cluster needs one record for each running job, at least one pending job
    per running one for the scheduler and backfill to start next, and one for the job that just completed there.
    Slurm's default 10000 passes on clusters up to 3333 CPUs. C(PreemptMode) SUSPEND on a cluster with GPUs is
    warned (suspended jobs keep their GRES)."
  - "With O(qos): C(PreemptType=preempt/qos) with no present QOS that preempts another is refused (nothing
    would ever be preempted); a QOS with preempt_mode suspend without GANG in C(PreemptMode), or preempting
    itself, is refused; QOS limits without C(limits) (or safe/all) in C(AccountingStorageEnforce) are refused
    (they would not bind); preempt lists with another PreemptType are warned. Without O(qos) none of these run."
positional: _input, conf, version
options:
  _input:
    description: Mapping of Slurm keys to values.
    type: dict
    required: true
  conf:
    description: Which file the settings are for.
    type: str
    choices: [slurm.conf, slurmdbd.conf, cgroup.conf, gres.conf]
    required: true
  version:
    description: Installed Slurm version, for example C(22.05.8) or C(23.11.4).
    type: str
    required: true
  defaults:
    description:
      - For C(cgroup.conf) only, start from the collection's cgroup.conf (C(CgroupPlugin=autodetect),
        C(ConstrainCores), C(ConstrainDevices), C(ConstrainRAMSpace) all yes) and lay the input over it.
    type: bool
    default: false
  cluster:
    description:
      - For C(slurm.conf) only, the cluster's size, for the C(MaxJobCount) and GPU checks. Totals for the whole
        cluster (compute nodes), whole numbers >= 0; a missing field is 0.
      - The slurm role passes the compute nodes, the sum of their CPUs and the sum of their GPUs.
    type: dict
    suboptions:
      nodes:
        description: Compute nodes.
        type: int
      cpus:
        description: CPUs (Slurm's CPUs= of every node, summed).
        type: int
      gpus:
        description: GPUs (every node's Gres gpu count, summed).
        type: int
  names:
    description:
      - "The variable each key's value comes from (key as given, case-insensitive, to the variable's name), for
        example C({'StoragePass': 'slurm_db_password'}); a refused value's message then starts with the variable's
        name, so the user knows what to change."
      - Whatever O(names) says, the value of a secret key (C(StoragePass), C(AccountingStoragePass),
        C(JobCompPass)) is never shown in a message. A secret must be one word Slurm reads back whole (no blank,
        C(#), double quote, backslash or control character), since the database keeps the whole password.
    type: dict
  qos:
    description:
      - For C(slurm.conf) only, the QOS policy in the shape of C(gpufleet.cluster.slurm_account)'s O(qos)
        option. Used here are C(name), C(state), C(preempt), C(preempt_mode) and whether any limit field
        (C(max_jobs_per_user), C(max_submit_jobs_per_user), C(max_tres_per_user), C(max_tres_per_job), C(max_wall),
        C(grp_tres), C(grp_jobs)) is set; the other fields pass unchecked (the module checks them).
      - Not given (the default) means the QOS checks do not run; an empty list means no QOS.
    type: list
    elements: dict
  topology:
    description:
      - For C(slurm.conf) only, the fabric's topology as C(gpufleet.cluster.slurm_topology_conf) takes it
        (C(gpufleet_fabric.topology)). Adds C(TopologyPlugin) for its C(kind) - C(topology/tree) for C(tree),
        C(topology/block) for C(block) (Slurm 23.11 and later) - so the plugin reads the lines topology.conf holds,
        and the checks above (C(select/linear) with C(topology/tree)) see it.
      - A C(TopologyPlugin) already in the input must be that plugin, or it is refused.
      - Not given (the default) means no C(TopologyPlugin) is added.
    type: dict
"""

EXAMPLES = r"""
- name: slurm.conf settings for the lab (Debian 12, Slurm 22.05.8)
  ansible.builtin.set_fact:
    gpufleet_slurm_conf: "{{ gpufleet_slurm_settings | gpufleet.cluster.slurm_conf_check('slurm.conf', '22.05.8') }}"
  # {ControlMachine: head1, ControlAddr: 10.0.0.1} gives
  # settings: {SlurmctldHost: head1(10.0.0.1)}, lines: [SlurmctldHost=head1(10.0.0.1)],
  # translated: [{from: ControlMachine, to: SlurmctldHost, why: ...}, ...]

- name: slurm.conf settings checked against the cluster's size and its QOS policy
  ansible.builtin.set_fact:
    gpufleet_slurm_conf: >-
      {{ gpufleet_slurm_settings | gpufleet.cluster.slurm_conf_check('slurm.conf', '22.05.8',
           cluster={'nodes': 8, 'cpus': 832, 'gpus': 64}, qos=slurm_qos) }}
  # {MaxJobCount: 64} gives warnings: ["slurm.conf MaxJobCount=64 is below 2496, 3 x the 832 jobs that can run
  # at once ..."]; {PriorityCalcPeriod: 3600} is refused: "... it is 3600 minutes (60 hours) ...".

- name: Preflight | Check the slurmdbd.conf values (a refusal names the variable, never the password)
  ansible.builtin.assert:
    that: >-
      ({'StorageLoc': slurm_db_name, 'StoragePass': slurm_db_password}
       | gpufleet.cluster.slurm_conf_check('slurmdbd.conf', '23.11.4',
           names={'StorageLoc': 'slurm_db_name', 'StoragePass': 'slurm_db_password'})).lines | length == 2
    quiet: true
  # A password with '#' fails: "slurm_db_password: slurmdbd.conf StoragePass (its value is a secret and not shown)
  # holds '#', which starts a comment ..."

- name: cgroup.conf from the defaults
  ansible.builtin.copy:
    dest: /etc/slurm/cgroup.conf
    content: "{{ ({} | gpufleet.cluster.slurm_conf_check('cgroup.conf', '23.11.4', defaults=true)).lines | join('\n') }}\n"
"""

RETURN = r"""
_value:
  description: The checked settings and their lines.
  type: dict
  contains:
    settings:
      description: Settings with Slurm's canonical key names, old spellings translated.
      type: dict
    translated:
      description: One C({from, to, why}) per translated key.
      type: list
      elements: dict
    warnings:
      description:
        - Keys Slurm still honours but logs as deprecated, and values that work but are very likely not meant
          (see the description).
      type: list
      elements: str
    lines:
      description: The C(Key=Value) lines, one per key (several for repeatable keys such as SlurmctldHost).
      type: list
      elements: str
"""

from ansible_collections.gpufleet.cluster.plugins.plugin_utils.filters import collection_filter, flag, of_type, one_of

# module_utils is imported inside the filter, never up front (plugins/plugin_utils/filters.py says why).


@collection_filter("slurm_conf_check")
def slurm_conf_check(settings, conf, version, defaults=False, cluster=None, qos=None, names=None,
                     topology=None):
    """Validate and translate Slurm settings; return settings, translations, warnings and lines."""
    from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.conf.settings import (
        CONF_FILES,
        SlurmConfError,
        cgroup_conf,
        check_settings,
        render_conf_lines,
    )
    from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.conf.values import check_values
    from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.topology import with_topology_plugin
    of_type("input", settings, dict, "a mapping of Slurm keys")
    one_of("conf", conf, CONF_FILES)
    of_type("version", version, str, "a string such as '22.05.8'")
    flag("defaults", defaults)
    of_type("names", names, dict, "a mapping of Slurm keys to variable names", optional=True)
    merged = dict(settings)
    if defaults:
        if conf != "cgroup.conf":
            raise SlurmConfError("defaults=true exists for cgroup.conf only")
        base = dict(line.split("=", 1) for line in cgroup_conf(version))
        lowered = {str(k).lower() for k in settings}
        merged = {k: v for k, v in base.items() if k.lower() not in lowered}
        merged.update(settings)
    of_type("topology", topology, dict, "a topology mapping with kind tree or block", optional=True)
    if (cluster is not None or qos is not None or topology is not None) and conf != "slurm.conf":
        raise SlurmConfError("cluster, qos and topology apply to slurm.conf only, not %s" % conf)
    if topology is not None:
        merged = with_topology_plugin(merged, topology, version)
    result = check_settings(conf, merged, version, names)
    if conf == "slurm.conf":
        result["warnings"] = result["warnings"] + check_values(result["settings"], version, cluster, qos)
    result["lines"] = render_conf_lines(result["settings"], conf, version)
    return result


class FilterModule:
    def filters(self):
        return {"slurm_conf_check": slurm_conf_check}
