# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
module: slurm_account
version_added: 0.2.0
short_description: Reconcile a cluster's Slurm accounting policy (QOS, accounts, users, limits) with sacctmgr
description:
  - One call brings the accounting database of one cluster to the policy given. The cluster is registered, QOS,
    accounts (a tree under C(root)) and users (their associations, default account and admin level) are created,
    changed or removed. Run it on the host that runs slurmdbd (it needs C(sacctmgr), and C(squeue) to check jobs
    before a removal).
  - Reads with C(sacctmgr --noheader --parsable2 show cluster|qos|account|user|assoc) and changes with
    C(sacctmgr --immediate add|modify|delete ...), never sacctmgr's prompt. Order of the changes - the cluster;
    QOS created, then their fields (so a preempt list may name a QOS created in the same run); accounts, parents
    first; users; then removals - users' associations and users, accounts children first, QOS last.
  - Only the fields given (not null) are managed; a re-run changes nothing. A limit is cleared with C(-1), as in
    Slurm; a TRES mapping manages the TRES it names (a count of C(-1) clears that one).
  - "What sacctmgr shows is what is compared: names, descriptions and organizations are stored in lower case (the
    comparison ignores case); an association shows the limits, QOS and default QOS it inherits from its parent
    account, so a value equal to the inherited one is taken as set, and a limit cleared with C(-1) is in place
    when the association shows its parent's value. C(GrpTRES) and fair-share are not inherited."
  - A removal is refused (before anything changes) when the object still has users, sub-accounts or running or
    pending jobs (from C(squeue)), unless O(force=true). sacctmgr itself still refuses to remove an association
    with active jobs, and an account that is a user's default while the user keeps other accounts; the module
    then fails with sacctmgr's message.
  - Every name and value passes the collection's input rules before it reaches a command; names must be lower
    case (sacctmgr would lower them).
