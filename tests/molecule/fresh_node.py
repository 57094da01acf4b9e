# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Plays run from a molecule scenario's verify tests, with the scenario's inventory and group_vars:
- `check_on_fresh_node`: `ansible-playbook --check` on a node never converged, a container of the lab image
  started for the test (in the scenario's groups, so it gets their variables) and removed after it;
- `run_play`: a real (or check) run on the scenario's own, converged nodes.
Both return the finished run; a failed run fails the test with the end of its output."""
import os
import re
import subprocess
import time
import uuid

import yaml
from lab_host import connection_options  # a fresh node is reached as the scenario's nodes are

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IMAGE = "localhost/gpufleet-lab-debian12:latest"
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_RECAP = re.compile(r"^(\S+)\s+: ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", re.MULTILINE)


def _inventory_dir():
    return os.path.dirname(os.environ["MOLECULE_INVENTORY_FILE"])


def _playbook(args, play, tmp_path, expect_rc=0):
    playbook = tmp_path / f"play-{uuid.uuid4().hex[:8]}.yml"
    playbook.write_text(play, encoding="utf-8")
    # molecule may set ANSIBLE_FORCE_COLOR for the verifier, and ansible lets it win over ANSIBLE_NOCOLOR.
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.join(REPO, "collections"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_FORCE_COLOR="0", ANSIBLE_STDOUT_CALLBACK="default")
    run = subprocess.run(["ansible-playbook", *args, str(playbook)], capture_output=True, text=True, env=env,
                         check=False, timeout=900)
    assert run.returncode == expect_rc, run.stdout[-6000:] + run.stderr[-2000:]
    return run


def recap(run):
    """{host: {'ok': n, 'changed': n, 'failed': n}} from the run's PLAY RECAP (colour codes, if any, removed)."""
    return {m.group(1): {"ok": int(m.group(2)), "changed": int(m.group(3)), "failed": int(m.group(5))}
            for m in _RECAP.finditer(_ANSI.sub("", run.stdout))}


def run_play(play, tmp_path, check=False, extra_args=()):
    """The play on the scenario's own nodes, for real unless check."""
    return _playbook(["-i", _inventory_dir(), *(["--check"] if check else []), *extra_args], play, tmp_path)


def check_on_fresh_node(play, groups, tmp_path, devices=(), network=None, also=()):
    """--check of the play (its hosts: fresh) on a container of the lab image that nothing has converged, member
    of the scenario's groups; `also`: scenario nodes the run may reach too (a play of the text gathering their
    facts). The container is removed whatever happens."""
    name = f"molecule-fresh-{uuid.uuid4().hex[:8]}"
    inventory = tmp_path / "fresh.yml"
    inventory.write_text(yaml.safe_dump({"all": {"children": {
        **{group: {"hosts": {name: None}} for group in groups},
        "fresh": {"hosts": {name: connection_options()}}}}}), encoding="utf-8")
    command = ["podman", "run", "-d", "--name", name, "--hostname", name, "--systemd=always",
               *(["--network", network] if network else []),
               *[arg for device in devices for arg in ("--device", device)], IMAGE, "/lib/systemd/systemd"]
    subprocess.run(command, check=True, capture_output=True, text=True, timeout=120)
    try:
        for _attempt in range(60):  # systemd up far enough for systemctl, as molecule's create waits for
            state = subprocess.run(["podman", "exec", name, "systemctl", "is-system-running"], capture_output=True,
                                   text=True, check=False).stdout.strip()
            if state in ("running", "degraded"):
                break
            time.sleep(1)
        limit = ",".join([name, *also])
        return _playbook(["-i", _inventory_dir(), "-i", str(inventory), "--check", "--limit", limit], play, tmp_path)
    finally:
        subprocess.run(["podman", "rm", "-f", "-t", "2", name], capture_output=True, check=False, timeout=120)
