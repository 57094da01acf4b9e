# shellcheck shell=bash
# What tests/e2e/run.sh and its step files share. Each is run as `STEP LAB_NAME INVENTORY_DIR` and sources this
# after `set -euo pipefail`, with its arguments:   . "$(dirname "$0")/lib.sh" "$@"
#   name, inv             the lab's name and inventory folder
#   root, logs            the checkout (the working directory from here on) and .build/e2e-logs, the steps' logs
#   lab ARGS...           lab/lab.py
#   lab_up COMPUTES [ARGS...]
#                         the lab with COMPUTES GPU nodes and two controllers; its containers weigh 4 times a
#                         molecule container (E2E_CPU_SHARES): make test runs molecule beside the e2e, whose steps,
#                         one after the other, are the longest path. ARGS: more of lab.py up's (--bare gpu03)
#   play ARGS...          playbooks/site.yml on the lab
#   logged LOG CMD...     CMD with its output in $logs/LOG.log; when it fails, the end of that log, and the step fails
#   on_login COMMAND      a shell command on the login node (users, jobs, Slurm's state)
#   submit_job WHAT WRAP  the id of a one-node batch job on gpu01 running the shell command WRAP; the step fails,
#                         saying it could not submit WHAT, when Slurm gave no id
#   wait_running JOB SECONDS
#                         waits up to SECONDS for the Slurm job JOB to run; fails when it did not
#   node_tests ARGS...    pytest with testinfra on the lab's nodes (its inventory), ARGS the test files and options
# The test's own commands on the nodes go through podman exec: an ad-hoc `ansible` run costs a core-second each
# (docs/performance.md); ansible is what the playbooks are tested with.
name=${1:?lab name}
inv=${2:?inventory dir}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
logs=$root/.build/e2e-logs
mkdir -p "$logs"
cd "$root" || exit 1

lab() { python3 "$root/lab/lab.py" "$@"; }
lab_up() {
  lab up --name "$name" --inventory "$inv" --computes "$1" --controllers 2 --cpu-shares "${E2E_CPU_SHARES:-4096}" \
    "${@:2}"
}
play() { ansible-playbook -i "$inv" playbooks/site.yml "$@"; }
logged() {
  local log=$logs/$1.log
  shift
  "$@" >"$log" 2>&1 || { tail -60 "$log"; exit 1; }
}
on_login() { podman exec "$name-login01" sh -c "$1"; }
submit_job() {
  local job
  job=$(on_login "sbatch --parsable --nodes=1 --nodelist=gpu01 --wrap '$2'")
  [ -n "$job" ] || { echo "could not submit $1" >&2; exit 1; }
  echo "$job"
}
wait_running() {
  local _
  for _ in $(seq "$2"); do
    [ "$(on_login "squeue --noheader --jobs $1 --format %T")" = RUNNING ] && return 0
    sleep 1
  done
  return 1
}
node_tests() { pytest -q -p no:cacheprovider "$@" --ansible-inventory "$inv/hosts.yml"; }
