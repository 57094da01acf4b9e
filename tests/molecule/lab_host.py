# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""testinfra hosts for molecule's verify tests, reached as ansible reaches them: over SSH with the connection options
of molecule's inventory (.config/molecule/config.yml: tests/molecule/ssh_proxy.sh and the lab's key), one
multiplexed connection per node for the whole test session. Each command is then one SSH channel; through `podman://` it was a `podman exec` of its own (client,
conmon and runc each time), several times the CPU (docs/performance.md).

    from lab_host import host, hosts
    testinfra_hosts = hosts("gpu_nodes")      # the scenario's nodes in that inventory group
    host("molecule-slurm-head")               # one node by name

The master connections are closed when the test session ends.
"""
from __future__ import annotations

import atexit
import functools
import os
import shlex
import shutil
import subprocess
import tempfile
from typing import Dict, List

import testinfra
import testinfra.utils.ansible_runner
import yaml

_USED: List[str] = []


def connection_options() -> Dict[str, str]:
    """How molecule reaches the scenario's nodes: the ansible_* options its inventory gives every host (from
    .config/molecule/config.yml, the one place they are written)."""
    with open(os.environ["MOLECULE_INVENTORY_FILE"], encoding="utf-8") as fh:
        options = next(iter(yaml.safe_load(fh)["all"]["hosts"].values()))
    return {key: value for key, value in options.items() if key.startswith("ansible_")}


@functools.lru_cache(maxsize=None)
def _ssh_config() -> str:
    """An ssh_config with those options (user, key, each `-o Key=Value` of ansible_ssh_common_args), and one
    multiplexed master connection per node in a private folder; made once, removed at exit with the masters."""
    options = connection_options()
    lines = ["Host *", f"  User {options['ansible_user']}", f"  IdentityFile {options['ansible_ssh_private_key_file']}",
             "  IdentitiesOnly yes"]
    args = shlex.split(options.get("ansible_ssh_common_args", ""))
    assert len(args) % 2 == 0 and all(flag == "-o" and "=" in setting for flag, setting in zip(args[::2], args[1::2])), (
        f"ansible_ssh_common_args must be '-o Key=Value' pairs to become an ssh_config, got {args!r}")
    lines += ["  %s %s" % tuple(setting.split("=", 1)) for setting in args[1::2]]
    folder = tempfile.mkdtemp(prefix="gpufleet-ssh-")
    # 60 s: the first connection waits for the host keys a container makes on first boot (ssh_proxy.sh).
    lines += ["  ConnectTimeout 60", "  ControlMaster auto", f"  ControlPath {folder}/%C", "  ControlPersist 300"]
    path = os.path.join(folder, "ssh_config")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    atexit.register(_close, path)
    return path


def _spec(name: str) -> str:
    if name not in _USED:
        _USED.append(name)
    return f"ssh://{name}?ssh_config={_ssh_config()}"


def hosts(pattern: str = "all") -> List[str]:
    """testinfra host specs for the scenario's nodes that match the inventory pattern."""
    runner = testinfra.utils.ansible_runner.AnsibleRunner(os.environ["MOLECULE_INVENTORY_FILE"])
    return [_spec(name) for name in runner.get_hosts(pattern)]


def host(name: str) -> testinfra.host.Host:
    """One node of the scenario, by its inventory (container) name."""
    return testinfra.get_host(_spec(name))


def _close(config: str) -> None:
    """Stop each master connection (by its control socket), then drop the folder."""
    for name in _USED:
        subprocess.run(["ssh", "-F", config, "-O", "exit", name], capture_output=True, check=False, timeout=30)
    shutil.rmtree(os.path.dirname(config), ignore_errors=True)