options:
  cluster:
    description: The cluster's name (C(ClusterName) in slurm.conf); registered with C(sacctmgr add cluster) when missing.
    type: str
    required: true
  qos:
    description: Quality-of-service records.
    type: list
    elements: dict
    default: []
    suboptions:
      name:
        description: The QOS name (letters, digits, C(.), C(_), C(-); lower case).
        type: str
        required: true
      state:
        description: C(absent) removes the QOS (refused while jobs run or pend in it, unless O(force=true)).
        type: str
        choices: [present, absent]
        default: present
      description:
        description: Description (sacctmgr stores it in lower case; no C(|), quotes or control characters).
        type: str
      priority:
        description: Priority (0 or more).
        type: int
      preempt:
        description: QOS this one preempts (C(Preempt)); an empty list clears it.
        type: list
        elements: str
      preempt_mode:
        description: C(PreemptMode) of jobs of this QOS when preempted.
        type: str
        choices: [cluster, cancel, requeue, suspend, 'off']
      flags:
        description: QOS flags such as C(DenyOnLimit), C(NoDecay); the whole set, an empty list clears them.
        type: list
        elements: str
      max_jobs_per_user:
        description: C(MaxJobsPerUser), running jobs per user; C(-1) clears it.
        type: int
      max_submit_jobs_per_user:
        description: C(MaxSubmitJobsPerUser), running and pending jobs per user; C(-1) clears it.
        type: int
      max_tres_per_user:
        description: C(MaxTRESPerUser), TRES name to count, such as C(gres/gpu) 16 and C(cpu) 128; memory in megabytes.
        type: dict
      max_tres_per_job:
        description: C(MaxTRESPerJob) (shown as C(MaxTRES)).
        type: dict
      max_wall:
        description: C(MaxWall), a Slurm time string such as C(2-00:00:00) or C(12:00:00), or minutes; C(-1) clears it.
        type: raw
      grp_tres:
        description: C(GrpTRES), the TRES all jobs of the QOS may use together.
        type: dict
      grp_jobs:
        description: C(GrpJobs), running jobs of the QOS together; C(-1) clears it.
        type: int
  accounts:
    description: Accounts of the cluster's tree (their association on O(cluster)).
    type: list
    elements: dict
    default: []
    suboptions:
      name:
        description: The account name (lower case).
        type: str
        required: true
      state:
        description: C(absent) removes the account (refused while it has users, sub-accounts or jobs, unless O(force=true)).
        type: str
        choices: [present, absent]
        default: present
      parent:
        description: The parent account; created in the same run when listed here.
        type: str
        default: root
      description:
        description: Description (stored in lower case).
        type: str
      organization:
        description: Organization (stored in lower case).
        type: str
      fairshare:
        description: Fair-share shares (0 or more), or C(parent) to share the parent's.
        type: raw
      qos:
        description: QOS the account may use (the whole list; not empty).
        type: list
        elements: str
      default_qos:
        description: The default QOS; an empty string clears it (the parent's is inherited).
        type: str
      max_jobs:
        description: C(MaxJobs), running jobs per user of the account; C(-1) clears it.
        type: int
      max_submit_jobs:
        description: C(MaxSubmitJobs); C(-1) clears it.
        type: int
      max_tres_per_job:
        description: C(MaxTRESPerJob) (shown as C(MaxTRES)).
        type: dict
      grp_tres:
        description: C(GrpTRES) of the account's jobs together.
        type: dict
      max_wall:
        description: C(MaxWall), a Slurm time string or minutes; C(-1) clears it.
        type: raw
  users:
    description: Users and their associations on O(cluster).
    type: list
    elements: dict
    default: []
    suboptions:
      name:
        description: The user name (lower case).
        type: str
        required: true
      state:
        description: C(absent) removes the user's associations on O(cluster) (refused while the user has jobs, unless O(force=true)).
        type: str
        choices: [present, absent]
        default: present
      default_account:
        description: The user's default account; required when O(users[].state=present).
        type: str
      accounts:
        description:
          - The user's whole list of accounts on O(cluster); associations with other accounts are removed.
          - Left out, the user gets an association with O(users[].default_account) and keeps any other.
        type: list
        elements: str
      admin_level:
        description: The user's C(AdminLevel).
        type: str
        choices: [none, operator, administrator]
      fairshare:
        description: Fair-share shares of each of the user's associations, or C(parent).
        type: raw
      qos:
        description: QOS of each of the user's associations (the whole list; not empty).
        type: list
        elements: str
      default_qos:
        description: Default QOS of each association; an empty string clears it.
        type: str
      max_jobs:
        description: C(MaxJobs) of each association; C(-1) clears it.
        type: int
      max_submit_jobs:
        description: C(MaxSubmitJobs) of each association; C(-1) clears it.
        type: int
      max_tres_per_job:
        description: C(MaxTRESPerJob) of each association.
        type: dict
      grp_tres:
        description: C(GrpTRES) of each association.
        type: dict
      max_wall:
        description: C(MaxWall) of each association; C(-1) clears it.
        type: raw
  force:
    description:
      - Remove an account, user, QOS or user's association that still has users, sub-accounts or running or pending
        jobs. Without it such a removal fails, naming what holds it, and nothing is changed.
    type: bool
    default: false
attributes:
  check_mode:
    description: Runs only the C(show) commands (and C(squeue) when something would be removed) and reports the changes and commands a run would make.
  diff_mode:
    description: One line per changed field, C(object - Field = value), before and after.
  platform:
    description: A host with sacctmgr that reaches slurmdbd.
extends_documentation_fragment:
  - gpufleet.cluster.attributes
notes:
  - Recorded against Slurm 22.05 (Debian 12); the outputs read are under C(tests/fixtures/slurm-accounting).
seealso:
  - name: sacctmgr
    description: Slurm's accounting manager, whose C(show), C(add), C(modify) and C(delete) this module drives.
    link: https://slurm.schedmd.com/sacctmgr.html
author:
  - gpufleet.cluster contributors (@gpufleet)
"""

EXAMPLES = r"""
- name: Two QOS (high preempts normal), a research tree and two users
  gpufleet.cluster.slurm_account:
    cluster: h100
    qos:
      - name: normal
        max_jobs_per_user: 2
      - name: high
        priority: 100
        preempt: [normal]
        preempt_mode: requeue
        max_tres_per_user: {"gres/gpu": 16}
        max_wall: 2-00:00:00
    accounts:
      - name: research
        description: Research
      - name: ml
        parent: research
        fairshare: 10
        qos: [normal, high]
        default_qos: normal
      - name: hpc
        parent: research
    users:
      - name: alice
        default_account: ml
      - name: bob
        default_account: hpc
        accounts: [hpc, ml]
        admin_level: operator

- name: Clear a limit and remove an account that may still have users
  gpufleet.cluster.slurm_account:
    cluster: h100
    qos:
      - name: normal
        max_jobs_per_user: -1
    accounts:
      - name: oldproject
        state: absent
    force: true
"""

RETURN = r"""
changes:
  description: One entry per changed field; C(field) is the sacctmgr keyword, or C(state) when the object is created or removed.
  returned: always
  type: list
  elements: dict
  sample: [{"object": "qos normal", "field": "MaxJobsPerUser", "before": "", "after": "2"}]
commands:
  description: The sacctmgr argument lists run, in order (in check mode, those a run would run).
  returned: always
  type: list
  elements: list
  sample: [["sacctmgr", "--immediate", "modify", "qos", "where", "name=normal", "set", "MaxJobsPerUser=2"]]
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.commands import CommandRunner
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.account.plan import (
    command_failure,
    has_removals,
    plan,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.account.policy import SlurmAccountError, policy
from ansible_collections.gpufleet.cluster.plugins.module_utils.slurm.account.state import (
    read_jobs,
    read_state,
    show_commands,
    squeue_command,
)

_STATE = {"type": "str", "choices": ["present", "absent"], "default": "present"}
_ASSOC = {
    "fairshare": {"type": "raw"},
    "qos": {"type": "list", "elements": "str"},
    "default_qos": {"type": "str"},
    "max_jobs": {"type": "int"},
    "max_submit_jobs": {"type": "int"},
    "max_tres_per_job": {"type": "dict"},
    "grp_tres": {"type": "dict"},
    "max_wall": {"type": "raw"},
}
ARGUMENT_SPEC = {
    "cluster": {"type": "str", "required": True},
    "qos": {"type": "list", "elements": "dict", "default": [], "options": {
        "name": {"type": "str", "required": True},
        "state": _STATE,
        "description": {"type": "str"},
        "priority": {"type": "int"},
        "preempt": {"type": "list", "elements": "str"},
        "preempt_mode": {"type": "str", "choices": ["cluster", "cancel", "requeue", "suspend", "off"]},
        "flags": {"type": "list", "elements": "str"},
        "max_jobs_per_user": {"type": "int"},
        "max_submit_jobs_per_user": {"type": "int"},
        "max_tres_per_user": {"type": "dict"},
        "max_tres_per_job": {"type": "dict"},
        "max_wall": {"type": "raw"},
        "grp_tres": {"type": "dict"},
        "grp_jobs": {"type": "int"},
    }},
    "accounts": {"type": "list", "elements": "dict", "default": [], "options": dict({
        "name": {"type": "str", "required": True},
        "state": _STATE,
        "parent": {"type": "str", "default": "root"},
        "description": {"type": "str"},
        "organization": {"type": "str"},
    }, **_ASSOC)},
    "users": {"type": "list", "elements": "dict", "default": [], "options": dict({
        "name": {"type": "str", "required": True},
        "state": _STATE,
        "default_account": {"type": "str"},
        "accounts": {"type": "list", "elements": "str"},
        "admin_level": {"type": "str", "choices": ["none", "operator", "administrator"]},
    }, **_ASSOC)},
    "force": {"type": "bool", "default": False},
}


def _run(runner, binary, argv):
    """argv run with its first word replaced by the binary's path."""
    return runner.run([binary] + list(argv[1:]))


def run_module(module):
    params = module.params
    try:
        pol = policy(params)
    except SlurmAccountError as exc:
        module.fail_json(msg="slurm_account: refusing the policy for cluster %r: %s" % (params.get("cluster"), exc))
    runner = CommandRunner(module)
    sacctmgr = runner.which("sacctmgr")
    if not sacctmgr:
        module.fail_json(msg="slurm_account: sacctmgr was not found on this host; run the module on the host that "
                             "runs slurmdbd (or one with Slurm's client commands)")
    shows = show_commands(pol.cluster)
    wanted = {"cluster"}
    if pol.qos or any(("qos" in i.values or "default_qos" in i.values) for i in pol.accounts + pol.users):
        wanted.add("qos")
    if pol.accounts:
        wanted.add("account")
    if pol.accounts or pol.users:
        wanted.update(("user", "assoc"))
    outputs = {}
    for name in sorted(wanted):
        rc, out, err = _run(runner, sacctmgr, shows[name])
        if rc != 0:
            module.fail_json(msg="slurm_account: reading the accounting database failed: %s (exit %s): %s"
                                 % (" ".join(shows[name]), rc, (err or out).strip()), command=shows[name])
        outputs[name] = out
    try:
        state = read_state(pol.cluster, outputs)
        jobs, unread = [], ""
        if has_removals(pol, state):
            jobs, unread = _jobs(runner)
        result = plan(pol, state, jobs, unread)
    except SlurmAccountError as exc:
        module.fail_json(msg="slurm_account: cluster %s: %s" % (pol.cluster, exc))
    changes = [c.as_dict() for c in result.changes]
    if result.held:
        module.fail_json(msg="slurm_account: refusing to remove what is still in use, nothing was changed: %s"
                             % "; ".join(result.held), changes=changes, commands=result.commands)
    done = []
    if not module.check_mode:
        for argv in result.commands:
            rc, out, err = _run(runner, sacctmgr, argv)
            failure = command_failure(argv, rc, out, err)
            if failure:
                module.fail_json(msg="slurm_account: %s" % failure, changed=bool(done), commands_run=done,
                                 command=argv, changes=changes, commands=result.commands)
            done.append(argv)
    return {"changed": result.changed, "changes": changes, "commands": result.commands, "diff": result.diff()}


def _jobs(runner):
    """squeue's pending and running jobs, or None and why they could not be read."""
    squeue = runner.which("squeue")
    if not squeue:
        return None, "squeue was not found on this host"
    argv = squeue_command()
    rc, out, err = _run(runner, squeue, argv)
    if rc != 0:
        return None, "%s failed (exit %s): %s" % (" ".join(argv), rc, (err or out).strip())
    return read_jobs(out), ""


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    module.exit_json(**run_module(module))


if __name__ == "__main__":
    main()
