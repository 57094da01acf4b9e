#!/usr/bin/env bash
# The restore drill (docs/slurm.md "Backups and restore"): jobs and associations written, the backups taken by the
# timers' own services, the data lost (the accounting database dropped, StateSaveLocation emptied), a restore naming
# a missing archive refused before any change, the restore by playbooks/slurm_restore.yml, and the same jobs (sacct),
# associations (sacctmgr show assoc) and queued job (squeue) read back.
#   tests/e2e/backup_restore.sh LAB_NAME INVENTORY_DIR        (a step of tests/e2e/run.sh)
set -euo pipefail
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh" "$@"
began=$SECONDS
on() { podman exec "$name-$1" sh -c "$2"; }
fail() { echo "backup_restore: $*" >&2; exit 1; }
dir=/var/backups/gpufleet-slurm
restore() { ansible-playbook -i "$inv" playbooks/slurm_restore.yml -e "{\"slurm_restore_from\": $1}"; }

# Written: an association by hand (an account and a user the inventory's policy does not hold), three jobs that run
# and finish (in accounting), one held in the queue (in StateSaveLocation only, with its script).
on head "sacctmgr -i add account drill description=restore-drill organization=drill >/dev/null
         sacctmgr -i add user dave account=drill >/dev/null"
jobs=""
for i in 1 2 3; do
  job=$(on_login "sbatch --parsable --nodes=1 --job-name=drill-$i --wrap 'echo drill $i'")
  [ -n "$job" ] || fail "could not submit drill job $i"
  jobs="$jobs${jobs:+,}$job"
done
held=$(on_login "sbatch --parsable --hold --nodes=1 --job-name=drill-held --wrap 'echo held'")
[ -n "$held" ] || fail "could not submit the held job"
sacct_now() { on_login "sacct -X --noheader --parsable2 --jobs $jobs --format=JobID,JobName,User,Account,Partition,State,ExitCode,Submit,Start,End,NodeList"; }
assoc_now() { on_login "sacctmgr --noheader --parsable2 show assoc format=Cluster,Account,User,Partition,Share,QOS,DefaultQOS,MaxJobs"; }
# Whole records: slurmdbd may hold a job's end before its start (name "allocation", no partition) for a moment.
settled() { grep -cE '^[0-9]+[|]drill-[123][|]root[|][^|]+[|]gpu[|]COMPLETED[|]' <<<"$1" || true; }
for _ in $(seq 60); do
  [ "$(settled "$(sacct_now)")" = 3 ] && break
  sleep 1
done
jobs_before=$(sacct_now)
[ "$(settled "$jobs_before")" = 3 ] || fail "the drill's jobs are not all complete in accounting: $jobs_before"
assoc_before=$(assoc_now)
grep -q '|drill|dave|' <<<"$assoc_before" || fail "the association drill/dave is not in accounting: $assoc_before"
state=$(on head "scontrol show config" | sed -n 's/^StateSaveLocation *= *//p')
# slurmctld saves its state from a thread of its own, a moment after a change, so the last save may still show the
# drill's jobs pending although accounting has them complete. Restored, such a state runs them again, and slurmctld
# sends their start records anew (sacct reads Start None, NodeList None assigned). A change made now (the held job's
# comment) is saved after the jobs ended: wait until job_state was written after it.
marked=$(on head "date +%s.%N")
on_login "scontrol update jobid=$held comment=restore-drill"
saved_after() { awk -v saved="$(on head "stat -c %.9Y $state/job_state")" -v mark="$1" 'BEGIN { exit !(saved > mark) }'; }
for _ in $(seq 20); do
  saved_after "$marked" && break
  sleep 1
done
saved_after "$marked" || fail "slurmctld did not save its state within 20 s of a change to job $held"
echo "written: jobs $jobs completed, job $held held, association drill/dave ($((SECONDS - began)) s)"

# The backups, by the services the timers start.
on head "systemctl start gpufleet-slurm-db-backup.service gpufleet-slurm-state-backup.service"
dump=$(on head "ls -1 $dir | grep -E '^slurm_acct_db-[0-9T]+Z[.]sql[.]gz\$' | tail -1")
archive=$(on head "ls -1 $dir | grep -E '^slurmctld-state-[0-9T]+Z[.]tar[.]gz\$' | tail -1")
if [ -z "$dump" ] || [ -z "$archive" ]; then
  fail "the backup services wrote no dump or no archive into $dir: $(on head "ls -la $dir")"
