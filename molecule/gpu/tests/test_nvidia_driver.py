# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The nvidia_driver role, read from each node: apt's own view of the sources and the pin, dpkg's view of the
packages, modprobe's view of the blacklist, systemd's view of the units.

molecule-gpu-distro installed Debian's driver for real; molecule-gpu-cuda has NVIDIA's repository configured
but no packages (the lab cannot reach NVIDIA). No mirror name is written here: the archive is read from each
node's own /etc/apt/sources.list. Molecule scenario gpu: its third node, gpu01, has gpu_tuning and dcgm and no
driver role (their own tests).
"""
import os
import re
import sys

import pytest

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(_ROOT, "collections"))
from ansible_collections.gpufleet.cluster.plugins.module_utils.apt.sources import parse_files  # noqa: E402

sys.path.insert(0, os.path.join(_ROOT, "tests", "molecule"))
from fresh_node import recap, run_play  # noqa: E402  (shared by the scenarios)
from lab_host import host, hosts  # noqa: E402

testinfra_hosts = hosts("nvidia_driver_nodes")  # the distro and cuda nodes, over SSH (tests/molecule/lab_host.py)

NONFREE = "/etc/apt/sources.list.d/gpufleet-debian-nonfree.sources"
CUDA_SOURCE = "/etc/apt/sources.list.d/gpufleet-nvidia-cuda.sources"
CUDA_KEY = "/etc/apt/keyrings/gpufleet-nvidia-cuda.asc"
PIN = "/etc/apt/preferences.d/gpufleet-nvidia-driver.pref"
BLACKLIST = "/etc/modprobe.d/gpufleet-blacklist-nouveau.conf"
PEERMEM = "/etc/modules-load.d/gpufleet-nvidia-peermem.conf"
CUDA_URI = "https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/"
# NVIDIA's CUDA repository key (cudatools <cudatools@nvidia.com>), as NVIDIA publishes it.
CUDA_FINGERPRINT = "EB693B3035CD5710E231E123A4B469963BF863CC"
COMPONENTS = ["contrib", "non-free", "non-free-firmware"]


def _kind(host):
    return host.check_output("hostname").rsplit("-", 1)[1]


def _only(host, kind):
    if _kind(host) != kind:
        pytest.skip(f"checked on the {kind} node")


def _policy(host, *packages):
    """apt-cache policy per package: candidate, installed, and [(version, priority)]."""
    out = host.check_output("apt-cache policy " + " ".join(packages))
    result = {}
    for block in re.split(r"^(?=\S)", out, flags=re.M):
        if not block.strip():
            continue
        name = block.split(":", 1)[0]
        versions = re.findall(r"^ (?:\*\*\*| {3}) (\S+) (-?\d+)$", block, flags=re.M)
        result[name] = {
            "installed": re.search(r"Installed: (\S+)", block).group(1),
            "candidate": re.search(r"Candidate: (\S+)", block).group(1),
            "versions": [(v, int(p)) for v, p in versions],
        }
    return result


def _fields(text):
    fields = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and not line.startswith("#"):
            fields[key.strip()] = value.strip()
    return fields


# ------------------------------------------------------------------------------------- apt sources
def test_nonfree_components_extend_the_archive_the_node_already_uses(host):
    written = host.file(NONFREE)
    assert written.user == "root" and written.mode == 0o644
    text = written.content_string
    assert text.startswith("#")
    own = parse_files([("/etc/apt/sources.list", host.file("/etc/apt/sources.list").content_string)])
    added = parse_files([(NONFREE, text)])
    # The lab image lists `main` for bookworm, bookworm-updates (one URI) and bookworm-security (another):
    # every (URI, suite) it uses now also has contrib, non-free and non-free-firmware, and nothing else.
    for entry in own:
        for suite in entry.suites:
            extra = [e for e in added if suite in e.suites and entry.uris[0] in e.uris]
            assert len(extra) == 1, (entry, suite)
            assert list(extra[0].components) == COMPONENTS
    assert {s for e in added for s in e.suites} == {s for e in own for s in e.suites}
    assert {u for e in added for u in e.uris} == {u for e in own for u in e.uris}


def test_apt_fetches_the_nonfree_indexes_for_every_suite(host):
    # --print-uris lists what `apt-get update` would fetch, with apt's own parsing and without the network.
    uris = host.check_output("apt-get update --print-uris")
    for suite in ("bookworm", "bookworm-updates", "bookworm-security"):
        for component in COMPONENTS:
            assert f"/dists/{suite}/{component}/binary-amd64/Packages" in uris, (suite, component)


def test_cuda_repository_source_and_key(host):
    _only(host, "cuda")
    source = host.file(CUDA_SOURCE)
    assert source.user == "root" and source.mode == 0o644
    fields = _fields(source.content_string)
    assert fields == {"Types": "deb", "URIs": CUDA_URI, "Suites": "/", "Signed-By": CUDA_KEY}
    key = host.file(CUDA_KEY)
    assert key.user == "root" and key.mode == 0o644
    assert key.content_string.startswith("-----BEGIN PGP PUBLIC KEY BLOCK-----")
    colons = host.check_output(f"gpg --batch --no-default-keyring --with-colons --show-keys {CUDA_KEY}")
    assert re.findall(r"^fpr:+([0-9A-F]+):", colons, flags=re.M) == [CUDA_FINGERPRINT]
    uris = host.check_output("apt-get update --print-uris")
    assert f"'{CUDA_URI}InRelease'" in uris and f"'{CUDA_URI}Packages.xz'" in uris
    # The keyring package's own source would clash (Signed-By); the role writes the only one.
    assert host.run("grep -rl developer.download.nvidia.com /etc/apt/sources.list.d").stdout.split() == [CUDA_SOURCE]


def test_distribution_node_has_no_nvidia_repository(host):
    _only(host, "distro")
    assert not host.file(CUDA_SOURCE).exists and not host.file(CUDA_KEY).exists


# ---------------------------------------------------------------------------------------- the pin
def test_pin_file_holds_the_branch(host):
    pin = host.file(PIN)
    assert pin.user == "root" and pin.mode == 0o644
    records = [_fields(r) for r in re.split(r"\n\s*\n", pin.content_string) if "Package:" in r]
    branch = {"distro": "535", "cuda": "580"}[_kind(host)]
    assert [(r["Pin"], r["Pin-Priority"]) for r in records] == [(f"version {branch}.*", "1000"), ("version *", "-1")]
    assert records[0]["Package"] == records[1]["Package"]
    pinned = records[0]["Package"].split()
    if _kind(host) == "cuda":
        # Fabric Manager is held with the driver: same record, same version pattern.
        for name in ("nvidia-driver-cuda", "nvidia-kernel-open-dkms", "nvidia-persistenced",
                     "nvidia-fabricmanager-580", "libnvidia-nscq-580", "libnvidia-ml1"):
            assert name in pinned
    else:
        for name in ("nvidia-kernel-dkms", "nvidia-smi", "libcuda1", "libnvidia-ml1", "nvidia-persistenced"):
            assert name in pinned


def test_installed_driver_is_held_at_priority_1000(host):
    _only(host, "distro")
    pinned = _fields(host.file(PIN).content_string.split("\n\n")[1])["Package"].split()
    installed = [p for p in pinned if host.package(p).is_installed]
    assert {"nvidia-kernel-dkms", "nvidia-smi", "libcuda1", "libnvidia-ml1", "nvidia-persistenced"} <= set(installed)
    for name, info in _policy(host, *installed).items():
        assert info["installed"].startswith("535."), (name, info)
        assert info["candidate"] == info["installed"], (name, info)
        # every version apt knows of is on the branch, and the pin gives each the priority 1000
        assert info["versions"] and all(v.startswith("535.") and p == 1000 for v, p in info["versions"]), (name, info)


@pytest.fixture(scope="module")
def debian_nonfree_lists():
    """Debian's non-free indexes on the CUDA node: where it installs nothing the role refreshes the lists once
    when the sources change, and NVIDIA's repository cannot be fetched here, so the role's Debian source is read
    on its own."""
    node = host("molecule-gpu-cuda")
    node.check_output(f"apt-get update -o Dir::Etc::SourceList={NONFREE} -o Dir::Etc::SourceParts=/nonexistent "
                      "-o APT::Get::List-Cleanup=0")
    return node


def test_debian_driver_cannot_replace_the_cuda_branch(host, debian_nonfree_lists):
    _only(host, "cuda")
    # Debian ships these names at 535; on a node held to 580 every such version is refused (-1) and apt has
    # no candidate: an upgrade can never switch the driver to Debian's branch.
    policy = _policy(host, "nvidia-smi", "libnvidia-ml1", "nvidia-persistenced", "nvidia-kernel-dkms")
    assert set(policy) == {"nvidia-smi", "libnvidia-ml1", "nvidia-persistenced", "nvidia-kernel-dkms"}
    for name, info in policy.items():
        assert info["candidate"] == "(none)", (name, info)
        assert info["versions"] and all(v.startswith("535.") and p == -1 for v, p in info["versions"]), (name, info)


# ------------------------------------------------------------------------------------- packages
def test_debian_driver_installed_compute_only(host):
    _only(host, "distro")
    versions = {p: host.package(p).version for p in
                ("nvidia-kernel-dkms", "nvidia-smi", "libcuda1", "libnvidia-ml1", "nvidia-persistenced")}
    assert all(v.startswith("535.") for v in versions.values()), versions
    # The kernel module and the libraries are one build (NVML refuses anything else).
    assert versions["nvidia-kernel-dkms"] == versions["libnvidia-ml1"] == versions["nvidia-smi"]
    assert host.file("/usr/bin/nvidia-smi").exists
    # DKMS has the module's source, for the kernel headers it finds (none in a container).
    assert host.file("/usr/src").listdir() and any(d.startswith("nvidia-current-") for d in host.file("/usr/src").listdir())
    # Compute only: no X server, no desktop metapackage.
    for name in ("nvidia-driver", "xserver-xorg-core", "xserver-xorg-video-nvidia"):
        assert not host.package(name).is_installed, name


def test_cuda_node_installed_nothing_from_nvidia(host):
    _only(host, "cuda")
    for name in ("nvidia-driver-cuda", "nvidia-kernel-open-dkms", "nvidia-fabricmanager-580", "nvidia-persistenced"):
        assert not host.package(name).is_installed, name


# ------------------------------------------------------------------------------------ kernel side
def test_nouveau_blacklisted(host):
    conf = host.file(BLACKLIST)
    assert conf.user == "root" and conf.mode == 0o644
    lines = [line for line in conf.content_string.splitlines() if line and not line.startswith("#")]
    assert lines == ["blacklist nouveau", "options nouveau modeset=0"]
    if host.exists("modprobe"):
        # modprobe's own configuration, as it will read it at boot
        config = host.check_output("modprobe --showconfig")
        assert "blacklist nouveau" in config.splitlines() and "options nouveau modeset=0" in config.splitlines()


def test_peermem_loaded_at_boot_only_where_asked(host):
    conf = host.file(PEERMEM)
    if _kind(host) == "cuda":  # nvidia_driver_peermem: always (an HGX node with HCAs)
        assert conf.user == "root" and conf.mode == 0o644
        assert [line for line in conf.content_string.splitlines() if line and not line.startswith("#")] == ["nvidia-peermem"]
    else:  # auto, and a container has no /sys/class/infiniband
        assert not conf.exists


# No test reads /sys/module/nvidia here: the containers share the host's kernel, which has no NVIDIA module, so
# its absence says nothing about the role. Loading is covered by the rolling upgrade e2e (tests/e2e/rolling_reboot).


# ------------------------------------------------------------------------------------- services
def test_persistenced_enabled_where_installed(host):
    if _kind(host) == "distro":
        assert host.service("nvidia-persistenced").is_enabled
    else:
        out = host.run("systemctl list-unit-files --no-legend nvidia-persistenced.service nvidia-fabricmanager.service")
        assert out.stdout.strip() == ""


# ------------------------------------------------------------------------------------ package lists
_DISTRO_PLAY = """
- name: The nvidia_driver role again on the Debian-driver node
  hosts: nvidia_distribution
  gather_facts: true
  gather_subset: [min]
  roles:
    - role: gpufleet.cluster.nvidia_driver
