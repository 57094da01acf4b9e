#!/usr/bin/env bash
# awx/configure.yml against a loopback stand-in of the AWX REST API v2 (awx_standin.py, on 127.0.0.1): the awx.awx
# modules run for real against it. Refusals first (nothing may be written), then check mode on an empty
# controller, apply, re-run (changed=0), a hand edit "in the UI" that check mode must see and a run must undo
# (back to exactly what the first apply made), the stand-in's own refusals, then the made objects against the
# playbooks they run (check_assets.py, which must also reject a dozen broken variants) and where the secrets went.
# Two logins, both from the environment: the token, and user and password. A token or password given as extra vars
# is refused before anything is asked of the controller.
#   tests/local/awx/run.sh        exits non-zero on the first failure; removes everything it made
#                                 (AWX_TEST_KEEP=1 keeps the logs and the stand-in's dumps)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/local/lib.sh
. "$here/../lib.sh"
local_test_init awx-test AWX_TEST_KEEP
mkdir -p "$tmp/logs"

# The controller's login, made up per run; the site's machine credential exists in it, without a secret.
AWX_STANDIN_TOKEN=$("$py" -c 'import secrets; print(secrets.token_hex(20))')
AWX_STANDIN_USER=awx-test
AWX_STANDIN_PASSWORD=$("$py" -c 'import secrets; print(secrets.token_urlsafe(18))')
export AWX_STANDIN_TOKEN AWX_STANDIN_USER AWX_STANDIN_PASSWORD
machine_credential="site machine credential"
"$py" "$here/awx_standin.py" serve "$tmp/port" "$root" --credential "$machine_credential=ssh" \
  >"$tmp/logs/standin.out" 2>&1 &
standin_pid=$!
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
[ -s "$tmp/port" ] || { echo "AWX stand-in did not start"; cat "$tmp/logs/standin.out"; exit 1; }
url=http://127.0.0.1:$(cat "$tmp/port")

# What a site puts in awx/vars/main.yml, here as -e @file; a controller login as extra vars in a file of its own, which
# configure.yml must refuse (the token never comes as an extra var).
cat >"$tmp/site.yml" <<EOF
gpufleet_awx_scm_url: ssh://git@scm.invalid/hpc/gpufleet.cluster.git
gpufleet_awx_ee_image: localhost/gpufleet-ee:0.1.0
gpufleet_awx_machine_credential: $machine_credential
EOF
(umask 077 && printf 'controller_host: %s\ncontroller_oauthtoken: %s\n' "$url" "$AWX_STANDIN_TOKEN" >"$tmp/login.yml")

