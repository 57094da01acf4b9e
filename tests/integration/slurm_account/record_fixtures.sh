#!/usr/bin/env bash
# Records the sacctmgr (and squeue) outputs under tests/fixtures/slurm-accounting/ from a lab's controller, the
# host that runs slurmdbd (lab/lab.py up + playbooks/common.yml + playbooks/slurm.yml, a fresh database).
#   tests/integration/slurm_account/record_fixtures.sh CONTAINER OUTDIR
# Each show is written byte for byte (stdout); each refusal as NAME.stdout.txt and NAME.stderr.txt, with its
# exit status printed here (the README's table holds them).
set -uo pipefail
c=${1:?container}; out=${2:?output folder}
mkdir -p "$out"
QF=Name,Description,Priority,Preempt,PreemptMode,Flags,MaxJobsPU,MaxSubmitPU,MaxTRESPU,MaxTRES,MaxWall,GrpTRES,GrpJobs
AF=Account,Descr,Org
UF=User,DefaultAccount,AdminLevel
SF=Account,User,Partition,ParentName,Share,QOS,DefaultQOS,MaxJobs,MaxSubmit,MaxTRES,GrpTRES,MaxWall
x() { podman exec "$c" "$@"; }
s() { x sacctmgr -i "$@" >/dev/null || { echo "failed: sacctmgr -i $*"; exit 1; }; }
show() {  # STATE: the five shows the module reads
  x sacctmgr --noheader --parsable2 show cluster format=Cluster >"$out/$1.show-cluster.txt"
  x sacctmgr --noheader --parsable2 show qos format=$QF >"$out/$1.show-qos.txt"
  x sacctmgr --noheader --parsable2 show account format=$AF >"$out/$1.show-account.txt"
  x sacctmgr --noheader --parsable2 show user where cluster=lab format=$UF >"$out/$1.show-user.txt"
  x sacctmgr --noheader --parsable2 show assoc where cluster=lab format=$SF >"$out/$1.show-assoc.txt"
}
said() {  # NAME sacctmgr-arguments...: stdout, stderr and exit status of one command
  local name=$1; shift
  x sacctmgr "$@" >"$out/$name.stdout.txt" 2>"$out/$name.stderr.txt"
  echo "$name: rc=$? sacctmgr $*"
}
x sacctmgr -V
show defaults
said add-qos-high -i add qos high
s modify qos where name=normal set MaxJobsPerUser=2
s modify qos where name=high set Priority=100 Preempt=normal PreemptMode=requeue Flags=DenyOnLimit,NoDecay \
  MaxTRESPerUser=gres/gpu=16,cpu=128,mem=65536 MaxTRESPerJob=gres/gpu=8 MaxWall=2-00:00:00 GrpTRES=gres/gpu=64,mem=1T \
  GrpJobs=10 MaxSubmitJobsPerUser=20 "Description=High priority, preempts normal"
said add-account-research -i add account research cluster=lab parent=root "Description=Research Dept" "Organization=ACME Labs"
s add account ml cluster=lab parent=research Fairshare=10 MaxJobs=4 MaxSubmitJobs=8 MaxTRESPerJob=gres/gpu=8 \
  GrpTRES=gres/gpu=32 MaxWall=12:00:00 QOS=normal,high DefaultQOS=normal
s add account hpc cluster=lab parent=research Fairshare=parent
s add user alice cluster=lab account=ml DefaultAccount=ml
said add-user-bob -i add user bob cluster=lab account=hpc,ml DefaultAccount=hpc AdminLevel=Operator MaxJobs=3
show policy
said modify-qos-normal -i modify qos where name=normal set MaxJobsPerUser=5
said modify-user-bob-ml -i modify user where name=bob account=ml cluster=lab set MaxJobs=2
s modify qos where name=high set MaxTRESPerUser=gres/gpu=-1 MaxWall=-1 GrpJobs=-1 Preempt= Flags=-1
s modify qos where name=normal set MaxJobsPerUser=-1
s modify account where name=ml cluster=lab set MaxJobs=-1 MaxTRESPerJob=gres/gpu=-1 DefaultQOS=-1
s modify user where name=bob account=hpc cluster=lab set MaxJobs=-1
s modify user where name=bob cluster=lab set DefaultAccount=ml AdminLevel=None
show cleared
said refuse-add-qos-exists -i add qos high
said refuse-add-user-unknown-account -i add user carol cluster=lab account=nosuch DefaultAccount=nosuch
said refuse-add-account-unknown-parent -i add account orphan cluster=lab parent=nosuch
said refuse-modify-unknown-qos -i modify qos where name=nosuch set Priority=5
said refuse-preempt-unknown-qos -i modify qos where name=high set Preempt=nosuch
said refuse-bad-time -i modify qos where name=high set MaxWall=soon
said refuse-unknown-option -i modify qos where name=high set Bogus=1
said refuse-delete-unknown-user -i delete user where name=nosuch cluster=lab
# a running job in account ml: squeue's view, and sacctmgr's refusal to delete the account under it
s add user root cluster=lab account=ml
x sbatch -A ml -q normal -o /dev/null --wrap "sleep 600" >/dev/null
for _ in $(seq 30); do x squeue --noheader -t R -o %i | grep -q . && break; sleep 1; done
x sbatch -A ml -q normal -o /dev/null -w gpu01 --exclusive --wrap "sleep 600" >/dev/null
sleep 1
x squeue --noheader --all --format='%i|%u|%a|%q|%T' >"$out/jobs.squeue.txt"
said refuse-delete-account-with-job -i delete account where name=ml cluster=lab
x scancel -u root
for _ in $(seq 30); do x squeue --noheader -o %i | grep -q . || break; sleep 1; done
s delete user where name=root account=ml cluster=lab
# accounts with users and sub-accounts: sacctmgr 22.05 deletes them all (the module refuses without force)
said delete-account-with-users -i delete account where name=research cluster=lab
said delete-qos-high -i delete qos where name=high
show removed
x sacctmgr -i modify qos where name=normal set MaxJobsPerUser=-1 >/dev/null
x sacctmgr -i delete user where name=alice,bob >/dev/null
