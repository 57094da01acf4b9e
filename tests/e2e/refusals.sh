#!/usr/bin/env bash
# Bad input is refused in preflight, before any change, saying what is wrong (the Slurm cases run the Slurm layer
# alone): each run must fail, say the expected text and report no change on any host.
#   tests/e2e/refusals.sh LAB_NAME INVENTORY_DIR        (a step of tests/e2e/run.sh)
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh" "$@"

refused() {  # refused EXPECTED_TEXT -e ...
  local expect=$1; shift
  if play "$@" >"$logs/refused.log" 2>&1; then echo "accepted bad input: $*"; exit 1; fi
  grep -qF -- "$expect" "$logs/refused.log" || { echo "refusal of $* did not say '$expect'"; tail -20 "$logs/refused.log"; exit 1; }
  ! grep -E "changed=[1-9]" "$logs/refused.log" || { echo "bad input $* changed something"; exit 1; }
  echo "refused: $* -> '$expect'"
}
refused "gc_thresh1 must cover every neighbour" -e common_neigh_gc_thresh1=2
refused "Writing higher limits would make pam_limits refuse every login" -e common_nofile_limit=1048576
refused "common_packages_extra holds \"jq=1.6-2.1\"" --limit login01 -e '{"common_packages_extra": ["jq=1.6-2.1"]}'
refused "would have no usable time configuration" -e '{"common_chrony_servers": [], "common_chrony_local_stratum": 0}'
refused "PriorityDecayType" --tags slurm -e '{"slurm_conf_extra": {"PriorityDecayType": "exponential"}}'
refused "MaxConcurrentJobs" --tags slurm -e '{"slurm_conf_extra": {"MaxConcurrentJobs": 100}}'
refused "partition gpu references node(s) gpu[03-09] that have no NodeName line" --tags slurm -e '{"slurm_partitions": [{"name": "gpu", "nodes": "gpu[01-09]", "default": true}]}'
refused "lacks /dev/nvidia8" --tags slurm -e slurm_gpu_count=9
refused "slurm_db_password (from the vault)" --tags slurm -e slurm_db_password=
refused "user dave names the QOS gold, which slurm_qos does not define" --tags slurm \
  -e '{"slurm_users": [{"name": "dave", "default_account": "vision", "qos": ["gold"]}]}'
