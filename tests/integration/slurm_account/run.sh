#!/usr/bin/env bash
# gpufleet.cluster.slurm_account for real on a lab (lab/lab.py up + playbooks/common.yml + playbooks/slurm.yml):
# apply the policy, re-run (changed=0), a hand change with sacctmgr reported by --check --diff and undone by a run,
# removal of an account with users refused without force.
#   tests/integration/slurm_account/run.sh INVENTORY
set -euo pipefail
inv=${1:?inventory}
here=$(dirname "$0")
play() { ansible-playbook -i "$inv" "$here/policy.yml" "$@"; }
changed() { grep -E '^[a-z0-9]+ +: ok=' | sed -E 's/.*changed=([0-9]+).*/\1/'; }
step() { echo; echo "=== $*"; }

step "1. apply the policy"
play | tee /tmp/acct-run.1 | grep -E 'changed:|ok:|"(object|field|before|after)"|changed=' || true
[ "$(changed </tmp/acct-run.1)" = 1 ] || echo "(the database had the policy already)"
step "2. re-run: nothing changes"
play >/tmp/acct-run.2
grep -E 'changed=' /tmp/acct-run.2
[ "$(changed </tmp/acct-run.2)" = 0 ] || { echo "FAIL: re-run changed"; exit 1; }
step "3. a hand change, then --check --diff"
ansible -i "$inv" slurm_dbd -m ansible.builtin.command -a "sacctmgr -i modify qos normal set MaxJobsPerUser=5"
play --check --diff >/tmp/acct-run.3
grep -E '^[-+]qos|changed=' /tmp/acct-run.3
grep -q '^+qos normal: MaxJobsPerUser = 2' /tmp/acct-run.3 || { echo "FAIL: check mode did not show it"; exit 1; }
ansible -i "$inv" slurm_dbd -m ansible.builtin.command -a "sacctmgr -nP show qos normal format=Name,MaxJobsPU"
step "4. a run undoes it"
play >/tmp/acct-run.4
grep -E 'changed=' /tmp/acct-run.4
ansible -i "$inv" slurm_dbd -m ansible.builtin.command -a "sacctmgr -nP show qos normal format=Name,MaxJobsPU"
[ "$(changed </tmp/acct-run.4)" = 1 ] || { echo "FAIL: the run did not undo it"; exit 1; }
step "5. removing account ml (user alice) without force is refused"
if play -e acct_remove=true >/tmp/acct-run.5; then echo "FAIL: removal was not refused"; exit 1; fi
grep -oE '"msg": "[^"]*"' /tmp/acct-run.5
step "6. with force"
play -e acct_remove=true -e acct_force=true >/tmp/acct-run.6
grep -E 'changed=' /tmp/acct-run.6
ansible -i "$inv" slurm_dbd -m ansible.builtin.command -a "sacctmgr -nP show assoc format=Account,User,ParentName"
step "7. back to the policy"
play >/tmp/acct-run.7
grep -E 'changed=' /tmp/acct-run.7
play >/tmp/acct-run.8
[ "$(changed </tmp/acct-run.8)" = 0 ] || { echo "FAIL: re-run changed"; exit 1; }
echo "slurm_account lab checks passed"
