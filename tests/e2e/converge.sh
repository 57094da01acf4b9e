#!/usr/bin/env bash
# gpufleet.cluster.site from the collection installed next to its declared dependencies alone, on the fresh lab.
# tests/install/run.sh install: the tarball installed into an empty collections path with exactly galaxy.yml's
# dependencies (offline, from the ansible bundle), nothing else visible; run from outside the checkout with
# tests/install/ansible.cfg (no collections_path), the fact cache and the profile_tasks callback (ansible.posix is
# declared) of the checkout's. Every later step goes on from the checkout (playbooks/site.yml), as make demo does.
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
    ansible-playbook -i "$inv_abs" gpufleet.cluster.site
)
logged converge from_installed
# A new cluster: each Slurm daemon started once, after its files, no restart seconds after its start.
python3 tests/e2e/check_log.py first-converge "$logs/converge.log"
