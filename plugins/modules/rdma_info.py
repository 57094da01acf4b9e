# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
module: rdma_info
version_added: 0.1.0
short_description: Report the node's RDMA adapters (HCAs) and ports from sysfs and the InfiniBand tools
description:
  - Reads every RDMA device under C(<sysfs_root>/class/infiniband) and, where installed, what C(ibstat),
    C(ibstatus), C(ibv_devinfo), C(rdma link show) (iproute2) and C(ibdev2netdev) print, and returns one
    entry per device and port with its state, physical state, rate, link layer, LIDs, GUIDs, netdev and NUMA
    node, plus a summary of the ports that are not ACTIVE and why.
  - Changes nothing. A tool that is not installed is skipped and listed in RV(sources_missing); a tool that
    fails (C(ibstat) exits 255 with C(ibpanic) on a device it cannot open) is reported in RV(source_errors)
    and what it printed before failing is still used.
  - Values are normalised whatever the source - state C(ACTIVE)/C(DOWN)/C(INIT)/C(ARMED), physical state
    C(LinkUp)/C(Polling)/C(Disabled), link layer C(InfiniBand)/C(Ethernet), GUIDs C(0x) and 16 hex digits,
    rate in Gb/s - and the first source in O(sources) that has a value wins.
  - With no RDMA device at all the module succeeds with empty RV(devices) and a RV(msg) that says so.
options:
  sources:
    description:
      - Where to read from, in order of precedence.
      - C(auto) reads sysfs, then runs every tool that is installed; when O(sysfs_root) is not C(/sys) it reads
        only that sysfs tree, because the tools would describe this host and not the tree.
      - C(rdma) runs C(rdma link show); C(ibv_devinfo) runs it without C(-v).
    type: list
    elements: str
    choices: [auto, sysfs, ibstat, ibstatus, ibv_devinfo, rdma, ibdev2netdev]
    default: [auto]
  sysfs_root:
    description:
      - Root of the sysfs tree to read; point it at a copy to describe another machine.
    type: path
    default: /sys
  fail_on_down:
    description:
      - Fail, naming them, when any port is not ACTIVE (RV(summary.not_active)). No device at all is not a failure;
        check RV(summary.ports) for that.
    type: bool
    default: false
extends_documentation_fragment:
  - gpufleet.cluster.attributes.info_module
author:
  - gpufleet.cluster contributors (@gpufleet)
"""

EXAMPLES = r"""
- name: Read the HCAs
  gpufleet.cluster.rdma_info:
  register: rdma

- name: Every compute node has 8 ACTIVE InfiniBand ports
  ansible.builtin.assert:
    that: rdma.summary.active_by_link_layer.InfiniBand | default(0) == 8
    fail_msg: "{{ rdma.summary.not_active }}"

- name: Fail on any port that is not ACTIVE, naming it
  gpufleet.cluster.rdma_info:
    fail_on_down: true

- name: Only sysfs and ibstat, ibstat's values first
  gpufleet.cluster.rdma_info:
    sources: [ibstat, sysfs]

- name: NCCL_IB_HCA from the ACTIVE InfiniBand ports
  ansible.builtin.set_fact:
    nccl_ib_hca: "{{ rdma.ports | selectattr('state', 'eq', 'ACTIVE') | selectattr('link_layer', 'eq', 'InfiniBand')
                     | map(attribute='device') | join(',') }}"
"""

RETURN = r"""
devices:
  description:
    - One entry per RDMA device in natural name order (mlx5_2 before mlx5_10) with C(name), C(ca_type) (C(MT4129)),
      C(firmware), C(hardware_version), C(board_id), C(vendor_part_id), C(node_guid), C(sys_image_guid),
      C(numa_node), C(pci_address), C(sources) (those that reported it) and C(ports).
    - Each port has C(port), C(state), C(phys_state), C(rate_gbps) (number), C(rate_detail) (C(4X NDR)),
      C(link_layer), C(base_lid), C(sm_lid), C(lmc), C(port_guid), C(gid0), C(capability_mask), C(netdev)
      and C(sources). A value no source gave is null; LIDs are 0 on Ethernet (RoCE) ports.
  returned: always
  type: list
  elements: dict
ports:
  description: The same ports as one flat list, each with C(device), C(numa_node) and C(pci_address) added.
  returned: always
  type: list
  elements: dict
summary:
  description:
    - C(devices) and C(ports) counted, C(active) ports, C(active_by_link_layer) (for example
      C(Ethernet=1, InfiniBand=8) as a dict) and C(not_active), a list of C(device), C(port), C(state),
      C(phys_state), C(link_layer) and C(reason) in words.
  returned: always
  type: dict
  contains:
    devices:
      description: RDMA devices found.
      type: int
      sample: 12
    ports:
      description: Ports found, over all devices.
      type: int
      sample: 12
    active:
      description: Ports in state ACTIVE.
      type: int
      sample: 9
    active_by_link_layer:
      description: ACTIVE ports per link layer.
      type: dict
      sample: {Ethernet: 1, InfiniBand: 8}
    not_active:
      description: The ports that are not ACTIVE, each with C(device), C(port), C(state), C(phys_state), C(link_layer) and C(reason).
      type: list
      elements: dict