"""


def test_lists_missing_for_unchanged_sources_are_fetched_without_a_change(host, tmp_path):
    """A run that wrote the non-free components and stopped before apt-get update (or an image whose lists were
    dropped) leaves apt without those lists while the sources are already right. The next run must fetch them
    (sources unchanged, so no refresh would come from a change) and report nothing changed: a refresh is not a
    configuration change. Before the fix apt kept no candidate for the driver until a cache timer ran out."""
    _only(host, "distro")
    host.check_output("rm -f /var/lib/apt/lists/*_contrib_* /var/lib/apt/lists/*_non-free_* "
                      "/var/lib/apt/lists/*_non-free-firmware_*")
    # apt now knows the driver only from dpkg's status file (the installed version), from no archive.
    assert "/non-free amd64 Packages" not in host.check_output("apt-cache policy nvidia-kernel-dkms")
    run = run_play(_DISTRO_PLAY, tmp_path)
    assert recap(run)["molecule-gpu-distro"]["changed"] == 0, run.stdout[-3000:]
    assert "Refresh the package lists (a source changed, or its lists are missing)" in run.stdout
    lists = host.check_output("ls /var/lib/apt/lists").split()
    for component in COMPONENTS:
        assert f"deb.debian.org_debian_dists_bookworm_{component}_binary-amd64_Packages" in lists, (component, lists)
    policy = host.check_output("apt-cache policy nvidia-kernel-dkms libnvidia-ml1")
    assert policy.count("/non-free amd64 Packages") >= 2, policy
    for name, info in _policy(host, "nvidia-kernel-dkms", "libnvidia-ml1").items():
        assert info["candidate"].startswith("535.") and info["candidate"] == info["installed"], (name, info)


# Check mode on a node nothing has converged, with the packages on (it says it would refresh the lists and install,
# and does not fail): the e2e's joining GPU node, tests/e2e/join.sh and tests/e2e/check_log.py fresh-check.
