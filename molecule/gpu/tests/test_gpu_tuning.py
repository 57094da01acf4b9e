# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The gpu_tuning role on a lab GPU node (molecule scenario gpu's gpu01, where dcgm converges after it, as in
site.yml; the driver role runs on the scenario's other two nodes): boot script, JSON settings, unit, and the steps it
says it skips.

The lab has no GPU and no driver. The last tests stand a recorded node in for them: a stand-in nvidia-smi
that answers the GPU query with the UUIDs of the recorded 8x H100 `nvidia-smi -q` and logs every call, and a
/dev/nvidiactl file, so systemd runs the unit exactly as at boot.
"""
import hashlib
import json
import os
import re
import shlex
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))), "tests", "molecule"))
from lab_host import hosts  # noqa: E402

testinfra_hosts = hosts("gpu_tuning_dcgm_nodes")  # gpu01, over SSH (tests/molecule/lab_host.py)

REPO = os.environ.get("MOLECULE_PROJECT_DIRECTORY", os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SCRIPT = "/usr/local/sbin/gpufleet-gpu-tuning"
CONFIG = "/etc/gpufleet/gpu-tuning.json"
UNIT = "gpufleet-gpu-tuning.service"
UNIT_FILE = "/etc/systemd/system/" + UNIT
H100 = "NVIDIA H100 80GB HBM3"
RECORDED_Q = os.path.join(REPO, "tests", "fixtures", "reference", "outputs", "nvidia-smi",
                          "nvidia-smi-q.h100-80gb-hbm3-x8.535.183.01.gpud.txt")


def test_unit_file_says_when_and_what_to_run(host):
    unit = host.file(UNIT_FILE)
    assert unit.user == "root" and unit.mode == 0o644
    text = unit.content_string
    assert text.startswith("#\n# Ansible managed\n#\n")
    directives = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert directives == [
        "[Unit]",
        "Description=gpufleet GPU tuning: persistence mode, power limits and clocks",
        "Documentation=https://github.com/gpufleet/gpufleet.cluster/blob/main/docs/gpu-tuning.md",
        "After=nvidia-persistenced.service",
        "Wants=nvidia-persistenced.service",
        "Before=slurmd.service",
        "ConditionPathExists=/dev/nvidiactl",
        "[Service]",
        "Type=oneshot",
        "RemainAfterExit=yes",
        "ExecStart=/usr/local/sbin/gpufleet-gpu-tuning --config /etc/gpufleet/gpu-tuning.json",
        "TimeoutStartSec=600",
        "[Install]",
        "WantedBy=multi-user.target",
    ]


def test_unit_is_enabled_for_boot_but_not_started_in_the_lab(host):
    assert host.check_output("systemctl is-enabled %s" % UNIT) == "enabled"
    assert host.file("/etc/systemd/system/multi-user.target.wants/" + UNIT).linked_to == UNIT_FILE
    assert host.check_output("systemctl show --property=ActiveState --value %s" % UNIT) == "inactive"


def test_systemd_analyze_verify_accepts_the_unit(host):
    # verify loads the unit, checks every directive, that ExecStart's program exists and is executable, and that
    # the units it is ordered against may be missing (nvidia-persistenced and slurmd are not in the lab).
    result = host.run("systemd-analyze verify %s" % UNIT_FILE)
    assert result.rc == 0, result.stderr
    assert "gpufleet-gpu-tuning" not in result.stdout + result.stderr


def test_script_is_the_roles_file_and_runs_on_the_nodes_python(host):
    script = host.file(SCRIPT)
    assert script.user == "root" and script.group == "root" and script.mode == 0o755
    with open(os.path.join(REPO, "roles", "gpu_tuning", "files", "gpufleet-gpu-tuning"), "rb") as handle:
        assert script.sha256sum == hashlib.sha256(handle.read()).hexdigest()
    assert host.run("%s --help" % SCRIPT).rc == 0


def test_settings_file_holds_the_h100_profile(host):
    settings = host.file(CONFIG)
    assert settings.user == "root" and settings.mode == 0o644
    assert host.file("/etc/gpufleet").mode == 0o755
    doc = json.loads(settings.content_string)
    assert doc.pop("_comment") == ("Managed by Ansible (gpufleet.cluster.gpu_tuning), read at boot by "
                                   "/usr/local/sbin/gpufleet-gpu-tuning; local changes are overwritten.")
    assert doc == {
        "version": 1,
        "persistence_mode": True,
        "profiles": {H100: {"power_limit_w": 700, "application_clocks": [2619, 1980], "locked_clocks": None}},
        "node_profile": None,
    }
    assert host.check_output("%s --check-config" % SCRIPT) == (
        "%s is valid: NVIDIA H100 80GB HBM3: persistence mode on, power limit 700 W, application clocks "
        "2619,1980 MHz" % CONFIG)


def test_steps_the_lab_cannot_take_are_recorded_with_their_reasons(host):
    # The role prints these reasons every run (in the report of its preflight check) and keeps
    # them in its local facts, which is what can be read back here.
    facts = json.loads(host.file("/etc/ansible/facts.d/gpu_tuning.fact").content_string)
    assert facts == {
        "config_file": CONFIG,
        "script": SCRIPT,
        "unit": UNIT,
        "not_done": {
            "apply_now": "lab nodes are containers without a GPU, a driver or NVML",
            "install_packages": "the lab's apt sources list only main; python3-pynvml is in contrib and needs "
                                "libnvidia-ml1 from non-free",
            "start_service": "lab nodes have no /dev/nvidiactl and no nvidia-smi; the unit is enabled and its "
                             "condition keeps it idle",
        },
    }
    # And they were honoured: nothing installed, nothing set through NVML.
    assert not host.package("python3-pynvml").is_installed
    assert not host.file("/var/lib/gpufleet/gpu-locked-clocks.json").exists


def test_without_a_driver_the_script_fails_clearly(host):
    result = host.run(SCRIPT)
    assert result.rc == 1
    assert result.stdout == ""
    assert result.stderr.startswith("FAIL nvidia-smi not found in /usr/local/sbin:/usr/local/bin:")


def test_without_nvidiactl_the_unit_stays_idle(host):
    assert host.run("systemctl start %s" % UNIT).rc == 0
    shown = host.check_output("systemctl show --property=ConditionResult,ActiveState %s" % UNIT)
    assert sorted(shown.splitlines()) == ["ActiveState=inactive", "ConditionResult=no"]


# ---------------------------------------------------------------------------------------------
# The unit at boot, with a recorded node standing in for the GPUs
# ---------------------------------------------------------------------------------------------
FAKE_LOG = "/run/gpufleet-fake-nvidia-smi.log"
FAKE_REFUSE = "/run/gpufleet-fake-nvidia-smi.refuse-pl"
FAKE_SMI = r"""#!/bin/sh
# Stand-in nvidia-smi for the molecule gpu scenario's verify of gpu_tuning: logs its arguments, answers the GPU query with a
# recorded node, and refuses -pl on the GPU named in %(refuse)s like a driver without the rights.
echo "$*" >> %(log)s
if [ "$*" = "--query-gpu=index,uuid,name --format=csv,noheader" ]; then
    printf '%%s' '%(answer)s'
    exit 0
