# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
module: node_state
version_added: 0.1.0
short_description: Read a node's packages, services, paths, files, addresses and OS in one remote call
description:
  - Reads, and never changes, what a role needs to know about a node before it acts - which of some Debian packages
    are installed (one C(dpkg-query --show)), the state of some systemd units (one C(systemctl show)), the owner,
    group and mode of some paths, and the files that match some patterns (such as C(/dev/nvidia[0-9]*)).
  - One module run instead of a C(command), a C(find), a C(stat) and a C(systemd_service) per unit. A role then runs
    C(ansible.builtin.systemd_service) only for a unit that is not both enabled and active, C(ansible.builtin.file) or
    a file-writing module only for a path whose content (SHA-256), owner, group or mode differs from what it would
    write, and C(apt) only for a missing package; on an idempotent re-run those module runs are skipped on every host.
  - The installed packages come back parsed (name to version), so no filter is needed on the controller.
  - A file that holds a secret (a password in it) is read through O(secrets). The caller gives the SHA-256 it
    expects and gets back only whether the file matches, never the file's own hash (a hash of a file whose other
    lines are known lets anyone who reads the log guess the password offline).
  - O(listen_ports) reads the kernel's tables of listening TCP sockets (C(/proc/net/tcp) and C(/proc/net/tcp6)) and
    says, for each port, which addresses listen on it and which of those are not loopback, so that a role can prove
    a daemon meant for local clients only is not reachable from the network. A table that cannot be read or is
    not as the kernel prints it fails the module; it is never taken for "nothing listens".
  - O(os) reads what C(ansible.builtin.setup)'s minimal subset says of the operating system (distribution, its
    version, major version and codename, the OS family, the architecture, the running kernel and the host name) from
    the files setup reads, and the number of logical CPUs and the memory (C(processor_vcpus) from C(/proc/cpuinfo),
    C(memtotal_mb) from C(/proc/meminfo), as setup's hardware subset says them), returns it in RV(os) and sets it
    as facts (C(ansible_facts['distribution']) ...), so that no role needs C(setup). The kernel is always the running
    one (C(/proc/sys/kernel/osrelease)), never a cached fact.
  - O(addresses) returns the node's interfaces with their IPv4 and IPv6 addresses (one C(ip -j addr show)), read live.
  - O(contents) returns the content of small files (at most O(contents_limit) bytes each, such as a table under C(/proc), a
    setting, a drop-in), in place of a C(slurp) task per file. Never name a file holding a secret there, as its content
    is in the result and so in the log (use O(secrets)).
  - O(unit_properties) adds further systemd properties of every unit asked for (one C(systemctl show) still).
  - O(manager_properties) reads properties of the systemd manager itself (C(systemctl show) with no unit, such as
    C(DefaultLimitMEMLOCK)), which no unit's properties give. A property systemctl does not print fails the module.
  - O(glob_contents) returns the content of every file a pattern matches (such as C(/etc/security/limits.d/*.conf));
    a pattern that matches nothing has no entries; a match that cannot be read, or is over O(contents_limit), fails
    the module.
  - O(package_patterns) asks dpkg for the packages that match a pattern (such as C(doca-*)) in the same
    C(dpkg-query) call as O(packages).
  - O(rdma) reads the node's RDMA devices and ports from sysfs (C(/sys/class/infiniband/*), as
    M(gpufleet.cluster.rdma_info) reads them), so that a role can check the ports a site expects on every run
    without a second module run.
author:
  - gpufleet.cluster contributors (@gpufleet)
options:
  packages:
    description:
      - Debian package names (lower-case letters, digits, C(+), C(-) and C(.)). Those dpkg reports as installed are
        returned in RV(packages) with their versions; the others are left out.
    type: list
    elements: str
    default: []
  units:
    description:
      - systemd unit names (letters, digits, C(_), C(.), C(:), C(@) and C(-), not starting with C(-)); a name without
        a suffix means the C(.service).
    type: list
    elements: str
    default: []
  paths:
    description:
      - Absolute paths whose type, owner, group and mode (and for a regular file, the SHA-256 of its content) are
        returned in RV(paths) (symbolic links followed).
    type: list
    elements: path
    default: []
  secrets:
    description:
      - Files holding a secret, each with the SHA-256 (hex) the caller expects of its content. Returned in
        RV(secrets) with the same fields as RV(paths) but, instead of the file's hash, only whether it matches.
    type: list
    elements: dict
    default: []
    suboptions:
      path:
        description: Absolute path of the file (symbolic links followed).
        type: path
        required: true
      sha256:
        description: The SHA-256 of the content the caller expects, 64 hex digits; never logged.
        type: str
        required: true
  listen_ports:
    description:
      - TCP ports (1-65535) whose listening sockets are returned in RV(listeners).
    type: list
    elements: int
    default: []
  globs:
    description:
      - Absolute patterns (C(*), C(?) and C([...]) in the path's characters) whose matches are returned in RV(globs).
    type: list
    elements: str
    default: []
  unit_properties:
    description:
      - Further systemd properties (C(ExecStart), C(FragmentPath), C(DropInPaths), C(LimitMEMLOCK), each a capital
        letter, then letters and digits) returned for every unit of O(units) in C(properties) of each entry of RV(units).
    type: list
    elements: str
    default: []
  contents:
    description:
      - Absolute paths of small files whose content is returned in RV(contents) (symbolic links followed). A file
        over O(contents_limit) bytes fails the module. Not for files holding a secret (see O(secrets)).
    type: list
    elements: path
    default: []
  manager_properties:
    description:
      - Properties of the systemd manager (C(DefaultLimitMEMLOCK), C(DefaultLimitMEMLOCKSoft), each a capital letter,
        then letters and digits) returned in RV(manager).
    type: list
    elements: str
    default: []
  systemd_absent:
    description:
      - What to do when O(units) or O(manager_properties) are asked on a host that does not run systemd as its init
        (no C(/run/systemd/system), the test of C(sd_booted(3)); a chroot, a container without systemd).
      - C(fail) fails the module, saying so. C(report) reads nothing from systemd and returns RV(systemd) false with
        RV(units) and RV(manager) empty, for a role that checks its input before it refuses such a host (its own
        check of RV(systemd) refuses it then).
    type: str
    choices: [fail, report]
    default: fail
  glob_contents:
    description:
      - Absolute patterns (as O(globs)) whose matches' contents are returned in RV(glob_contents). Not for files
        holding a secret.
    type: list
    elements: str
    default: []
  package_patterns:
    description:
      - dpkg package patterns (lower-case letters, digits, C(+), C(-), C(.), C(*) and C(?)); the installed packages
        they match are added to RV(packages).
    type: list
    elements: str
    default: []
  rdma:
    description: Read the RDMA devices and ports from sysfs (RV(rdma)).
    type: bool
    default: false
  contents_limit:
    description: The most bytes a file of O(contents) or O(glob_contents) may hold (1 to 1048576).
    type: int
    default: 65536
  blocks:
    description:
      - Blocks of lines between two marker lines in files (as C(gpufleet.cluster.config_files) writes them with
        O(gpufleet.cluster.config_files#module:files[].block)), each returned in RV(blocks) as the SHA-256 of its
        lines, so that a caller can tell whether the block it would write is there without the file's content
        reaching the controller.
    type: list
    elements: dict
    default: []
    suboptions:
      path:
        description: Absolute path of the file (each path once).
        type: path
        required: true
      marker:
        description: The marker lines, C({mark}) replaced by O(blocks[].marker_begin) and O(blocks[].marker_end).
        type: str
        default: "# {mark} ANSIBLE MANAGED BLOCK"
      marker_begin:
        description: What replaces C({mark}) in the first marker line.
        type: str
        default: BEGIN
      marker_end:
        description: What replaces C({mark}) in the last marker line.
        type: str
        default: END
  os:
    description:
      - Read the operating system's facts (RV(os)) and set them as facts (RV(ansible_facts)), as C(setup) names them.
    type: bool
    default: false
  addresses:
    description: Read the node's interfaces and their addresses (RV(interfaces)) with C(ip -j addr show).
    type: bool
    default: false
attributes:
  facts:
    support: full
    description: With O(os), sets the operating system's facts as C(setup) names them (RV(ansible_facts)).
  platform:
    description:
      - Debian and Ubuntu (C(dpkg-query)) with systemd (C(systemctl)); each is run only when asked for.
        O(listen_ports) reads Linux's C(/proc/net/tcp) and C(/proc/net/tcp6) (the latter may be absent where the
        kernel has no IPv6, and then nothing listens on IPv6). O(os) reads C(/etc/os-release), C(/etc/debian_version),
        C(/proc/sys/kernel/osrelease), C(/proc/cpuinfo) and C(/proc/meminfo); O(addresses) runs iproute2's C(ip);
        O(rdma) reads Linux's C(/sys/class/infiniband).
extends_documentation_fragment:
  - gpufleet.cluster.attributes.info_module
"""

EXAMPLES = r"""
- name: Read what the node has
  gpufleet.cluster.node_state:
    packages: [munge, slurmd]
    units: [munge, slurmd]
    paths: [/var/lib/slurm/slurmctld]
    globs: ["/dev/nvidia[0-9]*"]
  register: node

- name: Start slurmd (only where it is not both enabled and active already)
  ansible.builtin.systemd_service:
    name: slurmd
    enabled: true
    state: started
  when: node.units.slurmd.enabled != 'enabled' or node.units.slurmd.active != 'active'

- name: Read slurmdbd.conf (it holds a password) and who listens on MariaDB's port
  gpufleet.cluster.node_state:
    secrets:
      - path: /etc/slurm/slurmdbd.conf
        sha256: "{{ lookup('ansible.builtin.template', 'slurmdbd.conf.j2') | hash('sha256') }}"
    listen_ports: [3306]
  register: dbd

- name: Read the OS (as setup would, setting ansible_facts), the addresses and the limits of a login
  gpufleet.cluster.node_state:
    os: true
    addresses: true
    contents: [/proc/self/limits]
    units: [chrony]
    unit_properties: [FragmentPath]
  register: node

- name: Read systemd's default memlock, the pam_limits drop-ins, the vendor RDMA packages and the HCA ports
  gpufleet.cluster.node_state:
    manager_properties: [DefaultLimitMEMLOCK, DefaultLimitMEMLOCKSoft]
    glob_contents: [/etc/security/limits.d/*.conf]
    package_patterns: [doca-*, mlnx-ofed-*]
    rdma: true
  register: node

- name: Refuse a MariaDB reachable from the network
  ansible.builtin.assert:
    that: dbd.listeners['3306'].exposed | length == 0
"""

RETURN = r"""
packages:
  description:
    - The packages asked for (by name, or matching one of O(package_patterns)) that dpkg reports as installed, each
      with its version (epoch kept).
  returned: always
  type: dict
  sample: {munge: 0.5.15-2, slurmd: 22.05.8-4+deb12u3}
units:
  description:
    - One entry per unit asked for, under the name it was asked by. A unit systemd does not know has C(load) C(not-found),
      C(active) C(inactive) and an empty C(enabled).
  returned: always
  type: dict
  sample: {slurmd: {load: loaded, active: active, sub: running, enabled: enabled}}
  contains:
    load:
      description: LoadState (C(loaded), C(not-found), C(masked) ...).
      type: str
    active:
      description: ActiveState (C(active), C(inactive), C(failed), C(activating) ...).
      type: str
    sub:
      description: SubState (C(running), C(dead), C(exited) ...).
      type: str
    enabled:
      description: UnitFileState (C(enabled), C(disabled), C(static), C(masked) ...; empty when there is no unit file).
      type: str
    properties:
      description: Each property of O(unit_properties) by name (empty when the unit has none); only when asked for.
      type: dict
      sample: {FragmentPath: /lib/systemd/system/chrony.service}
paths:
  description: One entry per path asked for.
  returned: always
  type: dict
  sample:
    /var/lib/slurm/slurmctld: {exists: true, isdir: true, owner: slurm, group: slurm, mode: "0750"}
    /etc/slurm/gres.conf: {exists: true, isdir: false, owner: root, group: root, mode: "0644",
                           sha256: 3f0a0c1e7d5b3c0e1c2f6b8e1c1d0f4e9e7e4b1a2c3d4e5f60718293a4b5c6d7}
  contains:
    exists:
      description: Whether the path exists.
      type: bool
    isdir:
      description: Whether it is a directory.
      type: bool
    owner:
      description: Owner's name (the number when it has none); absent when the path does not exist.
      type: str
    group:
      description: Group's name (the number when it has none); absent when the path does not exist.
      type: str
    mode:
      description: Permission bits as four octal digits; absent when the path does not exist.
      type: str
    sha256:
      description: SHA-256 of the content, in hex; only for a regular file.
      type: str
secrets:
  description:
    - One entry per secret file asked for, with the fields of an entry of RV(paths) (C(exists), C(isdir), C(owner),
      C(group), C(mode)) but no C(sha256); C(matches) in its place.
  returned: always
  type: dict
  sample:
    /etc/slurm/slurmdbd.conf: {exists: true, isdir: false, owner: slurm, group: slurm, mode: "0600", matches: true}
  contains:
    matches:
      description: Whether it is a regular file whose content has the SHA-256 given (false when it does not exist).
      type: bool
listeners:
  description:
    - One entry per port asked for, keyed by the port as text.
  returned: always
  type: dict
  sample: {"3306": {addresses: ["127.0.0.1", "::1"], exposed: []}, "9400": {addresses: ["0.0.0.0"], exposed: ["0.0.0.0"]}}
  contains:
    addresses:
      description: The local addresses listening on the port, sorted (C(0.0.0.0) and C(::) are every address).
      type: list
      elements: str
    exposed:
      description: Those of them that are not loopback (127.0.0.0/8, C(::1), C(::ffff:127.x)).
      type: list
      elements: str
globs:
  description: One entry per pattern asked for, its matches sorted.
  returned: always
  type: dict
  sample: {"/dev/nvidia[0-9]*": [/dev/nvidia0, /dev/nvidia1]}
contents:
  description: One entry per file of O(contents).
  returned: always
  type: dict
  sample: {/proc/sys/kernel/osrelease: {exists: true, size: 15, encoding: text, content: "6.1.0-31-amd64\n"}}
  contains:
    exists:
      description: Whether the file exists.
      type: bool
    size:
      description: How many bytes it holds; absent when it does not exist.
      type: int
    encoding:
      description: C(text) when the content is UTF-8, else C(base64); absent when it does not exist.
      type: str
    content:
      description: The content, as C(encoding) says; absent when it does not exist.
      type: str
blocks:
  description: One entry per file of O(blocks), by path.
  returned: always
  type: dict
  sample: {/etc/hosts: {exists: true, found: true, sha256: 0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8}}
  contains:
    exists:
      description: Whether the file exists.
      type: bool
    found:
      description: Whether it holds the block (one begin marker line, then one end marker line).
      type: bool
    sha256:
      description:
        - SHA-256 of the block's lines joined by newlines, with no newline after the last (what was given as
          O(gpufleet.cluster.config_files#module:files[].block) to C(config_files), less one last newline); only when C(found).
      type: str
systemd:
  description: Whether this host runs systemd as its init (C(/run/systemd/system) is a directory).
  returned: always
  type: bool
  sample: true
manager:
  description: Each property of O(manager_properties) of the systemd manager, by name.
  returned: always
  type: dict
  sample: {DefaultLimitMEMLOCK: "8388608", DefaultLimitMEMLOCKSoft: "8388608"}
glob_contents:
  description:
    - One entry per pattern of O(glob_contents), each match (sorted) to its content, with the fields of an entry of
      RV(contents); empty for a pattern that matches nothing.
  returned: always
  type: dict
  sample: {/etc/security/limits.d/*.conf: {/etc/security/limits.d/90-gpufleet.conf: {
           exists: true, size: 22, encoding: text, content: "* soft memlock unlimited\n"}}}
rdma:
  description: The RDMA devices and ports sysfs gives; empty unless O(rdma).
  returned: always
  type: dict
  sample: {devices: [], ports: [], summary: {devices: 0, ports: 0, active: 0, active_by_link_layer: {}, not_active: []},
           problems: [], msg: "no RDMA device found: /sys/class/infiniband is empty or missing; is the HCA driver
           (mlx5_ib, ib_core) loaded?"}
  contains:
    devices:
      description: One per device, in natural name order, with its C(ports), as M(gpufleet.cluster.rdma_info) returns them.
      type: list
      elements: dict
    ports:
      description:
        - Every port, each with its C(device), C(port) (number), C(state) (C(ACTIVE) ...), C(phys_state), C(rate_gbps),
          C(link_layer) and the other fields of M(gpufleet.cluster.rdma_info)'s ports.
      type: list
      elements: dict
    summary:
      description: Counts of devices, ports and ACTIVE ports by link layer, and the ports not ACTIVE with a reason.
      type: dict
    problems:
      description: Values sysfs gave that could not be parsed (each left unset in its port or device).
      type: list
      elements: str
    msg:
      description: The summary in words.
      type: str
os:
  description: The operating system's facts, as C(setup) names them; empty unless O(os).
  returned: always
  type: dict
  sample: {distribution: Debian, distribution_version: "12.11", distribution_major_version: "12",
           distribution_release: bookworm, os_family: Debian, architecture: x86_64, kernel: 6.1.0-31-amd64,
           hostname: gpu01, processor_vcpus: 96, memtotal_mb: 2063731}
ansible_facts:
  description: RV(os) as facts (C(ansible_facts['distribution']) ...); only with O(os).
  returned: when O(os) is true
  type: dict
interfaces:
  description: The node's interfaces by name; empty unless O(addresses).
  returned: always
  type: dict
  sample: {eth0: {state: UP, mtu: 1500, mac: "52:54:00:12:34:56", ipv4: [{address: 10.0.0.1, prefix: 24, scope: global}],
                  ipv6: []}}
  contains:
    state:
      description: The interface's operstate (C(UP), C(DOWN), C(UNKNOWN) ...).
      type: str
    mtu:
      description: Its MTU.
      type: int
    mac:
      description: Its link-layer address (empty for none).
      type: str
    ipv4:
      description: Its IPv4 addresses, each with C(address), C(prefix) (length) and C(scope), in the order ip prints.
      type: list
      elements: dict
    ipv6:
      description: Its IPv6 addresses, as C(ipv4).
      type: list
      elements: dict
"""

import fnmatch
import glob
import os
import re
from typing import Any, Dict, List, Optional

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_native
from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules
from ansible_collections.gpufleet.cluster.plugins.module_utils.apt.dpkg_status import DpkgStatusError, installed_versions
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.file_rules import FileRuleError, absolute_path
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.tcp_listeners import (
    TcpListenerError, listeners_on, parse_proc_net_tcp,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.marked_blocks import (
    DEFAULT_MARKER, MarkedBlockError, marker_lines,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.node.addresses import AddressError, parse_ip_addr_json
from ansible_collections.gpufleet.cluster.plugins.module_utils.node.contents import (
    ContentError, read_content, read_glob_contents,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.node.files import (
    block_state, path_state, read_text, secret_state,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.node.manager import (
    ManagerPropertyError, parse_manager_properties,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.node.rdma import rdma_state
from ansible_collections.gpufleet.cluster.plugins.module_utils.node.os_release import (
    OsReleaseError, count_vcpus, memtotal_mb, os_facts, parse_os_release,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.node.units import (
    PROPERTY_RE, STATE_PROPERTIES, UnitStateError, parse_units as _parse_units,
)

ARGUMENT_SPEC = {
    "packages": {"type": "list", "elements": "str", "default": []},
    "units": {"type": "list", "elements": "str", "default": []},
    "paths": {"type": "list", "elements": "path", "default": []},
    # The paths are not secret (they show in the result); each expected hash is (no_log on the sub-option).
    "secrets": {"type": "list", "elements": "dict", "default": [], "no_log": False, "options": {
        "path": {"type": "path", "required": True},
        "sha256": {"type": "str", "required": True, "no_log": True},
    }},
    "listen_ports": {"type": "list", "elements": "int", "default": []},
    "globs": {"type": "list", "elements": "str", "default": []},
    "unit_properties": {"type": "list", "elements": "str", "default": []},
    "contents": {"type": "list", "elements": "path", "default": []},
    "contents_limit": {"type": "int", "default": 65536},
    "manager_properties": {"type": "list", "elements": "str", "default": []},
    "glob_contents": {"type": "list", "elements": "str", "default": []},
    "systemd_absent": {"type": "str", "choices": ["fail", "report"], "default": "fail"},
    "package_patterns": {"type": "list", "elements": "str", "default": []},
    "rdma": {"type": "bool", "default": False},
    "blocks": {"type": "list", "elements": "dict", "default": [], "options": {
        "path": {"type": "path", "required": True},
        "marker": {"type": "str", "default": DEFAULT_MARKER},
        "marker_begin": {"type": "str", "default": "BEGIN"},
        "marker_end": {"type": "str", "default": "END"},
    }},
    "os": {"type": "bool", "default": False},
    "addresses": {"type": "bool", "default": False},
}
_CONTENTS_MAX = 1 << 20
_OS_FILES = ("/etc/os-release", "/usr/lib/os-release")
_SHA256_RE = re.compile(r"[0-9a-f]{64}")
_PROC_NET_TCP = (("/proc/net/tcp", 4), ("/proc/net/tcp6", 6))
_SYSFS_ROOT = "/sys"
_SYSTEMD_RUN_DIR = "/run/systemd/system"  # sd_booted(3): systemd runs as init when this is a directory
_PACKAGE_PATTERN_RE = re.compile(r"[a-z0-9*?][a-z0-9+.*?-]*")
_PACKAGE_PATTERN_ALLOWED = "a dpkg package pattern: lower-case letters, digits, '+', '-', '.', '*' and '?'"

# Local rules, input_rules' conventions (fullmatch, the message names the field, the value and what is allowed).
_PACKAGE_RE = input_rules.RULES["package"].pattern  # the collection's one package-name rule
_PACKAGE_ALLOWED = input_rules.RULES["package"].allowed
_UNIT_RE = re.compile(r"[A-Za-z0-9_.:@][A-Za-z0-9_.:@-]{0,254}")
_UNIT_ALLOWED = "a systemd unit name: letters, digits, '_', '.', ':', '@' and '-', not starting with '-'"
_GLOB_RE = re.compile(r"(?:/(?!\.{1,2}(?:/|\Z))[A-Za-z0-9_.+@:~*?\[\]!-]+)+")
_GLOB_ALLOWED = ("an absolute pattern of letters, digits, '_', '.', '+', '@', ':', '~', '-' and the wildcards '*', '?' "
                 "and '[...]', with no '.' or '..' part")
_DPKG_FORMAT = "${Package} ${db:Status-Status} ${Version}\n"
_UNIT_PROPERTIES = STATE_PROPERTIES


class NodeStateError(ValueError):
    """An argument the module refuses."""


def _checked(where: str, value: Any, pattern: "re.Pattern[str]", allowed: str) -> str:
    if not isinstance(value, str) or input_rules.CONTROL_RE.search(value) or not pattern.fullmatch(value):
        raise NodeStateError("%s: %r is not allowed; expected %s" % (where, value, allowed))
    return value


def check_arguments(params: Dict[str, Any]) -> None:
    """Refuse any name or path that is not one, before anything runs."""
    for index, name in enumerate(params["packages"]):
        _checked("packages[%d]" % index, name, _PACKAGE_RE, _PACKAGE_ALLOWED)
    for index, name in enumerate(params["units"]):
        _checked("units[%d]" % index, name, _UNIT_RE, _UNIT_ALLOWED)
    for index, path in enumerate(params["paths"]):
        absolute_path("paths[%d]" % index, path, NodeStateError)
    for index, pattern in enumerate(params["globs"]):
        _checked("globs[%d]" % index, pattern, _GLOB_RE, _GLOB_ALLOWED)
    for index, pattern in enumerate(params.get("glob_contents") or []):
        _checked("glob_contents[%d]" % index, pattern, _GLOB_RE, _GLOB_ALLOWED)
    for index, pattern in enumerate(params.get("package_patterns") or []):
        _checked("package_patterns[%d]" % index, pattern, _PACKAGE_PATTERN_RE, _PACKAGE_PATTERN_ALLOWED)
    for index, name in enumerate(params.get("manager_properties") or []):
        _checked("manager_properties[%d]" % index, name, PROPERTY_RE,
                 "a systemd property name: a capital letter, then letters and digits")
    for index, entry in enumerate(params.get("secrets") or []):
        absolute_path("secrets[%d].path" % index, entry["path"], NodeStateError)
        if not isinstance(entry["sha256"], str) or not _SHA256_RE.fullmatch(entry["sha256"]):
            # The value is not shown: it may be a secret given by mistake in place of its hash.
            raise NodeStateError("secrets[%d].sha256 is not allowed; expected 64 lower-case hex digits (a SHA-256)"
                                 % index)
    for index, port in enumerate(params.get("listen_ports") or []):
        if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
            raise NodeStateError("listen_ports[%d]: %r is not allowed; expected a TCP port 1-65535" % (index, port))
    for index, name in enumerate(params.get("unit_properties") or []):
        _checked("unit_properties[%d]" % index, name, PROPERTY_RE,
                 "a systemd property name: a capital letter, then letters and digits")
    for index, path in enumerate(params.get("contents") or []):
        absolute_path("contents[%d]" % index, path, NodeStateError)
    seen = set()
    for index, entry in enumerate(params.get("blocks") or []):
        absolute_path("blocks[%d].path" % index, entry["path"], NodeStateError)
        if entry["path"] in seen:
            raise NodeStateError("blocks[%d]: %s is listed twice; one block per file" % (index, entry["path"]))
        seen.add(entry["path"])
        try:
            marker_lines(entry["marker"], entry["marker_begin"], entry["marker_end"])
        except MarkedBlockError as err:
            raise NodeStateError("blocks[%d]: %s" % (index, err)) from None
    limit = params.get("contents_limit", 65536)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= _CONTENTS_MAX:
        raise NodeStateError("contents_limit: %r is not allowed; expected 1 to %d bytes" % (limit, _CONTENTS_MAX))


def parse_units(names: List[str], output: str, extra: Optional[List[str]] = None) -> Dict[str, Dict[str, Any]]:
    """`systemctl show --property=... -- NAME...`, each asked name to its states (node.units.parse_units)."""
    try:
        return _parse_units(names, output, extra or ())
    except UnitStateError as err:
        raise NodeStateError(str(err)) from None


def read_packages(module: AnsibleModule, names: List[str], patterns: Optional[List[str]] = None) -> Dict[str, str]:
    patterns = patterns or []
    if not names and not patterns:
        return {}
    argv = [module.get_bin_path("dpkg-query", required=True), "--show", "--showformat=" + _DPKG_FORMAT, *names,
            *patterns]
    rc, out, err = module.run_command(argv)
    if rc not in (0, 1):  # 1: some package dpkg has never seen (no line for it)
        module.fail_json(msg="node_state: %s failed (exit %d): %s" % (" ".join(argv[:3]), rc, (err or out).strip()))
    try:
        versions = installed_versions(out.splitlines())
    except DpkgStatusError as err:
        module.fail_json(msg="node_state: reading which of %s are installed: %s" % (", ".join(names + patterns), err))
    return {name: version for name, version in versions.items()
            if name in names or any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)}


def read_units(module: AnsibleModule, names: List[str], extra: List[str]) -> Dict[str, Dict[str, Any]]:
    if not names:
        return {}
    wanted = list(_UNIT_PROPERTIES) + [name for name in extra if name not in _UNIT_PROPERTIES]
    argv = [module.get_bin_path("systemctl", required=True), "show", "--property=" + ",".join(wanted),
            "--", *names]
    rc, out, err = module.run_command(argv)
    if rc != 0:
        module.fail_json(msg="node_state: systemctl show %s failed (exit %d): %s"
                             % (" ".join(names), rc, (err or out).strip()))
    try:
        return parse_units(names, out, extra)
    except NodeStateError as err:
        module.fail_json(msg="node_state: %s" % err)
    return {}  # not reached: fail_json exits


def read_manager(module: AnsibleModule, names: List[str]) -> Dict[str, str]:
    """The systemd manager's properties asked for (systemctl show with no unit); any failure fails the module."""
    if not names:
        return {}
    argv = [module.get_bin_path("systemctl", required=True), "show", "--property=" + ",".join(names)]
    rc, out, err = module.run_command(argv)
    if rc != 0:
        module.fail_json(msg="node_state: systemctl show --property=%s failed (exit %d): %s"
                             % (",".join(names), rc, (err or out).strip()))
    try:
        return parse_manager_properties(names, out)
    except ManagerPropertyError as err:
        module.fail_json(msg="node_state: %s" % err)
    return {}  # not reached: fail_json exits


def read_listeners(module: AnsibleModule, ports: List[int]) -> Dict[str, Dict[str, List[str]]]:
    """Who listens on each port, from the kernel's tables; any read that fails fails the module."""
    if not ports:
        return {}
    found = []
    for path, family in _PROC_NET_TCP:
        try:
            with open(path, encoding="ascii") as handle:
                text = handle.read()
        except FileNotFoundError:
            if family == 6:  # a kernel without IPv6 (ipv6.disable=1) has no tcp6 table: nothing listens on IPv6
                continue
            module.fail_json(msg="node_state: %s does not exist: cannot tell who listens on ports %s"
                                 % (path, ", ".join(map(str, ports))))
        except (OSError, UnicodeDecodeError) as err:
            module.fail_json(msg="node_state: reading %s to tell who listens on ports %s failed: %s"
                                 % (path, ", ".join(map(str, ports)), to_native(err)))
        try:
            found.extend(parse_proc_net_tcp(text, family))
        except TcpListenerError as err:
            module.fail_json(msg="node_state: %s" % err)
    return listeners_on(found, ports)


def read_os(module: AnsibleModule) -> Dict[str, Any]:
    """The OS facts (node.os_release) from the files setup reads; a file that cannot be read fails the module."""
    try:
        release_text = next((text for text in map(read_text, _OS_FILES) if text is not None), None)
        if release_text is None:
            module.fail_json(msg="node_state: neither %s exists: cannot tell the operating system" % " nor ".join(_OS_FILES))
        kernel = read_text("/proc/sys/kernel/osrelease")
        if kernel is None:
            module.fail_json(msg="node_state: /proc/sys/kernel/osrelease does not exist: cannot tell the running kernel")
        hardware = {name: read_text("/proc/" + name) for name in ("cpuinfo", "meminfo")}
        for name, text in hardware.items():
            if text is None:
                module.fail_json(msg="node_state: /proc/%s does not exist: cannot tell the node's CPUs and memory" % name)
        facts: Dict[str, Any] = dict(os_facts(parse_os_release(release_text), read_text("/etc/debian_version"), kernel,
                                              os.uname().machine, os.uname().nodename))
        facts["processor_vcpus"] = count_vcpus(hardware["cpuinfo"])
        facts["memtotal_mb"] = memtotal_mb(hardware["meminfo"])
        return facts
    except (OSError, UnicodeDecodeError) as err:
        module.fail_json(msg="node_state: reading the operating system's release failed: %s" % to_native(err))
    except OsReleaseError as err:
        module.fail_json(msg="node_state: %s" % err)
    return {}  # not reached: fail_json exits


def read_interfaces(module: AnsibleModule) -> Dict[str, Dict[str, Any]]:
    argv = [module.get_bin_path("ip", required=True), "-j", "addr", "show"]
    rc, out, err = module.run_command(argv)
    if rc != 0:
        module.fail_json(msg="node_state: ip -j addr show failed (exit %d): %s" % (rc, (err or out).strip()))
    try:
        return parse_ip_addr_json(out)
    except AddressError as err:
        module.fail_json(msg="node_state: %s" % err)
    return {}  # not reached: fail_json exits


def read_contents(module: AnsibleModule, paths: List[str], limit: int) -> Dict[str, Dict[str, Any]]:
    contents = {}
    for path in paths:
        try:
            contents[path] = read_content(path, limit)
        except ContentError as err:
            module.fail_json(msg="node_state: %s" % err)
        except OSError as err:
            module.fail_json(msg="node_state: reading %s failed: %s" % (path, to_native(err)))
    return contents


def read_globbed(module: AnsibleModule, patterns: List[str], limit: int) -> Dict[str, Dict[str, Dict[str, Any]]]:
    """Every match's content; a match that cannot be read fails the module (no match: an empty entry)."""
    try:
        return read_glob_contents(patterns, limit)
    except ContentError as err:
        module.fail_json(msg="node_state: %s" % err)
    except OSError as err:
        module.fail_json(msg="node_state: reading the files %s match failed: %s" % (", ".join(patterns), to_native(err)))
    return {}  # not reached: fail_json exits


def main() -> None:
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    try:
        check_arguments(module.params)
    except (NodeStateError, FileRuleError) as err:
        module.fail_json(msg="node_state: refusing to read: %s" % err)
    packages = read_packages(module, module.params["packages"], module.params["package_patterns"])
    systemd = os.path.isdir(_SYSTEMD_RUN_DIR)
    asks_systemd = bool(module.params["units"] or module.params["manager_properties"])
    if asks_systemd and not systemd and module.params["systemd_absent"] == "fail":
        module.fail_json(msg="node_state: this host does not run systemd as its init (no %s), so the units %s and "
                             "the manager properties %s cannot be read" % (
                                 _SYSTEMD_RUN_DIR, ", ".join(module.params["units"]) or "(none)",
                                 ", ".join(module.params["manager_properties"]) or "(none)"))
    manager = read_manager(module, module.params["manager_properties"]) if systemd else {}
    units = read_units(module, module.params["units"], module.params["unit_properties"]) if systemd else {}
    try:
        paths = {path: path_state(path) for path in module.params["paths"]}
    except OSError as err:
        module.fail_json(msg="node_state: reading the paths %s failed: %s"
                             % (", ".join(module.params["paths"]), to_native(err)))
    try:
        secrets = {entry["path"]: secret_state(entry["path"], entry["sha256"]) for entry in module.params["secrets"]}
    except OSError as err:
        module.fail_json(msg="node_state: reading the secret files %s failed: %s"
                             % (", ".join(entry["path"] for entry in module.params["secrets"]), to_native(err)))
    listeners = read_listeners(module, module.params["listen_ports"])
    globs = {pattern: sorted(glob.glob(pattern)) for pattern in module.params["globs"]}
    contents = read_contents(module, module.params["contents"], module.params["contents_limit"])
    globbed = read_globbed(module, module.params["glob_contents"], module.params["contents_limit"])
    try:
        blocks = {entry["path"]: block_state(entry) for entry in module.params["blocks"]}
    except (OSError, UnicodeDecodeError) as err:
        module.fail_json(msg="node_state: reading the blocks of %s failed: %s"
                             % (", ".join(entry["path"] for entry in module.params["blocks"]), to_native(err)))
    os_state = read_os(module) if module.params["os"] else {}
    interfaces = read_interfaces(module) if module.params["addresses"] else {}
    extra = {"ansible_facts": dict(os_state)} if module.params["os"] else {}
    try:
        extra["rdma"] = rdma_state(_SYSFS_ROOT) if module.params["rdma"] else {}
    except OSError as err:
        module.fail_json(msg="node_state: reading %s/class/infiniband failed: %s" % (_SYSFS_ROOT, to_native(err)))
    module.exit_json(changed=False, packages=packages, units=units, paths=paths, secrets=secrets,
                     listeners=listeners, globs=globs, contents=contents, blocks=blocks, manager=manager,
                     glob_contents=globbed, os=os_state, interfaces=interfaces, systemd=systemd, **extra)


if __name__ == "__main__":
    main()
