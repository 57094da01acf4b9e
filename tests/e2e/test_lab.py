# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The converged lab, checked from every node (run by tests/e2e/run.sh after site.yml)."""
import time

import pytest
import testinfra.utils.ansible_runner

testinfra_hosts = ["ansible://cluster"]


@pytest.fixture(scope="module")
def inventory(request):
    runner = testinfra.utils.ansible_runner.AnsibleRunner(request.config.option.ansible_inventory)
    hosts = runner.get_hosts("cluster")
    return {
        "ips": {h: runner.get_variables(h)["gpufleet_ip"] for h in hosts},
        "head": runner.get_hosts("slurm_controller")[0],
        "controllers": runner.get_hosts("slurm_controller"),
    }


def test_every_cluster_host_resolves_to_its_inventory_address(host, inventory):
    for name, ip in inventory["ips"].items():
        assert host.check_output(f"getent hosts {name}").split()[0] == ip


def test_every_node_reaches_every_other_by_name(host, inventory):
    for name in inventory["ips"]:
        assert host.run(f"ping -c1 -W2 {name}").rc == 0, f"{name} unreachable by name"


def test_time_follows_the_head_node(host, inventory):
    controller_ips = {inventory["ips"][name] for name in inventory["controllers"]}
    if host.backend.get_hostname() == inventory["head"]:
        assert "Stratum         : 10" in host.check_output("chronyc -n tracking")
        return
    deadline = time.monotonic() + 60
    while True:
        rows = [r.split(",") for r in host.check_output("chronyc -n -c sources").splitlines()]
        synced = [r for r in rows if r[2] in controller_ips and r[1] == "*"]
        if synced:
            break
        assert time.monotonic() < deadline, f"not synchronised to a controller {controller_ips}: {rows}"
        time.sleep(2)


def test_no_failed_units(host):
    assert host.check_output("systemctl --failed --no-legend --plain") == ""


def test_kernel_and_limit_files_are_the_same_everywhere(host):
    sysctl = host.file("/etc/sysctl.d/90-gpufleet.conf").content_string
    assert "net.ipv4.neigh.default.gc_thresh1=8192" in sysctl
    assert host.check_output("runuser -l root -c 'ulimit -Sn'") == "20000"


def test_gpu_nodes_have_the_lists_of_the_components_the_driver_role_added(host, inventory):
    """The converge added Debian's contrib and non-free components (nvidia_driver, packages off in the lab): it must
    also have fetched their package lists, so a later run that installs finds the driver. Before, the lists came
    only with an install in the same run, or when common's one-hour cache timer happened to run out."""
    if host.backend.get_hostname() not in testinfra.utils.ansible_runner.AnsibleRunner(
            host.backend.ansible_inventory).get_hosts("gpu_nodes"):
        pytest.skip("the nvidia_driver role runs on GPU nodes")
    if host.system_info.distribution != "debian":
        pytest.skip("Debian's components are checked; Ubuntu's driver is in restricted")
    codename = host.system_info.codename
    lists = host.check_output("ls /var/lib/apt/lists").split()
    for component in ("contrib", "non-free", "non-free-firmware"):
        assert any(f"_dists_{codename}_{component}_binary-" in name and "_Packages" in name for name in lists), \
            (component, lists)
    policy = host.check_output("apt-cache policy nvidia-kernel-dkms libnvidia-ml1")
    assert policy.count("Candidate: 535.") == 2, policy
