# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The slurm role in check mode on nodes nothing has converged (a container of the lab image started for each
test): the controller and accounting host of a new cluster, and a login node that installs from the site's
signed mirror. None of them has Slurm, munge or MariaDB
installed, so their units, their users and the database are not there; `--check` must not fail on that, must say
what a real run would install and start, and must report the changes it would make. The new cluster's node is also
its GPU node and is bare as a real one is before its first run: no driver and no /dev/nvidia* (no stand-in device
files), with the nvidia_driver role in the run before slurm, as in site.yml. (A compute node joining a running
cluster is checked by the e2e, on the lab's gpu03, also bare, before it joins.)"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))), "tests", "molecule"))
from fresh_node import check_on_fresh_node, recap  # noqa: E402  (the shared helper lives outside this scenario)

HEAD = "molecule-slurm-head"

# slurm.conf names the controller by its address (gpufleet_ip, from its facts): the head's facts are gathered
# first, read-only, and the role runs on the fresh node alone.
_HEAD_FACTS = f"""
- name: Facts of the scenario's controller, which slurm.conf names
  hosts: {HEAD}
  gather_facts: true
  gather_subset: [min, network]
"""

_ROLE_PLAY = """
- name: The slurm role in check mode on a node never converged
  hosts: fresh
  gather_facts: true
  gather_subset: [min, network, hardware]
  roles:
    - role: gpufleet.cluster.slurm
{vars}
"""

# common, rdma, then the driver before slurm, as site.yml orders them, with the lab's settings for GPU nodes
# (containers: no kernel module, headers, HCA or services; the driver's packages on, so that check mode has a driver
# to say it would install).
_DRIVER_PLAY = """
- name: Make the fresh node's default memlock 4 MiB, below the inventory's, as a real node's 8 MiB is below unlimited
  hosts: fresh
  gather_facts: false
  tasks:
    - name: Lower systemd's default memlock (as lab/lab.py up --bare does)
      ansible.builtin.shell: >-
        mkdir -p /etc/systemd/system.conf.d
        && printf '[Manager]\\nDefaultLimitMEMLOCK=4096K\\n' > /etc/systemd/system.conf.d/10-lab-bare-memlock.conf
        && systemctl daemon-reexec
      changed_when: false
      check_mode: false
- name: The common, rdma, nvidia_driver and slurm roles, in check mode on a GPU node never converged
  hosts: fresh
  gather_facts: true
  gather_subset: [min, network, hardware]
  roles:
    # The limits first, as site.yml does: the scenario's common_memlock_kib (8192, the containers' hard limit) is
    # more than the bare node's default (4 MiB, below), which the common role would write and does not in check mode.
    - role: gpufleet.cluster.common
      vars:
        common_chrony_servers: []
        common_chrony_local_stratum: 10
        common_chrony_allow: [10.124.0.0/16]
        # /etc/hosts lists the scenario's nodes by their addresses, from facts this run does not gather.
        common_hosts_manage: false
    - role: gpufleet.cluster.rdma
      vars:
        rdma_stack: inbox
        rdma_memlock_min_kib: 8192
        rdma_load_modules: false
        rdma_load_modules_skip_reason: containers cannot load kernel modules
        rdma_ipoib_interfaces: []
        rdma_expect_devices: false
        rdma_expect_devices_reason: molecule nodes are containers without an HCA
        rdma_expect_ports: []
    - role: gpufleet.cluster.nvidia_driver
      vars:
        nvidia_driver_source: distribution
        nvidia_driver_kernel_modules: proprietary
        nvidia_driver_install_packages: true
        nvidia_driver_load_modules: false
        nvidia_driver_load_modules_skip_reason: molecule nodes are containers and cannot load kernel modules
        nvidia_driver_start_services: false
        nvidia_driver_start_services_skip_reason: no nvidia kernel module and no GPU in a container
        nvidia_driver_kernel_headers: false
        nvidia_driver_kernel_headers_skip_reason: containers run on the host's kernel, which has no headers package
    - role: gpufleet.cluster.slurm
{vars}
"""

# A new cluster of one node: the fresh node is its controller, its accounting host and its GPU node (groups of its
# own, so the scenario's nodes are not counted in: a new cluster's munge key must reach every Slurm host in the same
# run, and the scenario's gpu01 and login01 run daemons with the scenario's key, which the run must not replace).
_HEAD_GROUPS = ["cluster", "fresh_slurm_controller", "fresh_slurm_dbd", "fresh_gpu_nodes"]
_HEAD_VARS = """      vars:
        slurm_controller_group: fresh_slurm_controller
        slurm_dbd_group: fresh_slurm_dbd
        slurm_compute_group: fresh_gpu_nodes
        slurm_login_group: fresh_login_nodes
        slurm_node_cpus: 2
        slurm_node_sockets: 1
        slurm_node_cores_per_socket: 2
        slurm_node_threads_per_core: 1
        slurm_node_real_memory_mib: 1024
        slurm_gpu_count: 8
        slurm_gpu_type: h100
        slurm_gpu_stand_ins: true"""

# The login node of the scenario's cluster installing from the site's signed mirror, as login01 does; the fresh
# node has no copy of the mirror, so the key is given as its text (the throwaway key prepare.yml signs with), which
# gpg checks against the pinned fingerprint in check mode too.
_MIRROR_KEY = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))),
                           "tests", "fixtures", "molecule", "slurm-mirror-key.throwaway.pub.asc")
