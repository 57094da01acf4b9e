#!/usr/bin/env bash
# Lab end-to-end: bring up a lab of its own, converge it as AWX's converge workflow does (the cluster job, the node
# job sliced, finalize) from the collection installed from its tarball (tests/install), prove an unsliced re-run from
# the checkout changes nothing and leaves the nodes' files byte-identical and a sliced one changes nothing, prove bad
# input is refused before any change, check the cluster from its nodes, then day-2 work (a node joining after a
# check-mode run on it, a password rotation, a rolling driver upgrade, a munge key rotation, a Slurm configuration
# change, a restore drill, a controller fail-over).
# The lab is removed at the end whatever happened. The steps, in order, each a file beside this one run as
# `STEP LAB_NAME INVENTORY_DIR`; what they share (the lab, logs, commands on the nodes, waits) is tests/e2e/lib.sh.
#   tests/e2e/run.sh LAB_NAME INVENTORY_DIR     (E2E_COMPUTES=N for N GPU nodes, default 2; E2E_SLICES=N slices of
#                                               the node job, default 2)
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh" "$@"
trap 'lab down --name "$name" --inventory "$inv" >/dev/null 2>&1 || true' EXIT
step() { "$root/tests/e2e/$1" "$name" "$inv"; }

# A lab of this name that an interrupted run left behind would be reused as it is: start from fresh containers.
lab down --name "$name" --inventory "$inv"
lab_up "${E2E_COMPUTES:-2}"
step users.sh

echo "== converge as AWX's workflow runs it (from the collection installed next to its declared dependencies alone): the description, the cluster job, the node job as ${E2E_SLICES:-2} slices, finalize"
step converge.sh

echo "== the nodes are what an unsliced run makes of them: site.yml re-run the way AWX runs a job changes nothing and leaves every file byte-identical; the node job's slices re-run change nothing"
step rerun.sh

echo "== bad input is refused in preflight, before any change (Slurm cases: the Slurm layer alone)"
step refusals.sh

echo "== one slice of an AWX sliced job of site.yml (part of the inventory, a workflow job named after the template) is refused; the node job's slices ran above"
python3 tests/e2e/awx_runner.py --inventory "$inv" --playbook playbooks/site.yml --ident slice --log "$logs/slice.log" \
  --hosts gpu02,login01 --expect-refusal "as one slice of a sliced job" \
  --extravars '{"awx_workflow_job_id": 4243, "awx_workflow_job_name": "gpufleet site (converge)", "awx_job_launch_type": "workflow"}'

echo "== the cluster, seen from its nodes"
node_tests tests/e2e/test_lab.py tests/e2e/test_slurm.py --connection ansible

echo "== validate.yml: the checks that have their hardware pass, the others say what is missing; a failure drains"
step validate.sh

echo "== the accounting policy with real jobs: a per-user limit, a user not in accounting, preemption, fair share, a hand change"
node_tests tests/e2e/test_slurm_policy.py --connection ansible

echo "== a GPU node added to the inventory: site.yml in check mode on it first, then it joins (docs/day2.md's steps); a job running elsewhere keeps running"
step join.sh

echo "== the database password is rotated (a new vault value): slurmdbd follows before accounting is read"
step rotate_password.sh

echo "== a rolling driver upgrade: a failing scontrol stops it before any change; a canary, then a batch, each node drained, its packages in its turn, rebooted, checked, resumed"
step rolling_reboot.sh

echo "== the munge key: a rotation leaving hosts out is refused; on the whole cluster every host gets the new key"
step munge_key.sh

echo "== Slurm's configuration: one Slurm refuses changes nothing anywhere; a good one restarts the controllers one at a time"
step bad_config.sh

echo "== the restore drill: jobs and associations written, backups by the timers' services, data lost, restored, read back the same"
step backup_restore.sh

echo "== fail-over: a job runs, the primary controller's container stops, the backup takes over the saved state"
step failover.sh