fi
modes=$(on head "stat -c '%a %U' $dir $dir/$dump $dir/$archive" | sort -u | xargs)
[ "$modes" = "600 root 700 root" ] || fail "the backups are not 0600 root in a 0700 directory: $modes"
echo "backed up: $dump, $archive (0600 root in $dir, 0700)"

# A restore from a missing archive is refused before any change: the daemons still run.
if restore '{"database": "slurm_acct_db-19700101T000000Z.sql.gz"}' >"$logs/restore-refused.log" 2>&1; then
  fail "a restore from a missing dump was not refused"
fi
grep -q 'slurm_restore_from.database: .* is missing' "$logs/restore-refused.log" \
  || { tail -20 "$logs/restore-refused.log"; fail "the refusal does not name slurm_restore_from.database"; }
[ "$(on head 'systemctl is-active slurmctld slurmdbd' | xargs)" = "active active" ] \
  || fail "a refused restore stopped a daemon: $(on head 'systemctl is-active slurmctld slurmdbd' | xargs)"
echo "a restore from a missing dump is refused; slurmctld and slurmdbd still run"

# Lost: both controllers stopped (the backup first), StateSaveLocation emptied, the database dropped; slurmdbd comes
# back on an empty database, so the loss reads through the same commands as the restore below.
on head2 "systemctl stop slurmctld"
on head "systemctl stop slurmctld slurmdbd
         find $state -mindepth 1 -delete
         mariadb --execute 'DROP DATABASE slurm_acct_db'
         systemctl start slurmdbd"
for _ in $(seq 30); do on_login "sacctmgr --noheader list cluster format=cluster" >/dev/null 2>&1 && break; sleep 1; done
lost_jobs=$(sacct_now 2>&1 || true)
lost_assoc=$(assoc_now 2>&1 || true)
if [ -n "$(on head "ls -A $state")" ] || grep -q 'COMPLETED' <<<"$lost_jobs" || grep -q '|drill|dave|' <<<"$lost_assoc"; then
  fail "the data is not lost: state $(on head "ls -A $state" | xargs), jobs $lost_jobs, associations $lost_assoc"
fi
echo "lost: StateSaveLocation empty, no job and no drill/dave in accounting ($((SECONDS - began)) s)"

# Restored by the documented way.
logged restore restore "{\"database\": \"$dump\", \"state\": \"$archive\"}"
grep -A6 'PLAY RECAP' "$logs/restore.log" | grep -q 'failed=0' || fail "the restore playbook failed"
jobs_after=$(sacct_now)
assoc_after=$(assoc_now)
[ "$jobs_after" = "$jobs_before" ] || fail "sacct reads other jobs back: before:
$jobs_before
after:
$jobs_after"
[ "$assoc_after" = "$assoc_before" ] || fail "sacctmgr reads other associations back: $(diff <(echo "$assoc_before") <(echo "$assoc_after"))"
rerun=$(on_login "squeue --noheader --states=PD,R,CF,CG --name=drill-1,drill-2,drill-3 --format '%i %j %T'")
[ -z "$rerun" ] || fail "the restored state runs finished jobs again (it is older than their end): $rerun"
queued=$(on_login "squeue --noheader --jobs $held --format '%i %j %T %r'")
[ "$queued" = "$held drill-held PENDING JobHeldUser" ] || fail "the held job $held is not back in the queue: '$queued'"
ping=$(on_login "scontrol ping" | xargs)
[[ "$ping" == *"primary) at head is UP"*"backup) at head2 is UP"* ]] || fail "the controllers do not both serve: $ping"
kept=$(on head "ls -1 $dir | grep -c before-restore")
[ "$kept" -ge 1 ] || fail "the restore kept no copy of what it replaced in $dir"
echo "restored: the same $(wc -l <<<"$jobs_after") jobs, $(wc -l <<<"$assoc_after") associations, job $held held; $ping"

# The drill leaves the lab as it found it.
on_login "scancel $held"
on head "sacctmgr -i delete user dave >/dev/null && sacctmgr -i delete account drill >/dev/null"
echo "restore drill: $((SECONDS - began)) s"