fi
if [ "$3" = "-pl" ] && [ -e %(refuse)s ] && [ "$2" = "$(cat %(refuse)s)" ]; then
    echo "Failed to set power management limit for GPU 00000000:53:00.0: Insufficient Permissions"
    exit 4
fi
echo "All done."
"""


def _recorded_uuids():
    with open(RECORDED_Q, encoding="utf-8") as handle:
        return re.findall(r"^    GPU UUID\s+: (\S+)$", handle.read(), re.M)


@pytest.fixture
def stand_in_node(host):
    uuids = _recorded_uuids()
    answer = "".join("%d, %s, %s\n" % (index, uuid, H100) for index, uuid in enumerate(uuids))
    fake = FAKE_SMI % {"log": FAKE_LOG, "refuse": FAKE_REFUSE, "answer": answer}
    host.check_output("printf '%%s' %s > /usr/local/bin/nvidia-smi && chmod 0755 /usr/local/bin/nvidia-smi"
                      % shlex.quote(fake))
    host.check_output("touch /dev/nvidiactl && rm -f %s %s" % (FAKE_LOG, FAKE_REFUSE))
    yield uuids
    host.run("systemctl stop %s; systemctl reset-failed %s" % (UNIT, UNIT))
    host.run("rm -f /usr/local/bin/nvidia-smi /dev/nvidiactl %s %s" % (FAKE_LOG, FAKE_REFUSE))


def _journal(host, *options):
    """What this run of the unit logged (by its invocation id), message text only."""
    invocation = host.check_output("systemctl show --property=InvocationID --value %s" % UNIT)
    for _attempt in range(20):
        out = host.check_output("journalctl --no-pager --output=cat _SYSTEMD_INVOCATION_ID=%s %s"
                                % (invocation, " ".join(options)))
        if "applied on" in out or "did not apply" in out:
            return out.splitlines()
        time.sleep(0.25)  # journald may still be writing
    return out.splitlines()


def test_unit_applies_the_profile_to_every_gpu(host, stand_in_node):
    uuids = stand_in_node
    assert host.run("systemctl start %s" % UNIT).rc == 0
    assert host.check_output("systemctl show --property=ActiveState --value %s" % UNIT) == "active"
    expected = ["--query-gpu=index,uuid,name --format=csv,noheader"]
    for uuid in uuids:
        expected += ["-i %s -pm 1" % uuid, "-i %s -pl 700" % uuid, "-i %s -ac 2619,1980" % uuid]
    assert host.file(FAKE_LOG).content_string.splitlines() == expected
    log = _journal(host)
    assert log[0] == "8 GPUs: 8 x NVIDIA H100 80GB HBM3"
    assert log[1] == ("GPU 0 (%s, %s): set persistence mode on, power limit 700 W, application clocks 2619,1980 MHz"
                      % (uuids[0], H100))
    assert log[-1] == "24 settings applied on 8 GPUs"


def test_a_refused_setting_fails_the_unit_and_is_logged_as_an_error(host, stand_in_node):
    uuids = stand_in_node
    host.check_output("printf '%%s' %s > %s" % (uuids[0], FAKE_REFUSE))
    assert host.run("systemctl start %s" % UNIT).rc != 0
    assert sorted(host.check_output("systemctl show --property=ActiveState,Result %s" % UNIT).splitlines()) == \
        ["ActiveState=failed", "Result=exit-code"]
    # Every other setting still ran: 1 query + 8 GPUs x 3.
    assert len(host.file(FAKE_LOG).content_string.splitlines()) == 25
    # journald took the script's priorities: only the failures are errors.
    assert _journal(host, "--priority=err") == [
        "FAIL GPU 0 (%s, %s): power limit 700 W: nvidia-smi exit 4 (no permission): Failed to set power management "
        "limit for GPU 00000000:53:00.0: Insufficient Permissions" % (uuids[0], H100),
        "FAIL 1 of 24 settings did not apply: GPU 0 power limit 700 W",
    ]


# Check mode on a node nothing has converged, with the packages on (it says it would refresh the lists and install,
# and does not fail): the e2e's joining GPU node, tests/e2e/join.sh and tests/e2e/check_log.py fresh-check.
