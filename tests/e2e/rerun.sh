#!/usr/bin/env bash
# After the sliced first converge (tests/e2e/converge.sh): the nodes are what an unsliced run makes of them, and
# neither kind of run changes anything on a converged cluster.
#   1. every file under /etc, /var/lib/gpufleet and /usr/local on every node is hashed (tests/e2e/node_files.py);
#   2. site.yml, unsliced, the way AWX runs a job (ansible-runner, a private data dir, extravars, an inventory):
#      changed=0 on every host;
#   3. the files hashed again: byte-identical to 1. So the sliced converge left the nodes exactly as an unsliced
#      converge would (were a file different, the unsliced run would have rewritten it);
#   4. nodes.yml as AWX's slices again: changed=0 on every host of every slice; its cost is summed per host.
# Check mode on the converged cluster is each molecule scenario's `check` step (changed=0 asserted by
# tests/molecule/check_recap.py); the e2e runs it on the joining node (tests/e2e/join.sh), before anything converged it.
#   tests/e2e/rerun.sh LAB_NAME INVENTORY_DIR        (a step of tests/e2e/run.sh)
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh" "$@"

python3 tests/e2e/node_files.py snapshot "$name" "$inv" "$logs/files-sliced.json"
python3 tests/e2e/awx_runner.py --inventory "$inv" --playbook playbooks/site.yml --ident rerun --log "$logs/rerun.log" \
  --cost "$logs/rerun-cost.json" --expect-unchanged \
  || { tail -50 "$logs/rerun.log"; exit 1; }
python3 tests/e2e/summarise.py "$logs/converge-cluster-job.log" "$logs/rerun.log"
python3 tests/e2e/node_files.py snapshot "$name" "$inv" "$logs/files-unsliced.json"
python3 tests/e2e/node_files.py compare "$logs/files-sliced.json" "$logs/files-unsliced.json"

python3 tests/e2e/awx_runner.py --inventory "$inv" --playbook playbooks/nodes.yml --slices "${E2E_SLICES:-2}" \
  --template "lab nodes" --workflow "lab converge workflow" --job-id 5210 --ident rerun-nodes \
  --log "$logs/rerun-nodes.log" --cost "$logs/rerun-nodes-cost.json" --expect-unchanged \
  || { tail -50 "$logs/rerun-nodes.log"; exit 1; }

# The later steps change the inventory (join.sh adds a node) and run site.yml, which works the description out for
# its own run when the file is absent and refuses a stale one: the rendered file was this part's.
rm "$inv/group_vars/all/cluster_description.yml"