sources_used:
  description: The sources that were read, in order of precedence.
  returned: always
  type: list
  elements: str
sources_missing:
  description: The tools asked for (or, with C(auto), looked for) that are not installed.
  returned: always
  type: list
  elements: str
source_errors:
  description: What went wrong with a source (exit status, C(ibpanic) lines, unparsable values).
  returned: always
  type: list
  elements: str
msg:
  description: One line - devices and ports found and how many are ACTIVE, or why there is none.
  returned: always
  type: str
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.commands import CommandRunner
from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.rdma.parse import (
    PARSERS, RdmaParseError, Reading, merge, summarise,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.rdma.sysfs import read_sysfs

SOURCES = ["auto", "sysfs", "ibstat", "ibstatus", "ibv_devinfo", "rdma", "ibdev2netdev"]
COMMANDS = {"ibstat": ["ibstat"], "ibstatus": ["ibstatus"], "ibv_devinfo": ["ibv_devinfo"],
            "rdma": ["rdma", "link", "show"], "ibdev2netdev": ["ibdev2netdev"]}

ARGUMENT_SPEC = dict(
    sources=dict(type="list", elements="str", choices=SOURCES, default=["auto"]),
    sysfs_root=dict(type="path", default="/sys"),
    fail_on_down=dict(type="bool", default=False),
)


class ModuleFailure(Exception):
    """A failure to report through fail_json."""


def _order(sources, sysfs_root):
    if "auto" in sources:
        if len(sources) > 1:
            raise ModuleFailure("sources %s: auto cannot be combined with other sources; give auto alone or list "
                                "the sources" % sources)
        commands = list(COMMANDS) if os.path.normpath(sysfs_root) == "/sys" else []
        return ["sysfs"] + commands
    return list(dict.fromkeys(sources))


def _run_tool(source, runner, errors):
    """The tool's reading, or None when it is not installed; failures go to errors."""
    argv = COMMANDS[source]
    path = runner.which(argv[0])
    if not path:
        return None
    command = " ".join(argv)
    rc, out, err = runner.run([path] + argv[1:])
    err = err or ""
    try:
        reading = PARSERS[source](out or "")
    except RdmaParseError as exc:
        errors.append("%s: output not understood, not used: %s" % (command, exc))
        return Reading(source)
    if source == "ibv_devinfo" and "No IB devices found" in err:
        return reading  # what ibv_devinfo says (exit 255) on a node without RDMA devices
    problems = reading.problems + [line.strip() for line in err.splitlines() if line.strip()]
    if rc != 0 or problems:
        detail = "; ".join(problems) or "no message"
        kept = " (the %d device(s) printed before are used)" % len(reading.devices) if reading.devices else ""
        errors.append("%s exited with status %d: %s%s" % (command, rc, detail, kept) if rc != 0
                      else "%s: %s" % (command, detail))
    return reading


def _flat_ports(devices):
    return [dict(port, device=d["name"], numa_node=d["numa_node"], pci_address=d["pci_address"])
            for d in devices for port in d["ports"]]


def _message(summary, sysfs_root, used):
    if not summary["devices"]:
        return ("no RDMA device found: %s/class/infiniband is empty or missing and no tool (%s) listed one; "
                "is the HCA driver (mlx5_ib, ib_core) loaded?" % (sysfs_root.rstrip("/"), ", ".join(used) or "none"))
    layers = ", ".join("%s %d" % item for item in summary["active_by_link_layer"].items())
    text = "%d RDMA device(s), %d port(s): %d ACTIVE" % (summary["devices"], summary["ports"], summary["active"])
    if layers:
        text += " (%s)" % layers
    down = len(summary["not_active"])
    return text + (", %d not ACTIVE" % down if down else "")


def down_message(summary):
    names = ", ".join("%s/%s (%s, %s)" % (p["device"], p["port"], p["state"] or "state unknown",
                                          p["phys_state"] or "physical state unknown")
                      for p in summary["not_active"])
    return ("%d of %d RDMA port(s) not ACTIVE: %s; fail_on_down is true"
            % (len(summary["not_active"]), summary["ports"], names))


def run_module(params, runner):
    """Everything but the Ansible plumbing: (result, failure message or None); raises ModuleFailure."""
    sysfs_root = params["sysfs_root"]
    readings, used, missing, errors = [], [], [], []
    for source in _order(params["sources"], sysfs_root):
        if source == "sysfs":
            reading = read_sysfs(sysfs_root)
            errors.extend("sysfs: %s" % problem for problem in reading.problems)
        else:
            reading = _run_tool(source, runner, errors)
            if reading is None:
                missing.append(source)
                continue
        used.append(source)
        readings.append(reading)
    devices = merge(readings)
    summary = summarise(devices)
    result = dict(changed=False, devices=devices, ports=_flat_ports(devices), summary=summary, sources_used=used,
                  sources_missing=missing, source_errors=errors, msg=_message(summary, sysfs_root, used))
    failure = down_message(summary) if params["fail_on_down"] and summary["not_active"] else None
    return result, failure


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    try:
        result, failure = run_module(module.params, CommandRunner(module))
    except ModuleFailure as exc:
        module.fail_json(msg=str(exc))
    if failure:
        result["msg"] = failure
        module.fail_json(**result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
