# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Data: the catalogue of the keys Slurm's configuration parsers accept, per Slurm release (over 500 lines as data).

Where each list comes from
--------------------------
Every ``_<FILE>_22_05`` / ``_<FILE>_24_11`` tuple below was extracted mechanically (a regex over
the ``s_p_options_t`` arrays, names, parser types and the ``_defunct_option`` handler kept, order
kept) from Slurm's own source; nothing was typed by hand:

* 22.05 -- SchedMD/slurm tag ``slurm-22-05-8-1`` (the ``slurm-wlm_22.05.8.orig.tar.gz`` that Debian 12
  builds its 22.05.8 packages from is GitHub's archive of that tag: top folder
  ``slurm-slurm-22-05-8-1``, META ``Micro: 8``).
* 24.11 -- SchedMD/slurm tag ``slurm-24-11-5-1`` (Debian 13's ``slurm-wlm_24.11.5.orig.tar.gz``,
  top folder ``slurm-slurm-24-11-5-1``).

Paths per file (22.05 path first, 24.11 path second where it moved):

* slurm.conf: ``src/common/read_config.c`` ``slurm_conf_options[]``; NodeName= line
  ``_nodename_options[]``; PartitionName= line ``_partition_options[]``.
* slurmdbd.conf: ``src/slurmdbd/read_config.c`` ``options[]`` in ``read_slurmdbd_conf()``.
* cgroup.conf: ``src/common/cgroup.c`` / ``src/interfaces/cgroup.c`` ``options[]``.
* gres.conf: ``src/common/gres.c`` / ``src/interfaces/gres.c`` ``_gres_conf_options[]`` (file
  level) and ``_gres_options[]`` (keys of a ``Name=``/``NodeName=`` line).
* topology.conf (tree): ``src/plugins/topology/tree/topology_tree.c`` /
  ``src/plugins/topology/tree/switch_record.c`` ``switch_options[]`` + ``_switch_options[]``;
  (block, 24.11) ``src/plugins/topology/block/block_record.c`` ``block_options[]`` +
  ``_block_options[]``.

