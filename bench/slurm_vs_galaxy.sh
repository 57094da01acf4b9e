#!/usr/bin/env bash
# galaxyproject/ansible-slurm (theirs) next to our Slurm layer (playbooks/slurm.yml, ours) in one run, on labs of the
# same shape: 1 controller + N GPU nodes (default 2 and 8), no login node. For each side: a fresh lab, the common layer
# converged (not timed), then the first converge and RERUNS idempotent re-runs (timed; each must say changed=0).
# Both roles write the same files, so each side gets its own lab, brought up after the other's is down; which side
# goes first alternates from one size (and round) to the next. Both run with this checkout's ansible.cfg.
#
# Their repository is fetched, never vendored: give this script a clone (bare or not) of it.
#   git clone --bare https://github.com/galaxyproject/ansible-slurm ~/ansible-slurm.git
#   make deps && bench/slurm_vs_galaxy.sh ~/ansible-slurm.git [N ...]    (or GALAXY_SLURM=~/ansible-slurm.git)
#   RERUNS=3 (re-runs per side; the table gives their median)   ROUNDS=1 (repeat every size, the other side first)
#   BENCH_LAB_NAME=gpufleet-bench (the lab's name)
# Their role runs from .build/galaxy-slurm (HEAD of the clone, a fresh munge key, bench/galaxy_slurm/*.yml): controller
# and exec hosts with the lab's node list, gres and cgroup settings; without accounting, which it cannot set up (it
# installs no MariaDB). Before its first converge an untimed play writes the lab's daemon limits as systemd drop-ins
# (bench/galaxy_slurm/prep.yml), which our role writes itself. Results: bench/results/slurm-vs-galaxy-<UTC time>.txt,
# every run's output in the folder of the same name.
set -euo pipefail

usage() {
  sed -n '8,13p' "$0" >&2
  exit 2
}

snapshot=${GALAXY_SLURM:-}
if [ $# -gt 0 ] && ! [[ $1 =~ ^[0-9]+$ ]]; then
  snapshot=$1
  shift
fi
[ -n "$snapshot" ] || usage
[ -d "$snapshot" ] || { echo "$snapshot: no such folder (a clone of galaxyproject/ansible-slurm)" >&2; exit 2; }
gitdir=$(cd "$snapshot" && pwd)
[ -d "$gitdir/.git" ] && gitdir=$gitdir/.git
if ! git --git-dir="$gitdir" rev-parse --verify -q 'HEAD^{commit}' >/dev/null; then
  echo "$snapshot is not a git clone with a HEAD commit (git clone --bare https://github.com/galaxyproject/ansible-slurm)" >&2
  exit 2
fi
sizes=${*:-2 8}
reruns=${RERUNS:-3}
rounds=${ROUNDS:-1}

# shellcheck source=bench/lab-common.sh
. "$(dirname "$0")/lab-common.sh"
bench_setup slurm-vs-galaxy
logs=${out%.txt}
mkdir -p "$logs"

galaxy=$root/.build/galaxy-slurm
rm -rf "$galaxy"
mkdir -p "$galaxy/roles/galaxyproject.slurm"
git --git-dir="$gitdir" archive HEAD | tar -x -C "$galaxy/roles/galaxyproject.slurm"
cp bench/galaxy_slurm/site.yml bench/galaxy_slurm/prep.yml "$galaxy/"
(umask 077 && head -c 1024 /dev/urandom >"$galaxy/munge.key")
ours_rev=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- roles playbooks plugins || ours_rev="$ours_rev + uncommitted changes"
echo "# theirs: galaxyproject/ansible-slurm $(git --git-dir="$gitdir" log -1 --format='%h (%cs)'); ours: $ours_rev;" \
  "$reruns re-run(s) each, $rounds round(s)" | tee -a "$out"

# One playbook run, timed, its output kept as $logs/NN-SIDE-1+N-WHAT.log; sets $elapsed. Stops the bench when the run
# fails, or when a re-run changed anything.
count=0
timed() {
  local side=$1 n=$2 what=$3 log t0 t1 rc=0
  count=$((count + 1))
  log=$(printf '%s/%02d-%s-1+%s-%s.log' "$logs" "$count" "$side" "$n" "$what")
  echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >"$log"
  t0=$(date +%s.%N)
  if [ "$side" = ours ]; then
    ansible-playbook -i "$inv" playbooks/slurm.yml >>"$log" 2>&1 || rc=$?
  else
    ansible-playbook -i "$inv" "$galaxy/site.yml" >>"$log" 2>&1 || rc=$?
  fi
  t1=$(date +%s.%N)
  elapsed=$(python3 -c "print(f'{$t1 - $t0:.1f}')")
  echo "# $elapsed s; load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$log"
  echo "$side 1+$n $what: $elapsed s ($log)" >>"$out.log"
  if [ $rc -ne 0 ]; then
    tail -25 "$log" >&2
    echo "$side, 1 + $n GPU nodes, $what failed (exit $rc): $log" >&2
    exit 1
  fi
  if [ "$what" != first ] && sed -n '/PLAY RECAP/,$p' "$log" | grep -qE 'changed=[1-9]'; then
    echo "$side, 1 + $n GPU nodes: the idempotent re-run changed something: $log" >&2
    exit 1
  fi
}

fresh_lab() {
  {
    python3 lab/lab.py down --name "$name" --inventory "$inv"
    python3 lab/lab.py up --name "$name" --inventory "$inv" --computes "$1" --logins 0
    ansible-playbook -i "$inv" playbooks/common.yml
  } >>"$out.log" 2>&1
}

declare -A times
index=0
for round in $(seq 1 "$rounds"); do
  for n in $sizes; do
    index=$((index + 1))
    if [ $((index % 2)) -eq 1 ]; then order="theirs ours"; else order="ours theirs"; fi
    for side in $order; do
      echo "round $round, 1 + $n GPU nodes, $side ($(date -u +%H:%M:%S), load average $(cut -d' ' -f1-3 /proc/loadavg))"
      fresh_lab "$n"
      [ "$side" = theirs ] && ansible-playbook -i "$inv" "$galaxy/prep.yml" >>"$out.log" 2>&1
      timed "$side" "$n" first
      times[$side,$n,first]+="$elapsed "
      for r in $(seq 1 "$reruns"); do
        timed "$side" "$n" "rerun$r"
        times[$side,$n,rerun]+="$elapsed "
      done
      echo "  first converge ${times[$side,$n,first]% }s; re-runs ${times[$side,$n,rerun]% }s"
    done
  done
done

# The median of a list of figures, and the list itself when there is more than one.
cell() {
  local figures
  read -ra figures <<<"$1"
  python3 -c 'import statistics, sys
v = [float(x) for x in sys.argv[1:]]
print(f"{statistics.median(v):.1f} s" + (" (" + ", ".join(f"{x:.1f}" for x in v) + ")" if len(v) > 1 else ""))' "${figures[@]}"
}
{
  echo
  echo "| what | galaxyproject.slurm (theirs) | gpufleet.cluster.slurm (ours) |"
  echo "|---|---|---|"
  for n in $sizes; do
    echo "| first converge, 1 + $n GPU nodes | $(cell "${times[theirs,$n,first]}") | $(cell "${times[ours,$n,first]}") |"
    echo "| idempotent re-run, 1 + $n GPU nodes, median of $((reruns * rounds)) | $(cell "${times[theirs,$n,rerun]}") |" \
      "$(cell "${times[ours,$n,rerun]}") |"
  done
  echo
  echo "# done $(date -u), load average $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee -a "$out"
echo "results: $out (every run's output: $logs/)"