export ANSIBLE_CONFIG=$root/ansible.cfg ANSIBLE_FORCE_COLOR=false ANSIBLE_NOCOLOR=true
# Pipelining spares each module run its temporary directory round trips (local connection too).
export ANSIBLE_CACHE_PLUGIN=memory ANSIBLE_PIPELINING=true
# configure.yml runs on the implicit localhost: an empty inventory instead of ansible.cfg's lab one, so that any
# warning left in a run's output is configure.yml's or awx.awx's (check_assets.py recap fails on one).
printf 'all: {}\n' >"$tmp/no-hosts.yml"
export ANSIBLE_INVENTORY=$tmp/no-hosts.yml ANSIBLE_LOCALHOST_WARNING=false
standin() { "$py" "$here/awx_standin.py" "$@"; }
check() { "$py" "$here/check_assets.py" "$@"; }
# play PHASE LOGIN ARGS...: one ansible-playbook run, its requests labelled PHASE; LOGIN is how it logs in.
play() {
  local phase=$1 login=$2; shift 2
  standin phase "$tmp/port" "$phase"
  case $login in
    env-token) (cd "$root" && env CONTROLLER_HOST="$url" CONTROLLER_OAUTH_TOKEN="$AWX_STANDIN_TOKEN" \
                 "$playbook" awx/configure.yml -e @"$tmp/site.yml" "$@") ;;
    vars-token) (cd "$root" && "$playbook" awx/configure.yml -e @"$tmp/site.yml" -e @"$tmp/login.yml" "$@") ;;
    env-bad-token) (cd "$root" && env CONTROLLER_HOST="$url" CONTROLLER_OAUTH_TOKEN=not-the-token \
                     "$playbook" awx/configure.yml -e @"$tmp/site.yml" "$@") ;;
    env-password) (cd "$root" && env CONTROLLER_HOST="$url" CONTROLLER_USERNAME="$AWX_STANDIN_USER" \
                    CONTROLLER_PASSWORD="$AWX_STANDIN_PASSWORD" "$playbook" awx/configure.yml -e @"$tmp/site.yml" "$@") ;;
  esac
}
run() {  # run PHASE LOGIN ARGS...: a run that must succeed
  local phase=$1
  play "$@" >"$tmp/logs/$phase.log" 2>&1 || { echo "FAIL: $phase run failed"; tail -40 "$tmp/logs/$phase.log"; exit 1; }
}
refused() {  # refused PHASE EXPECTED_TEXT [LOGIN] ARGS...: a run that must stop before writing, saying EXPECTED_TEXT
  local phase=$1 expect=$2 login=env-token; shift 2
  case ${1:-} in env-token|vars-token|env-bad-token|env-password) login=$1; shift ;; esac
  if play "$phase" "$login" "$@" >"$tmp/logs/$phase.log" 2>&1; then echo "FAIL: $phase: accepted"; exit 1; fi
  check refused "$tmp/logs/$phase.log" "$expect"
}
dump() { standin dump "$tmp/port" "$tmp/$1.json"; }

echo "== refusals: nothing is written"
# A template sliced in the site's vars: the whole list from awx/vars/main.yml with validate's slice count at 4.
"$py" - "$root/awx/vars/main.yml" "$tmp/sliced.yml" <<'PY'
import sys, yaml
data = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))
templates = data["gpufleet_awx_job_templates"]
[t for t in templates if t["playbook"] == "playbooks/validate.yml"][0]["job_slice_count"] = 4
yaml.safe_dump({"gpufleet_awx_job_templates": templates}, open(sys.argv[2], "w", encoding="utf-8"))
PY
refused sliced "has job_slice_count 4" -e @"$tmp/sliced.yml"
# The converge workflow named after a template: its cluster and finalize jobs would be taken for slices.
refused workflow-name "the name of a job template: its jobs would be taken for slices" \
  -e '{"gpufleet_awx_workflow": "h100-64 cluster"}'
refused credential "the controller has 0 credential(s) named 'no such credential'" \
  -e '{"gpufleet_awx_machine_credential": "no such credential"}'
refused unset "Set gpufleet_awx_ee_image in awx/vars/main.yml" -e '{"gpufleet_awx_ee_image": ""}'
refused login "Invalid authentication credentials for /api/v2/credentials/ (HTTP 401)" env-bad-token
refused token-var "controller_oauthtoken came as a variable. Extra vars are kept in AWX's job records" vars-token
refused password-var "controller_password came as a variable" env-password -e '{"controller_password": "x"}'
dump refusals
for phase in sliced workflow-name credential unset login token-var password-var; do
  check requests "$tmp/refusals.json" "$phase" nowrites
done

# Another organization's inventory of the cluster's name: a lookup by name alone would find two.
standin phase "$tmp/port" setup
standin request "$tmp/port" POST /api/v2/inventories/ '{"name": "h100-64", "organization": 1}' >/dev/null

echo "== check mode on a controller without our objects: nothing is written"
run check env-token --check
check recap "$tmp/logs/check.log" changed

echo "== apply"
run apply env-token
check recap "$tmp/logs/apply.log" changed
dump apply

echo "== re-run with user and password, at -vvv (module arguments shown): nothing changes"
run rerun env-password -vvv
check recap "$tmp/logs/rerun.log" unchanged

