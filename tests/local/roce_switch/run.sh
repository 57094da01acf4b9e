#!/usr/bin/env bash
# roce_switch against loopback only, roce_switch_apply left at auto: three switches with no ansible_connection are
# rendered to files for review, three with one are pushed to stand-ins for the switch OS (SONiC config/sonic-cfggen
# and Cumulus nv as commands on PATH over ansible_connection local, Arista eAPI as an HTTP server on 127.0.0.1
# through ansible.netcommon.httpapi). Refusals first (nothing may be written or pushed), then check mode, apply,
# re-run, check again, a hand edit on the switches found and undone, and a push that fails on one switch and stops
# there (one switch at a time). Each push snapshots what it overwrites on the switch first, keeping the newest two.
#   tests/local/roce_switch/run.sh        exits non-zero on the first failure; removes everything it made
#                                         (ROCE_TEST_KEEP=1 keeps the logs and the stand-ins' state)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/local/lib.sh
. "$here/../lib.sh"
local_test_init roce-switch-test ROCE_TEST_KEEP

# The stand-in commands: one script plays config, sonic-cfggen and nv.
mkdir -p "$tmp/bin" "$tmp/state" "$tmp/logs"
for cmd in config sonic-cfggen nv; do
  printf '#!/bin/sh\nexec "%s" "%s" %s "$@"\n' "$py" "$here/standins/switch_os.py" "$cmd" >"$tmp/bin/$cmd"
  chmod +x "$tmp/bin/$cmd"
done

# The eAPI stand-in on a free loopback port; its password is made up per run and reaches it by environment.
ROCE_EAPI_PASSWORD=$("$py" -c 'import secrets; print(secrets.token_hex(8))')
export ROCE_EAPI_PASSWORD ROCE_TEST_TMP=$tmp
"$py" "$here/standins/eapi.py" "$tmp/state/push-eos" "$tmp/eapi.port" >"$tmp/logs/eapi.log" 2>&1 &
standin_pid=$!
for _ in $(seq 50); do [ -s "$tmp/eapi.port" ] && break; sleep 0.1; done
[ -s "$tmp/eapi.port" ] || { echo "eAPI stand-in did not start"; cat "$tmp/logs/eapi.log"; exit 1; }
ROCE_EAPI_PORT=$(cat "$tmp/eapi.port")
export ROCE_EAPI_PORT

export ANSIBLE_CONFIG=$root/ansible.cfg ANSIBLE_FORCE_COLOR=false ANSIBLE_NOCOLOR=true
# Pipelining spares each module run its temporary directory round trips (local connection too).
export ANSIBLE_CACHE_PLUGIN=memory ANSIBLE_PIPELINING=true
play() { (cd "$root" && "$playbook" -i "$here/inventory.yml" "$here/site.yml" "$@"); }
check() { "$py" "$here/check.py" "$@"; }

run() {  # run NAME ARGS...: a run that must succeed
  local name=$1; shift
  play "$@" >"$tmp/logs/$name.log" 2>&1 || { echo "FAIL: $name run failed"; tail -40 "$tmp/logs/$name.log"; exit 1; }
}

refused() {  # refused NAME EXPECTED_TEXT ARGS...: a run that must fail in preflight, saying EXPECTED_TEXT
  local name=$1 expect=$2; shift 2
  if play "$@" >"$tmp/logs/$name.log" 2>&1; then echo "FAIL: $name: bad input accepted"; exit 1; fi
  grep -qF -- "$expect" "$tmp/logs/$name.log" \
    || { echo "FAIL: $name did not say '$expect'"; tail -30 "$tmp/logs/$name.log"; exit 1; }
  ! grep -qE "changed=[1-9]" "$tmp/logs/$name.log" || { echo "FAIL: $name changed something"; exit 1; }
  [ ! -e "$tmp/out" ] || { echo "FAIL: $name wrote $(ls "$tmp/out")"; exit 1; }
  echo "ok: refused $name: '$expect'"
}

echo "== refusals: nothing is written or pushed"
# One switch is enough to show the host side is checked (preflight-first below shows one switch's refusal stops all).
refused priority "gpu01: host priority 4 / switch priority 3" --limit files-sonic -e '{"roce_host_priority": 4}'
refused cable "gpufleet.cluster.pfc_headroom: port 'swp1': cable_m 20000 m is outside 0.5..10000 m" \
  --limit files-nvue -e '{"roce_switch_ports": [{"name": "swp1", "speed_gbps": 400, "cable_m": 20000}]}'
