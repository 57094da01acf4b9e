# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run a play in check mode against this scenario's node, from a verify test: for the check-mode paths a
converge cannot show (a fresh node's vendor repository, a build that has not happened)."""
import os
import subprocess

_INVENTORY = os.environ["MOLECULE_INVENTORY_FILE"]
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def run_check(play, tmp_path):
    """ansible-playbook --check on the play's text with the scenario's inventory and group_vars; its result."""
    playbook = tmp_path / "check.yml"
    playbook.write_text(play, encoding="utf-8")
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.join(REPO, "collections"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_STDOUT_CALLBACK="default")
    run = subprocess.run(["ansible-playbook", "--check", "-i", os.path.dirname(_INVENTORY), str(playbook)],
                         capture_output=True, text=True, env=env, check=False, timeout=600)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    return run