echo "== a hand edit in the UI: check mode sees it, a run undoes it"
id_of() {  # id_of PATH: the id of the one object a listing returns
  standin request "$tmp/port" GET "$1" | "$py" -c 'import json, sys; print(json.load(sys.stdin)["body"]["results"][0]["id"])'
}
jt=$(id_of "/api/v2/job_templates/?name=h100-64%20validate")
source_id=$(id_of "/api/v2/inventory_sources/?name=h100-64%20from%20gpufleet.cluster")
cluster_node=$(id_of "/api/v2/workflow_job_template_nodes/?identifier=cluster")
nodes_node=$(id_of "/api/v2/workflow_job_template_nodes/?identifier=nodes")
finalize_node=$(id_of "/api/v2/workflow_job_template_nodes/?identifier=finalize")
standin phase "$tmp/port" edit
standin request "$tmp/port" PATCH "/api/v2/job_templates/$jt/" \
  '{"job_slice_count": 4, "ask_variables_on_launch": true, "allow_simultaneous": true}' >/dev/null
standin request "$tmp/port" POST "/api/v2/job_templates/$jt/credentials/" '{"id": 1, "disassociate": true}' >/dev/null
standin request "$tmp/port" DELETE "/api/v2/job_templates/$jt/survey_spec/" >/dev/null
# The workflow: the node job no longer follows the cluster job, and finalize runs when the cluster job fails.
standin request "$tmp/port" POST "/api/v2/workflow_job_template_nodes/$cluster_node/success_nodes/" \
  "{\"id\": $nodes_node, \"disassociate\": true}" >/dev/null
standin request "$tmp/port" POST "/api/v2/workflow_job_template_nodes/$cluster_node/failure_nodes/" \
  "{\"id\": $finalize_node}" >/dev/null
run recheck env-token --check
check recap "$tmp/logs/recheck.log" changed
run repair env-token
check recap "$tmp/logs/repair.log" changed
dump final

echo "== the stand-in saw what each run should do"
for phase in check rerun recheck; do check requests "$tmp/final.json" "$phase" reads; done
for phase in apply repair; do check requests "$tmp/final.json" "$phase" writes; done
check same "$tmp/apply.json" "$tmp/final.json"

echo "== the stand-in refuses what AWX would, and what it would silently ignore"
standin_refuses() {  # standin_refuses WHAT STATUS METHOD PATH [JSON]: the request must get STATUS
  local what=$1 status=$2; shift 2
  if standin request "$tmp/port" "$@" >"$tmp/refusal.json"; then echo "FAIL: the stand-in accepted $what"; exit 1; fi
  grep -q "\"status\": $status" "$tmp/refusal.json" || { echo "FAIL: $what: $(cat "$tmp/refusal.json")"; exit 1; }
  echo "ok: the stand-in refuses $what ($status)"
}
standin phase "$tmp/port" standin-refusals
standin_refuses "a misspelt job template field" 400 PATCH "/api/v2/job_templates/$jt/" '{"job_slices": 1}'
standin_refuses "a survey question key AWX does not read" 400 POST "/api/v2/job_templates/$jt/survey_spec/" \
  '{"name": "", "description": "", "spec": [{"question_name": "q", "variable": "validate_drain", "type": "text", "required": false, "descripton": ""}]}'
standin_refuses "a playbook the project lacks" 400 PATCH "/api/v2/job_templates/$jt/" '{"playbook": "playbooks/no-such.yml"}'
standin_refuses "an inventory file the project lacks" 400 PATCH "/api/v2/inventory_sources/$source_id/" '{"source_path": "inventories/none/hosts.yml"}'
standin_refuses "a workflow edge that makes a cycle" 400 POST "/api/v2/workflow_job_template_nodes/$finalize_node/success_nodes/" \
  "{\"id\": $cluster_node}"
standin_refuses "an endpoint it does not serve" 404 GET /api/v2/hosts/

echo "== what configure.yml made, against the playbooks the templates run"
check state "$tmp/final.json" "$root"
check mutants "$tmp/final.json" "$root"
check secrets "$tmp/final.json" "$tmp/logs"
echo "awx local tests: passed"