_MIRROR_VARS = """      vars:
        slurm_package_source: repository
        slurm_version: "22.05"
        slurm_repository:
          name: site-slurm-mirror
          uris: file:/srv/slurm-mirror
          suites: ./
          signed_by: "{{ lookup('ansible.builtin.file', '%s') }}"
          fingerprints: ["1317ACA08524C18FE0E6C8681DA373312FF29CEA"]""" % _MIRROR_KEY

# A node that already has python3-debian (so deb822_repository can run in check mode) and reaches no Debian
# archive (air-gapped: only the site's mirrors, here none yet): apt has no candidate for any Slurm package until
# the mirror is added and its lists fetched. This part runs for real on the throw-away node.
_AIR_GAPPED = """
- name: Make the fresh node an air-gapped one with python3-debian
  hosts: fresh
  gather_facts: false
  tasks:
    - name: Install python3-debian
      ansible.builtin.apt:
        name: python3-debian
        state: present
        install_recommends: false
      check_mode: false
    - name: Forget the Debian archive's package lists
      ansible.builtin.shell: rm -f /var/lib/apt/lists/*_Packages* && apt-get clean
      changed_when: false
      check_mode: false
"""


def _fresh(run):
    """The fresh node's name and its recap."""
    (name,) = [host for host in recap(run) if host.startswith("molecule-fresh-")]
    return name, recap(run)[name]


def _out(run):
    return " ".join(run.stdout.split())


def _task(out, name):
    """What the role's task or handler `name` reported: "" when no host ran it (with display_skipped_hosts off its
    banner is not shown), "skipping: [...]" or the hosts' results otherwise."""
    match = re.search(r"(?:TASK|RUNNING HANDLER) \[gpufleet\.cluster\.slurm : " + re.escape(name)
                      + r"\] \**(.*?)(?= TASK \[| RUNNING HANDLER \[| PLAY RECAP)", out)
    return match.group(1) if match else ""


def _not_run(out, *names):
    """None of these tasks ran on any host (skipped, or no banner at all)."""
    for name in names:
        assert not re.search(r"\b(ok|changed|fatal|failed): \[", _task(out, name)), (name, _task(out, name))


# A compute node joining the running cluster is the e2e's: site.yml --check on its gpu03 before it joins, with what
# the slurm role says there checked by tests/e2e/check_log.py (fresh-check).


