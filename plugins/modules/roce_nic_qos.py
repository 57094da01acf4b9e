# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

DOCUMENTATION = r"""
module: roce_nic_qos
version_added: 0.1.0
short_description: Put RoCE NIC ports in the lossless class - trust DSCP, PFC, ECN, rdma_cm ToS - and pick the GID for NCCL
description:
  - For each RoCE port, reads what is set now and changes only what differs from the lossless class
    O(priority), O(dscp), O(tos).
  - Trust DSCP, the DSCP map (the RoCE DSCPs on O(priority); any other DSCP the NIC maps there moves to
    O(default_priority)) and PFC on O(priority) only, with C(mlnx_qos) or iproute2's C(dcb) (O(tool)).
  - ECN notification point and reaction point on O(priority), in
    C(<sysfs_root>/class/net/<netdev>/ecn/roce_np/enable/<prio>) and C(roce_rp/enable/<prio>).
  - rdma_cm's default RoCE ToS in C(<configfs_root>/rdma_cm/<device>/ports/<port>/default_roce_tos), making the
    device directory first as the C(cma_roce_tos) script does.
  - Everything is read before anything changes; in check mode nothing changes. After the changes trust, PFC and the
    DSCP map are read back, and a tool that accepted a change without making it fails the task.
  - Returns the GID index NCCL should use per device - the lowest RoCE v2 GID with an IPv4-mapped address
    (C(::ffff:a.b.c.d)) on the port's netdev, because only RoCE v2 carries the DSCP and ECN bits and is routed over
    IP - and the matching NCCL environment (C(NCCL_IB_TC), C(NCCL_IB_GID_INDEX), C(NCCL_IB_HCA)).
  - Also returns the shell lines that set the whole class on a port freshly loaded by the driver (RV(boot_commands)),
    for a boot script, since the NIC keeps none of these settings across a driver reload or a reboot.
  - Where the driver has no ECN sysfs (the inbox mlx5 driver; DCQCN is then on by firmware default for every
    priority) ECN is not managed and the module warns.
options:
  devices:
    description:
      - The RoCE ports. Each needs O(devices[].rdma_device) or O(devices[].netdev); the other is found in sysfs.
    type: list
    elements: dict
    required: true
    suboptions:
      rdma_device:
        description: The RDMA device, C(mlx5_0).
        type: str
      port:
        description: Its port.
        type: int
        default: 1
      netdev:
        description:
          - The data netdev (C(eth2), C(ens1f0np0), a bond under RoCE LAG); the GID index is chosen among its GIDs.
            Default - the netdev of the port's GID 0.
        type: str
  priority:
    description: The lossless 802.1p priority, 0..7 (C(gpufleet_roce_class.priority)).
    type: int
    default: 3
  dscp:
    description: The DSCPs that are RoCE, each 0..63 (C(gpufleet_roce_class.dscp)).
    type: list
    elements: int
    default: [26]
  default_priority:
    description:
      - Where a DSCP other than O(dscp) goes when the NIC maps it to O(priority) (the firmware default map is
        C(DSCP >> 3), so DSCPs 24..31 share priority 3); the switch's C(default_priority). Not O(priority).
    type: int
    default: 0
  tos:
    description:
      - rdma_cm's default ToS byte, C(DSCP << 2 | ECN bits); its DSCP must be in O(dscp) and its ECN bits must not be
        11 (CE). Default - the first DSCP with ECT(0), C(26 << 2 | 2 = 106).
    type: int
  ecn:
    description: ECN (DCQCN) on O(priority) - C(np) the notification point (receiver), C(rp) the reaction point (sender).
    type: dict
    suboptions:
      np:
        description: Enable the notification point on O(priority) (false disables it there).
        type: bool
        default: true
      rp:
        description: Enable the reaction point on O(priority) (false disables it there).
        type: bool
        default: true
  tool:
    description:
      - What sets trust, the DSCP map and PFC. C(auto) - C(mlnx_qos) when O(mlnx_qos_command) is found, else C(dcb).
      - C(sysfs) - neither; only ECN, the ToS and the GID choice (sysfs and configfs), trust and PFC are left to
        something else (a NIC managed by its firmware settings or an operator) and reported as not managed.
      - ECN and the ToS are always written through sysfs and configfs, whatever the tool.
    type: str
    choices: [auto, mlnx_qos, dcb, sysfs]
    default: auto
  sysfs_root:
    description: Root of the sysfs tree; point it at a copy to work on a recorded NIC.
    type: path
    default: /sys
  configfs_root:
    description: Where configfs is mounted.
    type: path
    default: /sys/kernel/config
  mlnx_qos_command:
    description: The C(mlnx_qos) to run, a name looked up in PATH or an absolute path.
    type: str
    default: mlnx_qos
  dcb_command:
    description: The iproute2 C(dcb) to run, a name looked up in PATH or an absolute path.
    type: str
    default: dcb
attributes:
  check_mode:
    description: Reads everything and reports the changes it would make; runs no setting command and writes nothing.
  diff_mode:
    description: Per port C(<device>:<port>) - trust, PFC priorities, the map of the DSCPs that matter, ECN and ToS.
  idempotent:
    support: full
    description: A second run with the same options changes nothing.
  platform:
    description: Linux with RoCE NICs (mlx5).
extends_documentation_fragment:
  - gpufleet.cluster.attributes
author:
  - gpufleet.cluster contributors (@gpufleet)
"""

