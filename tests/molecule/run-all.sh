#!/usr/bin/env bash
# Every molecule scenario, two at a time (each scenario has its own containers and network), longest first so
# the two lanes end close together. Each scenario logs to .build/molecule/<scenario>.log; a failed one's log
# tail is printed. Exits non-zero when any scenario failed, after the running ones have finished.
#   tests/molecule/run-all.sh SCENARIO...       (MOLECULE_JOBS=1 runs them one after the other)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
logs=$root/.build/molecule
mkdir -p "$logs"
# The scenarios reach their containers over SSH with the lab's key (.config/molecule/config.yml).
python3 "$root/lab/lab.py" ssh-key >/dev/null
# Rough lengths on the 2-core machine (minutes), to start the long ones first; unknown scenarios go last.
order="slurm fabric gpu"
scenarios=()
for s in $order; do [[ " $* " == *" $s "* ]] && scenarios+=("$s"); done
for s in "$@"; do [[ " $order " == *" $s "* ]] || scenarios+=("$s"); done

run_one() {  # run_one SCENARIO: molecule test, its log, one line of result
  local s=$1 start=$SECONDS left
  # What an interrupted run may have left, instead of a destroy step (a playbook run): the scenario's containers
  # (molecule-<scenario>-*) and molecule's state for it, which says "created" and would make create skip. The state
  # lives under .build, made anew for each run.
  left=$(podman ps -a --filter label=owner=molecule --format '{{.Names}}' | grep "^molecule-${s//_/-}-")
  [ -z "$left" ] || echo "$left" | xargs podman rm -f -t 2 >/dev/null
  export MOLECULE_EPHEMERAL_DIRECTORY=$logs/state/$s
  rm -rf "$MOLECULE_EPHEMERAL_DIRECTORY"
  # molecule fails its check step only when a task fails: check_recap.py also fails a change reported there.
  local recap=""
  if (cd "$root" && molecule test -s "$s") >"$logs/$s.log" 2>&1 \
     && recap=$(python3 "$root/tests/molecule/check_recap.py" "$logs/$s.log" 2>&1); then
    echo "$recap" >>"$logs/$s.log"
    echo "== molecule scenario $s: passed ($((SECONDS - start)) s)"
  else
    echo "== molecule scenario $s: FAILED ($((SECONDS - start)) s), the end of $logs/$s.log:"
    tail -60 "$logs/$s.log"
    [ -z "$recap" ] || echo "$recap"
    return 1
  fi
}
export -f run_one
export root logs

printf '%s\n' "${scenarios[@]}" | xargs -P "${MOLECULE_JOBS:-2}" -I{} bash -c 'run_one "$@"' _ {}