refused buffer "roce_switch_buffer_bytes is 300000" --limit files-sonic -e '{"roce_switch_buffer_bytes": 300000}'
refused push-without-connection \
  "files-eos (eos): roce_switch_apply is push but no ansible_connection configured for eos" \
  --limit files-eos -e '{"roce_switch_apply": "push"}'
refused enterprise-sonic-cli "this role does not translate to them, so it does not push over that connection" \
  --limit files-sonic -e '{"ansible_connection": "ansible.netcommon.network_cli",
                           "ansible_network_os": "dellemc.enterprise_sonic.sonic"}'
refused eos-plain-http "push-eos (eos): the push over eAPI would use plain HTTP (ansible_httpapi_use_ssl is False)" \
  --limit push-eos -e '{"roce_switch_eos_allow_insecure": false}'
refused eos-unvalidated "HTTPS without checking the certificate (ansible_httpapi_validate_certs is false)" \
  --limit push-eos -e '{"roce_switch_eos_allow_insecure": false, "ansible_httpapi_use_ssl": true,
                        "ansible_httpapi_validate_certs": false}'
refused backup-keep "roce_switch_backup_keep is 0" --limit push-sonic -e '{"roce_switch_backup_keep": 0}'
# A refusal on the last switch stops the first ones too: every switch's preflight runs before any is pushed.
refused preflight-first "push-eos (eos): the push over eAPI would use plain HTTP" \
  -e '{"roce_switch_eos_allow_insecure": false}'
check archive "$tmp" refused

echo "== check mode: every switch reports a change, nothing is written"
run check --check --diff
check recap "$tmp/logs/check.log" changed
grep -qF -- "+priority-flow-control pause watchdog action drop" "$tmp/logs/check.log" \
  || { echo "FAIL: check mode did not show the EOS session diff"; exit 1; }
[ ! -e "$tmp/out" ] || { echo "FAIL: check mode wrote $(ls "$tmp/out")"; exit 1; }
check archive "$tmp" check

echo "== apply (each push snapshots what it overwrites first; two old snapshots are there already)"
check seed "$tmp"
run apply --diff
check recap "$tmp/logs/apply.log" changed
check report "$tmp/logs/apply.log"
check files "$tmp/out"
check state "$tmp"
check snapshots "$tmp" apply
! grep -qF -- '"pfc_enable": "3,4"' "$tmp/logs/apply.log" || { echo "FAIL: a snapshot was printed"; exit 1; }
check archive "$tmp" apply

echo "== re-run and check mode again: nothing changes"
run rerun
check recap "$tmp/logs/rerun.log" unchanged
check archive "$tmp" rerun
run recheck --check --diff
check recap "$tmp/logs/recheck.log" unchanged
check archive "$tmp" recheck

echo "== a hand edit on the EOS switch is found and undone; NVUE drops a pending revision that changes nothing"
check handedit "$tmp"
run handedit --diff --limit push-eos,push-nvue
check recap "$tmp/logs/handedit.log" changed push-eos
check recap "$tmp/logs/handedit.log" unchanged push-nvue
grep -qF -- "-      bandwidth percent 30" "$tmp/logs/handedit.log" \
  || { echo "FAIL: handedit did not show the session diff"; exit 1; }
check state "$tmp"
check snapshots "$tmp" handedit
check archive "$tmp" handedit

echo "== one switch at a time: push-sonic's load fails, and push-nvue and push-eos are not touched"
# The pushed switches only: the files-* ones (a third of a run's CPU) were rendered, re-rendered unchanged and
# checked in the runs above, and nothing below asks about them.
check fault "$tmp"
if play --diff --limit 'push-*' >"$tmp/logs/failfirst.log" 2>&1; then echo "FAIL: failfirst: the failing load passed"; exit 1; fi
grep -qF -- "failed YANG validation (fail-load)" "$tmp/logs/failfirst.log" \
  || { echo "FAIL: failfirst did not fail on the load"; tail -30 "$tmp/logs/failfirst.log"; exit 1; }
check snapshots "$tmp" failfirst
check archive "$tmp" failfirst
check heal "$tmp"
run heal --diff --limit 'push-*'
check recap "$tmp/logs/heal.log" changed push-sonic push-eos
check recap "$tmp/logs/heal.log" unchanged push-sonic2 push-nvue
check state "$tmp"
check snapshots "$tmp" heal
check archive "$tmp" heal

echo "== the stand-ins saw exactly the expected calls in every run, one switch at a time"
check calls "$tmp"
echo "roce_switch local tests: passed"
