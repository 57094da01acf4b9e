#!/usr/bin/env bash
# Lab end-to-end: bring up a lab of its own, converge gpufleet.cluster.site from the collection installed from its
# tarball (tests/install), prove a re-run from the checkout changes nothing, prove bad input is refused before any
# change, check the cluster from its nodes, then day-2 work (a node joining after a check-mode run on it, a password
# rotation, a rolling driver upgrade, a controller fail-over).
# The lab is removed at the end whatever happened.
#   tests/e2e/run.sh LAB_NAME INVENTORY_DIR     (E2E_COMPUTES=N for N GPU nodes, default 2)
set -euo pipefail
name=${1:?lab name}
inv=${2:?inventory dir}
root=$(cd "$(dirname "$0")/../.." && pwd)
logs=$root/.build/e2e-logs
mkdir -p "$logs"
installed=
cleanup() {
  python3 "$root/lab/lab.py" down --name "$name" --inventory "$inv" >/dev/null 2>&1 || true
  if [ -n "$installed" ]; then rm -rf "$installed"; fi
}
trap cleanup EXIT

# A lab of this name that an interrupted run left behind would be reused as it is: start from fresh containers.
python3 "$root/lab/lab.py" down --name "$name" --inventory "$inv"
# The lab's containers weigh 4 times a molecule container (E2E_CPU_SHARES): make test runs molecule beside the e2e, whose
# steps, one after the other, are the longest path.
shares=(--cpu-shares "${E2E_CPU_SHARES:-4096}")
python3 "$root/lab/lab.py" up --name "$name" --inventory "$inv" --computes "${E2E_COMPUTES:-2}" --controllers 2 "${shares[@]}"
cd "$root"
play() { ansible-playbook -i "$inv" playbooks/site.yml "$@"; }

# The test's own commands on the nodes (users, jobs, queries) go through podman exec: an ad-hoc `ansible` run costs a
# core-second each (docs/performance.md); ansible is what the playbooks are tested with.
on_login() { podman exec "$name-login01" sh -c "$1"; }

# The users of the lab's accounting policy (inventories/lab/group_vars/all/slurm.yml) and one who is not in it, with
# the same uid on every node, before the converge, as a site's directory has them (tests/e2e/test_slurm_policy.py).
for node in $(podman ps --filter "label=gpufleet.lab=$name" --format '{{.Names}}'); do
  for user in alice:2101 bob:2102 carol:2103 mallory:2104; do
    podman exec "$node" useradd --uid "${user#*:}" --no-create-home --shell /bin/sh "${user%:*}" \
      || { echo "could not add ${user%:*} on $node"; exit 1; }
  done
done

echo "== converge: gpufleet.cluster.site from the collection installed next to its declared dependencies alone"
# tests/install/run.sh install: the tarball installed into an empty collections path with exactly galaxy.yml's
# dependencies (offline, from the ansible bundle), nothing else visible; run from outside the checkout with
# tests/install/ansible.cfg (no collections_path), the fact cache and the profile_tasks callback (ansible.posix is
# declared) of the checkout's. Every later run goes on from the checkout (playbooks/site.yml), as make demo does.
installed=$(mktemp -d "${TMPDIR:-/tmp}/gpufleet-e2e-installed.XXXXXX")
"$root/tests/install/run.sh" install "$installed" >"$logs/install.log" 2>&1 || { cat "$logs/install.log"; exit 1; }
tail -1 "$logs/install.log"
inv_abs=$(cd "$inv" && pwd)
(cd "$installed" && ANSIBLE_CONFIG=$root/tests/install/ansible.cfg ANSIBLE_COLLECTIONS_PATH=$installed/collections \
   ANSIBLE_COLLECTIONS_SCAN_SYS_PATH=false ANSIBLE_CALLBACKS_ENABLED=ansible.posix.profile_tasks \
   ANSIBLE_CACHE_PLUGIN=jsonfile ANSIBLE_CACHE_PLUGIN_CONNECTION=$root/.cache/facts ANSIBLE_CACHE_PLUGIN_TIMEOUT=7200 \
   ansible-playbook -i "$inv_abs" gpufleet.cluster.site) >"$logs/converge.log" 2>&1 \
  || { tail -50 "$logs/converge.log"; exit 1; }
# A new cluster: each Slurm daemon started once, after its files, no restart seconds after its start.
python3 tests/e2e/check_log.py first-converge "$logs/converge.log"
echo "== idempotent re-run, the way AWX runs a job: ansible-runner, a private data dir, extravars, an inventory"
python3 tests/e2e/awx_runner.py --inventory "$inv" --playbook playbooks/site.yml --ident rerun --log "$logs/rerun.log" \
  || { tail -50 "$logs/rerun.log"; exit 1; }