23.11 -- SchedMD/slurm tag ``slurm-23-11-4-1`` (Ubuntu 24.04's 23.11.4), read from the source like the others
and kept as its differences from 22.05.8 in ``_DERIVED_23_11`` below.

Every table is pinned: ``tests/fixtures/slurm-keys/<tag>.json`` holds each release's rows as
``docs/tools/slurm_keys_extract.py`` reads them from that tag of SchedMD/slurm (with the commit), and
``tests/unit/plugins/module_utils/slurm/test_keys.py`` fails when a key here is renamed, retyped, missing or
extra.

Type codes: str, u16, u32, u64, bool, float (Slurm's S_P_ types), lines (S_P_ARRAY: the key may be
repeated, one value per line). A ``!defunct`` suffix marks keys Slurm still accepts through
``_defunct_option()``: it logs an error and ignores the value.
"""
from __future__ import annotations

from typing import Dict, Tuple

# src/common/read_config.c slurm_conf_options[], 226 keys
_SLURM_CONF_22_05 = (
    ("AccountingStorageTRES", "str"), ("AccountingStorageEnforce", "str"),
    ("AccountingStorageExternalHost", "str"), ("AccountingStorageHost", "str"),
    ("AccountingStorageBackupHost", "str"), ("AccountingStorageLoc", "str"),
    ("AccountingStorageParameters", "str"), ("AccountingStoragePass", "str"),
    ("AccountingStoragePort", "u16"), ("AccountingStorageType", "str"),
    ("AccountingStorageUser", "str"), ("AccountingStoreFlags", "str"),
    ("AccountingStoreJobComment", "bool"), ("AcctGatherEnergyType", "str"),
    ("AcctGatherNodeFreq", "u16"), ("AcctGatherProfileType", "str"),
    ("AcctGatherInterconnectType", "str"), ("AcctGatherInfinibandType", "str"),
    ("AcctGatherFilesystemType", "str"), ("AllowSpecResourcesUsage", "bool"),
    ("AuthAltTypes", "str"), ("AuthAltParameters", "str"), ("AuthInfo", "str"), ("AuthType", "str"),
    ("BackupAddr", "str"), ("BackupController", "str"), ("BatchStartTimeout", "u16"),
    ("BcastExclude", "str"), ("BcastParameters", "str"), ("BurstBufferParameters", "str"),
    ("BurstBufferType", "str"), ("CoreSpecPlugin", "str"), ("CliFilterPlugins", "str"),
    ("ClusterName", "str"), ("CommunicationParameters", "str"), ("CompleteWait", "u16"),
    ("ControlAddr", "str"), ("ControlMachine", "str"), ("CpuFreqDef", "str"),
    ("CpuFreqGovernors", "str"), ("CredType", "str"), ("CryptoType", "str"), ("DebugFlags", "str"),
    ("DefCPUPerGPU", "u64"), ("DefMemPerCPU", "u64"), ("DefMemPerGPU", "u64"),
    ("DefMemPerNode", "u64"), ("DependencyParameters", "str"), ("DisableRootJobs", "bool"),
    ("EioTimeout", "u16"), ("EnforcePartLimits", "str"), ("Epilog", "str"),
    ("EpilogMsgTime", "u32"), ("EpilogSlurmctld", "str"), ("ExtSensorsType", "str"),
    ("ExtSensorsFreq", "u16"), ("FairShareDampeningFactor", "u16"), ("FastSchedule", "u16"),
    ("FederationParameters", "str"), ("FirstJobId", "u32"), ("GetEnvTimeout", "u16"),
    ("GresTypes", "str"), ("GroupUpdateForce", "u16"), ("GroupUpdateTime", "u16"),
    ("GpuFreqDef", "str"), ("HealthCheckInterval", "u16"), ("HealthCheckNodeState", "str"),
    ("HealthCheckProgram", "str"), ("InteractiveStepOptions", "str"), ("InactiveLimit", "u16"),
    ("JobAcctGatherType", "str"), ("JobAcctGatherFrequency", "str"), ("JobAcctGatherParams", "str"),
    ("JobCompHost", "str"), ("JobCompLoc", "str"), ("JobCompParams", "str"), ("JobCompPass", "str"),
    ("JobCompPort", "u32"), ("JobCompType", "str"), ("JobContainerType", "str"),
    ("JobCompUser", "str"), ("JobCredentialPrivateKey", "str"),
    ("JobCredentialPublicCertificate", "str"), ("JobFileAppend", "u16"), ("JobRequeue", "u16"),
    ("JobSubmitPlugins", "str"), ("KeepAliveTime", "u32"), ("KillOnBadExit", "u16"),
    ("KillWait", "u16"), ("LaunchParameters", "str"), ("LaunchType", "str"), ("Licenses", "str"),
    ("LogTimeFormat", "str"), ("MailDomain", "str"), ("MailProg", "str"), ("MaxArraySize", "u32"),
    ("MaxDBDMsgs", "u32"), ("MaxJobCount", "u32"), ("MaxNodeCount", "u32"), ("MaxJobId", "u32"),
    ("MaxMemPerCPU", "u64"), ("MaxMemPerNode", "u64"), ("MaxStepCount", "u32"),
    ("MaxTasksPerNode", "u16"), ("MCSParameters", "str"), ("MCSPlugin", "str"),
    ("MessageTimeout", "u16"), ("MinJobAge", "u32"), ("MpiDefault", "str"), ("MpiParams", "str"),
    ("NodeFeaturesPlugins", "str"), ("OverTimeLimit", "u16"), ("PluginDir", "str"),
    ("PlugStackConfig", "str"), ("PowerParameters", "str"), ("PowerPlugin", "str"),
    ("PreemptMode", "str"), ("PreemptType", "str"), ("PreemptExemptTime", "str"),
    ("PrEpParameters", "str"), ("PrEpPlugins", "str"), ("PriorityDecayHalfLife", "str"),
    ("PriorityCalcPeriod", "str"), ("PriorityFavorSmall", "bool"), ("PriorityMaxAge", "str"),
    ("PriorityParameters", "str"), ("PriorityUsageResetPeriod", "str"), ("PriorityType", "str"),
    ("PriorityFlags", "str"), ("PrioritySiteFactorParameters", "str"),
    ("PrioritySiteFactorPlugin", "str"), ("PriorityWeightAge", "u32"),
    ("PriorityWeightAssoc", "u32"), ("PriorityWeightFairshare", "u32"),
    ("PriorityWeightJobSize", "u32"), ("PriorityWeightPartition", "u32"),
    ("PriorityWeightQOS", "u32"), ("PriorityWeightTRES", "str"), ("PrivateData", "str"),
    ("ProctrackType", "str"), ("Prolog", "str"), ("PrologSlurmctld", "str"),
    ("PrologEpilogTimeout", "u16"), ("PrologFlags", "str"), ("PropagatePrioProcess", "u16"),
    ("PropagateResourceLimitsExcept", "str"), ("PropagateResourceLimits", "str"),
    ("RebootProgram", "str"), ("ReconfigFlags", "str"), ("RequeueExit", "str"),
    ("RequeueExitHold", "str"), ("ResumeFailProgram", "str"), ("ResumeProgram", "str"),
    ("ResumeRate", "u16"), ("ResumeTimeout", "u16"), ("ResvEpilog", "str"), ("ResvOverRun", "u16"),
    ("ResvProlog", "str"), ("ReturnToService", "u16"), ("RoutePlugin", "str"),
    ("SallocDefaultCommand", "str"), ("SbcastParameters", "str"), ("SchedulerAuth", "str!defunct"),
    ("SchedulerParameters", "str"), ("SchedulerTimeSlice", "u16"), ("SchedulerType", "str"),
    ("ScronParameters", "str"), ("SelectType", "str"), ("SelectTypeParameters", "str"),
    ("SlurmUser", "str"), ("SlurmdUser", "str"), ("SlurmctldAddr", "str"),
    ("SlurmctldDebug", "str"), ("SlurmctldLogFile", "str"), ("SlurmctldPidFile", "str"),
    ("SlurmctldPlugstack", "str"), ("SlurmctldPort", "str"), ("SlurmctldPrimaryOffProg", "str"),
    ("SlurmctldPrimaryOnProg", "str"), ("SlurmctldSyslogDebug", "str"), ("SlurmctldTimeout", "u16"),
    ("SlurmctldParameters", "str"), ("SlurmdDebug", "str"), ("SlurmdLogFile", "str"),
    ("SlurmdParameters", "str"), ("SlurmdPidFile", "str"), ("SlurmdPort", "u32"),
    ("SlurmdSpoolDir", "str"), ("SlurmdSyslogDebug", "str"), ("SlurmdTimeout", "u16"),
    ("SlurmSchedLogFile", "str"), ("SlurmSchedLogLevel", "u16"), ("SrunEpilog", "str"),
    ("SrunProlog", "str"), ("SrunPortRange", "str"), ("StateSaveLocation", "str"),
    ("SuspendExcNodes", "str"), ("SuspendExcParts", "str"), ("SuspendProgram", "str"),
    ("SuspendRate", "u16"), ("SuspendTime", "str"), ("SuspendTimeout", "u16"),
    ("SwitchParameters", "str"), ("SwitchType", "str"), ("TaskEpilog", "str"),
    ("TaskProlog", "str"), ("TaskPlugin", "str"), ("TaskPluginParam", "str"), ("TCPTimeout", "u16"),
    ("TmpFS", "str"), ("TopologyParam", "str"), ("TopologyPlugin", "str"), ("TrackWCKey", "bool"),
    ("TreeWidth", "u16"), ("UnkillableStepProgram", "str"), ("UnkillableStepTimeout", "u16"),
    ("UsePAM", "bool"), ("VSizeFactor", "u16"), ("WaitTime", "u16"), ("X11Parameters", "str"),
    ("DownNodes", "lines"), ("FrontendName", "lines"), ("NodeName", "lines"), ("NodeSet", "lines"),
    ("PartitionName", "lines"), ("SlurmctldHost", "lines"),
)

# src/common/read_config.c _parse_nodename() _nodename_options[], 24 keys
_NODENAME_22_05 = (
    ("BcastAddr", "str"), ("Boards", "u16"), ("CoreSpecCount", "u16"), ("CoresPerSocket", "u16"),
    ("CPUs", "u16"), ("CPUSpecList", "str"), ("CpuBind", "str"), ("Feature", "str"),
    ("Features", "str"), ("Gres", "str"), ("MemSpecLimit", "u64"), ("NodeAddr", "str"),
    ("NodeHostname", "str"), ("Port", "str"), ("Procs", "u16"), ("RealMemory", "u64"),
    ("Reason", "str"), ("Sockets", "u16"), ("SocketsPerBoard", "u16"), ("State", "str"),
    ("ThreadsPerCore", "u16"), ("TmpDisk", "u32"), ("TRESWeights", "str"), ("Weight", "u32"),
)

# src/common/read_config.c _parse_partitionname() _partition_options[], 42 keys
_PARTITIONNAME_22_05 = (
    ("AllocNodes", "str"), ("AllowAccounts", "str"), ("AllowGroups", "str"), ("AllowQos", "str"),
    ("Alternate", "str"), ("CpuBind", "str"), ("DefCPUPerGPU", "u64"), ("DefMemPerCPU", "u64"),
    ("DefMemPerGPU", "u64"), ("DefMemPerNode", "u64"), ("Default", "bool"), ("DefaultTime", "str"),
    ("DenyAccounts", "str"), ("DenyQos", "str"), ("DisableRootJobs", "bool"),
    ("ExclusiveUser", "bool"), ("GraceTime", "u32"), ("Hidden", "bool"), ("LLN", "bool"),
    ("MaxCPUsPerNode", "u32"), ("MaxMemPerCPU", "u64"), ("MaxMemPerNode", "u64"),
    ("MaxTime", "str"), ("MaxNodes", "u32"), ("MinNodes", "u32"), ("Nodes", "str"),
    ("OverSubscribe", "str"), ("OverTimeLimit", "str"), ("PreemptMode", "str"), ("Priority", "u16"),
    ("PriorityJobFactor", "u16"), ("PriorityTier", "u16"), ("QOS", "str"), ("RootOnly", "bool"),
    ("ReqResv", "bool"), ("ResumeTimeout", "u16"), ("SelectTypeParameters", "str"),
    ("Shared", "str"), ("State", "str"), ("SuspendTime", "str"), ("SuspendTimeout", "u16"),
    ("TRESBillingWeights", "str"),
)

# src/slurmdbd/read_config.c read_slurmdbd_conf() options[], 59 keys
_SLURMDBD_CONF_22_05 = (
    ("AllowNoDefAcct", "bool"), ("ArchiveDir", "str"), ("ArchiveEvents", "bool"),
    ("ArchiveJobs", "bool"), ("ArchiveResvs", "bool"), ("ArchiveScript", "str"),
    ("ArchiveSteps", "bool"), ("ArchiveSuspend", "bool"), ("ArchiveTXN", "bool"),
    ("ArchiveUsage", "bool"), ("AuthAltTypes", "str"), ("AuthAltParameters", "str"),
    ("AuthInfo", "str"), ("AuthType", "str"), ("CommitDelay", "u16"),
    ("CommunicationParameters", "str"), ("DbdAddr", "str"), ("DbdBackupHost", "str"),
    ("DbdHost", "str"), ("DbdPort", "u16"), ("DebugFlags", "str"), ("DebugLevel", "str"),
    ("DebugLevelSyslog", "str"), ("DefaultQOS", "str"), ("JobPurge", "u32"), ("LogFile", "str"),
    ("LogTimeFormat", "str"), ("MaxQueryTimeRange", "str"), ("MessageTimeout", "u16"),
    ("Parameters", "str"), ("PidFile", "str"), ("PluginDir", "str"), ("PrivateData", "str"),
    ("PurgeEventAfter", "str"), ("PurgeJobAfter", "str"), ("PurgeResvAfter", "str"),
    ("PurgeStepAfter", "str"), ("PurgeSuspendAfter", "str"), ("PurgeTXNAfter", "str"),
    ("PurgeUsageAfter", "str"), ("PurgeEventMonths", "u32"), ("PurgeJobMonths", "u32"),
    ("PurgeStepMonths", "u32"), ("PurgeSuspendMonths", "u32"), ("PurgeTXNMonths", "u32"),
    ("PurgeUsageMonths", "u32"), ("SlurmUser", "str"), ("StepPurge", "u32"),
    ("StorageBackupHost", "str"), ("StorageHost", "str"), ("StorageLoc", "str"),
    ("StorageParameters", "str"), ("StoragePass", "str"), ("StoragePort", "u16"),
    ("StorageType", "str"), ("StorageUser", "str"), ("TCPTimeout", "u16"), ("TrackWCKey", "bool"),
    ("TrackSlurmctldDown", "bool"),
)

# src/common/cgroup.c _read_slurm_cgroup_conf() options[], 23 keys
_CGROUP_CONF_22_05 = (
    ("CgroupAutomount", "bool"), ("CgroupMountpoint", "str"), ("CgroupReleaseAgentDir", "str"),
    ("ConstrainCores", "bool"), ("ConstrainRAMSpace", "bool"), ("AllowedRAMSpace", "float"),
    ("MaxRAMPercent", "float"), ("MinRAMSpace", "u64"), ("ConstrainSwapSpace", "bool"),
    ("ConstrainKmemSpace", "bool"), ("AllowedKmemSpace", "float"), ("MaxKmemPercent", "float"),
    ("MinKmemSpace", "u64"), ("AllowedSwapSpace", "float"), ("MaxSwapPercent", "float"),
    ("MemoryLimitEnforcement", "bool"), ("MemoryLimitThreshold", "float"),
    ("ConstrainDevices", "bool"), ("AllowedDevicesFile", "str"), ("MemorySwappiness", "u64"),
    ("CgroupPlugin", "str"), ("IgnoreSystemd", "bool"), ("IgnoreSystemdOnFailure", "bool"),
)

# src/common/gres.c gres_g_node_config_load() _gres_conf_options[], 3 keys
_GRES_CONF_22_05 = (
    ("AutoDetect", "str"), ("Name", "lines"), ("NodeName", "lines"),
)

# src/common/gres.c _gres_options[] (keys of a Name= / NodeName= line), 12 keys
_GRES_LINE_22_05 = (
    ("AutoDetect", "str"), ("Count", "str"), ("CPUs", "str"), ("Cores", "str"), ("File", "str"),
    ("Files", "str"), ("Flags", "str"), ("Link", "str"), ("Links", "str"), ("MultipleFiles", "str"),
    ("Name", "str"), ("Type", "str"),
)

# src/plugins/topology/tree/topology_tree.c switch_options[] + _switch_options[], 4 keys
_TOPOLOGY_TREE_22_05 = (
    ("SwitchName", "lines"), ("LinkSpeed", "u32"), ("Nodes", "str"), ("Switches", "str"),
)

# src/common/read_config.c slurm_conf_options[], 233 keys
_SLURM_CONF_24_11 = (
    ("AccountingStorageBackupHost", "str"), ("AccountingStorageEnforce", "str"),
    ("AccountingStorageExternalHost", "str"), ("AccountingStorageHost", "str"),
    ("AccountingStorageLoc", "str"), ("AccountingStorageParameters", "str"),
    ("AccountingStoragePass", "str"), ("AccountingStoragePort", "u16"),
    ("AccountingStorageTRES", "str"), ("AccountingStorageType", "str"),
    ("AccountingStorageUser", "str"), ("AccountingStoreFlags", "str"),
    ("AccountingStoreJobComment", "bool"), ("AcctGatherEnergyType", "str"),
    ("AcctGatherFilesystemType", "str"), ("AcctGatherInfinibandType", "str"),
    ("AcctGatherInterconnectType", "str"), ("AcctGatherNodeFreq", "u16"),
    ("AcctGatherProfileType", "str"), ("AllowSpecResourcesUsage", "bool"),
    ("AuthAltParameters", "str"), ("AuthAltTypes", "str"), ("AuthInfo", "str"), ("AuthType", "str"),
    ("BackupAddr", "str"), ("BackupController", "str"), ("BatchStartTimeout", "u16"),
    ("BcastExclude", "str"), ("BcastParameters", "str"), ("BurstBufferParameters", "str"),
    ("BurstBufferType", "str"), ("CertmgrType", "str"), ("CertmgrParameters", "str"),
    ("CliFilterPlugins", "str"), ("ClusterName", "str"), ("CommunicationParameters", "str"),
    ("CompleteWait", "u16"), ("ControlAddr", "str"), ("ControlMachine", "str"),
    ("CoreSpecPlugin", "str!defunct"), ("CpuFreqDef", "str"), ("CpuFreqGovernors", "str"),
    ("CredType", "str"), ("CryptoType", "str"), ("DataParserParameters", "str"),
    ("DebugFlags", "str"), ("DefCPUPerGPU", "u64"), ("DefMemPerCPU", "u64"),
    ("DefMemPerGPU", "u64"), ("DefMemPerNode", "u64"), ("DependencyParameters", "str"),
    ("DisableRootJobs", "bool"), ("EioTimeout", "u16"), ("EnforcePartLimits", "str"),
    ("Epilog", "lines"), ("EpilogMsgTime", "u32"), ("EpilogSlurmctld", "lines"),
    ("ExtSensorsFreq", "u16!defunct"), ("ExtSensorsType", "str!defunct"),
    ("FairShareDampeningFactor", "u16"), ("FastSchedule", "u16"), ("FederationParameters", "str"),
    ("FirstJobId", "u32"), ("GetEnvTimeout", "u16"), ("GpuFreqDef", "str"), ("GresTypes", "str"),
    ("GroupUpdateForce", "u16"), ("GroupUpdateTime", "u16"), ("HashPlugin", "str"),
    ("HealthCheckInterval", "u16"), ("HealthCheckNodeState", "str"), ("HealthCheckProgram", "str"),
    ("InactiveLimit", "u16"), ("InteractiveStepOptions", "str"), ("JobAcctGatherFrequency", "str"),
    ("JobAcctGatherParams", "str"), ("JobAcctGatherType", "str"), ("JobCompHost", "str"),
    ("JobCompLoc", "str"), ("JobCompParams", "str"), ("JobCompPass", "str"), ("JobCompPort", "u32"),
    ("JobCompType", "str"), ("JobCompUser", "str"), ("JobContainerType", "str"),
    ("JobCredentialPrivateKey", "str!defunct"), ("JobCredentialPublicCertificate", "str!defunct"),
    ("JobFileAppend", "u16"), ("JobRequeue", "u16"), ("JobSubmitPlugins", "str"),
    ("KeepAliveTime", "u32"), ("KillOnBadExit", "u16"), ("KillWait", "u16"),
    ("LaunchParameters", "str"), ("LaunchType", "str"), ("Licenses", "str"),
    ("LogTimeFormat", "str"), ("MailDomain", "str"), ("MailProg", "str"), ("MaxArraySize", "u32"),
    ("MaxBatchRequeue", "u32"), ("MaxDBDMsgs", "u32"), ("MaxJobCount", "u32"), ("MaxJobId", "u32"),
    ("MaxMemPerCPU", "u64"), ("MaxMemPerNode", "u64"), ("MaxNodeCount", "u32"),
    ("MaxStepCount", "u32"), ("MaxTasksPerNode", "u16"), ("MCSParameters", "str"),
    ("MCSPlugin", "str"), ("MessageTimeout", "u16"), ("MinJobAge", "u32"), ("MpiDefault", "str"),
    ("MpiParams", "str"), ("NodeFeaturesPlugins", "str"), ("OverTimeLimit", "u16"),
    ("PluginDir", "str"), ("PlugStackConfig", "str"), ("PowerParameters", "str!defunct"),
    ("PowerPlugin", "str!defunct"), ("PreemptExemptTime", "str"), ("PreemptMode", "str"),
    ("PreemptParameters", "str"), ("PreemptType", "str"), ("PrEpParameters", "str"),
    ("PrEpPlugins", "str"), ("PriorityCalcPeriod", "str"), ("PriorityDecayHalfLife", "str"),
    ("PriorityFavorSmall", "bool"), ("PriorityFlags", "str"), ("PriorityMaxAge", "str"),
    ("PriorityParameters", "str"), ("PrioritySiteFactorParameters", "str"),
    ("PrioritySiteFactorPlugin", "str"), ("PriorityType", "str"),
    ("PriorityUsageResetPeriod", "str"), ("PriorityWeightAge", "u32"),
    ("PriorityWeightAssoc", "u32"), ("PriorityWeightFairshare", "u32"),
    ("PriorityWeightJobSize", "u32"), ("PriorityWeightPartition", "u32"),
    ("PriorityWeightQOS", "u32"), ("PriorityWeightTRES", "str"), ("PrivateData", "str"),
    ("ProctrackType", "str"), ("Prolog", "lines"), ("PrologEpilogTimeout", "u16"),
    ("PrologFlags", "str"), ("PrologSlurmctld", "lines"), ("PropagatePrioProcess", "u16"),
    ("PropagateResourceLimits", "str"), ("PropagateResourceLimitsExcept", "str"),
    ("RebootProgram", "str"), ("ReconfigFlags", "str"), ("RequeueExit", "str"),
    ("RequeueExitHold", "str"), ("ResumeFailProgram", "str"), ("ResumeProgram", "str"),
    ("ResumeRate", "u16"), ("ResumeTimeout", "u16"), ("ResvEpilog", "str"), ("ResvOverRun", "u16"),
    ("ResvProlog", "str"), ("ReturnToService", "u16"), ("RoutePlugin", "str"),
    ("SallocDefaultCommand", "str"), ("SbcastParameters", "str"), ("SchedulerParameters", "str"),
    ("SchedulerTimeSlice", "u16"), ("SchedulerType", "str"), ("ScronParameters", "str"),
    ("SelectType", "str"), ("SelectTypeParameters", "str"), ("SlurmctldAddr", "str"),
    ("SlurmctldDebug", "str"), ("SlurmctldLogFile", "str"), ("SlurmctldParameters", "str"),
    ("SlurmctldPidFile", "str"), ("SlurmctldPort", "str"), ("SlurmctldPrimaryOffProg", "str"),
    ("SlurmctldPrimaryOnProg", "str"), ("SlurmctldSyslogDebug", "str"), ("SlurmctldTimeout", "u16"),
    ("SlurmdDebug", "str"), ("SlurmdLogFile", "str"), ("SlurmdParameters", "str"),
    ("SlurmdPidFile", "str"), ("SlurmdPort", "u32"), ("SlurmdSpoolDir", "str"),
    ("SlurmdSyslogDebug", "str"), ("SlurmdTimeout", "u16"), ("SlurmdUser", "str"),
    ("SlurmSchedLogFile", "str"), ("SlurmSchedLogLevel", "u16"), ("SlurmUser", "str"),
    ("SrunEpilog", "str"), ("SrunPortRange", "str"), ("SrunProlog", "str"),
    ("StateSaveLocation", "str"), ("SuspendExcNodes", "str"), ("SuspendExcParts", "str"),
    ("SuspendExcStates", "str"), ("SuspendProgram", "str"), ("SuspendRate", "u16"),
    ("SuspendTime", "str"), ("SuspendTimeout", "u16"), ("SwitchParameters", "str"),
    ("SwitchType", "str"), ("TaskEpilog", "str"), ("TaskPlugin", "str"), ("TaskPluginParam", "str"),
    ("TaskProlog", "str"), ("TCPTimeout", "u16"), ("TLSParameters", "str"), ("TLSType", "str"),
    ("TmpFS", "str"), ("TopologyParam", "str"), ("TopologyPlugin", "str"), ("TrackWCKey", "bool"),
    ("TreeWidth", "u16"), ("UnkillableStepProgram", "str"), ("UnkillableStepTimeout", "u16"),
    ("UsePAM", "bool"), ("VSizeFactor", "u16"), ("WaitTime", "u16"), ("X11Parameters", "str"),
    ("DownNodes", "lines"), ("FrontendName", "lines"), ("NodeName", "lines"), ("NodeSet", "lines"),
    ("PartitionName", "lines"), ("SlurmctldHost", "lines"),
)

# src/common/read_config.c _parse_nodename() _nodename_options[], 25 keys
_NODENAME_24_11 = (
    ("BcastAddr", "str"), ("Boards", "u16"), ("CoreSpecCount", "u16"), ("CoresPerSocket", "u16"),
    ("CPUs", "u16"), ("CPUSpecList", "str"), ("CpuBind", "str"), ("Feature", "str"),
    ("Features", "str"), ("Gres", "str"), ("MemSpecLimit", "u64"), ("NodeAddr", "str"),
    ("NodeHostname", "str"), ("Port", "str"), ("Procs", "u16"), ("RealMemory", "u64"),
    ("Reason", "str"), ("RestrictedCoresPerGPU", "u16"), ("Sockets", "u16"),
    ("SocketsPerBoard", "u16"), ("State", "str"), ("ThreadsPerCore", "u16"), ("TmpDisk", "u32"),
    ("TRESWeights", "str"), ("Weight", "u32"),
)

# src/common/read_config.c _parse_partitionname() _partition_options[], 45 keys
_PARTITIONNAME_24_11 = (
    ("AllocNodes", "str"), ("AllowAccounts", "str"), ("AllowGroups", "str"), ("AllowQos", "str"),
    ("Alternate", "str"), ("CpuBind", "str"), ("DefCPUPerGPU", "u64"), ("DefMemPerCPU", "u64"),
    ("DefMemPerGPU", "u64"), ("DefMemPerNode", "u64"), ("Default", "bool"), ("DefaultTime", "str"),
    ("DenyAccounts", "str"), ("DenyQos", "str"), ("DisableRootJobs", "bool"),
    ("ExclusiveUser", "bool"), ("ExclusiveTopo", "bool"), ("GraceTime", "u32"), ("Hidden", "bool"),
    ("LLN", "bool"), ("MaxCPUsPerNode", "u32"), ("MaxCPUsPerSocket", "u32"),
    ("MaxMemPerCPU", "u64"), ("MaxMemPerNode", "u64"), ("MaxTime", "str"), ("MaxNodes", "u32"),
    ("MinNodes", "u32"), ("Nodes", "str"), ("OverSubscribe", "str"), ("OverTimeLimit", "str"),
    ("PowerDownOnIdle", "bool"), ("PreemptMode", "str"), ("Priority", "u16"),
    ("PriorityJobFactor", "u16"), ("PriorityTier", "u16"), ("QOS", "str"), ("RootOnly", "bool"),
    ("ReqResv", "bool"), ("ResumeTimeout", "u16"), ("SelectTypeParameters", "str"),
    ("Shared", "str"), ("State", "str"), ("SuspendTime", "str"), ("SuspendTimeout", "u16"),
    ("TRESBillingWeights", "str"),
)

# src/slurmdbd/read_config.c read_slurmdbd_conf() options[], 64 keys
_SLURMDBD_CONF_24_11 = (
    ("AllowNoDefAcct", "bool"), ("AllResourcesAbsolute", "bool"), ("ArchiveDir", "str"),
    ("ArchiveEvents", "bool"), ("ArchiveJobs", "bool"), ("ArchiveResvs", "bool"),
    ("ArchiveScript", "str"), ("ArchiveSteps", "bool"), ("ArchiveSuspend", "bool"),
    ("ArchiveTXN", "bool"), ("ArchiveUsage", "bool"), ("AuthAltTypes", "str"),
    ("AuthAltParameters", "str"), ("AuthInfo", "str"), ("AuthType", "str"), ("CommitDelay", "u16"),
    ("CommunicationParameters", "str"), ("DbdAddr", "str"), ("DbdBackupHost", "str"),
    ("DbdHost", "str"), ("DbdPort", "u16"), ("DebugFlags", "str"), ("DebugLevel", "str"),
    ("DebugLevelSyslog", "str"), ("DefaultQOS", "str"), ("DisableCoordDBD", "bool"),
    ("HashPlugin", "str"), ("JobPurge", "u32"), ("LogFile", "str"), ("LogTimeFormat", "str"),
    ("MaxQueryTimeRange", "str"), ("MessageTimeout", "u16"), ("Parameters", "str"),
    ("PidFile", "str"), ("PluginDir", "str"), ("PrivateData", "str"), ("PurgeEventAfter", "str"),
    ("PurgeJobAfter", "str"), ("PurgeResvAfter", "str"), ("PurgeStepAfter", "str"),
    ("PurgeSuspendAfter", "str"), ("PurgeTXNAfter", "str"), ("PurgeUsageAfter", "str"),
    ("PurgeEventMonths", "u32"), ("PurgeJobMonths", "u32"), ("PurgeStepMonths", "u32"),
    ("PurgeSuspendMonths", "u32"), ("PurgeTXNMonths", "u32"), ("PurgeUsageMonths", "u32"),
    ("SlurmUser", "str"), ("StepPurge", "u32"), ("StorageBackupHost", "str"),
    ("StorageHost", "str"), ("StorageLoc", "str"), ("StorageParameters", "str"),
    ("StoragePass", "str"), ("StoragePort", "u16"), ("StorageType", "str"), ("StorageUser", "str"),
    ("TCPTimeout", "u16"), ("TLSParameters", "str"), ("TLSType", "str"), ("TrackWCKey", "bool"),
    ("TrackSlurmctldDown", "bool"),
)

# src/interfaces/cgroup.c _read_slurm_cgroup_conf() options[], 22 keys
_CGROUP_CONF_24_11 = (
    ("CgroupAutomount", "bool!defunct"), ("CgroupMountpoint", "str"),
    ("CgroupReleaseAgentDir", "str"), ("ConstrainCores", "bool"), ("ConstrainRAMSpace", "bool"),
    ("AllowedRAMSpace", "float"), ("MaxRAMPercent", "float"), ("MinRAMSpace", "u64"),
    ("ConstrainSwapSpace", "bool"), ("AllowedSwapSpace", "float"), ("MaxSwapPercent", "float"),
    ("MemoryLimitEnforcement", "bool"), ("MemoryLimitThreshold", "float"),
    ("ConstrainDevices", "bool"), ("AllowedDevicesFile", "str"), ("MemorySwappiness", "u64"),
    ("CgroupPlugin", "str"), ("IgnoreSystemd", "bool"), ("IgnoreSystemdOnFailure", "bool"),
    ("EnableControllers", "bool"), ("SignalChildrenProcesses", "bool"), ("SystemdTimeout", "u64"),
)

# src/interfaces/gres.c gres_g_node_config_load() _gres_conf_options[], 3 keys
_GRES_CONF_24_11 = (
    ("AutoDetect", "str"), ("Name", "lines"), ("NodeName", "lines"),
)

# src/interfaces/gres.c _gres_options[] (keys of a Name= / NodeName= line), 12 keys
_GRES_LINE_24_11 = (
    ("AutoDetect", "str"), ("Count", "str"), ("CPUs", "str"), ("Cores", "str"), ("File", "str"),
    ("Files", "str"), ("Flags", "str"), ("Link", "str"), ("Links", "str"), ("MultipleFiles", "str"),
    ("Name", "str"), ("Type", "str"),
)

# src/plugins/topology/tree/switch_record.c switch_options[] + _switch_options[], 4 keys
_TOPOLOGY_TREE_24_11 = (
    ("SwitchName", "lines"), ("LinkSpeed", "u32"), ("Nodes", "str"), ("Switches", "str"),
)


# topology/block exists from 23.11 on. 24.11.5: src/plugins/topology/block/block_record.c
# block_options[] + _block_options[]. 23.11 spelled the size list BlockLevels; NEWS 24.05.0rc1:
# "topology/block - Replaced the BlockLevels with BlockSizes in topology.conf."
_TOPOLOGY_BLOCK_24_11 = (("BlockName", "lines"), ("BlockSizes", "str"), ("Nodes", "str"))
_TOPOLOGY_BLOCK_23_11 = (("BlockName", "lines"), ("BlockLevels", "str"), ("Nodes", "str"))

#: 23.11.4 = 22.05.8 with these changes, read from the source at tag slurm-23-11-4-1 (commit
#: 924dce610761c30937e88ac334bdb3ca90beab91 is pinned in tests/fixtures/slurm-keys/slurm-23-11-4-1.json with every row;
#: docs/tools/slurm_keys_extract.py extracts it). Each line: key, type (None: no longer in the table), what changed.
_DERIVED_23_11 = {
    "slurm.conf": (
        ("ExtSensorsType", "str!defunct", "parsed by _defunct_option() in 23.11"),
        ("ExtSensorsFreq", "u16!defunct", "parsed by _defunct_option() in 23.11"),
        ("JobCredentialPrivateKey", "str!defunct", "parsed by _defunct_option() in 23.11"),
        ("JobCredentialPublicCertificate", "str!defunct", "parsed by _defunct_option() in 23.11"),
        ("MaxBatchRequeue", "u32", "new in 23.02 (NEWS 23.02.0rc1)"),
        ("PreemptParameters", "str", "new in 23.02 (NEWS 23.02.0rc1)"),
        ("SuspendExcStates", "str", "new in 23.02 (NEWS 23.02.0rc1)"),
        ("SlurmctldPlugstack", None, "gone from slurm_conf_options[]"),
    ),
    "slurm.conf:NodeName": (),  # RestrictedCoresPerGPU: 24.05
    "slurm.conf:PartitionName": (
        ("MaxCPUsPerSocket", "u32", "new in 23.02 (NEWS 23.02.0rc1)"),
        ("PowerDownOnIdle", "bool", "new in 23.02 (NEWS 23.02.0rc1), a boolean"),
    ),
    "slurmdbd.conf": (
        ("AllResourcesAbsolute", "bool", "new in 23.11's options[]"),
    ),
    "cgroup.conf": (
        ("CgroupAutomount", "bool!defunct", "parsed by _defunct_option() (NEWS 23.11.0rc1: option removed)"),
        ("EnableControllers", "bool", "NEWS 23.02.1 'Add cgroup.conf EnableControllers option'"),
        ("SignalChildrenProcesses", "bool", "NEWS 23.11.0rc1 'Add SignalChildrenProcesses=<yes|no>'"),
        ("AllowedKmemSpace", None, "NEWS 23.11.0rc1 'Removed deprecated parameters AllowedKmemSpace, "
                                   "ConstrainKmemSpace, MaxKmemPercent, and MinKmemSpace'"),
        ("ConstrainKmemSpace", None, "same NEWS line"),
        ("MaxKmemPercent", None, "same NEWS line"),
        ("MinKmemSpace", None, "same NEWS line"),
    ),
    "gres.conf": (),
    "gres.conf:line": (),
    "topology.conf": (),
}

_TABLES_22_05 = {
    "slurm.conf": _SLURM_CONF_22_05, "slurm.conf:NodeName": _NODENAME_22_05,
    "slurm.conf:PartitionName": _PARTITIONNAME_22_05, "slurmdbd.conf": _SLURMDBD_CONF_22_05,
    "cgroup.conf": _CGROUP_CONF_22_05, "gres.conf": _GRES_CONF_22_05, "gres.conf:line": _GRES_LINE_22_05,
    "topology.conf": _TOPOLOGY_TREE_22_05,
}
_TABLES_24_11 = {
    "slurm.conf": _SLURM_CONF_24_11, "slurm.conf:NodeName": _NODENAME_24_11,
    "slurm.conf:PartitionName": _PARTITIONNAME_24_11, "slurmdbd.conf": _SLURMDBD_CONF_24_11,
    "cgroup.conf": _CGROUP_CONF_24_11, "gres.conf": _GRES_CONF_24_11, "gres.conf:line": _GRES_LINE_24_11,
    "topology.conf": _TOPOLOGY_TREE_24_11 + _TOPOLOGY_BLOCK_24_11,
}


def _derive(base: Dict[str, Tuple[Tuple[str, str], ...]]) -> Dict[str, Tuple[Tuple[str, str], ...]]:
    out = {}
    for conf, rows in base.items():
        keys = dict(rows)
        for key, typ, _why in _DERIVED_23_11.get(conf, ()):
            if typ is None:
                keys.pop(key, None)
            else:
                keys[key] = typ
        out[conf] = tuple(keys.items())
    out["topology.conf"] = out["topology.conf"] + _TOPOLOGY_BLOCK_23_11
    return out


#: conf name -> tuple of (Key, type code), per release ("major.minor").
TABLES: Dict[str, Dict[str, Tuple[Tuple[str, str], ...]]] = {
    "22.05": _TABLES_22_05,
    "23.11": _derive(_TABLES_22_05),
    "24.11": _TABLES_24_11,
}

#: Where each release's tables come from (for messages and docs).
SOURCES = {
    "22.05": "SchedMD/slurm tag slurm-22-05-8-1 (read from the source)",
    "23.11": "SchedMD/slurm tag slurm-23-11-4-1 (read from the source, kept as its differences from 22.05.8)",
    "24.11": "SchedMD/slurm tag slurm-24-11-5-1 (read from the source)",
}

# What Slurm does with keys it lists but no longer honours. kind:
#   renamed    -- still works (an older spelling); check_settings translates it to the new key;
#   removed    -- slurmctld fatal()s, or parses and ignores it (defunct): refused, with the fix;
#   deprecated -- still honoured with a logged error: kept, with a warning.
# Each entry: key -> (kind, replacement key or None, what Slurm does, with the source line).
_STATUS_ALL = {
    "slurm.conf": {
        "ControlMachine": ("renamed", "SlurmctldHost", "read only when SlurmctldHost is absent, else "
                           "'Ignoring ControlMachine since SlurmctldHost is set.' (read_config.c "
                           "_load_slurmctld_host)"),
        "ControlAddr": ("renamed", "SlurmctldHost", "old-style address of ControlMachine; becomes "
                        "SlurmctldHost=name(addr)"),
        "BackupController": ("renamed", "SlurmctldHost", "old-style backup controller; becomes a second "
                             "SlurmctldHost line"),
        "BackupAddr": ("renamed", "SlurmctldHost", "address of BackupController; becomes the second "
                       "SlurmctldHost=name(addr)"),
        "CryptoType": ("renamed", "CredType", "read only when CredType is absent, 'crypto' replaced by "
                       "'cred' in the value"),
        "AcctGatherInfinibandType": ("renamed", "AcctGatherInterconnectType", "read only when "
                                     "AcctGatherInterconnectType is absent, 'infiniband' replaced by "
                                     "'interconnect' in the value"),
        "KeepAliveTime": ("renamed", "CommunicationParameters", "'KeepAliveTime parameter has moved to "
                          "CommunicationParameters' (keepalivetime=N there takes precedence)"),
        "FastSchedule": ("removed", "SlurmdParameters", "fatal('The FastSchedule option has been "
                         "removed...'); FastSchedule=2 is SlurmdParameters=config_overrides"),
        "AccountingStorageLoc": ("removed", None, "fatal('The AccountingStorageLoc option has been "
                                 "removed. It is safe to remove from your configuration.')"),
        "AccountingStoreJobComment": ("removed", "AccountingStoreFlags", "fatal('The "
                                      "AccountingStoreJobComment option has been removed, please use "
                                      "AccountingStoreFlags=job_comment option instead.')"),
        "SallocDefaultCommand": ("removed", "LaunchParameters", "fatal('SallocDefaultCommand has been "
                                 "removed. Please consider setting LaunchParameters=use_interactive_step "
                                 "instead.')"),
    },
    "cgroup.conf": {
        "CgroupReleaseAgentDir": ("removed", None, "fatal('Support for CgroupReleaseAgentDir option has "
                                  "been removed.')"),
        "MemoryLimitEnforcement": ("removed", None, "in the table but never read: ignored"),
        "MemoryLimitThreshold": ("removed", None, "in the table but never read: ignored"),
        "AllowedDevicesFile": ("removed", None, "'AllowedDevicesFile option is obsolete, please remove "
                               "it from your configuration.'"),
    },
    "gres.conf:line": {
        "CPUs": ("renamed", "Cores", "gres.c: 'CPUs to bind to Gres resource (deprecated, use Cores)'"),
    },
}
_DEFUNCT = "parsed by _defunct_option(): logs 'The option ... is defunct' and ignores it"
_STATUS_BY_VERSION = {
    "22.05": {
        "slurm.conf": {"SchedulerAuth": ("removed", None, _DEFUNCT)},
    },
    "23.11": {
        "slurm.conf": {
            "SchedulerAuth": ("removed", None, _DEFUNCT),
            "ExtSensorsType": ("removed", None, _DEFUNCT),
            "ExtSensorsFreq": ("removed", None, _DEFUNCT),
            "JobCredentialPrivateKey": ("removed", None, _DEFUNCT),
            "JobCredentialPublicCertificate": ("removed", None, _DEFUNCT),
            "SlurmctldPlugstack": ("removed", None, "no longer in 23.11's slurm_conf_options[]"),
            "LaunchType": ("removed", None, "in the table but never read: ignored"),
            "RoutePlugin": ("removed", "TopologyParam", "NEWS 23.11.0rc1: 'RoutePlugin=route/topology has "
                            "been replaced with TopologyParam=RouteTree'"),
        },
        "cgroup.conf": {
            "CgroupAutomount": ("removed", None, "NEWS 23.11.0rc1 'Remove CgroupAutomount= option from "
                                "cgroup.conf'; parsed with _defunct_option()"),
        },
    },
    "24.11": {
        "slurm.conf": {
            "JobCredentialPrivateKey": ("removed", None, _DEFUNCT),
            "JobCredentialPublicCertificate": ("removed", None, _DEFUNCT),
            "CoreSpecPlugin": ("removed", None, _DEFUNCT),
            "ExtSensorsType": ("removed", None, _DEFUNCT),
            "ExtSensorsFreq": ("removed", None, _DEFUNCT),
            "PowerParameters": ("removed", None, _DEFUNCT),
            "PowerPlugin": ("removed", None, _DEFUNCT),
            "LaunchType": ("removed", None, "in the table but never read: ignored"),
            "RoutePlugin": ("removed", "TopologyParam", "only a value containing 'tree' is turned into "
                            "TopologyParam=RouteTree; use that directly"),
        },
        "cgroup.conf": {"CgroupAutomount": ("removed", None, _DEFUNCT)},
    },
}


def key_status(version: str, conf: str) -> Dict[str, Tuple[str, object, str]]:
    """Status entries (see above) for one release and file."""
    merged = dict(_STATUS_ALL.get(conf, {}))
    merged.update(_STATUS_BY_VERSION.get(version, {}).get(conf, {}))
    return merged


#: Values a release refuses although the key is fine: (conf, key, value (lower case), fix, why).
VALUE_RULES = {
    "22.05": (),
    "23.11": (
        ("slurm.conf", "SelectType", "select/cons_res", "select/cons_tres",
         "NEWS 23.11.0rc1: 'Removed select/cons_res. Please update your configuration to select/cons_tres.'"),
    ),
    "24.11": (
        ("slurm.conf", "SelectType", "select/cons_res", "select/cons_tres",
         "removed in 23.11 (NEWS 23.11.0rc1)"),
    ),
}

#: cgroup.conf CgroupPlugin values per release (cgroup.c; 'disabled' is NEWS 24.05.0rc1).
CGROUP_PLUGINS = {
    "22.05": ("autodetect", "cgroup/v1", "cgroup/v2"),
    "23.11": ("autodetect", "cgroup/v1", "cgroup/v2"),
    "24.11": ("autodetect", "cgroup/v1", "cgroup/v2", "disabled"),
}
