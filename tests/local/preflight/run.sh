#!/usr/bin/env bash
# Every role's real tasks/preflight.yml against this machine (connection local, check mode: a preflight only
# reads), once per case of cases.yml: each bad value must be refused by the role's input check, naming its
# variable (and never printing a secret), and each role's good values, the lab's and its bare defaults alike,
# must get through those checks. One ansible-playbook run for all of them (harness.py writes it: a play per case).
#   tests/local/preflight/run.sh        exits non-zero when a case ends otherwise; removes everything it made
#                                       (PREFLIGHT_TEST_KEEP=1 keeps the playbook, the results and the log;
#                                       PREFLIGHT_ROLES=slurm,dcgm runs only those roles' cases)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/local/lib.sh
. "$here/../lib.sh"
local_test_init preflight-test PREFLIGHT_TEST_KEEP

# The host is named after this machine, as a cluster node is (the slurm role checks the two agree), and is in
# every group a role looks at, so each role's preflight sees a one-node cluster (harness.py writes the inventory).
"$py" "$here/harness.py" playbook "$here/cases.yml" "$tmp/preflight.yml" "$tmp/inventory.yml" "$(hostname -s)"

export ANSIBLE_CONFIG=$root/ansible.cfg ANSIBLE_FORCE_COLOR=false ANSIBLE_NOCOLOR=true
# Facts in memory only (not ansible.cfg's cache in the checkout), pipelining for speed.
export ANSIBLE_CACHE_PLUGIN=memory ANSIBLE_PIPELINING=true
export ANSIBLE_LOCALHOST_WARNING=false PREFLIGHT_RESULTS=$tmp/results.json
start=$(date +%s.%N)
status=0
(cd "$root" && "$playbook" -i "$tmp/inventory.yml" --check "$tmp/preflight.yml") >"$tmp/play.log" 2>&1 || status=$?
end=$(date +%s.%N)
if [ "$status" -ne 0 ] || [ ! -s "$tmp/results.json" ]; then
  echo "ansible-playbook exited $status"; tail -n 60 "$tmp/play.log"; exit 1
fi
"$py" "$here/harness.py" check "$here/cases.yml" "$tmp/results.json" "$tmp/play.log"
"$py" -c 'import sys; print("== %d preflight cases in one ansible-playbook run: %.1f s" % (int(sys.argv[3]), float(sys.argv[2]) - float(sys.argv[1])))' \
  "$start" "$end" "$(grep -c '"case"' "$tmp/results.json")"

# playbooks/plan.yml's own input check (it runs on the controller, not through a role): a plan_dir or a cluster
# name with a newline or a blank is refused by the assertion on that variable, before anything is written.
plan_refused() {  # plan_refused VARIABLE EXTRA_VARS_JSON
  local log=$tmp/plan-$1.log
  if (cd "$root" && "$playbook" playbooks/plan.yml -i inventories/h100-64 -e "$2") >"$log" 2>&1; then
    echo "FAIL plan.yml took a bad $1"; exit 1
  fi
  if ! grep -q "Check the cluster's name and the output directory" "$log" \
     || ! grep -q "\"assertion\": \"[^\"]*$1" "$log"; then
    echo "FAIL plan.yml did not refuse the bad $1 by its input check"; tail -n 20 "$log"; exit 1
  fi
  if [ -e "$tmp/plan" ]; then echo "FAIL plan.yml wrote $tmp/plan although it refused $1"; exit 1; fi
  echo "== plan.yml: a bad $1 refused"
}
plan_refused plan_dir "{\"plan_dir\": \"$tmp/plan\\nx\"}"
plan_refused gpufleet_cluster_name "{\"gpufleet_cluster_name\": \"h100 64\", \"plan_dir\": \"$tmp/plan\"}"

