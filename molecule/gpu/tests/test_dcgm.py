# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the dcgm role leaves on a lab GPU node (no NVIDIA repository, no GPU), read from the node itself.

Molecule scenario gpu's gpu01 (the driver role runs on its other two nodes): gpu_tuning converges first on it, as
in site.yml, and its runs against a stand-in nvidia-smi and /dev/nvidiactl remove them before the roles converge,
so dcgm sees a node without a driver."""
import os
import re
import sys

import pytest
import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))), "tests", "molecule"))
from lab_host import hosts  # noqa: E402  (shared by the scenarios)

testinfra_hosts = hosts("gpu_tuning_dcgm_nodes")  # gpu01, over SSH (tests/molecule/lab_host.py)

CSV = "/etc/dcgm-exporter/gpufleet-counters.csv"
EXPORTER_UNIT = "/etc/systemd/system/nvidia-dcgm-exporter.service"
HEALTH_UNIT = "/etc/systemd/system/gpufleet-dcgm-health-watches.service"
# The role's default list has 32 metrics; the scenario adds 2.
DEFAULT_COUNT, EXTRA_COUNT = 32, 2


def _rows(text):
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


def test_counters_file_mode_and_header(host):
    csv = host.file(CSV)
    assert csv.user == "root" and csv.group == "root" and csv.mode == 0o644
    text = csv.content_string
    assert text.startswith("#")  # ansible_managed
    assert "# Format\n" in text and "# DCGM FIELD, Prometheus metric type, help message\n" in text
    assert f"# dcgm-exporter's metrics ({DEFAULT_COUNT + EXTRA_COUNT}):" in text
    directory = host.file("/etc/dcgm-exporter")
    assert directory.is_directory and directory.mode == 0o755


def test_counters_file_has_default_and_extra_metrics_in_order(host):
    text = host.file(CSV).content_string
    rows = _rows(text)
    assert len(rows) == DEFAULT_COUNT + EXTRA_COUNT
    # Names padded to the longest (DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS, 39 characters) + comma + one space.
    assert "DCGM_FI_DEV_GPU_UTIL,                    gauge,   GPU utilisation (in %).\n" in text
    assert "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL,           counter, " in text
    assert "DCGM_FI_DRIVER_VERSION,                  label,   Driver version.\n" in text
    assert "DCGM_FI_PROF_PIPE_FP64_ACTIVE,           gauge,   Ratio of cycles the FP64 pipes are active.\n" in text
    # The extra metrics come last, under their own heading.
    assert text.index("# dcgm_exporter_extra_metrics\n") > text.index("DCGM_FI_DRIVER_VERSION,")
    assert rows[-1].startswith("DCGM_FI_PROF_PIPE_FP64_ACTIVE,")
    assert rows[-2].startswith("DCGM_FI_DEV_PCIE_LINK_GEN,")


def test_counters_file_reads_as_dcgm_exporter_reads_it(host):
    names = []
    for row in _rows(host.file(CSV).content_string):
        fields = [field.strip() for field in row.split(",")]
        assert len(fields) == 3, row
        name, kind, text = fields
        assert re.match(r"^DCGM_FI_[A-Z0-9_]+$", name) and kind in ("gauge", "counter", "label") and text
        names.append(name)
    assert len(names) == len(set(names))
    for wanted in ("DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_MEM_CLOCK", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_GPU_TEMP",
                   "DCGM_FI_DEV_MEMORY_TEMP", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_XID_ERRORS",
                   "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", "DCGM_FI_DEV_ROW_REMAP_FAILURE",
                   "DCGM_FI_DEV_ROW_REMAP_PENDING", "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL",
                   "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "DCGM_FI_PROF_SM_ACTIVE",
                   "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "DCGM_FI_PROF_DRAM_ACTIVE"):
        assert wanted in names


def test_exporter_user_and_group(host):
    user = host.user("dcgm-exporter")
    assert user.exists and user.group == "dcgm-exporter"
    assert user.uid < 1000 and user.shell == "/usr/sbin/nologin" and user.home == "/nonexistent"
    assert not host.file("/nonexistent").exists
    assert host.group("dcgm-exporter").exists


def test_exporter_unit_file(host):
    unit = host.file(EXPORTER_UNIT)
    assert unit.user == "root" and unit.mode == 0o644
    text = unit.content_string
    assert text.startswith("#")
    assert "\nUser=dcgm-exporter\nGroup=dcgm-exporter\n" in text
    # The node's cluster address (gpufleet_ip), not every interface; basic auth through the web configuration.
    assert ("\nExecStart=/usr/bin/dcgm-exporter -f /etc/dcgm-exporter/gpufleet-counters.csv -a 192.0.2.11:9400 "
            "-c 30000 -r localhost:5555 --web-config-file /etc/dcgm-exporter/web-config.yml\n") in text
    assert "\nWants=nvidia-dcgm.service\n" in text and "\nWantedBy=multi-user.target\n" in text
    assert "\nPartOf=nvidia-dcgm.service\n" in text  # restarted with the host engine (a DCGM update)
    # systemd itself reads it: the values it parsed, not the file's text.
    shown = host.check_output("systemctl show -p User -p LoadState -p UnitFileState nvidia-dcgm-exporter.service")
    assert "LoadState=loaded" in shown and "User=dcgm-exporter" in shown


def test_web_config_holds_the_hash_readable_by_root_and_the_exporter_only(host):
    web = host.file("/etc/dcgm-exporter/web-config.yml")
    assert web.user == "root" and web.group == "dcgm-exporter" and web.mode == 0o640
    # Read as the exporter reads it: YAML, exporter-toolkit's keys; the bcrypt hash, no password.
    loaded = yaml.safe_load(web.content_string)
    assert loaded == {"basic_auth_users": {
        "prometheus": "$2b$10$Fjw0dHm9c/EazRyF0kJ71O6TgPKtH1CcfIqEB5q2WdqhiGv4c3KxO"}}
    assert "gpufleet-lab-metrics" not in web.content_string
    # Python's crypt on the node (libxcrypt) checks the hash against the password, as the exporter's bcrypt does.
    check = ("python3 -W ignore -c 'import crypt, sys; h = sys.argv[1]; "
             "sys.exit(0 if crypt.crypt(\"gpufleet-lab-metrics\", h) == h else 1)' "
             "'$2b$10$Fjw0dHm9c/EazRyF0kJ71O6TgPKtH1CcfIqEB5q2WdqhiGv4c3KxO'")
    assert host.run(check).rc == 0


def test_nothing_listens_off_loopback_on_the_host_engine_port(host):
    """The role's own check read /proc/net/tcp; read it again here with ss (iproute2), as an operator would."""
    listening = host.check_output("ss -Hltn sport = :5555")
    assert all(line.split()[3].startswith(("127.", "[::1]")) for line in listening.splitlines()), listening


