#!/usr/bin/env bash
# The kernel the nvidia_driver and lustre_client roles build for is the one that runs now, not the one in the fact
# cache (issue 28): ansible.cfg caches facts for two hours, so a converge soon after a kernel update and reboot
# read the old kernel from the cache and installed headers / Lustre modules for it. Here a real jsonfile fact
# cache of this machine is seeded with a kernel that is not running, and both roles' real preflights run against
# this machine (connection local, check mode, the lab's values) with that cache: every package name derived from
# the kernel must name the live one (/proc/sys/kernel/osrelease), while the cached fact still holds the stale one.
#   tests/local/kernel/run.sh        exits non-zero when a role used the cached kernel; removes everything it made
#                                    (KERNEL_TEST_KEEP=1 keeps the cache and the logs)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/local/lib.sh
. "$here/../lib.sh"
local_test_init kernel-test KERNEL_TEST_KEEP

live=$(cat /proc/sys/kernel/osrelease)
stale=0.0.1-1-stale
export ANSIBLE_CONFIG=$root/ansible.cfg ANSIBLE_FORCE_COLOR=false ANSIBLE_NOCOLOR=true ANSIBLE_PIPELINING=true
# ansible.cfg's cache (jsonfile, 7200 s, gathering smart), in a folder of this test's own.
export ANSIBLE_CACHE_PLUGIN=jsonfile ANSIBLE_CACHE_PLUGIN_CONNECTION=$tmp/facts ANSIBLE_CACHE_PLUGIN_TIMEOUT=7200
export ANSIBLE_GATHERING=smart ANSIBLE_LOCALHOST_WARNING=false
node=$(hostname -s)
printf 'all:\n  hosts:\n    %s:\n      ansible_connection: local\n      ansible_python_interpreter: %s\n' \
  "$node" "$py" >"$tmp/inventory.yml"
play() { (cd "$root" && "$playbook" -i "$tmp/inventory.yml" "$@"); }

# 1. Fill the cache the way a converge does, then make it hold a kernel this machine does not run (as it would after
#    a kernel update and reboot within the cache's two hours).
play "$here/gather.yml" >"$tmp/gather.log" 2>&1 || { echo "FAIL gathering facts"; tail -n 30 "$tmp/gather.log"; exit 1; }
"$py" - "$tmp/facts" "$stale" <<'PY'
import json, os, sys
folder, stale = sys.argv[1], sys.argv[2]
names = os.listdir(folder)
assert len(names) == 1, "one cached host expected in %s, found %s" % (folder, names)
path = os.path.join(folder, names[0])
with open(path, encoding="utf-8") as handle:
    cached = json.load(handle)
# ansible-core 2.19 keeps the facts as a JSON document inside {"__payload__": ...}; older releases the facts alone.
wrapped = set(cached) == {"__payload__"}
facts = json.loads(cached["__payload__"]) if wrapped else cached
assert "ansible_kernel" in facts, sorted(facts)[:20]
facts["ansible_kernel"] = stale
with open(path, "w", encoding="utf-8") as handle:
    json.dump({"__payload__": json.dumps(facts)} if wrapped else facts, handle)
PY
# 2. Both roles' preflights on the seeded cache.
if ! play "$here/roles.yml" --check -e "kernel_test_live=$live" -e "kernel_test_stale=$stale" >"$tmp/roles.log" 2>&1; then
  echo "FAIL a role used the cached kernel, or its preflight failed"; tail -n 60 "$tmp/roles.log"; exit 1
fi
echo "== kernel: the fact cache says $stale; nvidia_driver and lustre_client used the running $live"
