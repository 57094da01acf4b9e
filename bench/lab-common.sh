# shellcheck shell=bash
# Shared set-up of the lab benchmarks (sourced by bench/lab.sh, bench/slurm.sh and bench/slurm_vs_galaxy.sh): a lab
# of their own (gpufleet-bench, or BENCH_LAB_NAME), removed on exit, and `secs` / `row` to time a command into
# bench/results/<kind>-<time>.txt.
#   bench_setup KIND
bench_setup() {
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  cd "$root" || exit 1
  export PATH=$root/.venv/bin:$PATH CONTAINERS_CONF=$root/lab/containers.conf ANSIBLE_CONFIG=$root/ansible.cfg
  name=${BENCH_LAB_NAME:-gpufleet-bench}
  inv=$root/.build/${name#gpufleet-}-inventory
  mkdir -p bench/results .build
  out=bench/results/$1-$(date -u +%Y%m%dT%H%M%SZ).txt
  trap 'python3 lab/lab.py down --name "$name" --inventory "$inv" >/dev/null 2>&1 || true' EXIT
  echo "# $(date -u) on $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, load average $(cut -d" " -f1-3 /proc/loadavg)" | tee "$out"
}
# The seconds a command took, printed; its exit status returned, so a caller can tell a failed run from a fast one.
secs() {
  local t0 rc=0
  t0=$(date +%s.%N)
  "$@" >>"$out.log" 2>&1 || rc=$?
  python3 -c "print($(date +%s.%N) - $t0)"
  return "$rc"
}
row() { printf '| %s | %.1f s |\n' "$1" "$2" | tee -a "$out"; }