def test_health_watch_unit_file(host):
    unit = host.file(HEALTH_UNIT)
    assert unit.user == "root" and unit.mode == 0o644
    text = unit.content_string
    assert "\nBindsTo=nvidia-dcgm.service\nAfter=nvidia-dcgm.service\n" in text
    assert "\nType=oneshot\nRemainAfterExit=yes\n" in text
    assert "\nExecStart=/usr/bin/dcgmi health --host localhost:5555 -s a\n" in text
    assert "\nWantedBy=nvidia-dcgm.service\n" in text
    assert "LoadState=loaded" in host.check_output("systemctl show -p LoadState gpufleet-dcgm-health-watches.service")


@pytest.mark.parametrize("unit, binary, expected", [
    (EXPORTER_UNIT, "/usr/bin/dcgm-exporter", []),
    # BindsTo= is a hard dependency: without the DCGM package its nvidia-dcgm.service is missing too.
    (HEALTH_UNIT, "/usr/bin/dcgmi",
     ["gpufleet-dcgm-health-watches.service: Failed to create gpufleet-dcgm-health-watches.service/start: "
      "Unit nvidia-dcgm.service not found."]),
])
def test_units_verify_apart_from_what_the_missing_packages_bring(host, unit, binary, expected):
    # systemd-analyze reads the unit as systemd would; the only complaints allowed are the ones the uninstalled
    # packages explain: the binary, and (health watches) the host engine's unit.
    result = host.run(f"systemd-analyze verify {unit}")
    complaints = sorted(line for line in (result.stdout + result.stderr).splitlines() if line.strip())
    name = os.path.basename(unit)
    assert complaints == sorted(expected + [f"{name}: Command {binary} is not executable: No such file or directory"])


def test_units_not_enabled_without_their_binaries(host):
    assert not host.file("/usr/bin/dcgm-exporter").exists and not host.file("/usr/bin/dcgmi").exists
    for unit in ("nvidia-dcgm-exporter.service", "gpufleet-dcgm-health-watches.service"):
        state = host.run(f"systemctl is-enabled {unit}").stdout.strip()
        assert state == "disabled", (unit, state)
        assert not host.service(unit).is_running
    assert not host.file("/etc/systemd/system/nvidia-dcgm.service.wants").exists
    # The package's own unit is not there either: nothing was installed.
    assert not host.package("datacenter-gpu-manager-4-core").is_installed
    assert host.run("systemctl cat nvidia-dcgm.service").rc != 0


sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))), "tests", "molecule"))
from fresh_node import check_on_fresh_node, recap  # noqa: E402  (the shared helper lives outside this scenario)

_FRESH_PLAY = """
- name: The dcgm role in check mode on a node never converged, packages on
  hosts: fresh
  gather_facts: true
  gather_subset: [min]
  roles:
    - role: gpufleet.cluster.dcgm
      vars:
        dcgm_install_packages: true
        gpufleet_ip: 192.0.2.12  # check mode: the exporter's address is rendered, nothing starts
"""


def test_check_mode_on_a_fresh_node_says_what_it_would_add_and_install(tmp_path):
    """--check on a node nothing has converged, with the packages on: NVIDIA's repository is not there (the
    nvidia_driver role only pretends to add it in check mode), so apt has no candidate for DCGM. The run must not
    fail: it says it would add the repository and install the packages, and reports changes."""
    run = check_on_fresh_node(_FRESH_PLAY, ["cluster", "gpu_nodes"], tmp_path,
                              devices=[f"/dev/null:/dev/nvidia{i}" for i in range(8)])
    out = " ".join(run.stdout.split())
    assert "Check mode: apt on molecule-fresh-" in out and "has no candidate yet for datacenter-gpu-manager-4-core" in out
    assert ("A real run would add the repository /etc/apt/sources.list.d/gpufleet-nvidia-cuda.sources (the "
            "nvidia_driver role, before this one), refresh the package lists and install "
            "datacenter-gpu-manager-4-core, datacenter-gpu-manager-4-cuda12") in out, out[-3000:]
    (result,) = recap(run).values()
    assert result["failed"] == 0 and result["changed"] > 0
