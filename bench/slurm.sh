#!/usr/bin/env bash
# The Slurm layer of site.yml (playbooks/slurm.yml: munge, MariaDB + slurmdbd, slurmctld, slurmd with gres, cgroup,
# health check) on 1 controller + N GPU nodes, as galaxyproject.slurm's figures are quoted: first converge
# and idempotent re-run. The common layer is converged first and not timed.
#   make deps && bench/slurm.sh [N ...]      (default: 2 8)   results: bench/results/slurm-<UTC time>.txt
set -euo pipefail
# shellcheck source=bench/lab-common.sh
. "$(dirname "$0")/lab-common.sh"
bench_setup slurm

for computes in "${@:-2 8}"; do
  for n in $computes; do
    python3 lab/lab.py down --name "$name" --inventory "$inv" >/dev/null
    python3 lab/lab.py up --name "$name" --inventory "$inv" --computes "$n" --logins 0 >/dev/null
    ansible-playbook -i "$inv" playbooks/common.yml >>"$out.log" 2>&1
    row "Slurm part, first converge, 1 controller + $n GPU nodes" "$(secs ansible-playbook -i "$inv" playbooks/slurm.yml)"
    row "Slurm part, idempotent re-run, 1 controller + $n GPU nodes" "$(secs ansible-playbook -i "$inv" playbooks/slurm.yml)"
    if tail -20 "$out.log" | grep -E "changed=[1-9]"; then echo "re-run changed something"; exit 1; fi
  done
done
echo "results: $out"
