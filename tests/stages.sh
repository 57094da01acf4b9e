#!/usr/bin/env bash
# make test's stages, lanes at a time: each argument is a lane, the make targets it runs one after the other; the
# lanes run at the same time (the stages are independent: their own containers, networks, ports and build
# folders). Each stage logs to .build/stages/<stage>.log; a line per stage with its time and the lines of its log
# that start with "== " (molecule's scenarios, the e2e's steps), or the end of the log of one that failed. A lane
# stops at its first failure; the others run on, and the exit status is non-zero if any stage failed.
# A lane that starts with nice=N runs at that niceness: the longest lane (the e2e) keeps the CPU when the lanes
# want more than there is, and the others take what it leaves (its waits for jobs, reboots and daemons).
# Each lane is a session of its own: with the kernel's autogroup scheduling (/proc/sys/kernel/sched_autogroup_enabled)
# the CPU is shared between sessions first and nice only orders the processes within one, so the lane's session gets
# the lane's niceness too (/proc/self/autogroup). Ctrl-C or a TERM stops every lane.
#   tests/stages.sh "e2e" "nice=5 molecule" "nice=10 unit plan install-test"
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
logs=$root/.build/stages
mkdir -p "$logs"

ticks=$(getconf CLK_TCK)
children_cpu() {  # children_cpu VAR: VAR = the CPU seconds of this shell's waited-for children (their utime + stime)
  local stat fields
  read -r stat <"/proc/$BASHPID/stat"
  read -r -a fields <<<"${stat##*) }"  # after the command name, which may hold spaces: field 3 is fields[0]
  printf -v "$1" '%s' $(( (fields[13] + fields[14]) / ticks ))
}

lane() {  # lane TARGET...: the targets in turn, stopping at the first that fails
  local t start cpu0 cpu1
  for t in "$@"; do
    start=$SECONDS
    children_cpu cpu0
    if make -C "$root" --no-print-directory "$t" >"$logs/$t.log" 2>&1; then
      children_cpu cpu1
      # The CPU of the stage's own processes; its containers' (systemd and the daemons in them) is not counted.
      echo "== stage $t: passed ($((SECONDS - start)) s, $((cpu1 - cpu0)) core-s outside containers)"
      sed -n 's/^== /   == /p' "$logs/$t.log"
    else
      echo "== stage $t: FAILED ($((SECONDS - start)) s), the end of $logs/$t.log:"
      tail -80 "$logs/$t.log"
      return 1
    fi
  done
  return 0
}

if [ "${1:-}" = --lane ]; then  # stages.sh --lane N TARGET...: one lane, in the session setsid made for it
  niceness=$2
  shift 2
  echo "$niceness" 2>/dev/null >/proc/self/autogroup || true  # a kernel without autogroups has no such file
  renice -n "$niceness" -p $$ >/dev/null
  lane "$@"
  exit
fi

pids=()
# Ctrl-C reaches only the foreground group: pass it on to each lane's session (setsid ran the lane as the pid
# started here, or as its child where it had to fork).
# shellcheck disable=SC2317  # reached through the trap
stop_lanes() {
  local pid child
  for pid in "${pids[@]}"; do
    pkill -TERM -s "$pid" 2>/dev/null
    for child in $(pgrep -P "$pid"); do pkill -TERM -s "$child" 2>/dev/null; done
  done
  exit 130
}
trap stop_lanes INT TERM
for targets in "$@"; do
  niceness=0
  if [[ $targets =~ ^nice=([0-9]+)\ (.*)$ ]]; then niceness=${BASH_REMATCH[1]} targets=${BASH_REMATCH[2]}; fi
  # shellcheck disable=SC2086  # a lane is a list of target names
  setsid --wait "$0" --lane "$niceness" $targets >"$logs/lane.$$.${#pids[@]}" 2>&1 &
  pids+=("$!")
done
failed=0
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || failed=1
  cat "$logs/lane.$$.$i"
  rm -f "$logs/lane.$$.$i"
done
exit "$failed"
