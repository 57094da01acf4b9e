#!/usr/bin/env bash
# A GPU node added to the inventory, docs/day2.md's steps: site.yml in check mode on it first, then it joins; a job
# running elsewhere keeps running (tests/e2e/test_slurm_join.py). The new node is bare, as a real one is before its
# first converge (lab/lab.py up --bare): no GPU device files (no driver yet) and a default memlock limit below the
# inventory's common_memlock_kib.
#   tests/e2e/join.sh LAB_NAME INVENTORY_DIR        (a step of tests/e2e/run.sh; E2E_COMPUTES GPU nodes before it)
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh" "$@"

job=$(submit_job "the long job" 'sleep 900')
wait_running "$job" 60 || { echo "the long job $job never started"; exit 1; }
started=$(on_login "squeue --noheader --jobs $job --format %S")
computes=${E2E_COMPUTES:-2}
new_node=gpu$(printf '%02d' $((computes + 1)))
on_new() { podman exec "$name-$new_node" sh -c "$1"; }
timed() {  # timed LABEL CMD...: CMD, then how long it took
  local start=$SECONDS
  "${@:2}"
  echo "$1: $((SECONDS - start)) s"
}
lab_up $((computes + 1)) --bare "$new_node"
# The lab's inventory asks for memlock 8192 KiB (common_memlock_kib, inventories/lab/group_vars/all/lab.yml).
memlock_soft=$(on_new 'systemctl show --value --property=DefaultLimitMEMLOCKSoft')
if [ "$memlock_soft" -ge $((8192 * 1024)) ] || [ -n "$(on_new 'ls /dev/nvidia* 2>/dev/null || true')" ]; then
  echo "FAILED: $new_node is not bare: memlock soft $memlock_soft bytes, $(on_new 'ls /dev/nvidia* 2>&1 || true')"; exit 1
fi
echo "$new_node is bare: memlock soft $memlock_soft bytes (the inventory asks 8 MiB), no /dev/nvidia*"
# The whole site.yml in check and diff mode on the new node, nothing converged there yet: it must run through
# (each role's check mode copes with a bare node), say what it would change, and leave the node as it was. The
# driver's and pynvml's packages are on for this run (the lab leaves them off): check mode must say it would
# refresh the lists and install them, although apt knows neither yet (the components are only pretended added).
on_new 'touch /run/e2e-before-check'
timed fresh-check logged fresh-check play --check --diff --limit "$new_node" -e nvidia_driver_install_packages=true \
  -e gpu_tuning_install_packages=true
# Changes and no failure; the slurm role says what it would install and start, takes the key from head; the
# nvidia_driver and gpu_tuning roles say what they would install; the rdma preflight checks the memlock common would
# write, and the slurm preflight expects the device files from the driver this run would install, each saying so.
python3 tests/e2e/check_log.py fresh-check "$logs/fresh-check.log" "$new_node"
fresh_recap=$(sed -n "s/^$new_node  *: //p" "$logs/fresh-check.log" | tail -1)
written=$(on_new 'find /etc /usr /opt /srv /var/lib/dpkg -xdev -newer /run/e2e-before-check')
[ -z "$written" ] || { echo "check mode on the fresh $new_node wrote:"; echo "$written" | head -20; exit 1; }
echo "check mode on the fresh $new_node: $fresh_recap; nothing written"

# What check mode took on trust, a real run checks as it is: limits below rdma_memlock_min_kib although the common
# role has just written them in the same run, and device files missing after the driver role ran. Each run must
# stop in preflight, saying so.
refused() {  # refused LOG EXPECTED_TEXT PLAY_ARGS...
  local log=$logs/$1.log expect=$2
  shift 2
  if play "$@" >"$log" 2>&1; then echo "FAILED: a real run on the bare $new_node went on: $*"; exit 1; fi
  grep -qF -- "$expect" "$log" || { echo "FAILED: $1 did not say '$expect'"; tail -30 "$log"; exit 1; }
  echo "refused: $* -> '$expect'"
}
timed join-refusals refused join-refused-memlock \
  "$new_node: RDMA pins (locks) the memory it registers, and logins soft memlock is 8192 KiB (/etc/security/limits.d/90-gpufleet.conf:" \
  --limit "$new_node" --tags common_limits,rdma_preflight -e rdma_memlock_min_kib=16384
timed join-refusals refused join-refused-devices "$new_node lacks /dev/nvidia0-7: slurmd drops a GPU gres" \
  --limit "$new_node" --tags nvidia_driver,slurm_preflight

# The driver's kernel module, which a container cannot load, makes /dev/nvidia0..7 on a real node: the lab's stand-ins.
lab gpu-stand-ins --name "$name" "$new_node"
# docs/day2.md "Add a GPU node", step by step: the base layer everywhere, the new node's own layers limited to it, then
# Slurm everywhere (each run's recap in join.log).
join() {
  ansible-playbook -i "$inv" playbooks/common.yml \
    && ansible-playbook -i "$inv" playbooks/site.yml --limit "$new_node" \
         --tags rdma,nvidia_driver,gpu_tuning,dcgm,roce_host,nccl,lustre_client \
    && ansible-playbook -i "$inv" playbooks/slurm.yml
}
timed join logged join join
# The common role raised the bare node's memlock for services (systemd re-executed with its DefaultLimitMEMLOCK).
memlock_soft=$(on_new 'systemctl show --value --property=DefaultLimitMEMLOCKSoft')
[ "$memlock_soft" = $((8192 * 1024)) ] || { echo "FAILED: $new_node's services lock $memlock_soft bytes after the join"; exit 1; }
E2E_JOB_ID=$job E2E_JOB_START=$started node_tests tests/e2e/test_slurm_join.py
on_login "scancel $job"
