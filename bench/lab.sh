#!/usr/bin/env bash
# Lab timings for docs/performance.md: image build (cold, cached), lab up, and site.yml first converge /
# idempotent re-run for the default lab (2 GPU nodes) and for 8 GPU nodes.
#   make deps && bench/lab.sh [--no-cold]      results: bench/results/lab-<UTC time>.txt
set -euo pipefail
# shellcheck source=bench/lab-common.sh
. "$(dirname "$0")/lab-common.sh"
bench_setup lab

if [ "${1:-}" != "--no-cold" ]; then
  row "image build, cold (debootstrap + import + layer)" "$(secs python3 lab/lab.py images --force)"
fi
row "image build, cached (recipe unchanged)" "$(secs python3 lab/lab.py images)"
for computes in 2 8; do
  python3 lab/lab.py down --name "$name" --inventory "$inv" >/dev/null
  row "lab up, $computes GPU nodes (+ head + login)" \
      "$(secs python3 lab/lab.py up --name "$name" --inventory "$inv" --computes $computes)"
  row "site.yml first converge, $computes GPU nodes" "$(secs ansible-playbook -i "$inv" playbooks/site.yml)"
  row "site.yml idempotent re-run, $computes GPU nodes" "$(secs ansible-playbook -i "$inv" playbooks/site.yml)"
  grep -E "changed=[1-9]" <(tail -20 "$out.log") && { echo "re-run changed something"; exit 1; }
  row "lab down, $computes GPU nodes" "$(secs python3 lab/lab.py down --name "$name" --inventory "$inv")"
done
echo "results: $out"
