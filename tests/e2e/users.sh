#!/usr/bin/env bash
# The users of the lab's accounting policy (inventories/lab/group_vars/all/slurm.yml) and one who is not in it, with
# the same uid on every node, before the converge, as a site's directory has them (tests/e2e/test_slurm_policy.py).
#   tests/e2e/users.sh LAB_NAME INVENTORY_DIR        (a step of tests/e2e/run.sh)
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh" "$@"

for node in $(podman ps --filter "label=gpufleet.lab=$name" --format '{{.Names}}'); do
  for user in alice:2101 bob:2102 carol:2103 mallory:2104; do
    podman exec "$node" useradd --uid "${user#*:}" --no-create-home --shell /bin/sh "${user%:*}" \
      || { echo "could not add ${user%:*} on $node"; exit 1; }
  done
done
