# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""testinfra hosts for molecule's verify tests, reached as ansible reaches them (.config/molecule/config.yml): over
SSH through tests/molecule/ssh_proxy.sh with the lab's key, one multiplexed connection per node for the whole test
session. Each command is then one SSH channel; through `podman://` it was a `podman exec` of its own (client,
conmon and runc each time), several times the CPU (docs/performance.md).

    from lab_host import host, hosts
    testinfra_hosts = hosts("gpu_nodes")      # the scenario's nodes in that inventory group
    host("molecule-common-head")              # one node by name

The master connections are closed when the test session ends.
"""
from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile
from typing import List

import testinfra
import testinfra.utils.ansible_runner

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_DIR = tempfile.mkdtemp(prefix="gpufleet-ssh-")
_CONFIG = os.path.join(_DIR, "ssh_config")
_USED: List[str] = []

with open(_CONFIG, "w", encoding="utf-8") as _fh:
    _fh.write("Host *\n"
              "  User root\n"
              f"  IdentityFile {REPO}/.lab/ssh/id_ed25519\n"
              "  IdentitiesOnly yes\n"
              f"  ProxyCommand {REPO}/tests/molecule/ssh_proxy.sh %h\n"
              "  StrictHostKeyChecking no\n"
              "  UserKnownHostsFile /dev/null\n"
              "  LogLevel ERROR\n"
              "  ConnectTimeout 60\n"
              "  ControlMaster auto\n"
              f"  ControlPath {_DIR}/%C\n"
              "  ControlPersist 300\n")


def _spec(name: str) -> str:
    if name not in _USED:
        _USED.append(name)
    return f"ssh://{name}?ssh_config={_CONFIG}"


def hosts(pattern: str = "all") -> List[str]:
    """testinfra host specs for the scenario's nodes that match the inventory pattern."""
    runner = testinfra.utils.ansible_runner.AnsibleRunner(os.environ["MOLECULE_INVENTORY_FILE"])
    return [_spec(name) for name in runner.get_hosts(pattern)]


def host(name: str) -> testinfra.host.Host:
    """One node of the scenario, by its inventory (container) name."""
    return testinfra.get_host(_spec(name))


def _close() -> None:
    """Stop each master connection (by its control socket), then drop the folder."""
    for name in _USED:
        subprocess.run(["ssh", "-F", _CONFIG, "-O", "exit", name], capture_output=True, check=False, timeout=30)
    shutil.rmtree(_DIR, ignore_errors=True)


atexit.register(_close)
