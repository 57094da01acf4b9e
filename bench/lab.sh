#!/usr/bin/env bash
# Lab timings for docs/performance.md: image build (cold, cached), lab up, and site.yml first converge /
# idempotent re-run for the default lab (2 GPU nodes) and for 8 GPU nodes.
#   make deps && bench/lab.sh [--no-cold]      results: bench/results/lab-<UTC time>.txt
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH=$root/.venv/bin:$PATH CONTAINERS_CONF=$root/lab/containers.conf ANSIBLE_CONFIG=$root/ansible.cfg
name=gpufleet-bench
inv=$root/.build/bench-inventory
mkdir -p bench/results .build
out=bench/results/lab-$(date -u +%Y%m%dT%H%M%SZ).txt
trap 'python3 lab/lab.py down --name $name --inventory $inv >/dev/null 2>&1 || true' EXIT
secs() { local t0; t0=$(date +%s.%N); "$@" >>"$out.log" 2>&1; python3 -c "print($(date +%s.%N) - $t0)"; }
row() { printf '| %s | %.1f s |\n' "$1" "$2" | tee -a "$out"; }

echo "# $(date -u) on $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB" | tee "$out"
if [ "${1:-}" != "--no-cold" ]; then
  row "image build, cold (debootstrap + import + layer)" "$(secs python3 lab/lab.py images --force)"
fi
row "image build, cached (recipe unchanged)" "$(secs python3 lab/lab.py images)"
for computes in 2 8; do
  python3 lab/lab.py down --name $name --inventory "$inv" >/dev/null
  row "lab up, $computes GPU nodes (+ head + login)" \
      "$(secs python3 lab/lab.py up --name $name --inventory "$inv" --computes $computes)"
  row "site.yml first converge, $computes GPU nodes" "$(secs ansible-playbook -i "$inv" playbooks/site.yml)"
  row "site.yml idempotent re-run, $computes GPU nodes" "$(secs ansible-playbook -i "$inv" playbooks/site.yml)"
  grep -E "changed=[1-9]" <(tail -20 "$out.log") && { echo "re-run changed something"; exit 1; }
  row "lab down, $computes GPU nodes" "$(secs python3 lab/lab.py down --name $name --inventory "$inv")"
done
echo "results: $out"
