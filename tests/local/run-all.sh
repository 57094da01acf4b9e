#!/usr/bin/env bash
# make local: every tests/local/*/run.sh at once (each talks to its own loopback stand-ins on ports the kernel
# picks), one log each under .build/local; a line per test, and the end of the log of any that failed
# (tests/lib/jobs.sh). Each test removes what it made when it ends, also when stopped (Ctrl-C, TERM).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/jobs.sh
. "$root/tests/lib/jobs.sh"
jobs_init "$root/.build/local" "local test"

local_test() { "$root/tests/local/$1/run.sh"; }
export -f local_test
export root
for t in "$root"/tests/local/*/run.sh; do
  jobs_lane local_test "$(basename "$(dirname "$t")")"
done
jobs_wait
