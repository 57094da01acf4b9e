#!/usr/bin/env bash
# Lab end-to-end of playbooks/validate.yml, against a lab that is already converged (common, slurm, rdma layers):
#   1. a healthy run exits 0; its report: Slurm passes, fio on a local directory passes, perftest is present,
#      GPUs / DCGM / NCCL / RDMA bandwidth and latency / Lustre are "not applicable: no <hardware>"; it changed nothing
#   2. a check-mode run exits 0, runs no load test and says "not run: check mode"
#   2b. validating one node (--limit, as docs/day2.md does after a node join or repair): the Slurm checks run on that
#      node alone, from the login node outside the limit (delegate_to; the log shows "[gpu02 -> login01(<its address>)]"); RDMA is
#      "not applicable: no RDMA HCAs" in the lab (the peer outside the limit is proven by the unit tests of
#      validate/pairs.py and tests/local/validate_limit). No storage read and no install: a few seconds.
#   3. an impossible storage floor exits non-zero and, with validate_drain=true, drains every GPU node with the
#      reason; the nodes are resumed afterwards (also when something failed), so the lab is left as it was.
#   tests/e2e/validate.sh LAB_NAME INVENTORY_DIR        (a step of tests/e2e/run.sh)
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh" "$@"
reports=$root/.build/validate-e2e/$name
mkdir -p "$reports"
started=$SECONDS

# The lab's GPU nodes.
read -ra nodes <<<"$(ansible-inventory -i "$inv" --list | python3 -c 'import json,sys; print(" ".join(sorted(json.load(sys.stdin)["gpu_nodes"]["hosts"])))')"
read -r login < <(ansible-inventory -i "$inv" --list | python3 -c 'import json,sys; print(sorted(json.load(sys.stdin)["login_nodes"]["hosts"])[0])')
resume() { on_login "scontrol update nodename=$(IFS=,; echo "${nodes[*]}") state=resume" >/dev/null 2>&1 || true; }
validate() { ansible-playbook -i "$inv" playbooks/validate.yml "$@"; }

echo "== validate: a healthy lab passes"
logged validate validate -e "validate_report_dir=$reports/pass"
python3 tests/e2e/check_validate.py "$reports/pass" pass "${nodes[@]}"
# The one change allowed: installing the measuring tools (validate_install_tools) on a node that lacks them.
changed_tasks=$(awk '/^TASK \[/ {task=$0} /^changed: / {print task}' "$logs/validate.log" | sort -u \
  | grep -v "Install the measuring tools" || true)
[ -z "$changed_tasks" ] || { echo "validate.yml changed something without draining: $changed_tasks"; exit 1; }

echo "== validate in check mode: no load test, said so"
logged validate-check validate --check -e "validate_report_dir=$reports/check"
python3 tests/e2e/check_validate.py "$reports/check" check "${nodes[@]}"

limited=${nodes[1]:-${nodes[0]}}
echo "== validate --limit $limited: Slurm from $login (outside the limit), on $limited alone"
logged validate-limit validate --limit "$limited" -e "validate_report_dir=$reports/limit" \
  -e validate_install_tools=false -e '{"validate_storage_path": ""}'
python3 tests/e2e/check_validate.py "$reports/limit" limit "$limited"
for task in "Node states (sinfo)" "srun hostname on every GPU node" "sbatch across all nodes"; do
  grep -A3 "TASK \[.*Slurm | $task" "$logs/validate-limit.log" | grep -Eq "^ok: \[$limited -> $login(\([^)]*\))?\]" \
    || { echo "Slurm's '$task' did not run on $login for $limited"; grep -A3 "Slurm | $task" "$logs/validate-limit.log"; exit 1; }
done
echo "Slurm checks of $limited ran from $login, outside the limit"

echo "== validate with an impossible storage floor: exits non-zero, drains the GPU nodes when asked"
trap resume EXIT
if validate -e validate_filesystem_min_gbs=100000 -e validate_drain=true -e "validate_report_dir=$reports/fail" \
     >"$logs/validate-fail.log" 2>&1; then
  echo "validate.yml exited 0 with a floor of 100000 GB/s"; exit 1
fi
grep -q "Validation of .* failed: .* storage_read on" "$logs/validate-fail.log" \
  || { echo "the failure does not name storage_read"; tail -40 "$logs/validate-fail.log"; exit 1; }
python3 tests/e2e/check_validate.py "$reports/fail" fail "${nodes[@]}"
sinfo=$(on_login "sinfo --noheader --Node --format='%N|%T|%E'")
for node in "${nodes[@]}"; do
  echo "$sinfo" | grep -Eq "$node\|(drained|draining)\|gpufleet-validate: storage_read" \
    || { echo "$node is not drained by validate.yml: $sinfo"; exit 1; }
done
echo "drained with the reason: ${nodes[*]}"
resume
trap - EXIT
sinfo=$(on_login "sinfo --noheader --Node --format='%N|%T'")
! echo "$sinfo" | grep -Eq "drain" || { echo "nodes still drained after resume: $sinfo"; exit 1; }
echo "== validate: done in $((SECONDS - started)) s (reports in ${reports#"$root"/})"
