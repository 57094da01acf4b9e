#!/usr/bin/env bash
# The common role's /etc/hosts block (roles/common/tasks/hosts.yml) on three stand-in nodes of this machine
# (connection local, a hosts file each in a temporary folder): a node replaced with a new address and a node
# removed must leave every file's managed block exactly the inventory's current hosts, lines outside the block
# kept; the block is computed once for the run, not once per host; a second run changes nothing; a run limited to
# one node names the nodes whose file it leaves as it is.
#   tests/local/hosts/run.sh   exits non-zero when any of these fails; HOSTS_TEST_KEEP=1 keeps the folder
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/local/lib.sh
. "$here/../lib.sh"
local_test_init hosts-test HOSTS_TEST_KEEP

export ANSIBLE_CONFIG=$root/ansible.cfg ANSIBLE_FORCE_COLOR=false ANSIBLE_NOCOLOR=true
export ANSIBLE_CACHE_PLUGIN=memory ANSIBLE_PIPELINING=true ANSIBLE_LOCALHOST_WARNING=false

inventory() {  # inventory GPU02_ADDRESS: gpu01, gpu02 and gpu09 (replaced: 10.0.0.9 before, 10.0.1.9 now)
  cat <<YAML
all:
  vars: {ansible_connection: local, ansible_python_interpreter: $py}
  children:
    cluster:
      hosts:
        gpu01: {gpufleet_ip: 10.0.0.1}
        gpu02: {gpufleet_ip: $1}
        gpu09: {gpufleet_ip: 10.0.1.9}
YAML
}
inventory 10.0.0.2 >"$tmp/inventory.yml"
inventory 10.0.2.2 >"$tmp/inventory-moved.yml"
cat >"$tmp/play.yml" <<'YAML'
- name: The common role's /etc/hosts tasks on stand-in nodes
  hosts: cluster
  gather_facts: false
  tasks:
    - name: Hosts
      ansible.builtin.include_role:
        name: gpufleet.cluster.common
        tasks_from: hosts
YAML
# What a node's file held after the old gpu09 (10.0.0.9) and gpu08 (since removed) had been converged.
for node in gpu01 gpu02 gpu09; do
  printf '%s\n' "127.0.0.1       localhost" "# BEGIN gpufleet.cluster: cluster hosts" "10.0.0.1        gpu01" \
    "10.0.0.2        gpu02" "10.0.0.8        gpu08" "10.0.0.9        gpu09" "# END gpufleet.cluster: cluster hosts" \
    "192.0.2.5       printer" >"$tmp/$node.hosts"
done
expected() {  # expected GPU02_ADDRESS
  printf '%s\n' "127.0.0.1       localhost" "# BEGIN gpufleet.cluster: cluster hosts" "10.0.0.1        gpu01" \
    "$(printf '%-15s' "$1") gpu02" "10.0.1.9        gpu09" "# END gpufleet.cluster: cluster hosts" \
    "192.0.2.5       printer"
}
# The task makes the file root's: a user other than root runs the play as root of a user namespace of its own.
as_root=()
[ "$(id -u)" = 0 ] || as_root=(unshare --map-root-user)
run() {  # run LOG INVENTORY [ansible-playbook options]
  local log=$tmp/$1 inv=$2; shift 2
  if ! (cd "$tmp" && "${as_root[@]}" "$playbook" -i "$inv" "$tmp/play.yml" \
        -e "{\"__common_hosts_path\": \"$tmp/{{ inventory_hostname }}.hosts\"}" "$@") >"$log" 2>&1; then
    echo "FAIL ansible-playbook exited non-zero ($log)"; tail -n 30 "$log"; exit 1
  fi
}
fail() { echo "FAIL $1"; exit 1; }
same() {  # same NODE GPU02_ADDRESS
  diff -u <(expected "$2") "$tmp/$1.hosts" || fail "$1's hosts file is not the inventory's current hosts"
}
# How many hosts reported the task named $2 in log $1 (the lines after its TASK header up to the blank line).
reported() { awk -v t="$2" 'index($0, "TASK [") && index($0, t) {on=1; next} on && /^$/ {exit} on && /^(ok|changed): \[/ {n++} END {print n+0}' "$1"; }

start=$(date +%s.%N)
run converge.log "$tmp/inventory.yml"
for node in gpu01 gpu02 gpu09; do same "$node" 10.0.0.2; done
echo "== the replaced gpu09 (new address) and the removed gpu08: every block exactly the inventory's hosts"
[ "$(reported "$tmp/converge.log" "(once for the run)")" = 1 ] || fail "the block was not computed once for the run"
grep -q "leaves /etc/hosts" "$tmp/converge.log" && fail "a run on every node said it left some out"
echo "== the block computed once for the run (one host reports it)"

run rerun.log "$tmp/inventory.yml"
if [ "$(grep -Ec '^gpu0[129] +: ok=[0-9]+ +changed=0 ' "$tmp/rerun.log")" != 3 ]; then
  tail -n 8 "$tmp/rerun.log"; fail "the second run changed something"
fi
echo "== the second run: changed=0"

# gpu02 moves, but the run is limited to gpu09: gpu09's block has the new address, gpu01 and gpu02 keep theirs,
# and the run names them.
run limited.log "$tmp/inventory-moved.yml" --limit gpu09
same gpu09 10.0.2.2; same gpu01 10.0.0.2; same gpu02 10.0.0.2
grep -q "leaves /etc/hosts on 2 host(s) of 'cluster' as it is: gpu\[01-02\]" "$tmp/limited.log" \
  || { grep -A4 "this run leaves" "$tmp/limited.log" || true; fail "a run limited to gpu09 did not name gpu[01-02]"; }
echo "== a run limited to gpu09 names gpu[01-02], whose files it leaves as they were"
end=$(date +%s.%N)
"$py" -c 'import sys; print("== hosts: 3 ansible-playbook runs, %.1f s" % (float(sys.argv[2]) - float(sys.argv[1])))' "$start" "$end"
