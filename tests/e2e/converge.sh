#!/usr/bin/env bash
# The first converge of the fresh lab, as AWX's converge workflow runs it (awx/configure.yml, docs/awx.md), from the
# collection installed next to its declared dependencies alone, as an execution environment holds it.
# tests/install/run.sh install: the tarball installed into an empty collections path with exactly galaxy.yml's
# dependencies (offline, from the ansible bundle), nothing else visible. Then:
#   1. gpufleet.cluster.describe renders the cluster description into the lab's inventory (a site commits that file;
#      AWX's inventory sync brings it to every job), run from outside the checkout with tests/install/ansible.cfg;
#   2. the workflow's three jobs through ansible-runner (tests/e2e/awx_runner.py), each with the inventory as AWX
#      writes it and the variables AWX gives a workflow's jobs, their roles and plugins from the installed collection:
#      playbooks/cluster.yml, then playbooks/nodes.yml as E2E_SLICES (default 2) slices, AWX's way (hosts sorted by
#      name and dealt round-robin, each slice its own job and inventory, two at a time: this machine's 2 cores), then
#      playbooks/finalize.yml.
# Every later step goes on from the checkout (playbooks/site.yml), as make demo does; tests/e2e/rerun.sh proves the
# nodes are what an unsliced run makes of them.
#   tests/e2e/converge.sh LAB_NAME INVENTORY_DIR        (a step of tests/e2e/run.sh)
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh" "$@"
installed=$(mktemp -d "${TMPDIR:-/tmp}/gpufleet-e2e-installed.XXXXXX")
trap 'rm -rf "$installed"' EXIT

logged install "$root/tests/install/run.sh" install "$installed"
tail -1 "$logs/install.log"
inv_abs=$(cd "$inv" && pwd)
from_installed() (
  cd "$installed" && ANSIBLE_CONFIG=$root/tests/install/ansible.cfg ANSIBLE_COLLECTIONS_PATH=$installed/collections \
    ANSIBLE_COLLECTIONS_SCAN_SYS_PATH=false ANSIBLE_CALLBACKS_ENABLED=ansible.posix.profile_tasks \
    ANSIBLE_CACHE_PLUGIN=jsonfile ANSIBLE_CACHE_PLUGIN_CONNECTION=$root/.cache/facts ANSIBLE_CACHE_PLUGIN_TIMEOUT=7200 \
    ansible-playbook -i "$inv_abs" "$@"
)
logged describe from_installed gpufleet.cluster.describe
workflow() {
  python3 tests/e2e/awx_runner.py --inventory "$inv" --collections "$installed/collections" \
    --workflow "lab converge workflow" "$@"
}
logged converge-cluster workflow --playbook playbooks/cluster.yml --slices 1 --template "lab cluster" --job-id 5101 \
  --ident converge-cluster --log "$logs/converge-cluster-job.log"
logged converge-nodes workflow --playbook playbooks/nodes.yml --slices "${E2E_SLICES:-2}" --template "lab nodes" \
  --job-id 5110 --ident converge-nodes --log "$logs/converge-nodes-job.log" --cost "$logs/converge-nodes-cost.json"
logged converge-finalize workflow --playbook playbooks/finalize.yml --slices 1 --template "lab finalize" \
  --job-id 5121 --ident converge-finalize --log "$logs/converge-finalize-job.log"
grep -h -E "^(ansible-runner|[0-9]+ slices)" "$logs"/converge-{cluster,nodes,finalize}.log
# The three jobs' output, in the order they ran, is the converge's log (tests/e2e/rerun.sh compares with it).
cat "$logs"/converge-{cluster,nodes,finalize}-job.log >"$logs/converge.log"
# A new cluster: each Slurm daemon started once, after its files, no restart seconds after its start.
python3 tests/e2e/check_log.py first-converge "$logs/converge.log"
