#!/usr/bin/env bash
# The munge key is rotated (docs/day2.md "Rotate the munge key"), as with a key from a vault (slurm_munge_key, which the
# lab's secrets file holds like a vault would): a new key in the variable and slurm_munge_key_rotate: true.
#  - asked for under --limit, without every Slurm host, it is refused before any change, naming the hosts left out:
#    every key and every munged as before;
#  - on the whole cluster (the new key written to the lab's secrets, as an operator replaces it in the vault), every
#    host gets that 1024-byte key and its munged restarts (the primary's too),
#    the controllers restart one at a time, and munge works across hosts: a credential made on the login node is
#    decoded on a controller and a GPU node; a job runs.
#   tests/e2e/munge_key.sh LAB_NAME INVENTORY_DIR        (a step of tests/e2e/run.sh)
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh" "$@"
mapfile -t hosts < <(podman ps --filter "name=^$name-" --format '{{.Names}}' | sed "s/^$name-//" | sort)
# Each host's munged PID and key (SHA-256, size, owner, mode).
keys() {
  local host
  # shellcheck disable=SC2016  # expanded on the node
  local read='echo "$(hostname) munged=$(systemctl show -p MainPID --value munge)
    $(sha256sum /etc/munge/munge.key | cut -c1-16) $(stat -c "%s %U %a" /etc/munge/munge.key)"'
  for host in "${hosts[@]}"; do podman exec "$name-$host" sh -c "$read" | xargs; done
}
before=$(keys)
[ "$(cut -d' ' -f3 <<<"$before" | sort -u | wc -l)" = 1 ] || { echo "the hosts do not share one key:"; echo "$before"; exit 1; }

# The new key, as a vault would give it; given to the refused run in an extra-vars file only this user reads.
new_key=$(python3 -c 'import sys; sys.path.insert(0, "lab"); import inventory; print(inventory.new_munge_key())')
new_sha=$(base64 -d <<<"$new_key" | sha256sum | cut -c1-16)
key_vars=$(umask 077 && mktemp)
trap 'rm -f "$key_vars"' EXIT
printf 'slurm_munge_key: %s\n' "$new_key" >"$key_vars"

# 1. A rotation that would leave hosts out is refused before any change, naming them.
if play --tags slurm --limit head,gpu01 -e "@$key_vars" -e slurm_munge_key_rotate=true >"$logs/munge-partial.log" 2>&1; then
  echo "a rotation of the munge key on part of the cluster was accepted"; exit 1
fi
grep -q "must reach every Slurm host in the same run, and gpu02, .*head2, login01 are not in it" "$logs/munge-partial.log" \
  || { echo "the partial rotation's refusal did not name the hosts left out"; tail -20 "$logs/munge-partial.log"; exit 1; }
! grep -E "changed=[1-9]" "$logs/munge-partial.log" || { echo "the refused rotation changed something"; exit 1; }
[ "$(keys)" = "$before" ] || { echo "keys or munged changed although the rotation was refused"; keys; exit 1; }
echo "partial rotation refused: $(grep -o "A new munge key [^.]*" "$logs/munge-partial.log" | head -1)"

# 2. The rotation on the whole cluster: the new key in the lab's secrets (its vault), then the run that asks for it.
python3 -c 'import sys; sys.path.insert(0, "lab"); import inventory; inventory.set_munge_key(sys.argv[1], sys.argv[2])' \
  "$inv/group_vars/all/lab_secrets.yml" "$new_key"
! grep -qF "$new_key" "$logs/munge-partial.log" || { echo "the munge key is in the log of the refused run"; exit 1; }
logged munge-rotate play --tags slurm -e slurm_munge_key_rotate=true
! grep -qF "$new_key" "$logs/munge-rotate.log" || { echo "the munge key is in the log of the rotation"; exit 1; }
after=$(keys)
echo "$after"
[ "$(cut -d' ' -f3 <<<"$after" | sort -u | wc -l)" = 1 ] || { echo "the hosts do not share one key after the rotation"; exit 1; }
[ "$(cut -d' ' -f3 <<<"$after" | head -1)" = "$new_sha" ] || { echo "the hosts' key is not slurm_munge_key's"; exit 1; }
[ "$(cut -d' ' -f4- <<<"$after" | sort -u)" = "1024 munge 400" ] || { echo "a key is not 1024 bytes, munge, 0400"; exit 1; }
for host in "${hosts[@]}"; do
  [ "$(grep "^$host " <<<"$before" | cut -d' ' -f2)" != "$(grep "^$host " <<<"$after" | cut -d' ' -f2)" ] \
    || { echo "munged on $host was not restarted with the new key"; exit 1; }
done
python3 tests/e2e/check_rollout.py "$logs/munge-rotate.log" head head2
for host in head gpu01; do
  podman exec "$name-login01" munge -n | podman exec -i "$name-$host" unmunge | grep -q "^STATUS: *Success" \
    || { echo "a credential made on login01 is not decoded on $host"; exit 1; }
done
[ "$(on_login "srun --nodes=1 --nodelist=gpu01 --time=1 hostname")" = gpu01 ] || { echo "no job runs after the rotation"; exit 1; }
echo "rotated: one new key on ${#hosts[@]} hosts, every munged restarted, munge works across hosts, a job runs"
