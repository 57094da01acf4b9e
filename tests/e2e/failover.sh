#!/usr/bin/env bash
# Controller fail-over: a job runs, the primary controller's container stops, the backup takes over the saved state
# (tests/e2e/test_slurm_failover.py). The last step: the primary stays stopped.
#   tests/e2e/failover.sh LAB_NAME INVENTORY_DIR        (a step of tests/e2e/run.sh)
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh" "$@"

held=$(submit_job "the job that must survive the fail-over" 'sleep 600')
wait_running "$held" 60 || true  # a job that never ran fails test_slurm_failover.py below
started=$(on_login "squeue --noheader --jobs $held --format %S")
echo "job $held RUNNING since $started before the primary stops"
podman stop -t 5 "$name-head" >/dev/null
E2E_FAILOVER_JOB=$held E2E_FAILOVER_START=$started node_tests tests/e2e/test_slurm_failover.py
