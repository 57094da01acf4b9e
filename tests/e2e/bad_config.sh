#!/usr/bin/env bash
# Slurm's configuration is changed safely (docs/day2.md "Change Slurm's configuration safely"):
#  - a value the collection's own checks let through but Slurm's parser refuses (SelectTypeParameters=CR_Bogus) is
#    refused on every host before anything is replaced: both controllers keep their files and their slurmctld (same
#    PID), the compute nodes their slurmd, and a running job goes on;
#  - a normal change that needs the daemons restarted (a node feature: nodes.conf) rolls out with the controllers
#    restarted one at a time, the primary first and serving (scontrol ping) before the backup restarts; the previous
#    nodes.conf is kept beside the new one; the job still runs.
#   tests/e2e/bad_config.sh LAB_NAME INVENTORY_DIR        (a step of tests/e2e/run.sh)
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh" "$@"
controllers="head head2"
# What each host runs and reads: slurmctld's or slurmd's PID, and the SHA-256 of slurm.conf and nodes.conf.
state() {
  local host
  # shellcheck disable=SC2016  # expanded on the node
  local read='echo "$(hostname) ctld=$(systemctl show -p MainPID --value slurmctld)
    slurmd=$(systemctl show -p MainPID --value slurmd) $(cat /etc/slurm/slurm.conf /etc/slurm/nodes.conf | sha256sum | cut -c1-16)"'
  for host in $controllers gpu01; do podman exec "$name-$host" sh -c "$read" | xargs; done
}
job=$(submit_job "the job that must outlive both runs" 'sleep 600')
trap 'on_login "scancel $job" || true' EXIT
wait_running "$job" 60 || { echo "job $job never started"; exit 1; }
before=$(state)

# 1. Refused by Slurm's parser, on every host, before any file is replaced or any daemon restarted.
if play --tags slurm -e '{"slurm_conf_extra": {"SelectTypeParameters": "CR_Bogus"}}' >"$logs/bad-config.log" 2>&1; then
  echo "a slurm.conf Slurm refuses was rolled out"; exit 1
fi
grep -q "Bad SelectTypeParameter: CR_Bogus" "$logs/bad-config.log" \
  || { echo "the refusal did not come from Slurm's parser"; tail -30 "$logs/bad-config.log"; exit 1; }
! grep -E "changed=[1-9]" "$logs/bad-config.log" || { echo "the refused configuration changed something"; exit 1; }
after=$(state)
[ "$before" = "$after" ] || { printf 'files or daemons changed although Slurm refused the configuration:\n%s\n%s\n' \
  "$before" "$after"; exit 1; }
# What the parser read is left where it stopped: the staged slurm.conf, whose Include lines name the staged copies
# (the live ones would let a bad nodes.conf through unchecked).
includes=$(podman exec "$name-head" sh -c 'grep -E "^Include " /run/gpufleet-slurm-staged/slurm.conf' | sort -u)
if [ -z "$includes" ] || grep -qv "^Include /run/gpufleet-slurm-staged/" <<<"$includes"; then
  echo "the staged slurm.conf includes other than the staged copies: '$includes'"; exit 1
fi
echo "refused by Slurm's parser (Bad SelectTypeParameter: CR_Bogus); files and daemons as before:"
echo "$after"

# 2. A good change that restarts the daemons: the controllers one at a time, the primary first.
logged good-config play --tags slurm -e '{"slurm_node_features": ["e2e-rollout"]}'
python3 tests/e2e/check_rollout.py "$logs/good-config.log" head head2
for host in $controllers; do
  podman exec "$name-$host" sh -c 'grep -q "Feature=e2e-rollout" /etc/slurm/nodes.conf \
    && ls /etc/slurm/nodes.conf.*.bak | tail -1 | xargs grep -L "Feature=e2e-rollout" | grep -q .' \
    || { echo "$host: the new nodes.conf is not in place, or its previous version was not kept"; exit 1; }
done
changed=$(state)
for host in $controllers; do
  [ "$(grep "^$host " <<<"$before" | cut -d' ' -f2)" != "$(grep "^$host " <<<"$changed" | cut -d' ' -f2)" ] \
    || { echo "slurmctld on $host was not restarted by the change"; exit 1; }
done
on_login "sinfo --noheader --nodes gpu01 --format %f" | grep -q e2e-rollout \
  || { echo "slurmctld does not know the new feature of gpu01"; exit 1; }
[ "$(on_login "squeue --noheader --jobs $job --format %T")" = RUNNING ] \
  || { echo "job $job did not outlive the runs"; exit 1; }
echo "the change rolled out: both slurmctld restarted, the primary first; nodes.conf's previous version kept;" \
  "job $job still RUNNING"
