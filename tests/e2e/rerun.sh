#!/usr/bin/env bash
# The idempotent re-run of site.yml on the converged lab, the way AWX runs a job (ansible-runner, a private data dir,
# extravars, an inventory): it must change nothing. Check mode on the converged cluster is each molecule scenario's
# `check` step (changed=0 asserted by tests/molecule/check_recap.py); the e2e runs it on the joining node
# (tests/e2e/join.sh), before anything converged it.
#   tests/e2e/rerun.sh LAB_NAME INVENTORY_DIR        (a step of tests/e2e/run.sh)
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh" "$@"

python3 tests/e2e/awx_runner.py --inventory "$inv" --playbook playbooks/site.yml --ident rerun --log "$logs/rerun.log" \
  --cost "$logs/rerun-cost.json" \
  || { tail -50 "$logs/rerun.log"; exit 1; }
python3 tests/e2e/summarise.py "$logs/converge.log" "$logs/rerun.log"