def test_check_mode_on_a_fresh_controller_and_accounting_node(tmp_path):
    """A new cluster's controller, accounting host and GPU node: the key would be made here, the state directory, the
    Slurm files and slurmdbd.conf written, and the packages installed, then MariaDB, slurmdbd and slurmctld
    started and the accounting database created; no task asks MariaDB, which is not there."""
    run = check_on_fresh_node(_DRIVER_PLAY.format(vars=_HEAD_VARS), _HEAD_GROUPS, tmp_path)
    name, result = _fresh(run)
    out = _out(run)
    assert result["failed"] == 0 and result["changed"] > 0, out[-3000:]
    # The memlock the node has is below rdma_memlock_min_kib: the rdma preflight takes what common would write.
    assert re.search(r"Check mode: the common role would write memlock 8192 on " + re.escape(name) + r" \(.*?\) and "
                     r"writes nothing in check mode, so the check applies after common's write", out), out[-3000:]
    # No /dev/nvidia* on the node: the slurm preflight says what the driver role would bring instead of refusing.
    assert (f"Check mode: {name} has no NVIDIA driver yet and lacks /dev/nvidia0-7; the gpufleet.cluster.nvidia_driver "
            "role would install the driver in this run (before this role), and /dev/nvidia0-7 appear once its kernel "
            "module loads.") in out, out[-3000:]
    assert f"changed: [{name}]" in _task(out, "Packages | Install what this host's part needs (and nothing more)")
    assert (f"Check mode: slurmctld, slurm-client, munge, slurmdbd, mariadb-server, python3-pymysql, slurmd not "
            f"installed on {name} yet; a real run installs them, then enables and starts munge, mariadb, slurmdbd, "
            "slurmctld, slurmd and creates the accounting database and its user.") in out, out[-3000:]
    assert f"changed: [{name}]" in _task(out, "Munge | Keep the cluster's key on the primary controller, creating it once")
    assert f"Check mode: slurmdbd does not run on {name} yet, so accounting cannot be read." in out, out[-3000:]
    for task in ("Config | Create the controller's state directory", "Config | Write the Slurm files this host reads",
                 "Dbd | Write slurmdbd.conf (it holds the database password)"):
        assert f"changed: [{name}]" in _task(out, task), task
    # The backups: systemd reads the schedule, the script and units would be written; no timer exists to start yet.
    assert f"ok: [{name}]" in _task(out, "Preflight | Read slurm_backup_schedule with systemd's own parser")
    assert f"changed: [{name}]" in _task(out, "Backup | Write the backup script, its services and their timers")
    _not_run(out, "Backup | Enable and start the timers")
    _not_run(out, "Munge | Restart munge on the primary controller when its key was just created",
             "Munge | Enable and start munge", "Dbd | Enable and start MariaDB", "Dbd | Create the accounting database",
             "Dbd | Create the accounting database user",
             "Dbd | Enable and start slurmdbd (restart it when its configuration changed)",
             "Controller | Enable and start slurmctld", "Restart slurmdbd", "Restart slurmctld",
             "Policy | Accounts, users and QOS in the accounting database")


def test_check_mode_on_a_fresh_node_installing_from_the_mirror(tmp_path):
    """slurm_package_source: repository on a node without python3-debian: deb822_repository cannot run, so the
    run says it would install python3-debian, add the mirror's deb822 source, refresh the lists and install the
    client from it."""
    run = check_on_fresh_node(_HEAD_FACTS + _ROLE_PLAY.format(vars=_MIRROR_VARS), ["cluster", "login_nodes"],
                              tmp_path, network="molecule-slurm", also=[HEAD])
    name, result = _fresh(run)
    out = _out(run)
    assert result["failed"] == 0 and result["changed"] > 0, out[-3000:]
    assert f"changed: [{name}]" in _task(out, "Packages | Install what writes a deb822 repository (python3-debian)")
    assert (f"Check mode: {name} has no Slurm repository yet; a real run would install python3-debian, add the Slurm "
            "repository site-slurm-mirror (file:/srv/slurm-mirror) as /etc/apt/sources.list.d/site-slurm-mirror.sources, "
            "refresh the package lists and install slurm-client, munge from it;") in out, out[-3000:]
    assert (f"Check mode: slurm-client, munge not installed on {name} yet; a real run installs them, then enables and "
            "starts munge.") in out
    _not_run(out, "Packages | Add the Slurm repository the user names",
             "Packages | Refresh the package lists (the repository changed, or its lists are missing)",
             "Packages | Install what this host's part needs (and nothing more)", "Munge | Enable and start munge")


def test_check_mode_on_an_air_gapped_node_with_python3_debian(tmp_path):
    """The same with python3-debian there and no other archive: deb822_repository says it would add the source;
    apt, which has no candidate for slurm-client until the mirror's lists are fetched, is not asked (it failed
    with "No package matching 'slurm-client' is available" before)."""
    run = check_on_fresh_node(_AIR_GAPPED + _HEAD_FACTS + _ROLE_PLAY.format(vars=_MIRROR_VARS),
                              ["cluster", "login_nodes"], tmp_path, network="molecule-slurm", also=[HEAD])
    name, result = _fresh(run)
    out = _out(run)
    assert result["failed"] == 0 and result["changed"] > 0, out[-3000:]
    assert "No package matching" not in out
    assert f"ok: [{name}]" in _task(out, "Packages | Install what writes a deb822 repository (python3-debian)")
    assert f"changed: [{name}]" in _task(out, "Packages | Add the Slurm repository the user names")
    assert (f"Check mode: {name} has no Slurm repository yet; a real run would add the Slurm repository "
            "site-slurm-mirror (file:/srv/slurm-mirror) as /etc/apt/sources.list.d/site-slurm-mirror.sources, "
            "refresh the package lists and install slurm-client, munge from it;") in out, out[-3000:]
    _not_run(out, "Packages | Refresh the package lists (the repository changed, or its lists are missing)",
             "Packages | Install what this host's part needs (and nothing more)", "Munge | Enable and start munge")
