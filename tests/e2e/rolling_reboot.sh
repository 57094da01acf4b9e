#!/usr/bin/env bash
# The rolling driver upgrade, playbooks/driver_upgrade.yml, on a running lab's first two GPU nodes, for real up to
# the kernel. Debian's driver packages are installed by the playbook while each node still "runs" an older nvidia
# module (tests/e2e/rolling_reboot/fixture.yml: a container cannot load modules), and a job runs on the first node.
# The playbook must, one node at a time: drain it in Slurm, wait for its job to end, reboot it (the container
# restarts), see it run the installed driver, return it to Slurm; and a re-run must change and reboot nothing.
# gpu03 was drained by someone else before the run: rebooted, it keeps that drain and its reason. gpu02 is drained
# during the run, as the GPU health epilog does on a node still running the old module after the new libraries
# are installed: that drain is the upgrade's own, and gpu02 comes back into service.
#   tests/e2e/rolling_reboot.sh LAB_NAME INVENTORY_DIR        (a step of tests/e2e/run.sh)
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh" "$@"
nodes=gpu01,gpu02,gpu03
boot_of() { podman exec "$name-$1" cut -d ' ' -f 22 /proc/1/stat; }  # PID 1's start time: changes at each boot
boots() { for n in ${nodes//,/ }; do boot_of "$n"; done | paste -sd' '; }

logged rolling-fixture ansible-playbook -i "$inv" tests/e2e/rolling_reboot/fixture.yml --limit "$nodes"
before=$(boots)
# The job runs until its node is drained, then 15 s more: the drain always has a running job to wait for, however
# long the package step takes on this machine, and the job still ends on its own (at most after 10 minutes).
# shellcheck disable=SC2016  # the job's shell expands it
job=$(submit_job "the job on gpu01" \
  'for i in $(seq 600); do scontrol show node gpu01 | grep -q DRAIN && break; sleep 1; done; sleep 15')
wait_running "$job" 30 || true  # check.py below reads what became of it
scontrol() { podman exec "$name-head" scontrol "$@"; }
held="e2e: held for a DIMM swap"
scontrol update NodeName=gpu03 State=DRAIN Reason="$held"
echo "nodes $nodes run nvidia 535.183.01 (stand-in); job $job runs on gpu01; gpu03 drained ($held);" \
  "PID 1 start times: $before"
# Once the run has read the node states and gets to the packages, gpu02 is drained by the "health epilog".
during() {
  for _ in $(seq 600); do
    if grep -q "nvidia_driver : Packages |" "$logs/rolling.log" 2>/dev/null; then
      scontrol update NodeName=gpu02 State=DRAIN Reason="gpu-health: nvidia-smi failed: Driver/library version mismatch"
      echo "gpu02 drained by the health epilog stand-in during the run"; return 0
    fi
    sleep 0.5
  done
  echo "the run never reached its packages"
}

upgrade() {
  ansible-playbook -i "$inv" playbooks/driver_upgrade.yml --limit "$nodes" -e nvidia_driver_install_packages=true \
    -e nvidia_driver_drain_poll_s=5 -e nvidia_driver_reboot_timeout_s=300
}
rm -f "$logs/rolling.log"
during &
during_pid=$!
start=$SECONDS
upgrade >"$logs/rolling.log" 2>&1 || { kill "$during_pid" 2>/dev/null || true; tail -60 "$logs/rolling.log"; exit 1; }
wait "$during_pid"
echo "driver_upgrade.yml: $((SECONDS - start)) s"
after=$(boots)
start=$SECONDS
logged rolling-rerun upgrade
echo "driver_upgrade.yml again: $((SECONDS - start)) s"

python3 tests/e2e/rolling_reboot/check.py --log "$logs/rolling.log" --rerun-log "$logs/rolling-rerun.log" \
  --nodes "$nodes" --boots-before "$before" --boots-after "$after" --boots-now "$(boots)" \
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
! grep -E "TASK \[gpufleet\.cluster\.nvidia_driver : Reboot \| (Drain in Slurm|Reboot) $next\]" "$logs/rolling-stuck.log" \
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
