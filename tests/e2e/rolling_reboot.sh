#!/usr/bin/env bash
# The rolling driver upgrade, playbooks/driver_upgrade.yml, on a running lab's three GPU nodes, for real up to the
# kernel. Debian's driver packages are installed by the playbook while each node still "runs" an older nvidia
# module (tests/e2e/rolling_reboot/fixture.yml: a container cannot load modules), and a job runs on the first node.
# First, scontrol fails on the controller, once for the list of nodes and once for one node: each run must stop
# with a message naming the failure, having installed, drained and rebooted nothing. Then the upgrade, a canary
# (gpu01) and one batch of two (gpu02, gpu03), each node in its own turn: drained in Slurm, its job left to end, its
# packages installed, rebooted (the container restarts), seen to run the installed driver, returned to Slurm; the
# nodes not yet reached keep their old packages meanwhile; a re-run changes and reboots nothing. gpu03 was drained
# by someone else before the run: upgraded and rebooted, it keeps that drain and its reason.
#   tests/e2e/rolling_reboot.sh LAB_NAME INVENTORY_DIR        (a step of tests/e2e/run.sh)
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh" "$@"
nodes=gpu01,gpu02,gpu03
boot_of() { podman exec "$name-$1" cut -d ' ' -f 22 /proc/1/stat; }  # PID 1's start time: changes at each boot
boots() { for n in ${nodes//,/ }; do boot_of "$n"; done | paste -sd' '; }
# The driver's library package on each node: its version, or "none".
packages() {
  for n in ${nodes//,/ }; do
    echo "$n=$(podman exec "$name-$n" dpkg-query -W -f '${db:Status-Status}:${Version}' libnvidia-ml1 2>/dev/null \
      | sed -n 's/^installed://p' | grep . || echo none)"
  done | paste -sd' '
}
upgrade() {
  ansible-playbook -i "$inv" playbooks/driver_upgrade.yml --limit "$nodes" -e nvidia_driver_install_packages=true \
    -e nvidia_driver_drain_poll_s=5 -e nvidia_driver_reboot_timeout_s=300 "$@"
}
scontrol() { podman exec "$name-head" scontrol "$@"; }

logged rolling-fixture ansible-playbook -i "$inv" tests/e2e/rolling_reboot/fixture.yml --limit "$nodes"
before=$(boots)
old_packages=$(packages)

# scontrol fails on the controller (head, the first of slurm_controller) as it does with slurmctld down: first for
# the preflight's list of every node, then only for one node's own read. Each run must stop before any change.
scontrol_fails() {  # CASE-PATTERN: the scontrol arguments that fail, as slurmctld down makes them
  podman exec "$name-head" sh -c '[ -e /usr/bin/scontrol.real ] || mv /usr/bin/scontrol /usr/bin/scontrol.real'
  podman exec -i "$name-head" sh -c 'cat >/usr/bin/scontrol && chmod 0755 /usr/bin/scontrol' <<EOF
#!/bin/sh
# e2e (tests/e2e/rolling_reboot.sh): slurmctld does not answer reads of nodes
case "\$*" in
  $1) echo "slurm_load_node error: Unable to contact slurm controller (connect failure)" >&2; exit 1 ;;
esac
exec /usr/bin/scontrol.real "\$@"
EOF
}
stops_before_any_change() {  # LOG WHAT: the run failed, said WHAT, and changed nothing
  if upgrade >"$logs/$1.log" 2>&1; then echo "FAILED: driver_upgrade.yml went on although scontrol failed"; exit 1; fi
  grep -q "$2" "$logs/$1.log" || { echo "FAILED: no '$2' in $1.log"; tail -40 "$logs/$1.log"; exit 1; }
  [ "$(boots)" = "$before" ] || { echo "FAILED: a node rebooted after scontrol failed ($before -> $(boots))"; exit 1; }
  [ "$(packages)" = "$old_packages" ] || { echo "FAILED: packages changed after scontrol failed: $(packages)"; exit 1; }
  local drained
  drained=$(on_login "sinfo --noheader --Node --nodes $nodes --format=%N:%T" | grep -v ':idle$' || true)
  [ -z "$drained" ] || { echo "FAILED: nodes left other than idle after scontrol failed: $drained"; exit 1; }
  echo "ok: $1: stopped with \"$2\"; nothing rebooted, drained or installed ($old_packages)"
}
start=$SECONDS
scontrol_fails '*"show node"*'
stops_before_any_change rolling-no-slurm-list "could not list its nodes (.scontrol --oneliner show node.: rc 1, slurm_load_node error: Unable to contact slurm controller"
scontrol_fails '"show node "?*'
stops_before_any_change rolling-no-slurm-node "could not say whether it knows gpu01: .scontrol show node gpu01. failed (rc 1: slurm_load_node error: Unable to contact slurm controller"
podman exec "$name-head" mv /usr/bin/scontrol.real /usr/bin/scontrol
echo "scontrol failures: $((SECONDS - start)) s"

# The job runs until its node is drained, then 15 s more: the drain always has a running job to wait for, however
# long the steps before it take on this machine, and the job still ends on its own (at most after 10 minutes).
# shellcheck disable=SC2016  # the job's shell expands it
job=$(submit_job "the job on gpu01" \
  'for i in $(seq 600); do scontrol show node gpu01 | grep -q DRAIN && break; sleep 1; done; sleep 15')
wait_running "$job" 30 || true  # check.py below reads what became of it
held="e2e: held for a DIMM swap"
scontrol update NodeName=gpu03 State=DRAIN Reason="$held"
echo "nodes $nodes run nvidia 535.183.01 (stand-in), packages $old_packages; job $job runs on gpu01; gpu03 drained" \
  "($held); PID 1 start times: $before"
# Once the canary (gpu01) has its packages and before the batch after it begins, what each node has installed: the
# first read after apt changed a node's packages is the canary's (the kernel-module steps, skipped in the lab since
# the driver role's fold, print nothing to wait for).
during() {
  for _ in $(seq 1200); do
    if grep -q "nvidia_driver : Packages | Read the driver's packages and units again" "$logs/rolling.log" 2>/dev/null
    then packages; return 0; fi
    sleep 0.5
  done
  echo "the run never reached its kernel modules"
}
rm -f "$logs/rolling.log"
during >"$logs/rolling-during.txt" &
during_pid=$!
start=$SECONDS
upgrade -e nvidia_driver_upgrade_batch=2 >"$logs/rolling.log" 2>&1 \
  || { kill "$during_pid" 2>/dev/null || true; tail -60 "$logs/rolling.log"; exit 1; }
wait "$during_pid"
echo "driver_upgrade.yml: $((SECONDS - start)) s"
after=$(boots)
start=$SECONDS
logged rolling-rerun upgrade -e nvidia_driver_upgrade_batch=2
echo "driver_upgrade.yml again: $((SECONDS - start)) s"

# A rebooted lab node's slurmd starts when nvidia-persistenced, which finds no GPU, has timed out (90 s after the boot):
# until then Slurm marks the node not responding (idle*). Its state is read once it answers again.
for _ in $(seq 120); do on_login "sinfo --noheader --Node --nodes $nodes --format=%T" | grep -q '[*]' || break; sleep 1; done
python3 tests/e2e/rolling_reboot/check.py --log "$logs/rolling.log" --rerun-log "$logs/rolling-rerun.log" \
  --nodes "$nodes" --batches gpu01/gpu02,gpu03 --packages-before "$old_packages" \
  --packages-during "$(cat "$logs/rolling-during.txt")" --boots-before "$before" --boots-after "$after" --boots-now "$(boots)" \
  --job-state "$(on_login "sacct --noheader --allocations --parsable2 --format=State,NodeList --jobs $job")" \
  --node-states "$(on_login "sinfo --noheader --Node --nodes $nodes --format=%N:%T:%E")" --held "gpu03:$held" \
  --running "$(for n in ${nodes//,/ }; do podman exec "$name-$n" cat /sys/module/nvidia/version; done | paste -sd' ')" \
  --installed "$(for n in ${nodes//,/ }; do podman exec "$name-$n" dpkg-query -W -f '${Version} ' libnvidia-ml1; done)"
# The test's own drain of gpu03 ends here; the lab goes on with every node in service.
scontrol update NodeName=gpu03 State=RESUME

# A node that boots with the old module again (DKMS built nothing for its kernel): the rolling reboot must stop on it,
# leave it drained, and drain, reboot or touch no node after it. gpu01 and gpu02 both "run" the old module; gpu01's
# boot stand-in loads the old module again (as a kernel does when DKMS built nothing for it), so gpu01 comes back
# with 535.183.01 and gpu02 is next in line.
stuck=gpu01 next=gpu02
old_module=535.183.01
podman exec "$name-$stuck" cp /usr/local/sbin/lab-nvidia-module /usr/local/sbin/lab-nvidia-module.installed
podman exec "$name-$stuck" sh -c "printf '#!/bin/sh\nmkdir -p /sys/module/nvidia\necho $old_module > /sys/module/nvidia/version\n' \
  > /usr/local/sbin/lab-nvidia-module"
for n in $stuck $next; do podman exec "$name-$n" sh -c "echo $old_module > /sys/module/nvidia/version"; done
next_boot=$(boot_of $next)
start=$SECONDS
if ansible-playbook -i "$inv" playbooks/driver_upgrade.yml --limit "$stuck,$next" -e nvidia_driver_drain_poll_s=5 \
     -e nvidia_driver_reboot_timeout_s=300 >"$logs/rolling-stuck.log" 2>&1; then
  echo "FAILED: the rolling reboot went on although $stuck came back with the old module"; exit 1
fi
echo "driver_upgrade.yml with $stuck booting the old module: failed as it must, $((SECONDS - start)) s"
grep -q "The rolling reboot stopped at $stuck" "$logs/rolling-stuck.log" \
  || { echo "FAILED: no 'rolling reboot stopped at $stuck' in the log"; tail -40 "$logs/rolling-stuck.log"; exit 1; }
grep -q "$stuck runs nvidia $old_module after the reboot, not the installed" "$logs/rolling-stuck.log" \
  || { echo "FAILED: the stop does not say $stuck runs the old module"; tail -40 "$logs/rolling-stuck.log"; exit 1; }
# The canary's failure spends the budget (0 %): the batch with $next never starts, so no task runs for it.
! grep -E "^(ok|changed|fatal|failed): \[${next}[] ]" "$logs/rolling-stuck.log" \
  || { echo "FAILED: the rolling reboot went on to $next after stopping at $stuck"; exit 1; }
stuck_state=$(on_login "sinfo --noheader --Node --nodes $stuck,$next --format=%N:%T:%E")
echo "Slurm after the stop: $(echo "$stuck_state" | paste -sd " ")"
echo "$stuck_state" | grep -q "$stuck:drained:gpufleet nvidia_driver update, reboot" \
  || { echo "FAILED: $stuck is not left drained by the upgrade: $stuck_state"; exit 1; }
echo "$stuck_state" | grep -q "$next:idle:none" || { echo "FAILED: $next was drained: $stuck_state"; exit 1; }
[ "$(boot_of $next)" = "$next_boot" ] || { echo "FAILED: $next was rebooted after the stop at $stuck"; exit 1; }
echo "ok: stopped at $stuck (left drained), $next neither drained nor rebooted"
# The node is "fixed" (the module built, booted): the stand-in back on, both run the installed driver, in service.
podman exec "$name-$stuck" mv /usr/local/sbin/lab-nvidia-module.installed /usr/local/sbin/lab-nvidia-module
for n in $stuck $next; do podman exec "$name-$n" /usr/local/sbin/lab-nvidia-module; done
scontrol update NodeName=$stuck State=RESUME