EXAMPLES = r"""
- name: RoCE class on the two RoCE ports, as the switches have it
  gpufleet.cluster.roce_nic_qos:
    devices:
      - {rdma_device: mlx5_0}
      - {netdev: ens2f0np0}
    priority: "{{ gpufleet_roce_class.priority }}"
    dscp: "{{ gpufleet_roce_class.dscp }}"
  register: roce

- name: NCCL environment
  ansible.builtin.debug:
    msg: "NCCL_IB_TC={{ roce.nccl.NCCL_IB_TC }} NCCL_IB_GID_INDEX={{ roce.nccl.NCCL_IB_GID_INDEX }}"

- name: Through iproute2 dcb, ECN on the receiving side only
  gpufleet.cluster.roce_nic_qos:
    devices: [{rdma_device: mlx5_0, netdev: eth2}]
    tool: dcb
    ecn: {np: true, rp: false}
"""

RETURN = r"""
devices:
  description:
    - One entry per port with C(rdma_device), C(port), C(netdev), C(tool), C(gid_index), C(gid), C(gid_ipv4),
      C(before) and C(after) (as in the diff), C(changes) (C(setting), C(before), C(after), C(key) - the DSCP or
      priority), C(commands) (run, or in check mode to be run) and C(boot_commands).
  returned: always
  type: list
  elements: dict
gid_index:
  description: Chosen GID index per RDMA device.
  returned: always
  type: dict
  sample: {mlx5_0: 3}
nccl:
  description:
    - C(NCCL_IB_TC) (the ToS byte), C(NCCL_IB_GID_INDEX) (null when the devices' indexes differ - NCCL takes one for
      all) and C(NCCL_IB_HCA) (C(=mlx5_0:1,mlx5_1:1) - C(=) makes NCCL match the names exactly).
  returned: always
  type: dict
  sample: {NCCL_IB_TC: 106, NCCL_IB_GID_INDEX: 3, NCCL_IB_HCA: "=mlx5_0:1"}
commands:
  description: Every setting command as a shell-quoted line, in order; in check mode the ones that would run.
  returned: always
  type: list
  elements: str
  sample: ["mlnx_qos -i eth2 --trust dscp", "mlnx_qos -i eth2 --pfc 0,0,0,1,0,0,0,0"]
boot_commands:
  description: Shell lines that set the whole class on every port after a driver load, for a boot script.
  returned: always
  type: list
  elements: str
msg:
  description: One line - ports, what changed (or would), the GID index.
  returned: always
  type: str
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpufleet.cluster.plugins.module_utils.common.commands import CommandRunner
from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce.nic import (
    Change, QosState, RoceNicError, boot_commands, command_line, dcb_argv, default_dscp2prio, desired_state,
    mlnx_qos_argv, nccl_environment, qos_changes,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce.nic_parse import (
    dcb_state, parse_dcb_ets, parse_mlnx_qos,
)
from ansible_collections.gpufleet.cluster.plugins.module_utils.fabric.roce import nic_sysfs
from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules

ARGUMENT_SPEC = dict(
    devices=dict(type="list", elements="dict", required=True, options=dict(
        rdma_device=dict(type="str"),
        port=dict(type="int", default=1),
        netdev=dict(type="str"),
    )),
    priority=dict(type="int", default=3),
    dscp=dict(type="list", elements="int", default=[26]),
    default_priority=dict(type="int", default=0),
    tos=dict(type="int"),
    ecn=dict(type="dict", apply_defaults=True, options=dict(
        np=dict(type="bool", default=True),
        rp=dict(type="bool", default=True),
    )),
    tool=dict(type="str", choices=["auto", "mlnx_qos", "dcb", "sysfs"], default="auto"),
    sysfs_root=dict(type="path", default="/sys"),
    configfs_root=dict(type="path", default="/sys/kernel/config"),
    mlnx_qos_command=dict(type="str", default="mlnx_qos"),
    dcb_command=dict(type="str", default="dcb"),
)


class ModuleFailure(Exception):
    """A failure to report through fail_json."""


def _pick_tool(params, runner):
    """(tool, path of its command or None)."""
    tool = params["tool"]
    if tool == "sysfs":
        return tool, None
    wanted = ["mlnx_qos", "dcb"] if tool == "auto" else [tool]
    for name in wanted:
        path = runner.which(params[name + "_command"])
        if path:
            return name, path
    looked = " and ".join("%s (%s)" % (n, params[n + "_command"]) for n in wanted)
    raise ModuleFailure("tool %s: %s not found, so trust and PFC cannot be set; install mlnx-tools (mlnx_qos) or "
                        "iproute2 (dcb), point mlnx_qos_command/dcb_command at it, or use tool sysfs to leave trust "
                        "and PFC alone" % (tool, looked))


def check_params(params):
    """Refuse names that would leave sysfs (``../``), split a boot-script line or name another option: the RDMA device
    a word (mlx5_0), the netdev an interface name, the ports 1-254, the tool commands a word or an absolute path and
    the roots absolute paths, none with a control character."""
    for index, entry in enumerate(params["devices"] or []):
        where = "devices[%d]" % index
        if entry.get("rdma_device") is not None:
            input_rules.check("word", where + ".rdma_device", entry["rdma_device"], ModuleFailure)
        if entry.get("netdev") is not None:
            input_rules.check("ifname", where + ".netdev", entry["netdev"], ModuleFailure)
        if entry.get("port") is not None:
            input_rules.integer(where + ".port", entry["port"], ModuleFailure, minimum=1, maximum=254)
    for key in ("mlnx_qos_command", "dcb_command"):
        value = params[key]
        if not (isinstance(value, str) and value.startswith("/") and not input_rules.CONTROL_RE.search(value)
                and " " not in value):
            input_rules.check("word", key, value, ModuleFailure)
    for key in ("sysfs_root", "configfs_root"):
        value = params[key]
        if not isinstance(value, str) or not value.startswith("/") or input_rules.CONTROL_RE.search(value):
            raise ModuleFailure("%s: %r is not allowed; expected an absolute path without control characters"
                                % (key, value))


def _resolve(entry, sysfs_root):
    """(rdma_device, port, netdev) of one devices[] entry, checked to be an Ethernet (RoCE) port."""
    device, port, netdev = entry.get("rdma_device"), entry.get("port") or 1, entry.get("netdev")
    if not device and not netdev:
        raise ModuleFailure("devices entry %s names neither rdma_device nor netdev; give one of them" % entry)
    try:
        if not device:
            device, port = nic_sysfs.find_port_of_netdev(sysfs_root, netdev)
        layer = nic_sysfs.link_layer(sysfs_root, device, port)
        if layer is None:
            raise ModuleFailure("%s port %d not found: %s has no link_layer" % (
                device, port, nic_sysfs.port_dir(sysfs_root, device, port)))
        if layer != "Ethernet":
            raise ModuleFailure("%s port %d has link layer %s, so it is not a RoCE port; list only Ethernet "
                                "(RoCE) ports in devices" % (device, port, layer))
        netdev = netdev or nic_sysfs.port_netdev(sysfs_root, device, port)
    except RoceNicError as exc:
        raise ModuleFailure(str(exc))
    if not netdev:
        raise ModuleFailure("%s port %d: no netdev in gid_attrs/ndevs/0; give devices[].netdev" % (device, port))
    return device, port, netdev


def _run(runner, argv, what):
    rc, out, err = runner.run(argv)
    if rc != 0:
        detail = (err or "").strip() or (out or "").strip() or "no output"
        raise ModuleFailure("%s exited %d while %s: %s" % (command_line(argv), rc, what, detail))
    return out or ""


def _read_qos(tool, path, netdev, runner):
    """QosState of the port through the tool; the ETS traffic class map goes to extra['prio_tc']."""
    try:
        if tool == "mlnx_qos":
            return parse_mlnx_qos(_run(runner, [path, "-i", netdev], "reading trust and PFC"))
        pfc = _run(runner, [path, "pfc", "show", "dev", netdev], "reading PFC")
        app = _run(runner, [path, "-N", "app", "show", "dev", netdev, "dscp-prio"], "reading the DSCP map")
        state = dcb_state(pfc, app)
        ets = parse_dcb_ets(_run(runner, [path, "ets", "show", "dev", netdev], "reading ETS"))
        state.extra["prio_tc"] = {p: int(tc) for p, tc in ets["prio-tc"].items()}
        return state
    except RoceNicError as exc:
        raise ModuleFailure("%s on %s: output not understood: %s" % (tool, netdev, exc))


def _ecn_changes(current, point, desired):
    if current is None:
        return []
    wanted = desired.ecn_np if point == "np" else desired.ecn_rp
    if current[desired.priority] == wanted:
        return []
    return [Change("ecn_" + point, current[desired.priority], wanted, key=desired.priority)]


def _view(qos, ecn, tos, desired, changes, tool):
    """The diff's picture of one port: the DSCPs of the class, those the firmware default puts on the lossless
    priority (DSCP >> 3) and any that move; ECN priorities; ToS. The same DSCPs before and after, run after run."""
    dscps = sorted(set(desired.dscp) | {d for d in range(64) if d >> 3 == desired.priority}
                   | {c.key for c in changes if c.setting == "dscp2prio"})
    out = qos.summary(dscps) if tool != "sysfs" else {}
    for point in ("np", "rp"):
        out["ecn_" + point] = None if ecn[point] is None else [p for p, on in sorted(ecn[point].items()) if on]
    out["roce_tos"] = tos
    return out


def _after(qos, ecn, desired, changes):
    """What the port is after the changes: the current state with each change applied."""
    new = QosState(trust=qos.trust, pfc=qos.pfc, dscp2prio=dict(qos.dscp2prio or {}))
    new_ecn = {k: (dict(v) if v is not None else None) for k, v in ecn.items()}
    tos = None
    for change in changes:
        if change.setting == "trust":
            new.trust = change.after
        elif change.setting == "pfc":
            new.pfc = tuple(int(v) for v in change.after.split(","))
        elif change.setting == "dscp2prio":
            new.dscp2prio[change.key] = change.after
        elif change.setting in ("ecn_np", "ecn_rp"):
            new_ecn[change.setting[4:]][change.key] = change.after
        elif change.setting == "roce_tos":
            tos = change.after
    if qos.dscp2prio is None:
        # Unknown before (trust pcp): after trust dscp the firmware default holds where nothing was set.
        new.dscp2prio = _merged(default_dscp2prio(), new.dscp2prio)
    return new, new_ecn, tos


def _merged(base, top):
    out = dict(base)
    out.update(top)
    return out


def _port(params, desired, tool, path, resolved, runner, check_mode, warnings):
    device, port, netdev = resolved
    sysfs_root, configfs_root = params["sysfs_root"], params["configfs_root"]
    try:
        gid = nic_sysfs.choose_gid(nic_sysfs.read_gids(sysfs_root, device, port), device, port, netdev)
        ecn = {point: nic_sysfs.read_ecn(sysfs_root, netdev, point) for point in ("np", "rp")}
        tos = nic_sysfs.read_tos(configfs_root, device, port)
    except RoceNicError as exc:
        raise ModuleFailure(str(exc))
    if ecn["np"] is None or ecn["rp"] is None:
        warnings.append("%s has no ECN sysfs (%s): ECN is not managed on %s:%d; the inbox mlx5 driver keeps DCQCN "
                        "on by firmware default for every priority" % (
                            netdev, os.path.dirname(nic_sysfs.ecn_enable_dir(sysfs_root, netdev, "np")), device, port))
    qos = _read_qos(tool, path, netdev, runner) if tool != "sysfs" else QosState()
    changes = qos_changes(qos, desired) if tool != "sysfs" else []
    changes += _ecn_changes(ecn["np"], "np", desired) + _ecn_changes(ecn["rp"], "rp", desired)
    if tos != desired.tos:
        changes.append(Change("roce_tos", tos, desired.tos))
    argvs = []
    if tool == "mlnx_qos":
        argvs = mlnx_qos_argv(path, netdev, changes)
    elif tool == "dcb":
        argvs = dcb_argv(path, netdev, changes, desired)
    before = _view(qos, ecn, tos, desired, changes, tool)
    new_qos, new_ecn, new_tos = _after(qos, ecn, desired, changes)
    after = _view(new_qos, new_ecn, new_tos if new_tos is not None else tos, desired, changes, tool)
    if changes and not check_mode:
        _apply(params, desired, tool, path, device, port, netdev, qos, changes, argvs, runner)
    ecn_dirs = {p: (nic_sysfs.ecn_enable_dir(sysfs_root, netdev, p) if ecn[p] is not None else None)
                for p in ("np", "rp")}
    boot = boot_commands(tool, path or "", netdev, desired, ecn_dirs, nic_sysfs.tos_paths(configfs_root, device, port))
    return {"rdma_device": device, "port": port, "netdev": netdev, "tool": tool, "gid_index": gid.index,
            "gid": gid.gid, "gid_ipv4": gid.ipv4, "before": before, "after": after,
            "changes": [c.as_dict() for c in changes], "commands": [command_line(a) for a in argvs],
            "boot_commands": boot, "traffic_class": (qos.extra.get("prio_tc") or {}).get(desired.priority)}


def _apply(params, desired, tool, path, device, port, netdev, qos, changes, argvs, runner):
    sysfs_root, configfs_root = params["sysfs_root"], params["configfs_root"]
    for argv in argvs:
        _run(runner, argv, "setting %s:%d (%s) to trust dscp / PFC on priority %d" % (
            device, port, netdev, desired.priority))
    if argvs:
        left = qos_changes(_read_qos(tool, path, netdev, runner), desired)
        if left:
            raise ModuleFailure("%s accepted %s but %s still needs %s; the NIC did not take the setting" % (
                tool, "; ".join(command_line(a) for a in argvs), netdev,
                ", ".join("%s%s %s -> %s" % (c.setting, "" if c.key is None else "[%d]" % c.key, c.before, c.after)
                          for c in left)))
    try:
        for change in changes:
            if change.setting in ("ecn_np", "ecn_rp"):
                nic_sysfs.write_ecn(sysfs_root, netdev, change.setting[4:], change.key, change.after)
            elif change.setting == "roce_tos":
                nic_sysfs.write_tos(configfs_root, device, port, change.after)
    except RoceNicError as exc:
        raise ModuleFailure("setting ECN / the RoCE ToS of %s:%d (%s): %s" % (device, port, netdev, exc))


def run_module(params, runner, check_mode):
    """Everything but the Ansible plumbing: (result, warnings); raises ModuleFailure."""
    ecn = params.get("ecn") or {}
    try:
        desired = desired_state(params["priority"], params["dscp"], params["tos"], params["default_priority"],
                                ecn.get("np", True), ecn.get("rp", True))
    except RoceNicError as exc:
        raise ModuleFailure(str(exc))
    if not params["devices"]:
        raise ModuleFailure("devices is empty: list the RoCE ports as {rdma_device} or {netdev}")
    check_params(params)
    tool, path = _pick_tool(params, runner)
    resolved = [_resolve(entry, params["sysfs_root"]) for entry in params["devices"]]
    seen = set()
    for device, port, _netdev in resolved:
        if (device, port) in seen:
            raise ModuleFailure("%s:%d is listed twice in devices; list each port once" % (device, port))
        seen.add((device, port))
    warnings = []
    ports = [_port(params, desired, tool, path, r, runner, check_mode, warnings) for r in resolved]
    gid_index = {p["rdma_device"]: p["gid_index"] for p in ports}
    nccl = nccl_environment(desired, [(p["rdma_device"], p["port"]) for p in ports], gid_index)
    if nccl["NCCL_IB_GID_INDEX"] is None:
        warnings.append("the RoCE v2 IPv4 GID has different indexes on the devices (%s) but NCCL_IB_GID_INDEX is one "
                        "number for all; give the netdevs their addresses in the same order, or leave "
                        "NCCL_IB_GID_INDEX unset and set NCCL_IB_ROCE_VERSION_NUM=2 / NCCL_IB_ADDR_FAMILY=AF_INET "
                        "(NCCL 2.21+)" % ", ".join("%s %d" % item for item in sorted(gid_index.items())))
    changed = any(p["changes"] for p in ports)
    name = "%s:%d"
    count = sum(len(p["changes"]) for p in ports)
    what = ("%d setting(s) %s" % (count, "to change (check mode)" if check_mode else "changed")) if changed else "already set"
    index = nccl["NCCL_IB_GID_INDEX"] if nccl["NCCL_IB_GID_INDEX"] is not None else gid_index
    msg = "%d RoCE port(s), %s; GID index %s" % (len(ports), what, index)
    result = dict(
        changed=changed, devices=ports, gid_index=gid_index, nccl=nccl, msg=msg,
        commands=[c for p in ports for c in p["commands"]],
        boot_commands=[c for p in ports for c in p["boot_commands"]],
        diff={"before": {name % (p["rdma_device"], p["port"]): p["before"] for p in ports},
              "after": {name % (p["rdma_device"], p["port"]): p["after"] for p in ports}})
    return result, warnings


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    try:
        result, warnings = run_module(module.params, CommandRunner(module), module.check_mode)
    except ModuleFailure as exc:
        module.fail_json(msg=str(exc))
    for warning in warnings:
        module.warn(warning)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
