#!/usr/bin/env bash
# The database password is rotated (a new vault value): slurmdbd follows before accounting is read. Only the two
# tasks that carry it change on the accounting host; MariaDB takes the new password and refuses the old one;
# slurmdbd.conf holds the new one; accounting answers.
#   tests/e2e/rotate_password.sh LAB_NAME INVENTORY_DIR        (a step of tests/e2e/run.sh)
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh" "$@"

old_pw=$(sed -n 's/^slurm_db_password: //p' "$inv/group_vars/all/lab_secrets.yml")
new_pw="rotated-e2e-$RANDOM$RANDOM"
[ -n "$old_pw" ] || { echo "no slurm_db_password in $inv/group_vars/all/lab_secrets.yml"; exit 1; }
logged rotate play --tags slurm -e "slurm_db_password=$new_pw"
# The two tasks that carry the password changed on the accounting host, and nothing else did there.
for task in "Dbd | Create the accounting database user" "Dbd | Write slurmdbd.conf (it holds the database password)"; do
  awk -v t="$task" 'index($0, "TASK [") && index($0, t) {inside=1; next} /^TASK \[/ {inside=0} inside && /^changed: \[head\]/ {found=1} END {exit !found}' \
    "$logs/rotate.log" || { echo "the rotation did not change '$task' on head"; exit 1; }
done
db() { podman exec "$name-head" mysql --user=slurm --password="$1" --batch --skip-column-names --execute 'SELECT 1' 2>&1; }
[ "$(db "$new_pw")" = 1 ] || { echo "MariaDB refuses the new password: $(db "$new_pw")"; exit 1; }
podman exec "$name-head" grep -qxF "StoragePass=$new_pw" /etc/slurm/slurmdbd.conf \
  || { echo "slurmdbd.conf does not hold the new password"; exit 1; }
old_answer=$(db "$old_pw" || true)
case "$old_answer" in
  *"Access denied"*) ;;
  *) echo "MariaDB still accepts the old password after the rotation: $old_answer"; exit 1 ;;
esac
echo "MariaDB: the new password works, the old one is refused; slurmdbd.conf holds the new one"
# The previous slurmdbd.conf is kept beside it, as secret as the file: 0600 slurm:slurm, holding the old password.
kept=$(podman exec "$name-head" sh -c 'ls -1 /etc/slurm/slurmdbd.conf.*.bak | tail -1')
[ "$(podman exec "$name-head" stat -c '%a %U:%G' "$kept")" = "600 slurm:slurm" ] \
  || { echo "the kept copy $kept is not 0600 slurm:slurm: $(podman exec "$name-head" stat -c '%a %U:%G' "$kept")"; exit 1; }
podman exec "$name-head" grep -qxF "StoragePass=$old_pw" "$kept" || { echo "the kept copy $kept does not hold the old password"; exit 1; }
echo "the previous slurmdbd.conf is kept as $kept, 0600 slurm:slurm"
on_login "sacctmgr --noheader list cluster format=cluster" \
  >"$logs/rotate-check.log" 2>&1 || { echo "accounting does not answer after the rotation"; cat "$logs/rotate-check.log"; exit 1; }
echo "accounting answers after the rotation: $(xargs <"$logs/rotate-check.log")"
