# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Slurm in the converged lab, with real daemons and real jobs (run by tests/e2e/run.sh)."""
import base64
import os
import re

import pytest
import testinfra
import testinfra.utils.ansible_runner

from lab_wait import until as _until  # tests/e2e is on the path pytest runs these from


@pytest.fixture(scope="module")
def lab(request):
    inventory = request.config.option.ansible_inventory
    runner = testinfra.utils.ansible_runner.AnsibleRunner(inventory)

    def node(name):
        return testinfra.get_host(f"ansible://{name}", ansible_inventory=inventory)

    return {
        "computes": runner.get_hosts("gpu_nodes"),
        "controllers": runner.get_hosts("slurm_controller"),
        "login": node(runner.get_hosts("login_nodes")[0]),
        "all": [node(h) for h in runner.get_hosts("cluster")],
        "node": node,
    }


def test_every_compute_node_is_idle(lab):
    def idle():
        out = lab["login"].check_output("sinfo --noheader --Node --format '%N %t'")
        states = dict(line.split() for line in out.splitlines())
        return states if set(states) == set(lab["computes"]) and set(states.values()) == {"idle"} else None
    _until("every compute node idle", idle)


def test_srun_reaches_every_node(lab):
    n = len(lab["computes"])
    out = lab["login"].check_output(f"srun --nodes={n} --ntasks-per-node=1 hostname")
    assert sorted(out.split()) == sorted(lab["computes"])


def test_batch_job_is_accounted_in_mariadb(lab):
    job = lab["login"].check_output("sbatch --parsable --wrap 'hostname'").split(";")[0]

    def done():
        out = lab["login"].check_output(f"sacct --noheader --parsable2 --jobs {job} --format JobID,State,ExitCode")
        rows = [r.split("|") for r in out.splitlines()]
        return rows if rows and rows[0][0] == job and rows[0][1] == "COMPLETED" else None
    rows = _until(f"job {job} COMPLETED in sacct", done)
    assert rows[0][2] == "0:0"


def test_nodes_carry_the_gpu_gres(lab):
    for name in lab["computes"]:
        out = lab["login"].check_output(f"scontrol show node {name}")
        assert "Gres=gpu:h100:8" in out and "gres/gpu=8" in out


def test_gres_request_sets_cuda_visible_devices(lab):
    out = lab["login"].check_output("srun --gres=gpu:h100:2 printenv CUDA_VISIBLE_DEVICES")
    assert out.strip() == "0,1"


def test_one_munge_key_everywhere_and_secrets_locked(lab):
    sums = set()
    for host in lab["all"]:
        key = host.file("/etc/munge/munge.key")
        assert key.user == "munge" and key.mode == 0o400 and key.size == 1024
        sums.add(host.check_output("sha256sum /etc/munge/munge.key").split()[0])
    assert len(sums) == 1
    # One key everywhere is not enough: a constant or patterned key passes that and lets anyone forge credentials.
    # 1024 random bytes hold about 650 distinct values; od prints each byte as a decimal number.
    values = lab["all"][0].check_output("od -An -v -tu1 /etc/munge/munge.key").split()
    assert len(values) == 1024 and len(set(values)) >= 128, f"the munge key has {len(set(values))} distinct bytes"
    dbd = lab["node"](lab["controllers"][0])
    conf = dbd.file("/etc/slurm/slurmdbd.conf")
    assert conf.user == "slurm" and conf.mode == 0o600


def test_munge_credentials_cross_nodes(lab):
    cred = lab["login"].check_output("munge -n")
    other = lab["node"](lab["computes"][-1])
    assert other.run(f"echo '{cred}' | unmunge").rc == 0


def test_slurmd_parses_the_written_files(lab):
    compute = lab["node"](lab["computes"][0])
    assert compute.run(f"slurmd -G -f /etc/slurm/slurm.conf -N {lab['computes'][0]}").rc == 0


# The recorded 8x H100 node: a byte-identical copy in the repository (source and licence: tests/fixtures/README.md).
REFERENCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "reference", "outputs",
                         "nvidia-smi", "nvidia-smi-q.h100-80gb-hbm3-x8.535.183.01.gpud.txt")


def test_gpu_health_check_says_stand_ins_explicitly(lab):
    name = lab["computes"][0]
    out = lab["node"](name).run("/usr/local/sbin/gpufleet-gpu-health")
    assert out.rc == 0
    assert f"gpufleet-gpu-health: {name}: 8 stand-in GPU devices, no NVIDIA driver: nothing to check (lab)" in \
        out.stdout + out.stderr


def test_sick_gpu_drains_its_node_with_the_reason(lab):
    name = lab["computes"][-1]
    node = lab["node"](name)
    text = open(REFERENCE, encoding="utf-8").read()
    # The recorded healthy output of an 8x H100 node, with 2 volatile uncorrectable DRAM errors on its 4th GPU.
    gpus = [m.start() for m in re.finditer(r"^GPU 0000", text, re.M)]
    at = gpus[3]
    sick = text[:at] + text[at:].replace("DRAM Uncorrectable            : 0", "DRAM Uncorrectable            : 2", 1)
    payload = base64.b64encode(sick.encode()).decode()
    node.check_output(f"echo {payload} | base64 -d > /tmp/nvidia-smi-q.sick.txt")
    result = node.run(f"/usr/local/sbin/gpufleet-gpu-health --from-file /tmp/nvidia-smi-q.sick.txt --node {name}")
    assert result.rc == 1
    try:
        shown = lab["login"].check_output(f"scontrol show node {name}")
        assert "DRAIN" in shown
        assert re.search(r"Reason=gpu-health: GPU 3 \(0000:86:00.0\): 2 volatile uncorrectable ECC errors", shown), shown
    finally:
        lab["login"].run(f"scontrol update NodeName={name} State=RESUME")
