#!/usr/bin/env bash
# A GPU node added to the inventory, docs/day2.md's steps: site.yml in check mode on it first, then it joins; a job
# running elsewhere keeps running (tests/e2e/test_slurm_join.py).
#   tests/e2e/join.sh LAB_NAME INVENTORY_DIR        (a step of tests/e2e/run.sh; E2E_COMPUTES GPU nodes before it)
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh" "$@"

job=$(submit_job "the long job" 'sleep 900')
wait_running "$job" 60 || { echo "the long job $job never started"; exit 1; }
started=$(on_login "squeue --noheader --jobs $job --format %S")
computes=${E2E_COMPUTES:-2}
lab_up $((computes + 1))
new_node=gpu$(printf '%02d' $((computes + 1)))
# The whole site.yml in check and diff mode on the new node, nothing converged there yet: it must run through
# (each role's check mode copes with a bare node), say what it would change, and leave the node as it was. The
# driver's and pynvml's packages are on for this run (the lab leaves them off): check mode must say it would
# refresh the lists and install them, although apt knows neither yet (the components are only pretended added).
podman exec "$name-$new_node" touch /run/e2e-before-check
logged fresh-check play --check --diff --limit "$new_node" -e nvidia_driver_install_packages=true \
  -e gpu_tuning_install_packages=true
# Changes and no failure; the slurm role says what it would install and start, takes the key from head; the
# nvidia_driver and gpu_tuning roles say what they would install.
python3 tests/e2e/check_log.py fresh-check "$logs/fresh-check.log" "$new_node"
fresh_recap=$(sed -n "s/^$new_node  *: //p" "$logs/fresh-check.log" | tail -1)
written=$(podman exec "$name-$new_node" find /etc /usr /opt /srv /var/lib/dpkg -xdev -newer /run/e2e-before-check)
[ -z "$written" ] || { echo "check mode on the fresh $new_node wrote:"; echo "$written" | head -20; exit 1; }
echo "check mode on the fresh $new_node: $fresh_recap; nothing written"
# docs/day2.md "Add a GPU node", step by step: the base layer everywhere, the new node's own layers limited to it, then
# Slurm everywhere (each run's recap in join.log).
join() {
  ansible-playbook -i "$inv" playbooks/common.yml \
    && ansible-playbook -i "$inv" playbooks/site.yml --limit "$new_node" \
         --tags rdma,nvidia_driver,gpu_tuning,dcgm,roce_host,nccl,lustre_client \
    && ansible-playbook -i "$inv" playbooks/slurm.yml
}
logged join join
E2E_JOB_ID=$job E2E_JOB_START=$started node_tests tests/e2e/test_slurm_join.py
on_login "scancel $job"
