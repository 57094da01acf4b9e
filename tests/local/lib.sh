# shellcheck shell=bash
# Shared set-up of tests/local/*/run.sh, sourced after `set -euo pipefail`:
#   root, py, playbook   the checkout, its venv's python and ansible-playbook
#   local_test_init NAME KEEP_VARIABLE
#                        tmp: a fresh temporary folder (NAME.XXXXXX); on exit the stand-in server whose PID is in
#                        standin_pid is stopped and tmp removed, unless the environment sets KEEP_VARIABLE
# shellcheck disable=SC2034  # the sourcing script reads these
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
py=$root/.venv/bin/python
playbook=$root/.venv/bin/ansible-playbook
standin_pid=
tmp=
local_test_keep_var=

local_test_cleanup() {
  if [ -n "$standin_pid" ]; then kill "$standin_pid" 2>/dev/null || true; wait "$standin_pid" 2>/dev/null || true; fi
  if [ -n "${!local_test_keep_var:-}" ]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
}

local_test_init() {
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
  local_test_keep_var=$2
  trap local_test_cleanup EXIT
}