python3 tests/e2e/summarise.py "$logs/converge.log" "$logs/rerun.log"
# Check mode on the converged cluster is each molecule scenario's `check` step (changed=0 asserted by
# tests/molecule/check_recap.py); here it runs on the node that joins below, before anything converged it.

echo "== bad input is refused in preflight, before any change (Slurm cases: the Slurm layer alone)"
refused() {  # refused EXPECTED_TEXT -e ...
  local expect=$1; shift
  if play "$@" >"$logs/refused.log" 2>&1; then echo "accepted bad input: $*"; exit 1; fi
  grep -qF -- "$expect" "$logs/refused.log" || { echo "refusal of $* did not say '$expect'"; tail -20 "$logs/refused.log"; exit 1; }
  ! grep -E "changed=[1-9]" "$logs/refused.log" || { echo "bad input $* changed something"; exit 1; }
  echo "refused: $* -> '$expect'"
}
refused "gc_thresh1 must cover every neighbour" -e common_neigh_gc_thresh1=2
refused "Writing higher limits would make pam_limits refuse every login" -e common_nofile_limit=1048576
refused "common_packages_extra holds \"jq=1.6-2.1\"" --limit login01 -e '{"common_packages_extra": ["jq=1.6-2.1"]}'
refused "would have no usable time configuration" -e '{"common_chrony_servers": [], "common_chrony_local_stratum": 0}'
refused "PriorityDecayType" --tags slurm -e '{"slurm_conf_extra": {"PriorityDecayType": "exponential"}}'
refused "MaxConcurrentJobs" --tags slurm -e '{"slurm_conf_extra": {"MaxConcurrentJobs": 100}}'
refused "partition gpu references node(s) gpu[03-09] that have no NodeName line" --tags slurm -e '{"slurm_partitions": [{"name": "gpu", "nodes": "gpu[01-09]", "default": true}]}'
refused "lacks /dev/nvidia8" --tags slurm -e slurm_gpu_count=9
refused "slurm_db_password (from the vault)" --tags slurm -e slurm_db_password=
refused "user dave names the QOS gold, which slurm_qos does not define" --tags slurm \
  -e '{"slurm_users": [{"name": "dave", "default_account": "vision", "qos": ["gold"]}]}'

echo "== one slice of an AWX sliced job (part of the inventory, a workflow job named after the template) is refused"
python3 tests/e2e/awx_runner.py --inventory "$inv" --playbook playbooks/site.yml --ident slice --log "$logs/slice.log" \
  --hosts gpu02,login01 --expect-refusal "as one slice of a sliced job" \
  --extravars '{"awx_workflow_job_id": 4243, "awx_workflow_job_name": "gpufleet site (converge)", "awx_job_launch_type": "workflow"}'

echo "== the cluster, seen from its nodes"
pytest -q -p no:cacheprovider tests/e2e/test_lab.py tests/e2e/test_slurm.py --ansible-inventory "$inv/hosts.yml" --connection ansible

echo "== validate.yml: the checks that have their hardware pass, the others say what is missing; a failure drains"
"$root/tests/e2e/validate.sh" "$name" "$inv"

echo "== the accounting policy with real jobs: a per-user limit, a user not in accounting, preemption, fair share, a hand change"
pytest -q -p no:cacheprovider tests/e2e/test_slurm_policy.py --ansible-inventory "$inv/hosts.yml" --connection ansible

echo "== a GPU node added to the inventory: site.yml in check mode on it first, then it joins (docs/day2.md's steps); a job running elsewhere keeps running"
job=$(on_login "sbatch --parsable --nodes=1 --nodelist=gpu01 --wrap 'sleep 900'")
[ -n "$job" ] || { echo "could not submit the long job"; exit 1; }
for _ in $(seq 60); do
  started=$(on_login "squeue --noheader --jobs $job --states RUNNING --format %S")
  [ -n "$started" ] && break; sleep 1
done
[ -n "$started" ] || { echo "the long job $job never started"; exit 1; }
computes=${E2E_COMPUTES:-2}
python3 "$root/lab/lab.py" up --name "$name" --inventory "$inv" --computes $((computes + 1)) --controllers 2 "${shares[@]}"
new_node=gpu$(printf '%02d' $((computes + 1)))
# The whole site.yml in check and diff mode on the new node, nothing converged there yet: it must run through
# (each role's check mode copes with a bare node), say what it would change, and leave the node as it was. The
# driver's and pynvml's packages are on for this run (the lab leaves them off): check mode must say it would
# refresh the lists and install them, although apt knows neither yet (the components are only pretended added).
podman exec "$name-$new_node" touch /run/e2e-before-check
play --check --diff --limit "$new_node" -e nvidia_driver_install_packages=true -e gpu_tuning_install_packages=true \
  >"$logs/fresh-check.log" 2>&1 || { tail -50 "$logs/fresh-check.log"; exit 1; }
