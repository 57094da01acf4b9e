#!/usr/bin/env bash
# playbooks/validate.yml --limit gpu09 on an inventory with HCAs (issue 28: validating one node failed rdma_bw "not
# paired" and skipped Slurm), against this machine over ansible_connection local, with stand-ins on PATH: ibstat
# replays the first two HCAs of a recorded H100 node (tests/fixtures/reference/outputs/infiniband), ib_write_bw a
# recorded 8 MiB run as a client and waits as a server, sinfo/srun/sbatch/sacct answer as Slurm would for the nodes
# they are given. gpu01, the first RDMA node outside the limit, is unreachable (ssh to a closed port).
# The run must pass, with:
#   - rdma_bw of gpu09 measured against gpu02 (the healthy peer outside the limit; its perftest servers started on
#     gpu02 with delegate_to), each result naming gpu09 alone and the peer in its detail;
#   - the Slurm checks run from login01 (outside the limit, delegate_to), on gpu09 alone (--nodelist=gpu09);
#   - no result naming a node outside the limit.
# Then with login01 unreachable as well: the Slurm checks are errors naming it, no drain is tried, the verdict comes.
#   tests/local/validate_limit/run.sh    exits non-zero when one does not hold; removes everything it made
#                                        (VALIDATE_TEST_KEEP=1 keeps the inventory, the log and the report)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/local/lib.sh
. "$here/../lib.sh"
local_test_init validate-limit-test VALIDATE_TEST_KEEP
recorded=$root/tests/fixtures/reference/outputs

mkdir -p "$tmp/bin" "$tmp/inv/group_vars"
# ibstat: the first two CAs of the recording (mlx5_0 and mlx5_1, both ACTIVE).
printf '#!/bin/sh\nawk '"'"'/^CA /{n++} n<=2'"'"' "%s"\n' "$recorded/infiniband/ibstat.h100-cx7-roce-all-active.gpud.txt" \
  >"$tmp/bin/ibstat"
# ib_write_bw: a client (its last argument is the server's address) replays the recording; a server waits.
cat >"$tmp/bin/ib_write_bw" <<STANDIN
#!/bin/sh
echo "ib_write_bw \$*" >>"$tmp/calls.log"
for last; do :; done
case "\$last" in
  gpu*) cat "$recorded/perftest/ib_write_bw-ib-8M-loopback-server+client.superbench.txt" ;;
  *) sleep 1 ;;
esac
STANDIN
for cmd in sinfo srun sbatch sacct; do
  cat >"$tmp/bin/$cmd" <<STANDIN
#!/bin/sh
echo "$cmd \$*" >>"$tmp/calls.log"
case $cmd in
  sinfo) printf 'gpu01|idle|none\ngpu02|idle|none\ngpu09|idle|none\n' ;;
  srun) for a; do case "\$a" in --nodelist=*) echo "\${a#--nodelist=}" | tr , '\n' ;; esac; done ;;
  sbatch) echo 42 ;;
  sacct) echo '42|COMPLETED|0:0|1|gpu09' ;;
esac
STANDIN
done
chmod +x "$tmp"/bin/*

cat >"$tmp/inv/hosts.yml" <<INVENTORY
all:
  vars:
    ansible_connection: local
    ansible_python_interpreter: $py
  children:
    cluster:
      children:
        slurm_controller: {hosts: {ctl01: }}
        login_nodes: {hosts: {login01: }}
        gpu_nodes:
          hosts:
            gpu01: {ansible_connection: ssh, ansible_host: 127.0.0.1, ansible_port: 1}
            gpu02:
            gpu09:
INVENTORY
cat >"$tmp/inv/group_vars/all.yml" <<VARS
gpufleet_cluster_name: validate-limit
gpufleet_hardware: {gpus: 0, rdma_hcas: 2, lustre_servers: false}
gpufleet_fabric: {kind: infiniband, rate_gbps: 200}
validate_report_dir: $tmp/report
validate_rdma_tests: [ib_write_bw]
validate_rdma_client_timeout: 20
validate_job_timeout: 60
VARS

export ANSIBLE_CONFIG=$root/ansible.cfg ANSIBLE_FORCE_COLOR=false ANSIBLE_NOCOLOR=true ANSIBLE_CACHE_PLUGIN=memory
export ANSIBLE_SSH_ARGS="-o ConnectTimeout=2" PATH=$tmp/bin:$PATH
start=$SECONDS
if ! (cd "$root" && "$playbook" -i "$tmp/inv" playbooks/validate.yml --limit gpu09) >"$tmp/play.log" 2>&1; then
  echo "FAIL validate.yml --limit gpu09 did not pass"; tail -n 60 "$tmp/play.log"; exit 1
fi
"$py" "$here/check.py" "$tmp/report/validate.json" "$tmp/play.log" "$tmp/calls.log"
echo "== validate.yml --limit gpu09: peer and submit host outside the limit, $((SECONDS - start)) s"

# The submit host outside the limit unreachable too (and no HCAs, to be quick), draining asked for: the Slurm checks
# are errors saying so, nothing is drained through it, and the run still ends with its report and verdict.
start=$SECONDS
sed -i 's/login01: }/login01: {ansible_connection: ssh, ansible_host: 127.0.0.1, ansible_port: 1}}/' "$tmp/inv/hosts.yml"
if (cd "$root" && "$playbook" -i "$tmp/inv" playbooks/validate.yml --limit gpu09 -e validate_drain=true \
      -e '{"gpufleet_hardware": {"gpus": 0, "rdma_hcas": 0}, "validate_report_dir": "'"$tmp/down"'"}') \
    >"$tmp/down.log" 2>&1; then
  echo "FAIL validate.yml passed with its submit host unreachable"; exit 1
fi
grep -q "failed: 0 check(s) failed and 3 could not be measured - slurm_node on gpu09; slurm_sbatch on gpu09; slurm_srun on gpu09.*Not drained: the submit host login01 is unreachable" "$tmp/down.log" \
  || { echo "FAIL the verdict does not name the Slurm errors and the undrained node"; tail -n 40 "$tmp/down.log"; exit 1; }
grep -q '"detail": "not run: the submit host login01 (outside this run) is unreachable: ' "$tmp/down/validate.json" \
  || { echo "FAIL the report does not say the submit host is unreachable"; exit 1; }
echo "== validate.yml --limit gpu09, submit host unreachable: Slurm errors, nothing drained, verdict given, $((SECONDS - start)) s"
