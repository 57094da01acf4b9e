# shellcheck shell=bash
# Jobs side by side, the one runner of tests/stages.sh (make test's lanes), tests/local/run-all.sh and
# tests/molecule/run-all.sh. Sourced; it sets the INT and TERM traps of the script that sources it.
#   jobs_init LOG_DIR LABEL [SLOTS]
#       each job logs to LOG_DIR/<job>.log; its result line says "== LABEL <job>: ..."; at most SLOTS lanes run at
#       once (the others wait for a free one, in the order they were given), all of them when SLOTS is 0 or unset
#   jobs_lane [nice=N] COMMAND NAME...
#       a lane: the jobs `COMMAND NAME`, one after the other, up to the first that fails. COMMAND is a program or a
#       function the caller exported (export -f), run in a subshell of its own with JOB_LOG set to its log.
#       The lane is a session of its own (setsid), so a stop reaches every process it started, at niceness N, given
#       to the session too: with the kernel's autogroup scheduling (/proc/sys/kernel/sched_autogroup_enabled) the
#       CPU is shared between sessions first and nice only orders the processes within one (/proc/self/autogroup).
#       Without nice=N the session keeps the caller's. Lanes started inside a job (make test's molecule and local
#       stages run these runners) stay in that job's session, as one share of the CPU at its niceness.
#   jobs_wait
#       waits for every lane; returns 1 when a job failed, 0 otherwise.
# When a job ends: one result line (name, passed or FAILED, wall time, and the CPU of its own processes: the lane's
# waited-for children; a container's systemd and daemons are not counted), then the lines of its log that start
# with "== " (molecule's scenarios, the e2e's steps, the local tests' steps), or the end of the log of one that
# failed. A lane's lines come out together when it ends. Ctrl-C or a TERM stops every lane (exit status 130).
#   . "$root/tests/lib/jobs.sh"; jobs_init "$root/.build/stages" stage
#   stage() { make "$1"; }; export -f stage; jobs_lane stage unit plan; jobs_lane nice=5 stage lint; jobs_wait

_jobs_lib=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
_jobs_tail=80
_jobs_ticks=$(getconf CLK_TCK)
_jobs_results='' _jobs_fd='' _jobs_slots=0 _jobs_started=0 _jobs_failed=0
declare -gA _jobs_running=()  # lane index -> the pid of the background shell that waits for its session

jobs_init() {  # jobs_init LOG_DIR LABEL [SLOTS]
  JOBS_LOGS=$1 JOBS_LABEL=$2 _jobs_slots=${3:-0}
  export JOBS_LOGS JOBS_LABEL
  mkdir -p "$JOBS_LOGS"
  # Each lane's lines, and a pipe on which the shell that waits for a lane says "INDEX STATUS" when it ends.
  _jobs_results=$(mktemp -d "$JOBS_LOGS/.lanes.XXXXXX")
  mkfifo "$_jobs_results/ended"
  exec {_jobs_fd}<>"$_jobs_results/ended"
  trap _jobs_stop INT TERM
}

jobs_lane() {  # jobs_lane [nice=N] COMMAND NAME...
  local nice="" index=$_jobs_started session=own autogroup
  if [[ ${1:-} =~ ^nice=([0-9]+)$ ]]; then nice=${BASH_REMATCH[1]}; shift; fi
  while (( _jobs_slots > 0 && ${#_jobs_running[@]} >= _jobs_slots )); do _jobs_collect; done
  # Inside a job of another runner: its session (JOBS_SESSION, exported by _jobs_session) is this lane's.
  [ -z "${JOBS_SESSION:-}" ] || session=shared
  autogroup=$(sed -n 's/.* nice //p' /proc/self/autogroup 2>/dev/null)
  # shellcheck disable=SC2016  # the lane's shell expands them
  {
    if [ "$session" = own ]; then
      setsid --wait bash -c '. "$0" && _jobs_session "$@"' "$_jobs_lib" "$session" "${nice:-}" "${autogroup:-0}" "$@"
    else
      bash -c '. "$0" && _jobs_session "$@"' "$_jobs_lib" "$session" "${nice:-}" "${autogroup:-0}" "$@"
    fi {_jobs_fd}>&- >"$_jobs_results/$index" 2>&1
    echo "$index $?" >&"$_jobs_fd"
  } &
  _jobs_running[$index]=$!
  _jobs_started=$((index + 1))
}

jobs_wait() {  # jobs_wait: every lane ended; 1 when a job failed
  while (( ${#_jobs_running[@]} > 0 )); do _jobs_collect; done
  exec {_jobs_fd}>&-
  rm -rf "$_jobs_results"
  return "$_jobs_failed"
}

_jobs_collect() {  # the next lane to end: its lines
  local index="" status
  read -r index status <&"$_jobs_fd" || true
  [ -n "$index" ] || return 0
  wait "${_jobs_running[$index]}" 2>/dev/null
  unset "_jobs_running[$index]"
  [ "$status" = 0 ] || _jobs_failed=1
  cat "$_jobs_results/$index"
}

# shellcheck disable=SC2317  # reached through the trap
_jobs_stop() {  # Ctrl-C reaches only the foreground process group, a TERM only this shell: pass it on to each lane
  local pid
  for pid in "${_jobs_running[@]}"; do _jobs_stop_tree "$pid"; done
  rm -rf "$_jobs_results"
  exit 130
}

# shellcheck disable=SC2317  # reached through the trap
_jobs_stop_tree() {  # _jobs_stop_tree PID: PID and its descendants, and the sessions any of them leads
  local child
  for child in $(pgrep -P "$1"); do _jobs_stop_tree "$child"; done
  pkill -TERM -s "$1" 2>/dev/null
  kill -TERM "$1" 2>/dev/null
}

_jobs_session() {  # _jobs_session own|shared NICE AUTOGROUP_NICE COMMAND NAME...: a lane, run by jobs_lane
  local session=$1 nice=$2 autogroup=$3 command=$4 name
  shift 4
  # A kernel without autogroups has no such file; a shared session's autogroup is the caller's job's.
  [ "$session" = shared ] || echo "${nice:-$autogroup}" 2>/dev/null >/proc/self/autogroup || true
  [ -z "$nice" ] || renice -n "$nice" -p "$BASHPID" >/dev/null
  export JOBS_SESSION=1
  for name; do _jobs_run "$command" "$name" || return 1; done
}

_jobs_run() {  # _jobs_run COMMAND NAME: one job, its log and its result line
  local command=$1 name=$2 log=$JOBS_LOGS/$2.log start=$SECONDS cpu0 cpu1 status=0
  _jobs_cpu cpu0
  (JOB_LOG=$log "$command" "$name") >"$log" 2>&1 || status=$?
  _jobs_cpu cpu1
  local took="$((SECONDS - start)) s, $(((cpu1 - cpu0) / _jobs_ticks)) core-s outside containers"
  if [ "$status" = 0 ]; then
    echo "== $JOBS_LABEL $name: passed ($took)"
    sed -n 's/^== /   == /p' "$log"
  else
    echo "== $JOBS_LABEL $name: FAILED ($took), the end of $log:"
    tail -"$_jobs_tail" "$log"
  fi
  return "$status"
}

_jobs_cpu() {  # _jobs_cpu VAR: VAR = the CPU of this shell's waited-for children (their utime + stime), in ticks
  local stat fields
  read -r stat <"/proc/$BASHPID/stat"
  read -r -a fields <<<"${stat##*) }"  # after the command name, which may hold spaces: field 3 is fields[0]
  printf -v "$1" '%s' $((fields[13] + fields[14]))
}
