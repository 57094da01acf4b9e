#!/usr/bin/env bash
# make test's stages, lanes at a time: each argument is a lane, the make targets it runs one after the other; the
# lanes run at the same time (the stages are independent: their own containers, networks, ports and build
# folders). A lane stops at its first failure; the others run on, and the exit status is non-zero if any stage
# failed. Each stage logs to .build/stages/<stage>.log; a line per stage with its time, the CPU its own processes
# used, and the lines of its log that start with "== " (molecule's scenarios, the e2e's steps), or the end of the
# log of one that failed (tests/lib/jobs.sh, the runner of tests/local and tests/molecule too).
# A lane that starts with nice=N runs at that niceness, the others at 0: the longest lane (the e2e) keeps the CPU when the lanes
# want more than there is, and the others take what it leaves (its waits for jobs, reboots and daemons). Each lane
# is a session of its own, which gets the lane's niceness too (kernel autogroups: tests/lib/jobs.sh says why).
# Ctrl-C or a TERM stops every lane.
#   tests/stages.sh "e2e" "nice=5 molecule" "nice=10 unit plan install-test"
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/lib/jobs.sh
. "$root/tests/lib/jobs.sh"
jobs_init "$root/.build/stages" stage

stage() { make -C "$root" --no-print-directory "$1"; }
export -f stage
export root
for targets in "$@"; do
  nice=nice=0
  if [[ $targets =~ ^(nice=[0-9]+)\ (.*)$ ]]; then nice=${BASH_REMATCH[1]} targets=${BASH_REMATCH[2]}; fi
  # shellcheck disable=SC2086  # a lane is a list of target names
  jobs_lane "$nice" stage $targets
done
jobs_wait
