#!/usr/bin/env bash
# What an idempotent site.yml re-run costs each node (issue 29: evaluations, module runs on the node, setup runs,
# and the re-run's wall time), for one or more commits side by side in one run. Per size and commit: a fresh lab
# (this checkout's lab/lab.py and image), site.yml converged from that commit, then RERUNS re-runs the way AWX runs a
# job (tests/e2e/awx_runner.py from this checkout, --project the commit's work tree) with the cost per host read from
# the job events (tests/e2e/run_cost.py). The commits alternate in order from one size to the next.
#   make deps && bench/rerun_cost.sh COMMIT [COMMIT ...]      SIZES="2 16" (GPU nodes), RERUNS=1
# results: bench/results/rerun-cost-<UTC time>.txt (a table), each run's log and cost JSON in the folder of that name,
# and each first converge's controller CPU (<commit>-<size>-first-cpu.json: bench/projection.py's input)
set -euo pipefail
# shellcheck source=bench/lab-common.sh
. "$(dirname "$0")/lab-common.sh"
[ $# -ge 1 ] || { echo "usage: bench/rerun_cost.sh COMMIT [COMMIT ...]" >&2; exit 2; }
bench_setup rerun-cost
out=$root/$out
runs=${out%.txt}
mkdir -p "$runs"
trees=()
for commit in "$@"; do
  sha=$(git rev-parse --short=12 "$commit^{commit}")
  tree=$root/.build/rerun-cost/$sha
  [ -d "$tree" ] || git worktree add --detach "$tree" "$sha" >/dev/null
  ln -sfn "$root/.venv" "$tree/.venv"
  trees+=("$sha")
done
cleanup() {
  python3 lab/lab.py down --name "$name" --inventory "$inv" >/dev/null 2>&1 || true
  for sha in "${trees[@]}"; do git worktree remove --force "$root/.build/rerun-cost/$sha" 2>/dev/null || true; done
}
trap cleanup EXIT
echo "| commit | GPU nodes | first converge | re-run (wall) | GPU node: evaluations | module runs | setup |" | tee -a "$out"
echo "| --- | --- | --- | --- | --- | --- | --- |" | tee -a "$out"
for size in ${SIZES:-2}; do
  for sha in "${trees[@]}"; do
    tree=$root/.build/rerun-cost/$sha
    python3 lab/lab.py down --name "$name" --inventory "$inv" >/dev/null
    python3 lab/lab.py up --name "$name" --inventory "$inv" --computes "$size" >>"$out.log" 2>&1
    # The first converge's controller CPU and evaluations per host (bench/callback_plugins/run_cpu.py), for
    # bench/projection.py; the commit's own ansible.cfg otherwise.
    first=$(cd "$tree" && export ANSIBLE_CONFIG=$tree/ansible.cfg ANSIBLE_CALLBACK_PLUGINS=$root/bench/callback_plugins \
              ANSIBLE_CALLBACKS_ENABLED=run_cpu GPUFLEET_RUN_CPU=$runs/$sha-$size-first-cpu.json \
            && secs ansible-playbook -i "$inv" playbooks/site.yml) \
      || { echo "the first converge of $sha at $size GPU nodes failed: $out.log"; exit 1; }
    for r in $(seq "${RERUNS:-1}"); do
      cost=$runs/$sha-$size-$r.json
      wall=$(secs python3 tests/e2e/awx_runner.py --project "$tree" --inventory "$inv" --playbook playbooks/site.yml \
               --ident "bench-$sha" --log "$runs/$sha-$size-$r.log" --cost "$cost") \
        || { echo "the re-run of $sha at $size GPU nodes failed: $runs/$sha-$size-$r.log"; exit 1; }
      python3 tests/e2e/summarise.py "$runs/$sha-$size-$r.log" "$runs/$sha-$size-$r.log" >>"$out.log" \
        || { echo "the re-run of $sha at $size GPU nodes failed or changed something: $runs/$sha-$size-$r.log"; exit 1; }
      gpu=$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); print(" | ".join(str(c["gpu01"][k]) for k in ("evaluations","module_runs","setup")))' "$cost")
      printf '| %s | %s | %.1f s | %.1f s | %s |\n' "$sha" "$size" "$first" "$wall" "$gpu" | tee -a "$out"
    done
  done
done
echo "results: $out"
