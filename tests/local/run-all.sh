#!/usr/bin/env bash
# make local: every tests/local/*/run.sh at once (each talks to its own loopback stand-ins on ports the kernel
# picks), one log each under .build/local; a line per test, and the end of the log of any that failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
logs=$root/.build/local
mkdir -p "$logs"
pids=() names=() starts=()
for t in "$root"/tests/local/*/run.sh; do
  name=$(basename "$(dirname "$t")")
  "$t" >"$logs/$name.log" 2>&1 &
  pids+=("$!") names+=("$name") starts+=("$SECONDS")
done
failed=0
for i in "${!pids[@]}"; do
  if wait "${pids[$i]}"; then
    echo "== local test ${names[$i]}: passed (by $((SECONDS - starts[i])) s)"
  else
    echo "== local test ${names[$i]}: FAILED, the end of $logs/${names[$i]}.log:"
    tail -60 "$logs/${names[$i]}.log"
    failed=1
  fi
done
exit "$failed"
