# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
module: node_state
version_added: 0.1.0
short_description: Read a node's packages, services, paths and device files in one remote call
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
attributes:
  platform:
    description:
      - Debian and Ubuntu (C(dpkg-query)) with systemd (C(systemctl)); each is run only when asked for.
        O(listen_ports) reads Linux's C(/proc/net/tcp) and C(/proc/net/tcp6) (the latter may be absent where the
        kernel has no IPv6, and then nothing listens on IPv6).
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

- name: Refuse a MariaDB reachable from the network
  ansible.builtin.assert:
    that: dbd.listeners['3306'].exposed | length == 0
"""

RETURN = r"""
packages:
  description: The packages asked for that dpkg reports as installed, each with its version (epoch kept).
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
"""

import glob
import grp
import hashlib
import hmac
import os
import pwd
import re
import stat
from typing import Any, Dict, List

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_native
from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules
from ansible_collections.gpufleet.cluster.plugins.module_utils.apt.dpkg_status import DpkgStatusError, installed_versions
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.file_rules import FileRuleError, absolute_path
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.tcp_listeners import (
    TcpListenerError, listeners_on, parse_proc_net_tcp,
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
}
_SHA256_RE = re.compile(r"[0-9a-f]{64}")
_PROC_NET_TCP = (("/proc/net/tcp", 4), ("/proc/net/tcp6", 6))

# Local rules, input_rules' conventions (fullmatch, the message names the field, the value and what is allowed).
_PACKAGE_RE = input_rules.RULES["package"].pattern  # the collection's one package-name rule
_PACKAGE_ALLOWED = input_rules.RULES["package"].allowed
_UNIT_RE = re.compile(r"[A-Za-z0-9_.:@][A-Za-z0-9_.:@-]{0,254}")
_UNIT_ALLOWED = "a systemd unit name: letters, digits, '_', '.', ':', '@' and '-', not starting with '-'"
_GLOB_RE = re.compile(r"(?:/(?!\.{1,2}(?:/|\Z))[A-Za-z0-9_.+@:~*?\[\]!-]+)+")
_GLOB_ALLOWED = ("an absolute pattern of letters, digits, '_', '.', '+', '@', ':', '~', '-' and the wildcards '*', '?' "
                 "and '[...]', with no '.' or '..' part")
_DPKG_FORMAT = "${Package} ${db:Status-Status} ${Version}\n"
_UNIT_PROPERTIES = ("LoadState", "ActiveState", "SubState", "UnitFileState")


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
    for index, entry in enumerate(params.get("secrets") or []):
        absolute_path("secrets[%d].path" % index, entry["path"], NodeStateError)
        if not isinstance(entry["sha256"], str) or not _SHA256_RE.fullmatch(entry["sha256"]):
            # The value is not shown: it may be a secret given by mistake in place of its hash.
            raise NodeStateError("secrets[%d].sha256 is not allowed; expected 64 lower-case hex digits (a SHA-256)"
                                 % index)
    for index, port in enumerate(params.get("listen_ports") or []):
        if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
            raise NodeStateError("listen_ports[%d]: %r is not allowed; expected a TCP port 1-65535" % (index, port))


def parse_units(names: List[str], output: str) -> Dict[str, Dict[str, str]]:
    """`systemctl show --property=... -- NAME...` prints one block of KEY=VALUE lines per unit, in the order asked,
    blocks separated by an empty line. Map each asked name to its load, active, sub and enabled states."""
    blocks = [block for block in re.split(r"\n\s*\n", output.strip("\n")) if block.strip()] if output.strip() else []
    if len(blocks) != len(names):
        raise NodeStateError("systemctl show printed %d blocks of properties for %d units (%s): %r"
                             % (len(blocks), len(names), ", ".join(names), output[:500]))
    units = {}
    for name, block in zip(names, blocks):
        props = dict(line.split("=", 1) for line in block.splitlines() if "=" in line)
        missing = [key for key in _UNIT_PROPERTIES if key not in props]
        if missing:
            raise NodeStateError("systemctl show printed no %s for %s: %r" % (", ".join(missing), name, block))
        units[name] = {"load": props["LoadState"], "active": props["ActiveState"], "sub": props["SubState"],
                       "enabled": props["UnitFileState"]}
    return units


def _sha256_of(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def secret_state(path: str, sha256: str) -> Dict[str, Any]:
    """What path_state says of a file holding a secret, with whether its content has the SHA-256 given instead of
    the hash itself."""
    state = path_state(path, digest=False)
    is_file = state["exists"] and stat.S_ISREG(os.stat(path).st_mode)
    state["matches"] = bool(is_file and hmac.compare_digest(_sha256_of(path), sha256))
    return state


def path_state(path: str, digest: bool = True) -> Dict[str, Any]:
    """Type, owner, group and mode of a path (symbolic links followed); with digest, a regular file's SHA-256."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return {"exists": False, "isdir": False}
    try:
        owner = pwd.getpwuid(info.st_uid).pw_name
    except KeyError:
        owner = str(info.st_uid)
    try:
        group = grp.getgrgid(info.st_gid).gr_name
    except KeyError:
        group = str(info.st_gid)
    state = {"exists": True, "isdir": stat.S_ISDIR(info.st_mode), "owner": owner, "group": group,
             "mode": "%04o" % stat.S_IMODE(info.st_mode)}
    if digest and stat.S_ISREG(info.st_mode):
        state["sha256"] = _sha256_of(path)
    return state


def read_packages(module: AnsibleModule, names: List[str]) -> Dict[str, str]:
    if not names:
        return {}
    argv = [module.get_bin_path("dpkg-query", required=True), "--show", "--showformat=" + _DPKG_FORMAT, *names]
    rc, out, err = module.run_command(argv)
    if rc not in (0, 1):  # 1: some package dpkg has never seen (no line for it)
        module.fail_json(msg="node_state: %s failed (exit %d): %s" % (" ".join(argv[:3]), rc, (err or out).strip()))
    try:
        versions = installed_versions(out.splitlines())
    except DpkgStatusError as err:
        module.fail_json(msg="node_state: reading which of %s are installed: %s" % (", ".join(names), err))
    return {name: versions[name] for name in names if name in versions}


def read_units(module: AnsibleModule, names: List[str]) -> Dict[str, Dict[str, str]]:
    if not names:
        return {}
    argv = [module.get_bin_path("systemctl", required=True), "show", "--property=" + ",".join(_UNIT_PROPERTIES),
            "--", *names]
    rc, out, err = module.run_command(argv)
    if rc != 0:
        module.fail_json(msg="node_state: systemctl show %s failed (exit %d): %s"
                             % (" ".join(names), rc, (err or out).strip()))
    try:
        return parse_units(names, out)
    except NodeStateError as err:
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


def main() -> None:
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    try:
        check_arguments(module.params)
    except (NodeStateError, FileRuleError) as err:
        module.fail_json(msg="node_state: refusing to read: %s" % err)
    packages = read_packages(module, module.params["packages"])
    units = read_units(module, module.params["units"])
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
    module.exit_json(changed=False, packages=packages, units=units, paths=paths, secrets=secrets,
                     listeners=listeners, globs=globs)


if __name__ == "__main__":
    main()