# Changes and no failure; the slurm role says what it would install and start, takes the key from head; the
# nvidia_driver and gpu_tuning roles say what they would install.
python3 tests/e2e/check_log.py fresh-check "$logs/fresh-check.log" "$new_node"
fresh_recap=$(sed -n "s/^$new_node  *: //p" "$logs/fresh-check.log" | tail -1)
written=$(podman exec "$name-$new_node" find /etc /usr /opt /srv /var/lib/dpkg -xdev -newer /run/e2e-before-check)
[ -z "$written" ] || { echo "check mode on the fresh $new_node wrote:"; echo "$written" | head -20; exit 1; }
echo "check mode on the fresh $new_node: $fresh_recap; nothing written"
# docs/day2.md "Add a GPU node", step by step: the base layer everywhere, the new node's own layers limited to it, then
# Slurm everywhere (each run's recap in join.log).
{ ansible-playbook -i "$inv" playbooks/common.yml \
    && ansible-playbook -i "$inv" playbooks/site.yml --limit "$new_node" \
         --tags rdma,nvidia_driver,gpu_tuning,dcgm,roce_host,nccl,lustre_client \
    && ansible-playbook -i "$inv" playbooks/slurm.yml; } >"$logs/join.log" 2>&1 || { tail -50 "$logs/join.log"; exit 1; }
E2E_JOB_ID=$job E2E_JOB_START=$started pytest -q -p no:cacheprovider tests/e2e/test_slurm_join.py --ansible-inventory "$inv/hosts.yml"
on_login "scancel $job"

echo "== the database password is rotated (a new vault value): slurmdbd follows before accounting is read"
old_pw=$(sed -n 's/^slurm_db_password: //p' "$inv/group_vars/all/lab_secrets.yml")
new_pw="rotated-e2e-$RANDOM$RANDOM"
[ -n "$old_pw" ] || { echo "no slurm_db_password in $inv/group_vars/all/lab_secrets.yml"; exit 1; }
play --tags slurm -e "slurm_db_password=$new_pw" >"$logs/rotate.log" 2>&1 || { tail -50 "$logs/rotate.log"; exit 1; }
# The two tasks that carry the password changed on the accounting host, and nothing else did there.
for task in "Dbd | Create the accounting database user" "Dbd | Write slurmdbd.conf (it holds the database password)"; do
  awk -v t="$task" 'index($0, "TASK [") && index($0, t) {inside=1; next} /^TASK \[/ {inside=0} inside && /^changed: \[head\]/ {found=1} END {exit !found}' \
    "$logs/rotate.log" || { echo "the rotation did not change '$task' on head"; exit 1; }
done
db() { podman exec "$name-head" mysql --user=slurm --password="$1" --batch --skip-column-names --execute 'SELECT 1' 2>&1; }
[ "$(db "$new_pw")" = 1 ] || { echo "MariaDB refuses the new password: $(db "$new_pw")"; exit 1; }
podman exec "$name-head" grep -qxF "StoragePass=$new_pw" /etc/slurm/slurmdbd.conf \
  || { echo "slurmdbd.conf does not hold the new password"; exit 1; }
old_answer=$(db "$old_pw" || true)
case "$old_answer" in
  *"Access denied"*) ;;
  *) echo "MariaDB still accepts the old password after the rotation: $old_answer"; exit 1 ;;
esac
echo "MariaDB: the new password works, the old one is refused; slurmdbd.conf holds the new one"
on_login "sacctmgr --noheader list cluster format=cluster" \
  >"$logs/rotate-check.log" 2>&1 || { echo "accounting does not answer after the rotation"; cat "$logs/rotate-check.log"; exit 1; }
echo "accounting answers after the rotation: $(xargs <"$logs/rotate-check.log")"

echo "== a rolling driver upgrade: one GPU node at a time drained, its job left to end, rebooted, checked, resumed"
"$root/tests/e2e/rolling_reboot.sh" "$name" "$inv"

echo "== fail-over: a job runs, the primary controller's container stops, the backup takes over the saved state"
held=$(on_login "sbatch --parsable --nodes=1 --nodelist=gpu01 --wrap 'sleep 600'")
[ -n "$held" ] || { echo "could not submit the job that must survive the fail-over"; exit 1; }
for _ in $(seq 60); do [ "$(on_login "squeue --noheader --jobs $held --format %T")" = RUNNING ] && break; sleep 1; done
started=$(on_login "squeue --noheader --jobs $held --format %S")
echo "job $held RUNNING since $started before the primary stops"
podman stop -t 5 "$name-head" >/dev/null
E2E_FAILOVER_JOB=$held E2E_FAILOVER_START=$started \
  pytest -q -p no:cacheprovider tests/e2e/test_slurm_failover.py --ansible-inventory "$inv/hosts.yml"
