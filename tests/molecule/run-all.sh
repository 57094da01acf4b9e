#!/usr/bin/env bash
# Every molecule scenario, two at a time (each scenario has its own containers and network), longest first so
# the two slots end close together. Each scenario logs to .build/molecule/<scenario>.log; a line per scenario, and
# the end of the log of one that failed (tests/lib/jobs.sh). Exits non-zero when any scenario failed, after the
# running ones have finished.
#   tests/molecule/run-all.sh SCENARIO...       (MOLECULE_JOBS=1 runs them one after the other)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/jobs.sh
. "$root/tests/lib/jobs.sh"
jobs_init "$root/.build/molecule" "molecule scenario" "${MOLECULE_JOBS:-2}"
# The scenarios reach their containers over SSH with the lab's key (.config/molecule/config.yml).
python3 "$root/lab/lab.py" ssh-key >/dev/null
# Rough lengths on the 2-core machine (minutes), to start the long ones first; unknown scenarios go last.
order="slurm fabric gpu"
scenarios=()
for s in $order; do [[ " $* " == *" $s "* ]] && scenarios+=("$s"); done
for s in "$@"; do [[ " $order " == *" $s "* ]] || scenarios+=("$s"); done

scenario() {  # scenario NAME: molecule test, then check_recap.py on its log
  local s=$1 left
  # What an interrupted run may have left, instead of a destroy step (a playbook run): the scenario's containers
  # (molecule-<scenario>-*) and molecule's state for it, which says "created" and would make create skip. The state
  # lives under .build, made anew for each run.
  left=$(podman ps -a --filter label=owner=molecule --format '{{.Names}}' | grep "^molecule-${s//_/-}-")
  [ -z "$left" ] || echo "$left" | xargs podman rm -f -t 2 >/dev/null
  export MOLECULE_EPHEMERAL_DIRECTORY=$JOBS_LOGS/state/$s
  rm -rf "$MOLECULE_EPHEMERAL_DIRECTORY"
  # molecule fails its check step only when a task fails: check_recap.py also fails a change reported there (what
  # it says ends the log).
  cd "$root" && molecule test -s "$s" && python3 "$root/tests/molecule/check_recap.py" "${JOB_LOG:?}"
}
export -f scenario
export root
for s in "${scenarios[@]}"; do jobs_lane scenario "$s"; done
jobs_wait
